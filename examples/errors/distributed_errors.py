r"""
Distributed errors
==================

The messages ``torch.distributed`` raises before any training starts (no process group,
a script started without a launcher, ``nccl`` on a machine without a GPU) and in the
first steps of a model wrapped in ``DistributedDataParallel``.

Summary
-------

===================================================  ==========================================================
You see                                              Fix
===================================================  ==========================================================
Default process group has not been initialized       :entry:`dist.init_process_group("gloo") <errors-no-process-group>` first
environment variable RANK expected, but not set      :entry:`torchrun --nproc-per-node=2 train.py <errors-env-rank>`
failed to listen … EADDRINUSE                        :entry:`torchrun --standalone <errors-address-in-use>`, ``--master-port=29501``
nccl2 requires at least one CUDA device              :entry:`"nccl" if torch.cuda.is_available() else "gloo" <errors-nccl-no-gpu>`
Expected to have finished reduction                  :entry:`find_unused_parameters=True <errors-ddp-unused-parameters>`, or use every parameter
Expected to mark a variable ready only once          :entry:`checkpoint(f, x, use_reentrant=False) <errors-ddp-mark-ready-once>`
\'DistributedDataParallel\' object has no attribute  :entry:`model.module.fc <errors-wrapper-attribute>`
===================================================  ==========================================================
"""

# %%
# .. _errors-no-process-group:
#
# Default process group has not been initialized, please make sure to call init_process_group.
# --------------------------------------------------------------------------------------------
# A ``torch.distributed`` call (``get_rank``, a collective, ``DistributedSampler``
# without ``num_replicas``) ran before this process joined a group.
import torch.distributed as dist

try:
    dist.get_rank()
except ValueError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: call ``init_process_group`` first (a launcher such as ``torchrun`` tells it where
# to meet; here a file, for a world of one) and ``destroy_process_group`` at the end.
import tempfile
from pathlib import Path

import torch.distributed as dist

with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    print("rank", dist.get_rank(), "of", dist.get_world_size())
    dist.destroy_process_group()

# %%
# .. _errors-env-rank:
#
# Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set
# -------------------------------------------------------------------------------------------------------------
# ``init_process_group()`` with no ``init_method`` reads ``RANK``, ``WORLD_SIZE``,
# ``MASTER_ADDR`` and ``MASTER_PORT`` from the environment, which a launcher sets; a
# script started with plain ``python train.py`` has none of them.
import torch.distributed as dist

try:
    dist.init_process_group("gloo")
except ValueError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: start the script with ``torchrun``, which runs one process per rank with the
# variables set (or pass ``init_method``, ``rank`` and ``world_size`` yourself, as above).
# Here ``python -m torch.distributed.run`` (the same program as ``torchrun``) starts two,
# and ``--tee=3`` names each rank's lines. torchrun starts every rank as ``python -u``,
# unbuffered, so a plain ``print`` writes its text and its newline separately and two
# ranks' lines can run together; the script writes each line whole, newline included.
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    import os

    import torch.distributed as dist

    dist.init_process_group("gloo")  # reads RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    line = f"rank {dist.get_rank()} of {dist.get_world_size()}, RANK={os.environ['RANK']}"
    print(line + "\\n", end="")  # one write
    dist.destroy_process_group()
    """
)
with tempfile.TemporaryDirectory() as tmp:
    Path(tmp, "train.py").write_text(script)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--tee=3"]
    run = subprocess.run(
        [*command, "--nproc-per-node=2", "train.py"],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=True,
    )
print("\n".join(sorted(run.stdout.splitlines())))  # the ranks print in any order

# %%
# .. _errors-address-in-use:
#
# The server socket has failed to listen on any local network address … EADDRINUSE, message: address already in use
# -----------------------------------------------------------------------------------------------------------------
# Rank 0 of a job opens a TCP store on ``MASTER_PORT`` (29500 unless told otherwise),
# and only one process can listen on a port. A second job started on the same machine
# with the same port, or a job started while the last one's processes still hold it,
# fails at ``init_process_group`` with this error, which torchrun prints from rank 0.
# Here a first store takes a free port, and a second one asks for the same port.
from datetime import timedelta

import torch.distributed as dist

first = dist.TCPStore(
    "127.0.0.1", 0, is_master=True, wait_for_workers=False
)  # port 0: any free one
try:
    dist.TCPStore("127.0.0.1", first.port, is_master=True, wait_for_workers=False,
                  timeout=timedelta(seconds=5))  # fmt: skip
except dist.DistNetworkError as err:
    print(f"{type(err).__name__}: {err}".replace(str(first.port), "<port>"))

# %%
# Fix: give each job on a machine its own port. ``torchrun --standalone`` (one machine)
# lets the store take a free port itself, ``--master-port=29501`` names another one,
# and a script that sets ``MASTER_PORT`` can ask the system for a free port as below.
# If nothing else should be running, look for a previous job's processes still alive
# (``ps``, ``nvidia-smi``) and stop them.
import socket
from datetime import timedelta

import torch.distributed as dist

first = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
with socket.socket() as probe:  # what the system hands out for port 0 is free now
    probe.bind(("127.0.0.1", 0))
    free_port = probe.getsockname()[1]
second = dist.TCPStore("127.0.0.1", free_port, is_master=True, wait_for_workers=False,
                       timeout=timedelta(seconds=5))  # fmt: skip
print("two stores on one machine, on different ports:", first.port != second.port)

# %%
# .. _errors-nccl-no-gpu:
#
# nccl2 requires at least one CUDA device
# ---------------------------------------
# The ``nccl`` backend moves CUDA tensors between GPUs, and this machine has none; a
# training script written for GPUs meets it on a laptop or a CPU-only CI runner. Where
# ``"nccl"`` names the NCCL 2 process group, as in the newest releases, it words the
# message this way; ``"nccl-legacy"`` (or ``TORCH_DIST_USE_NCCL2=0``) is the old group,
# which says "ProcessGroupNCCL is only supported with GPUs, no GPUs found!" as
# ``"nccl"`` did before (the releases are named above, from the records). The code asks
# for both; a torch that has no ``"nccl-legacy"`` says so.
import tempfile
import warnings
from pathlib import Path

import torch
import torch.distributed as dist

if torch.cuda.is_available():
    print("GPU here: nccl would start; nothing to show")
else:
    for backend in ("nccl", "nccl-legacy"):
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            # A torch built without NCCL (the CPU wheels) first warns that it has none.
            warnings.filterwarnings("ignore", message="Attempted to get default timeout for nccl")
            try:
                dist.init_process_group(
                    backend, init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
                )
            # RuntimeError: a torch built without NCCL, or nccl2; AssertionError: a torch
            # before 2.15, which has no "nccl-legacy"
            except (ValueError, RuntimeError, AssertionError) as err:
                print(f"{backend}: {type(err).__name__}: {err}")
    print("a group was left initialized:", dist.is_initialized())

# %%
# Fix: pick the backend from the hardware (``gloo`` runs on CPUs), or give one per
# device type, ``"cpu:gloo,cuda:nccl"``.
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist

backend = "nccl" if torch.cuda.is_available() else "gloo"
with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        backend, init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    total = torch.ones(2, device="cuda" if backend == "nccl" else "cpu")
    dist.all_reduce(total)
    print(f"backend {dist.get_backend()}: all_reduce ran, {total}")
    dist.destroy_process_group()

# %%
# .. _errors-ddp-unused-parameters:
#
# Expected to have finished reduction in the prior iteration
# -----------------------------------------------------------
# ``DistributedDataParallel`` waits for a gradient of every parameter before it averages
# them across ranks, and some parameters got none: a head this task does not use, a
# branch the forward skipped. The first step passes, the second raises; the message
# ends with the indices of the parameters that got no gradient. Shown here in a world of
# one process, which raises the same.
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head_a = nn.Linear(4, 2)
        self.head_b = nn.Linear(4, 2)  # this task never calls it

    def forward(self, x):
        return self.head_a(self.body(x))


torch.manual_seed(0)
with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    model = DistributedDataParallel(TwoHeads())
    for step in range(2):
        try:
            model(torch.randn(3, 4)).sum().backward()
            print(f"step {step}: ran")
        except RuntimeError as err:
            message = str(err)
            print(f"step {step}: {type(err).__name__}: {message.split('. ')[0]}. …")
            print(next(line for line in message.splitlines() if line.startswith("Parameter")))
    dist.destroy_process_group()

# %%
# Fix: find the parameters by those indices (``TORCH_DISTRIBUTED_DEBUG=DETAIL`` prints
# their names too) and leave them out of the model, or use them; where the unused set
# really changes from step to step, ``find_unused_parameters=True`` has DDP walk the
# graph after each forward to find them, at a cost every step.
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head_a = nn.Linear(4, 2)
        self.head_b = nn.Linear(4, 2)

    def forward(self, x):
        return self.head_a(self.body(x))


torch.manual_seed(0)
names = [name for name, _ in TwoHeads().named_parameters()]
print("indices 4 and 5 are", names[4], "and", names[5])
with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    model = DistributedDataParallel(TwoHeads(), find_unused_parameters=True)
    for step in range(2):
        model(torch.randn(3, 4)).sum().backward()
        print(f"step {step}: ran")
    dist.destroy_process_group()

# %%
# .. _errors-ddp-mark-ready-once:
#
# Expected to mark a variable ready only once
# -------------------------------------------
# ``DistributedDataParallel`` counts each parameter's gradient once per backward. The
# old, reentrant activation checkpointing (``use_reentrant=True``) runs the
# checkpointed part's backward as a second, nested backward, and with
# ``find_unused_parameters=True`` DDP sees its parameters become ready twice. (The
# message names the other causes too: a parameter used outside ``forward``, and the
# same parameters in several reentrant backward passes, such as one layer wrapped by
# two ``checkpoint`` calls.) Shown in a world of one process, which raises the same.
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint


class Checkpointed(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(checkpoint(self.block, x, use_reentrant=True))


torch.manual_seed(0)
with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    model = DistributedDataParallel(Checkpointed(), find_unused_parameters=True)
    try:
        model(torch.randn(3, 4, requires_grad=True)).sum().backward()
    except RuntimeError as err:
        print(f"{type(err).__name__}: {str(err).split('. ')[0]}. …")
    dist.destroy_process_group()

# %%
# Fix: checkpoint with ``use_reentrant=False``, which records the recomputation in
# the same backward, so each gradient arrives once; it is what PyTorch recommends
# for all new code, and it works with ``find_unused_parameters=True``. (If the
# model's graph is the same every step, ``static_graph=True`` in DDP also allows
# reentrant checkpointing.) Here the model also has a head this step does not use, which
# is why it needs ``find_unused_parameters``.
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint


class Checkpointed(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.head = nn.Linear(4, 2)
        self.other_head = nn.Linear(4, 2)  # unused in this task

    def forward(self, x):
        return self.head(checkpoint(self.block, x, use_reentrant=False))


torch.manual_seed(0)
with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    model = DistributedDataParallel(Checkpointed(), find_unused_parameters=True)
    for _ in range(2):
        model(torch.randn(3, 4, requires_grad=True)).sum().backward()
    grad = model.module.block[0].weight.grad
    print("two steps ran; the checkpointed layer has a gradient:", grad is not None)
    dist.destroy_process_group()

# %%
# .. _errors-wrapper-attribute:
#
# \'DistributedDataParallel\' object has no attribute \'…\'
# ---------------------------------------------------------
# A wrapper (``DistributedDataParallel``, ``nn.DataParallel``) holds the model as its
# ``module`` attribute and does not pass other attribute lookups on, so the model's
# own layers and methods are not found on it. The same wrapper adds ``module.`` to
# every key of its state dict (:ref:`errors-module-prefix`).
import tempfile
from pathlib import Path

import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(self.body(x).relu())


with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    model = DistributedDataParallel(Classifier())
    try:
        model.fc
    except AttributeError as err:
        print(f"{type(err).__name__}: {err}")
    dist.destroy_process_group()
try:
    nn.DataParallel(Classifier()).fc
except AttributeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: reach the model through ``.module``, or keep a name for it from before it was
# wrapped (the wrapper shares its parameters, so both see the same weights).
import tempfile
from pathlib import Path

import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(self.body(x).relu())


with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group(
        "gloo", init_method=Path(tmp, "rendezvous").as_uri(), rank=0, world_size=1
    )
    model = Classifier()
    wrapped = DistributedDataParallel(model)
    print("wrapped.module.fc:", wrapped.module.fc)
    print("the same layer:   ", wrapped.module.fc is model.fc)
    dist.destroy_process_group()
