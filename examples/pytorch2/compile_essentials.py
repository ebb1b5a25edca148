r"""
torch.compile essentials
========================

``torch.compile`` turns a function or an ``nn.Module`` into an optimised one: it
captures the PyTorch operations as a graph and hands that graph to a compiler
backend (by default TorchInductor, which writes C++ for CPUs and Triton for GPUs).
This page shows the calls and the knobs, then measures what compiling buys on the
machine that built this page, for a function where fusion helps and for one
where there is little to fuse: the steady state of eager and compiled code timed
in alternation, and the compile cost timed apart, in fresh processes, the way a
program pays it on its first and on its later runs.
"""

# %%
# Compile a module
# ----------------
# ``torch.compile(model)`` returns a wrapper that shares the model's parameters.
# Nothing is compiled yet: compilation happens on the first call, for the input
# shapes and dtypes of that call.
import torch
from torch import nn

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512))
compiled_mlp = torch.compile(mlp)
print(type(compiled_mlp).__name__)
print("shares parameters:", compiled_mlp.get_parameter("_orig_mod.0.weight") is mlp[0].weight)

# %%
# Compile a function with the decorator
# -------------------------------------
# ``@torch.compile`` works on plain functions too. This one is a chain of
# pointwise operations: eager PyTorch runs one kernel per operation and writes
# every intermediate to memory, which is exactly what a compiler can fuse away.
import torch


@torch.compile
def gelu_tanh_residual(x: torch.Tensor) -> torch.Tensor:
    inner = 0.7978845608 * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + torch.tanh(inner)) + 0.1 * x


# Like functools.wraps, the compiled function keeps the original as __wrapped__.
gelu_eager = gelu_tanh_residual.__wrapped__
print(
    "original:",
    gelu_eager.__name__,
    "| the compiled object itself:",
    gelu_eager is gelu_tanh_residual,
)

# %%
# Modes
# -----
# ``mode`` selects a preset of compiler options. On a CUDA GPU,
# ``"reduce-overhead"`` records CUDA graphs, replaying a whole step with one
# launch; ``"max-autotune"`` benchmarks candidate kernels (Triton templates,
# tile sizes) while compiling and records CUDA graphs as well;
# ``"max-autotune-no-cudagraphs"`` autotunes without the graphs. On a CPU there
# are no CUDA graphs to record. Here is what each preset sets in the installed
# PyTorch:
import torch._inductor

for mode in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
    print(f"{mode:27}", torch._inductor.list_mode_options(mode))

# %%
# Backends
# --------
# ``backend`` picks the compiler. ``inductor`` is the default; ``eager`` runs
# the captured graph unchanged and ``aot_eager`` adds the ahead-of-time autograd
# step, both handy for telling a compiler bug from a capture bug. Debug backends
# are left out of the list unless you ask for them.
import torch

print(torch.compiler.list_backends())
print(torch.compiler.list_backends(exclude_tags=()))

# %%
# Options
# -------
# ``options`` sets individual TorchInductor settings instead of a ``mode`` (the
# two cannot be combined); ``torch._inductor.list_options()`` names them all.
# Compare with the default first: passing a setting its default value changes
# nothing. Freezing is the exception to this route: Dynamo reads it from
# ``torch._inductor.config`` while tracing, as
# :ref:`sphx_glr_gallery_pytorch2_compile_in_practice.py` shows.
import torch
import torch._inductor.config

options = torch._inductor.list_options()
print(
    len(options), "options, for example:", [o for o in options if o.startswith("max_autotune")][:3]
)
print("max_autotune by default:", torch._inductor.config.max_autotune)
tuned = torch.compile(gelu_eager, options={"max_autotune": True})

# %%
# Dynamic shapes and fullgraph
# ----------------------------
# ``dynamic=True`` compiles a graph generic in its input sizes instead of
# specialising on the first one (``None``, the default, specialises first and
# turns dynamic when a size changes). ``fullgraph=True`` makes any graph break
# an error instead of a silent fallback to Python. A counting backend shows how
# many graphs each setting compiles for three input lengths.
import torch


def count_graphs(dynamic: bool | None) -> int:
    torch._dynamo.reset()  # dynamo remembers sizes it saw; start each setting afresh
    graphs = 0

    def counting_backend(gm: torch.fx.GraphModule, example_inputs: list) -> object:
        nonlocal graphs
        graphs += 1
        return gm.forward

    fn = torch.compile(lambda x: (x * 2).sum(), backend=counting_backend, dynamic=dynamic)
    for n in (8, 16, 32):
        fn(torch.ones(n))
    return graphs


for dynamic in (False, None, True):
    print(f"dynamic={dynamic!s:5}: {count_graphs(dynamic)} graph(s) for 3 input sizes")


@torch.compile(fullgraph=True, backend="eager")
def needs_python(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:  # a branch on tensor data cannot be captured in one graph
        return x
    return -x


try:
    needs_python(torch.ones(3))
except torch._dynamo.exc.Unsupported as err:
    print(type(err).__name__ + ":", str(err).splitlines()[0])

# %%
# The machine these numbers belong to
# -----------------------------------
# Every timing below was measured while this page was built, on this machine and
# on one thread, so the figures are those of one core.
import torch

from cheatsheet import environment

# On a small machine shared with other work, a second OpenMP thread that waits
# for a free core stretches calls unpredictably; one thread keeps timings steady.
torch.set_num_threads(1)
environment()

# %%
# Steady state of a pointwise chain
# ---------------------------------
# The compiled function's first call, in the correctness check, compiles it.
# ``compare`` then times both in alternating rounds, so a slow spell of the
# machine falls on both alike; the verdict column says whether the difference is
# larger than this machine's noise.
import torch

from cheatsheet import compare

x = torch.randn(1024, 1024)
torch.testing.assert_close(gelu_tanh_residual(x), gelu_eager(x))
pointwise = compare({"eager": gelu_eager, "compiled": gelu_tanh_residual}, x)
pointwise

# %%
# Steady state of a matmul-bound model
# ------------------------------------
# Most of an MLP's time goes into matrix multiplications, which both eager and
# compiled code hand to the same BLAS library; the compiler can only fuse the
# cheap bias and activation around them. Compare this table's verdict with the
# one above.
import torch

from cheatsheet import compare

batch = torch.randn(256, 512)
with torch.no_grad():
    torch.testing.assert_close(compiled_mlp(batch), mlp(batch), rtol=1e-4, atol=1e-4)
    matmul_bound = compare({"eager": mlp, "compiled": compiled_mlp}, batch)
matmul_bound

# %%
# Both speedups in one plot
# -------------------------
# Each bar is the compiled code's speedup over eager with its 95% interval; the
# shaded band around 1 is "about as fast".
import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 2.4), layout="constrained")
pointwise.plot(ax=left, title="pointwise chain")
matmul_bound.plot(ax=right, title="MLP")
plt.show()

# %%
# What compiling costs, cold and warm
# -----------------------------------
# A program pays for compiling on its first call, and how much depends on what
# the disk already holds. ``startup_cost`` times ``torch.compile`` and the first
# call in a fresh Python process with empty TorchInductor caches (cold: the first
# run on a machine, importing the compiler included), then in another fresh
# process that finds the caches the first one filled (warm: every later run).
from cheatsheet import format_seconds, startup_cost

pointwise_cost = startup_cost(
    setup="""
import torch

def gelu_tanh_residual(x):
    inner = 0.7978845608 * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + torch.tanh(inner)) + 0.1 * x

x = torch.randn(1024, 1024)
torch.set_num_threads(1)
""",
    call="torch.compile(gelu_tanh_residual)(x)",
)
mlp_cost = startup_cost(
    setup="""
import torch
from torch import nn

mlp = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512))
batch = torch.randn(256, 512)
torch.set_num_threads(1)
torch.set_grad_enabled(False)
""",
    call="torch.compile(mlp)(batch)",
)
for name, cost in (("pointwise chain", pointwise_cost), ("MLP", mlp_cost)):
    print(
        f"{name:15}  cold {format_seconds(cost.cold_s):>8}   warm {format_seconds(cost.warm_s):>8}"
    )

# %%
# When compiling repays its cost
# ------------------------------
# Only a compiled call that is faster saves time to repay the compile with. The
# count of calls comes from the steady-state tables and the start-up costs above.
from cheatsheet import format_seconds

for name, table, cost in (
    ("pointwise chain", pointwise, pointwise_cost),
    ("MLP", matmul_bound, mlp_cost),
):
    print(f"{name}: {table.verdict('compiled')}.")
    if table.ratio("compiled").kind == "faster":
        saved_s = table["eager"].median_s - table["compiled"].median_s
        cold_calls, warm_calls = cost.calls_to_repay(saved_s)
        print(
            f"  each call saves {format_seconds(saved_s)}: a cold start "
            f"({format_seconds(cost.cold_s)}) is repaid after {cold_calls:,.0f} calls, "
            f"a warm start ({format_seconds(cost.warm_s)}) after {warm_calls:,.0f}."
        )
    else:
        print(
            f"  compiling does not repay here: the cold start costs "
            f"{format_seconds(cost.cold_s)} and the warm start {format_seconds(cost.warm_s)}, "
            "and no call is measurably faster."
        )

# %%
# Summary
# -------
#
# =====================================================  ===============================================
# You want                                               Call
# =====================================================  ===============================================
# compile a module or function                           ``torch.compile(model)``, ``@torch.compile``
# CUDA graphs for small GPU batches                      ``mode="reduce-overhead"``
# autotuned kernels (and CUDA graphs on a GPU)           ``mode="max-autotune"``
# autotuned kernels without CUDA graphs                  ``mode="max-autotune-no-cudagraphs"``
# one graph for all input sizes                          ``dynamic=True``
# an error instead of a graph break                      ``fullgraph=True``
# another compiler                                       ``backend="aot_eager"``; ``torch.compiler.list_backends()``
# single compiler settings                               ``options={"max_autotune": True}``; ``torch._inductor.list_options()``
# the undecorated function back                          ``fn.__wrapped__``, ``compiled._orig_mod``
# steady state, eager against compiled                   ``compare({"eager": f, "compiled": g}, x)``
# compile cost, cold and warm caches                     ``startup_cost(setup, call)``
# forget every compiled graph                            ``torch._dynamo.reset()``
# =====================================================  ===============================================
