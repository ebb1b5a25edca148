r"""
Joining and splitting
=====================

Putting tensors together along an existing or a new dimension, and cutting one into
pieces; the split functions return views into the input.

Summary
-------

=======================================  ================================================================================
You want                                 Call
=======================================  ================================================================================
join along an existing dimension         :entry:`torch.cat(ts, dim) <api-torch-cat>`
the same, other names                    :entry:`torch.concat(ts, dim) <api-torch-concat>`, and ``concatenate(ts, axis)``
join along a new dimension               :entry:`torch.stack(ts, dim) <api-torch-stack>`
join along dimension 1                   :entry:`torch.hstack(ts) <api-torch-hstack>`, dimension 0 for 1-D inputs
join along dimension 0                   :entry:`torch.vstack(ts) <api-torch-vstack>`, 1-D inputs become rows
``vstack``'s NumPy alias                 :entry:`torch.row_stack(ts) <api-torch-row-stack>`, prefer ``vstack``
1-D inputs as columns                    :entry:`torch.column_stack(ts) <api-torch-column-stack>`
join along dimension 2                   :entry:`torch.dstack(ts) <api-torch-dstack>`
pieces of given sizes                    :entry:`torch.split(t, size_or_sizes) <api-torch-split>`
at most ``n`` equal pieces               :entry:`torch.chunk(t, n) <api-torch-chunk>`
exactly ``n`` pieces, or cut at indices  :entry:`torch.tensor_split(t, n_or_idx) <api-torch-tensor-split>`
split along dimension 1                  :entry:`torch.hsplit(t, n_or_idx) <api-torch-hsplit>`
split along dimension 0                  :entry:`torch.vsplit(t, n_or_idx) <api-torch-vsplit>`
split along dimension 2                  :entry:`torch.dsplit(t, n_or_idx) <api-torch-dsplit>`
every slice along ``dim``                :entry:`torch.unbind(t, dim) <api-torch-unbind>`, the inverse of ``stack``
=======================================  ================================================================================
"""

# %%
# .. _api-torch-cat:
#
# torch.cat
# ---------
# Concatenates tensors along an existing dimension; all other sizes must match.
import torch

a = torch.zeros(2, 2)
b = torch.ones(1, 2)
print(torch.cat((a, b)).shape)
torch.cat((a, a.T), dim=1)

# %%
# .. _api-torch-concat:
#
# torch.concat
# ------------
# An alias of ``cat`` (``torch.concatenate`` is another one, with NumPy's
# ``axis=`` keyword).
import torch

a = torch.zeros(2, 2)
b = torch.ones(1, 2)
print(torch.concat((a, b), dim=0).shape, torch.concatenate((a, b), axis=0).shape)

# %%
# .. _api-torch-stack:
#
# torch.stack
# -----------
# Joins a list (or tuple) of equal-shaped tensors along a new dimension inserted
# at ``dim``.
import torch

rows = [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])]
print(torch.stack(rows).shape, torch.stack(rows, dim=1).shape)

# %%
# .. _api-torch-hstack:
#
# torch.hstack
# ------------
# Joins along dimension 1, or along dimension 0 for 1-D tensors.
import torch

rows = [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])]
print(torch.hstack(rows))
torch.hstack((torch.zeros(2, 1), torch.ones(2, 2)))

# %%
# .. _api-torch-vstack:
#
# torch.vstack
# ------------
# Joins along dimension 0 after turning 1-D tensors into rows.
import torch

torch.vstack((torch.tensor([1, 2]), torch.tensor([[3, 4], [5, 6]])))

# %%
# .. _api-torch-row-stack:
#
# torch.row_stack
# ---------------
# An alias of ``vstack``, kept for NumPy compatibility (NumPy 2 deprecated its
# ``row_stack``; prefer ``vstack``).
import torch

rows = [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])]
torch.row_stack(rows)

# %%
# .. _api-torch-column-stack:
#
# torch.column_stack
# ------------------
# Turns 1-D tensors into columns and joins everything along dimension 1.
import torch

torch.column_stack((torch.tensor([1, 2]), torch.tensor([[3, 4], [5, 6]])))

# %%
# .. _api-torch-dstack:
#
# torch.dstack
# ------------
# Joins along the third dimension (depth), first lifting inputs to at least 3-D.
import torch

torch.dstack((torch.zeros(2, 2), torch.ones(2, 2))).shape

# %%
# .. _api-torch-split:
#
# torch.split
# -----------
# Chunks of a given size (the last one may be smaller) or of a list of sizes that
# add up to the dimension.
import torch

seq = torch.arange(7)
print(torch.split(seq, 3))
torch.split(seq, [1, 2, 4])

# %%
# .. _api-torch-chunk:
#
# torch.chunk
# -----------
# At most ``chunks`` pieces of size ``ceil(n / chunks)``, so it can return fewer
# than asked for.
import torch

print(torch.chunk(torch.arange(6), 4))
torch.chunk(torch.arange(7), 4)

# %%
# .. _api-torch-tensor-split:
#
# torch.tensor_split
# ------------------
# Exactly ``sections`` pieces whose sizes differ by at most one (NumPy's
# ``array_split``), or cuts at a list of indices.
import torch

print(torch.tensor_split(torch.arange(6), 4))
torch.tensor_split(torch.arange(6), [1, 4])

# %%
# .. _api-torch-hsplit:
#
# torch.hsplit
# ------------
# Splits along dimension 1 (dimension 0 for 1-D tensors); an integer must divide
# the size evenly, a list gives cut points.
import torch

m = torch.arange(12).reshape(2, 6)
print([p.shape for p in torch.hsplit(m, 3)])
torch.hsplit(m, [1, 5])

# %%
# .. _api-torch-vsplit:
#
# torch.vsplit
# ------------
# Splits along dimension 0 of a tensor with at least 2 dimensions.
import torch

torch.vsplit(torch.arange(8).reshape(4, 2), 2)

# %%
# .. _api-torch-dsplit:
#
# torch.dsplit
# ------------
# Splits along dimension 2 of a tensor with at least 3 dimensions.
import torch

vol = torch.arange(8).reshape(1, 2, 4)
torch.dsplit(vol, [1])

# %%
# .. _api-torch-unbind:
#
# torch.unbind
# ------------
# Removes a dimension and returns the slices along it, the inverse of ``stack``.
import torch

torch.unbind(torch.tensor([[1, 2], [3, 4]]), dim=1)
