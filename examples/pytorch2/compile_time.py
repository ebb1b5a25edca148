r"""
Keeping compile time down
=========================

How to pay less for ``torch.compile``: compile in place, compile the repeated block, reuse the caches, ship them, and stop recompiles.

Summary
-------

====================================  ==================================================================================
You want                              Call
====================================  ==================================================================================
compile a module in place             :entry:`model.compile() <pt2-compile-time-in-place>`; ``torch.compile(model)``
                                      wraps it and prefixes ``_orig_mod.`` to its keys
compile N identical blocks once       :entry:`for block in model.blocks: block.compile() <pt2-compile-time-regional>`
see that the blocks share one graph   :entry:`a counting backend <pt2-compile-time-reuse>`
know where the compiled code goes     :entry:`TORCHINDUCTOR_CACHE_DIR <pt2-compile-time-caches>`,
                                      ``TORCHINDUCTOR_FX_GRAPH_CACHE``, ``TORCHINDUCTOR_AUTOGRAD_CACHE``
carry the caches to a new machine     :entry:`torch.compiler.save_cache_artifacts() <pt2-compile-time-mega-cache>`,
                                      then ``load_cache_artifacts(data)`` before compiling
compile here, load in a new process   :entry:`precompile.capture(fn, ...) <pt2-whats-new-2-15-precompile>`, then ``precompile.load``
find and cap recompiles               :entry:`TORCH_LOGS="recompiles" <pt2-compile-time-recompiles>`,
                                      ``torch._dynamo.config.recompile_limit``
====================================  ==================================================================================
"""

# %%
# .. _pt2-compile-time-in-place:
#
# model.compile() against torch.compile(model)
# --------------------------------------------
# ``nn.Module.compile()`` compiles the module's ``forward`` in place: the
# object, its type and its ``state_dict`` keys stay as they were.
# ``torch.compile(model)`` returns an ``OptimizedModule`` that holds the model
# as ``_orig_mod``, and its keys carry that prefix (see
# :ref:`pt2-compile-in-practice-save` for saving either). Both compile lazily,
# at the first call.
import torch

wrapped = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU()))
in_place = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())
in_place.compile()
print(f"torch.compile(model): {type(wrapped).__name__:14} keys {list(wrapped.state_dict())}")
print(f"model.compile():      {type(in_place).__name__:14} keys {list(in_place.state_dict())}")

# %%
# .. _pt2-compile-time-regional:
#
# Regional compilation: compile the repeated block
# ------------------------------------------------
# A transformer is the same block N times. Compiling the whole model traces and
# lowers all N copies; compiling each block (``block.compile()``) traces one,
# and the other blocks reuse its code (since 2.5, when Dynamo began to treat
# module parameters as inputs). ``startup_cost`` times the first call in fresh
# processes: cold (empty TorchInductor cache: a first run on a machine) and
# warm (the cache the cold run filled). ``compare`` then times the steady state,
# where regional compilation gives up fusion across block boundaries and pays
# one guard check per block.
import textwrap

import torch

from cheatsheet import compare, format_seconds, startup_cost

model_source = textwrap.dedent("""
    import torch

    class Block(torch.nn.Module):
        def __init__(self, width=64):
            super().__init__()
            self.norm = torch.nn.LayerNorm(width)
            self.up = torch.nn.Linear(width, 4 * width)
            self.down = torch.nn.Linear(4 * width, width)

        def forward(self, x):
            return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))

    class Stack(torch.nn.Module):
        def __init__(self, depth=6):
            super().__init__()
            self.blocks = torch.nn.ModuleList(Block() for _ in range(depth))

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    torch.manual_seed(0)
    model = Stack().eval()
    x = torch.randn(32, 64)
""")
one_thread = "torch.set_num_threads(1)\ntorch.set_grad_enabled(False)\n"
whole = startup_cost(model_source + one_thread + "model.compile()\n", "model(x)")
regional = startup_cost(
    model_source + one_thread + "for block in model.blocks:\n    block.compile()\n", "model(x)"
)
for name, cost in (("whole model", whole), ("each block", regional)):
    print(
        f"{name:12} cold {format_seconds(cost.cold_s):>8}   warm {format_seconds(cost.warm_s):>8}"
    )
print(f"regional cold start: {regional.cold_s / whole.cold_s:.0%} of the whole model's")

namespace = {}
exec(model_source, namespace)  # the very source the fresh processes ran
model, x = namespace["model"], namespace["x"]
whole_model = torch.compile(model)
regional_model = namespace["Stack"]().eval()
regional_model.load_state_dict(model.state_dict())
for block in regional_model.blocks:
    block.compile()
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.no_grad():
        torch.testing.assert_close(regional_model(x), whole_model(x))
        steady = compare(
            {"eager": model, "whole model": whole_model, "each block": regional_model},
            x,
            budget_s=1.0,
        )
finally:
    torch.set_num_threads(threads)
print(steady)
for verdict in steady.verdicts():
    print(verdict + ".")

# %%
# .. _pt2-compile-time-reuse:
#
# Identical blocks share one compiled graph
# -----------------------------------------
# A backend that records what it is given shows the difference: the whole
# model arrives as one graph holding every block's operations, the blocks as
# one small graph that Dynamo compiles once and reuses for the other seven
# (their weights differ, so they are graph inputs, not constants). With
# autograd on, the last line shows which graph each block's call ran: the
# first block keeps its graph and the other seven share a second one, since
# the first block's input does not require grad, the others' do, and
# ``requires_grad`` is guarded. Where warnings are errors (``python -W error``,
# pytest's ``filterwarnings = error``), that guard fails: Dynamo reads ``.grad``
# of the later blocks' non-leaf input, torch's warning about it is raised
# before Dynamo can hide it, and the compile stops with
# ``InternalTorchDynamoError``. The block runs the call under Python's default
# filter, where torch hides that warning and prints nothing.
import warnings

import torch


class Block(torch.nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(x)))


def graphs_compiled(regional, grad=False):
    graphs, ran = [], []

    def recording_backend(gm, example_inputs):
        index = len(graphs)
        graphs.append(len(gm.graph.nodes))

        def run(*args):
            ran.append(index)
            return gm.forward(*args)

        return run

    torch._dynamo.reset()
    model = torch.nn.Sequential(*(Block() for _ in range(8)))
    if regional:
        for block in model:
            block.compile(backend=recording_backend)
    else:
        model.compile(backend=recording_backend)
    with torch.set_grad_enabled(grad), warnings.catch_warnings():
        warnings.simplefilter("default")
        model(torch.randn(4, 16))
    return graphs, ran


for label, regional, grad in (
    ("whole model", False, False),
    ("each block", True, False),
    ("each block, autograd", True, True),
):
    graphs, ran = graphs_compiled(regional, grad)
    print(f"{label:20} node counts of the graphs: {graphs}; graph each call ran: {ran}")

# %%
# .. _pt2-compile-time-caches:
#
# The on-disk caches, cold and warm
# ---------------------------------
# Inductor writes compiled graphs and kernels under ``TORCHINDUCTOR_CACHE_DIR``
# (default: ``torchinductor_<user>`` in the temp directory). The FX graph
# cache (``TORCHINDUCTOR_FX_GRAPH_CACHE``) and the AOTAutograd cache
# (``TORCHINDUCTOR_AUTOGRAD_CACHE``) are on by default in this build, and the
# next process with the same inputs, shapes and settings skips lowering and
# C++ compilation: the warm column of :ref:`pt2-compile-time-regional`.
# ``startup_cost`` gets its cold run by pointing ``TORCHINDUCTOR_CACHE_DIR`` at
# an empty temporary folder; set the variable yourself to keep a cache across
# containers, or ``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`` to time a compile
# from scratch.
import torch
import torch._functorch.config
import torch._inductor.config
from torch._inductor.runtime.cache_dir_utils import cache_dir

print("cache folder:       ", cache_dir())
print("FX graph cache:     ", torch._inductor.config.fx_graph_cache)
print("AOTAutograd cache:  ", torch._functorch.config.enable_autograd_cache)
print("caches forced off:  ", torch._inductor.config.force_disable_caches)

# %%
# .. _pt2-compile-time-mega-cache:
#
# Portable cache artifacts (mega-cache)
# -------------------------------------
# ``torch.compiler.save_cache_artifacts()`` returns the cache
# entries this process created as ``(bytes, CacheInfo)``; a new process calls
# ``torch.compiler.load_cache_artifacts(data)`` before compiling. Two fresh
# processes, each with an empty cache folder: the first compiles and saves, the
# second loads and compiles. PyTorch, Triton and device must match. The second
# process still runs Dynamo, which traces the bytecode again; the work after
# it, AOTAutograd's and Inductor's, it finds in the loaded cache entries (the
# saved line names them). On a CPU it still compiles the kernels' C++, which
# the artifacts do not bundle; on CUDA the Triton kernels travel with them.
import os
import subprocess
import sys
import tempfile
import textwrap

from cheatsheet import format_seconds

child = textwrap.dedent("""
    import sys, time
    import torch

    artifact_path, action = sys.argv[1], sys.argv[2]
    if action == "load":
        with open(artifact_path, "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)
    ).eval()
    start = time.perf_counter()
    with torch.no_grad():
        torch.compile(model)(torch.randn(32, 64))
    print(time.perf_counter() - start)
    if action == "save":
        data, info = torch.compiler.save_cache_artifacts()
        with open(artifact_path, "wb") as f:
            f.write(data)
        print(f"saved {len(data):,} bytes: {dict(info.artifacts)}", file=sys.stderr)
""")
with tempfile.TemporaryDirectory() as tmp:
    artifact_path = os.path.join(tmp, "compiled.bin")
    first_call_s = {}
    for action in ("save", "load"):
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": os.path.join(tmp, f"cache-{action}")}
        done = subprocess.run(
            [sys.executable, "-c", child, artifact_path, action],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        first_call_s[action] = float(done.stdout.split()[-1])
        for line in done.stderr.splitlines():
            if line.startswith("saved"):
                print(line)
print(f"first call, empty cache:             {format_seconds(first_call_s['save']):>8}")
print(f"first call, artifacts loaded first:  {format_seconds(first_call_s['load']):>8}")

# %%
# .. _pt2-compile-time-recompiles:
#
# Find recompiles, and cap them
# -----------------------------
# Every new input size under ``dynamic=False`` (or each of the first sizes
# before automatic dynamic shapes kick in) costs a compile; ``dynamic=True``
# or ``torch._dynamo.mark_dynamic(x, 0)`` avoid them, as
# :ref:`pt2-compile-in-practice-recompiles` counts. ``TORCH_LOGS="recompiles"``
# (in code: ``torch._logging.set_logs(recompiles=True)``) prints the guard that
# failed; ``torch._dynamo.config.recompile_limit`` (8 by default; its older
# name ``cache_size_limit`` still works) is where Dynamo gives up and runs the
# function eagerly. The log goes to stderr; here it is caught and trimmed.
import contextlib
import io

import torch


def scale(x):
    return x * x.mean()


compiled = torch.compile(scale, backend="eager", dynamic=False)  # Dynamo only, no Inductor
log = io.StringIO()
torch._logging.set_logs(recompiles=True)
try:
    with contextlib.redirect_stderr(log), torch._dynamo.config.patch(recompile_limit=2):
        for size in (2, 3, 4):
            compiled(torch.randn(size))
finally:
    torch._logging.set_logs()
for line in log.getvalue().splitlines():
    if "mismatch" in line or "hit config" in line:
        print(line.split("]", 3)[-1].strip())
