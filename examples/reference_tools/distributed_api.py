r"""
torch.distributed API reference
===============================

The parts of ``torch.distributed`` beyond the walkthroughs
(:ref:`sphx_glr_gallery_basics_distributed_basics.py`,
:ref:`sphx_glr_gallery_pytorch2_distributed.py`): stores, point-to-point,
subgroups, object collectives, async work, DDP hooks and checks.

Summary
-------

================================================  ==================================================
You want                                          Call
================================================  ==================================================
to host or join a key-value store over TCP        :entry:`dist.TCPStore <api-distributed-tcpstore>`
to keep a store in this process's memory          :entry:`dist.HashStore <api-distributed-hashstore>`
to share a store through one file                 :entry:`dist.FileStore <api-distributed-filestore>`
to give each job its own key space in a store     :entry:`dist.PrefixStore <api-distributed-prefixstore>`
to send a tensor to one rank, blocking            :entry:`dist.send <api-distributed-send>`
to receive a tensor; returns the sender's rank    :entry:`dist.recv <api-distributed-recv>`
to send without blocking; ``work.wait()`` later   :entry:`dist.isend <api-distributed-isend>`
to receive without blocking (ring exchange)       :entry:`dist.irecv <api-distributed-irecv>`
to run collectives on some of the ranks           :entry:`dist.new_group <api-distributed-new-group>`
to give every rank each rank's Python object      :entry:`dist.all_gather_object <api-distributed-all-gather-object>`
to copy ``src``'s objects to every rank           :entry:`dist.broadcast_object_list <api-distributed-broadcast-object-list>`
to collect one object per rank on ``dst``         :entry:`dist.gather_object <api-distributed-gather-object>`
to hand one object to each rank from ``src``      :entry:`dist.scatter_object_list <api-distributed-scatter-object-list>`
to find the rank that never arrives (gloo)        :entry:`dist.monitored_barrier <api-distributed-monitored-barrier>`
to reduce in the background, chain on the future  :entry:`dist.all_reduce(t, async_op=True) <api-distributed-all-reduce>`
every rank's tensor in one flat tensor            :entry:`dist.all_gather_into_tensor(out, t) <api-distributed-all-gather-into-tensor>`
to change how DDP reduces gradient buckets        :entry:`ddp.register_comm_hook(state, hook) <api-nn-parallel-distributeddataparallel-register-comm-hook>`
to halve DDP's traffic with float16               :entry:`default_hooks.fp16_compress_hook <api-distributed-algorithms-ddp-comm-hooks-default-hooks-fp16-compress-hook>`
to split a dataset's indices across ranks         :entry:`DistributedSampler(dataset) <api-utils-data-distributed-distributedsampler>`
to name the backend of a group                    :entry:`dist.get_backend <api-distributed-get-backend>`
to check for a default process group              :entry:`dist.is_initialized <api-distributed-is-initialized>`
to check the build for gloo                       :entry:`dist.is_gloo_available <api-distributed-is-gloo-available>`
to check the build for NCCL                       :entry:`dist.is_nccl_available <api-distributed-is-nccl-available>`
to pick the older NCCL process group              :entry:`init_process_group("nccl-legacy") <api-distributed-nccl-backend-choice>`
several GPUs per process in one collective        :entry:`dist.all_reduce_multigpu <api-distributed-all-reduce-multigpu>` (removed)
================================================  ==================================================
"""

# %%
# .. _api-distributed-tcpstore:
#
# torch.distributed.TCPStore
# --------------------------
# A key-value server over TCP: the rank built with ``is_master=True`` hosts it
# and every rank connects as a client, which is how ``init_process_group``
# rendezvous works; ``port=0`` lets the OS pick a free port, read back from
# ``.port``. Values come back as ``bytes``.
import threading
import time

import torch.distributed as dist

server = dist.TCPStore("127.0.0.1", 0, world_size=1, is_master=True)
print("keys in a fresh store:", server.num_keys())  # one internal key is already there
server.set("epoch", "3")
print("get:", server.get("epoch"))
print("add:", server.add("steps", 10), server.add("steps", 5))  # a counter, returns the total
print("compare_set hit: ", server.compare_set("epoch", "3", "4"))  # expected matched: swapped
print("compare_set miss:", server.compare_set("epoch", "9", "5"))  # no match: current value
client = dist.TCPStore("127.0.0.1", server.port, is_master=False)  # another rank would do this


def set_later(store):
    time.sleep(0.1)
    store.set("ready", "yes")


writer = threading.Thread(target=set_later, args=(client,))
writer.start()
server.wait(["ready"])  # blocks until every listed key exists
writer.join()
print("after wait:", server.get("ready"), "| num_keys:", server.num_keys())
print("delete_key:", server.delete_key("steps"), server.delete_key("steps"))
print("check:", server.check(["epoch", "steps"]), "| num_keys:", server.num_keys())
del client, server  # the server stops when its object is freed

# %%
# .. _api-distributed-hashstore:
#
# torch.distributed.HashStore
# ---------------------------
# The same store interface held in this process's memory, with no network: for
# tests, or threads of one process. A ``get`` on a missing key waits up to
# ``timeout`` (five minutes by default) and then raises ``DistStoreError``.
import datetime

import torch.distributed as dist

store = dist.HashStore()
store.set("lr", "0.01")
store.add("seen", 32)
print(store.get("lr"), store.get("seen"), sorted(store.list_keys()))
print("default timeout:", store.timeout)
store.set_timeout(datetime.timedelta(milliseconds=50))
try:
    store.get("missing")
except dist.DistStoreError as err:
    print(type(err).__name__, "-", err)

# %%
# .. _api-distributed-filestore:
#
# torch.distributed.FileStore
# ---------------------------
# A store kept in one file that every rank can open (a shared file system
# replaces the TCP server); its second argument is the number of processes that
# will open it, and the file is deleted when the last of them closes it.
import os
import tempfile

import torch.distributed as dist

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "store")
    first = dist.FileStore(path, 2)
    second = dist.FileStore(path, 2)  # as a second process would open it
    first.set("checkpoint", "step-100")
    print("read through the other handle:", second.get("checkpoint"))
    print("add from both:", first.add("done", 1), second.add("done", 1))
    print("files while open:", os.listdir(tmp))
    del first, second
    print("files after both closed:", os.listdir(tmp))

# %%
# .. _api-distributed-prefixstore:
#
# torch.distributed.PrefixStore
# -----------------------------
# Wraps another store and puts ``prefix + "/"`` in front of every key, so that
# several jobs or process groups can share one server without clashing.
import torch.distributed as dist

shared = dist.HashStore()
job_a = dist.PrefixStore("job_a", shared)
job_b = dist.PrefixStore("job_b", shared)
job_a.set("status", "running")
job_b.set("status", "finished")
print("job_a sees:", job_a.get("status"), "| job_b sees:", job_b.get("status"))
print("keys in the underlying store:", sorted(shared.list_keys()))
print("underlying_store is shared:", job_a.underlying_store is shared)

# %%
# .. _api-distributed-send:
#
# torch.distributed.send
# ----------------------
# Snippets that need several processes are scripts for ``torchrun``: the first
# line of each is the command that runs it. The page shows each rank's lines
# together, prefixed ``[rankN]:`` by torchrun's ``--tee 3``. ``send`` passes a
# tensor to the rank ``dst`` and blocks; with gloo it returns only once that rank
# has posted the matching ``recv``, into a tensor of the same shape and dtype.

# torchrun --nproc-per-node=2 send_one.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    if dist.get_rank() == 0:
        dist.send(torch.tensor([1.0, 2.0, 3.0]), dst=1)
        print("sent")
    else:
        inbox = torch.zeros(3)  # preallocated: same shape and dtype as what is sent
        dist.recv(inbox, src=0)
        print("received", inbox)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-recv:
#
# torch.distributed.recv
# ----------------------
# Fills its tensor in place and returns the sender's rank; without ``src`` it
# takes the first message from any rank, which that return value identifies.
# Three ranks here.

# torchrun --nproc-per-node=3 collect.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        got = []
        for _ in range(world_size - 1):
            inbox = torch.zeros(1)
            sender = dist.recv(inbox)  # any source: arrival order may vary
            got.append((sender, inbox.item()))
        print("(sender, value):", sorted(got))
    else:
        dist.send(torch.tensor([10.0 * rank]), dst=0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-isend:
#
# torch.distributed.isend
# -----------------------
# The non-blocking ``send``: it returns a ``Work`` handle at once, so the rank
# can compute meanwhile; call ``wait()`` before reusing or changing the tensor.

# torchrun --nproc-per-node=2 overlap.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    if dist.get_rank() == 0:
        payload = torch.arange(4.0)
        work = dist.isend(payload, dst=1)
        busy = (payload @ payload).item()  # work done while the message travels
        work.wait()
        print(f"{type(work).__name__} done: {work.is_completed()}, computed {busy} meanwhile")
    else:
        inbox = torch.empty(4)
        dist.recv(inbox, src=0)
        print("received", inbox)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-irecv:
#
# torch.distributed.irecv
# -----------------------
# The non-blocking ``recv``. Posting the receive before the send lets every rank
# pass a tensor around a ring at the same time; with blocking ``send`` then
# ``recv`` on every rank, the same ring hangs on gloo, since no ``recv`` is
# ever posted. Three ranks here.

# torchrun --nproc-per-node=3 ring.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world_size, (rank - 1) % world_size
    outgoing = torch.tensor([float(rank)])
    incoming = torch.empty(1)
    pending = [dist.irecv(incoming, src=left), dist.isend(outgoing, dst=right)]
    for work in pending:
        work.wait()
    print(f"got {incoming.item():.0f} from rank {left}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-new-group:
#
# torch.distributed.new_group
# ---------------------------
# Makes a process group of some of the ranks, passed as ``group=`` to any
# collective. Every rank must call ``new_group`` for every group, members or
# not, in the same order; on a non-member the rank in that group is ``-1``.
# Four ranks here.

# torchrun --nproc-per-node=4 subgroups.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    evens = dist.new_group([0, 2])  # all four ranks make both groups
    odds = dist.new_group([1, 3])
    mine, other = (evens, odds) if rank % 2 == 0 else (odds, evens)
    value = torch.tensor([float(rank)])
    dist.all_reduce(value, group=mine)  # sums over two ranks, not four
    print(
        f"group {dist.get_process_group_ranks(mine)}: sum {value.item():.0f}, "
        f"my rank there {dist.get_rank(mine)}, in the other group {dist.get_rank(other)}"
    )
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-all-gather-object:
#
# torch.distributed.all_gather_object
# -----------------------------------
# Like ``all_gather`` for any picklable Python object: every rank passes a list
# of ``world_size`` slots and gets back each rank's object, in rank order.
# Objects travel as pickles: use it only between processes you trust.

# torchrun --nproc-per-node=2 share_stats.py
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    stats = {"rank": rank, "batches": 10 + rank, "bad_files": ["a.jpg"] * rank}
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, stats)
    print(everyone)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-broadcast-object-list:
#
# torch.distributed.broadcast_object_list
# ---------------------------------------
# Replaces, in place, the items of a list on every rank with the items of
# rank ``src``'s list; the list must have the same length everywhere. A common
# use: rank 0 reads a config or a run name and shares it.

# torchrun --nproc-per-node=2 share_config.py
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    box = [None, None]  # placeholders, as long as rank 0's list
    if dist.get_rank() == 0:
        box = [{"lr": 3e-4, "layers": [64, 64]}, "run-0042"]  # say, read from a file
    dist.broadcast_object_list(box, src=0)
    print(box)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-gather-object:
#
# torch.distributed.gather_object
# -------------------------------
# Collects one object per rank on rank ``dst`` only: that rank passes a list of
# ``world_size`` slots, the others pass ``None`` and keep it.

# torchrun --nproc-per-node=2 report.py
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    slots = [None] * dist.get_world_size() if rank == 0 else None
    dist.gather_object({"rank": rank, "val_loss": round(0.5 / (rank + 1), 3)}, slots, dst=0)
    print("slots:", slots)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-scatter-object-list:
#
# torch.distributed.scatter_object_list
# -------------------------------------
# The reverse: rank ``src`` gives a list of ``world_size`` objects and rank ``r``
# receives item ``r`` into the first slot of its own one-element output list.

# torchrun --nproc-per-node=2 hand_out.py
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    world_size = dist.get_world_size()
    work = [{"files": [f"part-{i}"]} for i in range(world_size)] if dist.get_rank() == 0 else None
    mine = [None]
    dist.scatter_object_list(mine, work, src=0)
    print("my share:", mine[0])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-monitored-barrier:
#
# torch.distributed.monitored_barrier
# -----------------------------------
# A barrier, implemented only by gloo, in which rank 0 waits for each other
# rank with a ``timeout`` and, when one does not arrive, raises an error naming
# it (``wait_all_ranks=True`` lists them all): a way to find the stuck rank.
# gloo also logs the failure from C++, with a timestamp; ``TORCH_CPP_LOG_LEVEL``,
# read when torch is imported, keeps those lines out.

# torchrun --nproc-per-node=2 find_straggler.py
import datetime
import os
import time

os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "FATAL")  # before importing torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    dist.monitored_barrier()
    print("everyone passed the first barrier")
    if dist.get_rank() == 0:
        try:
            dist.monitored_barrier(timeout=datetime.timedelta(milliseconds=250))
        except RuntimeError as err:
            print("RuntimeError:", str(err).splitlines()[0])
    else:
        time.sleep(1.0)  # a rank stuck elsewhere never reaches the barrier in time
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-all-reduce:
#
# torch.distributed.all_reduce
# ----------------------------
# With ``async_op=True`` it (like other collectives) returns a ``Work`` at once;
# ``get_future().then(fn)`` chains ``fn`` to run on the result (the future's
# ``value()`` is the list of output tensors), and ``wait()`` on the new future
# returns what ``fn`` returned.

# torchrun --nproc-per-node=2 average_async.py
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    world_size = dist.get_world_size()
    grad = torch.tensor([1.0, 2.0]) * (dist.get_rank() + 1)
    work = dist.all_reduce(grad, async_op=True)
    mean = work.get_future().then(lambda fut: fut.value()[0] / world_size)
    print(f"{type(work).__name__} -> {type(mean).__name__}, mean: {mean.wait()}")
    print("the input now holds the sum:", grad)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-all-gather-into-tensor:
#
# torch.distributed.all_gather_into_tensor
# ----------------------------------------
# Every rank's tensor, joined into one flat output ``world_size`` times as long.
# It and its siblings ``reduce_scatter_tensor`` and ``gather_into_tensor`` are
# now plain aliases of ``all_gather_single``, ``reduce_scatter_single`` and
# ``gather_single``, kept for existing code and silent; in 2.14 each warned
# that it was deprecated (``FutureWarning``). The block calls all three in a
# world of one process (gloo, with a store in this process's memory, so no
# port); gloo has no ``gather_single``, which the third call shows. Below it,
# what 2.14.1 printed for the same code.
import warnings

import torch
import torch.distributed as dist

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
mine, out = torch.arange(3.0), torch.empty(3)
calls = {
    "all_gather_into_tensor": lambda: dist.all_gather_into_tensor(out, mine),
    "reduce_scatter_tensor": lambda: dist.reduce_scatter_tensor(out, mine),
    "gather_into_tensor": lambda: dist.gather_into_tensor(out, mine, dst=0),
}
for name, call in calls.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            result = f"out = {out.tolist()}"
        except RuntimeError as err:
            result = f"RuntimeError: {err}"
    said = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught) or "no warning"
    print(f"{name}: {result}\n    {said}")
dist.destroy_process_group()

# %%
# .. torch-outputs:: api-distributed-all-gather-into-tensor
#    :releases: 2.14.1

# %%
# .. _api-nn-parallel-distributeddataparallel-register-comm-hook:
#
# torch.nn.parallel.DistributedDataParallel.register_comm_hook
# ------------------------------------------------------------
# Replaces how DDP reduces each gradient bucket: ``hook(state, bucket)`` gets a
# ``GradBucket`` (its flat ``buffer()``) and returns a future of the reduced
# tensor, and a model takes only one hook (a second call raises). The hook below
# averages through ``all_reduce``'s future; each rank checks the result against
# one process on the whole batch.

# torchrun --nproc-per-node=2 comm_hook.py
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def averaging_hook(group, bucket):
    group = group or dist.group.WORLD  # state=None means the default group
    flat = bucket.buffer() / group.size()
    work = dist.all_reduce(flat, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    inputs = torch.randn(8, 4)
    layer = nn.Linear(4, 2)  # same seed: same start weights on every rank
    whole = copy.deepcopy(layer)  # the same start, for one process on the whole batch
    model = DDP(layer)
    model.register_comm_hook(state=None, hook=averaging_hook)
    model(inputs.chunk(world_size)[rank]).pow(2).mean().backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters()])
    everyone = [torch.empty_like(grads) for _ in range(world_size)]
    dist.all_gather(everyone, grads)
    print("gradients equal on all ranks:", all(torch.equal(everyone[0], g) for g in everyone))
    whole(inputs).pow(2).mean().backward()
    expected = torch.cat([p.grad.flatten() for p in whole.parameters()])
    torch.testing.assert_close(grads, expected)
    print("the averaged gradients match one process on the whole batch")
    del model  # free DDP before its process group
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-algorithms-ddp-comm-hooks-default-hooks-fp16-compress-hook:
#
# torch.distributed.algorithms.ddp_comm_hooks.default_hooks.fp16_compress_hook
# ----------------------------------------------------------------------------
# A built-in hook that casts each bucket to float16 before the all-reduce and
# back afterwards: half the bytes on the wire, at the price of float16 rounding
# (the difference from the exact gradient is printed below).

# torchrun --nproc-per-node=2 fp16_hook.py
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    inputs = torch.randn(8, 4)
    layer = nn.Linear(4, 2)
    whole = copy.deepcopy(layer)  # for the exact gradient, in one process
    model = DDP(layer)
    model.register_comm_hook(state=None, hook=default_hooks.fp16_compress_hook)
    model(inputs.chunk(world_size)[rank]).pow(2).mean().backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters()])
    everyone = [torch.empty_like(grads) for _ in range(world_size)]
    dist.all_gather(everyone, grads)
    print("gradients equal on all ranks:", all(torch.equal(everyone[0], g) for g in everyone))
    print("dtype after the hook:", grads.dtype)
    whole(inputs).pow(2).mean().backward()
    exact = torch.cat([p.grad.flatten() for p in whole.parameters()])
    print(f"largest difference from the exact gradient: {(grads - exact).abs().max():.1e}")
    del model  # free DDP before its process group
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-utils-data-distributed-distributedsampler:
#
# torch.utils.data.distributed.DistributedSampler
# -----------------------------------------------
# Deals each rank its share of the dataset's indices, padded by repeating
# indices when the length does not divide evenly; given ``num_replicas`` and
# ``rank`` it needs no process group. The shuffle is seeded by ``seed`` plus the
# epoch, so call ``set_epoch`` every epoch or each epoch repeats the same order.
from torch.utils.data.distributed import DistributedSampler

dataset = list(range(10))
for epoch in (0, 1):
    for rank in (0, 1):
        sampler = DistributedSampler(dataset, num_replicas=2, rank=rank, shuffle=True, seed=0)
        sampler.set_epoch(epoch)
        print(f"epoch {epoch}, rank {rank}: {list(sampler)}")
padded = DistributedSampler(dataset, num_replicas=3, rank=1, shuffle=False)
print("10 items, 3 replicas, rank 1, no shuffle:", list(padded))  # index 0 again: padding

# %%
# .. _api-distributed-get-backend:
#
# torch.distributed.get_backend
# -----------------------------
# Names the backend of the default group, or of ``group=``, as a lower-case
# string equal to a ``dist.Backend`` constant; before ``init_process_group`` it
# raises ``ValueError``. ``get_backend_config()`` shows which backend serves
# each device type: here the ``"gloo"`` group is registered for both.

# torchrun --nproc-per-node=2 which_backend.py
import torch.distributed as dist


def main():
    try:
        dist.get_backend()
    except ValueError as err:
        print("before init:", err)
    dist.init_process_group("gloo")
    print("default group:", dist.get_backend(), "| WORLD:", dist.get_backend(dist.group.WORLD))
    print("equals dist.Backend.GLOO:", dist.get_backend() == dist.Backend.GLOO)
    print("per device type:", dist.get_backend_config())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-is-initialized:
#
# torch.distributed.is_initialized
# --------------------------------
# ``True`` between ``init_process_group`` and ``destroy_process_group``: the
# check a library makes before calling ``get_rank`` and friends, which raise
# without a default group.

# torchrun --nproc-per-node=2 lifecycle.py
import torch.distributed as dist


def main():
    print("before init:", dist.is_initialized())
    dist.init_process_group("gloo")
    print("after init: ", dist.is_initialized())
    dist.destroy_process_group()
    print("after destroy:", dist.is_initialized())


if __name__ == "__main__":
    main()

# %%
# .. _api-distributed-is-gloo-available:
#
# torch.distributed.is_gloo_available
# -----------------------------------
# Whether this build of PyTorch includes the gloo backend (CPU tensors, and the
# one behind ``monitored_barrier``); ``is_backend_available(name)`` asks the same
# question for any backend name.
import torch.distributed as dist

print("gloo:", dist.is_gloo_available(), "| via name:", dist.is_backend_available("gloo"))

# %%
# .. _api-distributed-is-nccl-available:
#
# torch.distributed.is_nccl_available
# -----------------------------------
# Whether this build includes NCCL, the backend for NVIDIA GPUs, whether or not
# the machine has one: the output below shows what the wheel that built this page
# answers. CUDA wheels include NCCL, so they answer ``True`` on a machine without
# a GPU too; CPU-only wheels (``+cpu``) are built without it and answer ``False``.
import torch
import torch.distributed as dist

print("torch", torch.__version__, "| CUDA build:", torch.version.cuda)
print("nccl built in:", dist.is_nccl_available())
if dist.is_nccl_available() and torch.cuda.is_available():
    print("NCCL version:", torch.cuda.nccl.version(), "| GPUs:", torch.cuda.device_count())
else:
    print("skipped: NCCL version and GPU count (no NCCL or no CUDA GPU here)")

# %%
# .. _api-distributed-nccl-backend-choice:
#
# Which NCCL process group ``"nccl"`` builds
# ------------------------------------------
# ``init_process_group("nccl")`` now builds the NCCL 2 process group
# (``ProcessGroupNCCL2``) unless ``TORCH_DIST_USE_NCCL2=0`` is set before torch
# starts. In 2.14 it was the other way round: the older group, and NCCL 2
# only with ``TORCH_DIST_USE_NCCL2=1``. The name ``"nccl-legacy"`` (registered
# by both releases, checked) always builds the older one. This machine has no
# GPU to build either, so the block prints the lines of torch's own source that
# choose, from the installed release; below it, the same from 2.14.1.
import inspect

import torch
import torch.distributed.distributed_c10d as c10d

source = inspect.getsource(c10d._register_builtin_nccl_backend).splitlines()
start = next(n for n, line in enumerate(source) if "creator_fn = (" in line)
print("torch", torch.__version__)
print(*(line.strip() for line in source[start : start + 5]), sep="\n")
legacy = inspect.getsource(c10d._register_builtin_nccl_legacy_backend)
print('"nccl-legacy" builds:', legacy.split(",")[1].strip())

# %%
# .. torch-outputs:: api-distributed-nccl-backend-choice
#    :releases: 2.14.1

# %%
# .. _api-distributed-all-reduce-multigpu:
#
# torch.distributed.all_reduce_multigpu (removed)
# -----------------------------------------------
# Older tutorials pass a list of tensors, one per GPU of the process, to the
# ``*_multigpu`` collectives. The installed PyTorch no longer has them: run
# one process per GPU and call the plain collective, as every page here does.
import torch
import torch.distributed as dist

print("torch", torch.__version__)
for name in ("all_reduce", "all_gather", "broadcast", "reduce", "reduce_scatter"):
    print(f"{name + '_multigpu':25} present: {hasattr(dist, name + '_multigpu')}")
