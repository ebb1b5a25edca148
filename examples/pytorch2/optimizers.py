r"""
Optimizer steps: foreach, fused, compiled
=========================================

The same ``Adam``, ``AdamW``, ``SGD`` or ``Adagrad`` update comes in three implementations and can be compiled; which one runs decides how long ``optimizer.step()`` takes.

Summary
-------

====================================  ===========================================================================================
You want                              Call
====================================  ===========================================================================================
see which implementation runs         :entry:`TorchFunctionMode around opt.step() <pt2-optimizers-which>`
one loop per tensor (CPU default)     :entry:`AdamW(params, foreach=False) <pt2-optimizers-which>`
one call per operation for all        :entry:`AdamW(params, foreach=True) <pt2-optimizers-which>` (the CUDA default)
one kernel for the whole update       :entry:`AdamW(params, fused=True) <pt2-optimizers-same>`, CPU too
every tensor of a list at once        :entry:`torch.foreach.add_(params, grads, alpha=-lr) <pt2-whats-new-2-15-foreach>`
a step without an optimizer object    :entry:`torch.optim.functional.adamw(...) <pt2-whats-new-2-15-optim-functional>`, AdamW's numbers
parameters in a stable order          :entry:`SGD(list(params)) <pt2-optimizers-param-order>`, not a set: a set warns
the same numbers from each            :entry:`torch.testing.assert_close <pt2-optimizers-same>` after a few steps
which is faster here                  :entry:`compare(...) of the three steps <pt2-optimizers-speed>`, 200 small tensors
a compiled step                       :entry:`torch.compile(step) <pt2-optimizers-compiled>` around ``opt.step()``
a scheduler with a compiled step      :entry:`lr=torch.tensor(1e-3) <pt2-optimizers-lr-tensor>`, one graph
free the gradients                    :entry:`opt.zero_grad() <pt2-optimizers-state>`: ``set_to_none=True`` by default
save and restore the optimizer        :entry:`opt.load_state_dict(torch.load(path)) <pt2-optimizers-state>`
the recommendation on a GPU           :entry:`fused=True on CUDA <pt2-optimizers-cuda>`
====================================  ===========================================================================================
"""

# %%
# .. _pt2-optimizers-which:
#
# Three implementations of one step
# ---------------------------------
# ``foreach=False`` loops over the parameters in Python, several small
# operations per tensor. ``foreach=True`` issues each operation once for a
# whole list of tensors (``torch._foreach_*``, also public as
# :ref:`torch.foreach <pt2-whats-new-2-15-foreach>`; the step itself, without an
# optimizer object, is :ref:`torch.optim.functional <pt2-whats-new-2-15-optim-functional>`).
# ``fused=True`` does the whole update in one kernel. With neither flag, the
# default is ``foreach`` when every parameter is on CUDA and the loop on the
# CPU. A ``TorchFunctionMode`` (``torch.overrides``) lists the
# in-place calls of one step over 10 tensors:
import collections

import torch
from torch.overrides import TorchFunctionMode


class InPlaceCalls(TorchFunctionMode):
    """Count the in-place torch calls (names ending in ``_``) made inside the ``with``."""

    def __init__(self):
        super().__init__()
        self.calls = collections.Counter()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name.endswith("_") and not name.startswith("__"):
            self.calls[name] += 1
        return func(*args, **(kwargs or {}))


params = [torch.randn(4, 4, requires_grad=True) for _ in range(10)]
for p in params:
    p.grad = torch.randn_like(p)
for flags in ({}, {"foreach": False}, {"foreach": True}, {"fused": True}):
    optimizer = torch.optim.AdamW(params, lr=1e-3, **flags)
    optimizer.step()  # the first step creates the state
    with InPlaceCalls() as counter:
        optimizer.step()
    print(f"AdamW(**{flags}): {counter.calls.total()} calls {dict(counter.calls)}")

# %%
# .. _pt2-optimizers-same:
#
# Fused on the CPU, and the same numbers from all three
# -----------------------------------------------------
# Fused kernels came to CUDA first (``Adam`` and ``AdamW`` by 2.0); since 2.4
# ``Adam``, ``AdamW``, ``SGD`` and ``Adagrad`` take ``fused=True`` on the CPU
# too. All three implementations give the same parameters after a few steps,
# up to float rounding (``fused`` reorders the arithmetic).
import torch

torch.manual_seed(0)
start = [torch.randn(8, 8) for _ in range(20)]
grads = [[torch.randn(8, 8) for _ in start] for _ in range(3)]


def after_steps(optimizer_class, **flags):
    params = [p.clone().requires_grad_() for p in start]
    extra = {"momentum": 0.9} if optimizer_class is torch.optim.SGD else {}
    optimizer = optimizer_class(params, lr=1e-2, **extra, **flags)
    for step_grads in grads:
        for p, g in zip(params, step_grads, strict=True):
            p.grad = g.clone()
        optimizer.step()
    return params


for optimizer_class in (torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD, torch.optim.Adagrad):
    loop = after_steps(optimizer_class, foreach=False)
    for flags in ({"foreach": True}, {"fused": True}):
        other = after_steps(optimizer_class, **flags)
        torch.testing.assert_close(other, loop)
        error = max((a - b).abs().max().item() for a, b in zip(other, loop, strict=True))
        print(
            f"{optimizer_class.__name__:8} {flags!s:19} largest difference from the loop {error:.2g}"
        )

# %%
# .. _pt2-optimizers-speed:
#
# Which is faster here
# --------------------
# With many small tensors the loop pays Python and dispatch overhead for every
# operation on every tensor, which is what ``foreach`` and ``fused`` remove.
# ``AdamW`` on 200 tensors of 16 x 16, each step timed in alternation on one
# thread; the verdicts are this machine's.
import matplotlib.pyplot as plt
import torch

from cheatsheet import compare


def adamw_over_small_tensors(**flags):
    params = [torch.randn(16, 16, requires_grad=True) for _ in range(200)]
    for p in params:
        p.grad = torch.randn_like(p)
    return torch.optim.AdamW(params, lr=1e-3, **flags)


torch.manual_seed(0)
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    steps = compare(
        {
            "for-loop": adamw_over_small_tensors(foreach=False).step,
            "foreach": adamw_over_small_tensors(foreach=True).step,
            "fused": adamw_over_small_tensors(fused=True).step,
        },
        budget_s=1.0,
    )
finally:
    torch.set_num_threads(threads)
print(steps)
for verdict in steps.verdicts():
    print(verdict + ".")
steps.plot(title="AdamW step, 200 tensors of 16 x 16: speedup over the loop")
plt.show()

# %%
# .. _pt2-optimizers-compiled:
#
# A compiled step
# ---------------
# Wrap the call in a function and compile that: Inductor fuses the
# update into a few kernels, at the price of a compile on the first call,
# timed apart (warm caches, in a later run of the program, make it cheaper).
# Timed against the eager loop and the eager fused step, on twenty tensors to
# keep the compile short; ``lr`` is a tensor for the reason given next.
import contextlib
import io
import time

import torch

from cheatsheet import compare


def adamw_over_small_tensors(**flags):
    params = [torch.randn(16, 16, requires_grad=True) for _ in range(20)]
    for p in params:
        p.grad = torch.randn_like(p)
    return torch.optim.AdamW(params, lr=torch.tensor(1e-3), **flags)


torch.manual_seed(0)
compiled_optimizer = adamw_over_small_tensors()


@torch.compile
def compiled_step():
    compiled_optimizer.step()


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    start = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):  # a note: the profiler label is skipped
        compiled_step()
    print(f"first call (compiles): {time.perf_counter() - start:.1f} s")
    steps = compare(
        {
            "eager step": adamw_over_small_tensors().step,
            "eager fused step": adamw_over_small_tensors(fused=True).step,
            "compiled step": compiled_step,
        },
        budget_s=1.0,
    )
finally:
    torch.set_num_threads(threads)
print(steps)
for verdict in steps.verdicts():
    print(verdict + ".")

# %%
# .. _pt2-optimizers-lr-tensor:
#
# A scheduler with a compiled step: make ``lr`` a tensor
# ------------------------------------------------------
# A float ``lr`` is a constant in the compiled graph, guarded by
# ``lr == 0.001``: the scheduler's first change fails the guard and Dynamo
# compiles again (2.14.1 and later then treat the float as a symbol, so later
# changes do not). ``lr`` can be a tensor instead, which the graph reads as
# an input: one graph from the start. A backend that only counts its graphs
# shows it without paying for Inductor.
import contextlib
import io

import torch
import torch._dynamo


def graphs_compiled(lr, steps=5):
    graphs = []

    def counting_backend(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 8)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    @torch.compile(backend=counting_backend)
    def step():
        optimizer.step()

    for _ in range(steps):
        model(torch.randn(4, 8)).sum().backward()
        with contextlib.redirect_stderr(io.StringIO()):  # a note: the profiler label is skipped
            step()
        scheduler.step()
        optimizer.zero_grad()
    return len(graphs), optimizer.param_groups[0]["lr"]


for label, lr in (("lr=1e-3", 1e-3), ("lr=torch.tensor(1e-3)", torch.tensor(1e-3))):
    count, last_lr = graphs_compiled(lr)
    print(f"{label:22} {count} graph(s) for 5 scheduler steps, lr now {float(last_lr):.3g}")

# %%
# .. _pt2-optimizers-state:
#
# ``zero_grad`` and the optimizer's state
# ---------------------------------------
# Since 2.0 ``zero_grad()`` sets gradients to ``None`` (``set_to_none=True``),
# which frees their memory and lets the next ``backward`` write instead of
# add. The optimizer's ``state_dict`` (step counts, moment estimates, settings)
# saves and loads like a model's, in one line each.
import os
import tempfile

import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()
optimizer.zero_grad()
print("grad after zero_grad():", model.weight.grad)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "optimizer.pt")
    torch.save(optimizer.state_dict(), path)
    restored = torch.optim.AdamW(model.parameters(), lr=1e-3)
    restored.load_state_dict(torch.load(path))
state = restored.state[model.weight]
print("restored state:", {key: tuple(value.shape) for key, value in state.items()})

# %%
# .. _pt2-optimizers-param-order:
#
# Parameters in a list, not a set
# -------------------------------
# The optimizer's ``state_dict`` names each parameter by its position in the
# order the optimizer was given them, so a checkpoint's moment estimates land on
# the right tensors only if that order is the same in the next run. A ``set`` of
# tensors has no such order: it changes from run to run. In 2.14 a set was
# taken without a word; now the optimizer warns (``FutureWarning``, an error in
# a later release). ``model.parameters()`` or a list keeps the order. The block
# prints what this torch does; below it, what 2.14.1 printed for the same code.
import warnings

import torch

model = torch.nn.Linear(3, 2)
for given in (set(model.parameters()), list(model.parameters())):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.optim.SGD(given, lr=0.1)
    said = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught) or "no warning"
    print(f"SGD({type(given).__name__}): {said}")

# %%
# .. torch-outputs:: pt2-optimizers-param-order
#    :releases: 2.14.1

# %%
# .. _pt2-optimizers-cuda:
#
# On a GPU: ``fused=True``
# ------------------------
# On CUDA the default is ``foreach``; ``fused=True`` is the recommended choice
# for ``Adam`` and ``AdamW``: one kernel for the whole update instead of at
# least one per operation. The step times below run only where CUDA exists.
import torch

from cheatsheet import compare

if torch.cuda.is_available():

    def adamw_on_cuda(**flags):
        params = [torch.randn(256, 256, device="cuda", requires_grad=True) for _ in range(200)]
        for p in params:
            p.grad = torch.randn_like(p)
        return torch.optim.AdamW(params, lr=1e-3, **flags)

    cuda_steps = compare(
        {
            "default (foreach)": adamw_on_cuda().step,
            "fused": adamw_on_cuda(fused=True).step,
        },
        device="cuda",
        budget_s=1.0,
    )
    print(cuda_steps)
    print(cuda_steps.verdict("fused") + ".")
else:
    print("skipped: no CUDA device, so the foreach and fused CUDA steps were not timed")
