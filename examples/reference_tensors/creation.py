r"""
Creating tensors
================

Tensors from data, buffers, shapes, ranges and parts, and the way back out to other
dtypes and Python; each entry says whether the result shares memory with its source.

Summary
-------

=====================================  =====================================================================================================
You want                               Call
=====================================  =====================================================================================================
a copy of Python or NumPy data         :entry:`torch.tensor(data) <api-torch-tensor>`
share memory when possible             :entry:`torch.as_tensor(data) <api-torch-as-tensor>`
the same, with a copy switch           :entry:`torch.asarray(obj, copy=...) <api-torch-asarray>`
a tensor typed like a Python buffer    :entry:`torch.asarray(array.array("i", ...)) <api-torch-asarray-buffer>`, the buffer's dtype
a zero-copy view of a NumPy array      :entry:`torch.from_numpy(arr) <api-torch-from-numpy>`, back with ``t.numpy()``
a zero-copy view of raw bytes          :entry:`torch.frombuffer(buf, dtype=...) <api-torch-frombuffer>`
a zero-copy import over DLPack         :entry:`torch.from_dlpack(obj) <api-torch-from-dlpack>`
a view with explicit strides           :entry:`torch.as_strided(t, size, stride) <api-torch-as-strided>`
uninitialised memory, given strides    :entry:`torch.empty_strided(size, stride) <api-torch-empty-strided>`
uninitialised memory                   :entry:`torch.empty(shape) <api-torch-empty>`
zeros                                  :entry:`torch.zeros(shape) <api-torch-zeros>`
ones                                   :entry:`torch.ones(shape) <api-torch-ones>`
one constant value                     :entry:`torch.full(shape, v) <api-torch-full>`
zeros shaped like ``t``                :entry:`torch.zeros_like(t) <api-torch-zeros-like>`, and ``ones_like``, ``empty_like``, ``rand_like``
a constant shaped like ``t``           :entry:`torch.full_like(t, v) <api-torch-full-like>`
``t``'s dtype and device, new shape    :entry:`t.new_full(shape, v) <api-torch-tensor-new-full>`, also ``new_zeros``, ``new_tensor``
a range without the end                :entry:`torch.arange(a, b, step) <api-torch-arange>`
a range with the end (deprecated)      :entry:`torch.range(a, b, step) <api-torch-range>`, use ``arange``
``n`` points, both ends included       :entry:`torch.linspace(a, b, n) <api-torch-linspace>`
``n`` points spaced in the exponent    :entry:`torch.logspace(a, b, n) <api-torch-logspace>`
an identity matrix                     :entry:`torch.eye(n, m) <api-torch-eye>`
complex from real and imaginary parts  :entry:`torch.complex(re, im) <api-torch-complex>`
complex from magnitude and angle       :entry:`torch.polar(abs, angle) <api-torch-polar>`
another dtype or device                :entry:`t.to(dtype_or_device) <api-torch-tensor-to>`, ``t`` itself if unchanged
one Python number                      :entry:`t.item() <api-torch-tensor-item>`
nested Python lists                    :entry:`t.tolist() <api-torch-tensor-tolist>`
=====================================  =====================================================================================================
"""

# %%
# .. _api-torch-tensor:
#
# torch.tensor
# ------------
# Converts a Python list (nested lists and tuples too) or a number into a tensor,
# always copying the data; the dtype is inferred (ints give ``int64``, floats the
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
import torch

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
import torch

src = torch.arange(3)
print(torch.asarray(src) is src, torch.asarray(src).data_ptr() == src.data_ptr())
print(torch.asarray(src, copy=True).data_ptr() == src.data_ptr())
try:
    torch.asarray(np.arange(3), dtype=torch.float32, copy=False)
except ValueError as err:
    print("copy=False with a new dtype -> ValueError:", err)

# %%
# .. _api-torch-asarray-buffer:
#
# torch.asarray of a Python buffer
# --------------------------------
# Given an object with the buffer protocol (``array.array``, ``bytearray``,
# ``memoryview``) and no ``dtype=``, ``asarray`` now takes the element type from
# the buffer's own format: ``array.array("i")`` gives ``int32`` and a
# ``bytearray`` gives ``uint8``. In 2.14 it read the bytes as the default
# float dtype, so three ``int32`` ones came back as three tiny ``float32``
# numbers with the same bits, and a buffer whose length is no multiple of four
# bytes raised. The block prints what this torch does; below it, what 2.14.1
# printed for the same code. Passing ``dtype=`` gives the same tensor under both.
import array

import torch

ints = array.array("i", [1, 2, 3])
raw = bytearray(b"\x01\x02")
for buffer in (ints, raw):
    try:
        t = torch.asarray(buffer)
        print(f"{type(buffer).__name__:9} -> {t.dtype}, {t.tolist()}")
    except ValueError as err:
        print(f"{type(buffer).__name__:9} -> ValueError: {err}")
print("dtype=torch.int32:", torch.asarray(ints, dtype=torch.int32).tolist())

# %%
# .. torch-outputs:: api-torch-asarray-buffer
#    :releases: 2.14.1

# %%
# .. _api-torch-from-numpy:
#
# torch.from_numpy
# ----------------
# Wraps a NumPy array without a copy, so a write through either side shows in
# both (``t.numpy()`` goes the other way, also without a copy).
import numpy as np
import torch

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
import torch

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
import torch

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
import torch

base = torch.arange(9.0).reshape(3, 3)
torch.as_strided(base, size=(2, 2), stride=(3, 1), storage_offset=4)  # bottom-right block

# %%
# .. _api-torch-empty-strided:
#
# torch.empty_strided
# -------------------
# Allocates an uninitialised tensor with the given strides, for example a
# column-major (Fortran-order) layout.
import torch

col_major = torch.empty_strided((2, 3), (1, 2))
print(col_major.stride(), col_major.is_contiguous())

# %%
# .. _api-torch-empty:
#
# torch.empty
# -----------
# Allocates without initialising: the values are whatever was in memory, so fill
# the tensor before reading it.
import torch

e = torch.empty(2, 3, dtype=torch.int16)
print(e.shape, e.dtype)

# %%
# .. _api-torch-zeros:
#
# torch.zeros
# -----------
# A tensor of zeros; the shape is given as several ints or as one tuple.
import torch

torch.zeros((2, 4), dtype=torch.int32)

# %%
# .. _api-torch-ones:
#
# torch.ones
# ----------
# A tensor of ones.
import torch

torch.ones(3)

# %%
# .. _api-torch-full:
#
# torch.full
# ----------
# A tensor filled with one value; the dtype follows the value (bool, int or float)
# unless given.
import torch

print(torch.full((2, 2), -1))
torch.full((1, 3), 0.5)

# %%
# .. _api-torch-zeros-like:
#
# torch.zeros_like
# ----------------
# Zeros with the shape, dtype, layout and device of another tensor;
# ``ones_like``, ``empty_like``, ``rand_like`` and ``randn_like`` work the same way.
import torch

ref = torch.tensor([[1.5, 2.5, 3.5]], dtype=torch.float64)
torch.zeros_like(ref)

# %%
# .. _api-torch-full-like:
#
# torch.full_like
# ---------------
# Same shape as a template, one fill value; ``dtype=`` overrides the template's
# dtype.
import torch

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
import torch

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
import torch

print(torch.arange(4), torch.arange(2, 9, 3))
torch.arange(0, 1, 0.25)

# %%
# .. _api-torch-range:
#
# torch.range
# -----------
# Deprecated (it includes ``end``, unlike Python's ``range``, and warns in the
# build's torch, caught here): ``torch.arange`` with ``end + step`` gives the same
# values.
import warnings

import torch

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
# ``steps`` evenly spaced numbers from ``start`` to ``end``, both ends included.
import torch

torch.linspace(-1, 1, steps=5)

# %%
# .. _api-torch-logspace:
#
# torch.logspace
# --------------
# ``steps`` points from ``base**start`` to ``base**end``, evenly spaced in the
# exponent (base 10 unless ``base=`` is given).
import torch

print(torch.logspace(0, 3, steps=4))
torch.logspace(0, 4, steps=3, base=2)

# %%
# .. _api-torch-eye:
#
# torch.eye
# ---------
# An identity matrix; a second argument makes it rectangular.
import torch

torch.eye(2, 3)

# %%
# .. _api-torch-complex:
#
# torch.complex
# -------------
# Builds a complex tensor from real and imaginary parts of the same float dtype
# (``float32`` gives ``complex64``); ``.real`` and ``.imag`` read them back.
import torch

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
import torch

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
import torch

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
import torch

print(torch.tensor([[2.5]]).item(), type(torch.tensor(3).item()).__name__)

# %%
# .. _api-torch-tensor-tolist:
#
# torch.Tensor.tolist
# -------------------
# Converts the whole tensor to nested Python lists of numbers (a 0-D tensor gives
# a plain number).
import torch

print(torch.tensor([[1.5, 2.0], [0.0, -1.0]]).tolist(), torch.tensor(7).tolist())
