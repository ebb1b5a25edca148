r"""
Quantization with torchao
=========================

``torchao.quantization.quantize_`` swaps a model's ``Linear`` weights for 8-bit or 4-bit tensors in place; the error, the bytes and the speed are measured here against ``float32``.

Summary
-------

====================================  ==========================================================================================================
You want                              Call
====================================  ==========================================================================================================
the torchao that fits this torch      :entry:`torchao.__version__ <pt2-quantization-torchao-versions>`, ``pip install torchao==X`` pinned with torch
int8 weights, float activations       :entry:`quantize_(m, Int8WeightOnlyConfig()) <pt2-quantization-torchao-int8>`
int8 weights and activations          :entry:`quantize_(m, Int8DynamicActivationInt8WeightConfig()) <pt2-quantization-torchao-int8>`
the error it costs                    :entry:`(q(x) - m(x)).abs().max() <pt2-quantization-torchao-int8>`, ``.mean()``
the bytes it saves                    :entry:`torchao.utils.get_model_size_in_bytes(m) <pt2-quantization-torchao-int8>`
4-bit weights on a GPU                :entry:`Int4WeightOnlyConfig(group_size=128) <pt2-quantization-torchao-int4>`, ``bfloat16``, CUDA
4-bit weights on a CPU                :entry:`IntxWeightOnlyConfig(weight_dtype=torch.int4) <pt2-quantization-torchao-int4>`
whether int8 is faster here           :entry:`compare(...) <pt2-quantization-torchao-speed>`, eager and ``torch.compile``
quantize an exported graph            :entry:`prepare_pt2e / convert_pt2e <pt2-quantization-torchao-pt2e>`, ``X86InductorQuantizer``
====================================  ==========================================================================================================

The quantized tensors of ``torch`` itself (``quantize_per_tensor`` and its
relatives, deprecated in 2.13) are on :ref:`Quantized tensors <api-torchao-quantization>`.
"""

# %%
# .. _pt2-quantization-torchao-versions:
#
# torchao and torch versions, and the current spelling
# ----------------------------------------------------
# torchao is a separate package (``pip install torchao``) built against one
# torch release at a time, and it loads C++ and CUDA kernels compiled for it:
# pin the pair that the torchao release notes name, and upgrade them together.
# Quantization is configured with config objects (``Int8WeightOnlyConfig()``);
# the function spellings of older tutorials (``int8_weight_only()``) were
# deprecated for them, and the block checks whether this torchao still has them.
import importlib.util

import torch

print("torch", torch.__version__)
if importlib.util.find_spec("torchao") is None:
    print("skipped: torchao is not installed (pip install torchao)")
else:
    # sphinx_gallery_start_ignore
    # torchao 0.18 registers an enum the way torch 2.14 deprecates, and torch logs it.
    import logging

    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    # sphinx_gallery_end_ignore
    import torchao
    import torchao.quantization

    print("torchao", torchao.__version__)
    for name in (
        "Int8WeightOnlyConfig",
        "int8_weight_only",
        "Int4WeightOnlyConfig",
        "int4_weight_only",
    ):
        status = "present" if hasattr(torchao.quantization, name) else "gone"
        print(f"torchao.quantization.{name:22} {status}")

# %%
# .. _pt2-quantization-torchao-int8:
#
# int8 weights, then int8 activations too: error and bytes
# --------------------------------------------------------
# ``quantize_`` works in place on every ``torch.nn.Linear`` (``filter_fn``
# picks others). ``Int8WeightOnlyConfig`` keeps int8 weights with one scale per
# output row, dequantized for the float matmul;
# ``Int8DynamicActivationInt8WeightConfig`` also quantizes each input row at
# run time, so the matmul itself can run in int8. Weights shrink about
# fourfold; the error is measured on a fixed input against the float32 model.
import copy
import importlib.util

import torch

if importlib.util.find_spec("torchao") is None:
    print("skipped: torchao is not installed (pip install torchao)")
else:
    from torchao.quantization import (
        Int8DynamicActivationInt8WeightConfig,
        Int8WeightOnlyConfig,
        quantize_,
    )
    from torchao.utils import get_model_size_in_bytes

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 512),
    ).eval()  # fmt: skip
    x = torch.randn(16, 512)
    with torch.no_grad():
        reference = model(x)
    print(f"{'float32':36} {get_model_size_in_bytes(model):>10,} bytes")
    for config in (Int8WeightOnlyConfig(), Int8DynamicActivationInt8WeightConfig()):
        quantized = copy.deepcopy(model)
        quantize_(quantized, config)
        with torch.no_grad():
            error = (quantized(x) - reference).abs()
        print(
            f"{type(config).__name__:36} {get_model_size_in_bytes(quantized):>10,} bytes  "
            f"max error {error.max():.2e}  mean {error.mean():.2e}"
        )
    weight = quantized[0].weight  # a tensor subclass that still reports float32
    print(f"weight: {type(weight).__name__}, dtype {weight.dtype}; stored {weight.qdata.dtype}")
    print("one scale per output row:", tuple(weight.scale.shape))

# %%
# .. _pt2-quantization-torchao-int4:
#
# 4-bit weights: a GPU config, and what runs on a CPU
# ---------------------------------------------------
# ``Int4WeightOnlyConfig`` packs two weights a byte, with one scale per group of
# ``group_size`` inputs. In torchao 0.18 its packing formats are GPU (and XPU)
# formats: on this CPU the block prints the error each one raises. For 4-bit
# accuracy on a CPU, ``IntxWeightOnlyConfig(weight_dtype=torch.int4)`` runs;
# its default format keeps each 4-bit value in a byte, so it saves what int8
# saves. The GPU path uses the tinygemm format, which wants ``bfloat16``.
import copy
import importlib.util

import torch

if importlib.util.find_spec("torchao") is None:
    print("skipped: torchao is not installed (pip install torchao)")
else:
    from torchao.quantization import (
        Int4WeightOnlyConfig,
        IntxWeightOnlyConfig,
        PerGroup,
        quantize_,
    )
    from torchao.utils import get_model_size_in_bytes

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 512)
    ).eval()
    x = torch.randn(16, 512)
    with torch.no_grad():
        reference = model(x)
    print(f"float32: {get_model_size_in_bytes(model):,} bytes")
    for packing in ("plain", "tile_packed_to_4d"):
        try:
            quantize_(
                copy.deepcopy(model).bfloat16(), Int4WeightOnlyConfig(int4_packing_format=packing)
            )
            print(f"Int4WeightOnlyConfig({packing!r}) on the CPU: ran")
        except (ImportError, NotImplementedError, AssertionError, RuntimeError) as err:
            print(f"Int4WeightOnlyConfig({packing!r}) on the CPU: {type(err).__name__}")
    int4 = copy.deepcopy(model)
    quantize_(int4, IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)))
    with torch.no_grad():
        error = (int4(x) - reference).abs()
    print(
        f"IntxWeightOnlyConfig(int4): {get_model_size_in_bytes(int4):,} bytes, "
        f"max error {error.max():.2e}, mean {error.mean():.2e}"
    )
    if torch.cuda.is_available():
        gpu_model = copy.deepcopy(model).to("cuda", torch.bfloat16)
        config = Int4WeightOnlyConfig(group_size=128, int4_packing_format="tile_packed_to_4d")
        quantize_(gpu_model, config)
        with torch.no_grad():
            gpu_error = (gpu_model(x.to("cuda", torch.bfloat16)).float().cpu() - reference).abs()
        print(
            f"Int4WeightOnlyConfig on CUDA: {get_model_size_in_bytes(gpu_model):,} bytes, "
            f"max error {gpu_error.max():.2e}"
        )
    else:
        print("skipped: Int4WeightOnlyConfig on a GPU needs CUDA")

# %%
# .. _pt2-quantization-torchao-speed:
#
# Is int8 faster here? Eager and compiled, on one thread
# ------------------------------------------------------
# In eager mode a quantized weight is a tensor subclass: each call dequantizes
# it, or quantizes the input, as separate steps. torchao recommends
# ``torch.compile``, which can fuse those steps with the matmul. Each model is
# compiled once (seconds each, so only these three), then ``compare`` times
# them in alternating rounds against eager ``float32``. Weight-only int8 saves
# bytes read, which pays where reading weights is the bottleneck (large models,
# small batches, GPUs); dynamic int8 also multiplies in int8, where CPUs with
# VNNI or AMX instructions have faster integer paths.
import copy
import importlib.util
import warnings

import torch

from cheatsheet import compare

if importlib.util.find_spec("torchao") is None:
    print("skipped: torchao is not installed (pip install torchao)")
else:
    from torchao.quantization import (
        Int8DynamicActivationInt8WeightConfig,
        Int8WeightOnlyConfig,
        quantize_,
    )

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 512),
    ).eval()  # fmt: skip
    x = torch.randn(16, 512)
    weight_only, dynamic = copy.deepcopy(model), copy.deepcopy(model)
    quantize_(weight_only, Int8WeightOnlyConfig())
    quantize_(dynamic, Int8DynamicActivationInt8WeightConfig())
    print("vector instructions PyTorch uses:", torch.backends.cpu.get_cpu_capability())
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            # torchao 0.18's Int8Tensor lacks a hash for the compile cache and says so.
            warnings.filterwarnings("ignore", message=".*_stable_hash_for_caching")
            candidates = {"float32": model, "int8 weights": weight_only, "int8 dynamic": dynamic}
            for label, module in list(candidates.items()):
                compiled = torch.compile(module)
                compiled(x)  # compile now, not inside the timing
                candidates[label + ", compiled"] = compiled
            table = compare(candidates, x, budget_s=1.5)
    finally:
        torch.set_num_threads(threads)
    print(table)
    for verdict in table.verdicts():
        print(verdict + ".")

# %%
# .. _pt2-quantization-torchao-pt2e:
#
# PT2E: quantize an exported graph
# --------------------------------
# For a model that leaves Python (AOTInductor, ExecuTorch), quantization
# happens on the ``torch.export`` graph: ``prepare_pt2e`` inserts observers
# chosen by a backend's quantizer (here ``X86InductorQuantizer``: 8-bit
# activations with one scale per tensor, fixed by calibration, and 8-bit
# weights with one scale per output channel), a few calibration batches record
# ranges, and ``convert_pt2e`` replaces the observers with quantize and
# dequantize operations. Compiling the converted graph with Inductor (freezing
# on) is the step that lowers these patterns to int8 kernels; it is left out
# here to keep the page short. This flow moved from ``torch.ao.quantization``
# to ``torchao.quantization.pt2e``.
import importlib.util

import torch

if importlib.util.find_spec("torchao") is None:
    print("skipped: torchao is not installed (pip install torchao)")
else:
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as x86
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    ).eval()
    x = torch.randn(8, 64)
    graph = torch.export.export(model, (x,)).module()
    quantizer = x86.X86InductorQuantizer()
    quantizer.set_global(x86.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(graph, quantizer)
    for _ in range(8):  # calibration: typical inputs
        prepared(torch.randn(8, 64))
    converted = convert_pt2e(prepared)
    operations = {str(node.target) for node in converted.graph.nodes if node.op == "call_function"}
    print("\n".join(sorted(operations)))
    with torch.no_grad():
        print(f"max error against float32: {(converted(x) - model(x)).abs().max():.2e}")
