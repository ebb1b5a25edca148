r"""
Shapes, views and memory layout
===============================

Changing shape and dimension order, repeating and reversing, and reading the strides;
most calls return views that share memory with the input, and the entries say which ones
copy.

Summary
-------

===================================  =============================================================================
You want                             Call
===================================  =============================================================================
a new shape, a view when possible    :entry:`torch.reshape(t, shape) <api-torch-reshape>`, ``-1`` infers one size
a new shape, a view or an error      :entry:`t.view(shape) <api-torch-tensor-view>`
every dimension reordered            :entry:`torch.permute(t, dims) <api-torch-permute>`
two dimensions swapped               :entry:`torch.transpose(t, a, b) <api-torch-transpose>`
a matrix transposed                  :entry:`torch.t(t) <api-torch-t>`, ``.mT`` for batches
some dimensions moved                :entry:`torch.movedim(t, src, dst) <api-torch-movedim>`
the same, NumPy's name               :entry:`torch.moveaxis(t, src, dst) <api-torch-moveaxis>`
``transpose``, NumPy's name          :entry:`torch.swapaxes(t, a, b) <api-torch-swapaxes>`
``transpose``, a third name          :entry:`torch.swapdims(t, a, b) <api-torch-swapdims>`
size-1 dimensions dropped            :entry:`torch.squeeze(t, dim) <api-torch-squeeze>`
a size-1 dimension added             :entry:`torch.unsqueeze(t, dim) <api-torch-unsqueeze>`
a range of dimensions merged         :entry:`torch.flatten(t, start_dim, end_dim) <api-torch-flatten>`
broadcast without copying            :entry:`t.expand(sizes) <api-torch-tensor-expand>`
the whole tensor copied ``n`` times  :entry:`t.repeat(counts) <api-torch-tensor-repeat>`
the same, NumPy style                :entry:`torch.tile(t, counts) <api-torch-tile>`
each element repeated                :entry:`torch.repeat_interleave(t, n) <api-torch-repeat-interleave>`
reversed, as a copy                  :entry:`torch.flip(t, dims) <api-torch-flip>`
a cyclic shift                       :entry:`torch.roll(t, shifts, dims) <api-torch-roll>`
sliding windows                      :entry:`t.unfold(dim, size, step) <api-torch-tensor-unfold>`
row-major memory                     :entry:`t.contiguous() <api-torch-tensor-contiguous>`
element steps per dimension          :entry:`t.stride() <api-torch-tensor-stride>`
where a view starts in its storage   :entry:`t.storage_offset() <api-torch-tensor-storage-offset>`
a resize in place                    :entry:`t.resize_(shape) <api-torch-tensor-resize>`, may drop or add elements
===================================  =============================================================================
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
import torch

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
import torch

img = torch.zeros(2, 32, 24, 3)  # N, H, W, C
torch.permute(img, (0, 3, 1, 2)).shape  # N, C, H, W

# %%
# .. _api-torch-transpose:
#
# torch.transpose
# ---------------
# Swaps two dimensions (a view).
import torch

torch.transpose(torch.arange(6).reshape(1, 2, 3), 0, 2).shape

# %%
# .. _api-torch-t:
#
# torch.t
# -------
# Transposes a matrix; 0-D and 1-D tensors come back unchanged and more than two
# dimensions raise (use ``transpose`` or ``.mT`` there).
import torch

print(torch.t(torch.tensor([[1, 2, 3]])))
torch.t(torch.tensor([1, 2, 3]))

# %%
# .. _api-torch-movedim:
#
# torch.movedim
# -------------
# Moves the listed source dimensions to the destination positions and keeps the
# other dimensions in their original order.
import torch

v = torch.zeros(4, 5, 6)
print(torch.movedim(v, 0, -1).shape, torch.movedim(v, (0, 2), (2, 0)).shape)

# %%
# .. _api-torch-moveaxis:
#
# torch.moveaxis
# --------------
# NumPy's name for ``movedim``; same arguments, same result.
import torch

torch.moveaxis(torch.zeros(4, 5, 6), 2, 0).shape

# %%
# .. _api-torch-swapaxes:
#
# torch.swapaxes
# --------------
# NumPy's name for ``transpose``.
import torch

torch.swapaxes(torch.zeros(4, 5, 6), 0, 1).shape

# %%
# .. _api-torch-swapdims:
#
# torch.swapdims
# --------------
# A third name for ``transpose``, matching ``movedim``'s vocabulary.
import torch

torch.swapdims(torch.zeros(4, 5, 6), -1, 0).shape

# %%
# .. _api-torch-squeeze:
#
# torch.squeeze
# -------------
# Removes dimensions of size 1: all of them, or only those listed in ``dim``
# (an int or a tuple); listed dimensions of other sizes are left alone.
import torch

s = torch.zeros(1, 3, 1, 2)
print(torch.squeeze(s).shape, torch.squeeze(s, 0).shape, torch.squeeze(s, (1, 2)).shape)

# %%
# .. _api-torch-unsqueeze:
#
# torch.unsqueeze
# ---------------
# Adds a dimension of size one at ``dim`` (negative counts from the end of the
# output), for example to turn a vector into a row or a column.
import torch

r = torch.tensor([1, 2, 3])
print(torch.unsqueeze(r, 0).shape, torch.unsqueeze(r, -1).shape)

# %%
# .. _api-torch-flatten:
#
# torch.flatten
# -------------
# Merges the dimensions from ``start_dim`` to ``end_dim`` into one.
import torch

batch = torch.zeros(8, 3, 4, 4)
print(torch.flatten(batch).shape, torch.flatten(batch, start_dim=1).shape)

# %%
# .. _api-torch-tensor-expand:
#
# torch.Tensor.expand
# -------------------
# Broadcasts size-1 dimensions to a larger size without copying (stride 0);
# ``-1`` keeps a dimension as it is.
import torch

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
import torch

torch.tensor([1, 2]).repeat(2, 3)

# %%
# .. _api-torch-tile:
#
# torch.tile
# ----------
# NumPy-style ``repeat``: fewer counts than dimensions are padded with 1 on the
# left instead of raising.
import torch

torch.tile(torch.tensor([[1, 2], [3, 4]]), (2,))

# %%
# .. _api-torch-repeat-interleave:
#
# torch.repeat_interleave
# -----------------------
# Repeats each element (not the whole tensor), each copy next to its original,
# and returns a new tensor; the counts may differ per element.
import torch

print(torch.repeat_interleave(torch.tensor([1, 2, 3]), 2))
torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([3, 0, 1]))

# %%
# .. _api-torch-flip:
#
# torch.flip
# ----------
# Reverses the order along the listed dimensions; unlike NumPy this copies.
import torch

torch.flip(torch.arange(6).reshape(2, 3), dims=(1,))

# %%
# .. _api-torch-roll:
#
# torch.roll
# ----------
# Shifts elements cyclically, so what falls off one end comes back at the other
# (without ``dims`` the tensor is rolled as if flat).
import torch

print(torch.roll(torch.arange(5), shifts=2))
torch.roll(torch.arange(6).reshape(2, 3), shifts=-1, dims=1)

# %%
# .. _api-torch-tensor-unfold:
#
# torch.Tensor.unfold
# -------------------
# Sliding windows of length ``size`` every ``step`` elements along one
# dimension, as a view with a new last dimension.
import torch

torch.arange(1, 8).unfold(0, 3, 2)

# %%
# .. _api-torch-tensor-contiguous:
#
# torch.Tensor.contiguous
# -----------------------
# Returns the tensor itself when its memory is already row-major
# (``is_contiguous``), otherwise a row-major copy.
import torch

tr = torch.arange(6).reshape(2, 3).t()
fixed = tr.contiguous()
print(tr.is_contiguous(), fixed.is_contiguous(), fixed.contiguous() is fixed)

# %%
# .. _api-torch-tensor-stride:
#
# torch.Tensor.stride
# -------------------
# How many elements to skip in memory to move one step along each dimension.
import torch

grid = torch.zeros(3, 4, 5)
print(grid.stride(), grid.stride(1), grid.permute(2, 0, 1).stride())

# %%
# .. _api-torch-tensor-storage-offset:
#
# torch.Tensor.storage_offset
# ---------------------------
# Where a view starts in its storage, counted in elements.
import torch

seq = torch.arange(10)
print(seq.storage_offset(), seq[4:].storage_offset(), seq.view(2, 5)[1].storage_offset())

# %%
# .. _api-torch-tensor-resize:
#
# torch.Tensor.resize\_
# ---------------------
# Changes the shape in place, keeping the first elements in memory order and
# leaving any new ones uninitialised; ``reshape`` is almost always what you want.
import torch

r = torch.arange(6)
r.resize_(2, 2)
