r"""
Pointwise math and reductions
=============================

Functions applied to every element, then reductions that collapse one or all dimensions.

Summary
-------

=====================================  =====================================================================================
You want                               Call
=====================================  =====================================================================================
absolute value, magnitude of complex   :entry:`torch.abs(t) <api-torch-abs>`
values limited to a range              :entry:`torch.clamp(t, min, max) <api-torch-clamp>`, alias ``clip``
``e ** x``                             :entry:`torch.exp(t) <api-torch-exp>`, ``expm1`` for tiny ``x``
the natural logarithm                  :entry:`torch.log(t) <api-torch-log>`, ``log2``, ``log10``, ``log1p``
the square root                        :entry:`torch.sqrt(t) <api-torch-sqrt>`, ``rsqrt`` for ``1 / sqrt``
the logistic function                  :entry:`torch.sigmoid(t) <api-torch-sigmoid>`
a step function                        :entry:`torch.heaviside(t, values) <api-torch-heaviside>`
linear interpolation                   :entry:`torch.lerp(a, b, w) <api-torch-lerp>`
a sum, all or along ``dim``            :entry:`torch.sum(t, dim) <api-torch-sum>`, ``keepdim=True``
the average                            :entry:`torch.mean(t, dim) <api-torch-mean>`, ``nanmean`` skips ``nan``
the standard deviation                 :entry:`torch.std(t, correction=1) <api-torch-std>`
the variance                           :entry:`torch.var(t, correction=1) <api-torch-var>`, ``var_mean`` for both
the product                            :entry:`torch.prod(t, dim) <api-torch-prod>`
a running sum                          :entry:`torch.cumsum(t, dim) <api-torch-cumsum>`, ``cumprod``, ``cummax``, ``cummin``
``log(sum(exp(t)))`` without overflow  :entry:`torch.logsumexp(t, dim) <api-torch-logsumexp>`
the largest values and their indices   :entry:`torch.max(t, dim) <api-torch-max>`, ``amax`` for values only
the index of the largest               :entry:`torch.argmax(t, dim) <api-torch-argmax>`, first on ties
the p-norm of a difference             :entry:`torch.dist(a, b, p) <api-torch-dist>`
a norm                                 :entry:`torch.norm(t) <api-torch-norm>`, deprecated: ``torch.linalg`` norms
``nan`` and ``inf`` made numbers       :entry:`torch.nan_to_num(t, nan=0.0) <api-torch-nan-to-num>`
how many elements are not zero         :entry:`torch.count_nonzero(t, dim) <api-torch-count-nonzero>`, ``(t > 0).sum()``
=====================================  =====================================================================================
"""

# %%
# .. _api-torch-abs:
#
# torch.abs
# ---------
# Absolute value; on complex tensors it returns the magnitude as a real tensor.
import torch

print(torch.abs(torch.tensor([-2, 0, 3])))
torch.abs(torch.tensor([3 + 4j]))

# %%
# .. _api-torch-clamp:
#
# torch.clamp
# -----------
# Limits values to ``[min, max]``; either bound may be omitted or be a tensor
# (alias ``torch.clip``).
import torch

print(torch.clamp(torch.tensor([-3.0, 0.5, 8.0]), min=0.0, max=1.0))
torch.clamp(torch.tensor([-3.0, 0.5, 8.0]), min=torch.tensor([-1.0, 1.0, 0.0]))

# %%
# .. _api-torch-exp:
#
# torch.exp
# ---------
# ``e ** x`` elementwise; ``torch.expm1`` is accurate for tiny ``x``.
import torch

print(torch.exp(torch.tensor([0.0, 1.0, -1.0])))
torch.expm1(torch.tensor([1e-10], dtype=torch.float64))

# %%
# .. _api-torch-log:
#
# torch.log
# ---------
# Natural logarithm: ``-inf`` at zero and ``nan`` for negative inputs;
# ``log2``, ``log10`` and ``log1p`` are the variants.
import torch

torch.log(torch.tensor([1.0, torch.e, 0.0, -1.0]))

# %%
# .. _api-torch-sqrt:
#
# torch.sqrt
# ----------
# Square root (``nan`` for negative real inputs); ``torch.rsqrt`` gives
# ``1 / sqrt(x)``.
import torch

print(torch.sqrt(torch.tensor([4.0, 2.0, -1.0])))
torch.rsqrt(torch.tensor([4.0]))

# %%
# .. _api-torch-sigmoid:
#
# torch.sigmoid
# -------------
# The logistic function ``1 / (1 + exp(-x))``, saturating to 0 and 1 without
# overflow.
import torch

torch.sigmoid(torch.tensor([-100.0, 0.0, 2.0]))

# %%
# .. _api-torch-heaviside:
#
# torch.heaviside
# ---------------
# Step function: 0 for negative inputs, 1 for positive ones, and ``values`` (a
# tensor, broadcast) where the input is exactly zero.
import torch

steps = torch.tensor([-0.5, 0.0, 0.0, 4.0])
print(torch.heaviside(steps, torch.tensor([0.5])))
torch.heaviside(steps, torch.tensor([9.0, 1.0, -1.0, 9.0]))

# %%
# .. _api-torch-lerp:
#
# torch.lerp
# ----------
# Linear interpolation ``start + weight * (end - start)``, as in an exponential
# moving average.
import torch

avg = torch.tensor([0.0, 10.0])
torch.lerp(avg, torch.tensor([1.0, 20.0]), weight=0.1)

# %%
# .. _api-torch-sum:
#
# torch.sum
# ---------
# Sums everything, or along ``dim`` (one or several), optionally keeping the
# reduced dimension with size 1 for broadcasting.
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.sum(m), torch.sum(m, dim=0), torch.sum(m, dim=1, keepdim=True).shape)

# %%
# .. _api-torch-mean:
#
# torch.mean
# ----------
# The average, which needs a floating or complex dtype (pass ``dtype=`` for
# integer input); ``torch.nanmean`` skips ``nan``.
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.mean(m, dim=1), torch.mean(torch.arange(4), dtype=torch.float32))
torch.nanmean(torch.tensor([1.0, float("nan"), 3.0]))

# %%
# .. _api-torch-std:
#
# torch.std
# ---------
# Standard deviation, where ``correction=1`` (Bessel, the default) divides by
# ``n - 1`` and ``correction=0`` by ``n`` (prefer it to the older, still
# accepted ``unbiased=True/False``).
import torch

samples = torch.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
print(torch.std(samples), torch.std(samples, correction=0))

# %%
# .. _api-torch-var:
#
# torch.var
# ---------
# Variance, with the same ``correction`` rule; ``torch.var_mean`` returns both in
# one pass.
import torch

samples = torch.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
print(torch.var(samples, correction=0))
torch.var_mean(samples, correction=0)

# %%
# .. _api-torch-prod:
#
# torch.prod
# ----------
# Product of all elements or along one ``dim``.
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.prod(m), torch.prod(m, dim=1))

# %%
# .. _api-torch-cumsum:
#
# torch.cumsum
# ------------
# Running sum along ``dim`` (``cumprod``, ``cummax`` and ``cummin`` are its
# siblings).
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.cumsum(torch.tensor([1, 2, 3, 4]), dim=0))
torch.cumsum(m, dim=1)

# %%
# .. _api-torch-logsumexp:
#
# torch.logsumexp
# ---------------
# ``log(sum(exp(x)))`` computed without overflow, the normaliser of a
# log-softmax.
import torch

big = torch.tensor([1000.0, 1000.0])
print(torch.log(torch.sum(torch.exp(big))), torch.logsumexp(big, dim=0))

# %%
# .. _api-torch-max:
#
# torch.max
# ---------
# Without ``dim``, the largest value; with ``dim``, a named tuple of values and
# their indices (``amax`` returns only the values, ``argmax`` only the indices).
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.max(m))
torch.max(m, dim=1)

# %%
# .. _api-torch-argmax:
#
# torch.argmax
# ------------
# The index of the largest value, of the flattened tensor or along ``dim``;
# the first one wins on ties.
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.argmax(m), torch.argmax(m, dim=0), torch.argmax(torch.tensor([3, 7, 7])))

# %%
# .. _api-torch-dist:
#
# torch.dist
# ----------
# The p-norm of ``a - b`` (Euclidean by default) as a 0-D tensor.
import torch

p1 = torch.tensor([0.0, 0.0])
p2 = torch.tensor([3.0, 4.0])
print(torch.dist(p1, p2), torch.dist(p1, p2, p=1), torch.dist(p1, p2, p=float("inf")))

# %%
# .. _api-torch-norm:
#
# torch.norm
# ----------
# Still works, but its documentation marks it deprecated: use
# ``torch.linalg.vector_norm`` or ``torch.linalg.matrix_norm``, which give the
# same numbers with unambiguous arguments.
import torch

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(torch.norm(m), torch.linalg.vector_norm(m))
print(torch.norm(m, p="fro"), torch.linalg.matrix_norm(m, ord="fro"))

# %%
# .. _api-torch-nan-to-num:
#
# torch.nan_to_num
# ----------------
# Replaces ``nan`` with ``nan=`` (0 by default) and the infinities with ``posinf=`` and
# ``neginf=`` (by default the dtype's largest and smallest finite values). To replace
# only ``nan``, ``torch.where(t.isnan(), 0.0, t)`` leaves the infinities alone.
import torch

t = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")])
print(torch.nan_to_num(t))
print(torch.nan_to_num(t, nan=0.0, posinf=1.0, neginf=-1.0))
print(torch.where(t.isnan(), 0.0, t))

# %%
# .. _api-torch-count-nonzero:
#
# torch.count_nonzero
# -------------------
# Counts the elements that are not zero, in all of the tensor or along ``dim``; for a
# condition, count its ``True`` values with ``sum()`` (``(t > 0).sum()``).
import torch

t = torch.tensor([[0, 1, 2], [0, 0, 3]])
print(torch.count_nonzero(t), torch.count_nonzero(t, dim=0), torch.count_nonzero(t, dim=1))
print("above 1:", (t > 1).sum())
