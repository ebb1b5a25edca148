r"""
torch.compile in practice
=========================

What you decide when you put ``torch.compile`` into real code: which mode, and
on a CPU which settings change the compiled program at all (freezing, bfloat16,
autotuning with freezing); what compiling costs on a first and on a later run;
how to stop shapes from triggering recompiles, how to train with it, how to save
the model, how to warm it up before serving, and when ``torch.export`` is the
better tool. Every timing on this page was measured while the page was built, on
the machine described in the first cell.
"""

# %%
# The machine behind the numbers
# ------------------------------
# Compile times and speedups depend on the CPU or GPU, the thread count and the
# compiler; this stamp travels with every number below. The page runs on one
# thread, so its figures are those of one core.
import torch

from cheatsheet import environment

# On a small machine shared with other work, a second OpenMP thread that waits
# for a free core turned sub-millisecond calls into tens of milliseconds.
torch.set_num_threads(1)
environment()

# %%
# What the modes do, and what a CPU has
# -------------------------------------
# The ``mode`` presets are about GPUs: ``"reduce-overhead"`` records CUDA graphs,
# ``"max-autotune"`` benchmarks Triton kernel variants while compiling and records
# CUDA graphs too, ``"max-autotune-no-cudagraphs"`` only autotunes. On a CPU there
# are no CUDA graphs, so ``"reduce-overhead"`` compiles the program ``"default"``
# does. What changes a CPU program is freezing, the data type, and autotuning
# with freezing, which lets Inductor's C++ GEMM template compete with the BLAS
# library. Whether bfloat16 runs in hardware depends on the instructions below.
import torch

capabilities = torch.cpu.get_capabilities()
print("vector instructions PyTorch uses:", torch.backends.cpu.get_cpu_capability())
for name in ("avx512_bf16", "amx_tile", "amx_bf16"):
    print(f"{name:12} {capabilities.get(name, False)}")

# %%
# Freezing: set it in the config, not in options=
# -----------------------------------------------
# Freezing (for inference, under ``torch.no_grad()``) treats the weights as
# constants: Inductor folds them and packs them once for MKL or oneDNN. Dynamo
# reads ``torch._inductor.config.freezing`` while tracing, so the flag must be set
# there (here scoped with ``config.patch``). The listing names the kernels that do
# the matrix multiplications with ``options={"freezing": True}`` and with the
# config; ``run_and_get_code`` resets Dynamo first, so it is a tool for looking.
import re

import torch._inductor.config
from torch._inductor.utils import run_and_get_code


def gemm_kernels(compiled, *args):
    """Compile and run ``compiled`` once; name the kernels of its matrix multiplications."""
    _, (source, *_) = run_and_get_code(compiled, *args)
    calls = r"\b(extern_kernels\.\w+|torch\.ops\.mkl\w*\.\w+)(?:\.default)?\("
    library = re.findall(calls, source)
    return library + ["C++ GEMM template"] * source.count("void kernel_micro_gemm(")


torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024),
    torch.nn.GELU(),
    torch.nn.Linear(1024, 256),
    torch.nn.LayerNorm(256),
).eval()
batch = torch.randn(64, 256)

with torch.no_grad():
    print("default:                    ", gemm_kernels(torch.compile(model), batch))
    with_options = torch.compile(model, options={"freezing": True})
    print('options={"freezing": True}: ', gemm_kernels(with_options, batch))
    with torch._inductor.config.patch(freezing=True):
        freezing_kernels = gemm_kernels(torch.compile(model), batch)
    print("config.patch(freezing=True):", freezing_kernels)

# %%
# max-autotune with freezing: the C++ GEMM template
# -------------------------------------------------
# With frozen weights, ``max_autotune`` times Inductor's C++ GEMM template against
# the library kernel for each matrix multiplication and keeps the faster. When
# it keeps the kernels freezing alone uses, the two programs do the same work, and
# the page says so instead of timing a program against itself.
import contextlib
import io
import warnings


@contextlib.contextmanager
def quiet_autotuning():
    # Autotuning reports its benchmarks on stderr and, in 2.13, trips a
    # deprecation warning inside Inductor; neither is about the reader's code.
    with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TypedStorage is deprecated")
        yield


settings = torch._inductor.config.patch(freezing=True, max_autotune=True)
with torch.no_grad(), settings, quiet_autotuning():
    autotuned_kernels = gemm_kernels(torch.compile(model), batch)
print("max-autotune + freezing:", autotuned_kernels)
autotune_differs = autotuned_kernels != freezing_kernels
print("other kernels than freezing alone:", autotune_differs)

# %%
# Float32 settings against eager, timed here
# ------------------------------------------
# Each setting is compiled, and called once, inside its own ``config.patch``.
# ``compare`` then times the candidates in alternating rounds, with recompiles
# forbidden; each verdict says whether a setting differs from eager by more than
# this machine's noise.
from cheatsheet import compare


def compiled_for_inference(model, x, **inductor_settings):
    """Compile ``model`` under these Inductor settings; the first call compiles."""
    settings = torch._inductor.config.patch(**inductor_settings)
    with torch.no_grad(), settings, quiet_autotuning():
        compiled = torch.compile(model)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
    return compiled


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
with torch.no_grad(), torch.compiler.set_stance("fail_on_recompile"):
    fp32 = compare(fp32_settings, batch)
for verdict in fp32.verdicts():
    print(verdict + ".")
fp32

# %%
# bfloat16, eager and frozen
# --------------------------
# bfloat16 halves the bytes per weight. oneDNN runs its matrix multiplications
# with AVX-512 BF16 or AMX instructions where the CPU has them (see the listing
# above) and falls back to slower conversions where it has not; the verdicts say
# how that turns out here.
import copy

model_bf16 = copy.deepcopy(model).to(torch.bfloat16)
batch_bf16 = batch.to(torch.bfloat16)
with torch.no_grad(), torch._inductor.config.patch(freezing=True):
    frozen_bf16 = torch.compile(model_bf16)
    torch.testing.assert_close(frozen_bf16(batch_bf16).float(), model(batch), rtol=0.05, atol=0.05)
with torch.no_grad(), torch.compiler.set_stance("fail_on_recompile"):
    bf16 = compare(
        {
            "eager, float32": lambda: model(batch),
            "eager, bfloat16": lambda: model_bf16(batch_bf16),
            "freezing, bfloat16": lambda: frozen_bf16(batch_bf16),
        }
    )
for verdict in bf16.verdicts():
    print(verdict + ".")
bf16

# %%
# The same verdicts as a chart
# ----------------------------
# Bars are speedups over eager float32 with their 95% intervals; the shaded band
# is "about as fast".
import matplotlib.pyplot as plt

fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 4.2), layout="constrained")
fp32.plot(ax=top, title="float32 settings against eager")
bf16.plot(ax=bottom, title="bfloat16 against eager float32")
plt.show()

# %%
# On a GPU: reduce-overhead and max-autotune
# ------------------------------------------
# On CUDA the presets do what their names say, so this is where to compare them.
# Without a CUDA GPU the cell says what it skipped.
import copy

from cheatsheet import compare

if torch.cuda.is_available():
    gpu_model = copy.deepcopy(model).cuda()
    gpu_batch = batch.cuda()
    gpu_modes = {"eager": gpu_model}
    for mode in ("default", "reduce-overhead", "max-autotune"):
        gpu_modes[mode] = torch.compile(gpu_model, mode=mode)
    with torch.no_grad():
        gpu_table = compare(gpu_modes, gpu_batch, device="cuda")
    for verdict in gpu_table.verdicts():
        print(verdict + ".")
else:
    print(
        "No CUDA GPU here: reduce-overhead (CUDA graphs) and max-autotune's Triton "
        "autotuning are not timed."
    )

# %%
# What compiling costs, cold and warm
# -----------------------------------
# ``startup_cost`` times ``torch.compile`` and the first call in a fresh process
# with empty TorchInductor caches (cold: a first run on this machine), then in
# another that finds them filled (warm: every later run). Autotuning is part of the
# cold start; its results are cached with the kernels.
from cheatsheet import format_seconds, startup_cost

model_setup = """
import torch

torch.set_num_threads(1)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 1024),
    torch.nn.GELU(),
    torch.nn.Linear(1024, 256),
    torch.nn.LayerNorm(256),
).eval()
batch = torch.randn(64, 256)
torch.set_grad_enabled(False)
"""
costs = {
    "default": startup_cost(model_setup, "torch.compile(model)(batch)"),
    "max-autotune + freezing": startup_cost(
        model_setup
        + """
import torch._inductor.config

torch._inductor.config.freezing = True
torch._inductor.config.max_autotune = True
""",
        "torch.compile(model)(batch)",
    ),
}
for label, cost in costs.items():
    print(
        f"{label:24} cold {format_seconds(cost.cold_s):>8}   warm {format_seconds(cost.warm_s):>8}"
    )

# %%
# When the compile is repaid
# --------------------------
# Only a setting that runs faster than eager saves time to repay its compile with;
# the counts come from the float32 table and the start-up costs above. A setting
# left untimed because it runs freezing's kernels is judged by freezing's row.
for label, cost in costs.items():
    timed_as = label if label in fp32_settings else "freezing"
    if timed_as != label:
        print(f"{label} runs the kernels of freezing alone; its steady state is freezing's.")
    ratio = fp32.ratio(timed_as)
    if ratio.kind == "faster":
        saved_s = fp32["eager"].median_s - fp32[timed_as].median_s
        cold_calls, warm_calls = cost.calls_to_repay(saved_s)
        print(
            f"{label}: saves {format_seconds(saved_s)} per call; the cold start is repaid "
            f"after {cold_calls:,.0f} calls, the warm start after {warm_calls:,.0f}."
        )
    else:
        print(f"{label}: compiling does not repay here ({ratio.sentence()}).")

# %%
# Recompiles on new shapes, counted
# ---------------------------------
# By default a graph is specialised to the sizes of the first call; the first new
# size makes Dynamo recompile with a symbolic size, which later sizes reuse.
# ``dynamic=True`` starts symbolic, ``dynamic=False`` specialises on every size,
# and ``torch._dynamo.mark_dynamic`` makes one dimension symbolic from the start.
# A backend that only counts its calls shows how many graphs were compiled.
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
# Train a compiled model
# ----------------------
# Compile the module and train as usual: AOTAutograd compiles the backward pass
# too. On the first batch the compiled gradients match eager ones; then the loss
# falls.
import copy

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

# %%
# One training step, eager against compiled
# -----------------------------------------
# The published speedups are for training, so time a whole step here as well:
# forward, backward and the optimizer update, on the same network and batch, in
# alternating rounds.
import functools

from cheatsheet import compare

eager_opt = torch.optim.Adam(eager_net.parameters(), lr=1e-2)


def train_step(module, opt):
    opt.zero_grad(set_to_none=True)
    loss_fn(module(inputs), targets).backward()
    opt.step()


training = compare(
    {
        "eager step": functools.partial(train_step, eager_net, eager_opt),
        "compiled step": functools.partial(train_step, compiled_net, optimizer),
    }
)
print(training)
print(training.verdict("compiled step") + ".")

# %%
# Save the weights, not the wrapper
# ---------------------------------
# ``torch.compile(model)`` returns a wrapper module that holds the original as
# ``_orig_mod``, so its ``state_dict`` keys carry that prefix: save the original
# module's ``state_dict``. ``model.compile()`` compiles the module in place
# instead, so its keys stay plain. Either way the file loads into an uncompiled model.
import copy
import os
import tempfile

in_place = copy.deepcopy(net)
in_place.compile()
print("torch.compile(net) keys:", list(compiled_net.state_dict())[:2])
print("net.compile() keys:     ", list(in_place.state_dict())[:2], type(in_place).__name__)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "weights.pt")
    torch.save(compiled_net._orig_mod.state_dict(), path)
    fresh = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    print(fresh.load_state_dict(torch.load(path)))
    torch.testing.assert_close(fresh(inputs), net(inputs))

# %%
# Pickling the compiled wrapper
# -----------------------------
# The 2.0 announcement said the compiled object cannot be saved. On this build
# ``torch.save`` of the wrapper runs, and the safe default of ``torch.load``
# (``weights_only=True`` since PyTorch 2.6) refuses to unpickle it; only a full
# unpickle, for files you trust, gets it back, and it compiles again when called.
import pickle
import re

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
# Warm up before serving, then forbid recompiles
# ----------------------------------------------
# Compile happens on the first call of each new shape, so a server should make
# those calls before traffic arrives. With ``dynamic=True`` one graph covers every
# batch size above 1 (size 1 is special-cased and would need its own warm-up).
# Afterwards ``torch.compiler.set_stance`` (added in PyTorch 2.6) turns any further
# recompile into an error instead of a latency spike.
import time

from cheatsheet import format_seconds

torch._dynamo.reset()  # forget the graphs compiled above, start as a server would
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
# Start from scratch with torch._dynamo.reset()
# ---------------------------------------------
# ``torch._dynamo.reset()`` (public name ``torch.compiler.reset()``) drops every
# compiled graph and guard, for example between benchmarks; the next call compiles
# again.
compiled_graphs = []


def recording_backend(gm, example_inputs):
    compiled_graphs.append(gm)
    return gm.forward


fn = torch.compile(scale_rows, backend=recording_backend)
fn(torch.randn(3, 8))
fn(torch.randn(3, 8))
print("graphs after two calls:          ", len(compiled_graphs))
torch._dynamo.reset()
fn(torch.randn(3, 8))
print("graphs after reset and one call: ", len(compiled_graphs))

# %%
# A whole-graph artifact with torch.export
# ----------------------------------------
# ``torch.export.export`` traces the whole model ahead of time into an
# ``ExportedProgram``: one graph, no Python fallback, a signature that lists
# parameters and inputs. In 2.0 this was the unfinished ``torch._dynamo.export``;
# now it is public, and ``torch.export.save``/``load`` write a ``.pt2`` file.
# The graph's comments name the source line of each operation.
import os
import re
import tempfile

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
# The published figures beside this machine's
# -------------------------------------------
# The announcement measured 163 open-source models on an NVIDIA A100. The
# verdicts after its figures were computed above, on the machine in the first
# cell: one small network each, so they show the method, not a survey.
published = [
    ("models measured", "163"),
    ("compiles and runs", "93% of models"),
    ("training speedup, float32", "21% on average"),
    ("training speedup, AMP", "51% on average"),
    ("training speedup, 0.75 AMP + 0.25 float32", "43% on average"),
]
width = max(len(what) for what, _ in published)
print("PyTorch 2.0 announcement, A100:")
for what, value in published:
    print(f"  {what:<{width}}  {value}")
print(f"This page, {environment().cpu}, {torch.get_num_threads()} thread(s):")
print(f"  training step, float32: {training.verdict('compiled step')}")
print(f"  inference, float32:     {fp32.verdict('default')}")
print(f"  inference, bfloat16:    {bf16.verdict('freezing, bfloat16')}")

# %%
# Summary
# -------
#
# ==================================  =====================================================
# You want                            Call
# ==================================  =====================================================
# a preset (GPU: CUDA graphs,         ``torch.compile(m, mode="reduce-overhead")``,
# Triton autotuning)                  ``mode="max-autotune"``, ``"max-autotune-no-cudagraphs"``
# constant weights for CPU inference  ``torch._inductor.config.freezing = True`` (or
#                                     ``config.patch(freezing=True)``), under ``no_grad``
# the C++ GEMM template on a CPU      freezing plus ``torch._inductor.config.max_autotune``
# what this CPU can do in bfloat16    ``torch.cpu.get_capabilities()``
# eager against compiled settings     ``compare({"eager": m, "frozen": frozen}, x)``
# compile cost, cold and warm         ``startup_cost(setup, "torch.compile(m)(x)")``
# no recompile per new size           ``dynamic=True`` or ``torch._dynamo.mark_dynamic(x, 0)``
# compiled training                   ``torch.compile(model)``, then the usual loop
# portable weights                    ``model.compile()`` (in place), or save
#                                     ``compiled._orig_mod.state_dict()``
# no surprise compiles while serving  warm up each shape, then
#                                     ``torch.compiler.set_stance("fail_on_recompile")`` (2.6)
# forget compiled graphs              ``torch._dynamo.reset()`` / ``torch.compiler.reset()``
# one graph to ship                   ``torch.export.export``, ``torch.export.save`` / ``load``
# ==================================  =====================================================
