r"""
How torch.compile works
=======================

Each stage of ``torch.compile`` opened on the installed PyTorch: TorchDynamo, guards, AOTAutograd, decompositions and TorchInductor.

Summary
-------

=========================================  ===========================================================================================================
You want                                   Call
=========================================  ===========================================================================================================
the FX graph TorchDynamo captured          :entry:`torch.compile(fn, backend=show) <pt2-compile-internals-graph>`
the graph breaks and their reasons         :entry:`torch._dynamo.explain(fn)(x) <pt2-compile-internals-breaks>`
one graph or an error                      :entry:`torch.compile(fn, fullgraph=True) <pt2-compile-internals-fullgraph>`
which guard failed, why it recompiled      :entry:`set_logs(recompiles=True) <pt2-compile-internals-guards>`, ``TORCH_LOGS=recompiles``
forward and backward graphs                :entry:`aot_autograd(fw_compiler=f, bw_compiler=b) <pt2-compile-internals-aot>`
the core ATen operators                    :entry:`torch.Tag.core in op.tags <pt2-compile-internals-primtorch>`, ``torch._prims``
operators rewritten into simpler ones      :entry:`select_decomp_table() <pt2-compile-internals-decompositions>`, ``aot_autograd(decompositions=...)``
the generated Triton or C++ code           :entry:`run_and_get_code(compiled, x) <pt2-compile-internals-inductor>`, ``TORCH_LOGS=output_code``
=========================================  ===========================================================================================================
"""

# %%
# .. _pt2-compile-internals-graph:
#
# The graph TorchDynamo captured
# ------------------------------
# TorchDynamo reads a function's bytecode and records its tensor operations as a
# ``torch.fx.GraphModule``. A backend is any callable that takes that graph and
# example inputs and returns what to run; this one prints the graph and runs it
# as is, so nothing gets compiled.
import re

import torch


def show(gm):
    """Print a graph's code; its comments name the source line of each operation."""
    code = gm.print_readable(print_output=False)
    print(re.sub(r"(File: )\S*/", r"\1", code))  # file names without this machine's folders


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
# .. _pt2-compile-internals-breaks:
#
# Graph breaks
# ------------
# A ``print`` or an ``if`` on a tensor's value ends the current graph: Dynamo runs
# that piece in Python and starts a new graph after it. ``torch._dynamo.explain``
# lists graphs and reasons; the data-dependent ``if`` appears as a jump Dynamo
# cannot follow (``generic_jump``).
import torch
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
# .. _pt2-compile-internals-fullgraph:
#
# fullgraph=True
# --------------
# Where a graph break would cost the speedup, ask for one graph: Dynamo then
# raises instead of splitting, and says why.
import torch


def noisy_step(x):
    y = torch.sin(x) * 2
    if y.sum() > 0:
        return torch.cos(y)
    return -y


strict = torch.compile(noisy_step, fullgraph=True, backend="eager")
try:
    strict(torch.randn(16))
except torch._dynamo.exc.Unsupported as err:
    print(type(err).__name__, "-", str(err).splitlines()[0])

# %%
# .. _pt2-compile-internals-guards:
#
# Guards and recompiles
# ---------------------
# A graph is reused while its guards hold: same dtype, device and (by default)
# sizes. ``torch._logging.set_logs(recompiles=True)``, the in-code
# ``TORCH_LOGS=recompiles``, logs to stderr which guard failed (caught here and
# printed per call). The second size recompiles with a symbolic size, which the
# third reuses; a new dtype fails a guard again.
import contextlib
import io
import re

import torch


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
# .. _pt2-compile-internals-aot:
#
# AOTAutograd: forward and backward graphs
# ----------------------------------------
# ``aot_autograd`` takes one compiler for the forward and one for the backward
# graph. The first call traces both as ATen operators and splits them (the
# forward returns what the backward needs): that is how training compiles. The
# forward compiles at once, the backward at the first ``.backward()``.
# ``make_boxed_func`` adapts a callable to AOTAutograd's calling convention.
import re

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def show(gm):
    code = gm.print_readable(print_output=False)
    print(re.sub(r"(File: )\S*/", r"\1", code))  # no folders of this machine


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
# .. _pt2-compile-internals-primtorch:
#
# PrimTorch: many operators, a few primitives
# -------------------------------------------
# The 2.0 announcement counted about 2000 operators (overloads included), a
# canonical ATen set of about 750 and about 250 primitives. This build's registry
# gives today's counts: ATen kept growing, and the stable target is now the much
# smaller core ATen set (``torch.Tag.core``) beside the ``prims`` namespace.
import torch
import torch._prims

all_ops = torch._C._dispatch_get_all_op_names()
aten_ops = sorted(name for name in all_ops if name.startswith("aten::"))
core_ops = set()
for name in aten_ops:
    base, _, overload = name.removeprefix("aten::").partition(".")
    op = getattr(getattr(torch.ops.aten, base), overload or "default")
    if torch.Tag.core in op.tags:
        core_ops.add(name)

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
# .. _pt2-compile-internals-decompositions:
#
# Decompositions
# --------------
# A decomposition rewrites an operator in simpler ones (ATen to ATen). Without a
# table ``gelu``, ``layer_norm`` and ``softmax`` stay whole (they are core ATen);
# with TorchInductor's table they become pointwise operations and reductions a
# code generator can fuse. The listing counts how many results are core ATen.
import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
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
# .. _pt2-compile-internals-inductor:
#
# TorchInductor: the generated code
# ---------------------------------
# The default backend writes a Python module calling generated kernels: on this
# CPU C++, vectorised with ``at::vec`` and, for loops worth splitting, parallel
# with OpenMP (the pragma count says); on NVIDIA or AMD GPUs, Triton.
# ``run_and_get_code`` returns that source, the text ``TORCH_LOGS=output_code``
# prints; the kernel list shows how many kernels replace the three operators.
import torch
from torch._inductor.utils import run_and_get_code


def block(x):
    x = torch.nn.functional.gelu(x)
    x = torch.nn.functional.layer_norm(x, x.shape[-1:])
    return torch.softmax(x, dim=-1)


# Rows of 64 floats: torch 2.4 leaves a row shorter than one vector (16 floats
# with AVX-512) unvectorised, and the listing below would have nothing to show.
x = torch.randn(4, 64)
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
loads = [i for i, line in enumerate(lines) if "Vectorized<float>::loadu" in line]
if loads:  # the first vector load and what follows it
    print("\n".join(line.strip() for line in lines[loads[0] : loads[0] + 6]))
    print("...")
else:
    isa = torch.backends.cpu.get_cpu_capability()
    print(f"no vector loads: Inductor left this kernel scalar (ATen's vector ISA here: {isa})")
