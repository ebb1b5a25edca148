r"""
Neural-network building blocks
==============================

Models are ``nn.Module`` objects that own their parameters; the everyday
layers and losses, run on inputs small enough to check by hand.

Summary
-------

=============================  ==================================================
You want                       Call
=============================  ==================================================
a model                        :entry:`class Net(nn.Module) <basics-nn-module>`: layers in ``__init__``, ``forward``
a simple chain of layers       :entry:`nn.Sequential(...) <basics-sequential>`
its parameters                 :entry:`model.named_parameters() <basics-nn-module>`, ``model.parameters()``
a summary of its layers        :entry:`print(model) <basics-model-summary>`, output shapes from forward hooks
dense layers                   :entry:`nn.Linear(4, 8) <basics-dense-layers>`, ``nn.Embedding``, ``nn.LazyLinear``
the input size inferred        :entry:`nn.LazyLinear(8) <basics-lazy-linear>`
activations                    :entry:`nn.ReLU() <basics-dense-layers>`, ``GELU``, ``Sigmoid``, ``Softmax(dim)``
regularisation, normalisation  :entry:`nn.Dropout(p) <basics-dense-layers>`, ``LayerNorm``, ``BatchNorm2d``, ``GroupNorm``
BatchNorm or LayerNorm         :entry:`nn.BatchNorm1d(n) <basics-norm-layers>` over the batch, ``nn.LayerNorm(n)`` over features
image layers                   :entry:`nn.Conv2d(3, 8, 3) <basics-conv-layers>`, ``MaxPool2d``, ``AdaptiveAvgPool2d``, ``Flatten``
sequence layers                :entry:`nn.LSTM(..., batch_first=True) <basics-recurrent-layers>`, ``nn.RNN``, ``nn.GRU``
a Transformer's two masks      :entry:`src_mask (seq, seq), src_key_padding_mask (batch, seq) <basics-transformer-masks>`
regression losses              :entry:`nn.MSELoss() <basics-regression-losses>`, ``nn.L1Loss``
classification losses          :entry:`nn.CrossEntropyLoss() <basics-classification-losses>` (logits), ``nn.NLLLoss`` (log-probs)
binary losses                  :entry:`nn.BCEWithLogitsLoss() <basics-classification-losses>` (logits), ``nn.BCELoss`` (probabilities)
a custom loss                  :entry:`def my_loss(logits, target): <basics-custom-loss>` of tensor operations, then ``.mean()``
=============================  ==================================================
"""

# %%
# .. _basics-nn-module:
#
# Define a model: subclass nn.Module
# ----------------------------------
# Layers assigned as attributes in ``__init__`` are registered, so their
# parameters show up in ``parameters()``, move with ``.to(device)`` and are saved
# in the ``state_dict``; ``forward`` says how an input flows through them.
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, n_in: int, n_hidden: int, n_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


model = MLP(784, 128, 10)
print(model)
for name, p in model.named_parameters():
    print(f"{name:<11} {tuple(p.shape)}")
print("parameters:", sum(p.numel() for p in model.parameters()))
print("output:", model(torch.zeros(32, 784)).shape)

# %%
# .. _basics-sequential:
#
# Stack layers without a class: nn.Sequential
# -------------------------------------------
# ``nn.Sequential`` calls its layers in order, which is all many models need;
# ``.to(device)`` moves every parameter at once.
import torch
from torch import nn

from cheatsheet import pick_device

device = pick_device()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
print(model)
print("first layer:", model[0], "| parameters on:", next(model.parameters()).device)
print(model(torch.randn(5, 4, device=device)).shape)

# %%
# .. _basics-dense-layers:
#
# Linear, activations, Dropout, LayerNorm, Embedding
# --------------------------------------------------
# ``nn.Linear`` acts on the last dimension, so any leading batch dimensions pass
# through; ``nn.Embedding`` maps integer ids to learned vectors.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(2, 5, 16)  # (batch, sequence, features)
ids = torch.tensor([[1, 4, 4, 9]])  # (batch, sequence) of token ids
layers = {
    "nn.Linear(16, 8)": (nn.Linear(16, 8), x),
    "nn.ReLU()": (nn.ReLU(), x),
    "nn.GELU()": (nn.GELU(), x),
    "nn.Sigmoid()": (nn.Sigmoid(), x),
    "nn.Softmax(dim=-1)": (nn.Softmax(dim=-1), x),
    "nn.Dropout(p=0.5)": (nn.Dropout(p=0.5), x),
    "nn.LayerNorm(16)": (nn.LayerNorm(16), x),
    "nn.Embedding(1000, 32)": (nn.Embedding(1000, 32), ids),
}
for name, (layer, inp) in layers.items():
    print(f"{name:<24} {tuple(inp.shape)!s:<12} -> {tuple(layer(inp).shape)}")

# %%
# .. _basics-conv-layers:
#
# Images: Conv2d, MaxPool2d, BatchNorm2d, GroupNorm
# -------------------------------------------------
# Image layers take ``(batch, channels, height, width)``; with ``kernel_size=3``
# and ``padding=1`` a convolution keeps height and width, and a 2x2 pool halves them.
import torch
from torch import nn

x = torch.randn(8, 3, 32, 32)
for name, layer in {
    "nn.Conv2d(3, 64, 3, padding=1)": nn.Conv2d(3, 64, kernel_size=3, padding=1),
    "nn.Conv2d(3, 64, 3, stride=2)": nn.Conv2d(3, 64, kernel_size=3, stride=2),
    "nn.MaxPool2d(2)": nn.MaxPool2d(kernel_size=2),
    "nn.BatchNorm2d(3)": nn.BatchNorm2d(3),
    "nn.GroupNorm(1, 3)": nn.GroupNorm(num_groups=1, num_channels=3),
    "nn.AdaptiveAvgPool2d(1)": nn.AdaptiveAvgPool2d(1),
    "nn.Flatten()": nn.Flatten(),
}.items():
    print(f"{name:<32} {tuple(x.shape)} -> {tuple(layer(x).shape)}")

# %%
# .. _basics-recurrent-layers:
#
# Sequences: nn.RNN, nn.LSTM, nn.GRU
# ----------------------------------
# Recurrent layers return the output at every step plus the final hidden state (an
# LSTM also returns its cell state); ``batch_first=True`` puts the batch first in
# the input and output, but never in the hidden state.
import torch
from torch import nn

x = torch.randn(4, 7, 10)  # (batch, steps, features)
for cls in (nn.RNN, nn.LSTM, nn.GRU):
    layer = cls(input_size=10, hidden_size=20, num_layers=2, batch_first=True)
    output, hidden = layer(x)
    if cls is nn.LSTM:
        h, c = hidden
        state = f"h {tuple(h.shape)}, c {tuple(c.shape)}"
    else:
        state = f"h {tuple(hidden.shape)}"
    print(f"nn.{cls.__name__:<5} output {tuple(output.shape)}, {state}")

# %%
# .. _basics-lazy-linear:
#
# Infer the input size: nn.LazyLinear
# -----------------------------------
# A lazy layer creates its weight at the first call, from the shape it sees, so
# you only give the output size, and it then turns into a plain ``nn.Linear``; run one
# batch through before building the optimizer.
import torch
from torch import nn

layer = nn.LazyLinear(out_features=4)
print("before:", layer.weight.__class__.__name__)
layer(torch.randn(2, 13))
print("after: ", layer, tuple(layer.weight.shape))

# %%
# .. _basics-regression-losses:
#
# Regression losses: nn.MSELoss, nn.L1Loss
# ----------------------------------------
# Both compare predictions with targets of the same shape and average over all
# elements: the mean squared error and the mean absolute error.
import torch
from torch import nn

pred = torch.tensor([2.5, 0.0, 2.0])
target = torch.tensor([3.0, -0.5, 2.0])
print(
    f"nn.MSELoss(): {nn.MSELoss()(pred, target).item():.4f} = mean of",
    ((pred - target) ** 2).tolist(),
)
print(
    f"nn.L1Loss():  {nn.L1Loss()(pred, target).item():.4f} = mean of",
    (pred - target).abs().tolist(),
)

# %%
# .. _basics-classification-losses:
#
# Classification losses
# ---------------------
# ``CrossEntropyLoss`` takes raw logits and class indices (it is ``NLLLoss`` after
# ``log_softmax``), and ``BCEWithLogitsLoss`` takes logits for binary targets (it is
# ``BCELoss`` after ``sigmoid``, but numerically safer), as the matching pairs show.
import torch
from torch import nn

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])  # 2 samples, 3 classes
classes = torch.tensor([0, 2])
ce = nn.CrossEntropyLoss()(logits, classes)
nll = nn.NLLLoss()(torch.log_softmax(logits, dim=1), classes)
print(f"nn.CrossEntropyLoss: {ce.item():.4f}   nn.NLLLoss(log_softmax): {nll.item():.4f}")

scores = torch.tensor([1.5, -0.3, 0.8])  # one logit per sample
labels = torch.tensor([1.0, 0.0, 0.0])  # float targets in [0, 1]
bce_logits = nn.BCEWithLogitsLoss()(scores, labels)
bce = nn.BCELoss()(torch.sigmoid(scores), labels)
print(f"nn.BCEWithLogitsLoss: {bce_logits.item():.4f}  nn.BCELoss(sigmoid): {bce.item():.4f}")

# %%
# .. _basics-model-summary:
#
# Print a model: its layers, output shapes and parameter counts
# -------------------------------------------------------------
# ``print(model)`` shows the architecture: the layers as a tree, with each layer's
# arguments. PyTorch has no built-in table like Keras's ``model.summary()``, since a
# layer's output shape is known only once an input passes through; a forward hook on
# each leaf layer records it during one call. (The ``torchinfo`` package prints such a
# table too.)
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(8 * 16 * 16, 10),
)
print(model)

rows = []


def record(module, args, output, name):
    params = sum(p.numel() for p in module.parameters())
    rows.append((name, type(module).__name__, tuple(output.shape), params))


hooks = [
    module.register_forward_hook(lambda m, a, out, name=name: record(m, a, out, name))
    for name, module in model.named_modules()
    if not list(module.children())  # leaf layers only
]
with torch.no_grad():
    model(torch.randn(1, 3, 32, 32))
for hook in hooks:
    hook.remove()

print(f"\n{'layer':6}{'type':10}{'output shape':>20}{'parameters':>12}")
for name, kind, shape, params in rows:
    print(f"{name:6}{kind:10}{shape!s:>20}{params:>12,}")
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"total {total:,} parameters, {trainable:,} trainable")

# %%
# .. _basics-norm-layers:
#
# BatchNorm or LayerNorm: what each normalises over
# -------------------------------------------------
# Both scale values to mean 0 and standard deviation 1, then apply a learned scale and
# shift; they differ in what they average over. ``BatchNorm`` takes each feature (or
# channel) over the batch, so a sample's output depends on the other samples in its
# batch, it keeps running statistics that ``eval()`` uses instead, and it refuses a
# training batch of one (:ref:`errors-batchnorm-one-value`). ``LayerNorm`` takes each
# sample over its own features, and so works alike in training and evaluation and for
# any batch size. Convolutional networks mostly use ``BatchNorm2d`` (``GroupNorm`` when
# batches are small); transformers use ``LayerNorm`` or ``RMSNorm``.
import torch
from torch import nn

torch.manual_seed(0)
# 8 samples of 3 features on very different scales
x = torch.randn(8, 3) * torch.tensor([1.0, 10.0, 100.0]) + 5.0
batch_norm, layer_norm = nn.BatchNorm1d(3), nn.LayerNorm(3)
b, l = batch_norm(x), layer_norm(x)


def standardised(t, dim):
    mean, std = t.mean(dim=dim), t.std(dim=dim, correction=0)
    return bool(torch.allclose(mean, torch.zeros_like(mean), atol=1e-5)) and bool(
        torch.allclose(std, torch.ones_like(std), atol=1e-3)
    )


print("BatchNorm: each feature standardised over the batch: ", standardised(b, dim=0))
print("LayerNorm: each sample standardised over its features:", standardised(l, dim=1))
print("sample 0 with a different batch beside it:")
print("  BatchNorm output changes:", not torch.allclose(batch_norm(x[:4])[0], b[0]))
print("  LayerNorm output changes:", not torch.allclose(layer_norm(x[:4])[0], l[0]))

# %%
# .. _basics-custom-loss:
#
# A custom loss: your own function of tensor operations
# -----------------------------------------------------
# A loss is any function that turns the model's output and the target into one number
# through tensor operations: autograd differentiates it like the model, so no backward
# needs writing. End with a reduction (``mean``, ``sum``) so that ``backward()`` gets a
# scalar, and stay with torch operations all the way: ``.item()``, ``.numpy()`` or
# ``torch.tensor(...)`` on the way cut the graph (:ref:`errors-no-grad-fn`). Check it
# against a built-in loss where the two should agree; wrap it in an ``nn.Module`` when it
# holds settings or weights of its own. Here a focal loss, which weighs down the samples
# the model already gets right, and with ``gamma=0`` is plain cross-entropy.
import torch
import torch.nn.functional as F
from torch import nn


def focal_loss(logits: torch.Tensor, target: torch.Tensor, gamma: float = 2.0) -> torch.Tensor:
    log_p = F.log_softmax(logits, dim=1).gather(1, target[:, None]).squeeze(1)
    return (-((1 - log_p.exp()) ** gamma) * log_p).mean()


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0) -> None:
        super().__init__()
        self.gamma = gamma

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return focal_loss(logits, target, self.gamma)


torch.manual_seed(0)
logits = torch.randn(4, 3, requires_grad=True)
target = torch.tensor([0, 2, 1, 0])
loss = FocalLoss(gamma=2.0)(logits, target)
loss.backward()
print("focal loss:", round(loss.item(), 4), "| gradient of the logits:", tuple(logits.grad.shape))
same = torch.allclose(focal_loss(logits, target, gamma=0.0), F.cross_entropy(logits, target))
print("gamma=0 equals F.cross_entropy:", same)

# %%
# .. _basics-transformer-masks:
#
# src_mask or src_key_padding_mask: which mask a Transformer layer takes
# ----------------------------------------------------------------------
# The encoder layers take two masks, and they answer different questions:
#
# - ``src_mask`` (``mask`` on ``nn.TransformerEncoder``), shape ``(seq, seq)``: which
#   positions each position may look at, the same for every sequence of the batch. The
#   usual one is causal, from ``nn.Transformer.generate_square_subsequent_mask``.
# - ``src_key_padding_mask``, shape ``(batch, seq)``: which positions of *each*
#   sequence are padding, to be ignored as keys.
#
# In both, ``True`` (or ``-inf``) means *may not attend*. That is the opposite of
# ``F.scaled_dot_product_attention``, whose boolean ``attn_mask`` marks with ``True``
# what *may* attend. The checks below change what a mask hides and see that nothing
# it protects moves.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0,
                                   batch_first=True).eval()  # fmt: skip
x = torch.randn(2, 5, 8)  # batch 2, sequence 5

causal = nn.Transformer.generate_square_subsequent_mask(5)  # (5, 5): -inf above the diagonal
changed = x.clone()
changed[:, 3:] = torch.randn(2, 2, 8)  # change only the last two tokens
same_prefix = torch.allclose(layer(x, src_mask=causal, is_causal=True)[:, :3],
                             layer(changed, src_mask=causal, is_causal=True)[:, :3], atol=1e-6)  # fmt: skip
print("src_mask", tuple(causal.shape), "- the first 3 outputs ignore later tokens:", same_prefix)

padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])  # (2, 5): 2nd has length 3
other_pad = x.clone()
other_pad[1, 3:] = 100.0  # whatever the padding holds
real = torch.allclose(layer(x, src_key_padding_mask=padding)[1, :3],
                      layer(other_pad, src_key_padding_mask=padding)[1, :3], atol=1e-5)  # fmt: skip
print("src_key_padding_mask", tuple(padding.shape), "- real tokens ignore the padding:", real)

# The same padding for SDPA: True marks what may be attended, so the mask is inverted.
q = k = v = torch.randn(2, 1, 5, 4)
allowed = ~padding[:, None, None, :]  # (batch, 1, 1, seq), broadcast over heads and queries
hidden = torch.where(padding[:, None, None, :], float("-inf"), 0.0)
print("SDPA with ~padding equals the additive -inf mask:",
      torch.allclose(nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed),
                     nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=hidden)))  # fmt: skip
