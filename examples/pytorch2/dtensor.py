r"""
DTensor
=======

One logical tensor stored across the ranks of a ``DeviceMesh``, run on two CPU processes with ``gloo`` and checked against the same computation in one process.

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
# ``to_local`` shows that part; ``full_tensor`` gathers the whole again.
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor

from cheatsheet.distributed import run


def placements(rank, world_size):
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (world_size,))
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
    dist.destroy_process_group()


result = run(placements, world_size=2)

# %%
# .. _pt2-dtensor-redistribute:
#
# redistribute: change placements, collectives implied
# ----------------------------------------------------
# ``redistribute(mesh, placements)`` moves data to a new layout:
# ``Shard`` to ``Replicate`` is an all-gather, ``Shard(0)`` to ``Shard(1)`` an
# all-to-all, ``Partial`` to ``Replicate`` an all-reduce, and ``Partial`` to
# ``Shard`` a reduce-scatter. ``gloo`` has no all-to-all here, so on CPU DTensor
# does an all-gather and keeps a chunk, and logs a warning saying so once; the
# ``setLevel`` line keeps it off the page. ``DTensor.from_local`` wraps tensors
# that already sit on each rank.
import logging

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

from cheatsheet.distributed import run


def moves(rank, world_size):
    logging.getLogger("torch.distributed.tensor").setLevel(logging.ERROR)
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (world_size,))
    full = torch.arange(8.0).reshape(2, 4)
    x = distribute_tensor(full, mesh, [Shard(0)])
    print("Shard(0) -> Shard(1):", x.redistribute(mesh, [Shard(1)]).to_local().tolist())
    print("Shard(0) -> Replicate:", x.redistribute(mesh, [Replicate()]).to_local().tolist())

    # Each rank holds an addend; the logical value is their sum, (1 + 2) * ones.
    p = DTensor.from_local(torch.ones(4) * (rank + 1), mesh, [Partial()])
    print("Partial local:", p.to_local().tolist())
    print("Partial -> Replicate:", p.redistribute(mesh, [Replicate()]).to_local().tolist())
    print("Partial -> Shard(0):", p.redistribute(mesh, [Shard(0)]).to_local().tolist())
    dist.destroy_process_group()


result = run(moves, world_size=2)

# %%
# .. _pt2-dtensor-matmul:
#
# A sharded matmul
# ----------------
# Ops pick their output placement from the inputs. Row-sharded ``A`` times
# replicated ``B`` stays row-sharded with no communication; ``A`` split by
# columns times ``B`` split by rows gives ``Partial`` results, summed only
# when asked. The ranks return their ``full_tensor`` and this process checks
# them against ``A @ B``.
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor

from cheatsheet.distributed import run

torch.manual_seed(0)
A = torch.randn(4, 6)
B = torch.randn(6, 2)


def sharded_matmul(rank, world_size, a, b):
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (world_size,))
    rows = distribute_tensor(a, mesh, [Shard(0)]) @ distribute_tensor(b, mesh, [Replicate()])
    inner = distribute_tensor(a, mesh, [Shard(1)]) @ distribute_tensor(b, mesh, [Shard(0)])
    print("Shard(0) @ Replicate ->", rows.placements, "local", tuple(rows.to_local().shape))
    print("Shard(1) @ Shard(0)   ->", inner.placements, "local", tuple(inner.to_local().shape))
    result = (rows.full_tensor(), inner.full_tensor())
    dist.destroy_process_group()
    return result


result = run(sharded_matmul, world_size=2, args=(A, B))
for by_rows, by_inner in result.values:
    torch.testing.assert_close(by_rows, A @ B)
    torch.testing.assert_close(by_inner, A @ B)
print("matches single-process result")

# %%
# .. _pt2-dtensor-tensor-parallel:
#
# Tensor parallelism of an MLP
# ----------------------------
# ``parallelize_module`` replaces a module's weights with DTensors. The usual
# pair splits the first ``Linear`` by output features (``ColwiseParallel``)
# and the second by input features (``RowwiseParallel``): the hidden
# activation stays sharded, and a single all-reduce after the second layer
# completes the output. Inputs and outputs are plain, replicated tensors.
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from cheatsheet.distributed import run


def make_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))


def tensor_parallel(rank, world_size, x):
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (world_size,))
    model = parallelize_module(make_mlp(), mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    for name, param in model.named_parameters():
        local = tuple(param.to_local().shape)
        print(f"{name:9} full {tuple(param.shape)!s:8} local {local!s:8} {param.placements}")
    out = model(x)
    out.sum().backward()
    grads = {name: param.grad.full_tensor() for name, param in model.named_parameters()}
    print("output is a DTensor:", isinstance(out, DTensor), "| shape", tuple(out.shape))
    dist.destroy_process_group()
    return out.detach(), grads


x = torch.randn(5, 8)
result = run(tensor_parallel, world_size=2, args=(x,))

reference = make_mlp()
expected = reference(x)
expected.sum().backward()
for out, grads in result.values:
    torch.testing.assert_close(out, expected)
    for name, param in reference.named_parameters():
        torch.testing.assert_close(grads[name], param.grad)
print("output and gradients match single-process result")
