r"""
Indexing, gathering and scattering
==================================

Reading elements by position, index or mask and writing them back. The writers
(``scatter``, ``index_add``, ``masked_fill``, ``put``...) have an in-place ``Tensor``
method with a trailing underscore (``scatter_``, ``index_add_``); the readers
(``gather``, ``take``, ``index_select``, ``masked_select``) and ``select_scatter``,
``slice_scatter`` and ``diagonal_scatter``, which return a new tensor, have none.

Summary
-------

=====================================  ====================================================================================
You want                               Call
=====================================  ====================================================================================
read per element along ``dim``         :entry:`torch.gather(t, dim, idx) <api-torch-gather>`
read at flat positions                 :entry:`torch.take(t, idx) <api-torch-take>`
``gather`` with a broadcasting index   :entry:`torch.take_along_dim(t, idx, dim) <api-torch-take-along-dim>`
read whole slices by index             :entry:`torch.index_select(t, dim, idx) <api-torch-index-select>`
read where a mask is True, as 1-D      :entry:`torch.masked_select(t, mask) <api-torch-masked-select>`
a slice as a view                      :entry:`torch.narrow(t, dim, start, n) <api-torch-narrow>`
a slice as a copy                      :entry:`torch.narrow_copy(t, dim, start, n) <api-torch-narrow-copy>`
positions of the non-zeros             :entry:`torch.nonzero(t) <api-torch-nonzero>`, ``as_tuple=True`` to index with
the same, NumPy's name                 :entry:`torch.argwhere(t) <api-torch-argwhere>`
choose per element                     :entry:`torch.where(cond, a, b) <api-torch-where>`
add whole slices by index              :entry:`torch.index_add(t, dim, idx, src) <api-torch-index-add>`, repeats accumulate
copy whole slices by index             :entry:`torch.index_copy(t, dim, idx, src) <api-torch-index-copy>`
fill whole slices by index             :entry:`t.index_fill_(dim, idx, v) <api-torch-index-fill>`
write a value where a mask is True     :entry:`torch.masked_fill(t, mask, v) <api-torch-masked-fill>`
write consecutive values there         :entry:`torch.masked_scatter(t, mask, src) <api-torch-masked-scatter>`
write per element (inverse of gather)  :entry:`torch.scatter(t, dim, idx, src) <api-torch-scatter>`
sum values that collide                :entry:`t.scatter_add_(dim, idx, src) <api-torch-scatter-add>`
combine collisions another way         :entry:`torch.scatter_reduce(t, dim, idx, src, "mean") <api-torch-scatter-reduce>`
replace one index of a dimension       :entry:`torch.select_scatter(t, src, dim, index) <api-torch-select-scatter>`
replace a strided slice                :entry:`torch.slice_scatter(t, src, dim, start, end) <api-torch-slice-scatter>`
replace a diagonal                     :entry:`torch.diagonal_scatter(t, src, offset) <api-torch-diagonal-scatter>`
write at flat positions                :entry:`torch.put(t, idx, v) <api-torch-put>`, ``accumulate=True`` adds
write a value on the diagonal          :entry:`t.fill_diagonal_(v) <api-torch-tensor-fill-diagonal>`, in place
=====================================  ====================================================================================
"""

# %%
# .. _api-torch-gather:
#
# torch.gather
# ------------
# Picks values along ``dim`` with an index tensor of the same number of
# dimensions: for ``dim=1``, ``out[i][j] = src[i][index[i][j]]``.
import torch

src = torch.tensor([[10, 11, 12], [20, 21, 22]])
torch.gather(src, 1, torch.tensor([[2, 0], [1, 1]]))

# %%
# .. _api-torch-take:
#
# torch.take
# ----------
# Indexes the tensor as if it were flattened to 1-D; the output has the index's
# shape.
import torch

src = torch.tensor([[10, 11, 12], [20, 21, 22]])
torch.take(src, torch.tensor([[0, 5], [3, 1]]))

# %%
# .. _api-torch-take-along-dim:
#
# torch.take_along_dim
# --------------------
# ``gather`` whose index may broadcast, the natural partner of ``argsort`` and
# of ``argmax(..., keepdim=True)``.
import torch

scores = torch.tensor([[0.2, 0.9, 0.4], [0.7, 0.1, 0.3]])
best = scores.argmax(dim=1, keepdim=True)
torch.take_along_dim(scores, best, dim=1)

# %%
# .. _api-torch-index-select:
#
# torch.index_select
# ------------------
# Whole rows (or columns, ...) chosen by a 1-D index, in index order, repeats
# allowed; always a copy.
import torch

src = torch.tensor([[10, 11, 12], [20, 21, 22]])
print(torch.index_select(src, 0, torch.tensor([1, 1, 0])))
torch.index_select(src, 1, torch.tensor([2, 0]))

# %%
# .. _api-torch-masked-select:
#
# torch.masked_select
# -------------------
# The elements where a boolean mask (broadcastable to the input) is True, as a
# 1-D tensor.
import torch

src = torch.tensor([[10, 11, 12], [20, 21, 22]])
torch.masked_select(src, src % 2 == 0)

# %%
# .. _api-torch-narrow:
#
# torch.narrow
# ------------
# The ``length`` elements starting at ``start`` along ``dim``, as a view (the
# same as slicing ``t[:, start:start + length]``).
import torch

grid = torch.arange(12).reshape(3, 4)
torch.narrow(grid, 1, 1, 2)

# %%
# .. _api-torch-narrow-copy:
#
# torch.narrow_copy
# -----------------
# ``narrow`` that returns a copy, so writes do not reach the input; it also
# accepts sparse COO tensors.
import torch

grid = torch.arange(12).reshape(3, 4)
piece = torch.narrow_copy(grid, 0, 2, 1)
piece[0, 0] = -1
print(piece, grid[2])

# %%
# .. _api-torch-nonzero:
#
# torch.nonzero
# -------------
# Indices of the non-zero elements, one row per element; ``as_tuple=True``
# returns one tensor per dimension, ready for advanced indexing.
import torch

d = torch.tensor([[0, 3], [5, 0]])
print(torch.nonzero(d))
torch.nonzero(d, as_tuple=True)

# %%
# .. _api-torch-argwhere:
#
# torch.argwhere
# --------------
# NumPy's name for ``nonzero`` in its default (matrix) form.
import torch

torch.argwhere(torch.tensor([0.0, 1.5, 0.0, -2.0]))

# %%
# .. _api-torch-where:
#
# torch.where
# -----------
# With three arguments, picks from ``input`` where the condition is true and from
# ``other`` elsewhere (scalars allowed); with one, it is
# ``nonzero(as_tuple=True)``.
import torch

vals = torch.tensor([-2.0, 0.5, -0.1, 3.0])
print(torch.where(vals > 0, vals, 0.0))
torch.where(vals > 0)

# %%
# .. _api-torch-index-add:
#
# torch.index_add
# ---------------
# Adds the rows of ``source`` into the rows listed in ``index``; repeated indices
# accumulate and ``alpha`` scales ``source``.
import torch

acc = torch.zeros(3, 2)
torch.index_add(acc, 0, torch.tensor([0, 2, 0]), torch.ones(3, 2), alpha=10)

# %%
# .. _api-torch-index-copy:
#
# torch.index_copy
# ----------------
# Writes the rows of ``source`` into the rows listed in ``index``; the method
# ``index_copy_`` does it in place, as do ``index_add_``, ``index_fill_``,
# ``masked_scatter_``, ``scatter_add_`` and ``put_`` for the entries around this one.
import torch

rows = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(torch.index_copy(torch.zeros(4, 2), 0, torch.tensor([3, 1]), rows))
target = torch.zeros(4, 2)
target.index_copy_(0, torch.tensor([0, 2]), rows)
target

# %%
# .. _api-torch-index-fill:
#
# torch.index_fill
# ----------------
# Sets whole slices, chosen by index along ``dim``, to one value
# (``index_fill_`` in place).
import torch

grid = torch.ones(2, 4)
grid.index_fill_(1, torch.tensor([0, 3]), -5.0)
grid

# %%
# .. _api-torch-masked-fill:
#
# torch.masked_fill
# -----------------
# Sets the elements where the mask is True to a value, for example ``-inf``
# before a softmax over padded positions.
import torch

logits = torch.tensor([[1.0, 2.0, 3.0]])
pad = torch.tensor([[False, False, True]])
torch.masked_fill(logits, pad, float("-inf"))

# %%
# .. _api-torch-masked-scatter:
#
# torch.masked_scatter
# --------------------
# Fills the masked positions, in row-major order, with consecutive elements of
# ``source``.
import torch

mask = torch.tensor([[True, False, True], [False, True, False]])
print(torch.masked_scatter(torch.zeros(2, 3), mask, torch.tensor([7.0, 8.0, 9.0, 99.0])))
board = torch.zeros(2, 3)
board.masked_scatter_(~mask, torch.tensor([1.0, 2.0, 3.0]))  # in place
board

# %%
# .. _api-torch-scatter:
#
# torch.scatter
# -------------
# The inverse of ``gather``: for ``dim=0``, ``out[index[i][j]][j] = src[i][j]``;
# with a scalar ``value`` instead of ``src`` it makes one-hot style tensors.
import torch

print(
    torch.scatter(torch.zeros(3, 3), 0, torch.tensor([[2, 0, 1]]), torch.tensor([[1.0, 2.0, 3.0]]))
)
torch.scatter(torch.zeros(2, 4), 1, torch.tensor([[3], [1]]), 1.0)

# %%
# .. _api-torch-scatter-add:
#
# torch.scatter_add
# -----------------
# ``scatter`` that sums values landing on the same position (a histogram by
# index).
import torch

labels = torch.tensor([0, 2, 2, 1, 2])
counts = torch.zeros(3)
counts.scatter_add_(0, labels, torch.ones(5))  # in place; torch.scatter_add returns a copy
counts

# %%
# .. _api-torch-scatter-reduce:
#
# torch.scatter_reduce
# --------------------
# ``scatter`` with a reduction (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``,
# ``"amin"``), where ``include_self=False`` ignores the values already in the
# input; prefer it to the ``reduce=`` argument of ``scatter``.
import torch

group = torch.tensor([0, 1, 0, 1])
x = torch.tensor([4.0, 1.0, 6.0, 3.0])
print(torch.scatter_reduce(torch.zeros(2), 0, group, x, reduce="mean"))
torch.scatter_reduce(torch.zeros(2), 0, group, x, reduce="mean", include_self=False)

# %%
# .. _api-torch-select-scatter:
#
# torch.select_scatter
# --------------------
# A copy of the input with the slice ``input.select(dim, index)`` replaced.
import torch

torch.select_scatter(torch.zeros(2, 3), torch.tensor([1.0, 2.0]), dim=1, index=2)

# %%
# .. _api-torch-slice-scatter:
#
# torch.slice_scatter
# -------------------
# A copy with ``input[start:end:step]`` along ``dim`` replaced.
import torch

torch.slice_scatter(torch.zeros(2, 6), torch.ones(2, 3), dim=1, start=0, step=2)

# %%
# .. _api-torch-diagonal-scatter:
#
# torch.diagonal_scatter
# ----------------------
# A copy with one diagonal (``offset`` above or below the main one) replaced.
import torch

torch.diagonal_scatter(torch.zeros(3, 3), torch.tensor([4.0, 5.0]), offset=-1)

# %%
# .. _api-torch-put:
#
# torch.put
# ---------
# Writes values at flat (row-major) positions, the write-side partner of
# ``take``; ``accumulate=True`` adds instead.
import torch

torch.put(
    torch.zeros(2, 3), torch.tensor([0, 4, 4]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True
)

# %%
# .. _api-torch-tensor-fill-diagonal:
#
# torch.Tensor.fill_diagonal\_
# ----------------------------
# Writes a value on the main diagonal in place; for a tall matrix
# ``wrap=True`` starts the diagonal again every ``ncols + 1`` rows.
import torch

print(torch.zeros(3, 3).fill_diagonal_(7))
torch.zeros(5, 2).fill_diagonal_(1, wrap=True)
