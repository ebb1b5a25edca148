r"""
Tensor basics
=============

A tensor is an n-dimensional array that knows its shape, its element type and the
device its memory lives on. This page creates a few, reads those three properties,
and moves a tensor to the best device this machine has.
"""

# %%
# Create a tensor from Python data
# --------------------------------
# ``torch.tensor`` copies nested lists (or numbers) into a new tensor and infers
# the dtype: integers become ``int64``, floats ``float32``.
import torch

t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
t

# %%
# Filled and random tensors
# -------------------------
# The factory functions take the shape as arguments. ``zeros``, ``ones`` and
# ``full`` fill with a constant; ``rand`` draws from U[0, 1), ``randn`` from a
# standard normal; ``arange`` and ``linspace`` count.
torch.manual_seed(0)
print(torch.zeros(2, 3))
print(torch.full((2, 2), 7.5))
print(torch.rand(2, 3))
print(torch.randn(2, 3))
print(torch.arange(0, 10, 3))
print(torch.linspace(0, 1, steps=5))

# %%
# Shape, dtype and device
# -----------------------
# Every tensor carries these three attributes; ``numel`` counts the elements.
x = torch.randn(4, 3, 2)
print("shape: ", x.shape)
print("dtype: ", x.dtype)
print("device:", x.device)
print("numel: ", x.numel())

# %%
# Choose the dtype
# ----------------
# Pass ``dtype=`` when creating, or convert with ``.to(dtype)``; conversion
# makes a new tensor and leaves the original alone.
ints = torch.arange(4, dtype=torch.int32)
halves = ints.to(torch.float16)
print(ints, halves, sep="\n")

# %%
# Shaped like another tensor
# --------------------------
# The ``*_like`` functions copy shape, dtype and device from an existing tensor.
template = torch.empty(2, 2, dtype=torch.float64)
torch.ones_like(template)

# %%
# Move a tensor to the best device
# --------------------------------
# :func:`cheatsheet.pick_device` returns the best device available (CUDA, then
# Apple MPS, then Intel XPU, then CPU); set ``CHEATSHEET_DEVICE=cpu`` to force
# a choice. ``.to(device)`` copies the tensor there; a tensor already on that
# device is returned as is, without a copy.
from cheatsheet import pick_device

device = pick_device()
on_device = x.to(device)
print("picked:", device)
print("moved: ", on_device.device)
print("same object when already there:", on_device.to(device) is on_device)

# %%
# Create directly on the device
# -----------------------------
# Creating in place avoids a host-to-device copy; every factory takes ``device=``.
y = torch.zeros(3, device=device)
y.device

# %%
# Summary
# -------
#
# ============================  ===========================================
# You want                      Call
# ============================  ===========================================
# a tensor from data            ``torch.tensor(data, dtype=..., device=...)``
# constants                     ``torch.zeros / ones / full(shape, value)``
# random numbers                ``torch.rand / randn(shape)``
# ranges                        ``torch.arange(start, end, step)``, ``torch.linspace``
# the same shape as ``x``       ``torch.zeros_like(x)`` and the other ``*_like``
# its properties                ``x.shape``, ``x.dtype``, ``x.device``, ``x.numel()``
# another dtype or device       ``x.to(torch.float16)``, ``x.to(device)``
# ============================  ===========================================
