r"""
Reproducibility and memory
==========================

The same random numbers and results on every run, and how much memory tensors
take on the CPU and on a CUDA GPU.

Summary
-------

============================  ==================================================
You want                      Call
============================  ==================================================
repeatable random numbers     :entry:`torch.manual_seed(0) <basics-seeds>`, ``random.seed``, ``np.random.seed``
an independent random stream  :entry:`torch.Generator().manual_seed(s) <basics-generator>`, ``generator=``
reproducible kernels          :entry:`torch.use_deterministic_algorithms(True) <basics-deterministic>`
reproducible cuDNN            :entry:`cudnn.deterministic = True <basics-deterministic>`, ``cudnn.benchmark = False``
the size of a tensor          :entry:`x.element_size() * x.nelement() <basics-tensor-memory>`, ``x.untyped_storage().nbytes()``
GPU memory in use             :entry:`torch.cuda.memory_allocated() <basics-cuda-memory>`, ``memory_reserved()``
the peak                      :entry:`torch.cuda.max_memory_allocated() <basics-cuda-memory>`, ``reset_peak_memory_stats()``
cached blocks back            :entry:`torch.cuda.empty_cache() <basics-cuda-memory>`
a full report                 :entry:`torch.cuda.memory_summary() <basics-cuda-memory>`
memory that grows every step  :entry:`total += loss.item() <basics-memory-grows>`, not ``total += loss``
"CUDA out of memory"          :entry:`except torch.OutOfMemoryError <basics-out-of-memory>`, then the checklist
============================  ==================================================
"""

# %%
# .. _basics-seeds:
#
# Seed every generator
# --------------------
# ``torch.manual_seed`` seeds PyTorch's generators on the CPU and on every GPU, but
# Python's ``random`` and NumPy keep their own, so a script that uses all three seeds
# all three, and re-seeding replays the same numbers. One seed does not give the same
# numbers on every device: the CPU and CUDA generators use different algorithms, so
# ``torch.randn(3, device="cuda")`` differs from ``torch.randn(3)`` after the same seed;
# draw on the CPU and move the tensor when both must agree.
import random

import numpy as np
import torch


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds CUDA; torch.cuda.manual_seed_all(seed) is implied


seed_everything(42)
first = (random.random(), np.random.rand(), torch.rand(1).item())
seed_everything(42)
second = (random.random(), np.random.rand(), torch.rand(1).item())
print("first: ", [f"{v:.4f}" for v in first])
print("second:", [f"{v:.4f}" for v in second])
print("identical:", first == second)

# %%
# .. _basics-generator:
#
# A private random stream: torch.Generator
# ----------------------------------------
# Passing a seeded ``torch.Generator`` to a random function keeps that draw
# independent of the global seed and of whatever other code consumed random numbers.
import torch

gen = torch.Generator().manual_seed(7)
a = torch.randn(3, generator=gen)
torch.rand(100)  # other code drawing from the global generator...
gen.manual_seed(7)
b = torch.randn(3, generator=gen)
print("first: ", a)
print("second:", b)
print("equal:", torch.equal(a, b))

# %%
# .. _basics-deterministic:
#
# Deterministic algorithms
# ------------------------
# ``use_deterministic_algorithms(True)`` makes PyTorch pick reproducible kernels and
# raise ``RuntimeError`` for operations that only have nondeterministic ones (mostly
# on GPUs). Older releases also raised on CUDA matrix products unless
# ``CUBLAS_WORKSPACE_CONFIG=:4096:8`` was set; current ones give each stream its
# own cuBLAS workspace and dropped that check
# (`pytorch#161749 <https://github.com/pytorch/pytorch/pull/161749>`__).
# ``cudnn.benchmark = False`` stops cuDNN from choosing kernels by timing, and
# ``cudnn.deterministic = True`` restricts it to reproducible convolutions.
import torch

torch.use_deterministic_algorithms(True)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
print("deterministic algorithms:", torch.are_deterministic_algorithms_enabled())

results = []
for _ in range(2):
    torch.manual_seed(0)
    x = torch.randn(64, 3, 16, 16)
    conv = torch.nn.Conv2d(3, 8, kernel_size=3)
    results.append(conv(x).sum().item())
print("two seeded runs:", [f"{r:.4f}" for r in results], "identical:", results[0] == results[1])

# Switch back to the defaults, which are faster, when reproducibility is not needed.
torch.use_deterministic_algorithms(False)
torch.backends.cudnn.deterministic = False
print("deterministic algorithms:", torch.are_deterministic_algorithms_enabled())

# %%
# .. _basics-tensor-memory:
#
# How big is a tensor
# -------------------
# A tensor's size in bytes is its element count times the bytes per element, and
# views report the size of the storage they share, not a copy of it.
import torch

x = torch.zeros(1000, 1000)
view = x[:10]
print(f"float32 1000x1000: {x.element_size() * x.nelement() / 2**20:.2f} MiB")
print(f"as float16:        {x.half().element_size() * x.nelement() / 2**20:.2f} MiB")
print(
    "a 10-row view covers",
    view.nelement(),
    "elements but shares",
    view.untyped_storage().nbytes(),
    "bytes",
)

# %%
# .. _basics-cuda-memory:
#
# GPU memory: memory_allocated
# ----------------------------
# ``memory_allocated`` counts bytes held by live tensors, ``memory_reserved`` what the
# caching allocator keeps from the driver, ``max_memory_allocated`` the peak since
# ``reset_peak_memory_stats``, and ``empty_cache`` returns unused cached blocks to the
# driver (it frees nothing that a tensor still uses).
import torch

if torch.cuda.is_available():
    mib = 2**20
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    big = torch.empty(256, 1024, 1024, device="cuda")  # 1 GiB of float32
    print(f"allocated: {(torch.cuda.memory_allocated() - before) / mib:.0f} MiB more")
    del big
    print(
        f"after del: allocated {(torch.cuda.memory_allocated() - before) / mib:.0f} MiB more, "
        f"reserved {torch.cuda.memory_reserved() / mib:.0f} MiB"
    )
    print(f"peak:      {torch.cuda.max_memory_allocated() / mib:.0f} MiB")
    torch.cuda.empty_cache()
    print(f"after empty_cache: reserved {torch.cuda.memory_reserved() / mib:.0f} MiB")
    print("\n".join(torch.cuda.memory_summary(abbreviated=True).splitlines()[:12]))
else:
    print("skipped memory_allocated, max_memory_allocated, memory_reserved, empty_cache and")
    print(
        "memory_summary: they report the CUDA caching allocator, and this machine has no CUDA GPU"
    )

# %%
# .. _basics-memory-grows:
#
# Memory that grows every step: a loss kept with its graph
# --------------------------------------------------------
# A loss is a tensor that remembers how it was computed. Adding it to a running
# total (``total += loss``) makes the total remember that too, so every step's
# graph stays reachable for as long as the total lives, and the memory it holds
# grows with each step. ``backward()`` frees the tensors a graph saved, but not
# its nodes; in a loop that never calls it (an evaluation outside
# ``torch.no_grad()``) the saved activations stay as well. Keep numbers for
# logging as Python floats, with ``loss.item()``, or ``loss.detach()`` when they
# must stay tensors. Below, the nodes reachable from each kind of total.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(64, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def nodes_reachable(tensor):
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(parent for parent, _ in node.next_functions)
    return len(seen)


kept, logged = 0.0, 0.0
for step in range(1, 101):
    loss = model(torch.randn(32, 64)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept = kept + loss  # a tensor: it keeps this step's graph, and so every step's
    logged += loss.item()  # a Python float: keeps nothing
    if step in (1, 10, 100):
        print(
            f"step {step:3}: kept reaches {nodes_reachable(kept):3} autograd nodes; "
            f"logged is a {type(logged).__name__}, {logged:.2f}"
        )

# %%
# .. _basics-out-of-memory:
#
# CUDA out of memory
# ------------------
# ``torch.OutOfMemoryError`` (the same class as ``torch.cuda.OutOfMemoryError``) is
# what a failed GPU allocation raises. In order of effort: a smaller batch (with
# gradient accumulation to keep the effective size); ``torch.autocast`` to bf16/fp16;
# activation checkpointing (``torch.utils.checkpoint``); ``optimizer.zero_grad()``
# (it frees the grads) and ``del`` of tensors you no longer need before
# ``torch.cuda.empty_cache()``; ``PYTORCH_ALLOC_CONF=expandable_segments:True`` when
# "reserved but unallocated" memory is large (fragmentation); and a memory snapshot
# (``torch.cuda.memory._record_memory_history()``) to see what holds the memory.
# Below, a step that backs off to half the batch; on a CPU-only machine the
# out-of-memory error is simulated, and a failed CPU allocation is shown to raise a
# plain ``RuntimeError`` instead (this torch does not use the OOM class there).
import torch


def step(batch: torch.Tensor) -> torch.Tensor:
    if not torch.cuda.is_available() and batch.shape[0] > 16:
        raise torch.OutOfMemoryError("simulated: CUDA out of memory")  # CPU demo only
    return (batch @ batch.T).sum()


def run_with_backoff(batch: torch.Tensor) -> torch.Tensor:
    while True:
        try:
            return step(batch)
        except torch.OutOfMemoryError:
            if batch.shape[0] == 1:
                raise
            batch = batch[: batch.shape[0] // 2]  # and accumulate gradients over the halves
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            print("out of memory: retrying with batch", batch.shape[0])


run_with_backoff(torch.ones(64, 8))
try:
    torch.empty(2**60, dtype=torch.uint8)  # an exabyte, on the CPU
except torch.OutOfMemoryError:
    print("a CPU allocation failure raised torch.OutOfMemoryError")
except RuntimeError as err:
    print("a CPU allocation failure raised", type(err).__name__, "(not torch.OutOfMemoryError)")
