r"""
Indexing and reshaping
======================

Most tensor bugs are shape bugs: memory layout, reshaping, indexing, and
joining and cutting tensors.

Summary
-------

===========================  ==================================================
You want                     Call
===========================  ==================================================
to know the memory layout    :entry:`x.is_contiguous() <basics-contiguity>`, ``x.stride()``
a row-major copy             :entry:`x.contiguous() <basics-contiguity>`
a new shape, no copy         :entry:`x.view(shape) <basics-view-vs-reshape>` (fails where no strides fit)
a new shape, copy if needed  :entry:`x.reshape(shape) <basics-reshape>`, ``-1`` for one inferred size
fewer or more dimensions     :entry:`x.flatten(start_dim) <basics-reshape>`, ``squeeze(dim)``, ``unsqueeze(dim)``
dimensions in another order  :entry:`x.transpose(a, b) <basics-transpose-permute>`, ``permute``, ``.T``, ``.mT``
parts of a tensor            :entry:`x[:, j] <basics-slicing>`, ``x[i]``, ``x[a:b:step]``, ``x[..., k]``, ``.item()``
elements by condition        :entry:`x[mask] <basics-boolean-mask>`, ``torch.where``, ``x.masked_fill``
elements by index            :entry:`x[rows, cols] <basics-fancy-indexing>`, ``index_select``, ``gather``
to join tensors              :entry:`torch.cat(ts, dim) <basics-cat-stack>`, ``stack``, ``vstack``, ``hstack``
to cut a tensor              :entry:`x.split(size) <basics-split-chunk>`, ``chunk``, ``unbind``, ``tensor_split``
===========================  ==================================================
"""

# %%
# .. _basics-contiguity:
#
# Contiguous tensors: is_contiguous, stride, contiguous
# -----------------------------------------------------
# A tensor is contiguous when its elements sit in memory in row-major order;
# ``transpose`` only swaps the strides, so its result is not, and ``.contiguous()``
# copies it into a fresh row-major block.
import torch

x = torch.arange(6).reshape(2, 3)
y = x.transpose(0, 1)
z = y.contiguous()
for name, t in [("x", x), ("x.transpose(0, 1)", y), ("... .contiguous()", z)]:
    print(f"{name:<18} shape={tuple(t.shape)} stride={t.stride()} contiguous={t.is_contiguous()}")
print("transpose shares x's memory:", y.data_ptr() == x.data_ptr())
print("contiguous() copied it:     ", z.data_ptr() != x.data_ptr())

# %%
# .. _basics-view-vs-reshape:
#
# view versus reshape
# -------------------
# ``view`` never copies: it works on any layout, contiguous or not, that new
# strides can express, and refuses the rest, while ``reshape`` returns a view when
# it can and silently copies when it must.
import torch

x = torch.arange(24).reshape(2, 3, 4)
v = x.view(6, 4)
print("view shares memory:", v.data_ptr() == x.data_ptr())

y = x.transpose(0, 1)  # shape (3, 2, 4), not contiguous
print("y contiguous:", y.is_contiguous(), "| y.view(3, 2, 2, 2) works:", y.view(3, 2, 2, 2).shape)
try:
    y.view(3, 8)
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")

r = y.reshape(3, 8)
print("reshape works:", tuple(r.shape), "| it copied:", r.data_ptr() != x.data_ptr())
print("contiguous().view works too:", tuple(y.contiguous().view(3, 8).shape))

# %%
# .. _basics-reshape:
#
# Reshape: reshape(-1), flatten, squeeze, unsqueeze
# -------------------------------------------------
# One ``-1`` in ``reshape`` is inferred from the others; ``flatten`` merges a range
# of dimensions, ``squeeze`` drops size-1 dimensions and ``unsqueeze`` inserts one.
import torch

x = torch.zeros(1, 2, 1, 3)
print("x:                    ", x.shape)
print("reshape(2, -1):       ", x.reshape(2, -1).shape)
print("flatten():            ", x.flatten().shape)
print("flatten(start_dim=1): ", x.flatten(start_dim=1).shape)
print("squeeze():            ", x.squeeze().shape)
print("squeeze(2):           ", x.squeeze(2).shape)
print("unsqueeze(0):         ", x.unsqueeze(0).shape)
print("unsqueeze(-1):        ", x.unsqueeze(-1).shape)
print("x[None] (same as unsqueeze(0)):", x[None].shape)

# %%
# .. _basics-transpose-permute:
#
# transpose, permute, .T and .mT
# ------------------------------
# ``transpose`` swaps two dimensions, ``permute`` reorders all of them, ``.T`` is
# for 2-D tensors only (on other ranks it is deprecated) and ``.mT`` swaps the
# last two dimensions of a batch of matrices.
import torch

x = torch.zeros(2, 6, 3)
print("x.transpose(1, 2):  ", x.transpose(1, 2).shape)
print("x.permute(2, 0, 1): ", x.permute(2, 0, 1).shape)
print("x.mT:               ", x.mT.shape)
m = torch.arange(6).reshape(2, 3)
print("m.T:", m.T, sep="\n")

# %%
# .. _basics-slicing:
#
# Slicing: x[i], x[:, j], x[a:b], x[..., k], item
# -----------------------------------------------
# Slices follow NumPy rules, except that a step must be positive (``torch.flip``
# reverses, as a copy), and return views that share memory with the original;
# ``.item()`` turns a one-element tensor into a Python number.
import torch

x = torch.arange(12).reshape(3, 4)
print(x)
print("x[1]       ", x[1])
print("x[:, 1]    ", x[:, 1])
print("x[-1, 1:3] ", x[-1, 1:3])
print("x[::2, ::3]", x[::2, ::3].tolist())
print("x[..., 0]  ", x[..., 0])
print("x[1, 2].item() =", x[1, 2].item())
try:
    x[::-1]
except ValueError as err:
    print(f"x[::-1]: ValueError: {err}; torch.flip(x, [0]) instead")

row = x[0]
row[0] = 100  # writing into a slice writes into x
print("after row[0] = 100, x[0, 0] is", x[0, 0].item())

# %%
# .. _basics-boolean-mask:
#
# Boolean masks: x[mask], torch.where, masked_fill
# ------------------------------------------------
# Indexing with a boolean tensor of the same shape returns the selected elements
# as a 1-D copy, and assigning through a mask replaces them in ``x`` in place;
# ``torch.where`` and ``masked_fill`` replace values where the condition is true
# in a new tensor instead.
import torch

torch.manual_seed(0)
x = torch.randn(3, 4).round(decimals=2)
mask = x > 0
print(x)
print("x[x > 0]:", x[mask])
print("count:", mask.sum().item())
print("torch.where(x > 0, x, 0):", torch.where(mask, x, 0.0), sep="\n")
print("masked_fill(x < 0, -1):", x.masked_fill(x < 0, -1.0), sep="\n")
x[x < 0] = 0.0
print("after x[x < 0] = 0:", x, sep="\n")

# %%
# .. _basics-fancy-indexing:
#
# Index tensors: x[idx], index_select, gather
# -------------------------------------------
# An integer tensor or list picks whole rows, two of them pick ``(row, col)``
# pairs, and ``gather`` picks one element per row along a dimension.
import torch

x = torch.arange(12).reshape(3, 4)
print("x[[2, 0]]:", x[[2, 0]], sep="\n")
print("x[[0, 1, 2], [3, 2, 1]]:", x[[0, 1, 2], [3, 2, 1]])
print("index_select(dim=1):", x.index_select(1, torch.tensor([0, 3])), sep="\n")
cols = torch.tensor([[1], [0], [3]])
print("gather(1, cols):", x.gather(1, cols).flatten())

# %%
# .. _basics-cat-stack:
#
# Join tensors: cat, stack, vstack, hstack
# ----------------------------------------
# ``cat`` concatenates along an existing dimension, ``stack`` joins along a new
# one, and ``vstack``/``hstack`` are ``cat`` along the rows/columns.
import torch

a = torch.zeros(2, 3)
b = torch.ones(2, 3)
print("cat dim=0:   ", torch.cat([a, b], dim=0).shape)
print("cat dim=1:   ", torch.cat([a, b], dim=1).shape)
print("stack dim=0: ", torch.stack([a, b], dim=0).shape)
print("stack dim=-1:", torch.stack([a, b], dim=-1).shape)
print("vstack:      ", torch.vstack([a, b]).shape)
print("hstack:      ", torch.hstack([a, b]).shape)

# %%
# .. _basics-split-chunk:
#
# Cut tensors apart: split, chunk, unbind, tensor_split
# -----------------------------------------------------
# ``split`` takes a piece size (or a list of sizes), ``chunk`` a number of pieces,
# ``unbind`` removes a dimension, and ``tensor_split`` cuts at given indices; all
# return views, and the last piece of ``split``/``chunk`` may be smaller.
import torch

x = torch.arange(7)
print("split(3):            ", x.split(3))
print("split([2, 5]):       ", x.split([2, 5]))
print("chunk(3):            ", x.chunk(3))
print("tensor_split(3):     ", x.tensor_split(3))
print("tensor_split([1, 4]):", x.tensor_split([1, 4]))
rows = torch.arange(6).reshape(3, 2).unbind(dim=0)
print("unbind(dim=0):       ", rows)
