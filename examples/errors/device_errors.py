r"""
Device errors
=============

The messages about where tensors live: on two devices at once, on a GPU this machine
does not have, in a forked process, or in a kernel that failed on the GPU.

Summary
-------

==============================================  ==========================================================
You see                                         Fix
==============================================  ==========================================================
Expected all tensors to be on the same device   :entry:`x.to(next(model.parameters()).device) <errors-same-device>`
Input type (torch.FloatTensor) and weight type  :entry:`x.to(device) <errors-input-weight-device>`, model and input on one device
Found no NVIDIA driver on your system           :entry:`"cuda" if torch.cuda.is_available() else "cpu" <errors-no-nvidia-driver>`
Torch not compiled with CUDA enabled            :entry:`torch.cuda.is_available() <errors-no-nvidia-driver>`, or a CUDA build of torch
no kernel image is available for execution      :entry:`torch.cuda.get_arch_list() <errors-no-kernel-image>`, a wheel for your GPU
Attempting to deserialize object on a CUDA      :entry:`torch.load(f, map_location="cpu") <errors-deserialize-cuda>`
Cannot re-initialize CUDA in forked subprocess  :entry:`mp.get_context("spawn") <errors-cuda-fork>`
CUDA error: device-side assert triggered        :entry:`x.cpu()[index] <errors-device-side-assert>`, ``CUDA_LAUNCH_BLOCKING=1``
Could not run \'aten::…\' with arguments from   :entry:`x.to_dense() <errors-could-not-run-backend>`, ``x.cpu()``, ``PYTORCH_ENABLE_MPS_FALLBACK=1``
\`torch.cuda.amp.autocast\` is deprecated       :entry:`torch.amp.autocast("cuda") <errors-cuda-amp-deprecated>`, ``torch.amp.GradScaler("cuda")``
==============================================  ==========================================================
"""

# %%
# .. _errors-same-device:
#
# Expected all tensors to be on the same device, but …
# ----------------------------------------------------
# An operation got tensors on two devices, most often a model moved to the GPU and
# an input left on the CPU; PyTorch never copies between devices by itself.
import torch
from torch import nn

if torch.cuda.is_available():
    model = nn.Linear(3, 2).cuda()
    x = torch.randn(4, 3)  # still on the CPU
    try:
        model(x)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}")
else:
    print("No GPU here; torch 2.14.1's source words it, for an argument of an operator")
    print("(aten/src/ATen/core/adaption.cpp):")
    print(
        "  Expected all tensors to be on the same device, but got {argument} is on {device},"
        " different from other tensors on {common device} (when checking argument in method"
        " {method})"
    )
    print("and for an elementwise operation (aten/src/ATen/TensorIterator.cpp):")
    print(
        "  Expected all tensors to be on the same device, but found at least two devices,"
        " {device} and {other device}!"
    )

# %%
# Fix: move the inputs to the model's device (read it from a parameter), or move the
# model with ``model.to(device)`` before making the optimizer.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 2).to(device)
x = torch.randn(4, 3)
out = model(x.to(next(model.parameters()).device))
print("output on", out.device, "with shape", tuple(out.shape))

# %%
# .. _errors-input-weight-device:
#
# Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
# ------------------------------------------------------------------------------------------
# A convolution's way of saying that input and layer sit on different devices. The
# "type" in it names the device and the dtype together: ``torch.FloatTensor`` is a
# ``float32`` tensor on the CPU, ``torch.cuda.FloatTensor`` one on the GPU. The usual
# cause is a model moved with ``.cuda()`` and a batch that never was; the names swap
# places when the batch moved and the model did not. When only the dtypes differ, see
# :ref:`errors-conv-input-type`.
import torch
from torch import nn

conv = nn.Conv2d(3, 4, kernel_size=3)
images = torch.rand(2, 3, 8, 8)
if torch.cuda.is_available():
    for moved in ("model", "input"):
        try:
            conv.cuda()(images) if moved == "model" else conv.cpu()(images.cuda())
        except RuntimeError as err:
            print(f"{moved} on the GPU: {type(err).__name__}: {err}")
else:
    # Both halves of the message are in the installed torch's CPU library, and the
    # legacy type names come from Tensor.type(); shown here as the GPU would word it.
    print("No GPU here. torch 2.15.0's Convolution.cpp (aten/src/ATen/native) words it, for")
    print("a model on the GPU and the batch on the CPU:")
    print(f"  Input type ({images.type()}) and weight type (torch.cuda.FloatTensor) should be "
          "the same or input should be a MKLDNN tensor and weight is a dense tensor")  # fmt: skip
    print("and for the batch on the GPU and the model on the CPU:")
    print("  Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) "
          "should be the same")  # fmt: skip

# %%
# Fix: put the batch where the model is, inside the loop, each time
# (``x.to(device)``), or move the model once before the loop; both to one ``device``.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
conv = nn.Conv2d(3, 4, kernel_size=3).to(device)
images = torch.rand(2, 3, 8, 8)
out = conv(images.to(device))
print("input", images.to(device).type(), "weight", conv.weight.type(), "->", tuple(out.shape))

# %%
# .. _errors-no-nvidia-driver:
#
# Found no NVIDIA driver on your system
# -------------------------------------
# The code asks for ``"cuda"`` on a machine without an NVIDIA GPU and driver; a CUDA
# build of torch (this site's) says so when CUDA starts, a CPU-only build says
# ``Torch not compiled with CUDA enabled`` instead.
import torch

if torch.cuda.is_available():
    print("CUDA works here:", torch.zeros(2, device="cuda").device)
else:
    try:
        torch.zeros(2, device="cuda")
    except (RuntimeError, AssertionError) as err:  # AssertionError from a CPU-only build
        print(f"{type(err).__name__}: {err}")
    if torch.version.cuda:  # a CUDA build: show what a CPU-only build raises instead
        print("A CPU-only build of torch 2.14.1 raises instead (torch/cuda/__init__.py):")
        print('  AssertionError("Torch not compiled with CUDA enabled")')
    else:
        print("A CUDA build of torch 2.14.1 raises instead (c10/cuda/CUDAFunctions.cpp):")
        print("  Found no NVIDIA driver on your system. Please check that you have an NVIDIA")
        print("  GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")

# %%
# Fix: choose the device from what is there; ``torch.accelerator`` also finds Apple and
# Intel GPUs.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("cuda or cpu:", torch.zeros(2, device=device).device)
accelerator = torch.accelerator.current_accelerator(check_available=True)
print("any accelerator:", accelerator, "-> using", accelerator or torch.device("cpu"))

# %%
# .. _errors-no-kernel-image:
#
# CUDA error: no kernel image is available for execution on the device
# ---------------------------------------------------------------------
# The GPU works, but this torch holds no compiled code for its architecture: each
# wheel is built for a list of compute capabilities (``sm_XY``), and a GPU older (or
# much newer) than the list finds no kernel to run. The list is part of the wheel and
# can be read without a GPU; on a GPU the block checks the device against it.
import torch

archs = torch.cuda.get_arch_list()  # empty for a CPU-only wheel
print("torch", torch.__version__, "is built for:", " ".join(archs) or "no GPU (CPU-only)")
if torch.cuda.is_available():
    major, minor = torch.cuda.get_device_capability()
    print(torch.cuda.get_device_name(), f"is sm_{major}{minor}:",
          "in the list" if f"sm_{major}{minor}" in archs else "NOT in the list")  # fmt: skip
else:  # the message is torch's prefix and the CUDA runtime's text for the error
    print("No GPU here to check against the list. On one whose sm_XY the list lacks, the first")
    print(
        "kernel launch raises: CUDA error: no kernel image is available for execution on the device"
    )

# %%
# Fix: install a torch wheel whose list holds your GPU's ``sm_XY``: the wheels for
# older CUDA versions keep older GPUs (PyTorch's release notes list what each CUDA
# wheel supports), or build torch with ``TORCH_CUDA_ARCH_LIST`` set to your GPU's
# capability. A ``compute_XY`` entry in the list is code the driver can compile for
# a newer GPU on first use. The error can surface at a later call than the one that
# failed; ``CUDA_LAUNCH_BLOCKING=1`` makes it name the right one.
import torch

archs = torch.cuda.get_arch_list()
oldest = min((int(a.split("_")[1]) for a in archs if a.startswith("sm_")), default=None)
print(
    "oldest GPU architecture this wheel runs on:", f"sm_{oldest}" if oldest else "none (CPU-only)"
)
print(
    "compiled for newer GPUs on first use:",
    [a for a in archs if a.startswith("compute_")] or "none",
)

# %%
# .. _errors-deserialize-cuda:
#
# Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False
# ----------------------------------------------------------------------------------------
# ``torch.load`` puts each tensor back on the device it was saved from (or the one
# ``map_location`` names), so a checkpoint saved on a GPU does not load as it is on a
# machine without one; asking for ``map_location="cuda"`` here raises the same.
import io

import torch

buffer = io.BytesIO()
torch.save({"weight": torch.ones(2)}, buffer)
buffer.seek(0)
if torch.cuda.is_available():
    print("GPU here: loaded on", torch.load(buffer, map_location="cuda")["weight"].device)
else:
    try:
        torch.load(buffer, map_location="cuda")
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}")

# %%
# Fix: say where the tensors should go: ``map_location="cpu"``, or the device this
# machine has.
import io

import torch

buffer = io.BytesIO()
torch.save({"weight": torch.ones(2)}, buffer)
buffer.seek(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
state = torch.load(buffer, map_location=device)
print("loaded on", state["weight"].device, state["weight"])

# %%
# .. _errors-cuda-fork:
#
# Cannot re-initialize CUDA in forked subprocess
# ----------------------------------------------
# A process that has started CUDA was copied by ``fork`` and the copy used CUDA. ``fork``
# is the default start method on Linux up to Python 3.13, for ``multiprocessing`` and
# ``DataLoader`` workers; from Python 3.14 the default there is ``forkserver``, so the
# error now comes from code that asks for ``fork`` by name, or from an older Python.
# The block runs a script in its own Python, as you would run ``python script.py``:
# even where the parent's CUDA start fails for want of a GPU, it has marked CUDA as
# started, and the child gets the same error as on a GPU machine. (A torch built
# without CUDA, such as the CPU wheels, raises ``AssertionError`` at the first CUDA call
# instead, in parent and child alike.)
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    import multiprocessing as mp

    import torch


    def ones_on_gpu(n):
        return torch.ones(n, device="cuda").sum().item()


    if __name__ == "__main__":
        try:
            torch.ones(1, device="cuda")  # the parent starts CUDA
            print("parent: CUDA started")
        except (RuntimeError, AssertionError) as err:
            print(f"parent: {type(err).__name__}: {err}")
        if "fork" in mp.get_all_start_methods():
            with mp.get_context("fork").Pool(1) as pool:
                try:
                    print("child:", pool.apply(ones_on_gpu, (3,)))
                except (RuntimeError, AssertionError) as err:
                    print(f"child: {type(err).__name__}: {err}")
        else:
            print("no fork on this system: its processes start by spawn already")
    """
)
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp, "script.py")
    path.write_text(script)
    run = subprocess.run(
        [sys.executable, path.name], cwd=tmp, capture_output=True, text=True, check=True
    )
print(run.stdout.strip())

# %%
# Fix: most often, keep the workers off the GPU. A ``DataLoader``'s workers (or a pool's)
# load and transform on the CPU and return CPU tensors; the main loop moves each batch to
# the device (``batch.to("cuda", non_blocking=True)`` with ``pin_memory=True``), so no
# child ever touches CUDA. Where a child must use the GPU itself, start it with
# ``spawn`` (or ``forkserver``): each child starts its own CUDA, as the block shows. With
# no GPU here the spawned child gets as far as looking for the driver, which is not the
# fork error.
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    import multiprocessing as mp

    import torch


    def ones_on_gpu(n):
        try:
            return torch.ones(n, device="cuda").sum().item()
        except (RuntimeError, AssertionError) as err:
            return f"{type(err).__name__}: {err}"


    if __name__ == "__main__":
        try:
            torch.ones(1, device="cuda")
            print("parent: CUDA started")
        except (RuntimeError, AssertionError) as err:
            print(f"parent: {type(err).__name__}: {err}")
        with mp.get_context("spawn").Pool(1) as pool:
            print("child:", pool.apply(ones_on_gpu, (3,)))
    """
)
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp, "script.py")
    path.write_text(script)
    run = subprocess.run(
        [sys.executable, path.name], cwd=tmp, capture_output=True, text=True, check=True
    )
print(run.stdout.strip())

# %%
# .. _errors-device-side-assert:
#
# CUDA error: device-side assert triggered
# ----------------------------------------
# A check inside a GPU kernel failed (most often an index out of range: a class label
# or a token id too large), and CUDA reports it later, at some other call; after it the
# process's CUDA context is unusable, so a GPU machine raises it here in a fresh Python.
import subprocess
import sys

import torch

if torch.cuda.is_available():
    script = (
        "import torch\n"
        "x = torch.zeros(3, device='cuda')\n"
        "try:\n"
        "    print(x[torch.tensor([5], device='cuda')])\n"
        "except Exception as err:\n"
        "    print(f'{type(err).__name__}: {str(err).splitlines()[0]}')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    print(run.stdout.strip())  # the process may exit with an error as CUDA shuts down
else:
    print("No GPU here; torch 2.14.1's source (c10/cuda/CUDAException.cpp) starts the message")
    print('with "CUDA error: " followed by the CUDA runtime\'s cudaGetErrorString(err), which')
    print("for a failed assert in a kernel (cudaErrorAssert) reads:")
    print("  CUDA error: device-side assert triggered")

# %%
# Fix: run the same step on the CPU, where the check raises a readable error at the line
# that failed (or set ``CUDA_LAUNCH_BLOCKING=1`` before starting Python, so the GPU error
# comes from the right call), then correct the indices.
import torch

x = torch.zeros(3)
index = torch.tensor([5])
try:
    x[index]
except IndexError as err:
    print(f"on the CPU: {type(err).__name__}: {err}")
in_range = index[(index >= 0) & (index < len(x))]
print("indices in range:", in_range.tolist(), "->", x[in_range])

# %%
# .. _errors-could-not-run-backend:
#
# Could not run \'aten::…\' with arguments from the \'…\' backend
# ----------------------------------------------------------------
# The operator has no kernel for the kind of tensor it got. The name in quotes after
# "from the" says which: a layout (``SparseCPU``, ``SparseCUDA``), a device whose
# kernels cover fewer operators (``MPS``), the data-free ``Meta`` tensors, or a device
# this build of torch was not compiled for. Here a sparse tensor, which has no ``view``.
import torch

sparse = torch.eye(3).to_sparse()
try:
    sparse.view(9)
except NotImplementedError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0][:120]} …")

# %%
# Fix: give the operator a tensor it has a kernel for: ``to_dense()`` for a sparse
# tensor, ``.cpu()`` for a device that lacks the operator (on a Mac,
# ``PYTORCH_ENABLE_MPS_FALLBACK=1``, set before torch is imported, runs such
# operators on the CPU by itself), or real data for a meta tensor
# (:ref:`pt2-default-device-to-empty`).
import torch

sparse = torch.eye(3).to_sparse()
print("dense view:", sparse.to_dense().view(9).tolist())

# %%
# .. _errors-cuda-amp-deprecated:
#
# \`torch.cuda.amp.autocast(args\.\.\.)\` is deprecated
# -----------------------------------------------------
# A ``FutureWarning``, not an error: since 2.4 the device-specific ``torch.cuda.amp`` and
# ``torch.cpu.amp`` entry points are old names for ``torch.amp``, which takes the
# device type as its first argument; ``GradScaler`` moved the same way. On a machine
# without CUDA, the old calls also warn that they disable themselves, as here.
import warnings

import torch

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.cuda.amp.autocast():
        pass
    torch.cuda.amp.GradScaler()
    with torch.cpu.amp.autocast():
        pass
for w in caught:
    print(f"{w.category.__name__}: {w.message}")

# %%
# Fix: call ``torch.amp`` with the device type, which also lets one line serve every
# device (see :ref:`pt2-mixed-precision-cpu`); the arguments are otherwise the same.
import torch

device_type = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.float16 if device_type == "cuda" else torch.bfloat16
model = torch.nn.Linear(4, 2).to(device_type)
scaler = torch.amp.GradScaler(device_type, enabled=device_type == "cuda")
with torch.amp.autocast(device_type, dtype=dtype):
    out = model(torch.randn(3, 4, device=device_type))
print(device_type, out.dtype, "| GradScaler enabled:", scaler.is_enabled())
