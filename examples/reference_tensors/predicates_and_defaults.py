r"""
Predicates and global defaults
==============================

Questions about one tensor, and the process-wide settings that shape new tensors; every
entry that changes a setting puts it back.

Summary
-------

====================================  ===================================================================================================
You want                              Call
====================================  ===================================================================================================
is ``obj`` a tensor                   :entry:`torch.is_tensor(obj) <api-torch-is-tensor>`
is ``obj`` a storage                  :entry:`torch.is_storage(obj) <api-torch-is-storage>`
a complex dtype?                      :entry:`torch.is_complex(t) <api-torch-is-complex>`
the conjugate bit set?                :entry:`torch.is_conj(t) <api-torch-is-conj>`, ``resolve_conj`` clears it
a real floating dtype?                :entry:`torch.is_floating_point(t) <api-torch-is-floating-point>`
the truth of a one-element tensor     :entry:`torch.is_nonzero(t) <api-torch-is-nonzero>`
the number of elements                :entry:`torch.numel(t) <api-torch-numel>`
the shape, or one dimension's length  :entry:`t.size(dim) <api-torch-tensor-size>`
bytes per element                     :entry:`t.element_size() <api-torch-tensor-element-size>`, ``t.nbytes`` in total
the GPU index, -1 on the CPU          :entry:`t.get_device() <api-torch-tensor-get-device>`
the dtype of Python floats            :entry:`torch.set_default_dtype(d) <api-torch-set-default-dtype>`, ``get_default_dtype``
the old default setter                :entry:`torch.set_default_tensor_type(T) <api-torch-set-default-tensor-type>`, deprecated
the device of new tensors             :entry:`torch.set_default_device(d) <api-torch-set-default-device>`, ``get_default_device``
print precision and eliding           :entry:`torch.set_printoptions(...) <api-torch-set-printoptions>`, ``profile="default"``
subnormals read as zero (x86, Arm)    :entry:`torch.set_flush_denormal(True) <api-torch-set-flush-denormal>`
the dtype of a result                 :entry:`torch.result_type(a, b) <api-torch-result-type>`
the common dtype of two dtypes        :entry:`torch.promote_types(d1, d2) <api-torch-promote-types>`
is a cast allowed in place            :entry:`torch.can_cast(d1, d2) <api-torch-can-cast>`
float limits                          :entry:`torch.finfo(d) <api-torch-finfo>`, ``iinfo`` for integers
dtype aliases                         :entry:`torch.double <api-torch-dtype>`, ``float``, ``long``, ``cfloat``, ...
the legacy typed constructors         :entry:`torch.LongTensor(data) <api-legacy-tensor-types>`, prefer ``torch.tensor(data, dtype=...)``
====================================  ===================================================================================================
"""

# %%
# .. _api-torch-is-tensor:
#
# torch.is_tensor
# ---------------
# True for a ``torch.Tensor`` (subclasses such as ``nn.Parameter`` included), False
# for anything else, even data a tensor could be built from.
import torch

print(torch.is_tensor(torch.arange(3)), torch.is_tensor([0, 1, 2]))
print(torch.is_tensor(torch.nn.Parameter(torch.ones(1))))

# %%
# .. _api-torch-is-storage:
#
# torch.is_storage
# ----------------
# Tells storage objects (the flat memory behind tensors) apart from tensors.
import torch

t = torch.ones(4)
print(torch.is_storage(t.untyped_storage()), torch.is_storage(t))

# %%
# .. _api-torch-is-complex:
#
# torch.is_complex
# ----------------
# True when the dtype is ``complex32``, ``complex64`` or ``complex128``.
import torch

print(torch.is_complex(torch.tensor([2 - 1j])), torch.is_complex(torch.tensor([2.0])))

# %%
# .. _api-torch-is-conj:
#
# torch.is_conj
# -------------
# ``torch.conj`` on a complex tensor only sets a lazy "conjugate bit";
# ``is_conj`` reads that bit and ``resolve_conj`` materialises the values.
import torch

z = torch.tensor([1 + 2j, 3 - 1j])
lazy = torch.conj(z)
print(torch.is_conj(z), torch.is_conj(lazy), torch.is_conj(torch.resolve_conj(lazy)))
lazy

# %%
# .. _api-torch-is-floating-point:
#
# torch.is_floating_point
# -----------------------
# True for the real floating dtypes (``float16``, ``bfloat16``, ``float32``,
# ``float64`` and the float8 types); integers, bools and complex give False.
import torch

for dtype in (torch.bfloat16, torch.float64, torch.int32, torch.complex64):
    print(dtype, torch.is_floating_point(torch.zeros(1, dtype=dtype)))

# %%
# .. _api-torch-is-nonzero:
#
# torch.is_nonzero
# ----------------
# The truth value of a tensor holding exactly one element; any other size raises
# ``RuntimeError``.
import torch

print(torch.is_nonzero(torch.tensor([0.0])), torch.is_nonzero(torch.tensor([[7]])))
for bad in (torch.tensor([1, 2]), torch.tensor([])):
    try:
        torch.is_nonzero(bad)
    except RuntimeError as err:
        print(f"{tuple(bad.shape)}: RuntimeError: {str(err).splitlines()[0]}")

# %%
# .. _api-torch-numel:
#
# torch.numel
# -----------
# The number of elements in a tensor, the product of its shape (also ``t.numel()``).
import torch

torch.numel(torch.empty(2, 5, 3))

# %%
# .. _api-torch-tensor-size:
#
# torch.Tensor.size
# -----------------
# The shape as a ``torch.Size`` (a tuple subclass, the same as ``.shape``), or one
# dimension's length with ``dim``.
import torch

grid = torch.zeros(3, 4)
print(grid.size(), grid.size(1), grid.size(-1) == grid.shape[-1])

# %%
# .. _api-torch-tensor-element-size:
#
# torch.Tensor.element_size
# -------------------------
# Bytes per element, set by the dtype alone (``nbytes`` gives the whole tensor's
# size).
import torch

for dtype in (torch.float64, torch.bfloat16, torch.bool):
    print(dtype, torch.empty(0, dtype=dtype).element_size())
torch.zeros(3, 4).nbytes

# %%
# .. _api-torch-tensor-get-device:
#
# torch.Tensor.get_device
# -----------------------
# The index of the GPU holding the tensor, or -1 for a CPU tensor (``.device``
# gives the full ``torch.device``).
import torch

cpu_tensor = torch.ones(2)
print(cpu_tensor.get_device(), cpu_tensor.device)
if torch.cuda.is_available():
    print(cpu_tensor.cuda().get_device())
else:
    print("no CUDA device on this machine: the GPU case is skipped")

# %%
# .. _api-torch-set-default-dtype:
#
# torch.set_default_dtype
# -----------------------
# Sets the dtype that Python floats turn into (``get_default_dtype`` reads it);
# complex numbers follow: a ``float64`` default makes them ``complex128``.
import torch

print("before:", torch.get_default_dtype(), torch.tensor([0.5, 1j]).dtype)
torch.set_default_dtype(torch.float64)
print("after: ", torch.get_default_dtype(), torch.tensor([0.5, 1j]).dtype)
torch.set_default_dtype(torch.float32)  # restore

# %%
# .. _api-torch-set-default-tensor-type:
#
# torch.set_default_tensor_type
# -----------------------------
# Deprecated since PyTorch 2.1 in favour of ``set_default_dtype`` and
# ``set_default_device``: it still works but warns once per process (recorded and
# printed here).
import warnings

import torch

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_default_tensor_type(torch.DoubleTensor)
    print("default dtype now:", torch.get_default_dtype())
    torch.set_default_tensor_type(torch.FloatTensor)  # restore
for w in caught:  # PyTorch warns once per process, so this may be empty
    print("caught:", str(w.message).split(",")[0])

# %%
# .. _api-torch-set-default-device:
#
# torch.set_default_device
# ------------------------
# Factories without ``device=`` create tensors there (``get_default_device``
# reads it); the ``meta`` device, shapes without data, works on any machine.
import torch

torch.set_default_device("meta")
print(torch.get_default_device(), torch.ones(2, 2).device)
torch.set_default_device(None)  # restore: back to the CPU
torch.ones(2, 2).device

# %%
# .. _api-torch-set-printoptions:
#
# torch.set_printoptions
# ----------------------
# Controls how tensors print: ``precision`` digits, ``threshold`` elements before
# eliding, ``sci_mode``; ``profile="default"`` undoes every change.
import torch

torch.set_printoptions(precision=2, threshold=6)
print(torch.tensor([3.14159, 2.71828]), torch.arange(20))
torch.set_printoptions(profile="default")  # restore
torch.tensor([3.14159, 2.71828])

# %%
# .. _api-torch-set-flush-denormal:
#
# torch.set_flush_denormal
# ------------------------
# On x86 CPUs with SSE3 and on AArch64, makes subnormal floats (smaller than
# ``finfo.tiny``) read as zero, which can speed up arithmetic; it returns
# whether the CPU supports it.
import torch

tiny = torch.tensor([2e-320], dtype=torch.float64)
print("supported:", torch.set_flush_denormal(True), "->", tiny * 1)
torch.set_flush_denormal(False)  # restore
tiny * 1

# %%
# .. _api-torch-result-type:
#
# torch.result_type
# -----------------
# The dtype an operation on these operands would produce (type promotion): an int
# tensor with a float one gives float, and a Python scalar does not widen a tensor of
# the same kind.
import torch

i8 = torch.tensor([1], dtype=torch.int8)
print(
    torch.result_type(i8, 1000),
    torch.result_type(i8, 2.5),
    torch.result_type(i8, torch.tensor([1.0])),
)

# %%
# .. _api-torch-promote-types:
#
# torch.promote_types
# -------------------
# The smallest dtype that can hold both dtypes' values, from dtypes alone.
import torch

print(torch.promote_types(torch.uint8, torch.int8), torch.promote_types(torch.int64, torch.float16))

# %%
# .. _api-torch-can-cast:
#
# torch.can_cast
# --------------
# Whether the casting rules of in-place and ``out=`` operations allow
# ``from`` -> ``to``: widening within a kind is fine, float to int is not.
import torch

print(torch.can_cast(torch.int32, torch.float64), torch.can_cast(torch.float64, torch.int32))

# %%
# .. _api-torch-finfo:
#
# torch.finfo
# -----------
# Machine limits of a floating dtype (``torch.iinfo`` does the same for integers).
import torch

f16 = torch.finfo(torch.float16)
print(f"float16: eps={f16.eps}, max={f16.max}, tiny={f16.tiny}")
print("int8 range:", torch.iinfo(torch.int8).min, torch.iinfo(torch.int8).max)

# %%
# .. _api-torch-dtype:
#
# torch.dtype
# -----------
# Every dtype has a canonical name and most have short aliases that are the
# same object: ``torch.double`` is ``torch.float64``, ``torch.cfloat`` is
# ``torch.complex64``, ``torch.long`` is ``torch.int64``.
import torch

for alias in ["half", "float", "double", "cfloat", "cdouble", "short", "int", "long"]:
    dtype = getattr(torch, alias)
    canonical = getattr(torch, str(dtype).removeprefix("torch."))
    print(f"torch.{alias:8} is {dtype}: {dtype is canonical}, {dtype.itemsize} bytes")

# %%
# .. _api-legacy-tensor-types:
#
# torch.LongTensor and the other legacy types
# -------------------------------------------
# ``torch.FloatTensor``, ``torch.LongTensor`` and friends predate dtypes; they
# still construct CPU tensors and ``t.type()`` still returns their names, but
# new code writes ``torch.tensor(..., dtype=...)`` and ``t.to(dtype)``.
import torch

old_style = torch.LongTensor([1, 2, 3])
new_style = torch.tensor([1, 2, 3], dtype=torch.long)
print(old_style.dtype, old_style.type(), torch.equal(old_style, new_style))
print(new_style.type(torch.DoubleTensor).dtype, "==", new_style.to(torch.float64).dtype)
