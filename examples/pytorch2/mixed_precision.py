r"""
Mixed precision
===============

``torch.autocast`` runs matrix products and convolutions in a 16-bit type and the rest in ``float32``, without touching the model's code.

Summary
-------

==========================================  =====================================================================================================================
You want                                    Call
==========================================  =====================================================================================================================
the range and precision of each type        :entry:`torch.finfo(torch.bfloat16) <pt2-mixed-precision-types>`
mixed precision on the CPU                  :entry:`with torch.autocast("cpu"): <pt2-mixed-precision-cpu>` (``bfloat16``)
the active setting                          :entry:`torch.get_autocast_dtype("cpu") <pt2-mixed-precision-cpu>`, ``torch.is_autocast_enabled(device)``
which operations change dtype               :entry:`the CPU lists <pt2-mixed-precision-ops>`, :entry:`the CUDA lists <pt2-mixed-precision-cuda-ops>`
full precision for one block                :entry:`torch.autocast(device, enabled=False) <pt2-mixed-precision-disable>` + ``.float()``
a training step under autocast              :entry:`forward and loss inside the with <pt2-mixed-precision-train>`
mixed precision on CUDA                     :entry:`torch.autocast("cuda") <pt2-mixed-precision-scaler>` (``float16``, with a ``GradScaler``)
``bfloat16`` on CUDA, with no scaler        :entry:`autocast("cuda", dtype=torch.bfloat16) <pt2-mixed-precision-scaler>`, native on Ampere and newer
loss scaling for ``float16``                :entry:`torch.amp.GradScaler("cuda") <pt2-mixed-precision-scaler>`
the scaled step                             :entry:`scaler.scale(loss).backward() <pt2-mixed-precision-scaler>`, ``scaler.step(opt)``, ``scaler.update()``
clip gradients with a scaler                :entry:`scaler.unscale_(opt) <pt2-mixed-precision-clip>`, then ``clip_grad_norm_``, then ``scaler.step(opt)``
deprecated spellings                        :entry:`torch.cuda.amp.autocast <pt2-mixed-precision-cpu>`, ``torch.cpu.amp.autocast``, ``torch.cuda.amp.GradScaler``
whether ``bfloat16`` is faster here         :entry:`compare(...) <pt2-mixed-precision-speed>` of ``float32``, autocast and a ``bfloat16`` model
==========================================  =====================================================================================================================
"""

# %%
# .. _pt2-mixed-precision-types:
#
# Two 16-bit types
# ----------------
# ``float16`` keeps more mantissa bits but a narrow range: below its smallest
# normal number (about ``6e-5``) it loses precision, its smallest value is
# ``2**-24``, about ``6e-8``, and anything below about ``3e-8`` rounds to zero,
# a typical fate of small gradients. ``bfloat16`` keeps the exponent range of
# ``float32`` and gives up precision instead.
import torch

for dtype in (torch.float32, torch.float16, torch.bfloat16):
    info = torch.finfo(dtype)
    print(f"{dtype!s:15} max {info.max:9.3g}  smallest normal {info.tiny:9.3g}  eps {info.eps:.3g}")
print("2**-24 =", 2**-24)
for value in (6e-8, 3e-8, 2.9e-8, 1e-8):
    half = torch.tensor(value, dtype=torch.float16).item()
    brain = torch.tensor(value, dtype=torch.bfloat16).item()
    print(f"{value:g} as float16: {half:.3g}   as bfloat16: {brain:.3g}")

# %%
# .. _pt2-mixed-precision-cpu:
#
# Autocast on the CPU
# -------------------
# ``torch.autocast("cpu")`` defaults to ``bfloat16`` (CUDA defaults to
# ``float16``, see below). Inputs and parameters
# stay ``float32``; only the outputs of eligible operations are 16-bit.
# ``torch.cpu.amp.autocast`` and ``torch.cuda.amp.autocast`` from older docs are
# deprecated since PyTorch 2.4: use ``torch.autocast(device_type)``.
import torch

model = torch.nn.Linear(16, 8)
x = torch.randn(4, 16)
with torch.autocast("cpu"):
    print(
        "autocast enabled:",
        torch.is_autocast_enabled("cpu"),
        "| dtype:",
        torch.get_autocast_dtype("cpu"),
    )
    y = model(x)
print("input", x.dtype, "| weight", model.weight.dtype, "| output", y.dtype)

# %%
# .. _pt2-mixed-precision-ops:
#
# Which operations autocast
# -------------------------
# Each backend has a list of operations that run in the 16-bit type (matrix
# products, convolutions), a list forced to ``float32`` (most losses, some
# reductions), and everything else runs in whatever dtype it is given. So the
# same ``softmax`` stays ``float32`` on a ``float32`` input but follows a
# ``bfloat16`` matmul output. The full lists are in the "Autocast Op
# Reference" of the ``torch.amp`` documentation.
import torch
import torch.nn.functional as F

x = torch.randn(8, 16)
w = torch.randn(16, 16)
norm = torch.nn.LayerNorm(16)
target = torch.zeros(8, dtype=torch.long)
ops = {
    "matmul (x @ w)": lambda t: t @ w,
    "linear": lambda t: F.linear(t, w),
    "softmax": lambda t: F.softmax(t, dim=-1),
    "sum": torch.sum,
    "layer_norm": norm,
    "cross_entropy": lambda t: F.cross_entropy(t, target),
    "mse_loss": lambda t: F.mse_loss(t, torch.zeros_like(t)),
}
with torch.autocast("cpu", dtype=torch.bfloat16):
    half = x @ w
    print(f"{'operation':16} {'on float32 input':18} on bfloat16 input")
    for name, op in ops.items():
        print(f"{name:16} {op(x).dtype!s:18} {op(half).dtype}")

# %%
# .. _pt2-mixed-precision-cuda-ops:
#
# The same table on CUDA
# ----------------------
# CUDA autocasts to ``float16`` and its ``float32`` list is longer: it includes
# ``softmax``, ``layer_norm`` and ``sum``, which the CPU lets follow their input.
# Guarded: it runs only where CUDA exists.
import torch
import torch.nn.functional as F

if torch.cuda.is_available():
    x = torch.randn(8, 16, device="cuda")
    w = torch.randn(16, 16, device="cuda")
    with torch.autocast("cuda"):
        half = x @ w
        print("matmul:", half.dtype)
        print("softmax of the matmul output:", F.softmax(half, dim=-1).dtype)
        print("sum of the matmul output:", half.sum().dtype)
else:
    print(
        "skipped: no CUDA device; on one, softmax/layer_norm/sum return float32 "
        "under autocast even on float16 inputs"
    )

# %%
# .. _pt2-mixed-precision-disable:
#
# Step out of autocast for one operation
# --------------------------------------
# A nested ``torch.autocast(..., enabled=False)`` turns it off for a block.
# Tensors made inside autocast keep their dtype, so cast them back with
# ``.float()`` before an operation that needs full precision.
import torch

x = torch.randn(4, 4)
with torch.autocast("cpu"):
    product = x @ x
    with torch.autocast("cpu", enabled=False):
        exact = product.float() @ x
print("inside autocast:", product.dtype, "| autocast disabled:", exact.dtype)

# %%
# .. _pt2-mixed-precision-train:
#
# A training step under autocast on the CPU
# -----------------------------------------
# Put only the forward pass and the loss inside the ``with``; ``backward`` and
# the optimizer step run outside. Weights and their gradients stay
# ``float32``, so no gradient scaler is needed with ``bfloat16``.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, labels = torch.randn(128, 32), torch.randint(0, 10, (128,))

for step in range(5):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(inputs)
        loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
print(
    "logits",
    logits.dtype,
    "| loss",
    loss.dtype,
    "| weight",
    model[0].weight.dtype,
    "| grad",
    model[0].weight.grad.dtype,
)

# %%
# .. _pt2-mixed-precision-scaler:
#
# ``float16`` on CUDA needs a ``GradScaler``
# ------------------------------------------
# With ``float16``, small gradients underflow to zero. ``GradScaler``
# multiplies the loss before ``backward``, divides the gradients before the
# step, and skips steps whose gradients overflowed. Its current spelling is
# ``torch.amp.GradScaler("cuda")``; ``torch.cuda.amp.GradScaler`` is deprecated.
# On Ampere and newer GPUs, which compute ``bfloat16`` natively
# (``torch.cuda.is_bf16_supported(including_emulation=False)``), prefer
# ``torch.autocast("cuda", dtype=torch.bfloat16)``, which needs no scaler; older
# GPUs run it too, emulated, and ``is_bf16_supported()`` counts that as yes.
import torch
import torch.nn.functional as F

if torch.cuda.is_available():
    print("bfloat16 native here:", torch.cuda.is_bf16_supported(including_emulation=False))
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 10)
    ).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    inputs = torch.randn(128, 32, device="cuda")
    labels = torch.randint(0, 10, (128,), device="cuda")
    for step in range(5):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(inputs), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # unscales first; skips the step on inf/NaN
        scaler.update()
        print(f"step {step}: loss {loss.item():.4f}, scale {scaler.get_scale():.0f}")
else:
    print("skipped: no CUDA device, so the float16 + GradScaler step did not run here")

# %%
# .. _pt2-mixed-precision-clip:
#
# Clip gradients under a ``GradScaler``: ``unscale_`` first
# ---------------------------------------------------------
# After ``scaler.scale(loss).backward()`` the gradients are multiplied by the
# scale (65536 at the start), so a clipping threshold would apply to the wrong
# numbers. ``scaler.unscale_(optimizer)`` divides them back in place, and
# ``scaler.step`` then knows not to divide again. ``GradScaler`` also takes
# ``"cpu"``, so this cell runs on the machine that built the page.
import torch
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
layers = [torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4)]
model = torch.nn.Sequential(*layers).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device)
inputs = torch.randn(64, 16, device=device)
labels = torch.randint(0, 4, (64,), device=device)
for step in range(3):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device, dtype=torch.float16):
        loss = F.cross_entropy(model(inputs), labels)
    scaler.scale(loss).backward()
    scaled = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    print(
        f"{device} step {step}: loss {loss.item():.4f}, gradient norm "
        f"{scaled:.0f} scaled, {norm:.3f} after unscale_"
    )

# %%
# .. _pt2-mixed-precision-speed:
#
# Is ``bfloat16`` faster here?
# ----------------------------
# It depends on the CPU's ``bfloat16`` support (AVX-512 BF16, AMX) and on the
# kernels PyTorch picks for it; the casts themselves also cost time. Timed in
# alternation on one thread, so that the kernels are compared, not their
# threading: a matmul-heavy MLP forward pass in ``float32``, under ``bfloat16``
# autocast, and with the model converted to ``bfloat16`` outright. Bars:
# speedup over ``float32`` with 95% intervals.
import copy

import matplotlib.pyplot as plt
import torch

from cheatsheet import compare, environment

torch.manual_seed(0)
mlp = torch.nn.Sequential(
    torch.nn.Linear(1024, 1024),
    torch.nn.ReLU(),
    torch.nn.Linear(1024, 1024),
    torch.nn.ReLU(),
    torch.nn.Linear(1024, 1024),
).eval()
mlp_bf16 = copy.deepcopy(mlp).to(torch.bfloat16)
batch = torch.randn(256, 1024)
batch_bf16 = batch.to(torch.bfloat16)


@torch.no_grad()
def forward_fp32(x):
    return mlp(x)


@torch.no_grad()
def forward_autocast(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return mlp(x)


@torch.no_grad()
def forward_bf16(x):
    return mlp_bf16(x)


print("CPU kernels used:", torch.backends.cpu.get_cpu_capability())
try:
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        flags = next(line for line in cpuinfo if line.startswith("flags")).split()
    print("CPU flags:", {f: f in flags for f in ("avx512_bf16", "amx_bf16")})
except (OSError, StopIteration):
    print("CPU flags: not readable on this OS")
threads = torch.get_num_threads()
# With two threads, a core taken by another process stalls each parallel
# matmul at random, which in some runs widened the interval past any verdict.
torch.set_num_threads(1)
try:
    mixed = compare(
        {
            "float32": lambda: forward_fp32(batch),
            "autocast bfloat16": lambda: forward_autocast(batch),
            "model in bfloat16": lambda: forward_bf16(batch_bf16),
        },
        device="cpu",  # closures: nothing tells the timer where the work runs
        budget_s=1.0,  # rounds of about 35 ms: some thirty of them
    )
    stamp = environment()  # taken on one thread, so the stamp says so
finally:
    torch.set_num_threads(threads)
reference = forward_fp32(batch)
for label, out in (
    ("autocast bfloat16", forward_autocast(batch)),
    ("model in bfloat16", forward_bf16(batch_bf16)),
):
    error = (out.float() - reference).abs().max().item()
    print(f"{mixed.verdict(label)}; largest difference from float32 {error:.3g}")
print(stamp)
mixed.plot(title="MLP forward, batch 256, width 1024: speedup over float32")
plt.show()
mixed
