r"""
scaled_dot_product_attention
============================

``torch.nn.functional.scaled_dot_product_attention`` (SDPA) computes
``softmax(Q Kᵀ / √E + mask) V`` in one call. It runs one of several kernels
(FlashAttention, memory-efficient attention, cuDNN, or the plain math
fallback): the first, in a fixed priority order, whose conditions the inputs
meet, which is not always the fastest. This page shows the call, its shapes and
masks, which kernel runs and how to force one, and measures each kernel against
attention written by hand, on the machine that built the page.
"""

# %%
# The call and its shapes
# -----------------------
# Query, key and value are ``(batch, heads, length, head_dim)``; key and value
# may be longer than the query (``S`` versus ``L``). The output has the query's
# length and the value's last dimension.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
batch, heads, L, S, E = 2, 4, 128, 160, 64
q = torch.randn(batch, heads, L, E)
k = torch.randn(batch, heads, S, E)
v = torch.randn(batch, heads, S, E)
out = F.scaled_dot_product_attention(q, k, v)
out.shape

# %%
# The same thing written by hand
# ------------------------------
# This is the textbook definition. It materialises the full ``L × S`` score
# matrix, which is what the fused kernels avoid.
import math


def attention_by_hand(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = (
            scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
        )
    return scores.softmax(dim=-1) @ v


torch.testing.assert_close(out, attention_by_hand(q, k, v))
print("SDPA matches the hand-written formula")

# %%
# Boolean and float masks
# -----------------------
# A boolean ``attn_mask`` says which keys each query may see (``True`` means
# attend). A float mask is added to the scores, so ``-inf`` hides a key and any
# other value biases it. Both broadcast over batch and heads.
keep = torch.rand(L, S) > 0.2
bool_out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
torch.testing.assert_close(bool_out, attention_by_hand(q, k, v, keep))

bias = torch.zeros(L, S).masked_fill(~keep, float("-inf"))
float_out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
torch.testing.assert_close(float_out, bool_out)
print("boolean mask == float mask with -inf == hand-written masked attention")

# %%
# Causal attention
# ----------------
# ``is_causal=True`` lets each position attend only to itself and earlier
# positions, without building the mask; it equals a lower-triangular boolean mask.
x = torch.randn(batch, heads, L, E)
causal = F.scaled_dot_product_attention(x, x, x, is_causal=True)
lower = torch.ones(L, L, dtype=torch.bool).tril()
torch.testing.assert_close(causal, F.scaled_dot_product_attention(x, x, x, attn_mask=lower))
print("is_causal=True equals a tril mask")

# %%
# Dropout on the attention weights
# --------------------------------
# ``dropout_p`` drops attention weights at random and rescales the rest. The
# function has no training flag: pass ``dropout_p=0.0`` at evaluation time
# (``nn.MultiheadAttention`` does this for you in ``eval()``).
torch.manual_seed(1)
a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
torch.manual_seed(1)
b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
print("same seed, same output:", torch.equal(a, b))
print("differs from no dropout:", not torch.allclose(a, out))

# %%
# Which kernel runs: the first eligible one
# -----------------------------------------
# SDPA walks a priority list (on CUDA: FlashAttention, then memory-efficient,
# then math, with cuDNN first on some GPUs) and takes the first backend whose
# conditions the inputs meet. An explicit ``attn_mask`` rules FlashAttention
# out on CUDA, while ``is_causal=True`` keeps it; the CPU's flash kernel takes
# masks but not dropout. The profiler names the kernel that ran, here and, when
# there is one, on a CUDA GPU.
import torch
import torch.nn.functional as F
from torch.profiler import profile


def kernel_ran(*args, **kwargs):
    """Run SDPA once under the profiler; return the name of the kernel it dispatched to."""
    with profile() as prof:
        F.scaled_dot_product_attention(*args, **kwargs)
    names = {event.key for event in prof.key_averages()}
    return next(n for n in sorted(names) if n.startswith("aten::_scaled_dot_product"))


def report(device, dtype):
    q, k, v = (torch.randn(2, 4, 128, 64, device=device, dtype=dtype) for _ in range(3))
    causal = torch.ones(128, 128, dtype=torch.bool, device=device).tril()
    print(f"{device}, {dtype}:")
    print("  no mask:          ", kernel_ran(q, k, v))
    print("  is_causal=True:   ", kernel_ran(q, k, v, is_causal=True))
    print("  attn_mask=causal: ", kernel_ran(q, k, v, attn_mask=causal))
    print("  dropout_p=0.1:    ", kernel_ran(q, k, v, dropout_p=0.1))


report("cpu", torch.float32)
if torch.cuda.is_available():
    report("cuda", torch.float16)
else:
    print("skipped the CUDA run: no CUDA device on this machine")

# %%
# Choosing a kernel
# -----------------
# ``torch.nn.attention.sdpa_kernel`` restricts SDPA to the listed backends inside
# a ``with`` block. Asking for a kernel the hardware lacks raises
# ``RuntimeError``; this loop records, for every backend, whether it runs here
# and, if not, the error and what the kernel needs.
from torch.nn.attention import SDPBackend, sdpa_kernel

needs = {
    "MATH": "any device",
    "FLASH_ATTENTION": "a CUDA GPU (sm80 or newer) or the CPU",
    "EFFICIENT_ATTENTION": "a CUDA GPU",
    "CUDNN_ATTENTION": "a CUDA GPU with cuDNN 9",
    "OVERRIDEABLE": "a device that registers its own kernel (e.g. XPU, HPU)",
}
runs_here = {}
for name, needed in needs.items():
    backend = getattr(SDPBackend, name)
    try:
        with sdpa_kernel(backend):
            result = F.scaled_dot_product_attention(q, k, v)
        torch.testing.assert_close(result, out)
        runs_here[name] = backend
        print(f"{name:20} available, output matches")
    except RuntimeError as err:
        print(f"{name:20} unavailable: needs {needed}; error: {str(err).splitlines()[0]}")

# %%
# Benchmark: by hand versus each kernel
# -------------------------------------
# The same attention, timed in alternation by ``cheatsheet.compare`` on one
# thread, with the hand-written version as the baseline; ``SDPA (auto)`` lets
# SDPA choose. Each forced kernel is checked against the hand-written result
# first. The math fallback does the same work as the hand-written version, so
# it is left out.
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel

from cheatsheet import compare, environment

torch.manual_seed(0)
q, k, v = (torch.randn(4, 8, 512, 64) for _ in range(3))
reference = attention_by_hand(q, k, v)
candidates = {"by hand": attention_by_hand, "SDPA (auto)": F.scaled_dot_product_attention}
# MATH runs within about 10% of attention_by_hand (it scales q and k instead of
# the scores), right at the edge of the 5% band: its verdict changed from run to run.
for name, backend in runs_here.items():
    if name == "MATH":
        continue

    def forced(q, k, v, backend=backend):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v)

    torch.testing.assert_close(forced(q, k, v), reference)
    candidates[f"SDPA {name}"] = forced

threads = torch.get_num_threads()
# With two threads, a core taken by another process stalls the parallel
# kernels at random and can widen the interval past any verdict.
torch.set_num_threads(1)
try:
    attention_table = compare(candidates, q, k, v)
    stamp = environment()  # taken on one thread, so the stamp says so
finally:
    torch.set_num_threads(threads)
attention_table

# %%
fig = attention_table.plot(title="Attention, (4, 8, 512, 64) float32: speedup over by hand")

# %%
# What the measurement says
# -------------------------
# Computed from the table above on every build:
for verdict in attention_table.verdicts():
    print(f"On this machine, {verdict}.")
stamp

# %%
# Summary
# -------
#
# =========================================  ==========================================================
# You want                                   Call
# =========================================  ==========================================================
# attention                                  ``F.scaled_dot_product_attention(q, k, v)``
# shapes                                     ``q: (N, H, L, E)``, ``k: (N, H, S, E)``, ``v: (N, H, S, Ev)`` → ``(N, H, L, Ev)``
# hide some keys                             ``attn_mask=bool_mask`` (``True`` = attend)
# bias the scores                            ``attn_mask=float_mask`` (added; ``-inf`` hides)
# causal (decoder) attention                 ``is_causal=True``
# dropout while training                     ``dropout_p=0.1`` (pass ``0.0`` to evaluate)
# which kernel ran                           ``torch.profiler.profile()``, look for ``aten::_scaled_dot_product_*``
# keep FlashAttention eligible (CUDA)        ``is_causal=True`` rather than an explicit ``attn_mask``
# force a kernel                             ``with sdpa_kernel(SDPBackend.FLASH_ATTENTION): ...``
# reorder the priority list                  ``sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION], set_priority=True)``
# allow several kernels                      ``sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH])``
# =========================================  ==========================================================
