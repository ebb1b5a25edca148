r"""
Joining and splitting
=====================

Putting tensors together (along an existing dimension or a new one, with the
NumPy-style ``hstack``/``vstack``/``dstack`` shortcuts) and cutting one apart
into equal chunks, given sizes or given split points. The split functions
return views into the input.
"""

# %%
# .. _api-torch-cat:
#
# torch.cat
# ---------
# Joins tensors along an existing dimension; all other sizes must match.
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
a = torch.zeros(2, 2)
b = torch.ones(1, 2)
print(torch.concat((a, b), dim=0).shape, torch.concatenate((a, b), axis=0).shape)

# %%
# .. _api-torch-stack:
#
# torch.stack
# -----------
# Joins equal-shaped tensors along a new dimension inserted at ``dim``.
rows = [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])]
print(torch.stack(rows).shape, torch.stack(rows, dim=1).shape)

# %%
# .. _api-torch-hstack:
#
# torch.hstack
# ------------
# Joins along dimension 1, or along dimension 0 for 1-D tensors.
rows = [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])]
print(torch.hstack(rows))
torch.hstack((torch.zeros(2, 1), torch.ones(2, 2)))

# %%
# .. _api-torch-vstack:
#
# torch.vstack
# ------------
# Joins along dimension 0 after turning 1-D tensors into rows.
torch.vstack((torch.tensor([1, 2]), torch.tensor([[3, 4], [5, 6]])))

# %%
# .. _api-torch-row-stack:
#
# torch.row_stack
# ---------------
# An alias of ``vstack``, kept for NumPy compatibility (NumPy 2 deprecated its
# ``row_stack``; prefer ``vstack``).
rows = [torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6])]
torch.row_stack(rows)

# %%
# .. _api-torch-column-stack:
#
# torch.column_stack
# ------------------
# Turns 1-D tensors into columns and joins everything along dimension 1.
torch.column_stack((torch.tensor([1, 2]), torch.tensor([[3, 4], [5, 6]])))

# %%
# .. _api-torch-dstack:
#
# torch.dstack
# ------------
# Joins along the third dimension (depth), first lifting inputs to at least 3-D.
torch.dstack((torch.zeros(2, 2), torch.ones(2, 2))).shape

# %%
# .. _api-torch-split:
#
# torch.split
# -----------
# Chunks of a given size (the last one may be smaller) or of a list of sizes that
# add up to the dimension.
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
print(torch.chunk(torch.arange(6), 4))
torch.chunk(torch.arange(7), 4)

# %%
# .. _api-torch-tensor-split:
#
# torch.tensor_split
# ------------------
# Exactly ``sections`` pieces whose sizes differ by at most one (NumPy's
# ``array_split``), or cuts at a list of indices.
print(torch.tensor_split(torch.arange(6), 4))
torch.tensor_split(torch.arange(6), [1, 4])

# %%
# .. _api-torch-hsplit:
#
# torch.hsplit
# ------------
# Splits along dimension 1 (dimension 0 for 1-D tensors); an integer must divide
# the size evenly, a list gives cut points.
m = torch.arange(12).reshape(2, 6)
print([p.shape for p in torch.hsplit(m, 3)])
torch.hsplit(m, [1, 5])

# %%
# .. _api-torch-vsplit:
#
# torch.vsplit
# ------------
# Splits along dimension 0 of a tensor with at least 2 dimensions.
torch.vsplit(torch.arange(8).reshape(4, 2), 2)

# %%
# .. _api-torch-dsplit:
#
# torch.dsplit
# ------------
# Splits along dimension 2 of a tensor with at least 3 dimensions.
vol = torch.arange(8).reshape(1, 2, 4)
torch.dsplit(vol, [1])

# %%
# .. _api-torch-unbind:
#
# torch.unbind
# ------------
# Removes a dimension and returns the slices along it, the inverse of ``stack``.
torch.unbind(torch.tensor([[1, 2], [3, 4]]), dim=1)

# %%
# Summary
# -------
#
# =====================================  ==============================================
# Call                                   Does
# =====================================  ==============================================
# ``torch.cat(ts, dim)``                 join along an existing dimension
# ``torch.concat / concatenate``         aliases of ``cat``
# ``torch.stack(ts, dim)``               join along a new dimension
# ``torch.hstack / vstack / dstack``     join along dimension 1 / 0 / 2
# ``torch.row_stack``                    alias of ``vstack``
# ``torch.column_stack``                 1-D inputs become columns
# ``torch.split(t, size_or_sizes)``      pieces of given sizes
# ``torch.chunk(t, n)``                  at most ``n`` equal pieces
# ``torch.tensor_split(t, n_or_idx)``    exactly ``n`` pieces, or cut at indices
# ``torch.hsplit / vsplit / dsplit``     split along dimension 1 / 0 / 2
# ``torch.unbind(t, dim)``               all slices along ``dim``
# =====================================  ==============================================
