r"""
Devices: CUDA, MPS, XPU, CPU
============================

How to ask each backend what it has, pick a device, move tensors and models, and time GPU work honestly, run on whatever built this page.

Summary
-------

==========================================  ====================================================================================================
You want                                    Call
==========================================  ====================================================================================================
a CUDA (or ROCm) GPU?                       :entry:`torch.cuda.is_available() <pt2-devices-cuda>`, ``device_count()``
its name                                    :entry:`torch.cuda.get_device_name(i) <pt2-devices-cuda>` (guarded)
an Apple GPU?                               :entry:`torch.backends.mps.is_available() <pt2-devices-mps>`, ``is_built()``
an Intel GPU?                               :entry:`torch.xpu.is_available() <pt2-devices-xpu>`
any accelerator                             :entry:`current_accelerator(check_available=True) <pt2-devices-accelerator>` (``torch.accelerator``)
every usable device, best first             :entry:`cheatsheet.available_devices() <pt2-devices-pick>`
the best device                             :entry:`cheatsheet.pick_device() <pt2-devices-pick>`
a forced device                             :entry:`CHEATSHEET_DEVICE=cpu <pt2-devices-force>`; a device not here raises
move data                                   :entry:`x.to(device) <pt2-devices-move>` (copy unless already there), ``model.to(device)`` (in place)
tensors on two devices in one operation     :entry:`RuntimeError <pt2-devices-mix>`, except 0-dim CPU tensors
MPS ops without a kernel                    :entry:`PYTORCH_ENABLE_MPS_FALLBACK=1 <pt2-devices-mps-fallback>` before starting Python
honest GPU timings                          :entry:`cheatsheet.synchronize(device) <pt2-devices-synchronize>` before each clock read
a timing that synchronizes for you          :entry:`cheatsheet.benchmark(fn, *args) <pt2-devices-benchmark>`
what a CUDA box or a Mac would print        :entry:`torch.cuda.is_available() <pt2-devices-elsewhere>` and the rest, elsewhere
only some GPUs seen by a process            :entry:`CUDA_VISIBLE_DEVICES=2,3 python train.py <pt2-devices-visible>`, renumbered from ``cuda:0``
==========================================  ====================================================================================================
"""

# %%
# .. _pt2-devices-cuda:
#
# Is there an NVIDIA (or AMD) GPU?
# --------------------------------
# ``torch.cuda.is_available()`` is the check; ROCm builds answer it too, since
# they reuse the ``cuda`` device name. Ask for names and capabilities only once
# it says yes: those calls raise on a machine without a GPU.
import torch

print("torch.cuda.is_available():", torch.cuda.is_available())
print("torch.cuda.device_count(): ", torch.cuda.device_count())
print("CUDA version of this build:", torch.version.cuda)
if torch.cuda.is_available():
    for index in range(torch.cuda.device_count()):
        name = torch.cuda.get_device_name(index)
        major, minor = torch.cuda.get_device_capability(index)
        print(f"  cuda:{index}  {name}  (compute capability {major}.{minor})")
else:
    print("skipped get_device_name / get_device_capability: no CUDA device here")

# %%
# .. _pt2-devices-mps:
#
# Is there an Apple GPU (MPS)?
# ----------------------------
# Two questions: was this PyTorch compiled with Metal support (``is_built``),
# and can it use a GPU right now (``is_available``: needs Apple silicon and a
# recent macOS). Only a macOS wheel answers yes to the first.
import torch

print("torch.backends.mps.is_built():    ", torch.backends.mps.is_built())
print("torch.backends.mps.is_available():", torch.backends.mps.is_available())

# %%
# .. _pt2-devices-xpu:
#
# Is there an Intel GPU (XPU)?
# ----------------------------
# ``torch.xpu`` mirrors ``torch.cuda`` for Intel Arc and Data Center GPUs. It
# has prebuilt wheels since PyTorch 2.5, so it is newer than the PyTorch 2.0
# documentation; on other builds the checks simply answer no.
import torch

print("torch.xpu.is_available():", torch.xpu.is_available())
print("torch.xpu.device_count():", torch.xpu.device_count())

# %%
# .. _pt2-devices-accelerator:
#
# One question for every backend: ``torch.accelerator``
# -----------------------------------------------------
# ``torch.accelerator`` (added in PyTorch 2.6, long after the 2.0 docs) answers
# for whichever accelerator this build targets, so device-agnostic code need not test
# ``cuda``, ``mps`` and ``xpu`` in turn. ``current_accelerator()`` is a
# compile-time answer: ``None`` on a CPU-only build, but ``cuda`` for a CUDA
# build even on a machine with no GPU (as this site's build shows below); pass
# ``check_available=True`` (a later addition than the module) to ask the
# driver as well.
import torch

print("is_available():       ", torch.accelerator.is_available())
print("device_count():       ", torch.accelerator.device_count())
print("current_accelerator():", torch.accelerator.current_accelerator())
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator if accelerator is not None else torch.device("cpu")
print("device to use:", device)

# %%
# .. _pt2-devices-pick:
#
# What this machine has, best first
# ---------------------------------
# ``cheatsheet.available_devices()`` lists every usable device, ``"cpu"``
# last; ``pick_device()`` returns the best one (CUDA, then MPS, then XPU,
# then CPU). The other pages of this site run on ``pick_device()``.
from cheatsheet import available_devices, pick_device

print("available_devices():", available_devices())
print("pick_device():      ", pick_device())
print("pick_device('cpu'): ", pick_device("cpu"))

# %%
# .. _pt2-devices-force:
#
# Force a device with ``CHEATSHEET_DEVICE``
# -----------------------------------------
# The environment variable overrides the automatic choice, so a GPU machine can
# build the CPU view of the site. A malformed value, or a device the machine
# lacks, raises ``ValueError`` rather than quietly running somewhere else.
import os

from cheatsheet import ENV_VAR, pick_device

saved = os.environ.get(ENV_VAR)
try:
    for value in ("cpu", "gpu", "cuda:3"):
        os.environ[ENV_VAR] = value
        try:
            print(f"{ENV_VAR}={value!r:9} -> {pick_device()}")
        except ValueError as err:
            print(f"{ENV_VAR}={value!r:9} -> ValueError: {err}")
finally:
    if saved is None:
        os.environ.pop(ENV_VAR, None)
    else:
        os.environ[ENV_VAR] = saved

# %%
# .. _pt2-devices-move:
#
# Move tensors and models
# -----------------------
# ``tensor.to(device)`` returns a copy on that device (or the tensor itself
# when it is already there). ``module.to(device)`` moves the parameters in
# place and returns the same module, so ``model = model.to(device)`` and
# ``model.to(device)`` do the same thing.
import torch

from cheatsheet import pick_device

device = pick_device()
x = torch.randn(4, 3)
model = torch.nn.Linear(3, 2)

x_dev = x.to(device)
print("tensor on:", x_dev.device)
print("x.to('cpu') is x (already there, no copy):", x.to("cpu") is x)
print("module.to returns the same module:", model.to(device) is model)
print("parameters on:", {p.device for p in model.parameters()})
print("output on:", model(x_dev).device)
print("back to the host for numpy:", type(model(x_dev).detach().cpu().numpy()).__name__)

# %%
# .. _pt2-devices-mix:
#
# Tensors on different devices do not mix
# ---------------------------------------
# An operation needs its tensors on one device; PyTorch does not copy for you.
# The ``meta`` device (shapes only, no data) exists everywhere, so it shows the
# error on this machine too. Zero-dimensional CPU tensors are the exception:
# they may join a GPU operation as scalars.
import torch

on_cpu = torch.ones(3)
on_meta = torch.ones(3, device="meta")
try:
    on_cpu + on_meta
except RuntimeError as err:
    print("RuntimeError:", str(err).splitlines()[0])
print("a 0-dim CPU tensor joins:", (on_meta + torch.tensor(2.0)).device)

# %%
# .. _pt2-devices-mps-fallback:
#
# Operations MPS lacks: ``PYTORCH_ENABLE_MPS_FALLBACK``
# -----------------------------------------------------
# A few operators have no Metal kernel. By default calling one on an ``mps``
# tensor raises ``NotImplementedError``; with ``PYTORCH_ENABLE_MPS_FALLBACK=1``
# set in the environment before ``import torch``, PyTorch copies the inputs to the
# CPU, runs the CPU kernel and copies back, with a warning. That keeps code
# running, but each fallback is a round trip through host memory.
import os

import torch

print("PYTORCH_ENABLE_MPS_FALLBACK =", os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK", "(unset)"))
if torch.backends.mps.is_available():
    x = torch.randn(1000, device="mps")
    print("sum on MPS:", x.sum().item(), "on", x.device)
else:
    print("skipped the MPS run: this machine has no Apple GPU")

# %%
# .. _pt2-devices-synchronize:
#
# Wait for the device before reading the clock
# --------------------------------------------
# GPU kernels run asynchronously: a call returns as soon as the work is queued.
# A timer read without ``cheatsheet.synchronize(device)`` (which calls
# ``torch.cuda.synchronize`` and friends) measures only the queuing. On the CPU
# work finishes before the call returns, so there the two numbers agree; on a
# GPU the first is far below the second.
import time

import torch

from cheatsheet import pick_device, synchronize

device = pick_device()
a = torch.randn(512, 512, device=device)
b = torch.randn(512, 512, device=device)
a @ b  # first call: lazy initialisation, kept out of the timing
synchronize(device)

start = time.perf_counter()
for _ in range(20):
    c = a @ b
queued_s = time.perf_counter() - start
synchronize(device)
finished_s = time.perf_counter() - start
print(f"device: {device}")
print(f"20 matmuls, clock read before synchronize: {queued_s * 1e3:.2f} ms")
print(f"20 matmuls, clock read after synchronize:  {finished_s * 1e3:.2f} ms")

# %%
# .. _pt2-devices-benchmark:
#
# ``cheatsheet.benchmark`` synchronizes for you
# ---------------------------------------------
# It synchronizes before every clock read (and uses CUDA events on a CUDA
# device), so its median includes the device's work; ``cheatsheet.compare``
# does the same. It finds the device from the tensor arguments; pass
# ``device=`` when the timed function is a closure without any. The stamp
# says which machine produced the number.
import torch

from cheatsheet import benchmark, environment, pick_device

device = pick_device()
a = torch.randn(512, 512, device=device)
b = torch.randn(512, 512, device=device)
print(benchmark(torch.matmul, a, b, label="512x512 matmul", budget_s=0.5))
environment()

# %%
# .. _pt2-devices-elsewhere:
#
# What the checks print elsewhere
# -------------------------------
# Typical output on other machines, **not measured by this build** (names and
# counts depend on the machine):
#
# ===========================================  ===============================  ======================
# Check                                        CUDA box (2 GPUs)                Mac with Apple silicon
# ===========================================  ===============================  ======================
# ``torch.cuda.is_available()``                ``True``                         ``False``
# ``torch.cuda.device_count()``                ``2``                            ``0``
# ``torch.cuda.get_device_name(0)``            ``'NVIDIA H100 80GB HBM3'``      raises (no CUDA)
# ``torch.backends.mps.is_built()``            ``False``                        ``True``
# ``torch.backends.mps.is_available()``        ``False``                        ``True``
# ``torch.xpu.is_available()``                 ``False``                        ``False``
# ``torch.accelerator.current_accelerator()``  ``device(type='cuda')``          ``device(type='mps')``
# ``cheatsheet.available_devices()``           ``['cuda:0', 'cuda:1', 'cpu']``  ``['mps', 'cpu']``
# ``cheatsheet.pick_device()``                 ``device(type='cuda')``          ``device(type='mps')``
# time read before synchronize                 far below the real time          far below the real time
# ===========================================  ===============================  ======================

# %%
# .. _pt2-devices-visible:
#
# Choose which GPUs a process sees: ``CUDA_VISIBLE_DEVICES``
# ----------------------------------------------------------
# CUDA reads ``CUDA_VISIBLE_DEVICES`` once, when it initialises, and the process sees
# only the GPUs listed, renumbered from ``cuda:0``: with ``CUDA_VISIBLE_DEVICES=2,3``,
# ``cuda:0`` is the machine's GPU 2. Set it in the shell that starts Python (setting it
# in ``os.environ`` works only before the first CUDA call); an empty value hides every
# GPU, and ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` numbers the GPUs as ``nvidia-smi`` does.
# Here two fresh interpreters count the GPUs they see, without and with an empty value.
import os
import subprocess
import sys

count = "import torch; print(torch.cuda.device_count())"
for visible in (None, ""):
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    if visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible
    done = subprocess.run(
        [sys.executable, "-c", count], env=env, capture_output=True, text=True, check=True
    )
    shown = "unset" if visible is None else repr(visible)
    print(f"CUDA_VISIBLE_DEVICES {shown:5}: {done.stdout.strip()} GPU(s) visible")
