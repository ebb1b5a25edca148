r"""
Memory errors
=============

Out of memory on the GPU and on the CPU: what the message says, where the memory went,
and the changes that need less of it.

Summary
-------

===========================================  ==========================================================
You see                                      Fix
===========================================  ==========================================================
CUDA out of memory. Tried to allocate        :entry:`batch_size=16 <errors-cuda-oom>`, ``torch.no_grad()``, ``torch.autocast``, ``checkpoint``
DefaultCPUAllocator: can\'t allocate memory  :entry:`a.shape == b.shape <errors-cpu-alloc>` before an elementwise op
===========================================  ==========================================================
"""

# %%
# .. _errors-cuda-oom:
#
# CUDA out of memory. Tried to allocate …
# ---------------------------------------
# The GPU could not give the caching allocator a block of the size asked for: the
# model, its activations saved for backward, the optimizer state and the batch no
# longer fit together. The message then says how much of the GPU is in use and by whom.
import torch

if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    try:
        torch.empty(2 * total, dtype=torch.uint8, device="cuda")  # twice the GPU's memory
    except torch.OutOfMemoryError as err:
        print(f"{type(err).__name__}: {err}")
    torch.cuda.empty_cache()
else:
    print("No GPU here; torch 2.14.1's source (c10/cuda/CUDACachingAllocator.cpp) words it")
    print("(an OutOfMemoryError; the parts in braces are filled in, the ones in [brackets]")
    print("appear only when they apply):")
    print(
        "  CUDA out of memory. Tried to allocate {size}. GPU {device} has a total capacity"
        " of {total} of which {free} is free. [Process {pid} has {used} memory in use. ...]"
        "[Including non-PyTorch memory, this process has {used} memory in use. ]"
        "[{limit} allowed; ]Of the allocated memory {allocated} is allocated by PyTorch,"
        " [{pooled} allocated in private pools (e.g., CUDA Graphs), ]and {unused} is"
        " reserved by PyTorch but unallocated. If reserved but unallocated memory is large"
        " try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid"
        " fragmentation.  See documentation for Memory Management "
        " (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
    )

# %%
# Fix, in the order to try them: a smaller batch (with gradient accumulation to keep its
# effect), ``torch.no_grad()`` for evaluation and ``loss.item()`` rather than ``loss``
# in logs (a kept loss keeps its graph), ``torch.autocast`` to ``bfloat16``, activation
# checkpointing (recompute in backward instead of storing), and
# ``PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`` when much is "reserved but
# unallocated". What each saves is measured here on any device, as the bytes autograd
# keeps for backward in one step of a small network:
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def saved_mib(step, model):
    """MiB of activations autograd keeps for backward while step() runs (weights aside)."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            kept[storage.data_ptr()] = storage.nbytes()  # each storage counted once
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        step()
    return sum(kept.values()) / 2**20


torch.manual_seed(0)
model = nn.Sequential(*(nn.Sequential(nn.Linear(256, 256), nn.GELU()) for _ in range(8)))
x = torch.randn(2048, 256)


def whole_batch():
    return model(x).sum()


def half_batch():  # twice, with gradient accumulation, for the same step
    return model(x[:1024].clone()).sum()


def evaluation():
    with torch.no_grad():
        return model(x).sum()


def bfloat16():
    with torch.autocast("cpu", dtype=torch.bfloat16):  # "cuda" on a GPU
        return model(x).sum()


def checkpointed():  # keeps each block's input, recomputes the rest in backward
    h = x
    for block in model:
        h = checkpoint(block, h, use_reentrant=False)
    return h.sum()


for step in (whole_batch, half_batch, evaluation, bfloat16, checkpointed):
    print(f"{step.__name__:<12} {saved_mib(step, model):5.1f} MiB kept for backward")

# %%
# .. _errors-cpu-alloc:
#
# DefaultCPUAllocator: can\'t allocate memory: you tried to allocate … bytes.
# ---------------------------------------------------------------------------
# The operating system refused the memory for a CPU tensor; the size in the message is
# often far beyond any machine's, a sign of an accidental broadcast: ``(N, 1) - (N,)``
# makes an ``N × N`` result.
import re

import torch

a = torch.zeros(10_000_000, 1)  # N values as a column
b = torch.zeros(10_000_000)  # the same N values, flat
try:
    a - b  # broadcasts to 10_000_000 x 10_000_000
except RuntimeError as err:
    message = re.sub(r"^\[enforce fail at [^\]]*\] ", "", str(err))  # drop the source path
    print(f"{type(err).__name__}: {message}")

# %%
# Fix: make the shapes match (the result's size is the product of the broadcast
# shape, worth checking before a large operation).
import torch

a = torch.zeros(10_000_000, 1)
b = torch.zeros(10_000_000)
print("broadcast shape:", torch.broadcast_shapes(a.shape, b.shape))
result = a.squeeze(1) - b
print("after squeeze(1):", tuple(result.shape), f"{result.nbytes / 2**20:.0f} MiB")
