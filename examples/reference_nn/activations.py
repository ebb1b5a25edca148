r"""
Activation functions reference
==============================

Every nonlinearity in ``torch.nn``, each fed the same seven points
``torch.linspace(-3, 3, 7)`` so the outputs line up from entry to entry.

Summary
-------

=====================================================  ==================================================
You want                                               Call
=====================================================  ==================================================
zero for negatives, identity for positives             :entry:`nn.ReLU <api-nn-relu>`
a ReLU capped at 6                                     :entry:`nn.ReLU6 <api-nn-relu6>`
a fixed small slope for negatives                      :entry:`nn.LeakyReLU <api-nn-leakyrelu>`
a learned slope for negatives                          :entry:`nn.PReLU <api-nn-prelu>`
a random slope in training, its mean in eval           :entry:`nn.RReLU <api-nn-rrelu>`
a smooth negative branch that saturates at ``-alpha``  :entry:`nn.ELU <api-nn-elu>`
ELU with slope 1 at zero for every ``alpha``           :entry:`nn.CELU <api-nn-celu>`
self-normalising ELU with fixed constants              :entry:`nn.SELU <api-nn-selu>`
the transformer gate, exact or ``"tanh"``              :entry:`nn.GELU <api-nn-gelu>`
``x * sigmoid(x)`` (Swish)                             :entry:`nn.SiLU <api-nn-silu>`
``x * tanh(softplus(x))``                              :entry:`nn.Mish <api-nn-mish>`
a clamp to ``[min_val, max_val]``                      :entry:`nn.Hardtanh <api-nn-hardtanh>`
small magnitudes set to zero                           :entry:`nn.Hardshrink <api-nn-hardshrink>`
soft thresholding towards zero                         :entry:`nn.Softshrink <api-nn-softshrink>`
``x - tanh(x)``                                        :entry:`nn.Tanhshrink <api-nn-tanhshrink>`
a piecewise-linear sigmoid                             :entry:`nn.Hardsigmoid <api-nn-hardsigmoid>`
a piecewise SiLU for mobile models                     :entry:`nn.Hardswish <api-nn-hardswish>`
values at or below a threshold replaced                :entry:`nn.Threshold <api-nn-threshold>`
a probability in ``(0, 1)``                            :entry:`nn.Sigmoid <api-nn-sigmoid>`
a squash to ``(-1, 1)``                                :entry:`nn.Tanh <api-nn-tanh>`
a stable ``log(sigmoid(x))``                           :entry:`nn.LogSigmoid <api-nn-logsigmoid>`
a smooth, positive ReLU                                :entry:`nn.Softplus <api-nn-softplus>`
``x / (1 + abs(x))``                                   :entry:`nn.Softsign <api-nn-softsign>`
probabilities along ``dim``                            :entry:`nn.Softmax <api-nn-softmax>`
log-probabilities along ``dim`` (for ``NLLLoss``)      :entry:`nn.LogSoftmax <api-nn-logsoftmax>`
most weight on the smallest value                      :entry:`nn.Softmin <api-nn-softmin>`
per-pixel softmax over channels                        :entry:`nn.Softmax2d <api-nn-softmax2d>`
one half of the input gating the other                 :entry:`nn.GLU <api-nn-glu>`
the common curves on one plot                          :entry:`plt.plot(grid, act(grid)) <api-nn-activation-curves>`
softmax as a function (``torch.nn.functional``)        :entry:`F.softmax <api-f-softmax>`
stable log-probabilities as a function                 :entry:`F.log_softmax <api-f-log-softmax>`
=====================================================  ==================================================
"""

# %%
# .. _api-nn-relu:
#
# torch.nn.ReLU
# -------------
# Keeps positive values and replaces negative ones with zero; ``inplace=True``
# overwrites the input to save memory when nothing else needs it.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.ReLU()(x)

# %%
# .. _api-nn-relu6:
#
# torch.nn.ReLU6
# --------------
# A ReLU that also saturates at 6, i.e. ``min(max(0, x), 6)``, common in
# mobile networks because the bounded range quantises well.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7) * 3  # stretch to [-9, 9] so the cap at 6 shows
nn.ReLU6()(x)

# %%
# .. _api-nn-leakyrelu:
#
# torch.nn.LeakyReLU
# ------------------
# Lets a small fixed fraction ``negative_slope`` (default ``0.01``) of negative
# inputs through, so units never receive an all-zero gradient.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.LeakyReLU(negative_slope=0.1)(x)

# %%
# .. _api-nn-prelu:
#
# torch.nn.PReLU
# --------------
# A leaky ReLU whose negative slope is a learned parameter named ``weight``,
# initialised to ``init=0.25``; ``num_parameters=C`` learns one slope per channel
# (dimension 1 of the input).
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
prelu = nn.PReLU()
out = prelu(x)
out.sum().backward()
print("weight:", prelu.weight.data, "| grad:", prelu.weight.grad)
print("output:", out.detach())
print("per-channel weight shape:", tuple(nn.PReLU(num_parameters=3).weight.shape))

# %%
# .. _api-nn-rrelu:
#
# torch.nn.RReLU
# --------------
# In training mode each negative element gets its own slope drawn uniformly from
# ``[lower, upper]`` (default ``[1/8, 1/3]``); in eval mode the slope is fixed at
# their mean, ``(lower + upper) / 2``.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.linspace(-3, 3, 7)
rrelu = nn.RReLU()
print("train:", rrelu(x))
rrelu.eval()
print("eval: ", rrelu(x))
print(f"eval slope: {(rrelu.lower + rrelu.upper) / 2:.4f}")

# %%
# .. _api-nn-elu:
#
# torch.nn.ELU
# ------------
# Identity for positive inputs and ``alpha * (exp(x) - 1)`` for negative ones, a
# smooth curve that levels off at ``-alpha``.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.ELU(alpha=1.0)(x)

# %%
# .. _api-nn-celu:
#
# torch.nn.CELU
# -------------
# Like ELU but the negative branch is ``alpha * (exp(x / alpha) - 1)``, so the
# derivative stays 1 at zero for any ``alpha``; with ``alpha=1`` the two agree.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
print("CELU(2):", nn.CELU(alpha=2.0)(x))
print("ELU(2): ", nn.ELU(alpha=2.0)(x))

# %%
# .. _api-nn-selu:
#
# torch.nn.SELU
# -------------
# ELU with fixed constants, ``scale * ELU(x, alpha)`` with ``alpha`` about 1.6733
# and ``scale`` about 1.0507, chosen so activations drift towards zero mean and
# unit variance in deep plain stacks (pair it with ``AlphaDropout``).
import torch
import torch.nn.functional as F
from torch import nn

x = torch.linspace(-3, 3, 7)
selu = nn.SELU()(x)
by_hand = 1.0507009873554805 * F.elu(x, alpha=1.6732632423543772)
print(selu)
print("matches scale * ELU(alpha):", torch.allclose(selu, by_hand))

# %%
# .. _api-nn-gelu:
#
# torch.nn.GELU
# -------------
# Multiplies ``x`` by the standard normal CDF at ``x``, the transformer default;
# ``approximate="tanh"`` swaps the exact erf form for a cheaper tanh formula
# that differs by well under 0.001 on this range.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
exact = nn.GELU()(x)
approx = nn.GELU(approximate="tanh")(x)
print("exact: ", exact)
print("tanh:  ", approx)
print(f"largest gap: {(exact - approx).abs().max():.6f}")

# %%
# .. _api-nn-silu:
#
# torch.nn.SiLU
# -------------
# Computes ``x * sigmoid(x)`` (also called Swish): smooth, slightly negative
# just below zero, and close to ReLU for large inputs.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.SiLU()(x)

# %%
# .. _api-nn-mish:
#
# torch.nn.Mish
# -------------
# Computes ``x * tanh(softplus(x))``, a self-gated curve close to SiLU with a
# slightly deeper dip below zero.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Mish()(x)

# %%
# .. _api-nn-hardtanh:
#
# torch.nn.Hardtanh
# -----------------
# Clamps the input to ``[min_val, max_val]`` (default ``[-1, 1]``), a
# piecewise-linear stand-in for tanh.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
print(nn.Hardtanh()(x))
print(nn.Hardtanh(min_val=-2.0, max_val=2.0)(x))

# %%
# .. _api-nn-hardshrink:
#
# torch.nn.Hardshrink
# -------------------
# Sets every value with magnitude at most ``lambd`` (default ``0.5``) to zero and
# leaves the others untouched.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Hardshrink(lambd=1.0)(x)

# %%
# .. _api-nn-softshrink:
#
# torch.nn.Softshrink
# -------------------
# Soft thresholding: zeroes values within ``lambd`` of zero and moves every other
# value ``lambd`` closer to zero, the proximal step of an L1 penalty.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Softshrink(lambd=1.0)(x)

# %%
# .. _api-nn-tanhshrink:
#
# torch.nn.Tanhshrink
# -------------------
# Returns ``x - tanh(x)``: near zero for small inputs and roughly ``x - 1`` once
# tanh has saturated.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Tanhshrink()(x)

# %%
# .. _api-nn-hardsigmoid:
#
# torch.nn.Hardsigmoid
# --------------------
# A piecewise-linear sigmoid, ``relu6(x + 3) / 6``: exactly 0 up to -3, exactly 1
# from 3 on, and a straight line in between.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Hardsigmoid()(x)

# %%
# .. _api-nn-hardswish:
#
# torch.nn.Hardswish
# ------------------
# ``x * hardsigmoid(x)``, the cheap SiLU substitute from MobileNetV3; note the
# ``-0.0000`` at -3, where a negative input meets a zero gate.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Hardswish()(x)

# %%
# .. _api-nn-threshold:
#
# torch.nn.Threshold
# ------------------
# Keeps each element strictly greater than ``threshold`` and replaces the rest
# with ``value``; ``Threshold(0, 0)`` is ReLU.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Threshold(threshold=0.5, value=-1.0)(x)

# %%
# .. _api-nn-sigmoid:
#
# torch.nn.Sigmoid
# ----------------
# Squashes any real number into ``(0, 1)`` with ``1 / (1 + exp(-x))``, the usual
# output for a probability or a gate.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Sigmoid()(x)

# %%
# .. _api-nn-tanh:
#
# torch.nn.Tanh
# -------------
# The hyperbolic tangent, an odd function with range ``(-1, 1)`` and slope 1 at
# the origin.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Tanh()(x)

# %%
# .. _api-nn-logsigmoid:
#
# torch.nn.LogSigmoid
# -------------------
# Computes ``log(sigmoid(x))`` without forming the sigmoid first, so very negative
# inputs give a finite answer instead of ``-inf``.
import torch
from torch import nn

x = torch.tensor([-200.0, -1.0, 0.0, 1.0])
print("LogSigmoid:    ", nn.LogSigmoid()(x).round(decimals=4))
print("log of sigmoid:", torch.log(torch.sigmoid(x)).round(decimals=4))

# %%
# .. _api-nn-softplus:
#
# torch.nn.Softplus
# -----------------
# A smooth ReLU, ``log(1 + exp(beta * x)) / beta``, that is always positive;
# once ``beta * x`` exceeds ``threshold`` (default 20) it returns ``x`` as is to
# avoid overflow. A larger ``beta`` hugs ReLU more closely.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
print("beta=1:", nn.Softplus()(x).round(decimals=3))
print("beta=4:", nn.Softplus(beta=4.0)(x).round(decimals=3))

# %%
# .. _api-nn-softsign:
#
# torch.nn.Softsign
# -----------------
# Computes ``x / (1 + |x|)``: tanh-shaped with range ``(-1, 1)`` but approaching
# its limits polynomially rather than exponentially.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Softsign()(x)

# %%
# .. _api-nn-softmax:
#
# torch.nn.Softmax
# ----------------
# Exponentiates and normalises along ``dim`` so each slice is positive and sums
# to 1. Always pass ``dim``: leaving it out still works but emits the
# deprecation ``UserWarning`` caught below.
import warnings

import torch
from torch import nn

logits = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
probs = nn.Softmax(dim=1)(logits)
print(probs.round(decimals=4))
print("row sums:", probs.sum(dim=1))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.Softmax()(logits)
print(f"no dim -> {caught[0].category.__name__}: {caught[0].message}")

# %%
# .. _api-nn-logsoftmax:
#
# torch.nn.LogSoftmax
# -------------------
# The logarithm of softmax along ``dim`` computed in one step, which is what
# ``nn.NLLLoss`` expects as its input.
import torch
from torch import nn

logits = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
log_probs = nn.LogSoftmax(dim=1)(logits)
print(log_probs.round(decimals=4))
print("exp sums to 1:", log_probs.exp().sum(dim=1))

# %%
# .. _api-nn-softmin:
#
# torch.nn.Softmin
# ----------------
# Softmax of the negated input: the smallest value gets the largest weight.
import torch
from torch import nn

x = torch.linspace(-3, 3, 7)
nn.Softmin(dim=0)(x).round(decimals=4)

# %%
# .. _api-nn-softmax2d:
#
# torch.nn.Softmax2d
# ------------------
# Softmax over the channel dimension at every spatial position of a
# ``(N, C, H, W)`` or ``(C, H, W)`` input, as in per-pixel classification.
import torch
from torch import nn

torch.manual_seed(0)
scores = torch.randn(1, 3, 2, 2)  # 3 classes on a 2x2 image
probs = nn.Softmax2d()(scores)
print("shape:", tuple(probs.shape))
print("sum over channels:")
print(probs.sum(dim=1))

# %%
# .. _api-nn-glu:
#
# torch.nn.GLU
# ------------
# Gated linear unit: splits the input in two halves along ``dim`` (default -1,
# size must be even) and returns ``first * sigmoid(second)``, halving that size.
import torch
from torch import nn

pairs = torch.tensor([[1.0, 2.0, 0.0, 10.0], [1.0, 2.0, -10.0, 0.0]])
print(nn.GLU(dim=-1)(pairs).round(decimals=4))

# %%
# .. _api-nn-activation-curves:
#
# Eight curves side by side
# -------------------------
# The most common activations on one axes, evaluated on ``[-4, 4]``.
import matplotlib.pyplot as plt
import torch
from torch import nn

grid = torch.linspace(-4, 4, 201)
curves = {
    "ReLU": nn.ReLU(),
    "LeakyReLU(0.1)": nn.LeakyReLU(0.1),
    "ELU": nn.ELU(),
    "GELU": nn.GELU(),
    "SiLU": nn.SiLU(),
    "Softplus": nn.Softplus(),
    "Tanh": nn.Tanh(),
    "Sigmoid": nn.Sigmoid(),
}
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
for name, fn in curves.items():
    ax.plot(grid, fn(grid), label=name, linewidth=1.5)
ax.axhline(0, color="grey", linewidth=0.5)
ax.axvline(0, color="grey", linewidth=0.5)
ax.set(xlabel="x", ylabel="f(x)", ylim=(-1.5, 4), title="torch.nn activations")
ax.legend(ncols=2, fontsize="small")
plt.show()
