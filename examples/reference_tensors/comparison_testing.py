r"""
Comparison, sorting and testing
===============================

Elementwise comparisons, whole-tensor equality with or without tolerance, checks for
``nan`` and ``inf``, sorting and top-k, and the two ``torch.testing`` helpers for unit
tests.

Summary
-------

===================================  ================================================================================================
You want                             Call
===================================  ================================================================================================
``a == b`` per element, as ``bool``  :entry:`torch.eq(a, b) <api-torch-eq>`
``a != b`` per element               :entry:`torch.ne(a, b) <api-torch-ne>`, alias ``not_equal``
``a > b`` per element                :entry:`torch.gt(a, b) <api-torch-gt>`, alias ``greater``; ``b`` may be a scalar
``a >= b`` per element               :entry:`torch.ge(a, b) <api-torch-ge>`, alias ``greater_equal``
``a < b`` per element                :entry:`torch.lt(a, b) <api-torch-lt>`, alias ``less``
``a <= b`` per element               :entry:`torch.le(a, b) <api-torch-le>`, alias ``less_equal``
one bool: same shape, same values    :entry:`torch.equal(a, b) <api-torch-equal>`
one bool: equal within tolerance     :entry:`torch.allclose(a, b) <api-torch-allclose>`, ``rtol``, ``atol``, ``equal_nan``
closeness per element                :entry:`torch.isclose(a, b) <api-torch-isclose>`
elementwise larger                   :entry:`torch.maximum(a, b) <api-torch-maximum>`, ``fmax`` ignores ``nan``
elementwise smaller                  :entry:`torch.minimum(a, b) <api-torch-minimum>`, ``fmin`` ignores ``nan``
where the ``nan`` are                :entry:`torch.isnan(t) <api-torch-isnan>`, ``==`` cannot find them
where the infinities are             :entry:`torch.isinf(t) <api-torch-isinf>`, ``isposinf``, ``isneginf``
neither ``nan`` nor infinite         :entry:`torch.isfinite(t) <api-torch-isfinite>`
sorted values and their indices      :entry:`torch.sort(t) <api-torch-sort>`, ``stable=True``, ``descending=True``
only the indices that sort           :entry:`torch.argsort(t) <api-torch-argsort>`
the ``k`` largest and their indices  :entry:`torch.topk(t, k) <api-torch-topk>`
the ``k``-th smallest and its index  :entry:`torch.kthvalue(t, k) <api-torch-kthvalue>`
distinct values, inverse, counts     :entry:`torch.unique(t) <api-torch-unique>`
fail a test unless close             :entry:`torch.testing.assert_close(a, b) <api-torch-testing-assert-close>`, reports the mismatch
a random tensor for a test           :entry:`make_tensor(shape, dtype=..., device=...) <api-torch-testing-make-tensor>`
===================================  ================================================================================================
"""

# %%
# .. _api-torch-eq:
#
# torch.eq
# --------
# Elementwise ``==`` with broadcasting; the result is a ``bool`` tensor.
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.eq(a, b)

# %%
# .. _api-torch-ne:
#
# torch.ne
# --------
# Elementwise ``!=`` (alias ``torch.not_equal``).
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.ne(a, b)

# %%
# .. _api-torch-gt:
#
# torch.gt
# --------
# Elementwise ``>`` (alias ``torch.greater``); the other side may be a scalar.
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
print(torch.gt(a, b), torch.gt(a, 2))

# %%
# .. _api-torch-ge:
#
# torch.ge
# --------
# Elementwise ``>=`` (alias ``torch.greater_equal``).
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.ge(a, b)

# %%
# .. _api-torch-lt:
#
# torch.lt
# --------
# Elementwise ``<`` (alias ``torch.less``).
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.lt(a, b)

# %%
# .. _api-torch-le:
#
# torch.le
# --------
# Elementwise ``<=`` (alias ``torch.less_equal``).
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.le(a, b)

# %%
# .. _api-torch-equal:
#
# torch.equal
# -----------
# One Python bool: same shape and exactly the same values, compared after type
# promotion (so an int tensor can equal a float one).
import torch

a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
print(torch.equal(a, a.clone()), torch.equal(a, b), torch.equal(a, a.float()))
torch.equal(torch.ones(2), torch.ones(2, 1))

# %%
# .. _api-torch-allclose:
#
# torch.allclose
# --------------
# Whether two tensors are approximately equal, as one Python bool:
# ``|x - y| <= atol + rtol * |y|`` everywhere (defaults
# ``rtol=1e-05``, ``atol=1e-08``; ``nan`` is never close unless ``equal_nan=True``).
import torch

x = torch.tensor([1.0, 100.0])
y = x + torch.tensor([1e-6, 1e-2])
print(torch.allclose(x, y), torch.allclose(x, y, rtol=1e-3))

# %%
# .. _api-torch-isclose:
#
# torch.isclose
# -------------
# The same test per element, as a ``bool`` tensor.
import torch

torch.isclose(
    torch.tensor([1.0, 2.0, float("nan")]),
    torch.tensor([1.0 + 1e-7, 2.1, float("nan")]),
    equal_nan=True,
)

# %%
# .. _api-torch-maximum:
#
# torch.maximum
# -------------
# Elementwise larger of two tensors with broadcasting; a ``nan`` on either side
# wins (``torch.fmax`` ignores it instead).
import torch

p = torch.tensor([1.0, 5.0, float("nan")])
q = torch.tensor([3.0, 2.0, 0.0])
print(torch.maximum(p, q), torch.fmax(p, q))

# %%
# .. _api-torch-minimum:
#
# torch.minimum
# -------------
# Elementwise smaller of two tensors (``torch.fmin`` ignores ``nan``).
import torch

p = torch.tensor([1.0, 5.0, float("nan")])
q = torch.tensor([3.0, 2.0, 0.0])
torch.minimum(p, q)

# %%
# .. _api-torch-isnan:
#
# torch.isnan
# -----------
# True where the value is ``nan``, so ``torch.isnan(t).any()`` checks whether a tensor
# has any; ``nan != nan``, so ``==`` cannot find them.
import torch

v = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), 1.0])
print(torch.isnan(v), torch.eq(v, float("nan")))

# %%
# .. _api-torch-isinf:
#
# torch.isinf
# -----------
# True at ``+inf`` and ``-inf`` (``isposinf`` and ``isneginf`` pick one sign).
import torch

v = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), 1.0])
torch.isinf(v)

# %%
# .. _api-torch-isfinite:
#
# torch.isfinite
# --------------
# True where the value is neither ``nan`` nor infinite; handy for
# ``assert torch.isfinite(loss).all()``.
import torch

v = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), 1.0])
torch.isfinite(v)

# %%
# .. _api-torch-sort:
#
# torch.sort
# ----------
# Sorted values and the indices they came from, along the last dimension by
# default; ``stable=True`` keeps the order of equal elements.
import torch

torch.sort(torch.tensor([2.5, -1.0, 7.0, 0.0]), descending=True)

# %%
# .. _api-torch-argsort:
#
# torch.argsort
# -------------
# Only the indices of ``sort``: ``t[argsort(t)]`` is sorted.
import torch

ages = torch.tensor([31, 25, 31, 19])
order = torch.argsort(ages, stable=True)
print(order, ages[order])

# %%
# .. _api-torch-topk:
#
# torch.topk
# ----------
# The ``k`` largest values and their indices (``largest=False`` for the
# smallest), cheaper than a full sort.
import torch

torch.topk(torch.tensor([0.1, 0.7, 0.05, 0.15]), k=2)

# %%
# .. _api-torch-kthvalue:
#
# torch.kthvalue
# --------------
# The ``k``-th smallest value (1-based) and its index, for example a median or
# a percentile.
import torch

torch.kthvalue(torch.tensor([9.0, 4.0, 7.0, 1.0]), k=2)

# %%
# .. _api-torch-unique:
#
# torch.unique
# ------------
# The distinct values, sorted (duplicates removed), with optional
# ``return_inverse`` (each element's position among them) and ``return_counts``.
import torch

torch.unique(torch.tensor([3, 1, 3, 2, 1, 3]), return_inverse=True, return_counts=True)

# %%
# .. _api-torch-testing-assert-close:
#
# torch.testing.assert_close
# --------------------------
# Raises ``AssertionError`` with a report of the mismatch unless values are close
# and dtype, device and layout agree, with tolerances chosen per dtype (it
# replaces ``torch.testing.assert_allclose``, deprecated since 1.12).
import torch

torch.testing.assert_close(torch.tensor([0.5, 1.5]), torch.tensor([0.5, 1.5 + 1e-7]))
try:
    torch.testing.assert_close(torch.tensor([0.5, 1.5]), torch.tensor([0.5, 1.6]))
except AssertionError as err:
    print(err)
try:
    torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
except AssertionError as err:
    print(err)
torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]), check_dtype=False)

# %%
# .. _api-torch-testing-make-tensor:
#
# torch.testing.make_tensor
# -------------------------
# A random test tensor of any dtype and device with values in ``[low, high)``;
# it follows the global seed.
import torch
from torch.testing import make_tensor

torch.manual_seed(0)
print(make_tensor((2, 3), dtype=torch.int64, device="cpu", low=0, high=10))
make_tensor((3,), dtype=torch.float16, device="cpu", low=-1, high=1)
