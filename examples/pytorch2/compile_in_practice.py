r"""
torch.compile in practice
=========================

What to decide when ``torch.compile`` goes into real code (settings, cost, shapes, training, saving, serving, export), timed on the machine that built this page.

Summary
-------

==================================  ========================================================================================================
You want                            Call
==================================  ========================================================================================================
the machine behind the numbers      :entry:`environment() <pt2-compile-in-practice-machine>`
what this CPU can do in bfloat16    :entry:`torch.cpu.get_capabilities() <pt2-compile-in-practice-cpu>`
a preset (GPU: CUDA graphs,         :entry:`mode="reduce-overhead" <pt2-compile-in-practice-gpu>`, ``"max-autotune"``,
Triton autotuning)                  ``"max-autotune-no-cudagraphs"``
constant weights for CPU inference  :entry:`config.patch(freezing=True) <pt2-compile-in-practice-freezing>` under ``no_grad``,
                                    or ``torch._inductor.config.freezing = True``
C++ GEMM template or the library    :entry:`freezing + max_autotune=True <pt2-compile-in-practice-autotune>`: the faster kept
eager against compiled settings     :entry:`compare({"eager": m, "frozen": f}, x) <pt2-compile-in-practice-settings>`
compile cost, cold and warm         :entry:`startup_cost(setup, "torch.compile(m)(x)") <pt2-compile-in-practice-cost>`
no recompile per new size           :entry:`dynamic=True <pt2-compile-in-practice-recompiles>` or ``torch._dynamo.mark_dynamic(x, 0)``
a dynamic size within bounds        :entry:`maybe_mark_dynamic(x, 0, min=2, max=16) <pt2-whats-new-2-15-maybe-mark-dynamic>`
inputs compiled in as constants     :entry:`torch.compiler.config.static_sources <pt2-whats-new-2-15-static-sources>`
compiled training                   :entry:`torch.compile(model), then the usual loop <pt2-compile-in-practice-train>`
portable weights                    :entry:`model.compile() <pt2-compile-in-practice-save>` (in place), or save
                                    ``compiled._orig_mod.state_dict()``
the compiled wrapper in a file      :entry:`torch.load(path, weights_only=False) <pt2-compile-in-practice-pickle>`, trusted files only
no surprise compiles while serving  :entry:`set_stance("fail_on_recompile") <pt2-compile-in-practice-serving>`,
                                    after warming up each shape
forget compiled graphs              :entry:`torch._dynamo.reset() <pt2-compile-in-practice-reset>` / ``torch.compiler.reset()``
one graph to ship                   :entry:`torch.export.export(m, (x,)) <pt2-compile-in-practice-export>`, ``torch.export.save`` / ``load``
the 2.0 announcement's figures      :entry:`163 models on an A100 <pt2-compile-in-practice-published>`
==================================  ========================================================================================================
"""

# %%
# .. _pt2-compile-in-practice-machine:
#
# The machine behind the numbers
# ------------------------------
# Compile times and speedups depend on the CPU or GPU, the thread count and the
# compiler; this stamp goes with every number below. The page times on one
# thread: on a small shared machine a second OpenMP thread waiting for a free
# core turned sub-millisecond calls into tens of milliseconds.
import torch

from cheatsheet import environment

torch.set_num_threads(1)
environment()

# %%
# .. _pt2-compile-in-practice-cpu:
#
# What the modes do, and what a CPU has
# -------------------------------------
# The ``mode`` presets are about GPUs (see :ref:`pt2-compile-in-practice-gpu`).
# A CPU has no CUDA graphs, so ``"reduce-overhead"`` compiles what
# ``"default"`` does. What changes a CPU program is freezing, the dtype, and
# autotuning with freezing (Inductor's C++ GEMM template against the BLAS
# library). Whether bfloat16 runs in hardware depends on these instructions:
import torch

capabilities = torch.cpu.get_capabilities()
print("vector instructions PyTorch uses:", torch.backends.cpu.get_cpu_capability())
for name in ("avx512_bf16", "amx_tile", "amx_bf16"):
    print(f"{name:12} {capabilities.get(name, False)}")

# %%
# .. _pt2-compile-in-practice-freezing:
#
# Freezing: set it in the config, not in options=
# -----------------------------------------------
# Freezing (inference, under ``torch.no_grad()``) treats weights as constants:
# Inductor folds them and packs them once for MKL or oneDNN. Dynamo reads
# ``torch._inductor.config.freezing`` while tracing, so set it there (scoped
# here with ``config.patch``); ``options={"freezing": True}`` does not. The
# listing names the kernels of the matrix multiplications; ``run_and_get_code``
# resets Dynamo first, so it is a tool for looking. Freezing among the other
# CPU steps, timed: :ref:`pt2-cpu-inference-freezing`.
import re

import torch
import torch._inductor.config
from torch._inductor.utils import run_and_get_code


def gemm_kernels(compiled, *args):
    """Compile and run once; name the kernels of the matrix multiplications."""
    _, (source, *_) = run_and_get_code(compiled, *args)
    calls = r"\b(extern_kernels\.\w+|torch\.ops\.mkl\w*\.\w+)(?:\.default)?\("
    library = re.findall(calls, source)
    return library + ["C++ GEMM template"] * source.count("void kernel_micro_gemm(")


torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
batch = torch.randn(64, 256)
with torch.no_grad():
    print("default:                    ", gemm_kernels(torch.compile(model), batch))
    with_options = torch.compile(model, options={"freezing": True})
    print('options={"freezing": True}: ', gemm_kernels(with_options, batch))
    with torch._inductor.config.patch(freezing=True):
        print("config.patch(freezing=True):", gemm_kernels(torch.compile(model), batch))

# %%
# .. _pt2-compile-in-practice-autotune:
#
# max-autotune with freezing: the C++ GEMM template
# -------------------------------------------------
# With frozen weights, ``max_autotune`` times Inductor's C++ GEMM template
# against the library kernel for each matrix multiplication and keeps the
# faster. The template is a candidate only under max-autotune, for a product
# whose weight is a constant (freezing), whose sizes other than the batch are
# static, in float32, bfloat16, float16 or int8, on a CPU for which Inductor
# has a micro-kernel (AVX2, AVX-512 or AMX on x86; NEON or SVE on Arm). The
# line names the winner of each product: ``C++ GEMM template`` where the
# template was faster on this machine, the library's call where it was not.
# Autotuning reports on stderr (hushed here, as it does not concern the
# reader's code); 2.13 also tripped a deprecation warning inside Inductor,
# filtered here, which 2.14 no longer raises.
import contextlib
import io
import re
import warnings

import torch
import torch._inductor.config
from torch._inductor.utils import run_and_get_code


def gemm_kernels(compiled, *args):
    _, (source, *_) = run_and_get_code(compiled, *args)
    calls = r"\b(extern_kernels\.\w+|torch\.ops\.mkl\w*\.\w+)(?:\.default)?\("
    return re.findall(calls, source) + ["C++ GEMM template"] * source.count(
        "void kernel_micro_gemm("
    )


torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
batch = torch.randn(64, 256)
settings = torch._inductor.config.patch(freezing=True, max_autotune=True)
quiet = contextlib.redirect_stderr(io.StringIO())
with torch.no_grad(), settings, quiet, warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="TypedStorage is deprecated")
    print("max-autotune + freezing:", gemm_kernels(torch.compile(model), batch))

# %%
# .. _pt2-compile-in-practice-settings:
#
# CPU settings against eager, timed here
# --------------------------------------
# Each setting is compiled and called once inside its own ``config.patch``;
# ``compare`` then times the candidates in alternating rounds on one thread,
# recompiles forbidden, and each verdict says whether a setting differs from
# eager by more than this machine's noise. When max-autotune keeps freezing's
# kernels the two programs do the same work, so it is not timed against itself.
# bfloat16 halves the bytes per weight; oneDNN uses AVX-512 BF16, AMX or
# Arm's BF16 instructions where the CPU has them and slower conversions where
# not. Bars: speedups over eager
# float32 with 95% intervals; the band is "about as fast".
import contextlib
import copy
import io
import re
import warnings

import matplotlib.pyplot as plt
import torch
import torch._inductor.config
from torch._inductor.utils import run_and_get_code

from cheatsheet import compare


@contextlib.contextmanager
def quiet_autotuning():
    with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TypedStorage is deprecated")
        yield


def gemm_kernels(compiled, *args):
    _, (source, *_) = run_and_get_code(compiled, *args)
    calls = r"\b(extern_kernels\.\w+|torch\.ops\.mkl\w*\.\w+)(?:\.default)?\("
    return re.findall(calls, source) + ["C++ GEMM template"] * source.count(
        "void kernel_micro_gemm("
    )


def compiled_for_inference(model, x, **inductor_settings):
    """Compile ``model`` under these Inductor settings; the first call compiles."""
    with torch.no_grad(), torch._inductor.config.patch(**inductor_settings), quiet_autotuning():
        compiled = torch.compile(model)
        tol = 0.05 if x.dtype == torch.bfloat16 else 1e-4
        torch.testing.assert_close(compiled(x), model(x), rtol=tol, atol=tol)
    return compiled


torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
batch = torch.randn(64, 256)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.no_grad(), quiet_autotuning():
        with torch._inductor.config.patch(freezing=True):
            frozen_kernels = gemm_kernels(torch.compile(model), batch)
        with torch._inductor.config.patch(freezing=True, max_autotune=True):
            autotune_differs = gemm_kernels(torch.compile(model), batch) != frozen_kernels
    fp32_settings = {
        "eager": model,
        "default": compiled_for_inference(model, batch),
        "freezing": compiled_for_inference(model, batch, freezing=True),
    }
    if autotune_differs:
        fp32_settings["max-autotune + freezing"] = compiled_for_inference(
            model, batch, freezing=True, max_autotune=True
        )
    else:
        print("max-autotune + freezing runs the kernels of freezing alone: not timed again.")
    model_bf16, batch_bf16 = copy.deepcopy(model).to(torch.bfloat16), batch.to(torch.bfloat16)
    frozen_bf16 = compiled_for_inference(model_bf16, batch_bf16, freezing=True)
    with torch.no_grad(), torch.compiler.set_stance("fail_on_recompile"):
        fp32 = compare(fp32_settings, batch)
        bf16 = compare(
            {
                "eager, float32": lambda: model(batch),
                "eager, bfloat16": lambda: model_bf16(batch_bf16),
                "freezing, bfloat16": lambda: frozen_bf16(batch_bf16),
            }
        )
finally:
    torch.set_num_threads(threads)
print(fp32)
print(bf16)
for verdict in fp32.verdicts() + bf16.verdicts():
    print(verdict + ".")
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 4.2), layout="constrained")
fp32.plot(ax=top, title="float32 settings against eager")
bf16.plot(ax=bottom, title="bfloat16 against eager float32")
plt.show()

# %%
# .. _pt2-compile-in-practice-gpu:
#
# On a GPU: reduce-overhead and max-autotune
# ------------------------------------------
# On CUDA the presets do what their names say: ``"reduce-overhead"`` records
# CUDA graphs, ``"max-autotune"`` benchmarks Triton kernel variants while
# compiling and records CUDA graphs too, ``"max-autotune-no-cudagraphs"`` only
# autotunes. Without a CUDA GPU the block says what it skipped.
import torch

from cheatsheet import compare

if torch.cuda.is_available():
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256)
    ).cuda()
    batch = torch.randn(64, 256, device="cuda")
    gpu_modes = {"eager": model}
    for mode in ("default", "reduce-overhead", "max-autotune"):
        gpu_modes[mode] = torch.compile(model, mode=mode)
    with torch.no_grad():
        gpu_table = compare(gpu_modes, batch, device="cuda")
    for verdict in gpu_table.verdicts():
        print(verdict + ".")
else:
    print(
        "No CUDA GPU here: reduce-overhead (CUDA graphs) and max-autotune's Triton "
        "autotuning are not timed."
    )

# %%
# .. _pt2-compile-in-practice-cost:
#
# What compiling costs, and when it is repaid
# -------------------------------------------
# ``startup_cost`` times ``torch.compile`` and the first call in a fresh process
# with empty TorchInductor caches (cold: a first run on this machine), then in
# another that finds them filled (warm: every later run). Only a compiled model
# faster than eager saves time to repay that with, so the steady state is timed
# here too, with the same setup. To price ``max-autotune`` or freezing, add
# their config lines to ``setup``: autotuning happens during the cold start and
# its results are cached with the kernels. To make the cold start cheaper, see
# :ref:`pt2-compile-time-regional` and :ref:`pt2-compile-time-mega-cache`.
import torch

from cheatsheet import compare, format_seconds, startup_cost

setup = """
import torch

torch.set_num_threads(1)
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
batch = torch.randn(64, 256)
torch.set_grad_enabled(False)
"""
cost = startup_cost(setup, "torch.compile(model)(batch)")
print(f"torch.compile: cold {format_seconds(cost.cold_s)}, warm {format_seconds(cost.warm_s)}")

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
batch = torch.randn(64, 256)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.no_grad():
        compiled = torch.compile(model)
        compiled(batch)
        steady = compare({"eager": model, "compiled": compiled}, batch)
finally:
    torch.set_num_threads(threads)
ratio = steady.ratio("compiled")
if ratio.kind == "faster":
    saved_s = steady["eager"].median_s - steady["compiled"].median_s
    cold_calls, warm_calls = cost.calls_to_repay(saved_s)
    print(
        f"compiled saves {format_seconds(saved_s)} per call; the cold start is repaid "
        f"after {cold_calls:,.0f} calls, the warm start after {warm_calls:,.0f}."
    )
else:
    print(f"Compiling does not repay here: {ratio.sentence()}.")

# %%
# .. _pt2-compile-in-practice-recompiles:
#
# Recompiles on new shapes, counted
# ---------------------------------
# By default a graph is specialised to the first call's sizes; the first new
# size makes Dynamo recompile with a symbolic size, which later sizes reuse.
# ``dynamic=True`` starts symbolic, ``dynamic=False`` specialises on every size,
# and ``torch._dynamo.mark_dynamic`` makes one dimension symbolic from the
# start (``maybe_mark_dynamic`` takes bounds, and ``static_sources`` keeps an
# input static: :ref:`pt2-whats-new-2-15-maybe-mark-dynamic`,
# :ref:`pt2-whats-new-2-15-static-sources`). A backend that only counts its calls shows how many graphs compiled.
import torch
import torch._dynamo


def scale_rows(x):
    return x * x.mean(dim=1, keepdim=True)


def count_compiles(mark=False, **compile_kwargs):
    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    fn = torch.compile(scale_rows, backend=counting_backend, **compile_kwargs)
    for rows in (2, 3, 4, 5):
        x = torch.randn(rows, 8)
        if mark:
            torch._dynamo.mark_dynamic(x, 0)
        fn(x)
    return len(graphs)


print("4 calls with 2, 3, 4, 5 rows -> graphs compiled")
print(f"  default (automatic dynamic): {count_compiles()}")
print(f"  dynamic=True:                {count_compiles(dynamic=True)}")
print(f"  dynamic=False:               {count_compiles(dynamic=False)}")
print(f"  mark_dynamic(x, 0) first:    {count_compiles(mark=True)}")

# %%
# .. _pt2-compile-in-practice-train:
#
# Train a compiled model, and time a step
# ---------------------------------------
# Compile the module and train as usual: AOTAutograd compiles the backward
# pass too. On the first batch the compiled gradients match eager ones; then
# the loss falls. The published speedups are for training, so a whole step
# (forward, backward, optimizer update) is timed too, eager against compiled,
# in alternating rounds on one thread.
import copy
import functools

import torch

from cheatsheet import compare

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
eager_net = copy.deepcopy(net)
compiled_net = torch.compile(net)
inputs = torch.randn(256, 16)
targets = inputs[:, :4].sum(dim=1, keepdim=True).sin()
loss_fn = torch.nn.MSELoss()

loss_fn(compiled_net(inputs), targets).backward()
loss_fn(eager_net(inputs), targets).backward()
eager_grads = {name: p.grad for name, p in eager_net.named_parameters()}
for name, p in net.named_parameters():
    torch.testing.assert_close(p.grad, eager_grads[name])
print("gradients match eager for", list(eager_grads))

optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(1, 61):
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(compiled_net(inputs), targets)
    loss.backward()
    optimizer.step()
    if step in (1, 20, 40, 60):
        print(f"step {step:>2}  loss {loss.item():.4f}")


def train_step(module, opt):
    opt.zero_grad(set_to_none=True)
    loss_fn(module(inputs), targets).backward()
    opt.step()


eager_opt = torch.optim.Adam(eager_net.parameters(), lr=1e-2)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    training = compare(
        {
            "eager step": functools.partial(train_step, eager_net, eager_opt),
            "compiled step": functools.partial(train_step, compiled_net, optimizer),
        }
    )
finally:
    torch.set_num_threads(threads)
print(training)
print(training.verdict("compiled step") + ".")

# %%
# .. _pt2-compile-in-practice-save:
#
# Save the weights, not the wrapper
# ---------------------------------
# ``torch.compile(model)`` returns a wrapper holding the original as
# ``_orig_mod``, so its ``state_dict`` keys carry that prefix: save the
# original's ``state_dict``. ``model.compile()`` compiles in place, so its keys
# stay plain. Either way the file loads into an uncompiled model.
import os
import tempfile

import torch


def make_net():
    return torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))


net = make_net()
compiled_net = torch.compile(net)
in_place = make_net()
in_place.compile()
print("torch.compile(net) keys:", list(compiled_net.state_dict())[:2])
print("net.compile() keys:     ", list(in_place.state_dict())[:2], type(in_place).__name__)
inputs = torch.randn(8, 16)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "weights.pt")
    torch.save(compiled_net._orig_mod.state_dict(), path)
    fresh = make_net()
    print(fresh.load_state_dict(torch.load(path)))
    torch.testing.assert_close(fresh(inputs), net(inputs))

# %%
# .. _pt2-compile-in-practice-pickle:
#
# Pickling the compiled wrapper
# -----------------------------
# The 2.0 announcement said the compiled object cannot be saved. On this build
# ``torch.save`` of the wrapper runs, and the safe default of ``torch.load``
# (``weights_only=True`` since 2.6) refuses to unpickle it; only a full
# unpickle, for files you trust, gets it back, and it compiles again when called.
import os
import pickle
import re
import tempfile

import torch

compiled_net = torch.compile(torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh()))
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "compiled.pt")
    try:
        torch.save(compiled_net, path)
        print(f"torch.save(compiled wrapper): wrote {os.path.getsize(path)} bytes")
    except (pickle.PicklingError, TypeError, AttributeError, RuntimeError) as err:
        print("torch.save(compiled wrapper) failed:", type(err).__name__)
    if os.path.exists(path):
        try:
            torch.load(path)
        except pickle.UnpicklingError as err:
            first_line = re.sub(r"\x1b\[[0-9;]*m", "", str(err)).splitlines()[0]
            print(f"torch.load(path): {type(err).__name__}: {first_line[:60]}...")
        restored = torch.load(path, weights_only=False)
        print(
            "torch.load(path, weights_only=False):",
            type(restored).__name__,
            "wrapping",
            type(restored._orig_mod).__name__,
        )

# %%
# .. _pt2-compile-in-practice-serving:
#
# Warm up before serving, then forbid recompiles
# ----------------------------------------------
# Compiling happens on the first call of each new shape, so a server makes
# those calls before traffic arrives. With ``dynamic=True`` one graph covers
# every batch size above 1 (size 1 is special-cased and needs its own warm-up).
# Then ``torch.compiler.set_stance`` makes any further recompile an error
# instead of a latency spike.
import time

import torch

from cheatsheet import format_seconds

model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
serving = torch.compile(model, dynamic=True)
with torch.no_grad():
    for rows in (8, 64):  # the batch sizes the server will see
        start = time.perf_counter()
        serving(torch.randn(rows, 256))
        print(f"warm-up, batch {rows:>2}: {format_seconds(time.perf_counter() - start):>9}")
    with torch.compiler.set_stance("fail_on_recompile"):
        for rows in (5, 32, 64, 8):
            start = time.perf_counter()
            serving(torch.randn(rows, 256))
            print(f"served,  batch {rows:>2}: {format_seconds(time.perf_counter() - start):>9}")
        try:
            serving(torch.randn(8, 256, dtype=torch.float64))
        except RuntimeError as err:
            message = str(err).splitlines()[0].split(" filename:")[0]
            print(f"float64 request: {type(err).__name__}: {message}")

# %%
# .. _pt2-compile-in-practice-reset:
#
# Start from scratch with torch._dynamo.reset()
# ---------------------------------------------
# ``torch._dynamo.reset()`` (public name ``torch.compiler.reset()``) drops every
# compiled graph and guard, for example between benchmarks; the next call
# compiles again.
import torch

compiled_graphs = []


def recording_backend(gm, example_inputs):
    compiled_graphs.append(gm)
    return gm.forward


fn = torch.compile(lambda x: x * x.mean(dim=1, keepdim=True), backend=recording_backend)
fn(torch.randn(3, 8))
fn(torch.randn(3, 8))
print("graphs after two calls:          ", len(compiled_graphs))
torch._dynamo.reset()
fn(torch.randn(3, 8))
print("graphs after reset and one call: ", len(compiled_graphs))

# %%
# .. _pt2-compile-in-practice-export:
#
# A whole-graph artifact with torch.export
# ----------------------------------------
# ``torch.export.export`` traces the whole model ahead of time into an
# ``ExportedProgram``: one graph, no Python fallback, a signature listing
# parameters and inputs. In 2.0 this was the unfinished ``torch._dynamo.export``;
# now it is public, and ``torch.export.save``/``load`` write a ``.pt2`` file.
# The graph's comments name each operation's source line.
import os
import re
import tempfile

import torch

model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256), torch.nn.LayerNorm(256)
).eval()
example = (torch.randn(8, 256),)
exported = torch.export.export(model, example)
print(exported.graph_signature)
graph_code = exported.graph_module.print_readable(print_output=False)
print(re.sub(r"(# File: )\S*/", r"\1", graph_code))  # file names without this machine's folders

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pt2")
    torch.export.save(exported, path)
    reloaded = torch.export.load(path)
    with torch.no_grad():
        same = torch.equal(reloaded.module()(*example), model(*example))
    print(f"saved {os.path.getsize(path)} bytes; reloaded output equals eager: {same}")

# %%
# .. _pt2-compile-in-practice-published:
#
# The published figures beside this machine's
# -------------------------------------------
# The PyTorch 2.0 announcement measured 163 open-source models on an NVIDIA
# A100: 93% compiled and ran; training sped up by 21% on average in float32,
# 51% with AMP, and 43% with a 0.75 AMP + 0.25 float32 mix. This machine's
# verdicts are above: :ref:`training <pt2-compile-in-practice-train>` and
# :ref:`inference in float32 and bfloat16 <pt2-compile-in-practice-settings>`,
# one small network each, so they show the method, not a survey.
