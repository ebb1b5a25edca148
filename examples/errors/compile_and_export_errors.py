r"""
Compile and export errors
=========================

The messages ``torch.compile``, ``torch.export`` and the ONNX exporter give: a function
compiled too many times, a graph break that ``fullgraph=True`` turns into an error,
control flow that depends on data, Inductor without a C++ compiler (on Windows too),
and an operator that ONNX cannot express.

Summary
-------

============================================  ==========================================================
You see                                       Fix
============================================  ==========================================================
torch._dynamo hit config.recompile_limit      :entry:`torch.compile(fn, dynamic=True) <errors-recompile-limit>`, ``mark_dynamic(x, 0)``
Unsupported: Data-dependent branching         :entry:`torch.where(x.sum() > 0, x + 1, x - 1) <errors-graph-break-fullgraph>`
Attempted to call function marked as skipped  :entry:`f(x, torch.tensor(os.getpid())) <errors-call-skipped>`: call it outside
Could not guard on data-dependent expression  :entry:`torch.cond(pred, true_fn, false_fn, (x,)) <errors-export-data-dependent>`
Constraints violated (batch)! … a constant    :entry:`x.reshape(x.shape[0], -1) <errors-export-constraints-violated>`, ``Dim.AUTO``
No working C++ compiler found                 :entry:`CXX=g++ <errors-no-cxx-compiler>`, ``backend="aot_eager"`` meanwhile
Compiler: cl is not found (Windows)           :entry:`x64 Native Tools Command Prompt <errors-cl-not-found>`, ``vcvars64.bat``
No ONNX function found for <OpOverload(…)>    :entry:`x.sort(-1).values[..., k] <errors-onnx-operator>`, ``custom_translation_table=``
============================================  ==========================================================
"""

# %%
# .. _errors-recompile-limit:
#
# torch._dynamo hit config.recompile_limit (…)
# --------------------------------------------
# A warning, not an error: the function met more input shapes (or types, or values it
# guards on) than ``torch._dynamo.config.recompile_limit`` graphs allow (8 by default,
# 2 here), and from then on it runs eagerly. Why a compiled model or function
# recompiles at all: Dynamo guards what its first call assumed (each input tensor's
# shape, dtype, device and ``requires_grad``, the grad mode, the globals and attributes
# the code read), and a call that breaks a guard compiles again.
# ``TORCH_LOGS="recompiles"`` prints the guard that failed at each recompile, long
# before the limit (:ref:`pt2-compile-time-recompiles`). Dynamo logs the warning
# through ``logging``; a handler keeps it here.
import contextlib
import io
import logging

import torch


class Keep(logging.Handler):  # keeps the log records instead of printing them
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


dynamo_log, kept = logging.getLogger("torch._dynamo"), Keep()
dynamo_log.addHandler(kept)
try:  # torch's own handler prints it to stderr as well: swallowed here
    with torch._dynamo.config.patch(recompile_limit=2), contextlib.redirect_stderr(io.StringIO()):
        shift = torch.compile(lambda x: x.cos() + 1, backend="eager", dynamic=False)
        for length in range(2, 6):
            shift(torch.ones(length))
finally:
    dynamo_log.removeHandler(kept)
for line in kept.messages[0].splitlines():
    if "recompile_limit" in line or "last reason" in line:  # the other lines name the file
        print(line.strip())

# %%
# Fix: let one graph serve every size, with ``dynamic=True`` (or
# ``torch._dynamo.mark_dynamic(x, 0)`` on the input); sizes 0 and 1 still get graphs
# of their own. By default Dynamo makes a size dynamic once it has seen it change,
# which ``dynamic=False`` above turned off.
import contextlib
import io
import logging

import torch

graphs = []


def count(gm, example_inputs):  # a backend that counts the graphs it is given
    graphs.append(gm)
    return gm.forward


class Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


dynamo_log, kept = logging.getLogger("torch._dynamo"), Keep()
dynamo_log.addHandler(kept)
try:
    with torch._dynamo.config.patch(recompile_limit=2), contextlib.redirect_stderr(io.StringIO()):
        shift = torch.compile(lambda x: x.cos() + 1, backend=count, dynamic=True)
        for length in range(2, 6):
            shift(torch.ones(length))
finally:
    dynamo_log.removeHandler(kept)
print("graphs for 4 lengths:", len(graphs), "| warnings:", len(kept.messages))

# %%
# .. _errors-graph-break-fullgraph:
#
# Data-dependent branching
# ------------------------
# With ``fullgraph=True`` every graph break is an error, ``torch._dynamo.exc.Unsupported``,
# whose first line names the break; an ``if`` on a tensor's value is the most common
# one, since the graph cannot hold both branches.
import torch


@torch.compile(fullgraph=True, backend="eager")  # Dynamo only: no code generation
def step(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


try:
    step(torch.ones(3))
except torch._dynamo.exc.Unsupported as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")  # the rest names files

# %%
# Fix: compute both sides and pick with ``torch.where`` (or ``torch.cond`` for branches
# too costly to compute both); the graph then holds the choice.
import torch


def step(x):
    return torch.where(x.sum() > 0, x + 1, x - 1)


compiled = torch.compile(step, fullgraph=True, backend="eager")
for x in (torch.ones(3), -torch.ones(3)):
    print(compiled(x), "same as eager:", torch.equal(compiled(x), step(x)))

# %%
# .. _errors-call-skipped:
#
# Attempted to call function marked as skipped
# --------------------------------------------
# Dynamo traces Python, and the function called is not Python it can read: a builtin
# written in C (``os.getpid``, ``zlib.crc32``) or a C extension's function. Without
# ``fullgraph=True`` the call is a graph break and runs eagerly; with it, the compile
# fails. Dynamo first warns, once per function, naming it. Newer releases give a clock
# read (``time.time``) a message of its own, "Call to a time function": a deliberate
# graph break that keeps the read in its place between the compiled operations. The
# code below prints what this torch says to both; the fix is the same.
import os
import textwrap
import time
import warnings

import torch


@torch.compile(fullgraph=True, backend="eager")
def tag(x):
    return x * os.getpid()


@torch.compile(fullgraph=True, backend="eager")
def stamp(x):
    return x * time.time()


for compiled in (tag, stamp):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compiled(torch.ones(2))
        except torch._dynamo.exc.Unsupported as err:
            print(f"{compiled.__name__}: {type(err).__name__}: {str(err).splitlines()[0]}")
    for warning in caught:
        first_line = str(warning.message).splitlines()[0]
        print(f"{warning.category.__name__}: {textwrap.shorten(first_line, 100, placeholder=' …')}")

# %%
# Fix: call it outside the compiled function and pass the result in, as a tensor (a
# Python number is compiled in as a constant at first, and its second value costs a
# recompile). A C function that must stay inside can be wrapped as an operator
# (``torch.library.custom_op``), which the graph then calls.
import os
import time

import torch


@torch.compile(fullgraph=True, backend="eager")
def stamp(x, now, pid):
    return x * now + pid


for _ in range(2):
    print(stamp(torch.ones(2), torch.tensor(time.time()), torch.tensor(os.getpid())).shape)

# %%
# .. _errors-export-data-dependent:
#
# Could not guard on data-dependent expression …
# ----------------------------------------------
# ``torch.export`` records one graph for every input, so a Python ``if`` on a tensor's
# value (or a size read from its data) has no single answer to record.
import contextlib
import io

import torch
from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode


class Step(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


try:  # torch also logs the graph it was tracing to stderr: swallowed here
    with contextlib.redirect_stderr(io.StringIO()):
        torch.export.export(Step(), (torch.ones(3),))
except GuardOnDataDependentSymNode as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")  # the rest names files

# %%
# Fix: write the branch with ``torch.cond``, which the exported graph keeps with both
# branches, and check both on the exported program.
import torch


class Step(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, (x,))


exported = torch.export.export(Step(), (torch.ones(3),))
for x in (torch.ones(3), -torch.ones(3)):
    print(exported.module()(x))

# %%
# .. _errors-export-constraints-violated:
#
# Constraints violated (batch)! … your code specialized it to be a constant
# -------------------------------------------------------------------------
# ``dynamic_shapes`` promised ``torch.export`` that a dimension may take any size,
# but tracing found code that only works for the example's size: here a ``reshape``
# that writes the batch size down as a number. Dynamo then "specializes" the dimension
# to that constant, which breaks the promise, and export stops. The same happens
# with a Python ``if x.shape[0] == 4`` or a size passed as a plain ``int``.
# An earlier wording of the same check ends "… because batch was inferred to be a
# constant (4)".
import torch
from torch.export import Dim, export


class Flatten(torch.nn.Module):
    def forward(self, x):
        return x.reshape(4, -1)  # 4: the example's batch size, as a constant


try:
    export(Flatten(), (torch.randn(4, 3, 2),), dynamic_shapes={"x": {0: Dim("batch")}})
except torch._dynamo.exc.UserError as err:
    print(f"{type(err).__name__}: {str(err).split('. If you')[0]}")

# %%
# Fix: compute the shape from the tensor (``x.reshape(x.shape[0], -1)``, or
# ``x.flatten(1)``), so that no size is a constant. Where the dimension need not be
# dynamic after all, say so instead: ``Dim.STATIC`` fixes it, and ``Dim.AUTO`` lets
# export keep what it can dynamic and specialize the rest without an error.
import torch
from torch.export import Dim, export


class Flatten(torch.nn.Module):
    def forward(self, x):
        return x.flatten(1)  # (batch, 3 * 2) for any batch


exported = export(Flatten(), (torch.randn(4, 3, 2),), dynamic_shapes={"x": {0: Dim("batch")}})
print("batch 7 ->", tuple(exported.module()(torch.randn(7, 3, 2)).shape))
print("batch 1 ->", tuple(exported.module()(torch.randn(1, 3, 2)).shape))

# %%
# .. _errors-no-cxx-compiler:
#
# No working C++ compiler found in torch._inductor.config.cpp.cxx
# ---------------------------------------------------------------
# On the CPU, Inductor (the default backend of ``torch.compile``) writes C++ and needs
# a compiler; it takes the one the ``CXX`` variable names, else ``g++`` or ``clang++``.
# Here a script runs in its own Python with ``CXX`` pointing at no compiler, and an
# empty cache so that nothing compiled before can be reused.
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    import torch

    fn = torch.compile(lambda x: (x.sin() + 1).sum())
    try:
        print(fn(torch.ones(8)))
    except Exception as err:
        print(f"{type(err).__name__}: {str(err).splitlines()[0]}")
    """
)
with tempfile.TemporaryDirectory() as tmp:
    Path(tmp, "script.py").write_text(script)
    env = {**os.environ, "CXX": "/no/such/c++", "TORCHINDUCTOR_CACHE_DIR": tmp}
    run = subprocess.run(
        [sys.executable, "script.py"], cwd=tmp, env=env, capture_output=True, text=True, check=True
    )
print(run.stdout.strip())

# %%
# Fix: install one (``apt install g++``, Xcode's command-line tools, Visual Studio's
# C++ tools) or point ``CXX`` at it; until then ``backend="aot_eager"`` runs without
# generating code. The same script with ``CXX`` naming this machine's compiler:
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import torch

script = textwrap.dedent(
    """
    import torch

    fn = torch.compile(lambda x: (x.sin() + 1).sum())
    print("compiled:", fn(torch.ones(8)))
    """
)
compiler = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")
if compiler:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "script.py").write_text(script)
        env = {**os.environ, "CXX": compiler, "TORCHINDUCTOR_CACHE_DIR": tmp}
        run = subprocess.run(
            [sys.executable, "script.py"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    print(f"CXX={Path(compiler).name}:", run.stdout.strip())
else:
    print("no C++ compiler on this machine")
fallback = torch.compile(lambda x: (x.sin() + 1).sum(), backend="aot_eager")
print('backend="aot_eager":', fallback(torch.ones(8)))

# %%
# .. _errors-cl-not-found:
#
# Compiler: cl is not found.
# --------------------------
# The Windows form of the error above: there Inductor compiles with MSVC's ``cl`` (or
# what ``CXX`` names), and first runs ``cl /help``; where ``cl`` is not on ``PATH``
# (a plain terminal, even with Visual Studio installed) it stops with this. This
# machine cannot raise it, so the block makes the exception from torch's own class and
# prints the message of the installed release.
import shutil
import sys

from torch._inductor.exc import InvalidCxxCompiler

# On Windows, Inductor looks for MSVC's cl (or what CXX names) and stops with this;
# the exception is torch's own, its message the installed release's.
found = shutil.which("cl")
if sys.platform == "win32" and found:
    print("cl on PATH:", found)
else:
    err = InvalidCxxCompiler("cl")
    print(f"{type(err).__name__}: {err}")
    print("(made here from torch's class: this machine is", sys.platform, "without cl)")

# %%
# Fix: install the Build Tools for Visual Studio with the "Desktop development with
# C++" workload, then start Python from the "x64 Native Tools Command Prompt" (or run
# ``vcvars64.bat`` first): it puts ``cl`` on ``PATH`` and sets ``INCLUDE`` and ``LIB``,
# which ``CXX`` alone does not. Inductor also expects MSVC's English language pack (its
# check reads cl's messages). Meanwhile ``backend="aot_eager"`` runs without a compiler.
import os
import shutil
import sys

# What Inductor will run: CXX if set, else cl on Windows (g++ or clang++ elsewhere).
if sys.platform == "win32":
    compiler = os.environ.get("CXX") or "cl"
    print(compiler, "->", shutil.which(compiler) or "not on PATH: open the x64 Native Tools prompt")
    print("INCLUDE set:", "INCLUDE" in os.environ)  # vcvars64.bat sets it beside PATH
else:
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")
    print(f"{sys.platform}: no cl needed; Inductor compiles with", compiler or "no compiler")

# %%
# .. _errors-onnx-operator:
#
# No ONNX function found for <OpOverload(op=\'aten.…\', overload=\'…\')>
# ----------------------------------------------------------------------
# The model uses an operator that the exporter cannot write as ONNX. The exporter based
# on ``torch.export``, the default since 2.9, fails at its third step, "Failed to convert
# the exported program to an ONNX model", and names the operator in its summary, as below
# for ``median``. The TorchScript-based exporter (the default before, ``dynamo=False``
# now) says of the same model "Exporting the operator \'aten::median\' to ONNX opset
# version … is not supported" (``UnsupportedOperatorError``). A newer opset helps only
# when that opset added the operator.
import importlib.util
import re

import torch

needed = ("onnx", "onnxscript")
missing = [name for name in needed if importlib.util.find_spec(name) is None]
if missing:
    print("skipped: the ONNX export needs", ", ".join(missing))
else:
    # sphinx_gallery_start_ignore
    # Without torchvision the exporter logs that it skips torchvision's operators.
    import logging

    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    # sphinx_gallery_end_ignore

    class Median(torch.nn.Module):
        def forward(self, x):
            return x.median(dim=-1).values

    try:
        torch.onnx.export(Median().eval(), (torch.randn(2, 5),), dynamo=True, verbose=False)
    except torch.onnx.OnnxExporterError as err:
        lines = re.sub(r"\x1b\[[0-9;]*m", "", str(err)).splitlines()  # drop the terminal's colours
        print(f"{type(err).__name__}: {lines[0]}")
        print(*[line.split("'>: ", 1)[-1] for line in lines if "No ONNX function" in line])

# %%
# Fix: write the computation with operators ONNX has (here a sort, which exports as
# ``TopK``), and check the file against eager with ONNX Runtime. When the model cannot
# change, ``custom_translation_table={torch.ops.aten.median.dim: fn}`` in the export
# call supplies a translation written with onnxscript.
import importlib.util
import os
import tempfile

import torch

needed = ("onnx", "onnxscript", "onnxruntime")
missing = [name for name in needed if importlib.util.find_spec(name) is None]
if missing:
    print("skipped: the ONNX export and run need", ", ".join(missing))
else:
    # sphinx_gallery_start_ignore
    import logging

    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    # sphinx_gallery_end_ignore
    import onnxruntime as ort

    class Median(torch.nn.Module):
        def forward(self, x):
            # torch.median's lower median, picked from a sort
            return x.sort(dim=-1).values[..., (x.shape[-1] - 1) // 2]

    torch.manual_seed(0)
    x = torch.randn(2, 5)
    program = torch.onnx.export(Median().eval(), (x,), dynamo=True, verbose=False)
    print("operators:", sorted({node.op_type for node in program.model.graph}))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "median.onnx")
        program.save(path)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    torch.testing.assert_close(torch.from_numpy(got), x.median(dim=-1).values)
    print("ONNX Runtime matches torch.median:", [round(v, 4) for v in got.tolist()])
