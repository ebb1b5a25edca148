r"""
Normalization, dropout, embedding and distance layers reference
===============================================================

The ``torch.nn`` layers that normalise, drop, look up and compare activations,
each normalisation checked against its formula written out by hand.

Summary
-------

=====================================================  ==================================================
You want                                               Call
=====================================================  ==================================================
to normalise features with batch, then running, stats  :entry:`nn.BatchNorm1d <api-nn-batchnorm1d>`
to the same per channel of a volume                    :entry:`nn.BatchNorm3d <api-nn-batchnorm3d>`
to share batch statistics across processes             :entry:`nn.SyncBatchNorm <api-nn-syncbatchnorm>`
to normalise each sample and channel on its own        :entry:`nn.InstanceNorm1d <api-nn-instancenorm1d>`
to normalise the trailing feature dimensions           :entry:`nn.LayerNorm <api-nn-layernorm>`
to divide by the root mean square, no centring         :entry:`nn.RMSNorm <api-nn-rmsnorm>`
to normalise groups of channels per sample             :entry:`nn.GroupNorm <api-nn-groupnorm>`
to damp a channel by its neighbours' energy            :entry:`nn.LocalResponseNorm <api-nn-localresponsenorm>`
to zero elements at random while training              :entry:`nn.Dropout <api-nn-dropout>`
to zero whole channels of ``(N, C, L)``                :entry:`nn.Dropout1d <api-nn-dropout1d>`
to zero whole feature maps of ``(N, C, H, W)``         :entry:`nn.Dropout2d <api-nn-dropout2d>`
to zero whole channels of ``(N, C, D, H, W)``          :entry:`nn.Dropout3d <api-nn-dropout3d>`
to drop elements in a SELU network                     :entry:`nn.AlphaDropout <api-nn-alphadropout>`
to drop channels in a SELU network                     :entry:`nn.FeatureAlphaDropout <api-nn-featurealphadropout>`
to map integer ids to learned vectors                  :entry:`nn.Embedding <api-nn-embedding>`
to wrap existing vectors, frozen by default            :entry:`nn.Embedding.from_pretrained <api-nn-embedding-from-pretrained>`
to look up and reduce bags of ids                      :entry:`nn.EmbeddingBag <api-nn-embeddingbag>`
to wrap existing vectors as a bag lookup               :entry:`nn.EmbeddingBag.from_pretrained <api-nn-embeddingbag-from-pretrained>`
to cosine of the angle between vectors                 :entry:`nn.CosineSimilarity <api-nn-cosinesimilarity>`
to the same as a broadcasting function                 :entry:`F.cosine_similarity <api-f-cosine-similarity>`
to row-by-row ``p``-norm distance                      :entry:`nn.PairwiseDistance <api-nn-pairwisedistance>`
to the same as a function                              :entry:`F.pairwise_distance <api-f-pairwise-distance>`
to all-pairs distances between two sets                :entry:`torch.cdist <api-torch-cdist>`
=====================================================  ==================================================
"""

# %%
# .. _api-nn-batchnorm1d:
#
# torch.nn.BatchNorm1d
# --------------------
# In training mode normalises each feature with the statistics of the current
# batch and folds them into ``running_mean`` / ``running_var`` with weight
# ``momentum`` (0.1 by default); in eval mode it uses those running buffers
# instead. The batch variance is the biased one, the running variance the
# unbiased one.
import torch
from torch import nn

torch.manual_seed(0)
bn = nn.BatchNorm1d(3)  # input (N, C) or (N, C, L)
batch = torch.randn(8, 3) * 2 + 5
out = bn(batch)  # training mode: a fresh module starts in train()
mean = batch.mean(dim=0)
by_hand = (batch - mean) / torch.sqrt(batch.var(dim=0, unbiased=False) + bn.eps)
print("train output matches batch statistics:", torch.allclose(out, by_hand, atol=1e-5))
expected_running = 0.9 * torch.zeros(3) + 0.1 * mean  # running_mean starts at 0
print("running_mean updated with momentum=0.1:", torch.allclose(bn.running_mean, expected_running))
print(
    "running_var uses the unbiased variance:",
    torch.allclose(bn.running_var, 0.9 + 0.1 * batch.var(dim=0)),
)

bn.eval()
eval_by_hand = (batch - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
print("eval output uses running buffers:      ", torch.allclose(bn(batch), eval_by_hand, atol=1e-5))
print("num_batches_tracked:", bn.num_batches_tracked.item())

# %%
# .. _api-nn-batchnorm3d:
#
# torch.nn.BatchNorm3d
# --------------------
# The same layer for volumes ``(N, C, D, H, W)``: one mean and variance per
# channel, taken over the batch and all three spatial dimensions
# (``BatchNorm2d`` does the same for images).
import torch
from torch import nn

torch.manual_seed(0)
bn3 = nn.BatchNorm3d(2, affine=False)
vol = torch.randn(2, 2, 3, 4, 4)
mean = vol.mean(dim=(0, 2, 3, 4), keepdim=True)
var = vol.var(dim=(0, 2, 3, 4), keepdim=True, unbiased=False)
print(
    "matches per-channel formula:",
    torch.allclose(bn3(vol), (vol - mean) / torch.sqrt(var + bn3.eps), atol=1e-5),
)
print("running_mean shape:", tuple(bn3.running_mean.shape))

# %%
# .. _api-nn-syncbatchnorm:
#
# torch.nn.SyncBatchNorm
# ----------------------
# Batch norm whose statistics are reduced across all processes of a data
# parallel job; ``convert_sync_batchnorm`` swaps every ``BatchNorm*d`` in a
# model for it, keeping weights and buffers. Synchronising needs an
# initialised process group and GPU (or XPU) tensors; with no process group
# (2.14 and later, checked), training-mode forward silently falls back to
# ordinary local batch norm.
import torch
from torch import nn

model = nn.Sequential(nn.Conv2d(3, 4, kernel_size=3), nn.BatchNorm2d(4), nn.ReLU())
synced = nn.SyncBatchNorm.convert_sync_batchnorm(model)
print("layer 1 is now:", type(synced[1]).__name__)
print("process group initialised:", torch.distributed.is_initialized())
torch.manual_seed(0)
hidden = torch.randn(2, 4, 5, 5)
same = torch.allclose(synced[1](hidden), nn.BatchNorm2d(4)(hidden))
print("without a process group it equals plain BatchNorm2d:", same)

# %%
# .. _api-nn-instancenorm1d:
#
# torch.nn.InstanceNorm1d
# -----------------------
# Normalises each sample and channel separately over its length, so results do
# not depend on the rest of the batch; by default it has no affine parameters
# and keeps no running statistics (``affine=False``,
# ``track_running_stats=False``).
import torch
from torch import nn

torch.manual_seed(0)
inorm = nn.InstanceNorm1d(2)
seq = torch.randn(3, 2, 5)  # (N, C, L)
mean = seq.mean(dim=-1, keepdim=True)
var = seq.var(dim=-1, keepdim=True, unbiased=False)
print(
    "matches formula:",
    torch.allclose(inorm(seq), (seq - mean) / torch.sqrt(var + inorm.eps), atol=1e-5),
)
print("parameters:", list(inorm.parameters()))

# %%
# .. _api-nn-layernorm:
#
# torch.nn.LayerNorm
# ------------------
# Normalises over the trailing dimensions given in ``normalized_shape`` (the
# feature dimension of a transformer), then applies a learned per-element
# ``weight`` and ``bias`` unless ``elementwise_affine=False``.
import torch
from torch import nn

torch.manual_seed(0)
tokens = torch.randn(2, 3, 4)  # (batch, sequence, features)
ln = nn.LayerNorm(normalized_shape=4)
with torch.no_grad():
    ln.weight.fill_(2.0)
    ln.bias.fill_(0.5)
mean = tokens.mean(dim=-1, keepdim=True)
var = tokens.var(dim=-1, keepdim=True, unbiased=False)
by_hand = (tokens - mean) / torch.sqrt(var + ln.eps) * 2.0 + 0.5
print("matches formula:", torch.allclose(ln(tokens), by_hand, atol=1e-5))
print("learned:", [(n, tuple(p.shape)) for n, p in ln.named_parameters()])
plain = nn.LayerNorm([3, 4], elementwise_affine=False)  # normalise over the last two dims
print(
    "no affine, parameters:",
    len(list(plain.parameters())),
    "| output mean:",
    f"{plain(tokens)[0].mean():.4f}",
)

# %%
# .. _api-nn-rmsnorm:
#
# torch.nn.RMSNorm
# ----------------
# Divides by the root mean square of the trailing dimensions, with no mean
# subtraction and no bias, then multiplies by ``weight``. When ``eps`` is left
# as ``None`` it is the machine epsilon of the input's dtype.
import torch
from torch import nn

torch.manual_seed(0)
tokens = torch.randn(2, 3, 4)
rms = nn.RMSNorm(4)
by_hand = tokens / torch.sqrt(
    tokens.pow(2).mean(dim=-1, keepdim=True) + torch.finfo(tokens.dtype).eps
)
print("matches formula:", torch.allclose(rms(tokens), by_hand, atol=1e-6))
print(rms, "| parameters:", [n for n, _ in rms.named_parameters()])

# %%
# .. _api-nn-groupnorm:
#
# torch.nn.GroupNorm
# ------------------
# Splits the channels into ``num_groups`` groups (which must divide
# ``num_channels``) and normalises each sample's group over its channels and
# positions; one group is layer norm over ``(C, ...)``, one group per channel
# is instance norm.
import torch
from torch import nn

torch.manual_seed(0)
gn = nn.GroupNorm(num_groups=2, num_channels=6)
img = torch.randn(2, 6, 3, 3)
grouped = img.reshape(2, 2, -1)  # (N, groups, channels_per_group * H * W)
mean = grouped.mean(dim=-1, keepdim=True)
var = grouped.var(dim=-1, keepdim=True, unbiased=False)
by_hand = ((grouped - mean) / torch.sqrt(var + gn.eps)).reshape_as(img)
print("matches formula:", torch.allclose(gn(img), by_hand, atol=1e-5))
print("weight shape (per channel):", tuple(gn.weight.shape))

# %%
# .. _api-nn-localresponsenorm:
#
# torch.nn.LocalResponseNorm
# --------------------------
# Divides each channel by ``(k + alpha / size * s) ** beta``, where ``s`` sums
# the squares of the ``size`` neighbouring channels (zero-padded at the edges),
# the AlexNet-era lateral inhibition.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
lrn = nn.LocalResponseNorm(size=3, alpha=1e-2, beta=0.75, k=1.0)
act = torch.randn(1, 5, 2, 2)
squares = F.pad(act.pow(2), (0, 0, 0, 0, 1, 1))  # one zero channel on each side
window_sum = squares[:, :-2] + squares[:, 1:-1] + squares[:, 2:]
by_hand = act / (1.0 + 1e-2 / 3 * window_sum).pow(0.75)
print("matches formula:", torch.allclose(lrn(act), by_hand, atol=1e-6))

# %%
# .. _api-nn-dropout:
#
# torch.nn.Dropout
# ----------------
# In training mode zeroes each element with probability ``p`` and multiplies
# the survivors by ``1 / (1 - p)`` so the expected value is unchanged; in eval
# mode it returns the input untouched.
import torch
from torch import nn

torch.manual_seed(0)
drop = nn.Dropout(p=0.5)
ones = torch.ones(10)
print("train:", drop(ones))
drop.eval()
print("eval: ", drop(ones))

# %%
# .. _api-nn-dropout1d:
#
# torch.nn.Dropout1d
# ------------------
# Zeroes whole channels of ``(N, C, L)`` or ``(C, L)`` inputs, the variant for
# 1-D convolutions where neighbouring positions are strongly correlated.
import torch
from torch import nn

torch.manual_seed(0)
out = nn.Dropout1d(p=0.5)(torch.ones(1, 4, 5))
out[0]

# %%
# .. _api-nn-dropout2d:
#
# torch.nn.Dropout2d
# ------------------
# Zeroes entire feature maps of an ``(N, C, H, W)`` input, each with
# probability ``p``, and scales the kept ones by ``1 / (1 - p)``. Give it 4-D
# input: a 3-D input makes it warn that it is read as ``(N, C, L)`` and that
# this will change (use ``Dropout1d`` for that case).
import torch
from torch import nn

torch.manual_seed(0)
maps = nn.Dropout2d(p=0.5)(torch.ones(1, 4, 2, 3))
print("per-channel values present:", [maps[0, c].unique().tolist() for c in range(4)])

# %%
# .. _api-nn-dropout3d:
#
# torch.nn.Dropout3d
# ------------------
# The same for volumes ``(N, C, D, H, W)``: every channel is either all zeros
# or all scaled by ``1 / (1 - p)``.
import torch
from torch import nn

torch.manual_seed(0)
vols = nn.Dropout3d(p=0.5)(torch.ones(2, 3, 2, 2, 2))
vols.amax(dim=(2, 3, 4))  # one value per (sample, channel)

# %%
# .. _api-nn-alphadropout:
#
# torch.nn.AlphaDropout
# ---------------------
# Dropout for self-normalising networks (``SELU``): dropped elements are set
# to SELU's negative saturation value (about -1.758), not zero, then every
# element, dropped ones included, goes through an affine correction that keeps
# the mean and standard deviation of a standardised input close to 0 and 1. So
# the value the dropped elements end with, printed last, is the corrected one.
import torch
from torch import nn

torch.manual_seed(0)
signal = torch.randn(100_000)
dropped = nn.AlphaDropout(p=0.2)(signal)
print(f"before: mean {signal.mean():.3f}, std {signal.std():.3f}")
print(f"after:  mean {dropped.mean():.3f}, std {dropped.std():.3f}")
values, counts = dropped.unique(return_counts=True)
print(f"{counts.max() / signal.numel():.1%} of elements set to {values[counts.argmax()]:.4f}")

# %%
# .. _api-nn-featurealphadropout:
#
# torch.nn.FeatureAlphaDropout
# ----------------------------
# Alpha dropout applied to whole channels: every element of a dropped channel
# gets the same constant instead of zero, and the kept channels are rescaled
# and shifted to preserve mean and variance.
import torch
from torch import nn

torch.manual_seed(0)
feats = nn.FeatureAlphaDropout(p=0.5)(torch.randn(1, 4, 3))
feats[0].round(decimals=4)

# %%
# .. _api-nn-embedding:
#
# torch.nn.Embedding
# ------------------
# A learned table of ``num_embeddings`` rows of size ``embedding_dim``,
# indexed by integer ids. The row at ``padding_idx`` starts at zero and never
# receives a gradient; ``max_norm`` rescales, in place, every looked-up row
# whose norm exceeds it.
import torch
from torch import nn

torch.manual_seed(0)
emb = nn.Embedding(num_embeddings=5, embedding_dim=3, padding_idx=0)
ids = torch.tensor([[0, 2, 4], [3, 1, 0]])  # 0 is the padding id
emb(ids).sum().backward()
print("padding row:", emb.weight[0].tolist())
print("gradient (row 0 is padding):", emb.weight.grad, sep="\n")

capped = nn.Embedding(5, 3, max_norm=1.0)
print("norms before lookup:", capped.weight.detach().norm(dim=1).round(decimals=3))
capped(torch.tensor([1, 2]))
print("norms after lookup: ", capped.weight.detach().norm(dim=1).round(decimals=3))

# %%
# .. _api-nn-embedding-from-pretrained:
#
# torch.nn.Embedding.from_pretrained
# ----------------------------------
# Builds an embedding around an existing 2-D tensor; with ``freeze=True`` (the
# default) the weight does not require grad, so training leaves it alone.
import torch
from torch import nn

vectors = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
frozen = nn.Embedding.from_pretrained(vectors)
tunable = nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0)
print("frozen requires_grad:", frozen.weight.requires_grad)
print("tunable requires_grad:", tunable.weight.requires_grad)
frozen(torch.tensor([2, 1]))

# %%
# .. _api-nn-embeddingbag:
#
# torch.nn.EmbeddingBag
# ---------------------
# Looks up several ids per bag and reduces them with ``mode`` (``"mean"`` by
# default, ``"sum"`` or ``"max"``) without building the intermediate tensor. A
# flat 1-D input is cut into bags at the positions in ``offsets``; a 2-D input
# is one bag per row.
import torch
from torch import nn

table = torch.arange(12.0).reshape(6, 2)
bag = nn.EmbeddingBag(6, 2, mode="sum")
with torch.no_grad():
    bag.weight.copy_(table)
flat = torch.tensor([1, 2, 4, 5, 0])
offsets = torch.tensor([0, 3])  # bags: [1, 2, 4] and [5, 0]
weights = torch.tensor([1.0, 0.5, 0.0, 2.0, 1.0])  # per_sample_weights only with mode="sum"
with torch.no_grad():
    out = bag(flat, offsets)
    weighted = bag(flat, offsets, per_sample_weights=weights)
print(out)
print(
    "matches table sums:",
    torch.equal(out, torch.stack([table[[1, 2, 4]].sum(0), table[[5, 0]].sum(0)])),
)
print("weighted:", weighted)

# %%
# .. _api-nn-embeddingbag-from-pretrained:
#
# torch.nn.EmbeddingBag.from_pretrained
# -------------------------------------
# The same constructor as for ``Embedding``: wrap a tensor, choose the
# reduction with ``mode``, frozen unless ``freeze=False``.
import torch
from torch import nn

vectors = torch.tensor([[1.0, 0.0], [0.0, 4.0], [2.0, 2.0]])
pooled = nn.EmbeddingBag.from_pretrained(vectors, mode="max")
print("requires_grad:", pooled.weight.requires_grad)
pooled(torch.tensor([[0, 1], [0, 2]]))  # 2-D input: one bag per row

# %%
# .. _api-nn-cosinesimilarity:
#
# torch.nn.CosineSimilarity
# -------------------------
# Cosine of the angle between two tensors along ``dim`` (1 by default), in
# ``[-1, 1]``; each norm is clamped from below by ``eps`` to avoid dividing by
# zero.
import torch
from torch import nn

a = torch.tensor([[1.0, 0.0], [1.0, 1.0], [2.0, 3.0]])
b = torch.tensor([[0.0, 1.0], [-1.0, -1.0], [4.0, 6.0]])
cos = nn.CosineSimilarity(dim=1)
by_hand = (a * b).sum(dim=1) / (a.norm(dim=1) * b.norm(dim=1))
print("matches formula:", torch.allclose(cos(a, b), by_hand))
cos(a, b)

# %%
# .. _api-f-cosine-similarity:
#
# torch.nn.functional.cosine_similarity
# -------------------------------------
# The function behind the module; inputs broadcast, so one query can be
# compared with a whole matrix of keys in one call.
import torch
import torch.nn.functional as F

query = torch.tensor([1.0, 1.0])
keys = torch.tensor([[1.0, 1.0], [1.0, 0.0], [-3.0, -3.0]])
F.cosine_similarity(query.unsqueeze(0), keys, dim=-1).round(decimals=4)

# %%
# .. _api-nn-pairwisedistance:
#
# torch.nn.PairwiseDistance
# -------------------------
# The ``p``-norm of the row-by-row difference of two batches of vectors. Note
# that ``eps`` (``1e-6``) is added to the difference itself, so identical rows
# give a tiny positive distance, not zero.
import torch
from torch import nn

x = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[3.0, 4.0], [1.0, 1.0]])
dist = nn.PairwiseDistance(p=2.0)
print("matches formula:", torch.allclose(dist(x, y), (x - y + 1e-6).norm(dim=-1)))
dist(x, y)

# %%
# .. _api-f-pairwise-distance:
#
# torch.nn.functional.pairwise_distance
# -------------------------------------
# Functional form, with ``p``, ``eps`` and ``keepdim``; ``p=1`` gives the
# Manhattan distance.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.0, 0.0], [1.0, 2.0]])
y = torch.tensor([[3.0, 4.0], [1.0, 1.0]])
F.pairwise_distance(x, y, p=1.0, eps=0.0, keepdim=True)

# %%
# .. _api-torch-cdist:
#
# torch.cdist
# -----------
# Distances between every row of one set and every row of another:
# ``(B, P, M)`` and ``(B, R, M)`` give ``(B, P, R)``; ``p`` picks the norm.
import torch

points = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
centres = torch.tensor([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
euclid = torch.cdist(points, centres)
by_hand = (points[:, None, :] - centres[None, :, :]).norm(dim=-1)
print("matches broadcasting formula:", torch.allclose(euclid, by_hand))
print(euclid)
print(torch.cdist(points, centres, p=1.0))
