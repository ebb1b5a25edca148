r"""
Quantized tensors
=================

Affine quantization stores each value as a small integer ``q`` and recovers it
as ``(q - zero_point) * scale``. This page creates quantized tensors with one
scale for the whole tensor or one per channel and reads their parts back.
PyTorch 2.13 deprecates every function that creates a tensor of the quantized
dtypes (``quint8``, ``qint8``, ``qint32``): ``torch.quantize_per_tensor``,
``torch.quantize_per_channel`` and ``torch.quantize_per_tensor_dynamic``. It
warns once per process, at the first such tensor; the first cell records that
warning and prints it, the others silence it. New code quantizes models with
torchao, and exported programs with PT2E quantization (``prepare_pt2e``,
``convert_pt2e``), which has moved from ``torch.ao.quantization`` to torchao;
the last cell checks where each lives.
"""

# %%
# .. _api-torch-quantize-per-tensor:
#
# torch.quantize_per_tensor
# -------------------------
# Deprecated in 2.13. One ``scale`` and ``zero_point`` for every element; values
# outside the integer range saturate (``qint8`` stops at 127 * 0.05 = 6.35 here).
import warnings

import torch

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    q = torch.quantize_per_tensor(
        torch.tensor([-0.2, 0.0, 0.33, 10.0]), scale=0.05, zero_point=0, dtype=torch.qint8
    )
for w in caught:
    # The message ends with a link and the C++ source path of the build; keep the sentence.
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

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*quantized tensor creation functions")
    qd = torch.quantize_per_tensor_dynamic(
        torch.tensor([-1.0, 0.5, 2.0]), torch.quint8, reduce_range=False
    )
print(round(qd.q_scale(), 6), qd.q_zero_point())
qd.dequantize()

# %%
# Successors: torchao and PT2E quantization
# -----------------------------------------
# Model quantization moves to the separate ``torchao`` package
# (``torchao.quantization.quantize_``); ``torch.ao.quantization``'s own flows
# (``quantize_dynamic``, ``prepare``/``convert``, ``prepare_fx``/``convert_fx``)
# are marked deprecated too. PT2E quantization, for a model captured with
# ``torch.export``, was ``torch.ao.quantization.quantize_pt2e`` and is now
# ``torchao.quantization.pt2e.quantize_pt2e``. The check below shows which of
# these modules this installation has.
import importlib.util

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

# %%
# Summary
# -------
#
# ============================================  ============================================
# Call                                          Does
# ============================================  ============================================
# ``torch.quantize_per_tensor(t, s, z, dt)``    quantize with one scale (deprecated in 2.13)
# ``torch.quantize_per_channel(t, s, z, ax)``   quantize with one scale per slice (deprecated in 2.13)
# ``torch.quantize_per_tensor_dynamic``         choose scale from the data (deprecated in 2.13)
# ``q.int_repr()``                              stored integers
# ``q.dequantize()``                            back to float
# ``q.q_scale() / q.q_zero_point()``            per-tensor parameters
# ``q.q_per_channel_scales()``                  per-channel parameters
# ``torchao.quantization.quantize_(m, cfg)``    the successor for quantizing models
# ``prepare_pt2e`` / ``convert_pt2e``           PT2E quantization of an exported model, from ``torchao.quantization.pt2e.quantize_pt2e``
# ============================================  ============================================
