r"""
scaled_dot_product_attention
============================

``F.scaled_dot_product_attention`` (SDPA) computes ``softmax(Q Kᵀ / √E + mask) V`` in one call, with the first eligible of several kernels, timed here against attention by hand.

Summary
-------

=====================================  ===================================================================================================
You want                               Call
=====================================  ===================================================================================================
attention                              :entry:`F.scaled_dot_product_attention(q, k, v) <pt2-sdpa-call>`
shapes                                 :entry:`q (N, H, L, E), k (N, H, S, E), v (N, H, S, Ev) <pt2-sdpa-call>` → ``(N, H, L, Ev)``
the formula, written out               :entry:`softmax(q @ kᵀ / √E) @ v <pt2-sdpa-by-hand>`
hide some keys                         :entry:`attn_mask=bool_mask <pt2-sdpa-masks>` (``True`` = attend)
bias the scores                        :entry:`attn_mask=float_mask <pt2-sdpa-masks>` (added; ``-inf`` hides)
causal (decoder) attention             :entry:`is_causal=True <pt2-sdpa-causal>`
dropout while training                 :entry:`dropout_p=0.1 <pt2-sdpa-dropout>` (pass ``0.0`` to evaluate)
which kernel ran                       :entry:`torch.profiler.profile() <pt2-sdpa-which-kernel>`, look for ``aten::_scaled_dot_product_*``
keep FlashAttention eligible (CUDA)    :entry:`is_causal=True, not attn_mask <pt2-sdpa-which-kernel>`
force a kernel                         :entry:`with sdpa_kernel(SDPBackend.MATH): <pt2-sdpa-choose>`
allow several kernels                  :entry:`sdpa_kernel([FLASH_ATTENTION, MATH]) <pt2-sdpa-choose>`
reorder the priority list              :entry:`sdpa_kernel([...], set_priority=True) <pt2-sdpa-choose>`
each kernel against attention by hand  :entry:`compare(candidates, q, k, v) <pt2-sdpa-benchmark>`
each kernel on a CUDA GPU, float16     :entry:`q, k, v on "cuda" in float16 <pt2-sdpa-cuda-kernels>`
=====================================  ===================================================================================================
"""

# %%
# .. _pt2-sdpa-call:
#
# The call and its shapes
# -----------------------
# Query, key and value are ``(batch, heads, length, head_dim)``; key and value
# may be longer than the query (``S`` against ``L``), and the value's last
# dimension (``Ev``) may differ. The output has the query's length and ``Ev``.
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
# .. _pt2-sdpa-by-hand:
#
# The same thing written by hand
# ------------------------------
# The textbook definition materialises the whole ``L × S`` score matrix, which
# the fused kernels avoid.
import math

import torch
import torch.nn.functional as F


def attention_by_hand(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = (
            scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
        )
    return scores.softmax(dim=-1) @ v


torch.manual_seed(0)
q, k, v = torch.randn(2, 4, 128, 64), torch.randn(2, 4, 160, 64), torch.randn(2, 4, 160, 64)
torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v), attention_by_hand(q, k, v))
print("SDPA matches the hand-written formula")

# %%
# .. _pt2-sdpa-masks:
#
# Boolean and float masks
# -----------------------
# A boolean ``attn_mask`` says which keys each query may see (``True`` means
# attend). A float mask is added to the scores, so ``-inf`` hides a key and any
# other value biases it. Both broadcast over batch and heads.
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
L, S = 128, 160
q, k, v = torch.randn(2, 4, L, 64), torch.randn(2, 4, S, 64), torch.randn(2, 4, S, 64)
keep = torch.rand(L, S) > 0.2
bool_out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
scores = (q @ k.transpose(-2, -1) / math.sqrt(64)).masked_fill(~keep, float("-inf"))
torch.testing.assert_close(bool_out, scores.softmax(dim=-1) @ v)

bias = torch.zeros(L, S).masked_fill(~keep, float("-inf"))
float_out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
torch.testing.assert_close(float_out, bool_out)
print("boolean mask == float mask with -inf == hand-written masked attention")

# %%
# .. _pt2-sdpa-causal:
#
# Causal attention
# ----------------
# ``is_causal=True`` lets each position attend only to itself and earlier
# positions, without building the mask; it equals a lower-triangular boolean mask.
import torch
import torch.nn.functional as F

L = 128
x = torch.randn(2, 4, L, 64)
causal = F.scaled_dot_product_attention(x, x, x, is_causal=True)
lower = torch.ones(L, L, dtype=torch.bool).tril()
torch.testing.assert_close(causal, F.scaled_dot_product_attention(x, x, x, attn_mask=lower))
print("is_causal=True equals a tril mask")

# %%
# .. _pt2-sdpa-dropout:
#
# Dropout on the attention weights
# --------------------------------
# ``dropout_p`` drops attention weights at random and rescales the rest. The
# function has no training flag: pass ``dropout_p=0.0`` at evaluation time
# (``nn.MultiheadAttention`` does this for you in ``eval()``).
import torch
import torch.nn.functional as F

q, k, v = (torch.randn(2, 4, 128, 64) for _ in range(3))
out = F.scaled_dot_product_attention(q, k, v)
torch.manual_seed(1)
a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
torch.manual_seed(1)
b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
print("same seed, same output:", torch.equal(a, b))
print("differs from no dropout:", not torch.allclose(a, out))

# %%
# .. _pt2-sdpa-which-kernel:
#
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
# .. _pt2-sdpa-choose:
#
# Choosing a kernel
# -----------------
# ``torch.nn.attention.sdpa_kernel`` restricts SDPA to the listed backends inside
# a ``with`` block; a list allows several, and ``set_priority=True`` makes the
# list's order the priority order. Asking for a kernel the hardware lacks raises
# ``RuntimeError``; the loop tries every backend on CPU tensors and says what
# each needs (the :ref:`last section <pt2-sdpa-cuda-kernels>` does the same on a
# CUDA GPU).
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

q, k, v = (torch.randn(2, 4, 128, 64) for _ in range(3))
out = F.scaled_dot_product_attention(q, k, v)

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

allowed = [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]
with sdpa_kernel(allowed):
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v), out)
with sdpa_kernel(allowed[::-1], set_priority=True):  # MATH first, then flash
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v), out)
print("a list of kernels, and the same list as a priority order: outputs match")

# %%
# .. _pt2-sdpa-benchmark:
#
# Benchmark: by hand against each kernel
# --------------------------------------
# ``compare`` times the same attention in alternation on one thread, with the
# hand-written version as the baseline; ``SDPA (auto)`` lets SDPA choose. Each
# kernel that runs here is forced in turn, after a check against the
# hand-written result. Its tensors are on the CPU on every machine (the CUDA
# kernels have their own section below). The math fallback does the
# hand-written work, so it is left out. Bars: speedup with 95% interval.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cheatsheet import compare, environment


def attention_by_hand(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    return scores.softmax(dim=-1) @ v


torch.manual_seed(0)
q, k, v = (torch.randn(4, 8, 512, 64) for _ in range(3))
reference = attention_by_hand(q, k, v)
candidates = {"by hand": attention_by_hand, "SDPA (auto)": F.scaled_dot_product_attention}
# MATH runs within about 10% of attention_by_hand (it scales q and k instead of
# the scores), right at the edge of the 5% band: its verdict changed from run to run.
for name in ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE"):
    backend = getattr(SDPBackend, name)

    def forced(q, k, v, backend=backend):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v)

    try:
        torch.testing.assert_close(forced(q, k, v), reference)
    except RuntimeError:
        continue  # no such kernel on this machine
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
for verdict in attention_table.verdicts():
    print(f"On this machine, {verdict}.")
print(stamp)
attention_table.plot(title="Attention, (4, 8, 512, 64) float32: speedup over by hand")
plt.show()
attention_table

# %%
# .. _pt2-sdpa-cuda-kernels:
#
# On a CUDA GPU: each kernel in half precision
# --------------------------------------------
# The sections above run on the CPU, whose SDPA has only the flash and math
# kernels. On a CUDA GPU the fused kernels need ``float16`` or ``bfloat16`` for
# FlashAttention and cuDNN (memory-efficient also takes ``float32``), and which
# of them exist depends on the GPU and the wheel. This block forces each one on
# a longer sequence, checks it against attention by hand in ``float32``, and
# times them all against the hand-written version in ``float16``, with CUDA
# events. The math kernel computes half-precision inputs in ``float32`` (unless
# ``torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)``), so here it
# does more work than the hand-written version. On a machine without CUDA the
# block says so and skips.
import math
import warnings

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cheatsheet import compare, environment


def attention_by_hand(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    return scores.softmax(dim=-1) @ v


if not torch.cuda.is_available():
    print("skipped the CUDA kernels: no CUDA device on this machine")
else:
    torch.manual_seed(0)
    shape = (8, 16, 2048, 64)  # (batch, heads, length, head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
    reference = attention_by_hand(q.float(), k.float(), v.float())
    candidates = {"by hand": attention_by_hand}
    for name in ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION"):
        backend = getattr(SDPBackend, name)

        def forced(q, k, v, backend=backend):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v)

        try:
            with warnings.catch_warnings():  # an unavailable kernel also warns why
                warnings.simplefilter("ignore")
                result = forced(q, k, v)
        except RuntimeError as err:
            print(f"{name:20} unavailable here: {str(err).splitlines()[0]}")
            continue
        torch.testing.assert_close(result.float(), reference, atol=1e-2, rtol=1e-2)
        print(f"{name:20} runs; matches float32 by hand within 1e-2")
        candidates[f"SDPA {name}"] = forced
    cuda_table = compare(candidates, q, k, v)
    for verdict in cuda_table.verdicts():
        print(f"On this machine, {verdict}.")
    print(environment())
    cuda_table.plot(title=f"Attention on CUDA, {shape} float16: speedup over by hand")
    plt.show()
