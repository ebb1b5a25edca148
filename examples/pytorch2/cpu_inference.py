r"""
CPU inference recipe
====================

The steps that make a model answer faster on a CPU, each timed before and after on a small convolutional network.

Summary
-------

=================================  =====================================================================================
You want                           Call
=================================  =====================================================================================
what this CPU can do               :entry:`torch.backends.cpu.get_cpu_capability() <pt2-cpu-inference-cpu>`,
                                   ``torch.cpu._is_avx512_bf16_supported()``, ``_is_amx_tile_supported()``
no autograd bookkeeping            :entry:`model.eval(); with torch.inference_mode(): <pt2-cpu-inference-mode>`
weights folded into the program    :entry:`torch._inductor.config.freezing = True <pt2-cpu-inference-freezing>`,
                                   then ``torch.compile`` and call under ``inference_mode``
the layout oneDNN convolves in     :entry:`x.to(memory_format=torch.channels_last) <pt2-cpu-inference-channels-last>`,
                                   the model too
half the bytes per value           :entry:`torch.autocast("cpu", dtype=torch.bfloat16) <pt2-cpu-inference-bf16>`,
                                   or ``model.to(torch.bfloat16)``
the number of threads              :entry:`torch.set_num_threads(n) <pt2-cpu-inference-threads>`,
                                   ``OMP_NUM_THREADS=n`` before start
the steps that pay here, together  :entry:`compare(stack, x) <pt2-cpu-inference-stack>`
=================================  =====================================================================================
"""

# %%
# .. _pt2-cpu-inference-cpu:
#
# What this CPU offers
# --------------------
# PyTorch picks its vector kernels at start-up (``get_cpu_capability``:
# ``DEFAULT``, ``AVX2``, ``AVX512``; ``ATEN_CPU_CAPABILITY`` lowers it). bfloat16
# runs in hardware with AVX-512 BF16 (Intel Xeon from Cooper Lake, 2020; AMD
# EPYC from Zen 4), with AMX tiles (Intel Xeon from Sapphire Rapids), or on Arm
# cores with the BF16 extension (Neoverse V1 and N2, as in AWS Graviton3 and
# later); elsewhere it is emulated by conversions. The two
# ``torch.cpu._is_*_supported`` checks are private and ask only about x86, so
# they are looked up with a fallback; on Arm they answer ``False``.
import torch

print("vector kernels:", torch.backends.cpu.get_cpu_capability())
for check in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"):
    supported = getattr(torch.cpu, check, lambda: "unknown in this version")()
    print(f"{check}: {supported}")
print("threads:", torch.get_num_threads(), " inter-op threads:", torch.get_num_interop_threads())

# %%
# .. _pt2-cpu-inference-mode:
#
# model.eval() and torch.inference_mode()
# ---------------------------------------
# ``eval()`` changes what the model computes (batch norm uses its running
# statistics, dropout is off); ``inference_mode()`` changes what PyTorch
# records: no graph for backward, no version counters. It is stricter than
# ``no_grad()`` (its tensors can never enter autograd later), and a little
# cheaper. Timed on one thread, with the eager model called as it is.
import torch

from cheatsheet import compare


def conv_bn_relu(c_in, c_out):
    conv = torch.nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    return [conv, torch.nn.BatchNorm2d(c_out), torch.nn.ReLU()]


torch.manual_seed(0)
model = torch.nn.Sequential(
    *conv_bn_relu(3, 32), *conv_bn_relu(32, 64), *conv_bn_relu(64, 64),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
)  # fmt: skip
x = torch.randn(4, 3, 16, 16)
with torch.inference_mode():
    train_out, eval_out = model.train()(x), model.eval()(x)
print("train() and eval() outputs differ by", f"{(train_out - eval_out).abs().max():.3f}")


def under(context, model):
    def run(x):
        with context():
            return model(x)

    return run


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    table = compare(
        {
            "autograd on": model,
            "no_grad": under(torch.no_grad, model),
            "inference_mode": under(torch.inference_mode, model),
        },
        x,
        budget_s=1.0,
    )
finally:
    torch.set_num_threads(threads)
print(table)
for verdict in table.verdicts():
    print(verdict + ".")

# %%
# .. _pt2-cpu-inference-freezing:
#
# torch.compile with freezing
# ---------------------------
# With ``torch._inductor.config.freezing = True`` Inductor treats parameters as
# constants: batch norm folds into the convolution weights, which are packed
# once for oneDNN. Compile and call under ``inference_mode`` (or ``no_grad``);
# under autograd freezing does not apply. The setting is read while compiling,
# so set it before the first call (here scoped with ``config.patch``; see
# :ref:`pt2-compile-in-practice-freezing`).
import matplotlib.pyplot as plt
import torch
import torch._inductor.config

from cheatsheet import compare


def conv_bn_relu(c_in, c_out):
    conv = torch.nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    return [conv, torch.nn.BatchNorm2d(c_out), torch.nn.ReLU()]


torch.manual_seed(0)
model = torch.nn.Sequential(
    *conv_bn_relu(3, 32), *conv_bn_relu(32, 64), *conv_bn_relu(64, 64),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
).eval()  # fmt: skip
x = torch.randn(4, 3, 16, 16)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.inference_mode():
        with torch._inductor.config.patch(freezing=True):
            frozen = torch.compile(model)
            print("max difference from eager:", f"{(frozen(x) - model(x)).abs().max():.1e}")
        table = compare({"eager": model, "compiled, frozen": frozen}, x, budget_s=1.0)
finally:
    torch.set_num_threads(threads)
print(table)
print(table.verdict("compiled, frozen") + ".")

# %%
# .. _pt2-cpu-inference-channels-last:
#
# channels_last for convolutions
# ------------------------------
# oneDNN convolves in NHWC order; an NCHW tensor is reordered on the way in and
# out of every convolution. ``.to(memory_format=torch.channels_last)`` on the
# model and the input keeps every activation NHWC: the shape stays
# ``(N, C, H, W)``, only the strides change. Timed in eager mode.
import copy

import torch

from cheatsheet import compare


def conv_bn_relu(c_in, c_out):
    conv = torch.nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    return [conv, torch.nn.BatchNorm2d(c_out), torch.nn.ReLU()]


torch.manual_seed(0)
model = torch.nn.Sequential(
    *conv_bn_relu(3, 32), *conv_bn_relu(32, 64), *conv_bn_relu(64, 64),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
).eval()  # fmt: skip
x = torch.randn(4, 3, 16, 16)
model_nhwc = copy.deepcopy(model).to(memory_format=torch.channels_last)
x_nhwc = x.to(memory_format=torch.channels_last)
print("shape", tuple(x_nhwc.shape), "strides", x.stride(), "->", x_nhwc.stride())
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.inference_mode():
        out = model_nhwc(x_nhwc)
        print(
            "output is contiguous in channels_last:",
            out.dim() == 2 or out.is_contiguous(memory_format=torch.channels_last),
        )
        table = compare(
            {"NCHW": lambda: model(x), "channels_last": lambda: model_nhwc(x_nhwc)}, budget_s=1.0
        )
finally:
    torch.set_num_threads(threads)
print(table)
print(table.verdict("channels_last") + ".")

# %%
# .. _pt2-cpu-inference-bf16:
#
# bfloat16: autocast or a bfloat16 model
# --------------------------------------
# ``torch.autocast("cpu", dtype=torch.bfloat16)`` runs convolutions and matrix
# products in bfloat16 and keeps the rest in float32; ``model.to(torch.bfloat16)``
# converts everything, input included. Either pays only where the CPU computes
# in bfloat16 (AVX-512 BF16, AMX, Arm's BF16); without them each call adds
# conversions. The error is against float32.
import copy

import torch

from cheatsheet import compare


def conv_bn_relu(c_in, c_out):
    conv = torch.nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    return [conv, torch.nn.BatchNorm2d(c_out), torch.nn.ReLU()]


torch.manual_seed(0)
model = torch.nn.Sequential(
    *conv_bn_relu(3, 32), *conv_bn_relu(32, 64), *conv_bn_relu(64, 64),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
).eval()  # fmt: skip
x = torch.randn(4, 3, 16, 16)
print(
    "AVX-512 BF16:",
    torch.cpu._is_avx512_bf16_supported(),
    " AMX:",
    torch.cpu._is_amx_tile_supported(),
)
model_bf16, x_bf16 = copy.deepcopy(model).to(torch.bfloat16), x.to(torch.bfloat16)


def autocast_bf16(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return model(x)


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.inference_mode():
        reference = model(x)
        for name, out in (("autocast", autocast_bf16(x)), ("bfloat16 model", model_bf16(x_bf16))):
            print(f"{name:15} max error {(out.float() - reference).abs().max():.1e}")
        table = compare(
            {
                "float32": lambda: model(x),
                "autocast bfloat16": lambda: autocast_bf16(x),
                "bfloat16 model": lambda: model_bf16(x_bf16),
            },
            budget_s=1.0,
        )
finally:
    torch.set_num_threads(threads)
print(table)
for verdict in table.verdicts():
    print(verdict + ".")

# %%
# .. _pt2-cpu-inference-threads:
#
# Threads: one against all cores
# ------------------------------
# ``torch.set_num_threads(n)`` sets the intra-op threads (one operator split
# across cores), ``OMP_NUM_THREADS=n`` does the same before the process starts.
# ``torch.set_num_interop_threads(n)`` (independent operators, as in
# ``torch.jit.fork``) can be called only once, before any inter-op work. A
# server running one model per core wants one thread each; one request on an
# idle machine wants all cores. On a busy machine, more threads than free
# cores is slower than one.
import os

import torch

from cheatsheet import compare


def conv_bn_relu(c_in, c_out):
    conv = torch.nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    return [conv, torch.nn.BatchNorm2d(c_out), torch.nn.ReLU()]


torch.manual_seed(0)
model = torch.nn.Sequential(
    *conv_bn_relu(3, 32), *conv_bn_relu(32, 64), *conv_bn_relu(64, 64),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
).eval()  # fmt: skip
x = torch.randn(4, 3, 16, 16)
cores = os.cpu_count()
print("cores:", cores, " OMP_NUM_THREADS:", os.environ.get("OMP_NUM_THREADS", "not set"))


def on_threads(n):
    def run():
        torch.set_num_threads(n)
        return model(x)

    return run


threads = torch.get_num_threads()
try:
    with torch.inference_mode():
        table = compare(
            {"1 thread": on_threads(1), f"{cores} threads": on_threads(cores)}, budget_s=1.0
        )
finally:
    torch.set_num_threads(threads)
print(table)
print(table.verdict(f"{cores} threads") + ".")

# %%
# .. _pt2-cpu-inference-stack:
#
# The steps together, against eager float32
# -----------------------------------------
# Each step is added to the one before, on one thread: ``inference_mode``, then
# channels_last, then compiling with freezing, then a bfloat16 model where the
# x86 checks above find bfloat16 hardware. Every verdict is against the plain eager
# float32 call; the last line names the fastest stack this machine measured.
import copy

import matplotlib.pyplot as plt
import torch
import torch._inductor.config

from cheatsheet import compare


def conv_bn_relu(c_in, c_out):
    conv = torch.nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    return [conv, torch.nn.BatchNorm2d(c_out), torch.nn.ReLU()]


torch.manual_seed(0)
model = torch.nn.Sequential(
    *conv_bn_relu(3, 32), *conv_bn_relu(32, 64), *conv_bn_relu(64, 64),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
).eval()  # fmt: skip
x = torch.randn(4, 3, 16, 16)
model_nhwc = copy.deepcopy(model).to(memory_format=torch.channels_last)
x_nhwc = x.to(memory_format=torch.channels_last)


def inference(fn, *args):
    def run():
        with torch.inference_mode():
            return fn(*args)

    return run


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    stack = {
        "eager float32": lambda: model(x),
        "+ inference_mode": inference(model, x),
        "+ channels_last": inference(model_nhwc, x_nhwc),
    }
    with torch.inference_mode(), torch._inductor.config.patch(freezing=True):
        frozen = torch.compile(model_nhwc)
        frozen(x_nhwc)
        stack["+ compiled, frozen"] = inference(frozen, x_nhwc)
        if torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported():
            model_bf16 = copy.deepcopy(model_nhwc).to(torch.bfloat16)
            frozen_bf16 = torch.compile(model_bf16)
            x_bf16 = x_nhwc.to(torch.bfloat16)
            frozen_bf16(x_bf16)
            stack["+ bfloat16"] = inference(frozen_bf16, x_bf16)
        else:
            print("no AVX-512 BF16 or AMX here: the bfloat16 step is left out")
    table = compare(stack, budget_s=2.0)
finally:
    torch.set_num_threads(threads)
print(table)
for verdict in table.verdicts():
    print(verdict + ".")
paid = [
    label for label in stack if label != "eager float32" and table.ratio(label).kind == "faster"
]
if paid:
    best = max(paid, key=table.speedup)
    print(f"fastest stack here: {table.verdict(best)}.")
else:
    print("No stack beat eager float32 by more than this machine's noise.")
table.plot(title="CPU inference steps against eager float32")
plt.show()
