r"""
Indexing, gathering and scattering
==================================

Reading elements by position, index tensor or mask, and writing them back:
the gather/scatter pair, the ``index_*`` family, masks, and the ``*_scatter``
functions that embed one tensor into a slice of another. The entries use the
out-of-place functions; each has an in-place ``Tensor`` method with a trailing
underscore (``scatter_``, ``index_add_``, ...).
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
src = torch.tensor([[10, 11, 12], [20, 21, 22]])
torch.take(src, torch.tensor([[0, 5], [3, 1]]))

# %%
# .. _api-torch-take-along-dim:
#
# torch.take_along_dim
# --------------------
# ``gather`` whose index may broadcast, the natural partner of ``argsort`` and
# of ``argmax(..., keepdim=True)``.
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
src = torch.tensor([[10, 11, 12], [20, 21, 22]])
torch.masked_select(src, src % 2 == 0)

# %%
# .. _api-torch-narrow:
#
# torch.narrow
# ------------
# The ``length`` elements starting at ``start`` along ``dim``, as a view (the
# same as slicing ``t[:, start:start + length]``).
grid = torch.arange(12).reshape(3, 4)
torch.narrow(grid, 1, 1, 2)

# %%
# .. _api-torch-narrow-copy:
#
# torch.narrow_copy
# -----------------
# ``narrow`` that returns a copy, so writes do not reach the input; it also
# accepts sparse COO tensors.
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
d = torch.tensor([[0, 3], [5, 0]])
print(torch.nonzero(d))
torch.nonzero(d, as_tuple=True)

# %%
# .. _api-torch-argwhere:
#
# torch.argwhere
# --------------
# NumPy's name for ``nonzero`` in its default (matrix) form.
torch.argwhere(torch.tensor([0.0, 1.5, 0.0, -2.0]))

# %%
# .. _api-torch-where:
#
# torch.where
# -----------
# With three arguments, picks from ``input`` where the condition holds and from
# ``other`` elsewhere (scalars allowed); with one, it is
# ``nonzero(as_tuple=True)``.
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
torch.select_scatter(torch.zeros(2, 3), torch.tensor([1.0, 2.0]), dim=1, index=2)

# %%
# .. _api-torch-slice-scatter:
#
# torch.slice_scatter
# -------------------
# A copy with ``input[start:end:step]`` along ``dim`` replaced.
torch.slice_scatter(torch.zeros(2, 6), torch.ones(2, 3), dim=1, start=0, step=2)

# %%
# .. _api-torch-diagonal-scatter:
#
# torch.diagonal_scatter
# ----------------------
# A copy with one diagonal (``offset`` above or below the main one) replaced.
torch.diagonal_scatter(torch.zeros(3, 3), torch.tensor([4.0, 5.0]), offset=-1)

# %%
# .. _api-torch-put:
#
# torch.put
# ---------
# Writes values at flat (row-major) positions, the write-side partner of
# ``take``; ``accumulate=True`` adds instead.
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
print(torch.zeros(3, 3).fill_diagonal_(7))
torch.zeros(5, 2).fill_diagonal_(1, wrap=True)

# %%
# Summary
# -------
#
# ========================================  ============================================
# Call                                      Does
# ========================================  ============================================
# ``torch.gather(t, dim, idx)``             read per element along ``dim``
# ``torch.take(t, idx)``                    read at flat positions
# ``torch.take_along_dim(t, idx, dim)``     broadcasting ``gather``
# ``torch.index_select(t, dim, idx)``       read whole slices
# ``torch.masked_select(t, mask)``          read where mask is True (1-D)
# ``torch.narrow(t, dim, start, n)``        a slice as a view (``narrow_copy``: a copy)
# ``torch.nonzero(t)``                      positions of non-zeros (``argwhere``)
# ``torch.where(cond, a, b)``               elementwise choice
# ``torch.index_add / copy / fill``         write whole slices by index
# ``torch.masked_fill(t, mask, v)``         write a value where mask is True
# ``torch.masked_scatter(t, mask, s)``      write consecutive values where mask is True
# ``torch.scatter(t, dim, idx, src)``       write per element (inverse of ``gather``)
# ``torch.scatter_add / scatter_reduce``    write and combine collisions
# ``torch.select_scatter``                  replace one index of a dimension
# ``torch.slice_scatter``                   replace a strided slice
# ``torch.diagonal_scatter``                replace a diagonal
# ``torch.put(t, idx, v)``                  write at flat positions
# ``t.fill_diagonal_(v)``                   write a value on the diagonal, in place
# ========================================  ============================================
