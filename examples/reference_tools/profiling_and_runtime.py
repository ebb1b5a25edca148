r"""
Profiling and runtime reference
===============================

The runtime plumbing around models: profiler, futures, custom operators,
DLPack, shared-memory processes, the compute libraries, streams and events;
GPU-only entries print what they skipped on a CPU-only machine.

Summary
-------

======================================================  ==================================================
You want                                                Call
======================================================  ==================================================
to record the operators a block runs                    :entry:`torch.profiler.profile <api-profiler-profile>`
to label a block so it gets its own row                 :entry:`torch.profiler.record_function <api-profiler-record-function>`
to aggregate and print the recorded times               :entry:`prof.key_averages().table() <api-profiler-key-averages>`
to profile a few steps of a training loop, not all      :entry:`torch.profiler.schedule <api-profiler-schedule>`, ``prof.step()``
to count a model's FLOPs, forward and backward          :entry:`FlopCounterMode <api-flop-counter>`
to time a statement with PyTorch's own timer            :entry:`torch.utils.benchmark.Timer <api-utils-benchmark-timer>`, ``blocked_autorange()``
to lay several timings out as one table                 :entry:`torch.utils.benchmark.Compare <api-utils-benchmark-compare>`
to name ops on an Nsight Systems timeline (CUDA)        :entry:`autograd.profiler.emit_nvtx() <api-autograd-profiler-emit-nvtx>`
to hand a result from one thread or process to another  :entry:`torch.futures.Future <api-futures-future>`
to chain a callback onto a pending result               :entry:`torch.futures.Future.then <api-future-then>`
one future for a list of futures                        :entry:`torch.futures.collect_all <api-futures-collect-all>`
to block for a list of futures and get their values     :entry:`torch.futures.wait_all <api-futures-wait-all>`
to register a Python function as an operator            :entry:`torch.library.custom_op <api-library-custom-op>`
to give the compiler the op's output metadata           :entry:`torch.library.register_fake <api-library-register-fake>`
to define a schema and register kernels per device      :entry:`torch.library.Library <api-library-library>`
to export a tensor as a DLPack capsule                  :entry:`torch.utils.dlpack.to_dlpack <api-utils-dlpack>`
to pass tensors between processes via shared memory     :entry:`torch.multiprocessing <api-multiprocessing>`
to let child processes write into a tensor              :entry:`torch.Tensor.share_memory_ <api-share-memory>`
what this build can use (MKL, oneDNN, cuDNN, MPS)       :entry:`torch.backends.mkl.is_available() <api-torch-backends>`
to log each MKL call                                    :entry:`torch.backends.mkl.verbose <api-backends-mkl-verbose>`
to trade float32 matmul precision for speed             :entry:`set_float32_matmul_precision("high") <api-set-float32-matmul-precision>`
to overlap and order CUDA work; time it with events     :entry:`torch.cuda.Stream <api-cuda-stream>`
the same for any accelerator                            :entry:`torch.Stream() <api-torch-stream>`, ``torch.Event``
page-locked memory for fast, async copies to a GPU      :entry:`torch.Tensor.pin_memory <api-tensor-pin-memory>`
======================================================  ==================================================
"""

# %%
# .. _api-profiler-profile:
#
# torch.profiler.profile
# ----------------------
# A context manager that records every operator run inside it, with CPU time,
# and CUDA time when ``ProfilerActivity.CUDA`` is listed and a GPU is present;
# it is the successor of ``torch.autograd.profiler.profile``, which still works.
import torch
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
mat = torch.randn(128, 128)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    for _ in range(3):
        (mat @ mat).relu_()
ops = prof.key_averages()
print("operators seen:", sorted({evt.key for evt in ops}))

# %%
# .. _api-profiler-record-function:
#
# torch.profiler.record_function
# ------------------------------
# Wraps a block in a named range that shows up as its own row in the profile
# (and in a trace viewer), so time can be attributed to parts of your code.
import torch
from torch.profiler import profile, record_function

torch.manual_seed(0)
batch = torch.randn(64, 256)
w1, w2 = torch.randn(256, 256), torch.randn(256, 10)
with profile() as prof:
    with record_function("encoder"):
        hidden = (batch @ w1).relu()
    with record_function("head"):
        logits = hidden @ w2
for evt in prof.key_averages():
    if evt.key in ("encoder", "head"):
        print(f"{evt.key:8} calls={evt.count}  cpu_time_total={evt.cpu_time_total:.0f} us")

# %%
# .. _api-profiler-key-averages:
#
# torch.profiler.profile.key_averages
# -----------------------------------
# Aggregates the recorded events by operator name (or by input shape with
# ``group_by_input_shape=True`` after ``record_shapes=True``); ``table()``
# formats them, sorted and cut to ``row_limit`` rows. The times are this
# machine's, from this build.
import torch
from torch.profiler import profile, record_function

torch.manual_seed(0)
x = torch.randn(256, 256)
with profile(record_shapes=True) as prof, record_function("three_matmuls"):
    for _ in range(3):
        x = torch.tanh(x @ x.T / 256)
print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=5, max_name_column_width=20))

# %%
# .. _api-profiler-schedule:
#
# torch.profiler.schedule
# -----------------------
# Profiling a whole training run records far more than anyone reads, and its
# first steps are not typical (allocations, lazy initialisation, autotuning).
# A ``schedule`` skips ``wait`` steps, runs the profiler without keeping
# anything for ``warmup`` steps, then records ``active`` steps, ``repeat``
# times (0: until the loop ends); the loop calls ``prof.step()`` after each
# training step to move it on. At the end of each recorded window the profiler
# calls ``on_trace_ready`` with itself: read ``key_averages()`` there, or write
# the window's timeline with ``export_chrome_trace`` (open it in Perfetto or
# ``chrome://tracing``); ``torch.profiler.tensorboard_trace_handler(folder)``
# is a ready-made handler that writes one file per window.
import tempfile
from pathlib import Path

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 128), torch.randint(0, 10, (32,))


def train_step():
    opt.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()


with tempfile.TemporaryDirectory() as folder:

    def trace_ready(prof):
        trace = Path(folder, f"window_{prof.step_num}.json")
        prof.export_chrome_trace(str(trace))
        seen = {e.key: e.count for e in prof.key_averages()}
        print(
            f"on_trace_ready at step_num {prof.step_num}: {trace.stat().st_size:,} bytes of trace"
        )
        for name in ("train_step", "aten::addmm", "Optimizer.step#SGD.step"):
            print(f"  {name:24} ran {seen.get(name, 0)} times in the window")

    steps = schedule(wait=1, warmup=1, active=2, repeat=1)
    with profile(
        activities=[ProfilerActivity.CPU], schedule=steps, on_trace_ready=trace_ready
    ) as prof:
        for _ in range(6):
            with record_function("train_step"):
                train_step()
            prof.step()

# %%
# .. _api-flop-counter:
#
# torch.utils.flop_counter.FlopCounterMode
# ----------------------------------------
# Counts the floating-point operations of what runs inside it, from the shapes
# alone: it times nothing, so the count is the same on every device. It knows
# the matrix products, convolutions and attention, and leaves elementwise ops
# out; it counts per operator and per module, forward and backward, and prints
# a table on exit unless ``display=False``. A ``Linear`` forward is an
# ``addmm`` of 2 x batch x in x out; its backward does the same work once for
# the weight's gradient and once more for the input's, which the first layer
# skips here because ``x`` does not require grad.
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10))
x = torch.randn(64, 512)
counter = FlopCounterMode(display=False)
with counter:
    model(x).sum().backward()
counts = counter.get_flop_counts()
print(f"forward and backward: {counter.get_total_flops() / 1e6:,.1f} MFLOP")
for op, flops in counts["Global"].items():
    print(f"  {op!s:11} {flops / 1e6:6,.1f} MFLOP")
for name in ("Sequential.0", "Sequential.2"):
    print(f"  {name}: {sum(counts[name].values()) / 1e6:6,.1f} MFLOP")
by_hand = 2 * 64 * (512 * 1024 + 1024 * 10)
print(f"forward by hand, 2 x batch x in x out per Linear: {by_hand / 1e6:,.1f} MFLOP")

# %%
# .. _api-autograd-profiler-emit-nvtx:
#
# torch.autograd.profiler.emit_nvtx
# ---------------------------------
# Marks every operator (forward and backward) with an NVTX range, so that
# NVIDIA Nsight Systems shows PyTorch op names on its GPU timeline; it does
# nothing useful without CUDA: in a build without it, it raises.
import torch

if torch.cuda.is_available():
    x = torch.randn(512, 512, device="cuda", requires_grad=True)
    with torch.autograd.profiler.emit_nvtx():
        (x @ x).sum().backward()
    print("ranges emitted; run under `nsys profile -t cuda,nvtx python script.py` to see them")
else:
    try:
        with torch.autograd.profiler.emit_nvtx():
            pass
    except (AssertionError, RuntimeError) as err:
        print(f"skipped, no CUDA here: {type(err).__name__}: {err}")

# %%
# .. _api-futures-future:
#
# torch.futures.Future
# --------------------
# A placeholder for a value produced elsewhere (another thread, an RPC, a
# collective): one side calls ``set_result``, the other ``wait()`` blocks until
# it is there.
import threading

import torch


def produce_later(fut):
    fut.set_result(torch.full((2,), 7.0))


pending = torch.futures.Future()
worker = threading.Thread(target=produce_later, args=(pending,))
worker.start()
print("value:", pending.wait())
worker.join()
print("done:", pending.done())

# %%
# .. _api-future-then:
#
# torch.futures.Future.then
# -------------------------
# Attaches a callback that receives the finished future and returns a new
# future for the callback's result, so steps can be chained without blocking.
import torch

raw = torch.futures.Future()
chained = raw.then(lambda f: f.value() * 2).then(lambda f: f.value() + 1)
raw.set_result(torch.tensor([1.0, 2.0]))
chained.wait()

# %%
# .. _api-futures-collect-all:
#
# torch.futures.collect_all
# -------------------------
# Combines several futures into one that completes when all of them have,
# and whose value is the list of the (completed) input futures.
import torch

first, second = torch.futures.Future(), torch.futures.Future()
both = torch.futures.collect_all([first, second])
first.set_result("loss")
print("after one result, done:", both.done())
second.set_result(0.25)
print([f.value() for f in both.wait()])

# %%
# .. _api-futures-wait-all:
#
# torch.futures.wait_all
# ----------------------
# Blocks until every future in the list is done and returns their values
# directly, re-raising the first error if one failed.
import torch

futs = [torch.futures.Future() for _ in range(3)]
for i, fut in enumerate(futs):
    fut.set_result(torch.tensor(i * 10))
torch.futures.wait_all(futs)

# %%
# .. _api-library-custom-op:
#
# torch.library.custom_op
# -----------------------
# Registers a Python function as a real operator, ``torch.ops.<namespace>.<name>``,
# that ``torch.compile`` treats as one opaque call instead of tracing into it;
# the type hints become its schema.
import torch


@torch.library.custom_op("cheatsheet::clip_rows", mutates_args=())
def clip_rows(x: torch.Tensor, max_norm: float) -> torch.Tensor:
    norms = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return x * (max_norm / norms).clamp(max=1.0)


rows = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
print(clip_rows(rows, 1.0))
print("schema:", torch.ops.cheatsheet.clip_rows.default._schema)

# %%
# .. _api-library-register-fake:
#
# torch.library.register_fake
# ---------------------------
# Tells the compiler the output's shape and dtype without running the kernel,
# which ``torch.compile`` and ``torch.export`` need to trace through the op;
# ``torch.library.opcheck`` then tests the registration. The ``eager`` backend
# keeps this cheap: it checks the tracing, not the speed.
import torch


@torch.library.custom_op("cheatsheet::scaled_rows", mutates_args=())
def scaled_rows(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x * scale  # stands in for a kernel the compiler cannot see into


@scaled_rows.register_fake
def _(x, scale):
    return torch.empty_like(x)


@torch.compile(backend="eager", fullgraph=True)
def pipeline(x):
    return scaled_rows(x, 3.0).sum(dim=-1)


print("compiled:", pipeline(torch.ones(2, 4)))
torch.library.opcheck(scaled_rows, (torch.randn(3, 5), 2.0))
print("opcheck passed")

# %%
# .. _api-library-library:
#
# torch.library.Library
# ---------------------
# The lower-level registration API under ``custom_op``: ``"DEF"`` creates a
# namespace, ``define`` declares a schema, and ``impl`` attaches a kernel per
# dispatch key (``"CPU"``, ``"CUDA"``, ``"Meta"``, ...). An op without a kernel
# for a device fails there with an error naming what is missing. (``"IMPL"``
# mode overrides kernels of existing ops such as ``aten``'s.)
import textwrap

import torch
from torch.library import Library

lib = Library("cheatsheet_lowlevel", "DEF")
lib.define("twice(Tensor x) -> Tensor")
lib.impl("twice", lambda x: x * 2, "CPU")

print(torch.ops.cheatsheet_lowlevel.twice(torch.arange(3.0)))
try:
    torch.ops.cheatsheet_lowlevel.twice(torch.ones(2, device="meta"))
except NotImplementedError as err:
    print("on meta tensors:", textwrap.shorten(str(err), 150))

# %%
# .. _api-utils-dlpack:
#
# torch.utils.dlpack.to_dlpack
# ----------------------------
# Exports a tensor as a one-use DLPack capsule that ``from_dlpack`` imports
# without a copy; this capsule pair is the older interface, and objects with a
# ``__dlpack__`` method (NumPy, CuPy, JAX arrays) go straight into
# :ref:`api-torch-from-dlpack`, as the last lines show.
import numpy as np
import torch
from torch.utils.dlpack import from_dlpack, to_dlpack

original = torch.arange(4.0)
capsule = to_dlpack(original)
view = from_dlpack(capsule)
view[0] = 100.0  # same memory
print(type(capsule).__name__, "->", original)

arr = np.arange(3, dtype=np.float32)
torch.from_dlpack(arr).add_(1)  # writes through to the NumPy array
print("numpy array after the in-place add:", arr)

# %%
# .. _api-multiprocessing:
#
# torch.multiprocessing
# ---------------------
# A drop-in for ``multiprocessing`` that moves tensors through queues via shared
# memory; the sender must stay alive until the receiver has the tensor, hence
# the ``Event``. ``spawn`` children cannot import a function defined in a
# notebook or on a page like this one, so this uses ``fork``, available on Linux.
import torch
import torch.multiprocessing as mp


def produce(queue, received):
    queue.put(torch.arange(4) * 10)
    received.wait()  # keep the shared memory alive until the parent has it


if "fork" in mp.get_all_start_methods():
    ctx = mp.get_context("fork")
    queue, received = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=produce, args=(queue, received))
    child.start()
    print("from the child:", queue.get())
    received.set()
    child.join()
    print("exit code:", child.exitcode)
else:
    print("skipped: no 'fork' here; move produce() to a module and use 'spawn'")

# %%
# .. _api-share-memory:
#
# torch.Tensor.share_memory\_
# ---------------------------
# Moves a tensor's storage into shared memory, so in-place writes by a child
# process are seen by the parent (a forked child otherwise writes to its own
# copy-on-write pages).
import torch
import torch.multiprocessing as mp


def bump(shared, private):
    shared += 1
    private += 1


if "fork" in mp.get_all_start_methods():
    shared, private = torch.zeros(3).share_memory_(), torch.zeros(3)
    child = mp.get_context("fork").Process(target=bump, args=(shared, private))
    child.start()
    child.join()
    print("shared: ", shared, shared.is_shared())
    print("private:", private, private.is_shared())
else:
    print("skipped: no 'fork' start method on this platform")

# %%
# .. _api-torch-backends:
#
# torch.backends
# --------------
# One module per compute library, each saying whether this build has it and
# holding its switches; ``torch.__config__.show()`` prints how the build was
# configured (versions of MKL, oneDNN, OpenMP, CUDA). The output below is the
# torch that built this page; yours prints your own:
import torch

for name, check in [
    ("mkl", torch.backends.mkl.is_available),
    ("mkldnn (oneDNN)", torch.backends.mkldnn.is_available),
    ("openmp", torch.backends.openmp.is_available),
    ("cuda built", torch.backends.cuda.is_built),
    ("cudnn", torch.backends.cudnn.is_available),
    ("mps", torch.backends.mps.is_available),
]:
    print(f"{name:16} {check()}")
print("CPU capability:", torch.backends.cpu.get_cpu_capability())
print("\n".join(torch.__config__.show().splitlines()[:5]))

# %%
# .. _api-backends-mkl-verbose:
#
# torch.backends.mkl.verbose
# --------------------------
# Makes MKL log every call it serves (routine, sizes, time, threads); oneDNN
# has the same as ``torch.backends.mkldnn.verbose``. The log goes to the
# process's standard output below Python, where a notebook or this page cannot
# see it, so the call runs in a child process whose output is captured.
import subprocess
import sys
import textwrap

import torch

child = """
import torch
a = torch.randn(256, 256)
with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
    a @ a
"""
if torch.backends.mkl.is_available():
    log = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    for line in log.stdout.splitlines():
        print(textwrap.fill(line, 100, subsequent_indent="    "))
else:
    print("skipped: this PyTorch build has no MKL (ARM and Apple builds use other BLAS)")

# %%
# .. _api-set-float32-matmul-precision:
#
# torch.set_float32_matmul_precision
# ----------------------------------
# Lets float32 matrix multiplies use a faster, less precise internal format:
# ``"highest"`` (the default, full float32), ``"high"`` (TF32 on NVIDIA GPUs
# since Ampere, which sets ``torch.backends.cuda.matmul.allow_tf32``) or
# ``"medium"`` (bfloat16 where the hardware supports it). ``torch.compile``
# prints a hint to set ``"high"`` when it compiles for a GPU with TF32 units.
import torch

cuda_matmul = torch.backends.cuda.matmul
print("default:", torch.get_float32_matmul_precision(), "| allow_tf32:", cuda_matmul.allow_tf32)
torch.set_float32_matmul_precision("high")
print("now:", torch.get_float32_matmul_precision(), "| allow_tf32:", cuda_matmul.allow_tf32)
torch.set_float32_matmul_precision("highest")  # restore

# %%
# .. _api-cuda-stream:
#
# torch.cuda.Stream
# -----------------
# A CUDA stream is a queue of GPU work; kernels on different streams may
# overlap, ``torch.cuda.stream(s)`` makes ``s`` current for a block,
# ``wait_stream`` orders two streams, and ``torch.cuda.Event(enable_timing=True)``
# pairs time GPU work. Work goes to ``torch.cuda.default_stream()`` unless a
# block says otherwise.
import torch

if torch.cuda.is_available():
    print("default stream:", torch.cuda.default_stream(), "current:", torch.cuda.current_stream())
    side = torch.cuda.Stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a = torch.randn(2048, 2048, device="cuda")
    side.wait_stream(torch.cuda.current_stream())  # ``a`` was made on the default stream
    with torch.cuda.stream(side):
        start.record()
        b = a @ a
        end.record()
    torch.cuda.current_stream().wait_stream(side)
    b.record_stream(torch.cuda.current_stream())  # b is used outside its stream
    end.synchronize()
    print(f"matmul on a side stream: {start.elapsed_time(end):.2f} ms")
else:
    print("skipped: torch.cuda.is_available() is False (CPU-only machine)")

# %%
# .. _api-torch-stream:
#
# torch.Stream
# ------------
# The device-agnostic versions, ``torch.Stream`` and ``torch.Event``, work with
# whatever ``torch.accelerator`` finds (CUDA, ROCm, MPS, XPU, ...), with the
# stream itself as the context manager. Ask with ``check_available=True``: a
# CUDA build of torch names ``cuda`` even on a machine without a GPU.
import torch

acc = torch.accelerator.current_accelerator(check_available=True)
print("accelerator:", acc, "| devices:", torch.accelerator.device_count())
if acc is not None:
    side = torch.Stream(device=acc)
    start = torch.Event(device=acc, enable_timing=True)
    end = torch.Event(device=acc, enable_timing=True)
    a = torch.randn(2048, 2048, device=acc)
    side.wait_stream(torch.accelerator.current_stream())
    with side:
        start.record(side)
        b = a @ a
        end.record(side)
    torch.accelerator.current_stream().wait_stream(side)
    end.synchronize()
    print(f"matmul on a side stream: {start.elapsed_time(end):.2f} ms")
else:
    print("skipped: no accelerator, and CPU streams have no events to time")

# %%
# .. _api-tensor-pin-memory:
#
# torch.Tensor.pin_memory
# -----------------------
# Copies a CPU tensor into page-locked memory, from which copies to a GPU are
# faster and can run asynchronously with ``.to("cuda", non_blocking=True)``;
# ``is_pinned()`` tells. Pinning needs an accelerator: on a CPU-only machine it raises.
import torch

batch = torch.randn(4, 3)
print("pinned:", batch.is_pinned())
if torch.accelerator.is_available():
    pinned = batch.pin_memory()
    on_device = pinned.to(torch.accelerator.current_accelerator(), non_blocking=True)
    print("pinned:", pinned.is_pinned(), "| copied to", on_device.device)
else:
    try:
        batch.pin_memory()
    except RuntimeError as err:
        print(f"skipped, no accelerator here: RuntimeError: {err}")

# %%
# .. _api-utils-benchmark-timer:
#
# torch.utils.benchmark.Timer
# ---------------------------
# PyTorch's own timer for a statement, in the manner of ``timeit``:
# ``blocked_autorange()`` picks how many runs make a block long enough for the clock,
# then times blocks until ``min_run_time`` seconds have passed, and reports the median
# and interquartile range per run. It runs the statement on one thread unless
# ``num_threads=`` says otherwise, and synchronizes an accelerator before each reading
# of the clock, so a GPU's queued work is counted. ``timeit(number)`` runs a fixed
# count instead, and ``adaptive_autorange()`` stops once the spread is small.
import torch
from torch.utils import benchmark

torch.manual_seed(0)
x = torch.randn(128, 128)
timer = benchmark.Timer(stmt="x @ x", globals={"x": x})
m = timer.blocked_autorange(min_run_time=0.5)
print(
    f"{len(m.times)} blocks of {m.number_per_run} runs: "
    f"median {m.median * 1e6:.1f} us per run, IQR {m.iqr * 1e6:.1f} us"
)

# %%
# .. _api-utils-benchmark-compare:
#
# torch.utils.benchmark.Compare
# -----------------------------
# Lays measurements out as one table: a column for each ``description``, a row for
# each ``sub_label``, grouped by thread count, under each ``label``;
# ``trim_significant_figures()`` drops the digits that the spread of the runs cannot
# support. The table states times and no verdict: which is faster, and whether the
# difference exceeds the noise, is left to the reader (this site's ``compare`` helper
# gives that verdict on the pages that time two ways of doing one thing).
import torch
from torch.utils import benchmark

torch.manual_seed(0)
results = []
for threads in (1, 2):
    for n in (64, 512):
        x = torch.randn(n, n)
        timer = benchmark.Timer(
            stmt="x @ x",
            globals={"x": x},
            num_threads=threads,
            label="matrix product",
            sub_label="x @ x",
            description=f"{n}x{n}",
        )
        results.append(timer.blocked_autorange(min_run_time=0.3))
comparison = benchmark.Compare(results)
comparison.trim_significant_figures()
comparison.print()
