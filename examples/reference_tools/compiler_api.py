r"""
torch.compiler reference
========================

The switches around ``torch.compile``: what goes into a graph, when it
recompiles, and how to turn it off.

Summary
-------

==================================================  ==================================================
You want                                            Call
==================================================  ==================================================
to see what a graph holds                           :entry:`torch.compile(fn, backend=record) <api-compiler-custom-backend>`
to keep a function out of the graph (runs eagerly)  :entry:`@torch.compiler.disable <api-compiler-disable>`
to put a function in the graph as one opaque call   :entry:`torch.compiler.allow_in_graph <api-compiler-allow-in-graph>`
to branch on whether Dynamo is tracing              :entry:`torch.compiler.is_compiling <api-compiler-is-compiling>`
to bake a function's result in as a constant        :entry:`torch.compiler.assume_constant_result <api-compiler-assume-constant-result>`
to compile NumPy code on tensors                    :entry:`torch.compiler.wrap_numpy <api-compiler-wrap-numpy>`
to force eager, or fail instead of recompiling      :entry:`torch.compiler.set_stance <api-compiler-set-stance>`
to cap the graphs kept per function                 :entry:`torch._dynamo.config.recompile_limit <api-dynamo-config-recompile-limit>`
to drop every compiled graph and guard              :entry:`torch.compiler.reset <api-compiler-reset>`
the legacy spelling of ``torch.compile``            :entry:`torch._dynamo.optimize <api-dynamo-optimize>`
the names to pass as ``backend=``                   :entry:`torch.compiler.list_backends <api-compiler-list-backends>`
to compile now and load in another process          :entry:`torch.compiler.precompile.capture <api-compiler-precompile>`, then ``load``
==================================================  ==================================================
"""

# %%
# .. _api-compiler-custom-backend:
#
# A backend that shows the graphs
# -------------------------------
# A ``torch.compile`` backend is any function that takes the captured FX graph
# and example inputs and returns something callable. This one notes the ops of
# each graph and runs it unchanged, so the entries below can show what went into
# the graph; the default backend (``inductor``) is the one that makes code fast.
# How the pieces fit: :ref:`sphx_glr_gallery_pytorch2_compile_internals.py`.
import torch

graphs = []


def record(gm, example_inputs):  # a backend: note each graph's ops, run it as is
    graphs.append(
        [getattr(n.target, "__name__", n.target) for n in gm.graph.nodes if n.op.startswith("call")]
    )
    return gm.forward


fn = torch.compile(lambda x: torch.relu(x).sum(), backend=record)
fn(torch.randn(3))
print(graphs)


# %%
# .. _api-compiler-disable:
#
# torch.compiler.disable
# ----------------------
# Dynamo does not trace a function decorated with ``disable``: calls to it run
# eagerly, with a graph break on each side, which is the usual way out for
# logging, I/O or code the compiler cannot handle. Here the ``print`` runs
# eagerly and the compiled function is split into two graphs.
import torch

graphs = []


def record(gm, example_inputs):  # a backend: note each graph's ops, run it as is
    graphs.append(
        [getattr(n.target, "__name__", n.target) for n in gm.graph.nodes if n.op.startswith("call")]
    )
    return gm.forward


@torch.compiler.disable
def log_mean(x):
    print(f"eager side: mean = {x.mean().item():.3f}")


@torch.compile(backend=record)
def step(x):
    y = torch.relu(x) * 2
    log_mean(y)
    return y.sum()


print("result:", step(torch.tensor([-1.0, 0.5, 2.0])))
for i, ops in enumerate(graphs):
    print(f"graph {i}: {ops}")

# %%
# .. _api-compiler-allow-in-graph:
#
# torch.compiler.allow_in_graph
# -----------------------------
# The opposite: the function appears in the graph as one call that Dynamo does
# not look inside (its body is traced later, by AOTAutograd, if the backend
# uses it). Useful for code whose Python Dynamo handles badly; it must be
# free of side effects.
import torch

graphs = []


def record(gm, example_inputs):  # a backend: note each graph's ops, run it as is
    graphs.append(
        [getattr(n.target, "__name__", n.target) for n in gm.graph.nodes if n.op.startswith("call")]
    )
    return gm.forward


def swish(x):
    return torch.sigmoid(x) * x


torch.compiler.allow_in_graph(swish)


@torch.compile(backend=record, fullgraph=True)
def head(x):
    return swish(x) + 1


print(head(torch.ones(2)), graphs)

# %%
# .. _api-compiler-is-compiling:
#
# torch.compiler.is_compiling
# ---------------------------
# ``True`` while Dynamo traces the code, ``False`` when it runs eagerly; guard
# debugging code or checks that would break the graph with it. The two calls
# below run the same function and take different branches.
import torch


def scale(x):
    if torch.compiler.is_compiling():
        return x * 2
    return x


compiled_scale = torch.compile(scale, backend="eager")
print("eager:", scale(torch.ones(2)), "compiled:", compiled_scale(torch.ones(2)))

# %%
# .. _api-compiler-assume-constant-result:
#
# torch.compiler.assume_constant_result
# -------------------------------------
# Dynamo calls the function once while tracing and bakes its result into the
# graph as a constant, so the call costs nothing later and breaks no graph; the
# result must really never change (a value read from a config, say).
import torch

graphs = []


def record(gm, example_inputs):  # a backend: note each graph's ops, run it as is
    graphs.append(
        [getattr(n.target, "__name__", n.target) for n in gm.graph.nodes if n.op.startswith("call")]
    )
    return gm.forward


@torch.compiler.assume_constant_result
def gain_from_config():
    return 3


@torch.compile(backend=record)
def amplify(x):
    return x * gain_from_config()


print(amplify(torch.ones(2)), "graph:", graphs)

# %%
# .. _api-compiler-wrap-numpy:
#
# torch.compiler.wrap_numpy
# -------------------------
# Dynamo traces NumPy calls too, translating them to torch operations; with
# ``wrap_numpy`` the compiled function takes and returns tensors while its body
# stays NumPy code, so it can run on any device torch supports.
import numpy as np
import torch


@torch.compile(backend="eager", fullgraph=True)
@torch.compiler.wrap_numpy
def pythagoras(a):
    return np.sin(a) ** 2 + np.cos(a) ** 2


out = pythagoras(torch.linspace(0, 3, 4))
print(type(out).__name__, out)

# %%
# .. _api-compiler-set-stance:
#
# torch.compiler.set_stance
# -------------------------
# Changes how compiled functions behave without touching them: ``"force_eager"``
# runs them eagerly (to compare results or rule the compiler out), and
# ``"fail_on_recompile"`` raises instead of silently compiling again, a guard for
# serving. Use it as a context manager or call it to set and ``"default"`` to undo.
import torch

graphs = []


def count(gm, example_inputs):  # a backend that counts the graphs it is handed
    graphs.append(gm)
    return gm.forward


double = torch.compile(lambda x: x * 2, backend=count)
with torch.compiler.set_stance("force_eager"):
    double(torch.ones(3))
print("graphs under force_eager:", len(graphs))
double(torch.ones(3))
print("graphs afterwards:", len(graphs))
with torch.compiler.set_stance("fail_on_recompile"):
    try:
        double(torch.ones(3, dtype=torch.float64))  # a new dtype would need a new graph
    except RuntimeError as err:
        print(type(err).__name__, "-", str(err).split(". ")[0])

# %%
# .. _api-dynamo-config-recompile-limit:
#
# torch._dynamo.config.recompile_limit
# ------------------------------------
# Each compiled function keeps at most this many graphs (8 by default; older
# releases called it ``cache_size_limit``); past it, Dynamo warns once and runs
# the function eagerly. Lowered to 2 here, with ``dynamic=False`` so that each
# new length needs its own graph: the third length hits the limit. Dynamo logs
# a warning through ``logging`` (a handler keeps it here, and its first line is
# printed); ``set_logs(recompiles=True)`` (``TORCH_LOGS=recompiles``) adds the
# reason for each recompile.
import contextlib
import io
import logging

import torch
import torch._dynamo

graphs = []


def count(gm, example_inputs):  # a backend that counts the graphs it is handed
    graphs.append(gm)
    return gm.forward


class Keep(logging.Handler):  # keeps log messages instead of printing them
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


print("default limit:", torch._dynamo.config.recompile_limit)
dynamo_log, kept = logging.getLogger("torch._dynamo"), Keep()
dynamo_log.addHandler(kept)
try:  # torch's own handler prints it to stderr as well: swallowed here
    with torch._dynamo.config.patch(recompile_limit=2), contextlib.redirect_stderr(io.StringIO()):
        cosine = torch.compile(lambda x: x.cos() + 1, backend=count, dynamic=False)
        for length in range(1, 5):
            cosine(torch.ones(length))
finally:
    dynamo_log.removeHandler(kept)
print("graphs compiled for 4 lengths:", len(graphs))
print("Dynamo's warning:", kept.messages[0].splitlines()[0])

# %%
# .. _api-compiler-reset:
#
# torch.compiler.reset
# --------------------
# Forgets every compiled graph and guard in the process, so the next call of
# any compiled function compiles from scratch; use it between experiments or
# benchmarks that must each pay their own compile cost.
import torch

graphs = []


def count(gm, example_inputs):  # a backend that counts the graphs it is handed
    graphs.append(gm)
    return gm.forward


square = torch.compile(lambda x: x * x, backend=count)
square(torch.ones(2))
square(torch.ones(2))
print("graphs before reset:", len(graphs))
torch.compiler.reset()
square(torch.ones(2))
print("graphs after reset:", len(graphs))

# %%
# .. _api-dynamo-optimize:
#
# torch._dynamo.optimize
# ----------------------
# The pre-2.0 spelling, found in older code and some tutorials:
# ``torch._dynamo.optimize(backend)(fn)``. It still works in this PyTorch, but
# it is private API; ``torch.compile(fn, backend=...)`` is the supported call,
# with the same backends and more options.
import torch

legacy = torch._dynamo.optimize("eager")(lambda x: x + 1)
modern = torch.compile(lambda x: x + 1, backend="eager")
print(legacy(torch.zeros(2)), modern(torch.zeros(2)))

# %%
# .. _api-compiler-list-backends:
#
# torch.compiler.list_backends
# ----------------------------
# The backends you can pass to ``torch.compile``; the default list hides debug
# and experimental ones, ``exclude_tags=None`` shows all.
# ``get_default_backend`` names what ``torch.compile`` uses when none is given.
import torch

print(torch.compiler.list_backends())
every = torch.compiler.list_backends(exclude_tags=None)
print(len(every), "in all; default:", torch.compiler.get_default_backend())

# %%
# .. _api-compiler-precompile:
#
# torch.compiler.precompile
# -------------------------
# Compile a function ahead of time and run it later without compiling again. It
# is a module now (a prototype): ``capture`` runs the function once and writes
# its compiled code and cache to files, ``load`` reads them back in another
# process (:ref:`pt2-whats-new-precompile` runs both, across two processes). In
# 2.14 it was one callable, ``precompile(fn, *args)``, that returned the code
# as a string and the cache as bytes; that call raises ``TypeError`` now. The
# block prints what this torch has; below it, what 2.14.1 printed for the same
# code.
import torch

precompile = torch.compiler.precompile
names = getattr(precompile, "__all__", None) or [n for n in dir(precompile) if n[0] != "_"]
print(type(precompile).__name__, "with", ", ".join(sorted(names)))
model, x = torch.nn.Linear(4, 2), torch.randn(3, 4)
try:
    code, cache = precompile(lambda m, t: m(t), model, x)  # the one-call form
    print(f"precompile(fn, *args): code as {type(code).__name__}, cache as {type(cache).__name__}")
except TypeError as err:
    print("precompile(fn, *args): TypeError:", err)

# %%
# .. torch-outputs:: api-compiler-precompile
#    :releases: 2.14.1
