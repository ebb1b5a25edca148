r"""
Linear algebra and Fourier transforms
=====================================

Products, ``torch.linalg`` and ``torch.fft``; the ``linalg`` and ``fft`` functions treat
leading dimensions as a batch, while ``dot``, ``mm`` and ``mv`` take exactly 1-D or 2-D
inputs.

Summary
-------

====================================  ====================================================================================
You want                              Call
====================================  ====================================================================================
a diagonal matrix, or a diagonal      :entry:`torch.diag(t) <api-torch-diag>`, ``diagonal`` for a view
the dot product of two vectors        :entry:`torch.dot(a, b) <api-torch-dot>`, ``inner`` and ``@`` generalise it
the outer product                     :entry:`torch.outer(a, b) <api-torch-outer>`
strictly 2-D products                 :entry:`torch.mm(A, B) <api-torch-mm>`, ``torch.mv(A, v)``
``beta * C + alpha * A @ B``          :entry:`torch.addmm(C, A, B) <api-torch-addmm>`, ``baddbmm`` batched
the Kronecker product                 :entry:`torch.kron(A, B) <api-torch-kron>`
a contraction over chosen dimensions  :entry:`torch.tensordot(x, y, dims) <api-torch-tensordot>`
the 3-D cross product                 :entry:`torch.linalg.cross(a, b) <api-torch-linalg-cross>`
the conjugate transpose               :entry:`t.mH <api-torch-tensor-mh>`, ``adjoint()``; ``.mT`` no conjugate
vector norms                          :entry:`torch.linalg.vector_norm(t, ord) <api-torch-linalg-vector-norm>`
matrix norms                          :entry:`torch.linalg.matrix_norm(A, ord) <api-torch-linalg-matrix-norm>`
the numerical rank                    :entry:`torch.linalg.matrix_rank(A) <api-torch-linalg-matrix-rank>`
the determinant                       :entry:`torch.linalg.det(A) <api-torch-linalg-det>`, ``slogdet`` for large ones
the inverse                           :entry:`torch.linalg.inv(A) <api-torch-linalg-inv>`
``x`` with ``A @ x = b``              :entry:`torch.linalg.solve(A, b) <api-torch-linalg-solve>`
the least-squares ``x``               :entry:`torch.linalg.lstsq(A, b) <api-torch-linalg-lstsq>`, not ``torch.lstsq``
``L`` with ``L @ L.mH = A``           :entry:`torch.linalg.cholesky(A) <api-torch-linalg-cholesky>`
``Q`` and ``R``                       :entry:`torch.linalg.qr(A) <api-torch-linalg-qr>`
eigenpairs of a symmetric matrix      :entry:`torch.linalg.eigh(A) <api-torch-linalg-eigh>`, ``eig`` for any matrix
``U``, ``S``, ``Vh``                  :entry:`torch.linalg.svd(A) <api-torch-linalg-svd>`, ``svdvals`` for ``S`` only
the DFT of a signal                   :entry:`torch.fft.fft(x) <api-torch-fft-fft>`
the inverse DFT                       :entry:`torch.fft.ifft(X) <api-torch-fft-ifft>`
the DFT of a real signal              :entry:`torch.fft.rfft(x) <api-torch-fft-rfft>`
a real signal back                    :entry:`torch.fft.irfft(X, n) <api-torch-fft-irfft>`
n-dimensional transforms              :entry:`torch.fft.fftn(x) <api-torch-fft-fftn>`, ``fft2`` for the last two
an n-dimensional real signal back     :entry:`torch.fft.irfftn(X, s) <api-torch-fft-irfftn>`
the frequency of each bin             :entry:`torch.fft.fftfreq(n, d) <api-torch-fft-fftfreq>`, ``rfftfreq``, ``fftshift``
====================================  ====================================================================================
"""

# %%
# .. _api-torch-diag:
#
# torch.diag
# ----------
# A vector becomes a diagonal matrix, a matrix gives back its diagonal;
# ``diagonal`` is the view-returning, batch-aware reader.
import torch

print(torch.diag(torch.tensor([1, 2, 3])))
torch.diag(torch.tensor([[1, 2], [3, 4]]))

# %%
# .. _api-torch-dot:
#
# torch.dot
# ---------
# The dot product of two 1-D tensors and nothing else: it refuses matrices
# instead of broadcasting (``torch.inner`` and ``@`` generalise it).
import torch

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([4.0, 5.0, 6.0])
print(torch.dot(a, b), torch.inner(a, b), a @ b)
try:
    torch.dot(a.reshape(1, 3), b.reshape(3, 1))
except RuntimeError as err:
    print("RuntimeError:", err)

# %%
# .. _api-torch-outer:
#
# torch.outer
# -----------
# Every product ``a[i] * b[j]`` as a matrix, a rank-1 matrix; the same as
# ``a[:, None] * b[None, :]``.
import torch

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([1.0, -1.0])
torch.outer(a, b)

# %%
# .. _api-torch-mm:
#
# torch.mm and torch.mv
# ---------------------
# Matrix times matrix and matrix times vector, strictly 2-D (and 1-D): no
# broadcasting and no batches, unlike ``torch.matmul``.
import torch

A = torch.arange(6.0).reshape(2, 3)
B = torch.arange(12.0).reshape(3, 4)
print(torch.mm(A, B))
torch.mv(A, torch.tensor([1.0, 0.0, -1.0]))

# %%
# .. _api-torch-addmm:
#
# torch.addmm
# -----------
# ``beta * input + alpha * (m1 @ m2)`` in one call, the fused form of a linear
# layer with bias; ``baddbmm`` is the batched version.
import torch

A = torch.arange(6.0).reshape(2, 3)
B = torch.arange(12.0).reshape(3, 4)
bias = torch.ones(2, 4)
fused = torch.addmm(bias, A, B, beta=0.5, alpha=2.0)
print(fused)
torch.equal(fused, 0.5 * bias + 2.0 * (A @ B))

# %%
# .. _api-torch-kron:
#
# torch.kron
# ----------
# The Kronecker product: each entry of the first tensor scales a whole copy of
# the second, here giving a block-diagonal matrix.
import torch

torch.kron(torch.eye(2), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))

# %%
# .. _api-torch-tensordot:
#
# torch.tensordot
# ---------------
# Sums products over the listed pairs of dimensions, here dims 1 and 2 of ``x``
# against dims 1 and 0 of ``y``; the dimensions left over form the result.
import torch

x = torch.ones(2, 3, 4)
y = torch.ones(4, 3, 5)
out = torch.tensordot(x, y, dims=([1, 2], [1, 0]))
print(out.shape, out[0, 0].item())  # 3 * 4 products of ones summed

# %%
# .. _api-torch-linalg-cross:
#
# torch.linalg.cross
# ------------------
# The 3-D cross product along ``dim`` (last by default), batched and
# broadcasting; x cross y is z.
import torch

torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0]))

# %%
# .. _api-torch-tensor-mh:
#
# torch.Tensor.mH
# ---------------
# The conjugate transpose of the last two dimensions (``adjoint()`` is the method
# form; ``.mT`` transposes without conjugating).
import torch

c = torch.tensor([[1 + 1j, 2], [0, 3 - 2j]])
print(c.mH)
torch.equal(c.mH, c.adjoint())

# %%
# .. _api-torch-linalg-vector-norm:
#
# torch.linalg.vector_norm
# ------------------------
# The ``ord``-norm of all elements, or along ``dim`` (2 by default; ``inf`` is
# the largest magnitude).
import torch

v = torch.tensor([[3.0, -4.0], [1.0, 1.0]])
print(torch.linalg.vector_norm(v), torch.linalg.vector_norm(v, dim=1))
torch.linalg.vector_norm(v, ord=float("inf"))

# %%
# .. _api-torch-linalg-matrix-norm:
#
# torch.linalg.matrix_norm
# ------------------------
# Norms of matrices: Frobenius by default, ``"nuc"`` (sum of singular values),
# ``2`` (largest singular value), ``1`` and ``inf`` (the largest sum of absolute
# values in a column, and in a row).
import torch

v = torch.tensor([[3.0, -4.0], [1.0, 1.0]])
for order in ("fro", "nuc", 2, 1):
    print(order, torch.linalg.matrix_norm(v, ord=order))

# %%
# .. _api-torch-linalg-matrix-rank:
#
# torch.linalg.matrix_rank
# ------------------------
# The number of singular values above a tolerance.
import torch

low_rank = torch.outer(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, -1.0, 0.5]))
print(torch.linalg.matrix_rank(low_rank), torch.linalg.matrix_rank(torch.eye(3)))

# %%
# .. _api-torch-linalg-det:
#
# torch.linalg.det
# ----------------
# The determinant (``slogdet`` returns sign and log-magnitude, safer for large
# matrices).
import torch

A = torch.tensor([[4.0, 1.0], [2.0, 3.0]])
torch.linalg.det(A)

# %%
# .. _api-torch-linalg-inv:
#
# torch.linalg.inv
# ----------------
# The inverse of a square matrix, raising for a singular one (to solve a system,
# ``solve`` is faster and more accurate than multiplying by the inverse).
import torch

A = torch.tensor([[4.0, 1.0], [2.0, 3.0]])
print(torch.linalg.inv(A))
try:
    torch.linalg.inv(torch.ones(2, 2))
except RuntimeError as err:
    print("RuntimeError:", str(err).split(":")[-1].strip())

# %%
# .. _api-torch-linalg-solve:
#
# torch.linalg.solve
# ------------------
# The ``x`` with ``A @ x = b`` for square, invertible ``A``.
import torch

A = torch.tensor([[4.0, 1.0], [2.0, 3.0]])
b = torch.tensor([9.0, 13.0])
x = torch.linalg.solve(A, b)
print(x, A @ x)

# %%
# .. _api-torch-linalg-lstsq:
#
# torch.linalg.lstsq
# ------------------
# Least-squares solution of an over- or under-determined system, here a line
# through three points; the old ``torch.lstsq`` (arguments in the other order)
# is still importable but only raises, pointing here.
import torch

X = torch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])  # columns: intercept, slope
y = torch.tensor([[1.0], [3.0], [4.0]])
print(torch.linalg.lstsq(X, y).solution.flatten())
try:
    torch.lstsq(y, X)
except RuntimeError as err:
    print("torch.lstsq -> RuntimeError:", str(err).splitlines()[0])

# %%
# .. _api-torch-linalg-cholesky:
#
# torch.linalg.cholesky
# ---------------------
# The lower-triangular ``L`` with ``L @ L.mH == A`` for a symmetric (Hermitian)
# positive-definite ``A``; ``cholesky_ex`` reports failure without raising.
import torch

S = torch.tensor([[4.0, 2.0], [2.0, 5.0]])
L = torch.linalg.cholesky(S)
print(L)
torch.allclose(L @ L.mT, S)

# %%
# .. _api-torch-linalg-qr:
#
# torch.linalg.qr
# ---------------
# ``Q`` with orthonormal columns and upper-triangular ``R`` such that
# ``Q @ R == A`` (``mode="reduced"`` by default).
import torch

X = torch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
Q, R = torch.linalg.qr(X)
print(R)
print(torch.allclose(Q @ R, X, atol=1e-6), torch.allclose(Q.mT @ Q, torch.eye(2), atol=1e-6))

# %%
# .. _api-torch-linalg-eigh:
#
# torch.linalg.eigh
# -----------------
# Eigenvalues (ascending) and eigenvectors of a symmetric or Hermitian matrix;
# ``eigvalsh`` returns the values only, ``eig`` handles general matrices.
import torch

vals, vecs = torch.linalg.eigh(torch.tensor([[2.0, 1.0], [1.0, 2.0]]))
print(vals)
vecs

# %%
# .. _api-torch-linalg-svd:
#
# torch.linalg.svd
# ----------------
# ``U``, ``S``, ``Vh`` with ``A = U @ diag(S) @ Vh``, singular values in
# descending order; ``full_matrices=False`` gives the thin factors and
# ``svdvals`` only ``S``.
import torch

X = torch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
U, S_, Vh = torch.linalg.svd(X, full_matrices=False)
print(U.shape, S_, Vh.shape)
torch.allclose(U @ torch.diag(S_) @ Vh, X, atol=1e-6)

# %%
# .. _api-torch-fft-fft:
#
# torch.fft.fft
# -------------
# The discrete Fourier transform of a signal (last dimension by default), always
# complex; ``n=`` pads or trims first.
import torch

signal = torch.tensor([1.0, 2.0, 0.0, -1.0])
torch.fft.fft(signal)

# %%
# .. _api-torch-fft-ifft:
#
# torch.fft.ifft
# --------------
# The inverse transform: ``ifft(fft(x))`` gives ``x`` back (as complex).
import torch

signal = torch.tensor([1.0, 2.0, 0.0, -1.0])
torch.fft.ifft(torch.fft.fft(signal))

# %%
# .. _api-torch-fft-rfft:
#
# torch.fft.rfft
# --------------
# For real input, only the ``n // 2 + 1`` non-redundant frequencies.
import torch

signal = torch.tensor([1.0, 2.0, 0.0, -1.0])
torch.fft.rfft(signal)

# %%
# .. _api-torch-fft-irfft:
#
# torch.fft.irfft
# ---------------
# Inverse of ``rfft``, returning a real signal; pass ``n`` to recover odd
# lengths, which the half spectrum cannot tell apart.
import torch

odd = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
half = torch.fft.rfft(odd)
print(torch.fft.irfft(half).shape, torch.fft.irfft(half, n=odd.numel()))

# %%
# .. _api-torch-fft-fftn:
#
# torch.fft.fftn
# --------------
# The transform over several dimensions at once (all by default; ``fft2`` does
# the last two), equal to 1-D transforms applied one dimension at a time.
import torch

torch.manual_seed(0)
img = torch.randn(4, 6)
separable = torch.fft.fft(torch.fft.fft(img, dim=0), dim=1)
torch.testing.assert_close(torch.fft.fftn(img), separable)
print(torch.fft.fftn(img).shape, torch.allclose(torch.fft.fft2(img), torch.fft.fftn(img)))

# %%
# .. _api-torch-fft-irfftn:
#
# torch.fft.irfftn
# ----------------
# Inverse of ``rfftn``; pass the original size with ``s=`` so odd sizes come back
# exactly.
import torch

torch.manual_seed(0)
vol = torch.randn(3, 5)
back = torch.fft.irfftn(torch.fft.rfftn(vol), s=vol.shape)
print(back.shape, torch.allclose(back, vol, atol=1e-6))

# %%
# .. _api-torch-fft-fftfreq:
#
# torch.fft.fftfreq
# -----------------
# The frequency of each ``fft`` output bin for ``n`` samples spaced ``d`` apart
# (``rfftfreq`` matches ``rfft``; ``fftshift`` centres zero frequency).
import torch

print(torch.fft.fftfreq(4, d=0.5))
torch.fft.fftshift(torch.fft.fftfreq(4, d=0.5))
