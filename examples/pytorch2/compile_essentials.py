r"""
torch.compile essentials
========================

``torch.compile`` turns a function or an ``nn.Module`` into an optimised one: it
captures the PyTorch operations as a graph and hands that graph to a compiler
backend (by default TorchInductor, which writes C++ for CPUs and Triton for GPUs).
This page shows the calls and the knobs, then measures what compiling buys on the
machine that built this page, for a function where fusion helps and for one
where there is little to fuse.
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


@torch.compile
def gelu_tanh_residual(x: torch.Tensor) -> torch.Tensor:
    inner = 0.7978845608 * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + torch.tanh(inner)) + 0.1 * x


# ``._torchdynamo_orig_callable`` is the undecorated function, for eager timings.
gelu_eager = gelu_tanh_residual._torchdynamo_orig_callable
print(gelu_eager.__name__)

# %%
# Modes
# -----
# ``mode`` selects a preset of compiler options: ``"default"`` balances compile
# time and speed, ``"reduce-overhead"`` adds CUDA graphs to cut launch overhead
# of small GPU batches, ``"max-autotune"`` benchmarks candidate kernels while
# compiling (slow to compile, fastest to run). Here is what each preset sets in
# the installed PyTorch:
import torch._inductor

for mode in ("default", "reduce-overhead", "max-autotune"):
    print(f"{mode:16}", torch._inductor.list_mode_options(mode))

# %%
# Backends
# --------
# ``backend`` picks the compiler. ``inductor`` is the default; ``eager`` runs
# the captured graph unchanged and ``aot_eager`` adds the ahead-of-time autograd
# step, both handy for telling a compiler bug from a capture bug. Debug backends
# are left out of the list unless you ask for them.
print(torch.compiler.list_backends())
print(torch.compiler.list_backends(exclude_tags=()))

# %%
# Options
# -------
# ``options`` passes individual TorchInductor settings instead of a ``mode``
# (the two cannot be combined). ``torch._inductor.list_options()`` names them all.
options = torch._inductor.list_options()
print(len(options), "options, for example:", [o for o in options if "fusion" in o][:4])
tuned = torch.compile(gelu_eager, options={"epilogue_fusion": True, "max_autotune": False})

# %%
# Dynamic shapes and fullgraph
# ----------------------------
# ``dynamic=True`` compiles a graph generic in its input sizes instead of
# specialising on the first one (``None``, the default, specialises first and
# turns dynamic when a size changes). ``fullgraph=True`` makes any graph break
# an error instead of a silent fallback to Python. A counting backend shows how
# many graphs each setting compiles for three input lengths.


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
# First call versus steady state
# ------------------------------
# The first call pays for tracing and code generation (or for loading the result
# from TorchInductor's on-disk cache if this machine compiled the same graph
# before). :func:`cheatsheet.benchmark` times that call on its own, then times the
# steady state separately, so the compile cost never hides in the average.
from cheatsheet import benchmark, compare, environment

x = torch.randn(1024, 1024)
eager_pointwise = benchmark(gelu_eager, x, label="pointwise, eager", min_time_s=0.5)
compiled_pointwise = benchmark(gelu_tanh_residual, x, label="pointwise, compiled", min_time_s=0.5)
torch.testing.assert_close(gelu_tanh_residual(x), gelu_eager(x))
for m in (eager_pointwise, compiled_pointwise):
    print(
        f"{m.label:20}  first call {m.first_call_s * 1e3:9.1f} ms   "
        f"steady {m.median_s * 1e3:7.3f} ms"
    )

# %%
# A matmul-bound model
# --------------------
# Most of an MLP's time goes into matrix multiplications, which both eager and
# compiled code hand to the same BLAS library; the compiler can only fuse the
# cheap bias and activation around them.
batch = torch.randn(256, 512)
with torch.no_grad():
    eager_mlp = benchmark(mlp, batch, label="MLP, eager", min_time_s=0.5)
    compiled_mlp_time = benchmark(compiled_mlp, batch, label="MLP, compiled", min_time_s=0.5)
    torch.testing.assert_close(compiled_mlp(batch), mlp(batch), rtol=1e-4, atol=1e-4)
print(f"MLP compile (first call): {compiled_mlp_time.first_call_s:.1f} s")

# %%
# Eager versus compiled, measured here
# ------------------------------------
# Each speedup is relative to the eager row of the same workload.
pointwise = compare([eager_pointwise, compiled_pointwise])
matmul_bound = compare([eager_mlp, compiled_mlp_time])
pointwise

# %%
matmul_bound

# %%
# The verdicts below are computed from the two tables on every build, as is the
# number of steady-state calls it takes to pay back the compile cost.
for table, compiled in ((pointwise, compiled_pointwise), (matmul_bound, compiled_mlp_time)):
    eager = table[table.baseline]
    print(f"On this machine {table.verdict(compiled.label)}.")
    saved = eager.median_s - compiled.median_s
    if saved > 0:
        print(f"  compile cost repaid after {compiled.first_call_s / saved:,.0f} calls")
    else:
        print("  compiling does not pay off here: the compiled version is not faster")

# %%
# Both workloads in one plot
# --------------------------
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(10, 2.6), layout="constrained")
for ax, table, title in ((axes[0], pointwise, "pointwise chain"), (axes[1], matmul_bound, "MLP")):
    labels = [m.label.split(", ")[1] for m in table.measurements]
    ms = [m.median_s * 1e3 for m in table.measurements]
    ax.barh(labels, ms, color=["#8c8c8c", "#4c72b0"])
    ax.set_title(f"{title}: compiled {table.speedup(table.measurements[1].label):.2f}x")
    ax.set_xlabel("median time per call (ms)")
    ax.invert_yaxis()
plt.show()

# %%
# The machine these numbers belong to
# -----------------------------------
environment()

# %%
# Cheat sheet
# -----------
#
# =====================================================  ===============================================
# You want                                               Call
# =====================================================  ===============================================
# compile a module or function                           ``torch.compile(model)``, ``@torch.compile``
# less Python overhead on small GPU batches              ``mode="reduce-overhead"`` (CUDA graphs)
# the fastest kernels, compile time no object            ``mode="max-autotune"``
# one graph for all input sizes                          ``dynamic=True``
# an error instead of a graph break                      ``fullgraph=True``
# another compiler                                       ``backend="aot_eager"``; ``torch.compiler.list_backends()``
# single compiler settings                               ``options={...}``; ``torch._inductor.list_options()``
# the undecorated function back                          ``fn._torchdynamo_orig_callable``, ``compiled._orig_mod``
# forget every compiled graph                            ``torch._dynamo.reset()``
# =====================================================  ===============================================
