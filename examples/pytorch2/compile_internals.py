r"""
How torch.compile works
=======================

``torch.compile`` hands your Python function to a chain of four components:
**TorchDynamo** reads the bytecode and records an FX graph of tensor operations,
protected by guards; **AOTAutograd** traces the backward pass along with the
forward at the first call, and compiles it at the first ``.backward()``;
**decompositions** (the PrimTorch work) rewrite the large PyTorch operator surface
into a small set of ATen operators, most of them core ATen; **TorchInductor** turns
the result into code (Triton kernels on GPUs, C++ with OpenMP on CPUs). This page
opens each stage on the installed PyTorch and prints what it produces.
"""

# %%
# See the graph TorchDynamo captured
# ----------------------------------
# A backend is any callable that receives the captured ``torch.fx.GraphModule``
# and example inputs and returns something to run instead. This one prints the
# graph and runs it unchanged, so nothing is compiled: a cheap way to look.
import re

import torch


def show(gm):
    """Print a graph's code; its comments name the source line of each operation."""
    code = gm.print_readable(print_output=False)
    print(re.sub(r"(# File: )\S*/", r"\1", code))  # file names without this machine's folders


def print_graph_backend(gm, example_inputs):
    show(gm)
    return gm.forward


def mlp_step(x, w):
    hidden = torch.nn.functional.gelu(x @ w)
    return hidden.mean(dim=-1)


x, w = torch.randn(4, 8), torch.randn(8, 8)
captured = torch.compile(mlp_step, backend=print_graph_backend)
torch.testing.assert_close(captured(x, w), mlp_step(x, w))

# %%
# Graph breaks: what Dynamo cannot put in a graph
# -----------------------------------------------
# Dynamo keeps going where it can: a ``print`` or a Python ``if`` on a tensor's
# value ends the current graph, runs that piece in plain Python, and starts a new
# graph after it. ``torch._dynamo.explain`` reports the graphs and the reasons; the
# ``if`` on a tensor's value shows up as a jump Dynamo cannot follow
# (``generic_jump``).
import torch._dynamo


def noisy_step(x):
    y = torch.sin(x) * 2
    print("a print inside the function")
    if y.sum() > 0:  # depends on the data, not on shapes
        return torch.cos(y)
    return -y


report = torch._dynamo.explain(noisy_step)(torch.randn(16))
print("graphs:      ", report.graph_count)
print("graph breaks:", report.graph_break_count)
for number, item in enumerate(report.break_reasons, start=1):
    where = item.user_stack[-1]
    reason = item.reason.splitlines()[0]
    print(f"break {number}: line {where.lineno} of {where.name}: {reason}")

# %%
# fullgraph=True turns a break into an error
# ------------------------------------------
# When a graph break would cost you the speedup, ask for the whole function as
# one graph. Dynamo then raises instead of splitting, and the message says why.
strict = torch.compile(noisy_step, fullgraph=True, backend="eager")
try:
    strict(torch.randn(16))
except torch._dynamo.exc.Unsupported as err:
    print(type(err).__name__, "-", str(err).splitlines()[0])

# %%
# Guards and recompiles, logged
# -----------------------------
# Each graph is reused only while its guards hold: same dtype, same device, and by
# default the same sizes. ``torch._logging.set_logs(recompiles=True)`` is the
# in-code form of ``TORCH_LOGS=recompiles`` and logs to stderr which guard failed;
# here the log is caught in a buffer and printed after each call. On the second
# size Dynamo recompiles with a symbolic size, so a third size reuses that graph;
# a new dtype fails a guard again.
import contextlib
import io


def double(x):
    return x * 2


compiled_double = torch.compile(double, backend="eager")
log = io.StringIO()
with contextlib.redirect_stderr(log):
    torch._logging.set_logs(recompiles=True)  # its handler writes to stderr as of now
    for shape, dtype in [
        (3, torch.float32),
        (5, torch.float32),
        (7, torch.float32),
        (7, torch.float64),
    ]:
        print(f"call with size {shape}, {dtype}")
        compiled_double(torch.ones(shape, dtype=dtype))
        for line in log.getvalue().splitlines():
            message = line.split("[__recompiles] ", 1)[-1]
            print("    log:", re.sub(r" in \S+:\d+$", "", message))  # no file path
        log.truncate(0)
        log.seek(0)
torch._logging.set_logs()  # back to the defaults

# %%
# AOTAutograd: forward and backward graphs
# ----------------------------------------
# ``aot_autograd`` wraps two compilers, one for the forward and one for the
# backward graph. At the first call it traces both as ATen operators and splits
# them: the forward returns the tensors the backward needs, which is how training
# gets compiled as well. The forward is compiled at once, the backward only when
# ``.backward()`` first needs it; the list of compiled graphs shows when.
# ``make_boxed_func`` adapts a plain callable to the calling convention AOTAutograd
# expects.
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

compiled_graphs = []


def show_forward(gm, example_inputs):
    compiled_graphs.append("forward")
    print("--- forward graph ---")
    show(gm)
    return make_boxed_func(gm.forward)


def show_backward(gm, example_inputs):
    compiled_graphs.append("backward")
    print("--- backward graph ---")
    show(gm)
    return make_boxed_func(gm.forward)


def loss_fn(x, w):
    return torch.tanh(x @ w).sum()


w = torch.randn(8, 8, requires_grad=True)
loss = torch.compile(
    loss_fn, backend=aot_autograd(fw_compiler=show_forward, bw_compiler=show_backward)
)(torch.randn(4, 8), w)
print("compiled after the forward call: ", compiled_graphs)
loss.backward()
print("compiled after loss.backward():  ", compiled_graphs)
print("gradient shape:", tuple(w.grad.shape))

# %%
# PrimTorch: many operators, a few primitives
# -------------------------------------------
# The 2.0 announcement counted about 2000 operators (overloads included), a
# canonical ATen set of about 750 and about 250 primitives. Counting the registry
# of this build gives today's figures: the ATen surface kept growing, and the
# stable target is now the much smaller "core ATen" set (operators tagged
# ``torch.Tag.core``) next to the ``prims`` namespace.
all_ops = torch._C._dispatch_get_all_op_names()
aten_ops = sorted(name for name in all_ops if name.startswith("aten::"))
core_ops = set()
for name in aten_ops:
    base, _, overload = name.removeprefix("aten::").partition(".")
    op = getattr(getattr(torch.ops.aten, base), overload or "default")
    if torch.Tag.core in op.tags:
        core_ops.add(name)
import torch._prims

prims_ops = [
    name
    for name in torch._prims.__all__
    if isinstance(
        getattr(torch._prims, name, None), (torch._ops.OpOverloadPacket, torch._ops.OpOverload)
    )
]
print(f"PyTorch {torch.__version__}")
print(f"ATen operators, overloads counted:  {len(aten_ops)}")
print(f"ATen operators, distinct names:     {len({n.split('.')[0] for n in aten_ops})}")
print(f"core ATen operators (Tag.core):     {len(core_ops)}")
print(f"primitives in torch._prims:         {len(prims_ops)}")

# %%
# Decompositions, seen in one graph
# ---------------------------------
# Decompositions rewrite an operator in terms of simpler ones. Without a table,
# ``gelu``, ``layer_norm`` and ``softmax`` stay whole (they are core ATen); with
# the table TorchInductor uses, they become a handful of pointwise operations and
# reductions that a code generator can fuse. The table maps ATen operators to
# ATen operators; the listing counts how many of the results are core ATen.
from torch._inductor.decomposition import select_decomp_table


def op_names(seen):
    def compiler(gm, example_inputs):
        seen.extend(
            node.target for node in gm.graph.nodes if isinstance(node.target, torch._ops.OpOverload)
        )
        return make_boxed_func(gm.forward)

    return compiler


def block(x):
    x = torch.nn.functional.gelu(x)
    x = torch.nn.functional.layer_norm(x, x.shape[-1:])
    return torch.softmax(x, dim=-1)


for label, table in [("no decompositions", {}), ("inductor's table", select_decomp_table())]:
    torch._dynamo.reset()
    seen = []
    torch.compile(block, backend=aot_autograd(fw_compiler=op_names(seen), decompositions=table))(
        torch.randn(4, 8)
    )
    distinct = sorted(set(seen), key=str)
    core = sum(torch.Tag.core in op.tags for op in distinct)
    namespaces = sorted({op.namespace for op in distinct})
    print(f"{label}: {len(seen)} calls of {len(distinct)} operators, {core} of them core ATen")
    print(
        f"    namespaces {namespaces}:", ", ".join(str(op).removeprefix("aten.") for op in distinct)
    )

# %%
# TorchInductor: the generated code
# ---------------------------------
# The default backend writes a Python module that calls generated kernels. On
# this CPU they are C++, vectorised with ``at::vec`` and, for loops large enough
# to split, parallel with OpenMP (the count of pragmas says whether this one was);
# on an NVIDIA or AMD GPU they would be Triton. ``run_and_get_code`` returns that
# module's source, the same text ``TORCH_LOGS=output_code`` prints; the kernel
# list shows how many kernels replace the three operators, and a few counts and
# lines follow.
from torch._inductor.utils import run_and_get_code

torch._dynamo.reset()
x = torch.randn(4, 8)
out, sources = run_and_get_code(torch.compile(block), x)
torch.testing.assert_close(out, block(x))
source = sources[0]
kernel_names = [
    line.split(" = ")[0]
    for line in source.splitlines()
    if "async_compile." in line and " = " in line
]
print("kernels:", kernel_names)
lines = source.splitlines()
print("lines of generated Python + C++:", len(lines))
print("OpenMP pragmas:", sum("#pragma omp" in line for line in lines))
print("at::vec::Vectorized uses:", sum("Vectorized" in line for line in lines))
start = next(i for i, line in enumerate(lines) if "Vectorized<float>::loadu" in line)
print("\n".join(line.strip() for line in lines[start : start + 6]))
print("...")

# %%
# Summary
# -------
#
# ====================  =====================================  ===============================================
# Stage                 What it does                           How to look at it
# ====================  =====================================  ===============================================
# TorchDynamo           captures bytecode into FX graphs,      ``torch.compile(fn, backend=my_backend)``,
#                       with guards; splits at graph breaks    ``torch._dynamo.explain(fn)(*args)``
# guards                decide when a graph can be reused      ``torch._logging.set_logs(recompiles=True)``
#                                                              or ``TORCH_LOGS=recompiles``
# strict capture        one graph or an error                  ``torch.compile(fn, fullgraph=True)``
# AOTAutograd           forward and backward graphs, traced    ``aot_autograd(fw_compiler=..., bw_compiler=...)``
#                       at the first call; the backward is
#                       compiled at the first ``.backward()``
# decompositions        rewrite ATen operators into simpler    ``torch.Tag.core``, ``select_decomp_table()``,
#                       ones, mostly core ATen                 ``aot_autograd(decompositions=...)``
# TorchInductor         generates Triton (GPU) or C++/OpenMP   ``run_and_get_code(compiled, *args)``,
#                       (CPU) kernels                          ``TORCH_LOGS=output_code``
# ====================  =====================================  ===============================================
