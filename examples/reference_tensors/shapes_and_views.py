r"""
Shapes, views and memory layout
===============================

Changing a tensor's shape or the order of its dimensions, repeating and
reversing it, and reading the strides that say where each element sits in
memory. Most of these calls return views that share memory with their input;
the entries say which ones copy.
"""

# %%
# .. _api-torch-reshape:
#
# torch.reshape
# -------------
# Returns a tensor with the same elements in a new shape (one dimension may be
# ``-1``, inferred); a view when the strides allow it, a copy otherwise.
import torch

x = torch.arange(6)
print(torch.reshape(x, (2, 3)))
torch.reshape(x, (-1, 2)).shape

# %%
# .. _api-torch-tensor-view:
#
# torch.Tensor.view
# -----------------
# Like ``reshape`` but never copies: it raises when the memory layout cannot
# express the new shape (typically after a transpose).
m = torch.arange(6.0).reshape(2, 3)
print(m.view(3, 2).data_ptr() == m.data_ptr())
try:
    m.t().view(6)
except RuntimeError as err:
    print("RuntimeError:", str(err).split(".")[0])

# %%
# .. _api-torch-permute:
#
# torch.permute
# -------------
# Reorders all dimensions at once: output dimension ``i`` is input dimension
# ``dims[i]``.
img = torch.zeros(2, 32, 24, 3)  # N, H, W, C
torch.permute(img, (0, 3, 1, 2)).shape  # N, C, H, W

# %%
# .. _api-torch-transpose:
#
# torch.transpose
# ---------------
# Swaps two dimensions (a view).
torch.transpose(torch.arange(6).reshape(1, 2, 3), 0, 2).shape

# %%
# .. _api-torch-t:
#
# torch.t
# -------
# Transposes a matrix; 0-D and 1-D tensors come back unchanged and more than two
# dimensions raise (use ``transpose`` or ``.mT`` there).
print(torch.t(torch.tensor([[1, 2, 3]])))
torch.t(torch.tensor([1, 2, 3]))

# %%
# .. _api-torch-movedim:
#
# torch.movedim
# -------------
# Moves the listed source dimensions to the destination positions and keeps the
# other dimensions in their original order.
v = torch.zeros(4, 5, 6)
print(torch.movedim(v, 0, -1).shape, torch.movedim(v, (0, 2), (2, 0)).shape)

# %%
# .. _api-torch-moveaxis:
#
# torch.moveaxis
# --------------
# NumPy's name for ``movedim``; same arguments, same result.
torch.moveaxis(torch.zeros(4, 5, 6), 2, 0).shape

# %%
# .. _api-torch-swapaxes:
#
# torch.swapaxes
# --------------
# NumPy's name for ``transpose``.
torch.swapaxes(torch.zeros(4, 5, 6), 0, 1).shape

# %%
# .. _api-torch-swapdims:
#
# torch.swapdims
# --------------
# A third name for ``transpose``, matching ``movedim``'s vocabulary.
torch.swapdims(torch.zeros(4, 5, 6), -1, 0).shape

# %%
# .. _api-torch-squeeze:
#
# torch.squeeze
# -------------
# Drops dimensions of size 1: all of them, or only those listed in ``dim``
# (an int or, since 2.0, a tuple); listed dimensions of other sizes are left alone.
s = torch.zeros(1, 3, 1, 2)
print(torch.squeeze(s).shape, torch.squeeze(s, 0).shape, torch.squeeze(s, (1, 2)).shape)

# %%
# .. _api-torch-unsqueeze:
#
# torch.unsqueeze
# ---------------
# Inserts a dimension of size 1 at ``dim`` (negative counts from the end of the
# output), for example to turn a vector into a row or a column.
r = torch.tensor([1, 2, 3])
print(torch.unsqueeze(r, 0).shape, torch.unsqueeze(r, -1).shape)

# %%
# .. _api-torch-flatten:
#
# torch.flatten
# -------------
# Merges the dimensions from ``start_dim`` to ``end_dim`` into one.
batch = torch.zeros(8, 3, 4, 4)
print(torch.flatten(batch).shape, torch.flatten(batch, start_dim=1).shape)

# %%
# .. _api-torch-tensor-expand:
#
# torch.Tensor.expand
# -------------------
# Broadcasts size-1 dimensions to a larger size without copying (stride 0);
# ``-1`` keeps a dimension as it is.
col = torch.tensor([[1], [2]])
wide = col.expand(-1, 4)
print(wide, wide.stride())

# %%
# .. _api-torch-tensor-repeat:
#
# torch.Tensor.repeat
# -------------------
# Copies the whole tensor the given number of times along each dimension (extra
# leading counts add dimensions).
torch.tensor([1, 2]).repeat(2, 3)

# %%
# .. _api-torch-tile:
#
# torch.tile
# ----------
# NumPy-style ``repeat``: fewer counts than dimensions are padded with 1 on the
# left instead of raising.
torch.tile(torch.tensor([[1, 2], [3, 4]]), (2,))

# %%
# .. _api-torch-repeat-interleave:
#
# torch.repeat_interleave
# -----------------------
# Repeats each element (not the whole tensor) in place; the counts may differ per
# element.
print(torch.repeat_interleave(torch.tensor([1, 2, 3]), 2))
torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([3, 0, 1]))

# %%
# .. _api-torch-flip:
#
# torch.flip
# ----------
# Reverses the order along the listed dimensions; unlike NumPy this copies.
torch.flip(torch.arange(6).reshape(2, 3), dims=(1,))

# %%
# .. _api-torch-roll:
#
# torch.roll
# ----------
# Shifts elements cyclically, so what falls off one end comes back at the other
# (without ``dims`` the tensor is rolled as if flat).
print(torch.roll(torch.arange(5), shifts=2))
torch.roll(torch.arange(6).reshape(2, 3), shifts=-1, dims=1)

# %%
# .. _api-torch-tensor-unfold:
#
# torch.Tensor.unfold
# -------------------
# Sliding windows of length ``size`` every ``step`` elements along one
# dimension, as a view with a new last dimension.
torch.arange(1, 8).unfold(0, 3, 2)

# %%
# .. _api-torch-tensor-contiguous:
#
# torch.Tensor.contiguous
# -----------------------
# Returns the tensor itself when its memory is already row-major
# (``is_contiguous``), otherwise a row-major copy.
tr = torch.arange(6).reshape(2, 3).t()
fixed = tr.contiguous()
print(tr.is_contiguous(), fixed.is_contiguous(), fixed.contiguous() is fixed)

# %%
# .. _api-torch-tensor-stride:
#
# torch.Tensor.stride
# -------------------
# How many elements to skip in memory to move one step along each dimension.
grid = torch.zeros(3, 4, 5)
print(grid.stride(), grid.stride(1), grid.permute(2, 0, 1).stride())

# %%
# .. _api-torch-tensor-storage-offset:
#
# torch.Tensor.storage_offset
# ---------------------------
# Where a view starts in its storage, counted in elements.
seq = torch.arange(10)
print(seq.storage_offset(), seq[4:].storage_offset(), seq.view(2, 5)[1].storage_offset())

# %%
# .. _api-torch-tensor-resize:
#
# torch.Tensor.resize\_
# ---------------------
# Changes the shape in place, keeping the first elements in memory order and
# leaving any new ones uninitialised; ``reshape`` is almost always what you want.
r = torch.arange(6)
r.resize_(2, 2)

# %%
# Summary
# -------
#
# ==================================  ==============================================
# Call                                Does
# ==================================  ==============================================
# ``torch.reshape(t, shape)``         new shape, view if possible
# ``t.view(shape)``                   new shape, always a view or an error
# ``torch.permute(t, dims)``          reorder every dimension
# ``torch.transpose(t, a, b)``        swap two dimensions (``swapaxes``, ``swapdims``)
# ``torch.t(t)``                      transpose a matrix
# ``torch.movedim(t, src, dst)``      move some dimensions (``moveaxis``)
# ``torch.squeeze / unsqueeze``       drop / add size-1 dimensions
# ``torch.flatten(t, s, e)``          merge a range of dimensions
# ``t.expand(sizes)``                 broadcast without copying
# ``t.repeat(counts)``                copy the whole tensor (``torch.tile``)
# ``torch.repeat_interleave(t, n)``   repeat each element
# ``torch.flip(t, dims)``             reverse
# ``torch.roll(t, k, dims)``          cyclic shift
# ``t.unfold(dim, size, step)``       sliding windows
# ``t.contiguous()``                  row-major memory
# ``t.stride()``                      element steps per dimension
# ``t.storage_offset()``              start of a view in its storage
# ``t.resize_(shape)``                in-place resize, may drop or add elements
# ==================================  ==============================================
