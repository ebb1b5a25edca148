r"""
Graph capture reference: torch.fx, TorchScript, torch.export
============================================================

Three ways to turn a model into a graph you can read, rewrite or ship:
``torch.fx``, TorchScript (in maintenance) and ``torch.export`` (current).

Summary
-------

====================================================  ==================================================
You want                                              Call
====================================================  ==================================================
to capture a module as an editable graph              :entry:`torch.fx.symbolic_trace <api-fx-symbolic-trace>`
to read the nodes: ``op``, ``target``, ``args``       :entry:`gm.graph.nodes <api-fx-graph>`
to regenerate code after editing the graph            :entry:`gm.recompile() <api-fx-graphmodule-recompile>`
to save the generated code and weights as a package   :entry:`gm.to_folder(path) <api-fx-graphmodule-to-folder>`
to swap every match of a pattern                      :entry:`subgraph_rewriter.replace_pattern <api-fx-replace-pattern>`
to run a graph node by node with your own hooks       :entry:`torch.fx.Interpreter <api-fx-interpreter>`
to record one run as TorchScript (deprecated)         :entry:`torch.jit.trace <api-jit-trace>`
to compile Python source to TorchScript (deprecated)  :entry:`torch.jit.script <api-jit-script>`
to inline weights as constants (deprecated)           :entry:`torch.jit.freeze <api-jit-freeze>`
to ship a TorchScript archive                         :entry:`torch.jit.save(m, path) <api-jit-save>`, ``torch.jit.load``
to capture a full program: the current path           :entry:`torch.export.export <api-export-export>`
====================================================  ==================================================
"""

# %%
# .. _api-fx-symbolic-trace:
#
# torch.fx.symbolic_trace
# -----------------------
# Runs ``forward`` on proxy objects and records every call into a
# ``GraphModule``, whose ``.code`` is the regenerated Python.
import torch
import torch.fx
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.proj(x)) + x.mean(dim=-1, keepdim=True)


traced = torch.fx.symbolic_trace(Block())
print(traced.code.strip())

# %%
# .. _api-fx-graph:
#
# torch.fx.Graph
# --------------
# The graph is an ordered list of ``Node`` objects, each with an ``op``
# (``placeholder``, ``call_module``, ``call_function``, ``call_method``,
# ``get_attr``, ``output``), a ``target`` and ``args``; ``print(graph)`` shows
# it (``graph.print_tabular()`` does too, but needs the ``tabulate`` package).
import torch
import torch.fx
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.proj(x)) + x.mean(dim=-1, keepdim=True)


graph = torch.fx.symbolic_trace(Block()).graph
for node in graph.nodes:
    target = getattr(node.target, "__name__", node.target)
    print(f"{node.op:14} {node.name:8} {target!s:8} args={node.args}")

# %%
# .. _api-fx-graphmodule-recompile:
#
# torch.fx.GraphModule.recompile
# ------------------------------
# A transform edits nodes in place; ``graph.lint()`` checks the result and
# ``recompile()`` regenerates ``forward`` from it. Here every ``torch.relu`` call
# becomes ``F.gelu``.
import torch
import torch.fx
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.proj(x)) + x.mean(dim=-1, keepdim=True)


torch.manual_seed(0)
model = Block()
gm = torch.fx.symbolic_trace(model)
for node in gm.graph.nodes:
    if node.op == "call_function" and node.target is torch.relu:
        node.target = F.gelu
gm.graph.lint()
gm.recompile()
print(gm.code.strip())
sample = torch.randn(2, 4)
expected = F.gelu(model.proj(sample)) + sample.mean(dim=-1, keepdim=True)
print("matches hand-written GELU version:", torch.allclose(gm(sample), expected))

# %%
# .. _api-fx-graphmodule-to-folder:
#
# torch.fx.GraphModule.to_folder
# ------------------------------
# Writes the traced module as a Python package (``module.py`` with the generated
# code, ``state_dict.pt`` with the weights) that imports and runs without the
# original class; handy for reading or hand-editing generated code.
import importlib
import sys
import tempfile
from pathlib import Path

import torch
import torch.fx
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 2)

    def forward(self, x):
        return torch.relu(self.proj(x))


torch.manual_seed(0)
traced = torch.fx.symbolic_trace(Net())
with tempfile.TemporaryDirectory() as tmp:
    traced.to_folder(Path(tmp) / "traced_net", "TracedNet")
    print("files:", sorted(p.name for p in (Path(tmp) / "traced_net").iterdir()))
    sys.path.insert(0, tmp)
    try:
        rebuilt = importlib.import_module("traced_net").TracedNet()
    finally:
        sys.path.remove(tmp)
        sys.modules.pop("traced_net", None)
x = torch.randn(4, 3)
print("same outputs as the traced module:", torch.equal(rebuilt(x), traced(x)))

# %%
# .. _api-fx-replace-pattern:
#
# torch.fx.subgraph_rewriter.replace_pattern
# ------------------------------------------
# Finds every occurrence of a pattern function's graph and splices in the
# replacement's graph, returning the matches.
import torch
import torch.fx
import torch.nn.functional as F
from torch.fx import subgraph_rewriter


def two_swishes(a, b):
    return a * torch.sigmoid(a) + b * torch.sigmoid(b)


def pattern(t):
    return t * torch.sigmoid(t)


def replacement(t):
    return F.silu(t)


gm = torch.fx.symbolic_trace(two_swishes)
matches = subgraph_rewriter.replace_pattern(gm, pattern, replacement)
print(len(matches), "matches replaced")
print(gm.code.strip())

# %%
# .. _api-fx-interpreter:
#
# torch.fx.Interpreter
# --------------------
# Executes a ``GraphModule`` node by node; override ``run_node`` to observe or
# change each step, here to record every intermediate shape.
import torch
import torch.fx
from torch import nn


class ShapeLogger(torch.fx.Interpreter):
    def run_node(self, n):
        result = super().run_node(n)
        if isinstance(result, torch.Tensor):
            print(f"{n.name:8} {tuple(result.shape)}")
        return result


mlp = nn.Sequential(nn.Linear(6, 3), nn.ReLU(), nn.Linear(3, 1))
result = ShapeLogger(torch.fx.symbolic_trace(mlp)).run(torch.randn(5, 6))

# %%
# .. _api-jit-trace:
#
# torch.jit.trace
# ---------------
# Records the operations one example input runs into a TorchScript module, so
# data-dependent branches are frozen to the path taken (it warns with a
# ``TracerWarning``); the call itself also warns that TorchScript is
# deprecated in favour of ``torch.compile`` and ``torch.export`` (2.13 raises
# a ``DeprecationWarning``, which Python hides by default; 2.14 and later a
# ``FutureWarning``, shown to everyone). Both warnings are caught here and
# listed.
import warnings

import torch


def flip_if_negative(x):
    if x.sum() < 0:  # decided once, at trace time
        return -x
    return x


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    traced_fn = torch.jit.trace(flip_if_negative, torch.tensor([1.0, 2.0]))
messages = [f"{w.category.__name__}: {str(w.message).split('. ')[0]}" for w in caught]
for line in dict.fromkeys(messages):  # once each: the trace is re-run as a check
    print(line)
print("eager: ", flip_if_negative(torch.tensor([-1.0, -2.0])))
print("traced:", traced_fn(torch.tensor([-1.0, -2.0])))

# %%
# .. _api-jit-script:
#
# torch.jit.script
# ----------------
# Compiles the Python source itself, so control flow survives, but only code
# in the TorchScript subset of Python compiles and the source must be readable
# (a file or Jupyter, not the plain ``python`` prompt); deprecated like
# ``trace`` (the warning is caught and printed here).
import warnings

import torch


def flip_if_negative(x):
    if bool(x.sum() < 0):
        return -x
    return x


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scripted = torch.jit.script(flip_if_negative)
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).split('. ')[0]}")
print(scripted.code.strip())
print("scripted:", scripted(torch.tensor([-1.0, -2.0])))

# %%
# .. _api-jit-freeze:
#
# torch.jit.freeze
# ----------------
# Inlines the parameters and attributes of an ``eval()``-mode scripted module
# as constants, so the graph can be optimised further; deprecated with the
# rest of TorchScript in favour of ``torch.compile`` (warnings caught here).
import warnings

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).eval()
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", r".*torch\.jit\..*deprecated")
    frozen = torch.jit.freeze(torch.jit.script(net))
print("parameters left after freezing:", len(list(frozen.parameters())))
probe = torch.randn(1, 4)
print("same output:", torch.allclose(frozen(probe), net(probe)))

# %%
# .. _api-jit-save:
#
# torch.jit.save
# --------------
# Writes a TorchScript module, code and weights, to one archive that
# ``torch.jit.load`` (or C++ ``torch::jit::load``) reads back without the Python
# class; ``torch.export.save`` is the counterpart for exported programs.
import os
import tempfile
import warnings

import torch
from torch import nn

torch.manual_seed(0)
head = nn.Linear(3, 2)
with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
    warnings.filterwarnings("ignore", r".*torch\.jit\..*deprecated")
    path = os.path.join(tmp, "head.pt")
    torch.jit.save(torch.jit.script(head), path)
    loaded = torch.jit.load(path)
    print(f"archive: {os.path.getsize(path)} bytes, type {type(loaded).__name__}")
probe = torch.randn(1, 3)
torch.equal(loaded(probe), head(probe))

# %%
# .. _api-export-export:
#
# torch.export.export
# -------------------
# The current replacement for tracing to deploy: captures the whole program
# ahead of time as an ``ExportedProgram`` of ATen operations plus a signature,
# and fails loudly on data-dependent branches instead of silently freezing
# one; ``Dim`` objects in ``dynamic_shapes`` keep sizes symbolic.
import torch
from torch import nn
from torch.export import Dim, export

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
program = export(mlp, (torch.randn(3, 4),), dynamic_shapes=({0: Dim("batch")},))
for node in program.graph.nodes:
    if node.op == "call_function":
        print(node.target)
print("inputs:", [spec.arg.name for spec in program.graph_signature.input_specs])
print("batch of 7:", tuple(program.module()(torch.randn(7, 4)).shape))
