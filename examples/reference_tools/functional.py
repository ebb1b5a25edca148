r"""
torch.nn.functional reference
=============================

The stateless functions behind the ``nn`` layers, imported as ``F``; any
weights a function needs are passed in as arguments.

Summary
-------

===============================================  ==================================================
You want                                         Call
===============================================  ==================================================
to clip negatives to zero                        :entry:`F.relu <api-f-relu>`
to apply the smooth GELU activation              :entry:`F.gelu <api-f-gelu>`
to turn scores into probabilities along ``dim``  :entry:`F.softmax <api-f-softmax>`
to get stable log-probabilities                  :entry:`F.log_softmax <api-f-log-softmax>`
a classification loss from raw logits            :entry:`F.cross_entropy <api-f-cross-entropy>`
a multi-label loss from raw logits               :entry:`F.binary_cross_entropy_with_logits(z, y) <api-f-binary-cross-entropy-with-logits>`
an affine map with your own weights              :entry:`F.linear <api-f-linear>`
a 2-D convolution with your own kernel           :entry:`F.conv2d <api-f-conv2d>`
to extract sliding patches (im2col)              :entry:`F.unfold <api-f-unfold>`
to put patches back into an image                :entry:`F.fold <api-f-fold>`
to pad with constants, reflection, edges, wrap   :entry:`F.pad <api-f-pad>`
to resize images and feature maps                :entry:`F.interpolate <api-f-interpolate>`
to encode class indices as one-hot vectors       :entry:`F.one_hot <api-f-one-hot>`
to scale vectors to unit norm                    :entry:`F.normalize <api-f-normalize>`
to look up rows of an embedding table            :entry:`F.embedding <api-f-embedding>`
to drop activations (pass ``training=``)         :entry:`F.dropout <api-f-dropout>`
to normalise the last dimensions                 :entry:`F.layer_norm <api-f-layer-norm>`
===============================================  ==================================================
"""

# %%
# .. _api-f-relu:
#
# torch.nn.functional.relu
# ------------------------
# ``max(x, 0)`` element-wise; ``inplace=True`` overwrites the input instead of
# allocating a new tensor.
import torch
import torch.nn.functional as F

F.relu(torch.tensor([-2.0, -0.5, 0.0, 1.5]))

# %%
# .. _api-f-gelu:
#
# torch.nn.functional.gelu
# ------------------------
# ``x * Phi(x)`` with ``Phi`` the standard normal CDF; ``approximate="tanh"``
# selects the cheaper tanh formula used by some pretrained transformers.
import torch
import torch.nn.functional as F

pts = torch.tensor([-2.0, -0.5, 0.0, 1.5])
print("exact:", F.gelu(pts))
print("tanh: ", F.gelu(pts, approximate="tanh"))

# %%
# .. _api-f-softmax:
#
# torch.nn.functional.softmax
# ---------------------------
# Exponentiates and normalises along ``dim`` so each slice sums to one; always
# pass ``dim`` explicitly (``dim=-1`` is the last dimension, where the classes of
# a batch of logits usually are).
import torch
import torch.nn.functional as F

scores = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
probs = F.softmax(scores, dim=1)
print(probs)
print("row sums:", probs.sum(dim=1))

# %%
# .. _api-f-log-softmax:
#
# torch.nn.functional.log_softmax
# -------------------------------
# Computes ``log(softmax(x))`` in one stable step, which stays finite where the
# two-step version underflows to ``-inf``.
import torch
import torch.nn.functional as F

extreme = torch.tensor([0.0, 200.0])
print("two steps:", torch.log(F.softmax(extreme, dim=0)))
print("one step: ", F.log_softmax(extreme, dim=0))

# %%
# .. _api-f-cross-entropy:
#
# torch.nn.functional.cross_entropy
# ---------------------------------
# Takes raw logits of shape ``(N, C)`` and either class indices or class
# probabilities as target; ``ignore_index`` skips padded targets and
# ``label_smoothing`` softens one-hot targets.
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0], [1.0, 1.0, 1.0]])
labels = torch.tensor([0, 2, -100])  # -100 is the default ignore_index
print(f"indices:          {F.cross_entropy(logits, labels):.4f}")
print(f"label_smoothing:  {F.cross_entropy(logits, labels, label_smoothing=0.1):.4f}")
soft = torch.tensor([[0.9, 0.1, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]])
print(f"probabilities:    {F.cross_entropy(logits, soft):.4f}")

# %%
# .. _api-f-binary-cross-entropy-with-logits:
#
# torch.nn.functional.binary_cross_entropy_with_logits
# ----------------------------------------------------
# Sigmoid and binary cross-entropy fused for numerical stability, for
# multi-label targets in ``[0, 1]``; ``pos_weight`` up-weights positives.
import torch
import torch.nn.functional as F

raw = torch.tensor([[3.0, -2.0], [-1.0, 0.5]])
truth = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
print(f"loss: {F.binary_cross_entropy_with_logits(raw, truth):.4f}")
weighted = F.binary_cross_entropy_with_logits(raw, truth, pos_weight=torch.tensor([2.0, 2.0]))
print(f"pos_weight=2: {weighted:.4f}")

# %%
# .. _api-f-linear:
#
# torch.nn.functional.linear
# --------------------------
# ``x @ weight.T + bias`` with ``weight`` shaped ``(out_features, in_features)``,
# exactly what ``nn.Linear`` computes.
import torch
import torch.nn.functional as F

weight = torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]])
F.linear(torch.tensor([[1.0, 2.0, 3.0]]), weight, bias=torch.tensor([0.0, 10.0]))

# %%
# .. _api-f-conv2d:
#
# torch.nn.functional.conv2d
# --------------------------
# Convolves an ``(N, C_in, H, W)`` batch with a ``(C_out, C_in / groups, kH, kW)``
# weight; ``stride``, ``padding`` (or ``"same"``), ``dilation`` and ``groups``
# match the ``nn.Conv2d`` arguments.
import torch
import torch.nn.functional as F

image = torch.arange(16.0).reshape(1, 1, 4, 4)
edge = torch.tensor([[[[-1.0, 0.0, 1.0]]]])  # horizontal difference, 1 x 3
print(F.conv2d(image, edge))
print("padding='same':", tuple(F.conv2d(image, edge, padding="same").shape))

# %%
# .. _api-f-unfold:
#
# torch.nn.functional.unfold
# --------------------------
# Extracts every sliding patch as a column (im2col): ``(N, C * kH * kW, L)``,
# so a convolution becomes a matrix product.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
img = torch.randn(1, 2, 5, 5)
kernel = torch.randn(3, 2, 3, 3)
cols = F.unfold(img, kernel_size=3)  # (1, 2*3*3, 9)
as_matmul = (kernel.flatten(1) @ cols).reshape(1, 3, 3, 3)
print("patches:", tuple(cols.shape))
print("matches conv2d:", torch.allclose(as_matmul, F.conv2d(img, kernel), atol=1e-5))

# %%
# .. _api-f-fold:
#
# torch.nn.functional.fold
# ------------------------
# The reverse of ``unfold``: places columns back into an image and *sums* where
# patches overlap, so divide by a folded tensor of ones to average instead.
import torch
import torch.nn.functional as F

img = torch.arange(16.0).reshape(1, 1, 4, 4)
opts = {"output_size": (4, 4), "kernel_size": 2, "stride": 1}
summed = F.fold(F.unfold(img, kernel_size=2, stride=1), **opts)
overlaps = F.fold(F.unfold(torch.ones_like(img), kernel_size=2, stride=1), **opts)
print(overlaps[0, 0])
print("round trip after dividing:", torch.equal(summed / overlaps, img))

# %%
# .. _api-f-pad:
#
# torch.nn.functional.pad
# -----------------------
# Pads the last dimensions, the pad tuple listing ``(left, right, top, bottom,
# ...)`` from the last dimension backwards; ``mode`` is ``"constant"`` (filled
# with ``value``, zeros by default), ``"reflect"``, ``"replicate"`` or ``"circular"``.
import torch
import torch.nn.functional as F

row = torch.tensor([[[1.0, 2.0, 3.0]]])
for mode in ("constant", "reflect", "replicate", "circular"):
    print(f"{mode:>9}:", F.pad(row, (2, 1), mode=mode)[0, 0].tolist())

# %%
# .. _api-f-interpolate:
#
# torch.nn.functional.interpolate
# -------------------------------
# Resizes to ``size`` or by ``scale_factor``; ``mode`` picks nearest, (bi)linear,
# bicubic or area, and ``align_corners`` matters for the linear modes.
import torch
import torch.nn.functional as F

small = torch.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
print(F.interpolate(small, scale_factor=2, mode="nearest")[0, 0])
print(F.interpolate(small, size=(3, 3), mode="bilinear", align_corners=True)[0, 0])

# %%
# .. _api-f-one-hot:
#
# torch.nn.functional.one_hot
# ---------------------------
# Turns an ``int64`` index tensor into one-hot vectors in a new last dimension
# (``int64`` too; convert with ``.float()`` for arithmetic).
import torch
import torch.nn.functional as F

F.one_hot(torch.tensor([0, 2, 1, 2]), num_classes=4)

# %%
# .. _api-f-normalize:
#
# torch.nn.functional.normalize
# -----------------------------
# Divides by the Lp norm along ``dim`` (with ``eps`` guarding zero vectors), the
# usual first step of cosine similarity.
import torch
import torch.nn.functional as F

vecs = torch.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, 1.0]])
unit = F.normalize(vecs, p=2.0, dim=1)
print(unit)
print(f"cosine of rows 0 and 2: {unit[0] @ unit[2]:.4f}")

# %%
# .. _api-f-embedding:
#
# torch.nn.functional.embedding
# -----------------------------
# Looks rows of a weight matrix up by index; ``padding_idx`` marks a row that
# receives no gradient.
import torch
import torch.nn.functional as F

table = torch.arange(12.0).reshape(4, 3).requires_grad_()
ids = torch.tensor([[1, 3], [0, 1]])
looked_up = F.embedding(ids, table, padding_idx=0)
looked_up.sum().backward()
print(looked_up[0])
print("row gradient counts:", table.grad[:, 0].tolist())

# %%
# .. _api-f-dropout:
#
# torch.nn.functional.dropout
# ---------------------------
# Zeroes elements with probability ``p`` and scales the rest by ``1 / (1 - p)``;
# unlike ``nn.Dropout`` it does not follow ``model.eval()``, so pass
# ``training=self.training`` yourself.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
ones = torch.ones(8)
print("training=True: ", F.dropout(ones, p=0.5, training=True))
print("training=False:", F.dropout(ones, p=0.5, training=False))

# %%
# .. _api-f-layer-norm:
#
# torch.nn.functional.layer_norm
# ------------------------------
# Normalises over the trailing ``normalized_shape`` dimensions to zero mean
# and unit variance, then applies the optional ``weight`` and ``bias``.
import torch
import torch.nn.functional as F

acts = torch.tensor([[1.0, 2.0, 3.0, 6.0], [10.0, 10.0, 10.0, 14.0]])
normed = F.layer_norm(acts, normalized_shape=(4,))
print(normed)
print("means:", normed.mean(dim=1), "| std:", normed.std(dim=1, unbiased=False))
