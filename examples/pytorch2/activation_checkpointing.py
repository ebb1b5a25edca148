r"""
Activation checkpointing
========================

Keep fewer activations for the backward pass and recompute the rest: less memory for more compute, measured here in bytes and in time.

Summary
-------

====================================  ======================================================================================
You want                              Call
====================================  ======================================================================================
recompute one block in backward       :entry:`checkpoint(block, x, use_reentrant=False) <pt2-activation-checkpointing-block>`
know what omitting the flag does      :entry:`checkpoint(block, x) <pt2-activation-checkpointing-reentrant>`: warns, runs
                                      the reentrant variant
checkpoint an ``nn.Sequential``       :entry:`checkpoint_sequential(seq, 2, x, ...) <pt2-activation-checkpointing-sequential>`
the bytes kept for backward           :entry:`saved_tensors_hooks(pack, unpack) <pt2-activation-checkpointing-bytes>`
the peak on a GPU                     :entry:`torch.cuda.max_memory_allocated() <pt2-activation-checkpointing-cuda>`
the price in time                     :entry:`compare(...) of a training step <pt2-activation-checkpointing-cost>`
save matmuls, recompute the rest      :entry:`create_selective_checkpoint_contexts <pt2-activation-checkpointing-selective>`
                                      with a ``CheckpointPolicy`` function
selective checkpointing, compiled     :entry:`torch.compile(model) <pt2-activation-checkpointing-compile>`, same gradients
====================================  ======================================================================================
"""

# %%
# .. _pt2-activation-checkpointing-block:
#
# Checkpoint a block
# ------------------
# ``torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False)`` runs
# ``fn`` keeping only its inputs; backward runs ``fn`` again to get the
# activations it needs. Gradients are the same as without it. Wrap whole
# blocks (a transformer layer), not single operations: the inputs of every
# checkpointed call are still kept.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = torch.nn.Sequential(
    torch.nn.LayerNorm(64), torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)
)
x = torch.randn(16, 64)

(x + block(x)).square().mean().backward()
plain_grads = [p.grad.clone() for p in block.parameters()]
block.zero_grad(set_to_none=True)
(x + checkpoint(block, x, use_reentrant=False)).square().mean().backward()
for plain, recomputed in zip(plain_grads, block.parameters(), strict=True):
    torch.testing.assert_close(recomputed.grad, plain)
print("same gradients for", sum(p.numel() for p in block.parameters()), "parameters")

# %%
# .. _pt2-activation-checkpointing-reentrant:
#
# Pass ``use_reentrant=False``
# ----------------------------
# Two implementations exist. The non-reentrant one (``use_reentrant=False``)
# records the graph with saved-tensor hooks: it works when no input requires
# grad, with ``torch.autograd.grad``, keyword arguments and nested
# checkpoints, and stops recomputing once it has what backward needs. The
# reentrant one reruns the block in a nested backward. Omitting the argument
# has warned since 2.1, and the warning says it will become an error; here it
# still only warns (below), then runs the *reentrant* variant. With a data
# batch that does not require grad, its output is cut off from the graph:
import warnings

import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.GELU())
batch = torch.randn(4, 16)  # input data: requires_grad is False
calls = {
    "checkpoint(block, batch)": {},
    "checkpoint(block, batch, use_reentrant=False)": {"use_reentrant": False},
}
for call, kwargs in calls.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(block, batch, **kwargs)
    print(f"{call}: output requires grad: {out.requires_grad}")
    for warning in caught:
        print("   warns:", str(warning.message).split(". ")[0])

# %%
# .. _pt2-activation-checkpointing-sequential:
#
# ``checkpoint_sequential`` for an ``nn.Sequential``
# --------------------------------------------------
# ``checkpoint_sequential(seq, segments, x, use_reentrant=False)`` splits the
# modules into ``segments`` runs and checkpoints each but the last (which
# backward needs at once). Same rule for ``use_reentrant`` as above.
import torch
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(0)
seq = torch.nn.Sequential(
    *[torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.GELU()) for _ in range(8)]
)
x = torch.randn(32, 64)

seq(x).square().mean().backward()
plain_grad = seq[0][0].weight.grad.clone()
seq.zero_grad(set_to_none=True)
out = checkpoint_sequential(seq, 2, x, use_reentrant=False)
out.square().mean().backward()
torch.testing.assert_close(seq[0][0].weight.grad, plain_grad)
print("8 modules in 2 segments:", tuple(out.shape), "same gradients")

# %%
# .. _pt2-activation-checkpointing-bytes:
#
# Count the bytes kept for backward
# ---------------------------------
# ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)`` calls ``pack``
# on every tensor autograd saves. Summing their storages, without the
# parameters (which exist anyway), gives the activation memory exactly, on any
# device. A residual stack of four MLP blocks, with and without checkpointing
# each block:
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
width = 256
blocks = torch.nn.ModuleList(
    torch.nn.Sequential(
        torch.nn.LayerNorm(width),
        torch.nn.Linear(width, 4 * width),
        torch.nn.GELU(),
        torch.nn.Linear(4 * width, width),
    )
    for _ in range(4)
)
x = torch.randn(64, width, requires_grad=True)
weights = {p.untyped_storage().data_ptr() for p in blocks.parameters()}


def activation_bytes(forward):
    """Bytes of the distinct non-parameter storages saved for backward by ``forward()``."""
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            saved[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = forward()
    out.sum().backward()
    return sum(saved.values())


def plain():
    h = x
    for block in blocks:
        h = h + block(h)
    return h


def checkpointed():
    h = x
    for block in blocks:
        h = h + checkpoint(block, h, use_reentrant=False)
    return h


kept = {"plain": activation_bytes(plain), "checkpointed": activation_bytes(checkpointed)}
for label, nbytes in kept.items():
    print(f"{label:13} {nbytes:>10,} bytes saved for backward")
print(f"checkpointing keeps {kept['checkpointed'] / kept['plain']:.1%} of the activations")

# %%
# .. _pt2-activation-checkpointing-cuda:
#
# The peak on a GPU
# -----------------
# On CUDA the allocator keeps a peak counter: reset it, run forward and
# backward, read ``torch.cuda.max_memory_allocated()``. The peak also holds the
# weights, their gradients and the activations of the one block being
# recomputed, so it shrinks less than the saved bytes above.
import torch
from torch.utils.checkpoint import checkpoint

if torch.cuda.is_available():
    torch.manual_seed(0)
    width = 1024
    blocks = torch.nn.ModuleList(
        torch.nn.Sequential(
            torch.nn.LayerNorm(width),
            torch.nn.Linear(width, 4 * width),
            torch.nn.GELU(),
            torch.nn.Linear(4 * width, width),
        )
        for _ in range(8)
    ).cuda()
    x = torch.randn(4096, width, device="cuda")

    def peak_mib(use_checkpoint):
        """Peak allocated memory of one forward and backward pass, in MiB."""
        blocks.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        h = x
        for block in blocks:
            h = h + (checkpoint(block, h, use_reentrant=False) if use_checkpoint else block(h))
        h.square().mean().backward()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() / 2**20

    peak_mib(False)  # a first pass allocates cuBLAS's workspace
    for use_checkpoint in (False, True):
        print(f"checkpointed={use_checkpoint}: peak {peak_mib(use_checkpoint):,.0f} MiB")
else:
    print("skipped: no CUDA device, so torch.cuda.max_memory_allocated has no peak to read")

# %%
# .. _pt2-activation-checkpointing-cost:
#
# The price: recomputing in backward
# ----------------------------------
# Checkpointing every block reruns its forward pass during backward, so a
# training step does about one more forward pass of work; the selective policy
# of the next entry reruns only what is not a matrix product, but in eager mode
# it routes every operation through a Python dispatch mode, a cost that weighs
# most on small models. ``compare`` times the steps in alternation on one
# thread; the verdicts are this machine's. On a GPU the trade is the same, and
# it is worth it when the memory saved allows a larger batch or model.
import functools

import torch
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)

from cheatsheet import compare


def save_matmuls(ctx, op, *args, **kwargs):
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


torch.manual_seed(0)
width = 256
blocks = torch.nn.ModuleList(
    torch.nn.Sequential(
        torch.nn.LayerNorm(width),
        torch.nn.Linear(width, 4 * width),
        torch.nn.GELU(),
        torch.nn.Linear(4 * width, width),
    )
    for _ in range(4)
)
x = torch.randn(64, width)


selective = functools.partial(create_selective_checkpoint_contexts, save_matmuls)


def train_step(mode):
    blocks.zero_grad(set_to_none=True)
    h = x
    for block in blocks:
        if mode == "plain":
            h = h + block(h)
        elif mode == "checkpoint":
            h = h + checkpoint(block, h, use_reentrant=False)
        else:
            h = h + checkpoint(block, h, use_reentrant=False, context_fn=selective)
    h.square().mean().backward()


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    steps = compare(
        {
            "plain step": functools.partial(train_step, "plain"),
            "checkpointed step": functools.partial(train_step, "checkpoint"),
            "selective step": functools.partial(train_step, "selective"),
        },
        budget_s=1.5,
    )
finally:
    torch.set_num_threads(threads)
print(steps)
for verdict in steps.verdicts():
    print(verdict + ".")

# %%
# .. _pt2-activation-checkpointing-selective:
#
# Selective checkpointing: save the matmuls
# -----------------------------------------
# Matrix products are the costly operations to rerun; norms and activations
# cost little to rerun but as much memory to keep. Selective activation
# checkpointing (SAC) asks ``policy(ctx, op, *args, **kwargs)``
# about each operation: ``CheckpointPolicy.MUST_SAVE`` keeps its output,
# ``PREFER_RECOMPUTE`` lets backward redo it. Pass
# ``context_fn=functools.partial(create_selective_checkpoint_contexts, policy)``.
# SAC keeps its saved tensors outside the autograd graph;
# ``respect_saved_tensors_hooks=True`` routes them through the hooks, so the
# byte count below sees them (left unset while a hook is active, it warns
# that a later release will route them by default).
import functools

import torch
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)

matmuls = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default}


def save_matmuls(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op in matmuls else CheckpointPolicy.PREFER_RECOMPUTE


selective = functools.partial(create_selective_checkpoint_contexts, save_matmuls)

torch.manual_seed(0)
width = 256
blocks = torch.nn.ModuleList(
    torch.nn.Sequential(
        torch.nn.LayerNorm(width),
        torch.nn.Linear(width, 4 * width),
        torch.nn.GELU(),
        torch.nn.Linear(4 * width, width),
    )
    for _ in range(4)
)
x = torch.randn(64, width, requires_grad=True)
weights = {p.untyped_storage().data_ptr() for p in blocks.parameters()}


def activation_bytes(mode):
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            saved[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        h = x
        for block in blocks:
            if mode == "plain":
                h = h + block(h)
            elif mode == "checkpoint":
                h = h + checkpoint(block, h, use_reentrant=False)
            else:
                sac = {"context_fn": selective, "respect_saved_tensors_hooks": True}
                h = h + checkpoint(block, h, use_reentrant=False, **sac)
    h.sum().backward()
    return sum(saved.values())


for mode in ("plain", "checkpoint", "selective"):
    print(f"{mode:11} {activation_bytes(mode):>10,} bytes saved for backward")

# %%
# .. _pt2-activation-checkpointing-compile:
#
# Selective checkpointing under ``torch.compile``
# -----------------------------------------------
# The same ``context_fn`` works in a compiled model: AOTAutograd's partitioner
# reads the policy (``MUST_*`` binds it, ``PREFER_*`` lets it choose) and
# decides what the compiled backward recomputes. Dynamo warns (on stderr,
# hushed here) that a region with a ``context_fn`` must not hold in-place
# operations such as ``torch.relu_``. The model is tiny, to keep the compile
# short; its gradients match the plain eager model's.
import contextlib
import copy
import functools
import io
import time

import torch
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)


def save_matmuls(ctx, op, *args, **kwargs):
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


class Residual(torch.nn.Module):
    def __init__(self, width, selective=False):
        super().__init__()
        self.mlp = torch.nn.Sequential(
            torch.nn.LayerNorm(width),
            torch.nn.Linear(width, 4 * width),
            torch.nn.GELU(),
            torch.nn.Linear(4 * width, width),
        )
        self.selective = selective

    def forward(self, x):
        if not self.selective:
            return x + self.mlp(x)
        context_fn = functools.partial(create_selective_checkpoint_contexts, save_matmuls)
        return x + checkpoint(self.mlp, x, use_reentrant=False, context_fn=context_fn)


torch.manual_seed(0)
plain = torch.nn.Sequential(Residual(32), Residual(32))
selective = copy.deepcopy(plain)
for layer in selective:
    layer.selective = True
x = torch.randn(8, 32)

plain(x).square().mean().backward()
start = time.perf_counter()
with contextlib.redirect_stderr(io.StringIO()):
    torch.compile(selective)(x).square().mean().backward()
print(f"compile + first step: {time.perf_counter() - start:.1f} s")
for eager_p, compiled_p in zip(plain.parameters(), selective.parameters(), strict=True):
    torch.testing.assert_close(compiled_p.grad, eager_p.grad)
print(
    "compiled selective checkpointing: gradients match eager for",
    len(list(plain.parameters())),
    "tensors",
)
