r"""
Sparse tensors
==============

Storing only the non-zero entries in the COO, CSR, CSC, BSR and BSC layouts, converting
to and from dense, and multiplying.

Summary
-------

=================================  =============================================================================================================
You want                           Call
=================================  =============================================================================================================
COO from indices and values        :entry:`torch.sparse_coo_tensor(idx, v, size) <api-torch-sparse-coo-tensor>`, ``check_invariants=True``
dense to COO                       :entry:`t.to_sparse() <api-torch-tensor-to-sparse>`, ``sparse_dim`` keeps dims dense
the indices of a COO tensor        :entry:`s.indices() <api-torch-tensor-indices>`, ``s._nnz()`` counts them
the values of a COO tensor         :entry:`s.values() <api-torch-tensor-values>`
sorted indices, duplicates summed  :entry:`s.coalesce() <api-torch-tensor-coalesce>`
any sparse layout to dense         :entry:`s.to_dense() <api-torch-tensor-to-dense>`
CSR from row pointers              :entry:`torch.sparse_csr_tensor(crow, col, v, size) <api-torch-sparse-csr-tensor>`
dense or COO to CSR                :entry:`t.to_sparse_csr() <api-torch-tensor-to-sparse-csr>`
the parts of a CSR tensor          :entry:`s.crow_indices() <api-torch-tensor-crow-indices>`, ``col_indices()``, ``values()``
CSC from column pointers           :entry:`torch.sparse_csc_tensor(ccol, row, v, size) <api-torch-sparse-csc-tensor>`
to CSC, and its parts              :entry:`t.to_sparse_csc() <api-torch-tensor-to-sparse-csc>`, ``ccol_indices()``, ``row_indices()``
CSR over dense blocks              :entry:`torch.sparse_bsr_tensor(crow, col, blocks) <api-torch-sparse-bsr-tensor>`
to BSR with a block size           :entry:`t.to_sparse_bsr((r, c)) <api-torch-tensor-to-sparse-bsr>`
CSC over dense blocks              :entry:`torch.sparse_bsc_tensor(ccol, row, blocks) <api-torch-sparse-bsc-tensor>`, ``to_sparse_bsc`` converts
a sparse-dense product             :entry:`torch.sparse.mm(s, d) <api-torch-sparse-mm>`, or ``s @ d``
dense values on a sparse pattern   :entry:`d.sparse_mask(s) <api-torch-tensor-sparse-mask>`
=================================  =============================================================================================================
"""

# %%
# .. _api-torch-sparse-coo-tensor:
#
# torch.sparse_coo_tensor
# -----------------------
# A COO tensor from a ``(ndim, nnz)`` index tensor and the matching values;
# ``check_invariants=True`` validates the indices (and silences the warning releases
# since 2.13 print without it).
import torch

idx = torch.tensor([[0, 1, 1], [2, 0, 3]])  # row indices, column indices
coo = torch.sparse_coo_tensor(
    idx, torch.tensor([5.0, 6.0, 7.0]), size=(2, 4), check_invariants=True
)
coo

# %%
# .. _api-torch-tensor-to-sparse:
#
# torch.Tensor.to_sparse
# ----------------------
# Converts a dense tensor to COO (or, with ``layout=``, to another sparse layout);
# ``sparse_dim`` keeps trailing dimensions dense.
import torch

dense = torch.tensor([[0.0, 0.0, 1.5], [2.5, 0.0, 0.0]])
print(dense.to_sparse())
dense.to_sparse(sparse_dim=1)

# %%
# .. _api-torch-tensor-indices:
#
# torch.Tensor.indices
# --------------------
# The index tensor of a coalesced COO tensor; ``_nnz()`` counts the stored
# entries.
import torch

sp = torch.tensor([[0.0, 0.0, 1.5], [2.5, 0.0, 0.0]]).to_sparse()
print(sp.indices(), sp._nnz())

# %%
# .. _api-torch-tensor-values:
#
# torch.Tensor.values
# -------------------
# The stored values of a coalesced COO tensor, in index order.
import torch

sp = torch.tensor([[0.0, 0.0, 1.5], [2.5, 0.0, 0.0]]).to_sparse()
sp.values()

# %%
# .. _api-torch-tensor-coalesce:
#
# torch.Tensor.coalesce
# ---------------------
# COO allows duplicate and unsorted indices; ``coalesce`` sorts them and sums
# duplicates, which ``indices()`` and ``values()`` require.
import torch

dup = torch.sparse_coo_tensor(
    torch.tensor([[1, 0, 1]]), torch.tensor([1.0, 2.0, 3.0]), size=(2,), check_invariants=True
)
print(dup.is_coalesced())
dup.coalesce()

# %%
# .. _api-torch-tensor-to-dense:
#
# torch.Tensor.to_dense
# ---------------------
# Back to an ordinary strided tensor, zeros filled in; works for every sparse
# layout.
import torch

coo = torch.tensor([[0.0, 0.0, 5.0, 0.0], [6.0, 0.0, 0.0, 7.0]]).to_sparse()
coo.to_dense()

# %%
# .. _api-torch-sparse-csr-tensor:
#
# torch.sparse_csr_tensor
# -----------------------
# Compressed sparse rows: ``crow_indices[i]:crow_indices[i+1]`` delimits row
# ``i``'s entries in ``col_indices`` and ``values``. Since 2.13 the first CSR, CSC,
# BSR or BSC tensor of a process warns that these layouts are in beta; the cells
# of this page catch that warning.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    csr = torch.sparse_csr_tensor(
        torch.tensor([0, 1, 3]),  # row 0 has 1 entry, row 1 has 2
        torch.tensor([2, 0, 3]),
        torch.tensor([5.0, 6.0, 7.0]),
        size=(2, 4),
        check_invariants=True,
    )
csr

# %%
# .. _api-torch-tensor-to-sparse-csr:
#
# torch.Tensor.to_sparse_csr
# --------------------------
# Converts a dense or COO tensor to CSR.
import warnings

import torch

coo = torch.tensor([[0.0, 0.0, 5.0, 0.0], [6.0, 0.0, 0.0, 7.0]]).to_sparse()

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    csr = coo.to_sparse_csr()
torch.equal(csr.to_dense(), coo.to_dense())

# %%
# .. _api-torch-tensor-crow-indices:
#
# torch.Tensor.crow_indices
# -------------------------
# The compressed row pointers of a CSR (or BSR) tensor; ``col_indices()`` and
# ``values()`` return the other two parts.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    csr = torch.tensor([[0.0, 0.0, 5.0, 0.0], [6.0, 0.0, 0.0, 7.0]]).to_sparse_csr()
print(csr.crow_indices(), csr.col_indices(), csr.values())

# %%
# .. _api-torch-sparse-csc-tensor:
#
# torch.sparse_csc_tensor
# -----------------------
# Compressed sparse columns: ``ccol_indices`` delimits each column's entries in
# ``row_indices`` and ``values``.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    csc = torch.sparse_csc_tensor(
        torch.tensor([0, 1, 1, 2, 3]),  # one entry in columns 0, 2 and 3
        torch.tensor([1, 0, 1]),
        torch.tensor([6.0, 5.0, 7.0]),
        size=(2, 4),
        check_invariants=True,
    )
csc.to_dense()

# %%
# .. _api-torch-tensor-to-sparse-csc:
#
# torch.Tensor.to_sparse_csc
# --------------------------
# Converts to CSC; ``ccol_indices()`` and ``row_indices()`` read the parts.
import warnings

import torch

coo = torch.tensor([[0.0, 0.0, 5.0, 0.0], [6.0, 0.0, 0.0, 7.0]]).to_sparse()

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    csc = coo.to_dense().to_sparse_csc()
print(csc.ccol_indices(), csc.row_indices(), csc.values())

# %%
# .. _api-torch-sparse-bsr-tensor:
#
# torch.sparse_bsr_tensor
# -----------------------
# CSR over dense blocks: each stored value is a whole ``(r, c)`` block, here
# 2x2 blocks of a 2x4 matrix.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    bsr = torch.sparse_bsr_tensor(
        torch.tensor([0, 1]),  # one block row holding one block
        torch.tensor([1]),  # in block column 1
        torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]),
        size=(2, 4),
        check_invariants=True,
    )
bsr.to_dense()

# %%
# .. _api-torch-tensor-to-sparse-bsr:
#
# torch.Tensor.to_sparse_bsr
# --------------------------
# Converts to BSR with the given block size, which must divide the shape.
import warnings

import torch

block_dense = torch.zeros(4, 4)
block_dense[2:, :2] = 1.0
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    bsr = block_dense.to_sparse_bsr((2, 2))
print(bsr.crow_indices(), bsr.col_indices(), bsr.values().shape)

# %%
# .. _api-torch-sparse-bsc-tensor:
#
# torch.sparse_bsc_tensor
# -----------------------
# CSC over dense blocks (``to_sparse_bsc`` converts).
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Sparse .* in beta state")
    bsc = torch.sparse_bsc_tensor(
        torch.tensor([0, 0, 1]),  # block column 0 empty, block column 1 has one block
        torch.tensor([0]),
        torch.full((1, 2, 2), 9.0),
        size=(2, 4),
        check_invariants=True,
    )
bsc.to_dense()

# %%
# .. _api-torch-sparse-mm:
#
# torch.sparse.mm
# ---------------
# Sparse times dense (or sparse) matrix product; ``@`` does the same when an
# operand is sparse.
import torch

coo = torch.tensor([[0.0, 0.0, 5.0, 0.0], [6.0, 0.0, 0.0, 7.0]]).to_sparse()
rhs = torch.ones(4, 2)
print(torch.sparse.mm(coo, rhs))
torch.equal(coo @ rhs, coo.to_dense() @ rhs)

# %%
# .. _api-torch-tensor-sparse-mask:
#
# torch.Tensor.sparse_mask
# ------------------------
# Keeps the entries of a dense tensor at the positions stored in a sparse one,
# as a sparse tensor with that pattern.
import torch

coo = torch.tensor([[0.0, 0.0, 5.0, 0.0], [6.0, 0.0, 0.0, 7.0]]).to_sparse()
full = torch.arange(8.0).reshape(2, 4)
full.sparse_mask(coo.coalesce())
