r"""
NumPy and PyTorch side by side
==============================

The PyTorch spelling of the NumPy you already write, each row run in both libraries on
this page with its results compared, and the places where the two differ shown.

Summary
-------

======================================  =======================================================================================
You want                                Call
======================================  =======================================================================================
``np.array([[1, 2], [3, 4]])``          :entry:`torch.tensor([[1, 2], [3, 4]]) <basics-np-creation>`
``np.zeros((2, 3))``                    :entry:`torch.zeros(2, 3) <basics-np-creation>` (float32, not float64)
``np.full((2, 2), 7.0)``, ``np.eye``    :entry:`torch.full((2, 2), 7.0) <basics-np-creation>`, ``torch.eye(3)``
``np.arange``, ``np.linspace``          :entry:`torch.arange(0, 1, 0.25) <basics-np-creation>`, ``torch.linspace(0, 1, 5)``
``np.zeros_like(a)``, ``np.copy(a)``    :entry:`torch.zeros_like(t) <basics-np-creation>`, ``t.clone()``
``np.diag``, ``np.tri``                 :entry:`torch.diag(v) <basics-np-creation>`, ``torch.tril(torch.ones(3, 3))``
``np.meshgrid(x, y)``                   :entry:`torch.meshgrid(x, y, indexing="xy") <basics-np-creation>`
``a[::-1]`` (a negative step)           :entry:`torch.flip(t, dims=[0]) <basics-np-indexing>`: ``t[::-1]`` raises
``a[a > 2]``, ``a[[0, 2]]``             :entry:`t[t > 2] <basics-np-indexing>`, ``t[[0, 2]]``
``np.where(a > 2, a, 0)``               :entry:`torch.where(t > 2, t, 0) <basics-np-indexing>`
``np.nonzero(a)``, ``np.argwhere(a)``   :entry:`torch.nonzero(t, as_tuple=True) <basics-np-indexing>`, ``torch.argwhere(t)``
``np.take_along_axis(a, i, axis=1)``    :entry:`torch.gather(t, 1, i) <basics-np-indexing>`
``np.clip(a, 1, 4)``                    :entry:`torch.clamp(t, 1, 4) <basics-np-indexing>`
``np.isin(a, [1, 4])``                  :entry:`torch.isin(t, torch.tensor([1, 4])) <basics-np-indexing>`
``a.reshape(3, 2)``, ``a.T``            :entry:`t.reshape(3, 2) <basics-np-reshaping>`, ``t.T`` (2-D), ``t.mT``
``np.transpose(a, (1, 0, 2))``          :entry:`t.permute(1, 0, 2) <basics-np-reshaping>`
``np.expand_dims(a, 0)``                :entry:`t.unsqueeze(0) <basics-np-reshaping>`
``np.swapaxes``, ``np.moveaxis``        :entry:`t.transpose(0, 1) <basics-np-reshaping>`, ``torch.movedim``
``np.repeat(a, 2, axis=0)``             :entry:`t.repeat_interleave(2, dim=0) <basics-np-reshaping>`
``np.tile(a, (2, 1))``                  :entry:`t.repeat(2, 1) <basics-np-reshaping>`, ``torch.tile``
``np.broadcast_to(a, shape)``           :entry:`t.expand(shape) <basics-np-reshaping>`
``np.concatenate([a, b], axis=1)``      :entry:`torch.cat([t, u], dim=1) <basics-np-joining>`
``np.stack``, ``np.vstack``             :entry:`torch.stack <basics-np-joining>`, ``torch.vstack``
``np.split(a, 3)``                      :entry:`torch.tensor_split(t, 3) <basics-np-joining>`, not ``torch.split``
``np.arctan2``, ``np.arccos``           :entry:`torch.atan2 <basics-np-math>`, ``torch.acos``
``np.round(a, 2)``                      :entry:`torch.round(t, decimals=2) <basics-np-math>`
``np.maximum(a, b)``                    :entry:`torch.maximum(t, u) <basics-np-math>`
``np.isclose``, ``np.allclose``         :entry:`torch.isclose <basics-np-math>`, ``torch.allclose``
``a.sum(axis=0)``                       :entry:`t.sum(dim=0) <basics-np-reductions>`
``a.mean(axis=1, keepdims=True)``       :entry:`t.mean(dim=1, keepdim=True) <basics-np-reductions>`
``a.max(axis=0)``                       :entry:`t.amax(dim=0) <basics-np-reductions>`: ``t.max(dim=0)`` also gives indices
``np.percentile(a, 90)``                :entry:`torch.quantile(t, 0.9) <basics-np-reductions>`
``np.sort``, ``np.unique``              :entry:`torch.sort(t).values <basics-np-reductions>`, ``torch.unique``
``np.std(a)``                           :entry:`t.std(correction=0) <basics-np-std-median>`
``np.median(a)``                        :entry:`torch.quantile(t, 0.5) <basics-np-std-median>`: ``t.median()`` is the lower one
``a @ b``, ``np.dot`` of matrices       :entry:`t @ u <basics-np-linalg>`, ``torch.matmul`` (``torch.dot`` is 1-D only)
``np.linalg.inv``, ``np.linalg.solve``  :entry:`torch.linalg.inv <basics-np-linalg>`, ``torch.linalg.solve``
``np.linalg.norm(a, axis=1)``           :entry:`torch.linalg.vector_norm(t, dim=1) <basics-np-linalg>`
``np.linalg.lstsq(a, b)``               :entry:`torch.linalg.lstsq(t, u).solution <basics-np-linalg>`
``np.einsum``, ``np.outer``             :entry:`torch.einsum <basics-np-linalg>`, ``torch.outer``
``a[:, None] - b[None, :]``             :entry:`t[:, None] - u[None, :] <basics-np-broadcasting>`
``np.broadcast_shapes``                 :entry:`torch.broadcast_shapes <basics-np-broadcasting>`
``np.random.default_rng(0)``            :entry:`torch.Generator().manual_seed(0) <basics-np-random>`
``rng.integers(0, 10, 5)``              :entry:`torch.randint(0, 10, (5,)) <basics-np-random>`
``rng.choice(10, 3, replace=False)``    :entry:`torch.randperm(10)[:3] <basics-np-random>`
``rng.choice(3, 5, p=p)``               :entry:`torch.multinomial(p, 5, replacement=True) <basics-np-random>`
the same random numbers in both         :entry:`torch.from_numpy(rng.random(3)) <basics-np-random>`
NumPy's dtype for a result              :entry:`check it per row <basics-np-dtypes>`: int64 with float32 gives float32
``a.mean()`` of integers                :entry:`t.float().mean() <basics-np-dtypes>`: ``t.mean()`` raises
======================================  =======================================================================================
"""

# %%
# .. _basics-np-creation:
#
# Creating arrays: np.zeros, np.arange, np.linspace, np.eye
# ---------------------------------------------------------
# The names mostly carry over, sizes can be given without a tuple, and a floating
# tensor is ``float32`` where NumPy gives ``float64``. ``torch.meshgrid`` indexes
# ``"ij"`` unless told ``indexing="xy"``, NumPy's default.
import numpy as np
import torch

x, y = np.array([1, 2, 3]), np.array([10, 20])
rows = {
    "np.array([[1, 2], [3, 4]])": (np.array([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 4]])),
    "np.array([0.5, 1.5])": (np.array([0.5, 1.5]), torch.tensor([0.5, 1.5])),
    "np.zeros((2, 3))": (np.zeros((2, 3)), torch.zeros(2, 3)),
    "np.ones((2, 3), dtype=np.int64)": (
        np.ones((2, 3), np.int64),
        torch.ones(2, 3, dtype=torch.int64),
    ),
    "np.full((2, 2), 7.0)": (np.full((2, 2), 7.0), torch.full((2, 2), 7.0)),
    "np.eye(3)": (np.eye(3), torch.eye(3)),
    "np.arange(5)": (np.arange(5), torch.arange(5)),
    "np.arange(0, 1, 0.25)": (np.arange(0, 1, 0.25), torch.arange(0, 1, 0.25)),
    "np.linspace(0, 1, 5)": (np.linspace(0, 1, 5), torch.linspace(0, 1, 5)),
    "np.logspace(0, 2, 3)": (np.logspace(0, 2, 3), torch.logspace(0, 2, 3)),
    "np.zeros_like(x)": (np.zeros_like(x), torch.zeros_like(torch.tensor(x))),
    "np.copy(x)": (np.copy(x), torch.tensor(x).clone()),
    "np.diag([1, 2, 3])": (np.diag([1, 2, 3]), torch.diag(torch.tensor([1, 2, 3]))),
    "np.tri(3)": (np.tri(3), torch.tril(torch.ones(3, 3))),
    "np.meshgrid(x, y)": (
        np.stack(np.meshgrid(x, y)),
        torch.stack(torch.meshgrid(torch.tensor(x), torch.tensor(y), indexing="xy")),
    ),
}
print(f"{'NumPy':<32} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<32} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")

# %%
# .. _basics-np-indexing:
#
# Indexing and masks: a[a > 2], np.where, np.take_along_axis
# ----------------------------------------------------------
# Slices, masks and integer lists index as in NumPy; a negative step does not, so
# ``a[::-1]`` becomes ``torch.flip``, and ``np.take_along_axis`` is ``torch.gather``.
import numpy as np
import torch

a = np.array([[1, 5, 2], [4, 0, 3]])
t = torch.tensor(a)
i = np.array([[2, 0], [1, 1]])
rows = {
    "a[1]": (a[1], t[1]),
    "a[:, 1:]": (a[:, 1:], t[:, 1:]),
    "a[..., None]": (a[..., None], t[..., None]),
    "a[::-1]": (a[::-1], torch.flip(t, dims=[0])),
    "a[a > 2]": (a[a > 2], t[t > 2]),
    "a[[0, 1], [2, 0]]": (a[[0, 1], [2, 0]], t[[0, 1], [2, 0]]),
    "np.where(a > 2, a, 0)": (np.where(a > 2, a, 0), torch.where(t > 2, t, 0)),
    "np.nonzero(a)": (np.stack(np.nonzero(a)), torch.stack(torch.nonzero(t, as_tuple=True))),
    "np.argwhere(a)": (np.argwhere(a), torch.argwhere(t)),
    "np.take_along_axis(a, i, 1)": (
        np.take_along_axis(a, i, 1),
        torch.gather(t, 1, torch.tensor(i)),
    ),
    "np.clip(a, 1, 4)": (np.clip(a, 1, 4), torch.clamp(t, 1, 4)),
    "np.isin(a, [1, 4])": (np.isin(a, [1, 4]), torch.isin(t, torch.tensor([1, 4]))),
}
print(f"{'NumPy':<28} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<28} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
try:
    t[::-1]
except ValueError as err:
    print(f"t[::-1] raises {type(err).__name__}: {err}")

# %%
# .. _basics-np-reshaping:
#
# Reshaping: reshape, transpose, expand_dims, np.repeat and np.tile
# -----------------------------------------------------------------
# Axes are ``dim`` in PyTorch. Two names swap meaning: NumPy's ``repeat`` (each
# element in turn) is ``repeat_interleave``, and NumPy's ``tile`` (the whole array
# again) is ``Tensor.repeat``. ``expand`` gives a view, like ``np.broadcast_to``.
import numpy as np
import torch

a = np.arange(6).reshape(2, 3)
t = torch.tensor(a)
c = np.arange(24).reshape(2, 3, 4)
rows = {
    "a.reshape(3, 2)": (a.reshape(3, 2), t.reshape(3, 2)),
    "a.reshape(-1)": (a.reshape(-1), t.reshape(-1)),
    "a.T": (a.T, t.T),
    "a.flatten()": (a.flatten(), t.flatten()),
    "np.transpose(c, (1, 0, 2))": (np.transpose(c, (1, 0, 2)), torch.tensor(c).permute(1, 0, 2)),
    "np.swapaxes(c, 0, 2)": (np.swapaxes(c, 0, 2), torch.tensor(c).transpose(0, 2)),
    "np.moveaxis(c, 0, -1)": (np.moveaxis(c, 0, -1), torch.movedim(torch.tensor(c), 0, -1)),
    "np.expand_dims(a, 0)": (np.expand_dims(a, 0), t.unsqueeze(0)),
    "np.squeeze(a[None])": (np.squeeze(a[None]), t[None].squeeze()),
    "np.repeat(a, 2, axis=0)": (np.repeat(a, 2, axis=0), t.repeat_interleave(2, dim=0)),
    "np.tile(a, (2, 1))": (np.tile(a, (2, 1)), t.repeat(2, 1)),
    "np.broadcast_to(a, (4, 2, 3))": (np.broadcast_to(a, (4, 2, 3)), t.expand(4, 2, 3)),
}
print(f"{'NumPy':<30} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<30} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
print(
    "t.repeat(2, 1) equals np.repeat(a, 2, axis=0):",
    np.array_equal(np.repeat(a, 2, axis=0), t.repeat(2, 1)),
)

# %%
# .. _basics-np-joining:
#
# Joining and splitting: np.concatenate, np.stack, np.split
# ---------------------------------------------------------
# ``np.concatenate`` is ``torch.cat``. ``np.split(a, 3)`` makes three pieces, and so
# does ``torch.tensor_split(t, 3)``; ``torch.split(t, 3)`` makes pieces *of size* 3.
import numpy as np
import torch

a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
t, u = torch.tensor(a), torch.tensor(b)
v = np.arange(6)
rows = {
    "np.concatenate([a, b])": (np.concatenate([a, b]), torch.cat([t, u])),
    "np.concatenate([a, b], axis=1)": (np.concatenate([a, b], axis=1), torch.cat([t, u], dim=1)),
    "np.stack([a, b])": (np.stack([a, b]), torch.stack([t, u])),
    "np.vstack([a, b])": (np.vstack([a, b]), torch.vstack([t, u])),
    "np.hstack([a, b])": (np.hstack([a, b]), torch.hstack([t, u])),
    "np.column_stack([v, v])": (np.column_stack([v, v]), torch.column_stack([torch.tensor(v)] * 2)),
    "np.split(v, 3)": (
        np.stack(np.split(v, 3)),
        torch.stack(torch.tensor_split(torch.tensor(v), 3)),
    ),
    "np.split(v, [1, 4])[1]": (
        np.split(v, [1, 4])[1],
        torch.tensor_split(torch.tensor(v), [1, 4])[1],
    ),
}
print(f"{'NumPy':<32} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<32} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
print("pieces of np.split(v, 3):    ", [len(p) for p in np.split(v, 3)])
print("pieces of torch.split(t, 3): ", [len(p) for p in torch.split(torch.tensor(v), 3)])

# %%
# .. _basics-np-math:
#
# Elementwise math: np.exp, np.arctan2, np.maximum, np.round
# ----------------------------------------------------------
# The ufuncs have the same names, but for the inverse trigonometric ones (``arccos``
# is ``acos``, ``arctan2`` is ``atan2``); both round half to even, and ``%`` and
# ``//`` follow Python's signs in both.
import numpy as np
import torch

a = np.array([-2.5, -0.5, 0.5, 1.5, 2.25])
b = np.array([1.0, -1.0, 2.0, 0.5, 3.0])
t, u = torch.tensor(a), torch.tensor(b)
rows = {
    "np.exp(a)": (np.exp(a), torch.exp(t)),
    "np.log1p(np.abs(a))": (np.log1p(np.abs(a)), torch.log1p(torch.abs(t))),
    "np.sqrt(b ** 2)": (np.sqrt(b**2), torch.sqrt(u**2)),
    "np.arccos(a / 3)": (np.arccos(a / 3), torch.acos(t / 3)),
    "np.arctan2(a, b)": (np.arctan2(a, b), torch.atan2(t, u)),
    "np.maximum(a, b)": (np.maximum(a, b), torch.maximum(t, u)),
    "np.power(b, 2)": (np.power(b, 2), torch.pow(u, 2)),
    "np.round(a)": (np.round(a), torch.round(t)),
    "np.round(a, 1)": (np.round(a, 1), torch.round(t, decimals=1)),
    "np.sign(a)": (np.sign(a), torch.sign(t)),
    "a // b": (a // b, t // u),
    "a % b": (a % b, t % u),
    "np.fmod(a, b)": (np.fmod(a, b), torch.fmod(t, u)),
    "np.isclose(a, a + 1e-9)": (np.isclose(a, a + 1e-9), torch.isclose(t, t + 1e-9)),
    "np.logical_and(a > 0, b > 0)": (np.logical_and(a > 0, b > 0), torch.logical_and(t > 0, u > 0)),
}
print(f"{'NumPy':<30} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<30} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")

# %%
# .. _basics-np-reductions:
#
# Reductions: sum over an axis, keepdims, np.percentile, np.unique
# ----------------------------------------------------------------
# ``axis`` is ``dim`` and ``keepdims`` is ``keepdim``. ``t.max(dim=0)`` returns
# values *and* indices (``amax`` returns the values, as ``np.max`` does), and
# ``torch.quantile`` takes fractions where ``np.percentile`` takes percents.
import numpy as np
import torch

a = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]])
t = torch.tensor(a)
rows = {
    "a.sum()": (a.sum(), t.sum()),
    "a.sum(axis=0)": (a.sum(axis=0), t.sum(dim=0)),
    "a.mean(axis=1, keepdims=True)": (a.mean(axis=1, keepdims=True), t.mean(dim=1, keepdim=True)),
    "a.max(axis=0)": (a.max(axis=0), t.amax(dim=0)),
    "a.argmax(axis=1)": (a.argmax(axis=1), t.argmax(dim=1)),
    "a.argmax()": (a.argmax(), t.argmax()),
    "a.prod(axis=1)": (a.prod(axis=1), t.prod(dim=1)),
    "a.cumsum(axis=1)": (a.cumsum(axis=1), t.cumsum(dim=1)),
    "np.diff(a, axis=1)": (np.diff(a, axis=1), torch.diff(t, dim=1)),
    "a.var(ddof=1)": (a.var(ddof=1), t.var()),
    "np.percentile(a, 90)": (np.percentile(a, 90), torch.quantile(t, 0.9)),
    "(a > 2).any(axis=0)": ((a > 2).any(axis=0), (t > 2).any(dim=0)),
    "np.count_nonzero(a > 2)": (np.count_nonzero(a > 2), torch.count_nonzero(t > 2)),
    "np.sort(a, axis=1)": (np.sort(a, axis=1), torch.sort(t, dim=1).values),
    "np.argsort(a[1])": (np.argsort(a[1]), torch.argsort(t[1])),
    "np.unique(a)": (np.unique(a), torch.unique(t)),
}
print(f"{'NumPy':<32} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<32} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
print("t.max(dim=0):", t.max(dim=0))

# %%
# .. _basics-np-std-median:
#
# np.std and np.median: the two reductions that differ
# ----------------------------------------------------
# ``torch.std`` and ``torch.var`` divide by n − 1 (``correction=1``) where NumPy
# divides by n (``ddof=0``). For an even count ``torch.median`` returns the lower of
# the two middle values, where ``np.median`` averages them; ``torch.quantile(t, 0.5)``
# averages like NumPy.
import numpy as np
import torch

a = np.array([1.0, 2.0, 4.0, 7.0])
t = torch.tensor(a)
print("np.std(a):                ", np.std(a))
print("t.std():                  ", t.std().item())
print("t.std(correction=0):      ", t.std(correction=0).item())
print("np.median(a):             ", np.median(a))
print("t.median():               ", t.median().item())
print("torch.quantile(t, 0.5):   ", torch.quantile(t, 0.5).item())

# %%
# .. _basics-np-linalg:
#
# Linear algebra: a @ b, np.linalg.solve, np.linalg.norm, np.einsum
# -----------------------------------------------------------------
# ``np.linalg`` has a twin in ``torch.linalg``. ``np.dot`` multiplies matrices, but
# ``torch.dot`` takes only 1-D tensors: use ``@`` or ``torch.matmul``. Results that are
# tuples in NumPy are named tuples in PyTorch (``.solution``, ``.eigenvalues``).
import numpy as np
import torch

a = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
b = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, 1.0]])
v = np.array([1.0, 2.0, 3.0])
t, u, w = torch.tensor(a), torch.tensor(b), torch.tensor(v)
rows = {
    "a @ b": (a @ b, t @ u),
    "np.dot(a, b)": (np.dot(a, b), torch.matmul(t, u)),
    "np.dot(v, v)": (np.dot(v, v), torch.dot(w, w)),
    "np.outer(v, v)": (np.outer(v, v), torch.outer(w, w)),
    "np.einsum('ij,jk->ik', a, b)": (np.einsum("ij,jk->ik", a, b), torch.einsum("ij,jk->ik", t, u)),
    "np.trace(a)": (np.trace(a), torch.trace(t)),
    "np.linalg.inv(a)": (np.linalg.inv(a), torch.linalg.inv(t)),
    "np.linalg.solve(a, b)": (np.linalg.solve(a, b), torch.linalg.solve(t, u)),
    "np.linalg.det(a)": (np.linalg.det(a), torch.linalg.det(t)),
    "np.linalg.norm(a)": (np.linalg.norm(a), torch.linalg.norm(t)),
    "np.linalg.norm(b, axis=1)": (np.linalg.norm(b, axis=1), torch.linalg.vector_norm(u, dim=1)),
    "np.linalg.eigh(a)[0]": (np.linalg.eigh(a)[0], torch.linalg.eigh(t).eigenvalues),
    "np.linalg.svd(b)[1]": (np.linalg.svd(b)[1], torch.linalg.svdvals(u)),
    "np.linalg.lstsq(b, v)[0]": (np.linalg.lstsq(b, v)[0], torch.linalg.lstsq(u, w).solution),
    "np.linalg.pinv(b)": (np.linalg.pinv(b), torch.linalg.pinv(u)),
    "np.linalg.matrix_rank(b)": (np.linalg.matrix_rank(b), torch.linalg.matrix_rank(u)),
    "np.kron(a, a)": (np.kron(a, a), torch.kron(t, t)),
}
print(f"{'NumPy':<30} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<30} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
try:
    torch.dot(t, u)
except RuntimeError as err:
    print(f"torch.dot on matrices raises {type(err).__name__}: {err}")

# %%
# .. _basics-np-broadcasting:
#
# Broadcasting: a[:, None] - b[None, :], and the error when shapes clash
# ----------------------------------------------------------------------
# The rules are NumPy's: align shapes from the right, and a size of 1 stretches.
# ``None`` (``np.newaxis``) adds the axis. A clash raises ``ValueError`` in NumPy and
# ``RuntimeError`` in PyTorch, each naming the sizes.
import numpy as np
import torch

a = np.arange(6.0).reshape(2, 3)
row, col = np.array([10.0, 20.0, 30.0]), np.array([[1.0], [2.0]])
p, q = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0])
t = torch.tensor(a)
rows = {
    "a + row": (a + row, t + torch.tensor(row)),
    "a * col": (a * col, t * torch.tensor(col)),
    "p[:, None] - q[None, :]": (
        p[:, None] - q[None, :],
        torch.tensor(p)[:, None] - torch.tensor(q)[None, :],
    ),
    "a[:, np.newaxis, :] * a[None]": (a[:, np.newaxis, :] * a[None], t[:, None, :] * t[None]),
    "np.broadcast_shapes((2, 1), (3,))": (
        np.array(np.broadcast_shapes((2, 1), (3,))),
        torch.tensor(torch.broadcast_shapes((2, 1), (3,))),
    ),
}
print(f"{'NumPy':<34} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<34} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
try:
    a + q
except ValueError as err:
    print(f"NumPy: {type(err).__name__}: {err}")
try:
    t + torch.tensor(q)
except RuntimeError as err:
    print(f"torch: {type(err).__name__}: {err}")

# %%
# .. _basics-np-random:
#
# Random numbers: np.random.default_rng and torch.Generator
# ---------------------------------------------------------
# A ``torch.Generator`` seeded with ``manual_seed`` plays the part of
# ``np.random.default_rng(seed)``; pass it as ``generator=``. The two libraries draw
# different streams from the same seed, so to get the same numbers in both, draw them
# in one and convert.
import numpy as np
import torch

rng = np.random.default_rng(0)
gen = torch.Generator().manual_seed(0)
p = np.array([0.2, 0.5, 0.3])
rows = {
    "rng.random(3)": (rng.random(3), torch.rand(3, generator=gen, dtype=torch.float64)),
    "rng.normal(size=(2, 2))": (rng.normal(size=(2, 2)), torch.randn(2, 2, generator=gen)),
    "rng.uniform(-1, 1, 3)": (rng.uniform(-1, 1, 3), torch.empty(3).uniform_(-1, 1, generator=gen)),
    "rng.integers(0, 10, 5)": (rng.integers(0, 10, 5), torch.randint(0, 10, (5,), generator=gen)),
    "rng.permutation(5)": (rng.permutation(5), torch.randperm(5, generator=gen)),
    "rng.choice(10, 3, replace=False)": (
        rng.choice(10, 3, replace=False),
        torch.randperm(10, generator=gen)[:3],
    ),
    "rng.choice(3, 5, p=p)": (
        rng.choice(3, 5, p=p),
        torch.multinomial(torch.tensor(p), 5, True, generator=gen),
    ),
}
print(f"{'NumPy':<34} {'shape':<6} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    shape = "agree" if want.shape == tuple(got.shape) else "DIFFER"
    print(f"{spelling:<34} {shape:<6} {want.dtype} / {got.numpy().dtype}")
print("seed 0, NumPy:", np.random.default_rng(0).random(3))
print("seed 0, torch:", torch.rand(3, generator=torch.Generator().manual_seed(0)).numpy())
print("drawn by NumPy, as a tensor:", torch.from_numpy(np.random.default_rng(0).random(3)))

# %%
# .. _basics-np-dtypes:
#
# Dtype rules: where NumPy and PyTorch promote differently
# --------------------------------------------------------
# Both promote by category (bool, integer, floating), but PyTorch's default float is
# ``float32``: an integer tensor divided, or mixed with a ``float32`` tensor, becomes
# ``float32`` where NumPy picks ``float64``. ``mean`` of an integer tensor raises; cast first.
import numpy as np
import torch

i64, f32 = np.array([1, 2, 3]), np.array([0.5, 1.5, 2.5], dtype=np.float32)
ti, tf = torch.tensor(i64), torch.tensor(f32)
rows = {
    "np.array([1.0])": (np.array([1.0]), torch.tensor([1.0])),
    "i64 / 2": (i64 / 2, ti / 2),
    "i64 * 1.5": (i64 * 1.5, ti * 1.5),
    "i64 + f32": (i64 + f32, ti + tf),
    "f32 + 1.0": (f32 + 1.0, tf + 1.0),
    "i64.astype(np.uint8) - 2": (i64.astype(np.uint8) - 2, ti.to(torch.uint8) - 2),
    "(i64 > 1).sum()": ((i64 > 1).sum(), (ti > 1).sum()),
    "i64.mean()": (i64.mean(), ti.float().mean()),
}
print(f"{'NumPy':<26} {'values':<7} dtype: NumPy / torch")
for spelling, (want, got) in rows.items():
    want, got = np.asarray(want), got.numpy()
    same = want.shape == got.shape and np.allclose(want, got)
    print(f"{spelling:<26} {'agree' if same else 'DIFFER':<7} {want.dtype} / {got.dtype}")
try:
    ti.mean()
except RuntimeError as err:
    print(f"ti.mean() raises {type(err).__name__}: {err}")
