r"""
Math and reductions
===================

Element-wise math with broadcasting, matrix products, in-place updates, and
reductions over the whole tensor or one dimension.

Summary
-------

=============================  ==================================================
You want                       Call
=============================  ==================================================
element-wise math              :entry:`a + b <basics-arithmetic>`, ``- * / ** //``, ``torch.add``, ``x.sqrt()``, ``x.clamp()``
to combine different shapes    :entry:`broadcasting <basics-broadcasting>`: size-1 or missing dimensions stretch
matrix products                :entry:`a @ b <basics-matmul>`, ``torch.matmul``, ``torch.bmm``, ``torch.einsum``
to overwrite in place          :entry:`x.add_(1) <basics-inplace>`, ``mul_``, ``zero_``, ``fill_``
one number from a tensor       :entry:`x.sum() <basics-reductions>`, ``mean``, ``std``, ``max``, ``.item()``
where the extreme is           :entry:`x.argmax() <basics-reductions>`, ``argmin``, ``x.topk(k)``
a reduction per row or column  :entry:`x.sum(dim=1) <basics-reduce-dim>`, ``keepdim=True``
values and positions           :entry:`values, indices = x.max(dim=1) <basics-max-dim>`
cosine of every pair of rows   :entry:`F.normalize(a, dim=1) @ F.normalize(b, dim=1).T <basics-cosine-similarity-matrix>`
=============================  ==================================================
"""

# %%
# .. _basics-arithmetic:
#
# Element-wise arithmetic: + - * / ** and torch.add
# -------------------------------------------------
# The operators work element by element and have function forms (``torch.add``,
# ``torch.mul``, ...); dividing integers with ``/`` always returns floats.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([[10.0, 20.0], [30.0, 40.0]])
print("x + y:", (x + y).tolist(), "=", torch.add(x, y).tolist())
print("y - x:", (y - x).tolist())
print("x * y:", (x * y).tolist(), "=", torch.mul(x, y).tolist())
print("y / x:", (y / x).tolist())
print("x ** 2:", (x**2).tolist())
print("7 / 2 on ints:", torch.tensor(7) / 2, "| floor:", torch.tensor(7) // 2)
print("sqrt, exp, clamp:", x.sqrt()[0], x.exp()[0], x.clamp(max=2.5)[1])

# %%
# .. _basics-broadcasting:
#
# Broadcasting
# ------------
# Shapes are compared from the right, and a dimension of size 1 (or a missing one)
# is stretched to match, so a row vector adds to every row without a copy.
import torch

grid = torch.zeros(3, 4)
row = torch.arange(4.0)  # shape (4,)   -> stretched to (3, 4)
col = torch.arange(3.0)[:, None]  # shape (3, 1) -> stretched to (3, 4)
print(grid + row + 10 * col)
try:
    grid + torch.ones(3)
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")

# %%
# .. _basics-matmul:
#
# Matrix products: @, matmul, bmm, einsum
# ---------------------------------------
# ``@`` is ``torch.matmul``, which broadcasts over leading batch dimensions;
# ``bmm`` accepts exactly 3-D batches; ``einsum`` spells the contraction out by index.
import torch

torch.manual_seed(0)
a = torch.randn(8, 2, 3)  # a batch of 8 matrices of shape 2x3
b = torch.randn(8, 3, 4)
c1 = a @ b
c2 = torch.matmul(a, b)
c3 = torch.bmm(a, b)
c4 = torch.einsum("bij,bjk->bik", a, b)
print("shape:", c1.shape)
print("all four agree:", all(torch.allclose(c1, c) for c in (c2, c3, c4)))
print("matrix @ vector:", (a[0] @ torch.ones(3)).shape)
print("shared weight on a batch:", (a @ torch.randn(3, 5)).shape)
print(
    "einsum outer product:", torch.einsum("i,j->ij", torch.arange(2.0), torch.arange(3.0)), sep="\n"
)

# %%
# .. _basics-inplace:
#
# In-place operations: ``add_`` and friends
# -----------------------------------------
# A trailing underscore means the method overwrites its tensor instead of
# allocating a new one; autograd refuses some of these, see :ref:`basics-inplace-autograd`.
import torch

y = torch.ones(2, 2)
address = y.data_ptr()
y.add_(1)
print("add_(1):   ", y.tolist())
y.mul_(3)
print("mul_(3):   ", y.tolist())
y.clamp_(max=5)
print("clamp_(5): ", y.tolist())
y.fill_(7)
print("fill_(7):  ", y.tolist())
y.zero_()
print("zero_():   ", y.tolist())
print("same memory throughout:", y.data_ptr() == address)

# %%
# .. _basics-reductions:
#
# Reductions: sum, mean, max, argmax
# ----------------------------------
# Without ``dim`` a reduction collapses the whole tensor into a 0-d tensor;
# ``mean`` and ``std`` need a floating-point dtype.
import torch

x = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
print("sum:   ", x.sum())
print("mean:  ", x.mean())
print("std:   ", x.std())
print("max:   ", x.max(), "min:", x.min())
print("argmax:", x.argmax(), "(index into the flattened tensor)")
print("argmin:", x.argmin())
print("prod:  ", x.prod(), "| as a Python float:", x.prod().item())

# %%
# .. _basics-reduce-dim:
#
# Reduce along a dimension: dim=, keepdim=True
# --------------------------------------------
# ``dim`` names the dimension that disappears; ``keepdim=True`` keeps it with size 1,
# which lets the result broadcast back against the input.
import torch

x = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
print("sum(dim=0):", x.sum(dim=0), x.sum(dim=0).shape)
print("sum(dim=1):", x.sum(dim=1), x.sum(dim=1).shape)
print("sum(dim=-1, keepdim=True):", x.sum(dim=-1, keepdim=True).shape)
print("rows scaled to sum to 1:", x / x.sum(dim=1, keepdim=True), sep="\n")
print("mean over both dims:", x.mean(dim=(0, 1)))

# %%
# .. _basics-max-dim:
#
# max(dim) returns values and indices
# -----------------------------------
# With a ``dim``, ``max`` and ``min`` return a named tuple of the values and the
# positions where they were found, which unpacks like an ordinary tuple.
import torch

x = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
result = x.max(dim=1)
print(result)
values, indices = result
print("values:", values, "indices:", indices)
print("same indices as argmax(dim=1):", torch.equal(indices, x.argmax(dim=1)))
print("top-2 per row:", x.topk(2, dim=1).values.tolist())

# %%
# .. _basics-cosine-similarity-matrix:
#
# Cosine similarity of every pair of rows
# ---------------------------------------
# ``F.cosine_similarity(a, b)`` pairs row ``i`` of ``a`` with row ``i`` of ``b`` only.
# For the whole ``n × m`` matrix of every row of ``a`` against every row of ``b``,
# scale the rows to unit length and take one matrix product: entry ``(i, j)`` is then
# the cosine of row ``i`` and row ``j``. Broadcasting ``cosine_similarity`` over a new
# dimension gives the same matrix, but builds an ``n × m × d`` intermediate first.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
a = torch.randn(4, 16)  # 4 vectors of 16 features
b = torch.randn(3, 16)  # 3 vectors
sim = F.normalize(a, dim=1) @ F.normalize(b, dim=1).T  # (4, 3)
broadcast = F.cosine_similarity(a[:, None, :], b[None, :, :], dim=-1)
print("shape:", tuple(sim.shape))
print("matches broadcast cosine_similarity:", torch.allclose(sim, broadcast, atol=1e-6))
print(
    "a against itself has ones on the diagonal:",
    torch.allclose((F.normalize(a, dim=1) @ F.normalize(a, dim=1).T).diagonal(), torch.ones(4)),
)
print("most similar row of b for each row of a:", sim.argmax(dim=1).tolist())
