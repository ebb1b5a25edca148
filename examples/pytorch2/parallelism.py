r"""
Combining parallelisms
======================

Tensor, fully sharded data and pipeline parallelism on a 2-D mesh of CPU processes: scripts for ``torchrun``, each checking its ranks against the same training step in one process.

Summary
-------

=================================  ========================================================================================
You want                           Call
=================================  ========================================================================================
which parallelism splits what      :entry:`the table <pt2-parallelism-table>`, with the version each arrived in
a 2-D grid of ranks                :entry:`init_device_mesh("cpu", (2, 2), ...) <pt2-parallelism-mesh>`
one dimension of it                :entry:`mesh["tp"] <pt2-parallelism-mesh>`, ``mesh["dp"]``
where this rank sits               :entry:`mesh.get_coordinate() <pt2-parallelism-mesh>`, ``mesh["dp"].get_local_rank()``
tensor parallel inside FSDP2       :entry:`parallelize_module(m, mesh["tp"], plan) <pt2-parallelism-tp-fsdp>`
then shard across data ranks       :entry:`fully_shard(m, mesh=mesh["dp"]) <pt2-parallelism-tp-fsdp>`
a pipeline stage per rank          :entry:`PipelineStage(part, rank, n_stages, device) <pt2-parallelism-pipeline>`
run microbatches through it        :entry:`ScheduleGPipe(stage, n_microbatches=4) <pt2-parallelism-pipeline>`, ``loss_fn=``
fewer activations held at once     :entry:`Schedule1F1B(stage, ...) <pt2-parallelism-pipeline>`
split a model by tracing           :entry:`pipeline(model, mb_args, split_spec) <pt2-parallelism-split>`
the same on GPUs                   :entry:`init_device_mesh("cuda", ...) <pt2-parallelism-gpu>` under ``torchrun``
=================================  ========================================================================================
"""

# %%
# .. _pt2-parallelism-table:
#
# Which parallelism splits what
# -----------------------------
# Each parallelism cuts a different thing, so they stack: a large job is
# often data-parallel across nodes, tensor-parallel inside a node, and
# pipelined when the layers still do not fit.
#
# ==================  ================================  ===========================================  =====
# Parallelism         Splits                            PyTorch API                                  Since
# ==================  ================================  ===========================================  =====
# data (DDP)          the batch; the model is copied    ``DistributedDataParallel``                  1.x
# fully sharded data  the batch, and each parameter,    ``torch.distributed.fsdp.fully_shard``       2.6
#                     its gradient and optimizer state
# tensor              each layer's weight matrices      ``parallelize_module``, ``ColwiseParallel``  2.0
# sequence            activations, along the sequence   ``SequenceParallel`` (a tensor-parallel      2.3
#                                                       style); ``context_parallel`` for attention
# pipeline            the layers, into stages           ``torch.distributed.pipelining``             2.4
# ==================  ================================  ===========================================  =====
#
# Tensor parallelism arrived in 2.0, marked experimental; its
# ``ColwiseParallel``/``RowwiseParallel`` styles were reworked in 2.2, which
# also brought ``init_device_mesh``; ``SequenceParallel`` in its current form is
# documented from 2.3 (the 2.2 docs do not list it; 2.1 listed an experimental class
# of that name), and ``context_parallel`` is still in
# ``torch.distributed.tensor.experimental``. ``fully_shard`` lived in the
# private ``torch.distributed._composable.fsdp`` from 2.4 until it became
# public in 2.6. ``torch.distributed.pipelining`` came from the PiPPy project
# in 2.4 and is still marked alpha. The block checks what this PyTorch has.
import importlib

import torch

print("torch", torch.__version__)
for module, name in [
    ("torch.distributed.device_mesh", "init_device_mesh"),
    ("torch.distributed.fsdp", "fully_shard"),
    ("torch.distributed.tensor.parallel", "parallelize_module"),
    ("torch.distributed.tensor.parallel", "SequenceParallel"),
    ("torch.distributed.tensor.experimental", "context_parallel"),
    ("torch.distributed.pipelining", "ScheduleGPipe"),
    ("torch.distributed.pipelining", "ScheduleInterleaved1F1B"),
]:
    try:
        found = hasattr(importlib.import_module(module), name)
    except ModuleNotFoundError:  # the module itself came later than this torch
        found = False
    print(f"{module}.{name}:", found)

# %%
# .. _pt2-parallelism-mesh:
#
# A 2-D device mesh
# -----------------
# ``init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))`` lays four
# ranks out as a 2 x 2 grid: ranks in the same row form a ``tp`` group, ranks
# in the same column a ``dp`` group. ``mesh["tp"]`` is the 1-D submesh this
# rank belongs to; each submesh has its own process group, so collectives on
# it involve only those ranks. A 2 x 2 mesh needs four ranks, so this script and
# the next start with ``--nproc-per-node=4``; processes this small need no more
# than a laptop. Each script on this page starts with the command that runs it;
# the page shows each rank's lines together, prefixed by ``torchrun --tee 3``.

# torchrun --nproc-per-node=4 mesh_2d.py
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    if rank == 0:
        print("mesh:", mesh.mesh.tolist(), "dims", mesh.mesh_dim_names)
    tp, dp = mesh["tp"], mesh["dp"]
    print(
        f"coordinate {mesh.get_coordinate()}: tp group {tp.mesh.tolist()}, "
        f"dp group {dp.mesh.tolist()}, dp index {dp.get_local_rank()}"
    )
    total = torch.tensor([float(rank)])
    dist.all_reduce(total, group=tp.get_group())  # only this row's two ranks
    print("sum of ranks in my tp group:", total.item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-parallelism-tp-fsdp:
#
# Tensor parallel and FSDP2 together (2-D)
# ----------------------------------------
# Apply tensor parallelism first, on the ``tp`` submesh (the usual
# ``ColwiseParallel`` then ``RowwiseParallel`` pair of :ref:`pt2-dtensor-tensor-parallel`),
# then ``fully_shard`` on the ``dp`` submesh. Each weight ends up a DTensor
# with two placements, one per mesh dimension: ``(dp, tp)``. Where both cut
# dim 0, FSDP shards the tensor-parallel piece, which DTensor writes as
# ``_StridedShard``; each rank keeps a quarter of the first layer. The two ranks of a ``tp`` group
# must see the same input; the two ``dp`` groups take different halves of the
# batch, and FSDP2 averages their gradients. After one SGD step every rank checks
# the gathered weights (``full_tensor()``) and the mean loss against plain training
# in one process. On gloo, torch 2.6 fails in ``fully_shard``'s backward
# (``'Stream' object has no attribute 'record_event'``), and 2.7 and 2.8 sum the
# gradients where they should average them, so the weights come out wrong without
# an error (`pytorch/pytorch#162338 <https://github.com/pytorch/pytorch/issues/162338>`__).
# Larger models call ``fully_shard`` on each block before the root, as in
# :ref:`distributed-fsdp2`.

# torchrun --nproc-per-node=4 train_2d.py
import logging
import warnings

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module


def make_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(8, 8, generator=gen), torch.randn(8, 4, generator=gen)


def main():
    # DTensor logs that gathering a 2-D weight takes two all-gathers; FSDP2 warns
    # that the output is a view. Neither matters here.
    logging.getLogger("torch.distributed.tensor").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="FSDP2-wrapped module")
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    model = make_mlp()
    parallelize_module(model, mesh["tp"], {"0": ColwiseParallel(), "2": RowwiseParallel()})
    fully_shard(model, mesh=mesh["dp"])
    if dist.get_rank() == 0:
        for name, p in model.named_parameters():
            local = tuple(p.to_local().shape)
            print(f"{name:8} full {tuple(p.shape)!s:7} local {local!s:7}", p.placements)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    half = mesh["dp"].get_local_rank()  # same half for both ranks of a tp group
    loss = nn.functional.mse_loss(model(x.chunk(2)[half]), y.chunk(2)[half])
    loss.backward()
    opt.step()
    print(f"coordinate {mesh.get_coordinate()}: loss on my half {loss.item():.4f}")
    weights = {name: p.full_tensor() for name, p in model.named_parameters()}
    mean_loss = loss.detach().clone()
    dist.all_reduce(mean_loss)
    mean_loss /= dist.get_world_size()

    reference = make_mlp()  # the same step in one process, on the whole batch
    full_loss = nn.functional.mse_loss(reference(x), y)
    full_loss.backward()
    torch.optim.SGD(reference.parameters(), lr=0.1).step()
    torch.testing.assert_close(mean_loss, full_loss.detach())
    torch.testing.assert_close(weights, dict(reference.named_parameters()))
    if dist.get_rank() == 0:
        print(f"mean loss {mean_loss:.4f} = one-process loss {full_loss:.4f}; weights match")
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-parallelism-pipeline:
#
# Pipeline parallelism: a stage per rank
# --------------------------------------
# Each rank builds only its part of the model and wraps it in a
# ``PipelineStage``. A schedule cuts the batch into microbatches and moves
# activations forward and gradients back between stages with point-to-point
# sends. Rank 0 feeds the input; the last rank gets the targets, computes
# ``loss_fn`` per microbatch and collects the losses. ``ScheduleGPipe`` runs
# all forwards, then all backwards; ``Schedule1F1B`` alternates them once the
# pipe is full, so fewer microbatches' activations are alive at once. Both
# give the same gradients: the schedule divides them by the number of
# microbatches (``scale_grads=True``), so with a mean loss they equal the
# full batch's, which each rank checks for its stage. ``ScheduleInterleaved1F1B``
# and the zero-bubble schedules take several stages per rank
# (``PipelineScheduleMulti``). On this CPU and gloo setup, torch 2.9.1 aborts
# the ranks (SIGABRT) in this script, while 2.8.0 and 2.10 run it.

# torchrun --nproc-per-node=2 pipeline.py
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4)
    )


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(8, 8, generator=gen), torch.randn(8, 4, generator=gen)


def train_step(schedule_class, rank, world_size):
    part = make_model()[:2] if rank == 0 else make_model()[2:]  # keeps names "0.weight", ...
    stage = PipelineStage(part, stage_index=rank, num_stages=world_size, device=torch.device("cpu"))
    schedule = schedule_class(stage, n_microbatches=4, loss_fn=nn.functional.mse_loss)
    opt = torch.optim.SGD(part.parameters(), lr=0.1)
    x, y = make_batch()
    losses = []
    if rank == 0:
        schedule.step(x)
    else:
        schedule.step(target=y, losses=losses)
    opt.step()
    return dict(part.named_parameters()), losses


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    reference = make_model()  # the same step in one process, on the whole batch
    x, y = make_batch()
    full_loss = nn.functional.mse_loss(reference(x), y)
    full_loss.backward()
    torch.optim.SGD(reference.parameters(), lr=0.1).step()
    for schedule_class in (ScheduleGPipe, Schedule1F1B):
        mine, losses = train_step(schedule_class, rank, world_size)
        print(f"{schedule_class.__name__}: stage {rank} holds {list(mine)}")
        expected = {name: p for name, p in reference.named_parameters() if name in mine}
        torch.testing.assert_close(mine, expected)
        if losses:
            mean = torch.stack(losses).mean()
            torch.testing.assert_close(mean, full_loss.detach())
            print(f"  mean of 4 microbatch losses {mean:.4f} = one-process loss {full_loss:.4f}")
        print("  this stage's weights match one process")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-parallelism-split:
#
# Split a model by tracing: pipeline()
# ------------------------------------
# ``pipeline(model, mb_args, split_spec)`` traces the whole model with
# ``torch.export`` on one example microbatch and cuts it where ``split_spec``
# says (``SplitPoint.BEGINNING`` of a submodule, or ``pipe_split()`` calls in
# ``forward``); ``pipe.build_stage(rank, device)`` returns this rank's stage.
# It saves writing the parts by hand, at the cost of an export trace on every
# rank (the slower start here). The last stage checks the merged output and the
# loss against the whole model in one process.

# torchrun --nproc-per-node=2 traced_pipeline.py
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.pipelining import ScheduleGPipe, SplitPoint, pipeline


class TwoPartMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.tail = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, x):
        return self.tail(self.head(x))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(8, 8, generator=gen), torch.randn(8, 4, generator=gen)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = TwoPartMLP()
    x, y = make_batch()
    pipe = pipeline(model, mb_args=(x.chunk(4)[0],), split_spec={"tail": SplitPoint.BEGINNING})
    stage = pipe.build_stage(rank, device=torch.device("cpu"))
    names = [name for name, _ in stage.submod.named_parameters()]
    print(f"stage {rank} of {pipe.num_stages}:", names)
    schedule = ScheduleGPipe(stage, n_microbatches=4, loss_fn=nn.functional.mse_loss)
    losses = []
    if rank == 0:
        schedule.step(x)
    else:
        output = schedule.step(target=y, losses=losses)
        with torch.no_grad():
            expected = model(x)  # the whole model, in this process
        torch.testing.assert_close(output, expected)
        torch.testing.assert_close(torch.stack(losses).mean(), nn.functional.mse_loss(expected, y))
        print("merged output and loss match the whole model in one process")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-parallelism-gpu:
#
# The same on GPUs
# ----------------
# On a GPU node the code above changes in three places: ``"nccl"`` for the
# process group, ``init_device_mesh("cuda", ...)``, and
# ``torch.cuda.set_device(local_rank)`` before either; pipeline stages take
# ``device=torch.device("cuda", local_rank)``. Put the ``tp`` dimension last:
# ``init_device_mesh`` fills the last dimension with neighbouring ranks, which
# on one node share the fast NVLink that tensor parallelism's per-layer
# collectives need. Two nodes of 8 GPUs as 2 x 8 (``dp`` across nodes, ``tp``
# inside):
#
# .. code-block:: console
#
#     torchrun --nnodes=2 --nproc-per-node=8 --rdzv-endpoint=host0:29500 train_2d.py
#
# The block prints the shape such a script would choose from ``WORLD_SIZE``
# and how many GPUs this machine has.
import os

import torch
import torch.distributed as dist

world_size = int(os.environ.get("WORLD_SIZE", "16"))
tp_size = min(8, world_size)  # tensor parallel within one 8-GPU node
print("mesh shape (dp, tp):", (world_size // tp_size, tp_size))
print("nccl available:", dist.is_nccl_available(), "| GPUs here:", torch.cuda.device_count())
if torch.cuda.device_count() < 2:
    print("skipped: a GPU mesh needs at least 2 GPUs; the CPU runs above use gloo")
