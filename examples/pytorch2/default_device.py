r"""
Default device
==============

Where factory calls allocate when no ``device=`` is given, how to change that for a program or a block, what follows it, and what it costs per call.

Summary
-------

============================================  =============================================================================================================================
You want                                      Call
============================================  =============================================================================================================================
the current default                           :entry:`torch.get_default_device() <pt2-default-device-get>`
a default for the whole program               :entry:`torch.set_default_device("cuda") <pt2-default-device-set>`
back to the CPU default                       :entry:`torch.set_default_device(None) <pt2-default-device-set>`
a default for one block                       :entry:`with torch.device("cuda"): <pt2-default-device-with>`
a model built directly on a device            :entry:`construct it inside with torch.device(...) <pt2-default-device-build>`
a model with no memory at all                 :entry:`construct it inside with torch.device("meta") <pt2-default-device-build>`
real, initialised weights for a meta model    :entry:`model.to_empty(device="cpu") <pt2-default-device-to-empty>`, then ``reset_parameters()`` per submodule
a meta model filled from a checkpoint         :entry:`model.load_state_dict(state, assign=True) <pt2-default-device-assign>`
to override the default                       :entry:`device= on the call <pt2-default-device-follows>` (it always wins)
unaffected                                    :entry:`ops on existing tensors, *_like, from_numpy <pt2-default-device-follows>`
affected although given a tensor              :entry:`torch.as_tensor(t) <pt2-default-device-follows>`, :entry:`torch.tensor(t) <pt2-default-device-tensor-copies>` (warns)
allocations hidden in helpers                 :entry:`torch.arange(n) inside a function <pt2-default-device-hidden>` lands on the default
the cost of a CUDA default for a list         :entry:`compare(...) of torch.tensor(list) <pt2-default-device-cuda-copy>`
no per-call overhead                          :entry:`no default set; device= passed <pt2-default-device-overhead>`
the default put back                          :entry:`set_default_device(previous) in finally <pt2-default-device-reset>`
============================================  =============================================================================================================================
"""

# %%
# .. _pt2-default-device-get:
#
# Read the current default
# ------------------------
# ``torch.get_default_device()`` arrived in PyTorch 2.3, after the 2.0
# documentation; before it, the usual trick was to allocate an empty tensor
# and read its ``.device``. Without a default set, factories allocate on the CPU.
import torch

print("torch.get_default_device():", torch.get_default_device())
print("old trick, torch.empty(()).device:", torch.empty(()).device)

# %%
# .. _pt2-default-device-set:
#
# Set it for the whole program
# ----------------------------
# ``torch.set_default_device(device)`` makes every factory call without a
# ``device=`` argument allocate there, until it is set again.
# ``torch.set_default_device(None)`` restores the built-in default (the CPU).
# The examples use the ``meta`` device, which stores shapes but no data and
# exists on every machine, so the switch shows without a GPU.
import torch

torch.set_default_device("meta")
print("after set_default_device('meta'):", torch.get_default_device())
print("torch.zeros(2, 3):", torch.zeros(2, 3))
torch.set_default_device(None)
print("after set_default_device(None), torch.zeros(2, 3).device:", torch.zeros(2, 3).device)

# %%
# .. _pt2-default-device-with:
#
# Set it for one block: ``with torch.device(...)``
# ------------------------------------------------
# A ``torch.device`` is also a context manager: inside the block it is the
# default, and the previous default comes back on exit, even after an error.
# The block reads the device off the tensors it makes: after the
# ``set_default_device(None)`` above, older releases raise from
# ``torch.get_default_device()`` (the last entry's note says which).
import torch

with torch.device("meta"):
    inside = torch.randn(4)
print("made inside the block:", inside.device)
print("made after it:        ", torch.randn(4).device)

# %%
# .. _pt2-default-device-build:
#
# Build a model on a device without copying it
# --------------------------------------------
# Modules create their parameters with factory functions, so constructing a
# model inside the block allocates the weights there directly. With ``meta``
# this builds a model of any size instantly and without memory; on a GPU it
# skips the CPU allocation and the copy that ``model.to("cuda")`` would do.
import torch

with torch.device("meta"):
    big = torch.nn.Sequential(torch.nn.Linear(8192, 8192), torch.nn.Linear(8192, 8192))
n_params = sum(p.numel() for p in big.parameters())
print(
    f"{n_params / 1e6:.0f} M parameters on {next(big.parameters()).device}, "
    f"{n_params * 4 / 2**20:.0f} MiB it would take in float32, 0 bytes used"
)

# %%
# .. _pt2-default-device-to-empty:
#
# Materialise a model built on ``meta``: ``to_empty`` and re-initialise
# ---------------------------------------------------------------------
# A ``meta`` model has no values to move, so ``model.to("cpu")`` raises.
# ``model.to_empty(device=...)`` allocates every parameter and buffer there,
# uninitialised; calling ``reset_parameters()`` on each submodule that has one
# then runs the usual initialisation. With the same seed, the weights equal
# those of a model built on the CPU in the first place.
import torch


def build():
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.LayerNorm(32))


torch.manual_seed(0)
reference = build()
with torch.device("meta"):
    model = build()
try:
    model.to("cpu")
except NotImplementedError as err:
    print("model.to('cpu') -> NotImplementedError:", str(err).split(";")[0])
model.to_empty(device="cpu")
torch.manual_seed(0)
for module in model.modules():
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
print("parameters on:", {p.device.type for p in model.parameters()})
same = [torch.equal(a, b) for a, b in zip(model.parameters(), reference.parameters(), strict=True)]
print("same values as a model built on the CPU:", all(same))

# %%
# .. _pt2-default-device-assign:
#
# Fill a ``meta`` model from a checkpoint: ``load_state_dict(..., assign=True)``
# ------------------------------------------------------------------------------
# To load saved weights there is nothing to initialise. A plain
# ``load_state_dict`` copies into the module's own tensors, which on ``meta``
# does nothing (PyTorch warns); with ``assign=True`` the module takes the
# checkpoint's tensors as its parameters.
import warnings

import torch

torch.manual_seed(0)
trained = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.LayerNorm(32))
state = trained.state_dict()

with torch.device("meta"):
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.LayerNorm(32))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model.load_state_dict(state)
print("plain load       -> parameters on:", {p.device.type for p in model.parameters()})
print(f"  {caught[0].category.__name__}: {str(caught[0].message).split(' (Did')[0]}")

# assign=True comes second on purpose: it records itself in the state dict's
# _metadata (2.4 did too), so a later plain load of the same dict would assign too.
model.load_state_dict(state, assign=True)
print("with assign=True -> parameters on:", {p.device.type for p in model.parameters()})
print(
    "values equal the checkpoint:",
    all(torch.equal(model.state_dict()[k], v) for k, v in state.items()),
)

# %%
# .. _pt2-default-device-follows:
#
# What follows the default, and what does not
# -------------------------------------------
# Only calls that create a tensor from nothing (or from Python data) follow
# the default. An explicit ``device=`` wins; operations on an existing tensor,
# ``*_like``, ``.to(dtype)`` and ``torch.from_numpy`` keep the device of their
# input. ``torch.as_tensor`` of a CPU tensor counts as a factory: it copies.
import numpy as np
import torch

cpu_tensor = torch.ones(3)
with torch.device("meta"):
    rows = {
        "torch.zeros(3)": torch.zeros(3),
        "torch.tensor([1, 2, 3])": torch.tensor([1, 2, 3]),
        "torch.arange(3)": torch.arange(3),
        "torch.zeros(3, device='cpu')": torch.zeros(3, device="cpu"),
        "torch.as_tensor(cpu_tensor)": torch.as_tensor(cpu_tensor),
        "torch.from_numpy(array)": torch.from_numpy(np.ones(3)),
        "cpu_tensor + 1": cpu_tensor + 1,
        "torch.zeros_like(cpu_tensor)": torch.zeros_like(cpu_tensor),
        "cpu_tensor.to(torch.float64)": cpu_tensor.to(torch.float64),
        "cpu_tensor.new_zeros(3)": cpu_tensor.new_zeros(3),
    }
for call, result in rows.items():
    print(f"{call:30} -> {result.device}")

# %%
# .. _pt2-default-device-tensor-copies:
#
# ``torch.tensor(existing_tensor)`` copies, and says so
# -----------------------------------------------------
# Passing a tensor to ``torch.tensor`` also copies it to the default device,
# with a ``UserWarning`` that recommends ``.detach().clone()``. The clone stays
# where the source is; add ``.to(device)`` when a move is what you want.
import warnings

import torch

cpu_tensor = torch.ones(3)
with torch.device("meta"), warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    copied = torch.tensor(cpu_tensor)
    cloned = cpu_tensor.detach().clone()
print("torch.tensor(cpu_tensor) ->", copied.device)
print("cpu_tensor.detach().clone() ->", cloned.device)
for w in caught:
    print(f"{w.category.__name__}: {str(w.message)[:70]}...")

# %%
# .. _pt2-default-device-hidden:
#
# The cost it can hide: allocations you did not write
# ---------------------------------------------------
# A helper that builds an index with ``torch.arange`` works while everything
# is on the CPU. Under a different default its ``arange`` lands on the default
# device while the data stays put, and the two no longer mix. On a GPU the
# same shift can also turn ``torch.tensor(python_list)`` in a loop into a
# host-to-device copy per step, which waits for the copy to finish.
import torch


def add_positions(x):
    """Add each row's index to it (an allocation hidden inside)."""
    return x + torch.arange(x.shape[0]).unsqueeze(1)


data = torch.zeros(3, 2)
print("no default set:", add_positions(data).tolist())
with torch.device("meta"):
    try:
        add_positions(data)
    except RuntimeError as err:
        print("default meta, data on cpu -> RuntimeError:", str(err).splitlines()[0])

# %%
# .. _pt2-default-device-cuda-copy:
#
# Time ``torch.tensor(list)`` with a CUDA default
# -----------------------------------------------
# With a GPU, the same factory call becomes a copy to device memory. The
# candidates are closures with no tensor argument, so ``device="cuda"`` tells
# the timer to wait for the GPU. Guarded: it runs only where CUDA exists.
import torch

from cheatsheet import compare

values = list(range(1000))
if torch.cuda.is_available():

    def default_cpu():
        return torch.tensor(values)

    def default_cuda():
        with torch.device("cuda"):
            return torch.tensor(values)

    copy_table = compare(
        {"default cpu": default_cpu, "default cuda": default_cuda}, device="cuda", budget_s=1.0
    )
    print(copy_table)
    print(copy_table.verdict("default cuda"))
else:
    print("skipped: no CUDA device, so there is no host-to-device copy to time")

# %%
# .. _pt2-default-device-overhead:
#
# The per-call overhead of a default device
# -----------------------------------------
# A default device is implemented as a ``TorchFunctionMode`` that inspects
# every torch call from Python and adds ``device=`` to factories, even when the
# default is ``"cpu"``. Each candidate below makes 100 tiny allocations: with no
# default, inside ``with torch.device("cpu")`` (entered once per 100 calls), and
# there with an explicit ``device=`` as well. The verdicts say what that costs
# here. Times are per 100 calls; bars are speedups over no default (below 1 is
# slower), with 95% intervals.
import matplotlib.pyplot as plt
import torch

from cheatsheet import compare, environment


def no_default():
    for _ in range(100):
        torch.empty(16)


def default_cpu():
    with torch.device("cpu"):
        for _ in range(100):
            torch.empty(16)


def default_cpu_explicit():
    with torch.device("cpu"):
        for _ in range(100):
            torch.empty(16, device="cpu")


overhead = compare(
    {
        "no default": no_default,
        "default cpu": default_cpu,
        "default cpu, device='cpu' passed": default_cpu_explicit,
    },
    device="cpu",  # closures: nothing tells the timer where the work runs
    budget_s=1.5,  # three cheap candidates: enough rounds for a clear verdict
)
for verdict in overhead.verdicts():
    print(verdict)
print(environment())
overhead.plot(title="100 × torch.empty(16): speedup over no default device")
plt.show()
overhead

# %%
# .. _pt2-default-device-reset:
#
# Reset before you leave
# ----------------------
# A default device is global state: libraries and tests that run later see it
# too. Prefer the ``with`` block; after ``set_default_device``, restore with
# ``None`` (or the device you read before changing it). Older releases raise
# ``AttributeError`` from ``get_default_device()`` after a reset to ``None``;
# the note under this title, measured, says from which release it works.
import torch

previous = torch.get_default_device()
torch.set_default_device("meta")
try:
    print("during:", torch.empty(1).device)
finally:
    torch.set_default_device(None if previous.type == "cpu" else previous)
print("restored:", torch.get_default_device())
