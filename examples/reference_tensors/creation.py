r"""
Creating tensors
================

Every way to make a tensor: from Python data, from NumPy arrays and raw buffers
(with or without copying), from a shape and a fill value, from a range, from
another tensor's strides, complex tensors from their parts, and the way back
out to other dtypes, devices and Python numbers. Each entry shows whether the
result shares memory with its source.
"""

# %%
# .. _api-torch-tensor:
#
# torch.tensor
# ------------
# Always copies its data; the dtype is inferred (ints give ``int64``, floats the
# default dtype, complex numbers ``complex64``) unless ``dtype=`` is given.
import torch

print(torch.tensor([[1, 2], [3, 4]]).dtype, torch.tensor(2.5).shape, torch.tensor([]).shape)
torch.tensor([0.25, 4], dtype=torch.float64)

# %%
# .. _api-torch-as-tensor:
#
# torch.as_tensor
# ---------------
# Reuses the memory of a NumPy array or tensor when dtype and device already match
# and copies otherwise.
import numpy as np

arr = np.array([10, 20, 30])
shared = torch.as_tensor(arr)
copied = torch.as_tensor(arr, dtype=torch.float32)
arr[0] = -1
print(shared, copied)

# %%
# .. _api-torch-asarray:
#
# torch.asarray
# -------------
# Like ``as_tensor`` but with an explicit ``copy=`` switch (``None``: copy only when
# needed, ``True``: always, ``False``: never, or raise) and a ``requires_grad``
# option.
import numpy as np

src = torch.arange(3)
print(torch.asarray(src) is src, torch.asarray(src).data_ptr() == src.data_ptr())
print(torch.asarray(src, copy=True).data_ptr() == src.data_ptr())
try:
    torch.asarray(np.arange(3), dtype=torch.float32, copy=False)
except ValueError as err:
    print("copy=False with a new dtype -> ValueError:", err)

# %%
# .. _api-torch-from-numpy:
#
# torch.from_numpy
# ----------------
# Wraps a NumPy array without a copy, so a write through either side shows in
# both (``t.numpy()`` goes the other way, also without a copy).
import numpy as np

a = np.ones(3, dtype=np.float32)
t = torch.from_numpy(a)
t[1] = 5
a

# %%
# .. _api-torch-frombuffer:
#
# torch.frombuffer
# ----------------
# Views any object with the buffer protocol (``bytes``, ``bytearray``,
# ``array.array``) as a 1-D tensor of ``dtype``, reinterpreting the bytes
# without converting them (pass a writable buffer: ``bytes`` makes it warn).
raw = bytearray((7).to_bytes(4, "little") + (256).to_bytes(4, "little"))
torch.frombuffer(raw, dtype=torch.int32)

# %%
# .. _api-torch-from-dlpack:
#
# torch.from_dlpack
# -----------------
# Imports any object that speaks DLPack (NumPy arrays, CuPy, JAX, other
# tensors), zero-copy.
import numpy as np

arr = np.arange(4.0)
t = torch.from_dlpack(arr)
arr[3] = 99
t

# %%
# .. _api-torch-as-strided:
#
# torch.as_strided
# ----------------
# A view with an explicit size, stride and storage offset over the same memory;
# a wrong stride reads the wrong elements, so prefer the view functions.
base = torch.arange(9.0).reshape(3, 3)
torch.as_strided(base, size=(2, 2), stride=(3, 1), storage_offset=4)  # bottom-right block

# %%
# .. _api-torch-empty-strided:
#
# torch.empty_strided
# -------------------
# Allocates an uninitialised tensor with the given strides, for example a
# column-major (Fortran-order) layout.
col_major = torch.empty_strided((2, 3), (1, 2))
print(col_major.stride(), col_major.is_contiguous())

# %%
# .. _api-torch-empty:
#
# torch.empty
# -----------
# Allocates without initialising: the values are whatever was in memory, so fill
# the tensor before reading it.
e = torch.empty(2, 3, dtype=torch.int16)
print(e.shape, e.dtype)

# %%
# .. _api-torch-zeros:
#
# torch.zeros
# -----------
# A tensor of zeros; the shape is given as several ints or as one tuple.
torch.zeros((2, 4), dtype=torch.int32)

# %%
# .. _api-torch-ones:
#
# torch.ones
# ----------
# A tensor of ones.
torch.ones(3)

# %%
# .. _api-torch-full:
#
# torch.full
# ----------
# A tensor filled with one value; the dtype follows the value (bool, int or float)
# unless given.
print(torch.full((2, 2), -1))
torch.full((1, 3), 0.5)

# %%
# .. _api-torch-zeros-like:
#
# torch.zeros_like
# ----------------
# Zeros with the shape, dtype, layout and device of another tensor;
# ``ones_like``, ``empty_like``, ``rand_like`` and ``randn_like`` work the same way.
ref = torch.tensor([[1.5, 2.5, 3.5]], dtype=torch.float64)
torch.zeros_like(ref)

# %%
# .. _api-torch-full-like:
#
# torch.full_like
# ---------------
# Same shape as a template, one fill value; ``dtype=`` overrides the template's
# dtype.
ref = torch.tensor([[1.5, 2.5, 3.5]], dtype=torch.float64)
torch.full_like(ref, 7, dtype=torch.int8)

# %%
# .. _api-torch-tensor-new-full:
#
# torch.Tensor.new_full
# ---------------------
# The ``new_*`` methods (``new_full``, ``new_zeros``, ``new_ones``,
# ``new_empty``, ``new_tensor``) take a new shape or data and inherit dtype and
# device from the tensor they are called on.
ref = torch.ones(2, dtype=torch.float16)
print(ref.new_full((2, 3), 2.5))
print(ref.new_zeros(4), ref.new_tensor([[1, 2]]))

# %%
# .. _api-torch-arange:
#
# torch.arange
# ------------
# Values from ``start`` up to, but excluding, ``end`` in steps of ``step``; float
# arguments give a float tensor.
print(torch.arange(4), torch.arange(2, 9, 3))
torch.arange(0, 1, 0.25)

# %%
# .. _api-torch-range:
#
# torch.range
# -----------
# Deprecated (it includes ``end``, unlike Python's ``range``, and warns in
# PyTorch 2.13, caught here): ``torch.arange`` with ``end + step`` gives the same
# values.
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = torch.range(0, 2, 0.5)
print(type(caught[0].message).__name__, "caught:", str(caught[0].message).split(" because")[0])
print(old, torch.arange(0, 2.5, 0.5))

# %%
# .. _api-torch-linspace:
#
# torch.linspace
# --------------
# ``steps`` evenly spaced points from ``start`` to ``end``, both ends included.
torch.linspace(-1, 1, steps=5)

# %%
# .. _api-torch-logspace:
#
# torch.logspace
# --------------
# ``steps`` points from ``base**start`` to ``base**end``, evenly spaced in the
# exponent (base 10 unless ``base=`` is given).
print(torch.logspace(0, 3, steps=4))
torch.logspace(0, 4, steps=3, base=2)

# %%
# .. _api-torch-eye:
#
# torch.eye
# ---------
# An identity matrix; a second argument makes it rectangular.
torch.eye(2, 3)

# %%
# .. _api-torch-complex:
#
# torch.complex
# -------------
# Builds a complex tensor from real and imaginary parts of the same float dtype
# (``float32`` gives ``complex64``); ``.real`` and ``.imag`` read them back.
z = torch.complex(torch.tensor([1.0, 0.0]), torch.tensor([2.0, -1.0]))
print(z, z.dtype)
print(z.real, z.imag)

# %%
# .. _api-torch-polar:
#
# torch.polar
# -----------
# Builds complex numbers from magnitude and angle (radians):
# ``abs * (cos(angle) + 1j * sin(angle))``.
torch.polar(
    torch.tensor([2.0, 1.0], dtype=torch.float64),
    torch.tensor([0.0, torch.pi], dtype=torch.float64),
)

# %%
# .. _api-torch-tensor-to:
#
# torch.Tensor.to
# ---------------
# Converts dtype and/or device (or copies both from another tensor), returning
# the tensor itself when nothing changes.
x = torch.ones(2)
print(x.to(torch.float16), x.to("cpu") is x)
x.to(torch.zeros(1, dtype=torch.int8))

# %%
# .. _api-torch-tensor-item:
#
# torch.Tensor.item
# -----------------
# The value of a one-element tensor as a Python number (int, float, bool or
# complex, following the dtype).
print(torch.tensor([[2.5]]).item(), type(torch.tensor(3).item()).__name__)

# %%
# .. _api-torch-tensor-tolist:
#
# torch.Tensor.tolist
# -------------------
# The whole tensor as nested Python lists of numbers (a 0-D tensor gives a
# plain number).
print(torch.tensor([[1.5, 2.0], [0.0, -1.0]]).tolist(), torch.tensor(7).tolist())

# %%
# Summary
# -------
#
# ==================================  ===========================================
# Call                                Makes
# ==================================  ===========================================
# ``torch.tensor(data)``              a copy of Python or NumPy data
# ``torch.as_tensor(data)``           a tensor sharing memory when it can
# ``torch.asarray(obj, copy=...)``    the same with an explicit copy switch
# ``torch.from_numpy(arr)``           a zero-copy view of a NumPy array
# ``torch.frombuffer(buf, dtype)``    a zero-copy view of raw bytes
# ``torch.from_dlpack(obj)``          a zero-copy import over DLPack
# ``torch.as_strided(t, size, st)``   a view with explicit strides
# ``torch.empty_strided(size, st)``   uninitialised memory with given strides
# ``torch.empty / zeros / ones``      uninitialised, zeros, ones
# ``torch.full(shape, v)``            a constant tensor
# ``torch.zeros_like(t)``             zeros shaped like ``t`` (also ``ones``, ``empty``)
# ``torch.full_like(t, v)``           a constant shaped like ``t``
# ``t.new_full(shape, v)``            a tensor with ``t``'s dtype and device
# ``torch.arange(a, b, s)``           a range without ``b``
# ``torch.range``                     deprecated, includes the end
# ``torch.linspace(a, b, n)``         ``n`` points, both ends included
# ``torch.logspace(a, b, n)``         ``n`` points spaced in the exponent
# ``torch.eye(n, m)``                 an identity matrix
# ``torch.complex(re, im)``           complex from Cartesian parts
# ``torch.polar(r, theta)``           complex from polar parts
# ``t.to(dtype_or_device)``           converted tensor (``t`` itself if unchanged)
# ``t.item()`` / ``t.tolist()``       Python number / nested lists
# ==================================  ===========================================
