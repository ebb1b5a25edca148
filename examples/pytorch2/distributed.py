r"""
Distributed, really run
=======================

Every ``torch.distributed`` call here runs while the page is built, on two CPU processes talking through ``gloo``; only the cluster launch commands are shown as text.

Summary
-------

================================  ======================================================================================================
You want                          Call
================================  ======================================================================================================
run ranks from a script or page   :entry:`cheatsheet.distributed.run(fn, world_size=2) <pt2-distributed-start>`
join the job                      :entry:`dist.init_process_group("gloo") <pt2-distributed-start>` (``"nccl"`` on GPUs)
who am I                          :entry:`dist.get_rank(), dist.get_world_size() <pt2-distributed-start>`
leave cleanly                     :entry:`dist.destroy_process_group() <pt2-distributed-start>`
sum over ranks, in place          :entry:`dist.all_reduce(t, op=dist.ReduceOp.SUM) <pt2-distributed-all-reduce>`
rank 0's value everywhere         :entry:`dist.broadcast(t, src=0) <pt2-distributed-broadcast>`
every rank's tensor               :entry:`dist.all_gather(out_list, t) <pt2-distributed-broadcast>`
sum, then a chunk per rank        :entry:`dist.reduce_scatter(out, in_list) <pt2-distributed-reduce-scatter>`
wait for all ranks                :entry:`dist.barrier() <pt2-distributed-barrier>`
data-parallel training            :entry:`DDP(model) <distributed-ddp>`
compiled data-parallel training   :entry:`torch.compile(DDP(model)) <pt2-distributed-compile>`
ranks with unequal batch counts   :entry:`with Join([ddp_model]): <distributed-join>` around the loop
sharded parameters (FSDP2)        :entry:`fully_shard(layer) <distributed-fsdp2>` per layer, then ``fully_shard(model)``
sharded checkpoint                :entry:`dcp.save(sd, checkpoint_id=dir) <distributed-checkpoint>`, ``dcp.load(sd, checkpoint_id=dir)``
sharded optimizer state (ZeRO-1)  :entry:`ZeroRedundancyOptimizer(params, optimizer_class=Adam) <distributed-zero>`
launch on GPUs                    :entry:`torchrun --nproc-per-node=8 train.py <pt2-distributed-torchrun>`
a crashed rank's traceback        :entry:`@record <pt2-distributed-torchrun>` on ``main`` (``torch.distributed.elastic``)
launch on several machines        :entry:`torchrun --nnodes=2 --rdzv-endpoint=host:port <pt2-distributed-nodes>`
launch under Slurm                :entry:`srun torchrun ... <pt2-distributed-slurm>` in an ``sbatch`` script
================================  ======================================================================================================
"""

# %%
# .. _pt2-distributed-start:
#
# Start two ranks and join a process group
# ----------------------------------------
# ``cheatsheet.distributed.run(fn, world_size)`` forks ``world_size`` processes
# and calls ``fn(rank, world_size)`` in each, with ``MASTER_ADDR``,
# ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` set, just as
# ``torchrun`` would. ``init_process_group`` reads those variables; each rank's
# output comes back as ``[rank N]`` lines.
import os

import torch
import torch.distributed as dist

from cheatsheet.distributed import run


def hello(rank, world_size):
    dist.init_process_group(backend="gloo")  # env:// rendezvous: reads the variables above
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}, backend {dist.get_backend()}")
    print(f"LOCAL_RANK={os.environ['LOCAL_RANK']}, master {os.environ['MASTER_ADDR']}")
    dist.destroy_process_group()


print("gloo available:", dist.is_gloo_available(), "| nccl available:", dist.is_nccl_available())
result = run(hello, world_size=2)

# %%
# .. _pt2-distributed-all-reduce:
#
# all_reduce: every rank gets the sum
# -----------------------------------
# Collectives work in place: after ``all_reduce`` each rank's tensor holds the
# reduction over all ranks. ``op=`` picks ``SUM`` (default), ``PRODUCT``,
# ``MIN`` or ``MAX``.
import torch
import torch.distributed as dist

from cheatsheet.distributed import run


def reduce_demo(rank, world_size):
    dist.init_process_group("gloo")
    x = torch.tensor([1.0, 2.0]) * (rank + 1)
    print("before:", x)
    dist.all_reduce(x)  # rank 0 holds [1, 2], rank 1 holds [2, 4]
    print("sum:   ", x)
    y = torch.tensor([float(rank)])
    dist.all_reduce(y, op=dist.ReduceOp.MAX)
    print("max:   ", y)
    dist.destroy_process_group()


result = run(reduce_demo, world_size=2)

# %%
# .. _pt2-distributed-broadcast:
#
# broadcast and all_gather
# ------------------------
# ``broadcast(t, src=0)`` overwrites ``t`` on every rank with rank 0's value;
# ``all_gather(out_list, t)`` fills a list with every rank's tensor, in rank order.
import torch
import torch.distributed as dist

from cheatsheet.distributed import run


def share_demo(rank, world_size):
    dist.init_process_group("gloo")
    seed = torch.tensor([1234]) if rank == 0 else torch.tensor([-1])
    dist.broadcast(seed, src=0)
    print("broadcast seed:", seed.item())

    mine = torch.full((2,), float(rank))
    gathered = [torch.empty(2) for _ in range(world_size)]
    dist.all_gather(gathered, mine)
    print("all_gather:", torch.stack(gathered).tolist())
    dist.destroy_process_group()


result = run(share_demo, world_size=2)

# %%
# .. _pt2-distributed-reduce-scatter:
#
# reduce_scatter, and the same with all_reduce
# --------------------------------------------
# ``reduce_scatter`` sums the ranks' inputs and leaves chunk ``r`` of the sum on
# rank ``r``: the collective FSDP uses for gradients. Backends differ in what
# they implement, so the call is tried and its outcome printed. ``all_reduce``
# followed by ``chunk`` gives the same answer with more traffic. The single-tensor
# form, formerly ``reduce_scatter_tensor``, is called ``reduce_scatter_single``
# in recent releases (the old name warns).
import torch
import torch.distributed as dist

from cheatsheet.distributed import run


def scatter_demo(rank, world_size):
    dist.init_process_group("gloo")
    full = torch.arange(4.0) + 10 * rank  # rank 0: [0 1 2 3], rank 1: [10 11 12 13]
    mine = torch.empty(2)
    try:
        dist.reduce_scatter(mine, list(full.chunk(world_size)))
        print(f"reduce_scatter on {dist.get_backend()}:", mine)
    except RuntimeError as err:
        print("reduce_scatter is not supported here:", str(err).splitlines()[0])

    total = full.clone()
    dist.all_reduce(total)
    print("all_reduce + chunk:       ", total.chunk(world_size)[rank])
    dist.destroy_process_group()


print("torch", torch.__version__)
result = run(scatter_demo, world_size=2)

# %%
# .. _pt2-distributed-barrier:
#
# barrier: wait for everyone
# --------------------------
# ``barrier()`` returns on a rank only once every rank has reached it. Here
# rank 1 is late by 0.5 s, and rank 0's clock shows it waited.
import time

import torch.distributed as dist

from cheatsheet.distributed import run


def barrier_demo(rank, world_size):
    dist.init_process_group("gloo")
    start = time.perf_counter()
    if rank == 1:
        time.sleep(0.5)  # a slow rank: data loading, a bigger batch, a busy host
    dist.barrier()
    print(f"left the barrier after {time.perf_counter() - start:.2f} s")
    dist.destroy_process_group()


result = run(barrier_demo, world_size=2)

# %%
# .. _distributed-ddp:
#
# DistributedDataParallel on CPU
# ------------------------------
# ``DDP`` copies the model to every rank (rank 0's weights are broadcast at
# wrap time) and averages gradients with ``all_reduce`` during ``backward``.
# Each rank trains on its own half of the batch; all-gathering the gradients
# shows they are identical on both ranks after every step. With equal shards
# and a mean loss the averaged gradient is the full batch's, so the weights the
# ranks send back match plain training in this process.
#
# Delete the DDP model before ``destroy_process_group``. Otherwise DDP's
# C++ reducer holds the last reference to the group, and freeing it later
# joins gloo's worker threads while holding Python's GIL, which a worker may
# need to free the last collective's tensors: with PyTorch 2.13 that deadlocked
# this page's build now and then (in a loop of 40 runs it hung at the second;
# with ``del model`` first, none of 40 did).
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from cheatsheet.distributed import run


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def train_ddp(rank, world_size, steps):
    dist.init_process_group("gloo")
    model = DDP(make_model())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]  # this rank's shard
    for step in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()  # gradients are averaged across ranks here
        opt.step()
        grad = torch.cat([p.grad.flatten() for p in model.parameters()])
        all_grads = [torch.empty_like(grad) for _ in range(world_size)]
        dist.all_gather(all_grads, grad)
        same = all(torch.equal(all_grads[0], g) for g in all_grads)
        print(f"step {step}: local loss {loss.item():.4f}, grads equal on all ranks: {same}")
    state = model.module.state_dict()
    del model  # before the process group: see above
    dist.destroy_process_group()
    return state


result = run(train_ddp, world_size=2, args=(3,))

single = make_model()
opt = torch.optim.SGD(single.parameters(), lr=0.1)
x, y = make_batch()
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(single(x), y).backward()
    opt.step()
for rank_state in result.values:
    torch.testing.assert_close(rank_state, single.state_dict())
print("both ranks match single-process training")

# %%
# .. _distributed-join:
#
# Uneven inputs: Join
# -------------------
# DDP's backward is a collective, so a rank that runs out of batches early
# leaves the others waiting in ``all_reduce`` forever (``run`` would kill
# them after its timeout). Inside ``Join`` a rank that has finished keeps
# answering its peers' collectives with zero gradients until every rank is done.
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.join import Join
from torch.nn.parallel import DistributedDataParallel as DDP

from cheatsheet.distributed import run


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def train_uneven(rank, world_size):
    dist.init_process_group("gloo")
    model = DDP(make_model())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = 3 + 2 * rank  # rank 0 runs out of data first
    gen = torch.Generator().manual_seed(rank)
    with Join([model]):
        for _ in range(batches):
            x, y = torch.randn(4, 8, generator=gen), torch.randn(4, 1, generator=gen)
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    print(f"finished its {batches} batches")
    del model  # DDP before the process group, as above
    dist.destroy_process_group()


uneven = run(train_uneven, world_size=2)

# %%
# .. _pt2-distributed-compile:
#
# torch.compile with DDP
# ----------------------
# Compiling the DDP-wrapped model lets dynamo's ``DDPOptimizer`` split the graph
# at the gradient buckets, so communication still overlaps the backward pass.
# The default ``inductor`` backend generates and compiles C++ for each kernel;
# tried with a cold cache on this site's 2-core build machine, that alone ran
# past the time budget of the whole page, so the page uses ``aot_eager``: the
# same graph capture, bucket split and backward tracing, without code
# generation. On a real training machine, drop ``backend=``. Dynamo warns that it skips DDP's profiler
# annotation; the ``set_logs`` line keeps that warning out of the output.
import logging
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from cheatsheet.distributed import run


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def train_compiled(rank, world_size, steps, backend):
    torch._logging.set_logs(dynamo=logging.ERROR)
    dist.init_process_group("gloo")
    model = torch.compile(DDP(make_model()), backend=backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]
    for step in range(steps):
        start = time.perf_counter()
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: {time.perf_counter() - start:.3f} s, loss {loss.item():.4f}")
    state = model.module.state_dict()
    del model  # DDP before the process group, as above
    dist.destroy_process_group()
    return state


compiled = run(train_compiled, world_size=2, args=(3, "aot_eager"))
single = make_model()
opt = torch.optim.SGD(single.parameters(), lr=0.1)
x, y = make_batch()
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(single(x), y).backward()
    opt.step()
for rank_state in compiled.values:
    torch.testing.assert_close(rank_state, single.state_dict())
print("compiled DDP matches single-process training; step 0 includes compilation")

# %%
# .. _distributed-fsdp2:
#
# FSDP2: shard parameters with fully_shard
# ----------------------------------------
# ``fully_shard`` (``torch.distributed.fsdp``) turns every parameter into a
# ``DTensor`` sharded on dim 0 across the ranks, so each rank stores half.
# Forward and backward all-gather a layer's weights just in time, and
# gradients are reduce-scattered back to shards. Apply it to each layer, then
# to the root. The last layer has a single output row, so rank 1's shard of it
# is empty: uneven shards are allowed.
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard

from cheatsheet.distributed import run


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def make_sharded_model():
    model = make_model()
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer)
    return fully_shard(model)


def train_fsdp(rank, world_size):
    dist.init_process_group("gloo")
    model = make_sharded_model()
    for name, param in model.named_parameters():
        local = tuple(param.to_local().shape)
        print(f"{name:9} full {tuple(param.shape)!s:8} local shard {local!s:8} {param.placements}")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"one step done, local loss {loss.item():.4f}")
    full = {name: param.full_tensor() for name, param in model.named_parameters()}
    dist.destroy_process_group()
    return full


sharded = run(train_fsdp, world_size=2)
reference = make_model()
opt = torch.optim.SGD(reference.parameters(), lr=0.1)
x, y = make_batch()
nn.functional.mse_loss(reference(x), y).backward()
opt.step()
torch.testing.assert_close(sharded.values[0], dict(reference.named_parameters()))
print("FSDP2 step matches single-process training")

# %%
# .. _distributed-checkpoint:
#
# Save sharded, load anywhere: torch.distributed.checkpoint
# ---------------------------------------------------------
# ``dcp.save`` has every rank write only its own shards, in parallel, plus one
# ``.metadata`` file that records how the full tensors were cut. ``dcp.load``
# fills whatever state dict you hand it, resharding on the way, so the two FSDP2
# ranks' checkpoint loads into an ordinary, unsharded model in this single
# process (``no_dist=True``: no process group here). ``checkpoint_id=`` is
# shorthand for ``storage_writer=dcp.FileSystemWriter(dir)`` and
# ``storage_reader=dcp.FileSystemReader(dir)``; snippets that call a
# ``FileSystemLoader`` name a class this PyTorch does not have (checked below).
import os
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.fsdp import fully_shard

from cheatsheet.distributed import run


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_sharded_model():
    model = make_model()
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer)
    return fully_shard(model)


def save_sharded(rank, world_size, path):
    dist.init_process_group("gloo")
    model = make_sharded_model()  # FSDP2, as in the entry above
    dcp.save(model.state_dict(), checkpoint_id=path)
    print("wrote its shards of", len(model.state_dict()), "tensors")
    dist.destroy_process_group()


with tempfile.TemporaryDirectory() as checkpoint_dir:
    run(save_sharded, world_size=2, args=(checkpoint_dir,))
    print("checkpoint files:", sorted(os.listdir(checkpoint_dir)))
    whole = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))  # fresh weights
    state = whole.state_dict()
    with warnings.catch_warnings():  # it warns that it assumes one process: that is the point
        warnings.filterwarnings("ignore", "torch.distributed is disabled")
        dcp.load(state, checkpoint_id=checkpoint_dir, no_dist=True)
    whole.load_state_dict(state)
torch.testing.assert_close(whole.state_dict(), make_model().state_dict())
print("the sharded checkpoint loaded into an unsharded model equals the original")
print("dcp.FileSystemLoader exists:", hasattr(dcp, "FileSystemLoader"))

# %%
# .. _distributed-zero:
#
# Shard only the optimizer: ZeroRedundancyOptimizer
# -------------------------------------------------
# With plain DDP every rank keeps the whole optimizer state (Adam: two extra
# copies of every weight). ``ZeroRedundancyOptimizer`` hands each rank the state
# of some whole parameters only, steps those, and broadcasts the updated
# weights, so the replicas stay identical. Its split is by parameter, not by
# element, so small models split unevenly; FSDP2 above shards everything evenly.
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.optim import ZeroRedundancyOptimizer

from cheatsheet.distributed import run


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def train_zero(rank, world_size):
    dist.init_process_group("gloo")
    model = nn.parallel.DistributedDataParallel(make_model())
    opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, lr=0.01)
    x, y = make_batch()
    x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    kept = sum(state["exp_avg"].numel() for state in opt.optim.state.values())
    total = sum(p.numel() for p in model.parameters())
    print(f"holds Adam state for {kept} of {total} weights")
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    replicas = [torch.empty_like(flat) for _ in range(world_size)]
    dist.all_gather(replicas, flat)
    print("weights identical on all ranks after the step:", torch.equal(*replicas))
    del opt, model  # DDP before the process group, as above
    dist.destroy_process_group()


zero = run(train_zero, world_size=2)

# %%
# .. _pt2-distributed-torchrun:
#
# Launch on real hardware: torchrun
# ---------------------------------
# Outside this page, ``torchrun`` starts the processes and sets the same
# variables. On one machine with 8 GPUs, use ``nccl`` and pin each rank to
# ``LOCAL_RANK``'s GPU (``torch.cuda.set_device(local_rank)``):
#
# .. code-block:: console
#
#     torchrun --standalone --nproc-per-node=8 train.py --epochs 10
#
# Older scripts write ``--nproc_per_node``; both spellings are accepted, and
# ``python -m torch.distributed.run`` is the same program as ``torchrun``.
# Decorate the script's entry point with ``record``: when a rank crashes,
# ``torchrun``'s failure summary then shows that rank's traceback, not only its
# exit code. Outside ``torchrun`` the decorator just calls the function. (It
# also turns on ``faulthandler``, which needs a real stderr; this page captures
# stderr in memory, so the warning that says so is filtered here.)
import warnings

import torch
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    print("main() ran; under torchrun a crash here would be reported with its traceback")


with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Unable to enable fault handler")
    main()
if torch.cuda.is_available() and torch.cuda.device_count() >= 2:
    print(f"{torch.cuda.device_count()} GPUs here: torchrun --nproc-per-node=gpu would use them")
else:
    print("no pair of CUDA GPUs on this machine: nccl launches are shown as text only")

# %%
# .. _pt2-distributed-nodes:
#
# Several machines
# ----------------
# Run the same command on every node; they meet at the rendezvous endpoint
# (one node's address and a free port) and ``torchrun`` numbers the ranks:
#
# .. code-block:: console
#
#     # on each of 2 nodes, 8 GPUs per node: 16 ranks
#     torchrun --nnodes=2 --nproc-per-node=8 \
#         --rdzv-backend=c10d --rdzv-endpoint=node0.example:29500 --rdzv-id=job42 \
#         train.py
#
#     # or with fixed ranks instead of rendezvous
#     torchrun --nnodes=2 --node-rank=0 --nproc-per-node=8 \
#         --master-addr=node0.example --master-port=29500 train.py
#
# ``--nnodes=1:4`` makes the job elastic: it starts with whatever nodes join,
# up to four, and ``--max-restarts=3`` restarts failed workers.

# %%
# .. _pt2-distributed-slurm:
#
# A Slurm batch script
# --------------------
# Slurm allocates the nodes; ``srun`` then starts one ``torchrun`` per node,
# and the first node of the allocation serves as the rendezvous:
#
# .. code-block:: bash
#
#     #!/bin/bash
#     #SBATCH --job-name=train
#     #SBATCH --nodes=2
#     #SBATCH --ntasks-per-node=1
#     #SBATCH --gpus-per-node=8
#     #SBATCH --cpus-per-task=32
#     #SBATCH --time=04:00:00
#
#     head=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
#     srun torchrun \
#         --nnodes="$SLURM_NNODES" --nproc-per-node=8 \
#         --rdzv-backend=c10d --rdzv-endpoint="$head:29500" --rdzv-id="$SLURM_JOB_ID" \
#         train.py
#
# Submit it with ``sbatch train.sbatch``.
