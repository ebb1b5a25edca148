r"""
torch.compile essentials
========================

The calls and knobs of ``torch.compile``, and what compiling buys and costs on the machine that built this page.

Summary
-------

==============================================  ============================================================================================================
You want                                        Call
==============================================  ============================================================================================================
compile a module                                :entry:`torch.compile(model) <pt2-compile-essentials-module>`
compile a function                              :entry:`@torch.compile <pt2-compile-essentials-decorator>`
the undecorated function or module back         :entry:`fn.__wrapped__ <pt2-compile-essentials-decorator>`, ``compiled._orig_mod``
CUDA graphs for small GPU batches               :entry:`mode="reduce-overhead" <pt2-compile-essentials-modes>`
autotuned kernels (and CUDA graphs on a GPU)    :entry:`mode="max-autotune" <pt2-compile-essentials-modes>`
autotuned kernels without CUDA graphs           :entry:`mode="max-autotune-no-cudagraphs" <pt2-compile-essentials-modes>`
another compiler                                :entry:`backend="aot_eager" <pt2-compile-essentials-backends>`; ``torch.compiler.list_backends()``
single compiler settings                        :entry:`options={"max_autotune": True} <pt2-compile-essentials-options>`; ``torch._inductor.list_options()``
one graph for all input sizes                   :entry:`dynamic=True <pt2-compile-essentials-dynamic>`
forget every compiled graph                     :entry:`torch._dynamo.reset() <pt2-compile-essentials-dynamic>`
an error instead of a graph break               :entry:`fullgraph=True <pt2-compile-essentials-fullgraph>`
the machine behind the timings                  :entry:`environment() <pt2-compile-essentials-machine>`
steady state, eager against compiled            :entry:`compare({"eager": f, "compiled": g}, x) <pt2-compile-essentials-steady>`
compile cost, cold and warm caches              :entry:`startup_cost(setup, call) <pt2-compile-essentials-cost>`
==============================================  ============================================================================================================
"""

# %%
# .. _pt2-compile-essentials-module:
#
# Compile a module
# ----------------
# ``torch.compile(model)`` captures the model's PyTorch operations as a graph and
# hands it to a backend (TorchInductor by default: C++ on CPUs, Triton on GPUs).
# The wrapper shares the model's parameters, and compiles nothing until the first
# call, for that call's shapes and dtypes.
import torch
from torch import nn

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512))
compiled_mlp = torch.compile(mlp)
print(type(compiled_mlp).__name__)
print("same weight tensor:", compiled_mlp.get_parameter("_orig_mod.0.weight") is mlp[0].weight)
print("original module back:", compiled_mlp._orig_mod is mlp)

# %%
# .. _pt2-compile-essentials-decorator:
#
# Compile a function with the decorator
# -------------------------------------
# ``@torch.compile`` also takes plain functions. A chain of pointwise operations
# is what a compiler fuses best: eager runs one kernel per operation and stores
# every intermediate. ``__wrapped__`` holds the undecorated function.
import torch


@torch.compile
def gelu_tanh_residual(x: torch.Tensor) -> torch.Tensor:
    inner = 0.7978845608 * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + torch.tanh(inner)) + 0.1 * x


plain = gelu_tanh_residual.__wrapped__
print(plain.__name__, "| is the compiled object:", plain is gelu_tanh_residual)

# %%
# .. _pt2-compile-essentials-modes:
#
# Modes
# -----
# ``mode=`` picks a preset of compiler options. On CUDA, ``"reduce-overhead"``
# records CUDA graphs (one launch replays a whole step), ``"max-autotune"``
# benchmarks Triton templates and tile sizes while compiling and records CUDA
# graphs too, ``"max-autotune-no-cudagraphs"`` only autotunes. A CPU has no CUDA
# graphs. The presets as the installed PyTorch defines them:
import torch._inductor

for mode in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
    print(f"{mode:27}", torch._inductor.list_mode_options(mode))

# %%
# .. _pt2-compile-essentials-backends:
#
# Backends
# --------
# ``backend=`` picks the compiler: ``"inductor"`` by default; ``"eager"`` runs the
# captured graph as is and ``"aot_eager"`` adds ahead-of-time autograd, which
# tells a capture bug from a compiler bug. Debug backends are listed only on request.
import torch

print(torch.compiler.list_backends())
print(torch.compiler.list_backends(exclude_tags=()))

# %%
# .. _pt2-compile-essentials-options:
#
# Options
# -------
# ``options=`` sets single TorchInductor settings instead of a ``mode`` (not
# both). Check the default first: setting a default changes nothing. Freezing is
# read from ``torch._inductor.config`` instead, see
# :ref:`sphx_glr_gallery_pytorch2_compile_in_practice.py`.
import torch
import torch._inductor.config

names = torch._inductor.list_options()
print(len(names), "options, e.g.", [o for o in names if o.startswith("max_autotune")][:3])
print("max_autotune by default:", torch._inductor.config.max_autotune)
tuned = torch.compile(torch.nn.Linear(8, 8), options={"max_autotune": True})
print(type(tuned).__name__)

# %%
# .. _pt2-compile-essentials-dynamic:
#
# Dynamic shapes
# --------------
# ``dynamic=True`` compiles one graph generic in input sizes; ``False``
# specialises on every size; ``None`` (default) specialises first and turns
# dynamic when a size changes. ``torch._dynamo.reset()`` forgets compiled graphs,
# so each setting starts afresh. A backend that counts its calls shows the graphs.
import torch


def count_graphs(dynamic: bool | None) -> int:
    torch._dynamo.reset()
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

# %%
# .. _pt2-compile-essentials-fullgraph:
#
# fullgraph=True
# --------------
# By default a graph break falls back to Python silently; ``fullgraph=True``
# raises instead. A branch on a tensor's value cannot be captured in one graph.
import torch


@torch.compile(fullgraph=True, backend="eager")
def needs_python(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        return x
    return -x


try:
    needs_python(torch.ones(3))
except torch._dynamo.exc.Unsupported as err:
    print(type(err).__name__ + ":", str(err).splitlines()[0])

# %%
# .. _pt2-compile-essentials-machine:
#
# The machine behind the timings
# ------------------------------
# The timings below were measured while this page was built, on this machine,
# on one thread: a second OpenMP thread waiting for a busy core on a small
# shared machine stretches calls unpredictably.
import torch

from cheatsheet import environment

torch.set_num_threads(1)
environment()

# %%
# .. _pt2-compile-essentials-steady:
#
# Steady state: a pointwise chain and an MLP
# ------------------------------------------
# Fusion helps the pointwise chain; an MLP spends its time in matrix
# multiplications that eager and compiled code both hand to the same BLAS, so
# only the bias and activation around them can be fused. The first compiled call
# (the correctness check) compiles; ``compare`` then times eager and compiled in
# alternating rounds, and its verdict says whether a difference beats this
# machine's noise. Bars: speedup with 95% interval; the band is "about as fast".
import matplotlib.pyplot as plt
import torch
from torch import nn

from cheatsheet import compare


def gelu_chain(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x**3))) + 0.1 * x


torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512))
x, batch = torch.randn(1024, 1024), torch.randn(256, 512)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.no_grad():
        fused, compiled_mlp = torch.compile(gelu_chain), torch.compile(mlp)
        torch.testing.assert_close(fused(x), gelu_chain(x))
        torch.testing.assert_close(compiled_mlp(batch), mlp(batch), rtol=1e-4, atol=1e-4)
        pointwise = compare({"eager": gelu_chain, "compiled": fused}, x)
        matmul_bound = compare({"eager": mlp, "compiled": compiled_mlp}, batch)
finally:
    torch.set_num_threads(threads)
print(pointwise)
print(matmul_bound)
print("pointwise chain:", pointwise.verdict("compiled"))
print("MLP:", matmul_bound.verdict("compiled"))
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 2.4), layout="constrained")
pointwise.plot(ax=left, title="pointwise chain")
matmul_bound.plot(ax=right, title="MLP")
plt.show()

# %%
# .. _pt2-compile-essentials-cost:
#
# Compile cost, and when it repays
# --------------------------------
# ``startup_cost`` times ``torch.compile`` plus the first call in a fresh process
# with empty TorchInductor caches (cold: a program's first run on a machine,
# compiler import included), then in another fresh process that finds those
# caches filled (warm: every later run). Only a faster compiled call saves time
# to repay that with, so the steady state is timed here as well.
import torch

from cheatsheet import compare, format_seconds, startup_cost

setup = """
import torch

def gelu_chain(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x**3))) + 0.1 * x

x = torch.randn(1024, 1024)
torch.set_num_threads(1)
"""
cost = startup_cost(setup=setup, call="torch.compile(gelu_chain)(x)")
print(f"cold {format_seconds(cost.cold_s)}, warm {format_seconds(cost.warm_s)}")


def gelu_chain(x):  # the function of the setup, for the steady state in this process
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x**3))) + 0.1 * x


x = torch.randn(1024, 1024)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    fused = torch.compile(gelu_chain)
    fused(x)
    table = compare({"eager": gelu_chain, "compiled": fused}, x)
finally:
    torch.set_num_threads(threads)
print(table.verdict("compiled") + ".")
if table.ratio("compiled").kind == "faster":
    saved_s = table["eager"].median_s - table["compiled"].median_s
    cold_calls, warm_calls = cost.calls_to_repay(saved_s)
    print(
        f"each call saves {format_seconds(saved_s)}: repaid after {cold_calls:,.0f} "
        f"calls from cold, {warm_calls:,.0f} from warm."
    )
else:
    print("no call is measurably faster, so compiling does not repay here.")
