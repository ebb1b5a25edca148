r"""
torch.compiler reference
========================

The knobs around ``torch.compile``: keeping a function out of the graph or
putting one in whole, asking whether code is being traced, freezing a value,
compiling NumPy code, switching compilation off for a block, limiting
recompiles, and the legacy spelling older code still uses. To make the effect
visible, most entries compile with a small backend that records the operations
of each captured graph instead of generating code; swap in the default
(``inductor``) for speed. The :ref:`how-it-works page
<sphx_glr_gallery_pytorch2_compile_internals.py>` explains the machinery.
"""

# %%
# A backend that shows the graphs
# -------------------------------
# A ``torch.compile`` backend is any function that takes the captured FX graph
# and example inputs and returns something callable. This one records the
# operations of each graph in ``captured`` and runs the graph unchanged; the
# entries below use it to show what ended up in the graph.
import torch

captured = []


def recording_backend(gm, example_inputs):
    calls = [n for n in gm.graph.nodes if n.op.startswith("call")]
    captured.append([str(getattr(n.target, "__name__", n.target)) for n in calls])
    return gm.forward


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

captured.clear()


@torch.compiler.disable
def log_mean(x):
    print(f"eager side: mean = {x.mean().item():.3f}")


@torch.compile(backend=recording_backend)
def step(x):
    y = torch.relu(x) * 2
    log_mean(y)
    return y.sum()


print("result:", step(torch.tensor([-1.0, 0.5, 2.0])))
for i, ops in enumerate(captured):
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

captured.clear()


def swish(x):
    return torch.sigmoid(x) * x


torch.compiler.allow_in_graph(swish)


@torch.compile(backend=recording_backend, fullgraph=True)
def head(x):
    return swish(x) + 1


print(head(torch.ones(2)), captured)

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

captured.clear()


@torch.compiler.assume_constant_result
def gain_from_config():
    return 3


@torch.compile(backend=recording_backend)
def amplify(x):
    return x * gain_from_config()


print(amplify(torch.ones(2)), "graph:", captured)

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

captured.clear()
double = torch.compile(lambda x: x * 2, backend=recording_backend)
with torch.compiler.set_stance("force_eager"):
    double(torch.ones(3))
print("graphs under force_eager:", len(captured))
double(torch.ones(3))
print("graphs afterwards:", len(captured))
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
# new length needs its own graph: the third length hits the limit. Dynamo's log
# goes to stderr; ``set_logs(recompiles=True)`` (``TORCH_LOGS=recompiles``)
# adds the reason for each recompile to the limit's warning.
import torch
import torch._dynamo

print("default limit:", torch._dynamo.config.recompile_limit)
captured.clear()
with torch._dynamo.config.patch(recompile_limit=2):
    cosine = torch.compile(lambda x: x.cos() + 1, backend=recording_backend, dynamic=False)
    for length in range(1, 5):
        cosine(torch.ones(length))
print("graphs compiled for 4 lengths:", len(captured))

# %%
# .. _api-compiler-reset:
#
# torch.compiler.reset
# --------------------
# Forgets every compiled graph and guard in the process, so the next call of
# any compiled function compiles from scratch; use it between experiments or
# benchmarks that must each pay their own compile cost.
import torch

captured.clear()
square = torch.compile(lambda x: x * x, backend=recording_backend)
square(torch.ones(2))
square(torch.ones(2))
print("graphs before reset:", len(captured))
torch.compiler.reset()
square(torch.ones(2))
print("graphs after reset:", len(captured))

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
# Summary
# -------
#
# ==========================================  =============================================
# Name                                        Use it to
# ==========================================  =============================================
# ``torch.compiler.disable``                  keep a function out of the graph (runs eagerly)
# ``torch.compiler.allow_in_graph``           put a function in the graph as one opaque call
# ``torch.compiler.is_compiling``             branch on whether Dynamo is tracing
# ``torch.compiler.assume_constant_result``   bake a function's result in as a constant
# ``torch.compiler.wrap_numpy``               compile NumPy code on tensors
# ``torch.compiler.set_stance``               force eager, or fail instead of recompiling
# ``torch._dynamo.config.recompile_limit``    cap the graphs kept per function
# ``torch.compiler.reset``                    drop every compiled graph and guard
# ``torch._dynamo.optimize``                  legacy spelling of ``torch.compile``
# ``torch.compiler.list_backends``            names to pass as ``backend=``
# ==========================================  =============================================
