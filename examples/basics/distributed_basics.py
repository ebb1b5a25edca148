r"""
Distributed basics
==================

The words of ``torch.distributed`` and its smallest run: one process on the
CPU ``gloo`` backend; several processes, DDP, FSDP and ``torchrun`` are on
:ref:`sphx_glr_gallery_pytorch2_distributed.py`.

Summary
-------

===========================  ==================================================
You want                     Call
===========================  ==================================================
to know what is available    :entry:`dist.is_available() <basics-distributed-concepts>`, ``is_gloo_available()``, ``is_nccl_available()``
to join the job              :entry:`dist.init_process_group(backend) <basics-init-process-group>`, ``rank=``, ``world_size=``
who am I, how many are we    :entry:`dist.get_rank() <basics-init-process-group>`, ``dist.get_world_size()``
a sum or mean over ranks     :entry:`dist.all_reduce(t, op=dist.ReduceOp.SUM) <basics-collectives>`
rank 0's tensor everywhere   :entry:`dist.broadcast(t, src=0) <basics-collectives>`
every rank's tensor          :entry:`dist.all_gather(tensors, t) <basics-collectives>`
to wait for everyone         :entry:`dist.barrier() <basics-collectives>`
to leave                     :entry:`dist.destroy_process_group() <basics-init-process-group>`
several GPUs in one process  :entry:`nn.DataParallel(model) <basics-data-parallel>`: legacy, prefer DDP
GPU 0 out of memory first    :entry:`DDP, or the loss inside forward <basics-data-parallel-gpu0>`
===========================  ==================================================
"""

# %%
# .. _basics-distributed-concepts:
#
# Process group, rank, world size, backend
# ----------------------------------------
# A distributed job runs the same script in ``world_size`` processes, each told its
# ``rank`` (0 to ``world_size - 1``, and a ``LOCAL_RANK`` within its machine), which
# join a *process group* whose backend carries the messages: ``nccl`` between NVIDIA
# GPUs, ``gloo`` on CPUs; launchers such as ``torchrun`` pass these values in
# environment variables.
import os

import torch.distributed as dist

print("torch.distributed available:", dist.is_available())
print("gloo available:", dist.is_gloo_available(), "| nccl available:", dist.is_nccl_available())
print("a group already initialized:", dist.is_initialized())
for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
    print(f"{name:<11} = {os.environ.get(name, '(not set: not started by a launcher)')}")

# %%
# .. _basics-init-process-group:
#
# Join and leave: init_process_group
# ----------------------------------
# ``init_process_group`` blocks until all ``world_size`` processes have met at the
# rendezvous (here a file in a temporary directory, for a world of one), and
# ``destroy_process_group`` releases the group at the end of the job.
import tempfile
from pathlib import Path

import torch.distributed as dist

with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        backend="gloo",
        init_method=(Path(tmp) / "rendezvous").as_uri(),  # file:///... on every OS
        rank=0,
        world_size=1,
    )
    print("initialized:", dist.is_initialized())
    print(
        "rank",
        dist.get_rank(),
        "of world size",
        dist.get_world_size(),
        "| backend:",
        dist.get_backend(),
    )
    dist.destroy_process_group()
print("initialized after destroy:", dist.is_initialized())

# %%
# .. _basics-collectives:
#
# Collectives: all_reduce, broadcast, all_gather, barrier
# -------------------------------------------------------
# Collectives are called by every rank and work in place: ``all_reduce`` leaves the
# sum (or ``op=`` min, max, product) over all ranks in every rank's tensor, which in a
# world of one is the tensor itself, so the same code runs unchanged on any world size.
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist

with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=(Path(tmp) / "rendezvous").as_uri(), rank=0, world_size=1
    )
    rank, world_size = dist.get_rank(), dist.get_world_size()

    grad = torch.tensor([1.0, 2.0, 3.0]) * (rank + 1)
    dist.all_reduce(grad, op=dist.ReduceOp.SUM)
    grad /= world_size  # the average that data-parallel training applies
    print("all_reduce then / world_size:", grad)

    weights = torch.arange(3.0) if rank == 0 else torch.zeros(3)
    dist.broadcast(weights, src=0)  # every rank now holds rank 0's tensor
    print("broadcast from rank 0:       ", weights)

    gathered = [torch.zeros(1) for _ in range(world_size)]
    dist.all_gather(gathered, torch.tensor([float(rank)]))
    print("all_gather of the ranks:     ", gathered)

    dist.barrier()  # wait until every rank reaches this line
    dist.destroy_process_group()

# %%
# .. _basics-data-parallel:
#
# One process, several GPUs: nn.DataParallel (legacy)
# ---------------------------------------------------
# ``nn.DataParallel`` splits each batch across the visible GPUs inside one
# process, copying the model to every GPU on every call; PyTorch's own docs
# recommend ``DistributedDataParallel`` instead, even on a single machine. With
# no GPU it simply calls the wrapped module, as it does here.
import torch
from torch import nn

wrapped = nn.DataParallel(nn.Linear(4, 2))
print("GPUs it would use:", wrapped.device_ids)
out = wrapped(torch.ones(3, 4))
print("output shape:", tuple(out.shape), "| wraps:", type(wrapped.module).__name__)

# %%
# .. _basics-data-parallel-gpu0:
#
# Why GPU 0 runs out of memory first under DataParallel
# -----------------------------------------------------
# Every call of ``nn.DataParallel`` starts and ends on the first of its
# ``device_ids``: the batch is split from there, the model is copied from there to the
# other GPUs, and all outputs are gathered back there, so the loss and the
# optimizer's state live there too. GPU 0 holds the parameters, its own share
# of activations, and every replica's outputs, while the others hold one share. On a
# machine with two GPUs or more the block measures each GPU's peak memory for one
# training step; with fewer it says so.
import torch
from torch import nn

gpus = torch.cuda.device_count()
if gpus >= 2:
    model = nn.DataParallel(
        nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1000)).cuda()
    )
    batch = torch.randn(512 * gpus, 1024, device="cuda")
    for d in range(gpus):
        torch.cuda.reset_peak_memory_stats(d)
    loss = nn.functional.cross_entropy(
        model(batch), torch.zeros(len(batch), dtype=torch.long, device="cuda")
    )
    loss.backward()
    for d in range(gpus):
        print(f"cuda:{d} peak: {torch.cuda.max_memory_allocated(d) / 2**20:.0f} MiB")
else:
    print(f"skipped: needs two GPUs, this machine has {gpus}")

# %%
# Fix: ``DistributedDataParallel`` with one process per GPU (``torchrun
# --nproc-per-node=N``), where each rank holds the same memory and only gradients
# travel (:ref:`distributed-ddp`). Kept on ``DataParallel``, compute the loss inside
# the wrapped module, so that each GPU returns one number instead of its whole output
# for GPU 0 to gather. That wrapper runs here too (on a machine without GPUs,
# ``DataParallel`` calls it as it is).
import torch
from torch import nn


class WithLoss(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, target):  # runs on each GPU with its share of the batch
        return nn.functional.cross_entropy(self.model(x), target, reduction="sum")[None]


torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
wrapped = nn.DataParallel(WithLoss(nn.Linear(16, 4)).to(device))
x, target = torch.randn(32, 16, device=device), torch.randint(0, 4, (32,), device=device)
per_gpu = wrapped(x, target)  # one summed loss per GPU
loss = per_gpu.sum() / len(x)
loss.backward()
print(
    f"{per_gpu.numel()} loss value(s) came back (one per GPU; without GPUs, one), not {len(x)} rows"
)
print(f"loss {loss.item():.3f}")
