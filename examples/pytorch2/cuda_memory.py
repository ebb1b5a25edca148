r"""
Debugging CUDA memory
=====================

Where GPU memory goes, how to record and view it, and the allocator settings that change it; the GPU blocks are skipped on a CPU-only machine, and the CPU shows the same questions where it can.

Summary
-------

==================================  ==============================================================================================
You want                            Call
==================================  ==============================================================================================
memory held by live tensors         :entry:`torch.cuda.memory_allocated() <pt2-cuda-memory-counters>`
memory the allocator keeps          :entry:`torch.cuda.memory_reserved() <pt2-cuda-memory-counters>`
the peak, and a fresh start         :entry:`max_memory_allocated() <pt2-cuda-memory-counters>`, ``reset_peak_memory_stats()``
free and total on the device        :entry:`torch.cuda.mem_get_info() <pt2-cuda-memory-counters>`
everything in one table             :entry:`torch.cuda.memory_summary() <pt2-cuda-memory-counters>`
give cached blocks back             :entry:`torch.cuda.empty_cache() <pt2-cuda-memory-cache>`, and when it frees nothing
which operators allocate            :entry:`profile(profile_memory=True) <pt2-cuda-memory-profiler>`
record every allocation             :entry:`_record_memory_history(max_entries=100000) <pt2-cuda-memory-snapshot>`
save it, then stop recording        :entry:`_dump_snapshot("snapshot.pickle") <pt2-cuda-memory-snapshot>`, ``enabled=None``
look at a snapshot                  :entry:`pytorch.org/memory_viz <pt2-cuda-memory-viz>`, or ``python -m torch.cuda._memory_viz``
less fragmentation                  :entry:`PYTORCH_ALLOC_CONF=expandable_segments:True <pt2-cuda-memory-alloc-conf>`
allocator settings from Python      :entry:`torch._C._accelerator_setAllocatorSettings(s) <pt2-cuda-memory-alloc-conf>`
"CUDA out of memory": what to try   :entry:`the checklist <pt2-cuda-memory-oom>`, measured
==================================  ==============================================================================================
"""

# %%
# .. _pt2-cuda-memory-counters:
#
# Allocated, reserved, peak
# -------------------------
# ``memory_allocated()`` counts bytes in live tensors; ``memory_reserved()``
# counts what PyTorch's caching allocator has taken from the driver, which
# includes freed blocks it keeps for reuse. ``max_memory_allocated()`` is the
# peak since the start or the last ``reset_peak_memory_stats()``: the number
# to compare with the card's size. ``mem_get_info()`` asks the driver, so its
# "free" also subtracts other processes and the CUDA context itself.
import torch

MiB = 2**20
if torch.cuda.is_available():
    torch.cuda.reset_peak_memory_stats()
    x = torch.empty(16, 1024, 1024, device="cuda")  # 64 MiB of float32
    y = x * 2  # another 64 MiB
    del y  # back in the cache: allocated drops, reserved does not
    print(f"allocated {torch.cuda.memory_allocated() / MiB:.0f} MiB")
    print(f"reserved  {torch.cuda.memory_reserved() / MiB:.0f} MiB")
    print(f"peak      {torch.cuda.max_memory_allocated() / MiB:.0f} MiB")
    free, total = torch.cuda.mem_get_info()
    print(f"device: {free / MiB:.0f} MiB free of {total / MiB:.0f} MiB")
    print("\n".join(torch.cuda.memory_summary(abbreviated=True).splitlines()[:14]))
else:
    print("skipped: the counters need a CUDA device; without one they read 0:")
    print("memory_allocated() =", torch.cuda.memory_allocated())

# %%
# .. _pt2-cuda-memory-cache:
#
# empty_cache, and when it does not help
# --------------------------------------
# ``torch.cuda.empty_cache()`` hands cached, unused blocks back to the driver.
# That lowers ``memory_reserved()`` and ``nvidia-smi``'s figure, which helps
# another process on the same GPU, but not this one: PyTorch would have reused
# those blocks anyway. It frees nothing a tensor still holds, and a view holds
# its whole base: the CPU part below shows one row keeping a 4 MiB storage
# alive after ``del``.
import torch

MiB = 2**20
big = torch.zeros(1024, 1024)  # 4 MiB
row = big[0]  # a view: shares big's storage
del big
print(
    f"row has {row.numel() * row.element_size()} bytes, keeps {row.untyped_storage().nbytes() / MiB:.0f} MiB alive"
)
row = row.clone()  # a copy owns only its own 4 KiB; the 4 MiB can go
print(f"after clone: keeps {row.untyped_storage().nbytes()} bytes")

if torch.cuda.is_available():
    torch.cuda.empty_cache()
    base = torch.cuda.memory_reserved()  # whatever earlier code still holds
    a = torch.empty(64, 1024, 1024, device="cuda")  # 256 MiB
    part = a[:1]  # a view keeps all 256 MiB in use
    del a
    torch.cuda.empty_cache()
    print(
        f"view alive, empty_cache: reserved +{(torch.cuda.memory_reserved() - base) / MiB:.0f} MiB"
    )
    del part
    print(
        f"view deleted:            reserved +{(torch.cuda.memory_reserved() - base) / MiB:.0f} MiB (cached)"
    )
    torch.cuda.empty_cache()
    print(
        f"empty_cache again:       reserved +{(torch.cuda.memory_reserved() - base) / MiB:.0f} MiB"
    )
else:
    print("skipped: the empty_cache part needs a CUDA device")

# %%
# .. _pt2-cuda-memory-profiler:
#
# Which operators allocate: the profiler
# --------------------------------------
# ``torch.profiler.profile(profile_memory=True)`` records, per operator, the
# memory it allocated (``Self CPU Mem``, net of what it freed) and what its
# children did (``CPU Mem``). Sorted by ``self_cpu_memory_usage`` it answers
# "which op allocates the most memory" on a CPU-only machine too; with a GPU add
# ``ProfilerActivity.CUDA`` and sort by ``self_device_memory_usage``
# (``self_cuda_memory_usage`` is its deprecated name). Here, one
# training step of a small MLP with Adam: the optimizer's state is created in
# this first step.
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

gpu = torch.cuda.is_available()
device = "cuda" if gpu else "cpu"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
opt = torch.optim.Adam(model.parameters())
x, y = torch.randn(64, 256, device=device), torch.randint(0, 10, (64,), device=device)
activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA] if gpu else [ProfilerActivity.CPU]
with profile(activities=activities, profile_memory=True) as prof:
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
key = "self_device_memory_usage" if gpu else "self_cpu_memory_usage"
print(prof.key_averages().table(sort_by=key, row_limit=6, max_name_column_width=24))

# %%
# .. _pt2-cuda-memory-snapshot:
#
# Record a memory snapshot
# ------------------------
# ``torch.cuda.memory._record_memory_history(max_entries=100000)`` makes the
# allocator keep the last ``max_entries`` allocation and free events, each
# with its Python and C++ stack (the leading underscore stays, but the
# memory-snapshot guide on pytorch.org documents it). Run the steps of
# interest, write the file with ``_dump_snapshot``, then stop recording with
# ``enabled=None``, which also drops the history. Recording costs time on
# every allocation, so keep it to the few steps you study. The file is a
# pickle of ``torch.cuda.memory._snapshot()``: segments and their blocks, and
# the trace of events.
import os
import pickle
import tempfile

import torch
from torch import nn

if torch.cuda.is_available():
    model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.Adam(model.parameters())
    torch.cuda.memory._record_memory_history(max_entries=100000)
    for _ in range(3):
        loss = model(torch.randn(256, 1024, device="cuda")).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    path = os.path.join(tempfile.mkdtemp(), "snapshot.pickle")
    torch.cuda.memory._dump_snapshot(path)
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(path, "rb") as f:
        snapshot = pickle.load(f)
    events = snapshot["device_traces"][0]
    print(f"{path}: {os.path.getsize(path) / 2**20:.1f} MiB")
    print(f"{len(snapshot['segments'])} segments, {len(events)} events")
    print("first event:", {k: events[0][k] for k in ("action", "size")})
else:
    try:
        torch.cuda.memory._record_memory_history(max_entries=100000)
    except (RuntimeError, AttributeError) as err:  # AttributeError: a torch built without CUDA
        print("skipped: recording, the 3 steps and the dump need a CUDA device;")
        print("_record_memory_history here raises:", str(err).split(".")[0])

# %%
# .. _pt2-cuda-memory-viz:
#
# View a snapshot
# ---------------
# Open https://pytorch.org/memory_viz and drag ``snapshot.pickle`` onto the
# page: it is read in the browser, nothing is uploaded. "Active Memory
# Timeline" draws every live tensor over time, and clicking one shows the
# stack that allocated it; the peak is where the stacks are tallest. To make
# a stand-alone HTML file instead, use the module's command line (it runs on
# any machine, GPU or not):
#
# .. code-block:: console
#
#     python -m torch.cuda._memory_viz trace_plot snapshot.pickle -o snapshot.html
#     python -m torch.cuda._memory_viz stats snapshot.pickle
#
# The HTML file embeds the snapshot but loads the viewer's JavaScript from
# ``cdn.jsdelivr.net`` when opened, so it needs a network; ``stats``,
# ``trace`` and ``segments`` print or write text and SVG with none. The block
# shows that the command exists in this PyTorch, and where the HTML template
# points.
import subprocess
import sys

import torch.cuda._memory_viz as memory_viz

command = [sys.executable, "-m", "torch.cuda._memory_viz", "--help"]
usage = subprocess.run(command, capture_output=True, text=True, check=True).stdout
print(usage.split("\n\n")[0])
print(
    "the HTML loads its viewer from cdn.jsdelivr.net:",
    "cdn.jsdelivr.net" in memory_viz._memory_viz_template,
)

# %%
# .. _pt2-cuda-memory-alloc-conf:
#
# Allocator settings: PYTORCH_ALLOC_CONF
# --------------------------------------
# The caching allocator reads its settings once, from the environment, when
# it is first used. ``PYTORCH_ALLOC_CONF`` is the device-neutral name, the
# one to set on current releases; ``PYTORCH_CUDA_ALLOC_CONF`` is the older
# CUDA name, and the only one 2.4 knows. 2.8 began to warn that the CUDA
# name is deprecated, and a later release dropped the warning again: the
# first lines below show whether this torch warns, and which value it reads
# when both are set. One trap: on 2.9 with CUDA, ``expandable_segments:True``
# given through ``PYTORCH_ALLOC_CONF`` is silently ignored and only the CUDA
# name turns it on (`pytorch#183387
# <https://github.com/pytorch/pytorch/issues/183387>`__, fixed by 2.11), so
# code that must also run on older releases sets the CUDA name.
# Three settings matter most:
#
# - ``expandable_segments:True`` grows one mapped segment instead
#   of allocating new fixed ones, which cuts fragmentation: try it when the
#   out-of-memory message shows a large "reserved but unallocated" figure.
# - ``max_split_size_mb:N`` stops the allocator splitting blocks larger than N
#   MiB, so big blocks stay whole for big tensors.
# - ``garbage_collection_threshold:0.8`` frees unused cached blocks once more
#   than 80% of the memory limit is in use, before an allocation fails.
#
# Set the variable in the shell (``PYTORCH_ALLOC_CONF=expandable_segments:True
# python train.py``), or in ``os.environ`` before ``import torch``: that is
# what a reader sets. ``torch._C._accelerator_getAllocatorSettings()``, which
# the block prints, is a private diagnostic that shows what the allocator
# parsed; ``torch._C._accelerator_setAllocatorSettings("...")`` changes the
# settings at run time, and ``torch.cuda.memory._set_allocator_settings``
# still works but warns it is deprecated in this release. The settings are
# parsed even without a GPU, so a misspelled key fails at once, as the last
# lines show.
import os
import subprocess
import sys
import warnings

import torch

show = "import torch; print(torch._C._accelerator_getAllocatorSettings())"
for extra in (
    {"PYTORCH_ALLOC_CONF": "expandable_segments:True,garbage_collection_threshold:0.8"},
    {
        "PYTORCH_ALLOC_CONF": "max_split_size_mb:256",
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    },
):
    env = {k: v for k, v in os.environ.items() if not k.endswith("ALLOC_CONF")} | extra
    read = subprocess.run(
        [sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True
    )
    warned = read.stderr.strip() or "no warning"
    print(f"{' and '.join(extra)} set -> allocator read {read.stdout.strip()!r}; {warned}")

torch._C._accelerator_setAllocatorSettings("expandable_segments:True")
print("set at run time:", torch._C._accelerator_getAllocatorSettings())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cuda.memory._set_allocator_settings("expandable_segments:True")
print(f"old call warns: {caught[0].category.__name__}: {caught[0].message}")
try:
    torch._C._accelerator_setAllocatorSettings("expandable_segment:True")  # missing "s"
except (ValueError, RuntimeError) as err:
    print("typo:", err)

# %%
# .. _pt2-cuda-memory-oom:
#
# "CUDA out of memory": the checklist
# -----------------------------------
# The error class and a retry loop are in :ref:`basics-out-of-memory`. What to
# try, in order:
#
# 1. Find the peak: ``max_memory_allocated()`` around one step, then a
#    snapshot of that step (above) to see which tensors make it.
# 2. A smaller batch: activations scale with it.
# 3. Activation checkpointing (``torch.utils.checkpoint.checkpoint``): keep
#    only block inputs, recompute the rest in backward.
# 4. Mixed precision (``torch.autocast("cuda", dtype=torch.bfloat16)``):
#    16-bit activations, see :ref:`pt2-mixed-precision-cpu`.
# 5. ``optimizer.zero_grad(set_to_none=True)`` (the default): gradients are
#    freed between steps instead of zeroed in place.
# 6. ``del`` what you no longer need (the loss of the last step keeps its
#    whole graph), then ``torch.cuda.empty_cache()`` if another process needs
#    the memory.
# 7. ``PYTORCH_ALLOC_CONF=expandable_segments:True`` when reserved is much
#    larger than allocated.
# 8. Gradient accumulation: several small batches per optimizer step keep
#    the effective batch size.
#
# The block measures steps 2 and 3 (and 4 on a GPU). On a GPU it reads the
# step's peak above what was allocated before it; on the CPU it adds up the activations autograd keeps for backward,
# through ``saved_tensors_hooks``, which is the part those steps shrink.
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

MiB = 2**20
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(512, 512), nn.GELU()) for _ in range(4)]).to(device)
weights = {p.untyped_storage().data_ptr() for p in model.parameters()}


def step_mib(batch, *, recompute=False, bf16=False):
    """Run forward and backward; return MiB saved for backward, or the peak on a GPU."""
    saved = {}

    def keep(t):
        if t.untyped_storage().data_ptr() not in weights:
            saved[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    x = torch.randn(batch, 512, device=device)
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.memory_allocated()  # model, x, and anything else alive
    with (
        torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t),
        torch.autocast(device, dtype=torch.bfloat16, enabled=bf16),
    ):
        out = checkpoint(model, x, use_reentrant=False) if recompute else model(x)
    out.float().sum().backward()
    model.zero_grad(set_to_none=True)
    if device == "cuda":
        return (torch.cuda.max_memory_allocated() - start) / MiB
    return sum(saved.values()) / MiB


step_mib(64)  # warm-up: cuBLAS and autograd allocate some buffers on first use
what = "peak above the start" if device == "cuda" else "saved for backward"
print(f"batch 256:                 {step_mib(256):5.2f} MiB {what}")
print(f"batch 128:                 {step_mib(128):5.2f} MiB")
print(f"batch 256, checkpointed:   {step_mib(256, recompute=True):5.2f} MiB")
if device == "cuda":
    print(f"batch 256, bf16 autocast:  {step_mib(256, bf16=True):5.2f} MiB")
else:
    print("skipped: the bf16 peak needs a GPU (on the CPU, autocast's saved weight copies blur it)")
