r"""
Tensor basics
=============

A tensor is an n-dimensional array that knows its shape, its element type and
the device its memory lives on.

Summary
-------

===========================  ==================================================
You want                     Call
===========================  ==================================================
what hardware is there       :entry:`torch.cuda.is_available() <basics-check-cuda>`, ``torch.accelerator.is_available()``
why no GPU is found          :entry:`torch.version.cuda <basics-cuda-not-available>`, a CUDA wheel, ``nvidia-smi``
a tensor from data           :entry:`torch.tensor(data) <basics-create-tensor>`, ``dtype=``, ``device=``
constants                    :entry:`torch.zeros(2, 3) <basics-factory-functions>`, ``ones``, ``full``, ``eye``, ``empty``
random numbers               :entry:`torch.rand(2, 3) <basics-factory-functions>`, ``randn``, ``randint``
ranges                       :entry:`torch.arange(start, end, step) <basics-factory-functions>`, ``torch.linspace``
its properties               :entry:`x.shape <basics-tensor-properties>`, ``x.ndim``, ``x.dtype``, ``x.device``, ``x.numel()``
another dtype                :entry:`x.to(torch.float16) <basics-dtype>`, ``x.float()``, ``x.long()`` (no copy if already that dtype)
the same shape as ``x``      :entry:`torch.zeros_like(x) <basics-like>` and the other ``*_like``
another device               :entry:`x.to(device) <basics-move-device>`, ``x.cpu()``, ``x.cuda()``
a tensor made on the device  :entry:`torch.zeros(2, device=device) <basics-create-on-device>`
tensor() or Tensor()         :entry:`torch.tensor(data) <basics-tensor-vs-class>`; ``torch.Tensor`` is the class (always ``float32``)
the dtype tensor() picks     :entry:`torch.tensor(np.array([1.5])) <basics-dtype-inference>` stays ``float64``; Python floats get ``float32``
===========================  ==================================================
"""

# %%
# .. _basics-check-cuda:
#
# Which devices: torch.cuda.is_available
# --------------------------------------
# ``torch.cuda.is_available()`` answers for NVIDIA (and ROCm) GPUs, and the
# device-neutral ``torch.accelerator`` module answers for whichever accelerator
# this build of PyTorch supports; the CUDA-only calls below run only where a GPU is there.
# ``current_accelerator()`` names what the build supports (a CUDA wheel says
# ``cuda`` on a machine with no GPU); ``check_available=True`` asks the hardware.
import torch

print("torch", torch.__version__)
print("CUDA available:       ", torch.cuda.is_available())
print("MPS (Apple) available:", torch.backends.mps.is_available())
print("any accelerator:      ", torch.accelerator.is_available())
print("current accelerator:  ", torch.accelerator.current_accelerator())
print("  and really there:   ", torch.accelerator.current_accelerator(check_available=True))
if torch.cuda.is_available():
    print("GPU count:", torch.cuda.device_count())
    print("GPU 0:    ", torch.cuda.get_device_name(0))
    print("current:  ", torch.cuda.current_device())
    print("NCCL:     ", torch.cuda.nccl.version())
else:
    print("skipped device_count, get_device_name, nccl.version: no CUDA GPU on this machine")

# %%
# .. _basics-cuda-not-available:
#
# torch.cuda.is_available() is False on a machine with a GPU
# ----------------------------------------------------------
# ``is_available()`` answers False, without an error, when this torch cannot reach
# a GPU: the wheel is CPU-only (``torch.version.cuda`` is ``None``; ``pip install
# torch`` on Windows and macOS gives one), the NVIDIA driver is missing or older than
# the CUDA the wheel was built for (torch then warns once, "The NVIDIA driver on your
# system is too old"), or ``CUDA_VISIBLE_DEVICES`` hides every GPU (an empty value,
# or a number that is not there). The block prints each of these for this machine.
import os
import warnings

import torch

print(
    "torch", torch.__version__, "| built for CUDA:", torch.version.cuda or "no (a CPU-only wheel)"
)
visible = os.environ.get("CUDA_VISIBLE_DEVICES")
print("CUDA_VISIBLE_DEVICES:", "not set" if visible is None else repr(visible))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    available = torch.cuda.is_available()
print("is_available:", available, "| GPUs visible:", torch.cuda.device_count())
for w in caught:  # a driver too old for this wheel says so here
    print(f"{w.category.__name__}: {str(w.message).splitlines()[0]}")
if not available and torch.version.cuda:
    print("A CUDA build, and no GPU reachable: check `nvidia-smi` and its driver version")

# %%
# Fix: install a CUDA wheel from PyTorch's index, ``pip install torch --index-url
# https://download.pytorch.org/whl/cuXYZ`` with the ``cuXYZ`` that the selector on
# pytorch.org gives for your system (on Linux, PyPI's own wheel is a CUDA one), update the driver to one
# that supports that CUDA (``nvidia-smi`` prints the highest it supports), and unset
# an empty ``CUDA_VISIBLE_DEVICES``. A GPU hidden by the variable is invisible to the
# process, as a child run with it empty shows.
import os
import subprocess
import sys

check = "import torch; print(torch.cuda.is_available(), torch.cuda.device_count())"
hidden = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True,
                        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})  # fmt: skip
print("with CUDA_VISIBLE_DEVICES='':", hidden.stdout.strip())

# %%
# .. _basics-create-tensor:
#
# Create a tensor from Python data: torch.tensor
# ----------------------------------------------
# ``torch.tensor`` copies nested lists (or numbers) into a new tensor and infers
# the dtype: integers become ``int64``, floats ``float32``.
import torch

t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(t)
print(torch.tensor([10, 20, 30]).dtype, torch.tensor(3.5).dtype, torch.tensor(True).dtype)

# %%
# .. _basics-factory-functions:
#
# Filled, random and range tensors
# --------------------------------
# The factory functions take the shape as arguments; ``empty`` only reserves memory,
# so its values are whatever was there before and must be overwritten before use.
import torch

torch.manual_seed(0)
print(torch.zeros(2, 3))
print(torch.ones(2, 3, dtype=torch.int64))
print(torch.full((2, 2), 7.5))
print(torch.eye(3))
print(torch.empty(2, 3).shape, "(values of empty are arbitrary, so not printed)")
print(torch.rand(2, 3))  # uniform on [0, 1)
print(torch.randn(2, 3))  # standard normal
print(torch.randint(0, 10, (2, 4)))  # integers in [0, 10)
print(torch.arange(0, 10, 3))  # end is excluded
print(torch.linspace(0, 1, steps=5))  # both ends included

# %%
# .. _basics-tensor-properties:
#
# Shape, dtype, device and numel
# ------------------------------
# Every tensor carries these attributes; ``x.size()`` is the same as ``x.shape``,
# ``ndim`` counts the dimensions and ``numel`` counts the elements.
import torch

x = torch.randn(4, 3, 2)
print("shape: ", x.shape, "=", x.size())
print("ndim:  ", x.ndim)
print("dtype: ", x.dtype)
print("device:", x.device)
print("numel: ", x.numel())

# %%
# .. _basics-dtype:
#
# Choose the dtype: dtype= and .to(dtype)
# ---------------------------------------
# Pass ``dtype=`` when creating, or convert with ``.to(dtype)`` (or the shortcuts
# ``.float()``, ``.long()``, ``.half()``). A conversion makes a new tensor, except
# when the tensor already has that dtype: then it returns the tensor itself, so
# writing into the result writes into the original (call ``.clone()`` for a copy).
import torch

ints = torch.arange(4, dtype=torch.int32)
halves = ints.to(torch.float16)
print(ints, halves, ints.float(), halves.long(), sep="\n")

x = torch.zeros(3)  # already float32
same = x.float()
print("x.float() is x:", same is x, "| same memory:", same.data_ptr() == x.data_ptr())
print("x.double() is x:", x.double() is x)

# %%
# .. _basics-like:
#
# Shaped like another: zeros_like
# -------------------------------
# The ``*_like`` functions copy shape, dtype and device from an existing tensor,
# so the new tensor fits wherever the old one did.
import torch

torch.manual_seed(0)
template = torch.empty(2, 2, dtype=torch.float64)
print(torch.zeros_like(template))
print(torch.ones_like(template))
print(torch.full_like(template, 3.0))
print(torch.rand_like(template))
print(torch.empty_like(template).dtype)

# %%
# .. _basics-move-device:
#
# Move between devices: .to(device)
# ---------------------------------
# ``cheatsheet.pick_device()`` returns the best device available (CUDA, then
# Apple MPS, then Intel XPU, then CPU; set ``CHEATSHEET_DEVICE=cpu`` to force a
# choice), and ``.to(device)`` copies a tensor there unless it already lives there.
import torch

from cheatsheet import pick_device

device = pick_device()
x = torch.randn(4, 3)
on_device = x.to(device)
print("picked:", device)
print("moved: ", on_device.device)
print("same object when already there:", on_device.to(device) is on_device)
print("back on the CPU:", on_device.cpu().device)
if torch.cuda.is_available():
    print("x.cuda() ->", x.cuda().device)
else:
    print("skipped x.cuda(): no CUDA GPU on this machine")

# %%
# .. _basics-create-on-device:
#
# Create directly on the device: device=
# --------------------------------------
# Every factory takes ``device=``, which avoids building the tensor on the CPU and
# copying it; a tensor's ``.device`` can be passed along to keep new tensors beside it.
import torch

from cheatsheet import pick_device

device = pick_device()
y = torch.zeros(3, device=device)
z = torch.arange(3, device=y.device)
print(y.device, z.device)

# %%
# .. _basics-tensor-vs-class:
#
# torch.tensor or torch.Tensor
# ----------------------------
# ``torch.tensor(data)`` (lower case) is the function to call: it infers the dtype from
# the data. ``torch.Tensor`` is the class, and calling it makes the default float type
# whatever the data holds (booleans and integers come back as floats), while
# ``torch.Tensor(3)`` is not a tensor holding 3 but an uninitialised tensor of 3
# elements. Use ``torch.tensor`` for data and ``torch.empty``/``torch.zeros`` for a
# size; ``torch.Tensor`` belongs in type hints and ``isinstance`` checks.
import torch

for data in ([True, False], [1, 2]):
    print(
        f"{data}: torch.tensor -> {torch.tensor(data).dtype}, torch.Tensor -> {torch.Tensor(data)}"
    )
print(
    "torch.tensor(3).shape:",
    torch.tensor(3).shape,
    "| torch.Tensor(3).shape:",
    torch.Tensor(3).shape,
)
print("isinstance(torch.tensor(3), torch.Tensor):", isinstance(torch.tensor(3), torch.Tensor))

# %%
# .. _basics-dtype-inference:
#
# Which dtype torch.tensor picks: Python numbers against NumPy data
# -----------------------------------------------------------------
# From Python numbers, ``torch.tensor`` picks by kind: ``bool``, ``int64`` for integers,
# the default float dtype (``float32`` unless ``torch.set_default_dtype`` changed it)
# for floats, and its complex partner for complex numbers; a list of mixed kinds takes
# the widest. NumPy data keeps the dtype NumPy gave it, arrays and NumPy scalars alike,
# and NumPy's floats are ``float64``: such a tensor meets a ``float32`` model with
# :ref:`errors-mat1-mat2-dtype`. Pass ``dtype=`` or call ``.float()`` where the
# data enters.
import numpy as np
import torch

samples = {
    "True": True,
    "[1, 2]": [1, 2],
    "[True, 2]": [True, 2],
    "1.5": 1.5,
    "[1, 2.5]": [1, 2.5],
    "1 + 2j": 1 + 2j,
    "np.array([1.5, 2.0])": np.array([1.5, 2.0]),
    "np.float64(1.5)": np.float64(1.5),
    "np.float32(1.5)": np.float32(1.5),
}
for code, data in samples.items():
    print(f"torch.tensor({code}):".ljust(38), torch.tensor(data).dtype)

torch.set_default_dtype(torch.float64)
print("\nwith set_default_dtype(torch.float64):")
print("torch.tensor(1.5):".ljust(38), torch.tensor(1.5).dtype)
print("torch.tensor(np.float32(1.5)):".ljust(38), torch.tensor(np.float32(1.5)).dtype)
torch.set_default_dtype(torch.float32)

given = torch.tensor(np.array([1.5, 2.0]), dtype=torch.float32)
print("\nNumPy data with dtype=torch.float32:", given.dtype)
