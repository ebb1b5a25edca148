r"""
Comparison, sorting and testing
===============================

Elementwise comparisons that return boolean tensors, whole-tensor equality
with and without a tolerance, checks for ``nan`` and ``inf``, sorting and
top-k selection, and the two helpers of ``torch.testing`` that unit tests
use: ``assert_close`` and ``make_tensor``.
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
a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.ne(a, b)

# %%
# .. _api-torch-gt:
#
# torch.gt
# --------
# Elementwise ``>`` (alias ``torch.greater``); the other side may be a scalar.
a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
print(torch.gt(a, b), torch.gt(a, 2))

# %%
# .. _api-torch-ge:
#
# torch.ge
# --------
# Elementwise ``>=`` (alias ``torch.greater_equal``).
a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.ge(a, b)

# %%
# .. _api-torch-lt:
#
# torch.lt
# --------
# Elementwise ``<`` (alias ``torch.less``).
a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
torch.lt(a, b)

# %%
# .. _api-torch-le:
#
# torch.le
# --------
# Elementwise ``<=`` (alias ``torch.less_equal``).
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
a = torch.tensor([1, 2, 3, 4])
b = torch.tensor([1, 0, 3, 5])
print(torch.equal(a, a.clone()), torch.equal(a, b), torch.equal(a, a.float()))
torch.equal(torch.ones(2), torch.ones(2, 1))

# %%
# .. _api-torch-allclose:
#
# torch.allclose
# --------------
# One Python bool: ``|x - y| <= atol + rtol * |y|`` everywhere (defaults
# ``rtol=1e-05``, ``atol=1e-08``; ``nan`` is never close unless ``equal_nan=True``).
x = torch.tensor([1.0, 100.0])
y = x + torch.tensor([1e-6, 1e-2])
print(torch.allclose(x, y), torch.allclose(x, y, rtol=1e-3))

# %%
# .. _api-torch-isclose:
#
# torch.isclose
# -------------
# The same test per element, as a ``bool`` tensor.
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
p = torch.tensor([1.0, 5.0, float("nan")])
q = torch.tensor([3.0, 2.0, 0.0])
print(torch.maximum(p, q), torch.fmax(p, q))

# %%
# .. _api-torch-minimum:
#
# torch.minimum
# -------------
# Elementwise smaller of two tensors (``torch.fmin`` ignores ``nan``).
p = torch.tensor([1.0, 5.0, float("nan")])
q = torch.tensor([3.0, 2.0, 0.0])
torch.minimum(p, q)

# %%
# .. _api-torch-isnan:
#
# torch.isnan
# -----------
# True where the value is ``nan``; ``nan != nan``, so ``==`` cannot find them.
v = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), 1.0])
print(torch.isnan(v), torch.eq(v, float("nan")))

# %%
# .. _api-torch-isinf:
#
# torch.isinf
# -----------
# True at ``+inf`` and ``-inf`` (``isposinf`` and ``isneginf`` pick one sign).
v = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), 1.0])
torch.isinf(v)

# %%
# .. _api-torch-isfinite:
#
# torch.isfinite
# --------------
# True where the value is neither ``nan`` nor infinite; handy for
# ``assert torch.isfinite(loss).all()``.
v = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), 1.0])
torch.isfinite(v)

# %%
# .. _api-torch-sort:
#
# torch.sort
# ----------
# Sorted values and the indices they came from, along the last dimension by
# default; ``stable=True`` keeps the order of equal elements.
torch.sort(torch.tensor([2.5, -1.0, 7.0, 0.0]), descending=True)

# %%
# .. _api-torch-argsort:
#
# torch.argsort
# -------------
# Only the indices of ``sort``: ``t[argsort(t)]`` is sorted.
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
torch.topk(torch.tensor([0.1, 0.7, 0.05, 0.15]), k=2)

# %%
# .. _api-torch-kthvalue:
#
# torch.kthvalue
# --------------
# The ``k``-th smallest value (1-based) and its index, for example a median or
# a percentile.
torch.kthvalue(torch.tensor([9.0, 4.0, 7.0, 1.0]), k=2)

# %%
# .. _api-torch-unique:
#
# torch.unique
# ------------
# The distinct values, sorted, with optional ``return_inverse`` (each element's
# position among them) and ``return_counts``.
torch.unique(torch.tensor([3, 1, 3, 2, 1, 3]), return_inverse=True, return_counts=True)

# %%
# .. _api-torch-testing-assert-close:
#
# torch.testing.assert_close
# --------------------------
# Raises ``AssertionError`` with a report of the mismatch unless values are close
# and dtype, device and layout agree, with tolerances chosen per dtype (it
# replaces ``torch.testing.assert_allclose``, deprecated since 1.12).
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
from torch.testing import make_tensor

torch.manual_seed(0)
print(make_tensor((2, 3), dtype=torch.int64, device="cpu", low=0, high=10))
make_tensor((3,), dtype=torch.float16, device="cpu", low=-1, high=1)

# %%
# Summary
# -------
#
# =====================================  =============================================
# Call                                   Returns
# =====================================  =============================================
# ``torch.eq / ne / gt / ge / lt / le``  elementwise comparison, ``bool`` tensor
# ``torch.equal(a, b)``                  one bool: same shape, same values
# ``torch.allclose(a, b)``               one bool: equal within tolerance
# ``torch.isclose(a, b)``                per-element closeness
# ``torch.maximum / minimum``            elementwise max / min (``fmax``, ``fmin``)
# ``torch.isnan / isinf / isfinite``     per-element checks for special values
# ``torch.sort(t)``                      sorted values and indices
# ``torch.argsort(t)``                   indices that sort
# ``torch.topk(t, k)``                   ``k`` largest and their indices
# ``torch.kthvalue(t, k)``               ``k``-th smallest and its index
# ``torch.unique(t)``                    distinct values, inverse, counts
# ``torch.testing.assert_close``         raises with a report unless close
# ``torch.testing.make_tensor``          random tensor for tests
# =====================================  =============================================
