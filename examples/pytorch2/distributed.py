r"""
Distributed, really run
=======================

Every script here is started with ``torchrun`` while the page is built, as two CPU processes talking through ``gloo``; only the cluster launch commands are shown as text.

Summary
-------

================================  ======================================================================================================
You want                          Call
================================  ======================================================================================================
start two ranks on this machine   :entry:`torchrun --nproc-per-node=2 hello.py <pt2-distributed-start>`
join the job                      :entry:`dist.init_process_group("gloo") <pt2-distributed-start>` (``"nccl"`` on GPUs)
who am I                          :entry:`dist.get_rank(), dist.get_world_size() <pt2-distributed-start>`
leave cleanly                     :entry:`dist.destroy_process_group() <pt2-distributed-start>`
sum over ranks, in place          :entry:`dist.all_reduce(t, op=dist.ReduceOp.SUM) <pt2-distributed-all-reduce>`
rank 0's value everywhere         :entry:`dist.broadcast(t, src=0) <pt2-distributed-broadcast>`
every rank's tensor               :entry:`dist.all_gather(out_list, t) <pt2-distributed-broadcast>`
sum, then a chunk per rank        :entry:`dist.reduce_scatter(out, in_list) <pt2-distributed-reduce-scatter>`
one flat tensor of every rank's   :entry:`dist.all_gather_into_tensor(out, t) <pt2-whats-new-2-15-collective-aliases>`, an alias of ``all_gather_single``
wait for all ranks                :entry:`dist.barrier() <pt2-distributed-barrier>`
data-parallel training            :entry:`DDP(model) <distributed-ddp>`
compiled data-parallel training   :entry:`torch.compile(DDP(model)) <pt2-distributed-compile>`
ranks with unequal batch counts   :entry:`with Join([ddp_model]): <distributed-join>` around the loop
DDP with gradient accumulation    :entry:`with ddp_model.no_sync(): <distributed-no-sync>` on all but the last backward
find the rank a job waits for     :entry:`dist.monitored_barrier(timeout=timedelta(seconds=30)) <distributed-find-hang>` (``gloo``)
catch mismatched collectives      :entry:`TORCH_DISTRIBUTED_DEBUG=DETAIL <distributed-debug-detail>`
sharded parameters (FSDP2)        :entry:`fully_shard(layer) <distributed-fsdp2>` per layer, then ``fully_shard(model)``
sharded checkpoint                :entry:`dcp.save(sd, checkpoint_id=dir) <distributed-checkpoint>`, ``dcp.load(sd, checkpoint_id=dir)``
a checkpoint through fsspec       :entry:`FsspecWriter(path), FsspecReader(path) <pt2-whats-new-2-15-fsspec-checkpoint>`
sharded optimizer state (ZeRO-1)  :entry:`ZeroRedundancyOptimizer(params, optimizer_class=Adam) <distributed-zero>`
launch on GPUs                    :entry:`torchrun --nproc-per-node=8 train.py <pt2-distributed-torchrun>`
a crashed rank's traceback        :entry:`@record <pt2-distributed-torchrun>` on ``main`` (``torch.distributed.elastic``)
torchrun's ports on loopback      :entry:`unshare --net ... torchrun <pt2-distributed-torchrun>` (Linux)
launch on several machines        :entry:`torchrun --nnodes=2 --rdzv-endpoint=host:port <pt2-distributed-nodes>`
launch under Slurm                :entry:`srun torchrun ... <pt2-distributed-slurm>` in an ``sbatch`` script
================================  ======================================================================================================
"""

# %%
# .. _pt2-distributed-start:
#
# Start two ranks and join a process group
# ----------------------------------------
# A distributed job is one script that ``torchrun`` starts once per rank, with
# ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR`` and ``MASTER_PORT``
# set in each; ``init_process_group`` reads them. Every script on this page starts
# with the command that runs it: save it under that name and run that line. The
# build runs it so, adding ``--tee 3``, which prefixes each line with its rank
# (the build sets the prefix to ``[rankN]:`` with
# ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``; torchrun's own is ``[default0]:``),
# and lists each rank's lines together; in a terminal they interleave as they come.

# torchrun --nproc-per-node=2 hello.py
import os

import torch.distributed as dist


def main():
    dist.init_process_group("gloo")  # reads the variables torchrun set
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}, backend {dist.get_backend()}")
    print(f"LOCAL_RANK={os.environ['LOCAL_RANK']}, nccl built in: {dist.is_nccl_available()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# A rank can still abort as Python exits, after the script has done its work and
# left the group: it prints ``terminate called without an active exception``, and
# torchrun reports that it ``failed (exitcode: -6)``, which is SIGABRT. That is a
# race in PyTorch itself (found under 2.14.1, `pytorch/pytorch#190489
# <https://github.com/pytorch/pytorch/issues/190489>`__): a ``gloo`` worker thread
# releases the last collective just after it completes, which needs the GIL, and
# when Python is already shutting down the thread cannot take it. It is likeliest
# when that collective ran a Python callback, as a DDP communication hook does
# (the ``no_sync`` script below has one): the thread needs the GIL once more to drop
# the callback. What the ranks printed stands; run the job again.

# %%
# .. _pt2-distributed-all-reduce:
#
# all_reduce: every rank gets the sum
# -----------------------------------
# Collectives work in place: after ``all_reduce`` each rank's tensor holds the
# reduction over all ranks. ``op=`` picks ``SUM`` (default), ``PRODUCT``,
# ``MIN`` or ``MAX``.

# torchrun --nproc-per-node=2 all_reduce.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    x = torch.tensor([1.0, 2.0]) * (rank + 1)
    print("before:", x)
    dist.all_reduce(x)  # rank 0 holds [1, 2], rank 1 holds [2, 4]
    print("sum:   ", x)
    y = torch.tensor([float(rank)])
    dist.all_reduce(y, op=dist.ReduceOp.MAX)
    print("max:   ", y)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-distributed-broadcast:
#
# broadcast and all_gather
# ------------------------
# ``broadcast(t, src=0)`` overwrites ``t`` on every rank with rank 0's value;
# ``all_gather(out_list, t)`` fills a list with every rank's tensor, in rank order.

# torchrun --nproc-per-node=2 share.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    seed = torch.tensor([1234]) if rank == 0 else torch.tensor([-1])
    dist.broadcast(seed, src=0)
    print("broadcast seed:", seed.item())

    mine = torch.full((2,), float(rank))
    gathered = [torch.empty(2) for _ in range(world_size)]
    dist.all_gather(gathered, mine)
    print("all_gather:", torch.stack(gathered).tolist())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

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

# torchrun --nproc-per-node=2 reduce_scatter.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        print("torch", torch.__version__)
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


if __name__ == "__main__":
    main()

# %%
# .. _pt2-distributed-barrier:
#
# barrier: wait for everyone
# --------------------------
# ``barrier()`` returns on a rank only once every rank has reached it. Here
# rank 1 is late by 0.5 s, and rank 0's clock shows it waited.

# torchrun --nproc-per-node=2 barrier.py
import time

import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    start = time.perf_counter()
    if dist.get_rank() == 1:
        time.sleep(0.5)  # a slow rank: data loading, a bigger batch, a busy host
    dist.barrier()
    print(f"left the barrier after {time.perf_counter() - start:.2f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _distributed-ddp:
#
# DistributedDataParallel on CPU
# ------------------------------
# ``DDP`` copies the model to every rank (rank 0's weights are broadcast at
# wrap time) and averages gradients with ``all_reduce`` during ``backward``.
# Each rank trains on its own half of the batch; all-gathering the gradients
# shows they are identical on both ranks after every step. With equal shards
# and a mean loss the averaged gradient is the full batch's, so at the end each
# rank's weights equal plain training on the whole batch, which the script runs
# too and compares.
#
# Delete the DDP model before ``destroy_process_group``. Otherwise DDP's
# C++ reducer holds the last reference to the group, and freeing it later
# joins gloo's worker threads while holding Python's GIL, which a worker may
# need to free the last collective's tensors: with PyTorch 2.13, in a loop of
# 40 runs without the ``del``, the second run hung; with it, none of 40 did.

# torchrun --nproc-per-node=2 train_ddp.py
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def train_one_process(steps):
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model.state_dict()


def main(steps=3):
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
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
    torch.testing.assert_close(model.module.state_dict(), train_one_process(steps))
    print("weights match one process trained on the whole batch")
    del model  # before the process group: see above
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _distributed-join:
#
# Uneven inputs: Join
# -------------------
# DDP's backward is a collective, so a rank that runs out of batches early
# leaves the others waiting in ``all_reduce`` forever. Inside ``Join`` a rank
# that has finished keeps answering its peers' collectives with zero gradients
# until every rank is done.

# torchrun --nproc-per-node=2 uneven.py
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.join import Join
from torch.nn.parallel import DistributedDataParallel as DDP


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
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


if __name__ == "__main__":
    main()

# %%
# .. _pt2-distributed-compile:
#
# torch.compile with DDP
# ----------------------
# Compiling the DDP-wrapped model lets dynamo's ``DDPOptimizer`` split the graph
# at the gradient buckets, so communication still overlaps the backward pass.
# The script compiles with ``backend="aot_eager"``: the same graph capture, bucket
# split and backward tracing as the default ``inductor``, without generating and
# compiling C++ for every kernel. On a training machine, drop ``backend=``.
# Dynamo logs that it skips DDP's profiler annotation; the ``set_logs`` line keeps
# that out of the output. Step 0 includes the compilation.

# torchrun --nproc-per-node=2 train_compiled.py
import logging
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def train_one_process(steps):
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model.state_dict()


def main(steps=3):
    torch._logging.set_logs(dynamo=logging.ERROR)
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    model = torch.compile(DDP(make_model()), backend="aot_eager")
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
    torch.testing.assert_close(model.module.state_dict(), train_one_process(steps))
    print("compiled DDP matches one process trained on the whole batch")
    del model  # DDP before the process group, as above
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# sphinx_gallery_start_ignore
# Why aot_eager: with a cold cache, inductor's C++ compilation alone ran past the time
# budget of the whole page on the 2-core machine that builds the site.
# sphinx_gallery_end_ignore

# %%
# .. _distributed-fsdp2:
#
# FSDP2: shard parameters with fully_shard
# ----------------------------------------
# ``fully_shard`` (``torch.distributed.fsdp``) turns every parameter into a
# ``DTensor`` sharded on dim 0 across the ranks, so each rank stores half.
# Forward and backward all-gather a layer's weights just in time, and
# gradients are reduce-scattered back to shards. Apply it to each layer, then
# to the root. Without ``mesh=``, ``fully_shard`` builds a mesh on the accelerator
# when there is one, one device per rank: on a machine with one GPU, rank 1's
# ``set_device(1)`` fails (``invalid device ordinal``; seen on this site's H200
# build), so these gloo scripts pass a CPU mesh. The last layer has a single output row, so rank 1's shard of it
# is empty: uneven shards are allowed. After one step the gathered weights
# (``full_tensor()``) equal one process trained on the whole batch. Not on every
# release: on gloo, torch 2.6 fails in the backward (``'Stream' object has no
# attribute 'record_event'``), and 2.7 and 2.8 sum the gradients where they
# should average them, so the weights come out wrong without an error
# (`pytorch/pytorch#162338 <https://github.com/pytorch/pytorch/issues/162338>`__).

# torchrun --nproc-per-node=2 train_fsdp.py
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def make_sharded_model():
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))  # gloo ranks on the CPU
    model = make_model()
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer, mesh=mesh)
    return fully_shard(model, mesh=mesh)


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    model = make_sharded_model()
    for name, param in model.named_parameters():
        local = tuple(param.to_local().shape)
        print(f"{name:9} full {tuple(param.shape)!s:8} local shard {local!s:8} {param.placements}")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch()
    loss = nn.functional.mse_loss(model(x.chunk(world_size)[rank]), y.chunk(world_size)[rank])
    loss.backward()
    opt.step()
    print(f"one step done, local loss {loss.item():.4f}")
    full = {name: param.full_tensor() for name, param in model.named_parameters()}
    reference = make_model()  # the same step in one process, on the whole batch
    nn.functional.mse_loss(reference(x), y).backward()
    torch.optim.SGD(reference.parameters(), lr=0.1).step()
    torch.testing.assert_close(full, dict(reference.named_parameters()))
    print("the gathered weights match one process on the whole batch")
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _distributed-checkpoint:
#
# Save sharded, load anywhere: torch.distributed.checkpoint
# ---------------------------------------------------------
# ``dcp.save`` has every rank write only its own shards, in parallel, plus one
# ``.metadata`` file that records how the full tensors were cut. ``dcp.load``
# fills whatever state dict you hand it, resharding on the way: here rank 0,
# after leaving the process group, loads the two ranks' checkpoint into an
# ordinary, unsharded model (``no_dist=True``: no process group). The ranks
# agree on one folder through ``broadcast_object_list``. ``checkpoint_id=`` is
# shorthand for ``storage_writer=dcp.FileSystemWriter(dir)`` and
# ``storage_reader=dcp.FileSystemReader(dir)`` (for an fsspec URL, ``s3://`` or
# another, :ref:`FsspecWriter and FsspecReader <pt2-whats-new-2-15-fsspec-checkpoint>`);
# snippets that call a
# ``FileSystemLoader`` name a class this PyTorch does not have (checked below).

# torchrun --nproc-per-node=2 checkpoint.py
import os
import shutil
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_sharded_model():
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))  # gloo ranks on the CPU
    model = make_model()
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer, mesh=mesh)
    return fully_shard(model, mesh=mesh)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    folder = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(folder, src=0)  # one folder for every rank's shards
    checkpoint_dir = folder[0]
    model = make_sharded_model()  # FSDP2, as in the entry above
    dcp.save(model.state_dict(), checkpoint_id=checkpoint_dir)
    print("wrote its shards of", len(model.state_dict()), "tensors")
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()
    if rank != 0:
        return
    print("checkpoint files:", sorted(os.listdir(checkpoint_dir)))
    whole = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))  # fresh weights
    state = whole.state_dict()
    with warnings.catch_warnings():  # it warns that it assumes one process: that is the point
        warnings.filterwarnings("ignore", "torch.distributed is disabled")
        dcp.load(state, checkpoint_id=checkpoint_dir, no_dist=True)
    whole.load_state_dict(state)
    shutil.rmtree(checkpoint_dir)
    torch.testing.assert_close(whole.state_dict(), make_model().state_dict())
    print("the sharded checkpoint loaded into an unsharded model equals the original")
    print("dcp.FileSystemLoader exists:", hasattr(dcp, "FileSystemLoader"))


if __name__ == "__main__":
    main()

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

# torchrun --nproc-per-node=2 train_zero.py
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.optim import ZeroRedundancyOptimizer


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
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


if __name__ == "__main__":
    main()

# %%
# .. _pt2-distributed-torchrun:
#
# Launch on real hardware: torchrun
# ---------------------------------
# On one machine with 8 GPUs, use ``nccl`` and pin each rank to ``LOCAL_RANK``'s
# GPU (``torch.cuda.set_device(local_rank)``):
#
# .. code-block:: console
#
#     torchrun --nproc-per-node=8 train.py --epochs 10
#
# Older scripts write ``--nproc_per_node``; both spellings are accepted, and
# ``python -m torch.distributed.run`` is the same program as ``torchrun``.
# When a rank crashes, ``torchrun`` ends by raising
# ``torch.distributed.elastic.multiprocessing.errors.ChildFailedError`` with a
# summary: the first rank that failed (``Root Cause``) and its exit code. The
# rank's own traceback is printed above it; decorate the script's entry point
# with ``record`` and the summary holds that traceback too, where its
# ``traceback :`` line otherwise only points to the docs. A negative exit code is
# the signal that ended the rank: -9 (SIGKILL) with no traceback is most often
# the kernel's out-of-memory killer, and -15 (SIGTERM) on the other ranks is
# ``torchrun`` stopping them once one failed. Outside ``torchrun`` the decorator
# just calls the function.
#
# On one machine, ``torchrun --nproc-per-node=2`` (like ``--standalone``) picks
# two free ports and listens on them on every interface for the whole run: the
# rendezvous store and the store the ranks share. With torch 2.14.1,
# ``--rdzv-endpoint=127.0.0.1:PORT``, ``--master-addr=127.0.0.1`` and
# ``--local-addr=127.0.0.1`` change the address torchrun hands to the ranks, not
# where its stores listen; gloo in each rank listens on the address the host name
# resolves to unless ``GLOO_SOCKET_IFNAME`` names an interface. To keep a run on
# loopback, on Linux, start it in a network namespace of its own, where loopback is
# the only interface (the site's build runs every script here that way):
#
# .. code-block:: console
#
#     GLOO_SOCKET_IFNAME=lo unshare --map-root-user --net \
#         sh -c 'ip link set lo up && torchrun --nproc-per-node=2 record_main.py'
#
# There, without DNS, c10d warns that it cannot retrieve the host name of a client
# socket; the run goes on. Where user namespaces are not allowed, a firewall that
# drops the ports from outside is the other way.

# torchrun --nproc-per-node=2 record_main.py
import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    dist.init_process_group("gloo")
    print("main() ran; a crash in it would reach torchrun's summary with its traceback")
    if dist.get_rank() == 0 and torch.cuda.device_count() < 2:
        print("no pair of CUDA GPUs here: nccl launches are shown as text only")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

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

# %%
# .. _distributed-no-sync:
#
# Gradient accumulation with DDP: no_sync
# ---------------------------------------
# DDP averages gradients across ranks during every ``backward``, so accumulating
# several micro-batches before one optimizer step would pay for an all-reduce each
# time. Inside ``with model.no_sync():`` the backward only adds to the local ``.grad``;
# the last micro-batch's backward, outside it, averages the accumulated sum once.
# Divide each micro-batch's loss by their number so the sum is the mean. The script
# counts DDP's all-reduces with a communication hook that forwards to the default one,
# steps once both ways, and checks each result against one process trained on the
# whole batch.

# torchrun --nproc-per-node=2 train_no_sync.py
import contextlib

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel as DDP

MICRO_BATCHES = 4  # backward passes per optimizer step


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def make_batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(32, 8, generator=gen), torch.randn(32, 1, generator=gen)


def counted_allreduce(counter, bucket):
    counter["all-reduces"] += 1  # DDP calls its hook once per bucket it averages
    return allreduce_hook(None, bucket)


def one_step(x, y, skip_sync):
    model = DDP(make_model())
    counter = {"all-reduces": 0}
    model.register_comm_hook(counter, counted_allreduce)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    micro_batches = zip(x.chunk(MICRO_BATCHES), y.chunk(MICRO_BATCHES), strict=True)
    for i, (xb, yb) in enumerate(micro_batches):
        last = i == MICRO_BATCHES - 1
        with model.no_sync() if skip_sync and not last else contextlib.nullcontext():
            (nn.functional.mse_loss(model(xb), yb) / MICRO_BATCHES).backward()
    opt.step()
    weights = model.module.state_dict()
    del model  # before the process group goes
    return weights, counter["all-reduces"]


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    x, y = make_batch()
    reference = make_model()  # one process, the whole batch, one step
    nn.functional.mse_loss(reference(x), y).backward()
    torch.optim.SGD(reference.parameters(), lr=0.1).step()
    x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]  # this rank's shard
    for skip_sync in (False, True):
        weights, all_reduces = one_step(x, y, skip_sync)
        torch.testing.assert_close(weights, reference.state_dict())
        how = "no_sync() on all but the last" if skip_sync else "every backward synced"
        line = f"{how}: {all_reduces} all-reduce(s) for {MICRO_BATCHES} backward passes"
        print(line + ", weights match one process on the whole batch\n", end="")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _distributed-find-hang:
#
# A job that hangs: find the rank it waits for
# --------------------------------------------
# A collective waits until every rank has called it, so one rank that is stuck (a slow
# batch, a branch that skips the call, a crash that left the process alive) makes all the
# others wait, silently, for the process group's timeout: 30 minutes for ``gloo`` and 10
# for ``nccl`` by default (the script prints both), after which the collective fails
# (on GPUs, NCCL's watchdog then ends the processes). ``dist.monitored_barrier(timeout=...)``
# (``gloo`` only; on GPUs, a second process group made with
# ``dist.new_group(backend="gloo")``) waits a short time and then names the ranks that
# did not arrive. Put one where ranks should be in step, such as the end
# of an epoch, and pass a shorter ``timeout=timedelta(...)`` to ``init_process_group``
# while debugging. Here rank 1 is stuck past the 2-second limit.

# torchrun --nproc-per-node=2 find_hang.py
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed import constants

LIMIT = timedelta(seconds=2)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    if rank == 0:
        gloo, nccl = constants.default_pg_timeout, constants.default_pg_nccl_timeout
        print(f"default timeouts: gloo {gloo}, nccl {nccl}")
    total = torch.ones(1)
    dist.all_reduce(total)  # every rank takes part: no wait
    if rank == 1:
        time.sleep(LIMIT.total_seconds() + 2)  # stuck, and never reaches the barrier
    else:
        try:
            dist.monitored_barrier(timeout=LIMIT)
        except RuntimeError as err:
            print(f"rank {rank}: {type(err).__name__}: {str(err).splitlines()[0]}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _distributed-debug-detail:
#
# Ranks that call different collectives: TORCH_DISTRIBUTED_DEBUG=DETAIL
# ---------------------------------------------------------------------
# Ranks that call collectives in a different order, or with tensors of different shapes,
# can hang or quietly combine the wrong tensors. With ``TORCH_DISTRIBUTED_DEBUG=DETAIL``
# (set before ``init_process_group``, here in the script, usually on the command line)
# every collective is first checked against the other ranks' call, and a mismatch
# raises on every rank with both calls described. The check costs a round trip per
# collective: leave it off in real runs. ``INFO`` and ``DETAIL`` also make DDP log its
# setup and name parameters that got no gradient (:ref:`errors-ddp-unused-parameters`).

# torchrun --nproc-per-node=2 mismatch.py
import os
import re

os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"  # or: TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ...

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    values = torch.ones(1 + rank)  # a bug: rank 1 sends 2 values, rank 0 sends 1
    try:
        dist.all_reduce(values)
    except RuntimeError as err:
        first = str(err).split(". ")[0]
        calls = re.findall(
            r"Rank (\d+) is running collective: .*?OpType=(\w+), TensorShape=(\[[^\]]*\])", str(err)
        )
        seen = "; ".join(f"rank {r}: {op} of shape {shape}" for r, op, shape in calls)
        print(f"rank {rank}: {type(err).__name__}: {first} ({seen})")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
