r"""
Loss functions reference
========================

Every loss in ``torch.nn``, each rebuilt by hand from its formula and checked
with ``torch.allclose``; the six everyday ones are introduced on
:ref:`sphx_glr_gallery_basics_nn_building_blocks.py`.

Summary
-------

==============================================  ==================================================
You want                                        Call
==============================================  ==================================================
squared error, ``((a - b) ** 2).mean()``        :entry:`nn.MSELoss <api-nn-mseloss>`
absolute error, ``(a - b).abs().mean()``        :entry:`nn.L1Loss <api-nn-l1loss>`
logits vs indices or probabilities, smoothing   :entry:`nn.CrossEntropyLoss <api-nn-crossentropyloss>`
log-probabilities vs class indices              :entry:`nn.NLLLoss <api-nn-nllloss>`
probabilities vs 0/1 targets                    :entry:`nn.BCELoss <api-nn-bceloss>`
logits vs 0/1 targets                           :entry:`nn.BCEWithLogitsLoss <api-nn-bcewithlogitsloss>`
L2 near zero, L1 beyond ``beta``                :entry:`nn.SmoothL1Loss <api-nn-smoothl1loss>`
L2 near zero, slope ``delta`` beyond            :entry:`nn.HuberLoss <api-nn-huberloss>`
KL divergence; log-prob input, ``"batchmean"``  :entry:`nn.KLDivLoss <api-nn-kldivloss>`
count targets, predicted (log) rate             :entry:`nn.PoissonNLLLoss <api-nn-poissonnllloss>`
regression with a predicted variance            :entry:`nn.GaussianNLLLoss <api-nn-gaussiannllloss>`
unaligned sequence labels (speech, OCR)         :entry:`nn.CTCLoss <api-nn-ctcloss>`
which of two scores should be higher            :entry:`nn.MarginRankingLoss <api-nn-marginrankingloss>`
a distance with similar/dissimilar labels       :entry:`nn.HingeEmbeddingLoss <api-nn-hingeembeddingloss>`
logistic loss with -1/1 labels                  :entry:`nn.SoftMarginLoss <api-nn-softmarginloss>`
multi-label hinge with index targets            :entry:`nn.MultiLabelMarginLoss <api-nn-multilabelmarginloss>`
multi-label logistic loss with 0/1 targets      :entry:`nn.MultiLabelSoftMarginLoss <api-nn-multilabelsoftmarginloss>`
multi-class hinge (SVM style)                   :entry:`nn.MultiMarginLoss <api-nn-multimarginloss>`
pairs of vectors, similar or not, by cosine     :entry:`nn.CosineEmbeddingLoss <api-nn-cosineembeddingloss>`
anchor/positive/negative, p-norm distance       :entry:`nn.TripletMarginLoss <api-nn-tripletmarginloss>`
triplets with your own distance                 :entry:`nn.TripletMarginWithDistanceLoss <api-nn-tripletmarginwithdistanceloss>`
the function form of a loss module              :entry:`F.mse_loss <api-f-mse-loss>`
per-sample losses, a sum or a mean              :entry:`reduction="none" <api-nn-loss-reduction>`, ``"sum"``, ``"mean"``
==============================================  ==================================================
"""

# %%
# .. _api-nn-mseloss:
#
# torch.nn.MSELoss
# ----------------
# Squared error averaged over every element.
import torch
from torch import nn

torch.manual_seed(0)
pred, target = torch.randn(4, 3), torch.randn(4, 3)
print(
    "matches ((pred - target) ** 2).mean():",
    torch.allclose(nn.MSELoss()(pred, target), ((pred - target) ** 2).mean()),
)

# %%
# .. _api-nn-l1loss:
#
# torch.nn.L1Loss
# ---------------
# Absolute error averaged over every element.
import torch
from torch import nn

torch.manual_seed(0)
pred, target = torch.randn(4, 3), torch.randn(4, 3)
print(
    "matches (pred - target).abs().mean():",
    torch.allclose(nn.L1Loss()(pred, target), (pred - target).abs().mean()),
)

# %%
# .. _api-nn-crossentropyloss:
#
# torch.nn.CrossEntropyLoss
# -------------------------
# Takes raw logits ``(N, C)`` and either class indices ``(N,)`` or, since
# PyTorch 1.10, a float tensor of class probabilities ``(N, C)``;
# ``label_smoothing=eps`` mixes the target with the uniform distribution,
# putting ``1 - eps + eps / C`` on the true class and ``eps / C`` elsewhere.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)
labels = torch.tensor([0, 2, 1, 2])
log_p = logits.log_softmax(dim=1)

plain = nn.CrossEntropyLoss()(logits, labels)
print("indices:         ", torch.allclose(plain, -log_p[torch.arange(4), labels].mean()))

eps, classes = 0.1, logits.shape[1]
smooth_target = F.one_hot(labels, classes) * (1 - eps) + eps / classes
smoothed = nn.CrossEntropyLoss(label_smoothing=eps)(logits, labels)
print("label_smoothing: ", torch.allclose(smoothed, -(smooth_target * log_p).sum(dim=1).mean()))

soft = torch.softmax(torch.randn(4, 3), dim=1)  # each row sums to 1
from_probs = nn.CrossEntropyLoss()(logits, soft)
print("probability rows:", torch.allclose(from_probs, -(soft * log_p).sum(dim=1).mean()))
print(
    "one-hot rows give the index loss:",
    torch.allclose(nn.CrossEntropyLoss()(logits, F.one_hot(labels, 3).float()), plain),
)

# %%
# .. _api-nn-nllloss:
#
# torch.nn.NLLLoss
# ----------------
# Picks minus the log-probability of the target class and averages it; feed it
# ``log_softmax`` outputs.
import torch
from torch import nn

torch.manual_seed(0)
log_p, labels = torch.randn(4, 3).log_softmax(dim=1), torch.tensor([0, 2, 1, 2])
print(
    "matches -log_p[rows, labels].mean():",
    torch.allclose(nn.NLLLoss()(log_p, labels), -log_p[torch.arange(4), labels].mean()),
)

# %%
# .. _api-nn-bceloss:
#
# torch.nn.BCELoss
# ----------------
# Binary cross-entropy on probabilities in ``[0, 1]``.
import torch
from torch import nn

torch.manual_seed(0)
p, y = torch.rand(6), torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
print(
    "matches -(y*log p + (1-y)*log(1-p)).mean():",
    torch.allclose(nn.BCELoss()(p, y), -(y * p.log() + (1 - y) * (1 - p).log()).mean()),
)

# %%
# .. _api-nn-bcewithlogitsloss:
#
# torch.nn.BCEWithLogitsLoss
# --------------------------
# The same loss on raw scores, with the sigmoid folded in for numerical safety.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
z, y = torch.randn(6), torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
print(
    "matches -(y*logsigmoid(z) + (1-y)*logsigmoid(-z)).mean():",
    torch.allclose(
        nn.BCEWithLogitsLoss()(z, y), -(y * F.logsigmoid(z) + (1 - y) * F.logsigmoid(-z)).mean()
    ),
)

# %%
# .. _api-nn-smoothl1loss:
#
# torch.nn.SmoothL1Loss
# ---------------------
# Quadratic ``0.5 * d**2 / beta`` for errors smaller than ``beta`` and linear
# ``|d| - 0.5 * beta`` beyond, so outliers pull with a bounded gradient
# (``beta=1.0`` by default; ``beta=0`` turns it into ``L1Loss``).
import torch
from torch import nn

pred = torch.tensor([0.0, 0.2, 1.0, 3.0])
target = torch.zeros(4)
beta = 0.5
d = (pred - target).abs()
by_hand = torch.where(d < beta, 0.5 * d**2 / beta, d - 0.5 * beta)
print("per element:", nn.SmoothL1Loss(reduction="none", beta=beta)(pred, target))
print("matches formula:", torch.allclose(nn.SmoothL1Loss(beta=beta)(pred, target), by_hand.mean()))

# %%
# .. _api-nn-huberloss:
#
# torch.nn.HuberLoss
# ------------------
# Quadratic ``0.5 * d**2`` up to ``delta``, then ``delta * (|d| - 0.5 * delta)``:
# the slope of the linear part is ``delta`` rather than 1, so ``HuberLoss`` is
# ``SmoothL1Loss`` with ``beta=delta`` multiplied by ``delta``.
import torch
from torch import nn

pred = torch.tensor([0.0, 0.2, 1.0, 3.0])
target = torch.zeros(4)
delta = 0.5
d = (pred - target).abs()
by_hand = torch.where(d <= delta, 0.5 * d**2, delta * (d - 0.5 * delta))
huber = nn.HuberLoss(delta=delta)(pred, target)
print("per element:", nn.HuberLoss(reduction="none", delta=delta)(pred, target))
print("matches formula:", torch.allclose(huber, by_hand.mean()))
print(
    "equals delta * SmoothL1:",
    torch.allclose(huber, delta * nn.SmoothL1Loss(beta=delta)(pred, target)),
)

# %%
# .. _api-nn-kldivloss:
#
# torch.nn.KLDivLoss
# ------------------
# Computes KL(target || model) where the *input* must already be
# log-probabilities and the target is probabilities, or log-probabilities with
# ``log_target=True``. Use ``reduction="batchmean"`` for the true KL per sample:
# the default ``"mean"`` also divides by the number of classes, and it warns
# (caught below).
import warnings

import torch
from torch import nn

torch.manual_seed(0)
log_q = torch.randn(2, 5).log_softmax(dim=1)  # model, as log-probabilities
p = torch.randn(2, 5).softmax(dim=1)  # target distribution
kl_by_hand = (p * (p.log() - log_q)).sum() / 2  # summed over classes, averaged over the batch

batchmean = nn.KLDivLoss(reduction="batchmean")(log_q, p)
print("batchmean == KL per sample:", torch.allclose(batchmean, kl_by_hand))
log_target = nn.KLDivLoss(reduction="batchmean", log_target=True)(log_q, p.log())
print("log_target=True, same value:", torch.allclose(log_target, batchmean))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    default_mean = nn.KLDivLoss()(log_q, p)
print("default 'mean' == KL / num_classes:", torch.allclose(default_mean, kl_by_hand / 5))
print(f"{caught[0].category.__name__}: {caught[0].message}")

# %%
# .. _api-nn-poissonnllloss:
#
# torch.nn.PoissonNLLLoss
# -----------------------
# Negative log-likelihood of counts under a Poisson with rate ``lambda``. By
# default (``log_input=True``) the input is ``log(lambda)`` and the loss is
# ``exp(x) - y * x``; the ``log(y!)`` constant is left out unless ``full=True``
# (which adds Stirling's approximation of it).
import torch
from torch import nn

torch.manual_seed(0)
log_rate = torch.randn(5)
counts = torch.tensor([0.0, 1.0, 3.0, 2.0, 0.0])
loss = nn.PoissonNLLLoss()(log_rate, counts)
print("log_input=True: ", torch.allclose(loss, (log_rate.exp() - counts * log_rate).mean()))

rate = log_rate.exp()  # with log_input=False the input is the rate itself
loss_rate = nn.PoissonNLLLoss(log_input=False)(rate, counts)
print(
    "log_input=False:", torch.allclose(loss_rate, (rate - counts * torch.log(rate + 1e-8)).mean())
)

# %%
# .. _api-nn-gaussiannllloss:
#
# torch.nn.GaussianNLLLoss
# ------------------------
# Negative log-likelihood of the target under a Gaussian whose mean and
# variance the model predicts: ``0.5 * (log(var) + (y - mu)**2 / var)``, with
# ``var`` clamped to at least ``eps`` and the ``log(2*pi)`` constant added only
# when ``full=True``. Call it as ``loss(mean, target, var)``; ``var`` may have
# one column for a variance shared across features.
import math

import torch
from torch import nn

torch.manual_seed(0)
mu, y = torch.randn(4, 2), torch.randn(4, 2)
var = torch.rand(4, 1) + 0.1  # one variance per sample, broadcast over the 2 features
loss = nn.GaussianNLLLoss()(mu, y, var)
by_hand = 0.5 * (var.log() + (y - mu) ** 2 / var)
print("matches formula:", torch.allclose(loss, by_hand.mean()))
full = nn.GaussianNLLLoss(full=True)(mu, y, var)
print("full=True adds 0.5*log(2*pi):", torch.allclose(full, loss + 0.5 * math.log(2 * math.pi)))

# %%
# .. _api-nn-ctcloss:
#
# torch.nn.CTCLoss
# ----------------
# Connectionist temporal classification: the minus log of the total probability
# of every frame-level path that collapses (merge repeats, then drop the
# ``blank=0`` symbol) to the target. It takes ``log_probs`` of shape
# ``(T, N, C)``, padded ``targets``, and the true ``input_lengths`` and
# ``target_lengths``; ``"mean"`` divides each loss by its target length before
# averaging. With T=6 and C=4 there are only 4**6 paths, so the check below
# simply sums them all.
import itertools

import torch
from torch import nn

torch.manual_seed(0)
T, N, C = 6, 2, 4
log_probs = torch.randn(T, N, C).log_softmax(dim=2)
targets = torch.tensor([[1, 2, 2], [3, 1, 0]])  # second row padded: only 2 labels
input_lengths = torch.tensor([6, 6])
target_lengths = torch.tensor([3, 2])

per_sample = nn.CTCLoss(blank=0, reduction="none")(
    log_probs, targets, input_lengths, target_lengths
)
print("per sample:", per_sample.round(decimals=4))


def collapse(path):
    merged = [s for i, s in enumerate(path) if i == 0 or s != path[i - 1]]
    return [s for s in merged if s != 0]


for n in range(N):
    wanted = targets[n, : target_lengths[n]].tolist()
    paths = [p for p in itertools.product(range(C), repeat=T) if collapse(p) == wanted]
    total = torch.logsumexp(torch.stack([log_probs[range(T), n, p].sum() for p in paths]), 0)
    same = torch.allclose(-total, per_sample[n])
    print(f"sample {n}: {len(paths)} paths, brute force matches: {same}")

mean = nn.CTCLoss()(log_probs, targets, input_lengths, target_lengths)
print(
    "'mean' == (loss / target_lengths).mean():",
    torch.allclose(mean, (per_sample / target_lengths).mean()),
)

# %%
# .. _api-nn-marginrankingloss:
#
# torch.nn.MarginRankingLoss
# --------------------------
# For pairs of scores and a label ``y`` of 1 (first should rank higher) or -1
# (second should), charges ``max(0, -y * (x1 - x2) + margin)``.
import torch
from torch import nn

x1 = torch.tensor([2.0, 0.5, 1.0])
x2 = torch.tensor([1.0, 1.0, 0.8])
y = torch.tensor([1.0, 1.0, -1.0])
loss = nn.MarginRankingLoss(margin=0.5)(x1, x2, y)
print("per pair:", nn.MarginRankingLoss(margin=0.5, reduction="none")(x1, x2, y))
print("matches formula:", torch.allclose(loss, (-y * (x1 - x2) + 0.5).clamp(min=0).mean()))

# %%
# .. _api-nn-hingeembeddingloss:
#
# torch.nn.HingeEmbeddingLoss
# ---------------------------
# For a distance ``x`` and a label of 1 (similar) or -1 (dissimilar): similar
# pairs pay ``x`` itself, dissimilar ones pay ``max(0, margin - x)``
# (``margin=1.0`` by default).
import torch
from torch import nn

dist = torch.tensor([0.3, 2.0, 0.4, 1.5])
y = torch.tensor([1.0, 1.0, -1.0, -1.0])
loss = nn.HingeEmbeddingLoss()(dist, y)
by_hand = torch.where(y == 1, dist, (1.0 - dist).clamp(min=0))
print("per pair:", by_hand)
print("matches formula:", torch.allclose(loss, by_hand.mean()))

# %%
# .. _api-nn-softmarginloss:
#
# torch.nn.SoftMarginLoss
# -----------------------
# Logistic loss ``log(1 + exp(-y * x))`` for labels in {-1, 1}: the same value as
# ``BCEWithLogitsLoss`` with the labels mapped to {0, 1}.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(6)
y = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0, 1.0])
loss = nn.SoftMarginLoss()(x, y)
print(
    "matches log1p(exp(-y*x)).mean():", torch.allclose(loss, torch.log1p(torch.exp(-y * x)).mean())
)
print(
    "equals BCEWithLogits on (y+1)/2:", torch.allclose(loss, nn.BCEWithLogitsLoss()(x, (y + 1) / 2))
)

# %%
# .. _api-nn-multilabelmarginloss:
#
# torch.nn.MultiLabelMarginLoss
# -----------------------------
# A multi-label hinge: every true class should score at least 1 above every
# other class. The target has the same shape as the input but holds class
# *indices*, read up to the first ``-1``; the sum of hinges is divided by the
# number of classes.
import torch
from torch import nn

scores = torch.tensor([[0.1, 0.9, 0.4, 0.2]])
target = torch.tensor([[1, 2, -1, 0]])  # classes 1 and 2; the 0 after -1 is ignored
loss = nn.MultiLabelMarginLoss()(scores, target)

pos, neg = [1, 2], [0, 3]
hinges = [max(0.0, 1 - (scores[0, j] - scores[0, i]).item()) for j in pos for i in neg]
print("hinges:", [round(h, 4) for h in hinges])
print("matches sum / num_classes:", torch.allclose(loss, torch.tensor(sum(hinges) / 4)))

# %%
# .. _api-nn-multilabelsoftmarginloss:
#
# torch.nn.MultiLabelSoftMarginLoss
# ---------------------------------
# Multi-label logistic loss with a 0/1 target per class, averaged over classes
# then samples: numerically the same as ``BCEWithLogitsLoss``, and it accepts a
# per-class ``weight``.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
logits = torch.randn(3, 4)
y = torch.tensor([[1.0, 0, 0, 1], [0, 1, 0, 0], [1, 1, 1, 0]])
loss = nn.MultiLabelSoftMarginLoss()(logits, y)
by_hand = -(y * F.logsigmoid(logits) + (1 - y) * F.logsigmoid(-logits)).mean(dim=1).mean()
print("matches formula:", torch.allclose(loss, by_hand))
print("equals BCEWithLogitsLoss:", torch.allclose(loss, nn.BCEWithLogitsLoss()(logits, y)))

# %%
# .. _api-nn-multimarginloss:
#
# torch.nn.MultiMarginLoss
# ------------------------
# The multi-class hinge (as in a multi-class SVM): for each wrong class,
# ``max(0, margin - x[y] + x[i]) ** p``, summed and divided by the number of
# classes. ``p`` is 1 or 2.
import torch
from torch import nn

scores = torch.tensor([[0.1, 0.2, 0.4, 0.8], [1.5, 0.2, 0.3, 0.1]])
labels = torch.tensor([3, 0])
loss = nn.MultiMarginLoss()(scores, labels)

correct = scores.gather(1, labels[:, None])
hinge = (1.0 - correct + scores).clamp(min=0)
hinge.scatter_(1, labels[:, None], 0.0)  # the true class does not count
print("per sample:", nn.MultiMarginLoss(reduction="none")(scores, labels))
print("matches formula:", torch.allclose(loss, (hinge.sum(dim=1) / 4).mean()))
squared = nn.MultiMarginLoss(p=2)(scores, labels)
print("p=2 squares each hinge:", torch.allclose(squared, (hinge.pow(2).sum(dim=1) / 4).mean()))

# %%
# .. _api-nn-cosineembeddingloss:
#
# torch.nn.CosineEmbeddingLoss
# ----------------------------
# For two batches of vectors and labels of 1 or -1: similar pairs pay
# ``1 - cos``, dissimilar pairs pay ``max(0, cos - margin)`` (``margin=0``).
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
a, b = torch.randn(4, 8), torch.randn(4, 8)
y = torch.tensor([1.0, -1.0, 1.0, -1.0])
loss = nn.CosineEmbeddingLoss(margin=0.1)(a, b, y)
cos = F.cosine_similarity(a, b, dim=1)
by_hand = torch.where(y == 1, 1 - cos, (cos - 0.1).clamp(min=0))
print("matches formula:", torch.allclose(loss, by_hand.mean()))

# %%
# .. _api-nn-tripletmarginloss:
#
# torch.nn.TripletMarginLoss
# --------------------------
# Metric learning on (anchor, positive, negative) triplets:
# ``max(0, d(a, p) - d(a, n) + margin)`` with the p-norm distance of
# ``pairwise_distance``, which adds ``eps=1e-6`` to the difference.
# ``swap=True`` uses the smaller of ``d(a, n)`` and ``d(p, n)``.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
anchor, positive, negative = torch.randn(3, 5, 4).unbind(0)
loss = nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative)

d_ap = torch.linalg.vector_norm(anchor - positive + 1e-6, dim=1)
d_an = torch.linalg.vector_norm(anchor - negative + 1e-6, dim=1)
print("matches formula:", torch.allclose(loss, (d_ap - d_an + 1.0).clamp(min=0).mean()))
d_pn = F.pairwise_distance(positive, negative)
swapped = nn.TripletMarginLoss(swap=True)(anchor, positive, negative)
print(
    "swap=True:      ",
    torch.allclose(swapped, (d_ap - torch.minimum(d_an, d_pn) + 1.0).clamp(min=0).mean()),
)

# %%
# .. _api-nn-tripletmarginwithdistanceloss:
#
# torch.nn.TripletMarginWithDistanceLoss
# --------------------------------------
# The same triplet hinge with any ``distance_function(x, y)`` that returns one
# non-negative value per row; here cosine distance, ``1 - cosine_similarity``.
import torch
import torch.nn.functional as F
from torch import nn


def cosine_distance(x, y):
    return 1.0 - F.cosine_similarity(x, y, dim=1)


torch.manual_seed(0)
anchor, positive, negative = torch.randn(3, 5, 4).unbind(0)
criterion = nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.5)
loss = criterion(anchor, positive, negative)
by_hand = (cosine_distance(anchor, positive) - cosine_distance(anchor, negative) + 0.5).clamp(min=0)
print(f"loss {loss:.4f}, matches formula: {torch.allclose(loss, by_hand.mean())}")

# %%
# .. _api-f-mse-loss:
#
# torch.nn.functional.mse_loss
# ----------------------------
# Every loss module has a function twin in ``torch.nn.functional`` taking the
# same options as keywords. Shapes that differ but broadcast are computed
# anyway with a ``UserWarning``, the classic ``(N, 1)`` against ``(N,)`` bug
# caught below.
import warnings

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
pred, target = torch.randn(4), torch.randn(4)
print("same as nn.MSELoss:", torch.allclose(F.mse_loss(pred, target), nn.MSELoss()(pred, target)))
print("reduction='sum':   ", F.mse_loss(pred, target, reduction="sum").round(decimals=4))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    wrong = F.mse_loss(pred[:, None], target)  # (4, 1) vs (4,) broadcasts to (4, 4)
print(f"{caught[0].category.__name__}: {caught[0].message}")
print("broadcast result differs:", not torch.allclose(wrong, F.mse_loss(pred, target)))

# %%
# .. _api-nn-loss-reduction:
#
# The reduction argument
# ----------------------
# Every loss takes ``reduction=``: ``"none"`` returns the per-element (or
# per-sample) losses, ``"sum"`` adds them, ``"mean"`` (the default) averages
# them. With a class ``weight``, ``CrossEntropyLoss``'s ``"mean"`` divides by
# the sum of the weights of the targets, not by the batch size.
import torch
from torch import nn

torch.manual_seed(0)
logits, labels = torch.randn(4, 3), torch.tensor([0, 2, 1, 2])
each = nn.CrossEntropyLoss(reduction="none")(logits, labels)
print("none:", each.round(decimals=4))
print(
    "sum  == none.sum(): ",
    torch.allclose(nn.CrossEntropyLoss(reduction="sum")(logits, labels), each.sum()),
)
print("mean == none.mean():", torch.allclose(nn.CrossEntropyLoss()(logits, labels), each.mean()))

w = torch.tensor([1.0, 2.0, 5.0])
weighted = nn.CrossEntropyLoss(weight=w)(logits, labels)
print(
    "weighted mean == (w[y] * loss).sum() / w[y].sum():",
    torch.allclose(weighted, (w[labels] * each).sum() / w[labels].sum()),
)
