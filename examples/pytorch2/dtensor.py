r"""
DTensor
=======

One logical tensor stored across the ranks of a ``DeviceMesh``: scripts for ``torchrun``, run on two CPU processes with ``gloo``, that check their ranks against the same computation in one process.

Summary
-------

=================================  ======================================================================================================================
You want                           Call
=================================  ======================================================================================================================
the import                         :entry:`from torch.distributed.tensor import DTensor <pt2-dtensor-import>`, ``Shard``, ...
a mesh of ranks                    :entry:`init_device_mesh("cpu", (n,)) <pt2-dtensor-placements>` (``"cuda"`` on GPUs)
split a full tensor                :entry:`distribute_tensor(t, mesh, [Shard(dim)]) <pt2-dtensor-placements>`
a copy on every rank               :entry:`distribute_tensor(t, mesh, [Replicate()]) <pt2-dtensor-placements>`
this rank's part / the whole       :entry:`dt.to_local() <pt2-dtensor-placements>` / ``dt.full_tensor()``
wrap per-rank pieces               :entry:`DTensor.from_local(local, mesh, [Partial()]) <pt2-dtensor-redistribute>`
change layout                      :entry:`dt.redistribute(mesh, [Replicate()]) <pt2-dtensor-redistribute>`
the collectives it ran             :entry:`with CommDebugMode() as comm: <pt2-dtensor-redistribute>`, ``comm.get_comm_counts()``
where it lives                     :entry:`dt.placements <pt2-dtensor-matmul>`, ``dt.device_mesh``
operations on sharded tensors      :entry:`a @ b <pt2-dtensor-matmul>` picks the output placement
tensor-parallel layers             :entry:`parallelize_module(m, mesh, plan) <pt2-dtensor-tensor-parallel>`, ``ColwiseParallel()``, ``RowwiseParallel()``
=================================  ======================================================================================================================
"""

# %%
# .. _pt2-dtensor-import:
#
# Where DTensor lives now
# -----------------------
# DTensor moved from the private ``torch.distributed._tensor`` to the public
# ``torch.distributed.tensor``; the old path is a shim that re-exports the same
# classes. There is no ``redistribute_tensor`` function: redistribution is the
# ``DTensor.redistribute`` method. Placements say how a DTensor is stored:
# ``Shard(dim)`` splits it, ``Replicate()`` copies it, ``Partial()`` holds
# per-rank addends still to be summed.
import torch
import torch.distributed._tensor as old_path
import torch.distributed.tensor as new_path

print("torch", torch.__version__)
print("same DTensor class under both paths:", old_path.DTensor is new_path.DTensor)
print("has redistribute_tensor:", hasattr(new_path, "redistribute_tensor"))

# %%
# .. _pt2-dtensor-placements:
#
# A device mesh and three placements
# ----------------------------------
# ``init_device_mesh("cpu", (2,))`` arranges the two ranks in a 1-D mesh (use
# ``"cuda"`` on GPUs). ``distribute_tensor`` takes a full tensor, equal on every
# rank (rank 0's copy is the one scattered), and keeps only this rank's part.
# ``to_local`` shows that part; ``full_tensor`` gathers the whole again. Each script
# on this page starts with the command that runs it; the page shows each rank's
# lines together, prefixed by ``torchrun --tee 3``.

# torchrun --nproc-per-node=2 placements.py
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor


def main():
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    print(mesh)
    full = torch.arange(12.0).reshape(4, 3)
    rows = distribute_tensor(full, mesh, [Shard(0)])
    cols = distribute_tensor(full, mesh, [Shard(1)])
    copy = distribute_tensor(full, mesh, [Replicate()])
    print("Shard(0) local:", rows.to_local().tolist())
    print("Shard(1) local shape:", tuple(cols.to_local().shape), "(3 columns split 2 + 1)")
    print("Replicate local shape:", tuple(copy.to_local().shape))
    print("global shape of each:", tuple(rows.shape), tuple(cols.shape), tuple(copy.shape))
    print("full_tensor equals the original:", torch.equal(rows.full_tensor(), full))
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-dtensor-redistribute:
#
# redistribute: change placements, collectives implied
# ----------------------------------------------------
# ``redistribute(mesh, placements)`` moves data to a new layout, with the
# collective the change needs: ``Shard`` to ``Replicate`` is an all-gather,
# ``Partial`` to ``Replicate`` an all-reduce, ``Partial`` to ``Shard`` a
# reduce-scatter, and ``Shard(0)`` to ``Shard(1)`` an all-to-all, except on a CPU
# mesh: there DTensor all-gathers and keeps its chunk (and logs once that it falls
# back; the ``setLevel`` line keeps that off the page). ``CommDebugMode`` counts the
# collectives a block of DTensor code ran, which shows the fallback. gloo itself
# runs ``all_to_all_single`` and ``all_to_all``, as the last lines show.
# ``DTensor.from_local`` wraps tensors that already sit on each rank.

# torchrun --nproc-per-node=2 redistribute.py
import logging

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode


def move(x, mesh, placements):
    with CommDebugMode() as comm:
        moved = x.redistribute(mesh, placements)
    ran = {str(op).split(".")[-1]: n for op, n in comm.get_comm_counts().items()}
    print(f"{x.placements[0]} -> {placements[0]}: {moved.to_local().tolist()} via {ran}")


def main():
    logging.getLogger("torch.distributed.tensor").setLevel(logging.ERROR)
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    mesh = init_device_mesh("cpu", (world_size,))
    x = distribute_tensor(torch.arange(8.0).reshape(2, 4), mesh, [Shard(0)])
    move(x, mesh, [Shard(1)])
    move(x, mesh, [Replicate()])
    # Each rank holds an addend; the logical value is their sum, (1 + 2) * ones.
    p = DTensor.from_local(torch.ones(4) * (rank + 1), mesh, [Partial()])
    print("Partial local:", p.to_local().tolist())
    move(p, mesh, [Replicate()])
    move(p, mesh, [Shard(0)])

    out = torch.empty(world_size, dtype=torch.long)
    dist.all_to_all_single(out, torch.arange(world_size) + 10 * rank)  # item r goes to rank r
    print("gloo all_to_all_single:", out.tolist())
    outs = [torch.empty(1) for _ in range(world_size)]
    dist.all_to_all(outs, [torch.tensor([10.0 * rank + r]) for r in range(world_size)])
    print("gloo all_to_all:       ", [t.item() for t in outs])
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-dtensor-matmul:
#
# A sharded matmul
# ----------------
# Ops pick their output placement from the inputs. Row-sharded ``A`` times
# replicated ``B`` stays row-sharded with no communication; ``A`` split by
# columns times ``B`` split by rows gives ``Partial`` results, summed only
# when asked. Every rank checks the gathered products against ``A @ B``
# computed in one piece.

# torchrun --nproc-per-node=2 sharded_matmul.py
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor


def main():
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    torch.manual_seed(0)  # the same A and B on every rank
    a, b = torch.randn(4, 6), torch.randn(6, 2)
    rows = distribute_tensor(a, mesh, [Shard(0)]) @ distribute_tensor(b, mesh, [Replicate()])
    inner = distribute_tensor(a, mesh, [Shard(1)]) @ distribute_tensor(b, mesh, [Shard(0)])
    print("Shard(0) @ Replicate ->", rows.placements, "local", tuple(rows.to_local().shape))
    print("Shard(1) @ Shard(0)   ->", inner.placements, "local", tuple(inner.to_local().shape))
    torch.testing.assert_close(rows.full_tensor(), a @ b)
    torch.testing.assert_close(inner.full_tensor(), a @ b)
    print("both match a @ b in one piece")
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-dtensor-tensor-parallel:
#
# Tensor parallelism of an MLP
# ----------------------------
# ``parallelize_module`` replaces a module's weights with DTensors. The usual
# pair splits the first ``Linear`` by output features (``ColwiseParallel``)
# and the second by input features (``RowwiseParallel``): the hidden
# activation stays sharded, and a single all-reduce after the second layer
# completes the output. Inputs and outputs are plain, replicated tensors. Every
# rank checks the output and the gathered gradients against the same MLP run in
# one process.

# torchrun --nproc-per-node=2 tensor_parallel.py
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module


def make_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))


def main():
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    model = parallelize_module(make_mlp(), mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    for name, param in model.named_parameters():
        local = tuple(param.to_local().shape)
        print(f"{name:9} full {tuple(param.shape)!s:8} local {local!s:8} {param.placements}")
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(1))  # same on every rank
    out = model(x)
    out.sum().backward()
    print("output is a DTensor:", isinstance(out, DTensor), "| shape", tuple(out.shape))

    reference = make_mlp()  # the same MLP, whole, in this process
    expected = reference(x)
    expected.sum().backward()
    torch.testing.assert_close(out, expected)
    wholes = dict(reference.named_parameters())
    for name, param in model.named_parameters():
        torch.testing.assert_close(param.grad.full_tensor(), wholes[name].grad)
    print("output and gradients match the MLP in one process")
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
