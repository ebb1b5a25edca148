r"""
Quantized tensors
=================

Affine quantization keeps each value as a small integer ``q`` standing for
``(q - zero_point) * scale``; PyTorch 2.13 deprecates making such tensors, and new code
quantizes with torchao.

Summary
-------

==================================  =================================================================================================================
You want                            Call
==================================  =================================================================================================================
one scale for the whole tensor      :entry:`torch.quantize_per_tensor(t, s, z, dtype) <api-torch-quantize-per-tensor>`, deprecated in 2.13
the stored integers                 :entry:`q.int_repr() <api-torch-tensor-int-repr>`
back to float                       :entry:`q.dequantize() <api-torch-tensor-dequantize>`
the per-tensor scale                :entry:`q.q_scale() <api-torch-tensor-q-scale>`
the per-tensor zero point           :entry:`q.q_zero_point() <api-torch-tensor-q-zero-point>`, ``q.qscheme()``
one scale per slice along ``axis``  :entry:`torch.quantize_per_channel(t, s, z, axis, dt) <api-torch-quantize-per-channel>`, deprecated in 2.13
the per-channel parameters          :entry:`q.q_per_channel_scales() <api-torch-tensor-q-per-channel-scales>`, ``_zero_points()``, ``_axis()``
scale chosen from the data          :entry:`torch.quantize_per_tensor_dynamic(t, dtype) <api-torch-quantize-per-tensor-dynamic>`, deprecated in 2.13
to quantize a model today           :entry:`torchao.quantization.quantize_(m, cfg) <api-torchao-quantization>`
to quantize an exported model       :entry:`prepare_pt2e / convert_pt2e <api-torchao-quantization>`, from ``torchao.quantization.pt2e.quantize_pt2e``
==================================  =================================================================================================================
"""

# %%
# .. _api-torch-quantize-per-tensor:
#
# torch.quantize_per_tensor
# -------------------------
# One ``scale`` and ``zero_point`` for every element; values outside the integer
# range saturate (``qint8`` stops at 127 * 0.05 = 6.35 here). PyTorch 2.13
# deprecates every call that creates a ``quint8``, ``qint8`` or ``qint32`` tensor
# and warns once per process, at the first one: this cell records the warning,
# the cells below silence it.
import warnings

import torch

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    q = torch.quantize_per_tensor(
        torch.tensor([-0.2, 0.0, 0.33, 10.0]), scale=0.05, zero_point=0, dtype=torch.qint8
    )
for w in caught:
    # The first sentence is the message; a link and the C++ file that warned follow it.
    print(f"{w.category.__name__}: {str(w.message).split(' Please see')[0]}")
if not caught:
    print("no warning: PyTorch warns once per process, and an earlier call already did")
q

# %%
# .. _api-torch-tensor-int-repr:
#
# torch.Tensor.int_repr
# ---------------------
# The stored integers as an ordinary ``int8`` or ``uint8`` tensor.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    q = torch.quantize_per_tensor(torch.tensor([-0.2, 0.0, 0.33, 10.0]), 0.05, 0, torch.qint8)
q.int_repr()

# %%
# .. _api-torch-tensor-dequantize:
#
# torch.Tensor.dequantize
# -----------------------
# Back to ``float32``; the difference from the input is the rounding and
# clipping error.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    q = torch.quantize_per_tensor(torch.tensor([-0.2, 0.0, 0.33, 10.0]), 0.05, 0, torch.qint8)
q.dequantize()

# %%
# .. _api-torch-tensor-q-scale:
#
# torch.Tensor.q_scale
# --------------------
# The scale of a per-tensor quantized tensor, as a Python float.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    q = torch.quantize_per_tensor(torch.tensor([-0.2, 0.0, 0.33, 10.0]), 0.05, 0, torch.qint8)
q.q_scale()

# %%
# .. _api-torch-tensor-q-zero-point:
#
# torch.Tensor.q_zero_point
# -------------------------
# The zero point, the integer that represents 0.0; ``qscheme()`` names the scheme.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    q = torch.quantize_per_tensor(torch.tensor([-0.2, 0.0, 0.33, 10.0]), 0.05, 0, torch.qint8)
print(q.q_zero_point(), q.qscheme())

# %%
# .. _api-torch-quantize-per-channel:
#
# torch.quantize_per_channel
# --------------------------
# Deprecated in 2.13, with the same warning. One scale and zero point per slice
# along ``axis``, for rows with very different ranges (the output channels of a weight).
import warnings

import torch

weights = torch.tensor([[-0.5, 0.25], [1.0, 3.0]])
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    qc = torch.quantize_per_channel(
        weights,
        scales=torch.tensor([0.05, 0.5]),
        zero_points=torch.tensor([10, 0]),
        axis=0,
        dtype=torch.quint8,
    )
qc.int_repr()

# %%
# .. _api-torch-tensor-q-per-channel-scales:
#
# torch.Tensor.q_per_channel_scales
# ---------------------------------
# The per-channel scales; ``q_per_channel_zero_points()`` and
# ``q_per_channel_axis()`` return the other parameters.
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    qc = torch.quantize_per_channel(
        torch.tensor([[-0.5, 0.25], [1.0, 3.0]]),
        torch.tensor([0.05, 0.5]),
        torch.tensor([10, 0]),
        0,
        torch.quint8,
    )
print(qc.q_per_channel_scales(), qc.q_per_channel_zero_points(), qc.q_per_channel_axis())

# %%
# .. _api-torch-quantize-per-tensor-dynamic:
#
# torch.quantize_per_tensor_dynamic
# ---------------------------------
# Deprecated in 2.13, with the same warning. Chooses scale and zero point from
# the tensor's own min and max (``reduce_range`` keeps one bit of headroom).
import warnings

import torch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    qd = torch.quantize_per_tensor_dynamic(
        torch.tensor([-1.0, 0.5, 2.0]), torch.quint8, reduce_range=False
    )
print(round(qd.q_scale(), 6), qd.q_zero_point())
qd.dequantize()

# %%
# .. _api-torchao-quantization:
#
# Successors: torchao and PT2E quantization
# -----------------------------------------
# Model quantization moves to the separate ``torchao`` package
# (``torchao.quantization.quantize_``); ``torch.ao.quantization``'s own flows
# (``quantize_dynamic``, ``prepare``/``convert``, ``prepare_fx``/``convert_fx``)
# are marked deprecated too. PT2E quantization, for a model captured with
# ``torch.export``, was ``torch.ao.quantization.quantize_pt2e`` and is now
# ``torchao.quantization.pt2e.quantize_pt2e``. The check below shows which of
# these modules this installation has. Looking a submodule up imports its package,
# and torchao 0.18 under the torch this site pins logs one ``W...`` line from
# ``torch.utils._pytree`` as it loads: torchao registers an enum in a way torch now
# deprecates. The line is harmless; with the same versions you see it too, with the
# time and process id of your run.
import importlib.util

import torch

for module in (
    "torch.ao.quantization.quantize_pt2e",
    "torchao.quantization",
    "torchao.quantization.pt2e.quantize_pt2e",
):
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        found = False
    print(f"{module:42} {'importable' if found else 'not importable here'}")
