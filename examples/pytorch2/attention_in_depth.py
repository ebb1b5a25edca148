r"""
Attention in depth
==================

``nn.MultiheadAttention``'s fast path, key/value caches, padding masks, 16-bit attention, and how attention's time and memory grow with length, measured here.

Summary
-------

============================================  =====================================================================================================================
You want                                      Call
============================================  =====================================================================================================================
which kernel ran                              :entry:`profile() then prof.key_averages() <pt2-attention-in-depth-which-kernel>`
the fused ``MultiheadAttention`` fast path    :entry:`batch_first=True, .eval(), inference_mode() <pt2-attention-in-depth-fast-path>`, self-attention
no attention weights (enables SDPA)           :entry:`mha(x, x, x, need_weights=False) <pt2-attention-in-depth-mha-cost>`
to switch the fast path off                   :entry:`set_fastpath_enabled(False) <pt2-attention-in-depth-mha-cost>` (``torch.backends.mha``)
one decoding step with a cache                :entry:`sdpa(q_t, K[:, :, :t+1], V[:, :, :t+1]) <pt2-attention-in-depth-kv-cache>`
a chunk of new queries after a prefix         :entry:`attn_mask=causal_lower_right(Lq, Lk) <pt2-attention-in-depth-lower-right>`, not ``is_causal=True``
what the cache saves here                     :entry:`compare(...) <pt2-attention-in-depth-cache-saves>` of decoding with and without it
padding in ``nn.MultiheadAttention``          :entry:`key_padding_mask=is_pad <pt2-attention-in-depth-padding>` (``True`` = ignore this key)
padding in SDPA                               :entry:`attn_mask=~is_pad[:, None, None, :] <pt2-attention-in-depth-padding>` (``True`` = attend)
16-bit attention                              :entry:`bfloat16 inputs <pt2-attention-in-depth-16-bit>` (CPU, Ampere+), ``float16`` (older GPUs), ``torch.autocast``
time and peak memory against length, on CPU   :entry:`profile(profile_memory=True) <pt2-attention-in-depth-growth>`
peak memory on CUDA                           :entry:`torch.cuda.max_memory_allocated() <pt2-attention-in-depth-cuda-memory>`
============================================  =====================================================================================================================
"""

# %%
# .. _pt2-attention-in-depth-which-kernel:
#
# Which kernel did ``nn.MultiheadAttention`` run?
# -----------------------------------------------
# The profiler lists the operators a call ran. The fused fast path shows up
# as ``aten::_native_multi_head_attention``; the ordinary path calls SDPA
# (or an explicit ``softmax`` when it must return the weights).
import torch
from torch.profiler import ProfilerActivity, profile


def attention_ops(fn, *args, **kwargs):
    """Run ``fn`` once under the profiler; return the attention-related operators."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn(*args, **kwargs)
    keys = {event.key for event in prof.key_averages()}
    wanted = ("multi_head_attention", "scaled_dot_product", "_softmax")
    return sorted(k.removeprefix("aten::") for k in keys if any(w in k for w in wanted))


torch.manual_seed(0)
mha = torch.nn.MultiheadAttention(embed_dim=64, num_heads=4, batch_first=True)
x = torch.randn(2, 10, 64)
print("train mode, grad on:", attention_ops(mha, x, x, x, need_weights=False))

# %%
# .. _pt2-attention-in-depth-fast-path:
#
# The conditions of the fast path
# -------------------------------
# The fused kernel is for inference only: the module in ``eval()``, no
# autograd (``torch.no_grad``/``inference_mode`` or no input needing a
# gradient), ``batch_first=True``, batched 3-D input, self-attention
# (``query``, ``key`` and ``value`` the same tensor), an even number of heads,
# no ``add_bias_kv``/``add_zero_attn``, no float masks and no CUDA autocast.
# Each line below breaks one condition; the last shows that CPU autocast does
# not count (the check looks at CUDA autocast only).
import torch
from torch.profiler import ProfilerActivity, profile


def attention_ops(fn, *args, **kwargs):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn(*args, **kwargs)
    keys = {event.key for event in prof.key_averages()}
    wanted = ("multi_head_attention", "scaled_dot_product", "_softmax")
    return sorted(k.removeprefix("aten::") for k in keys if any(w in k for w in wanted))


torch.manual_seed(0)
mha = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()
seq_first = torch.nn.MultiheadAttention(64, 4, batch_first=False).eval()
x, memory = torch.randn(2, 10, 64), torch.randn(2, 7, 64)


def with_grad():
    with torch.enable_grad():
        return mha(x, x, x, need_weights=False)


def with_autocast():
    with torch.autocast("cpu"):
        return mha(x, x, x, need_weights=False)


cases = {
    "eval + no_grad (all conditions met)": lambda: mha(x, x, x, need_weights=False),
    "grad enabled": with_grad,
    "batch_first=False": lambda: seq_first(x, x, x, need_weights=False),
    "cross-attention (key is not query)": lambda: mha(x, memory, memory, need_weights=False),
    "float attn_mask": lambda: mha(x, x, x, attn_mask=torch.zeros(10, 10), need_weights=False),
    "under CPU autocast": with_autocast,
}
with torch.no_grad():
    for name, call in cases.items():
        ops = attention_ops(call)
        path = "fast path" if "_native_multi_head_attention" in ops else "slow path"
        print(f"{name:37} {path:10} {ops}")

# %%
# .. _pt2-attention-in-depth-mha-cost:
#
# Same output either way; what each costs
# ---------------------------------------
# ``torch.backends.mha.set_fastpath_enabled(False)`` switches the fast path
# off globally, so that the slow path can be timed too. ``need_weights=True``
# (the default) makes the module build and return the L×L weights; with
# ``need_weights=False`` the slow path can call SDPA, whose fused kernels skip
# that matrix, so pass it whenever you do not read the weights. The verdicts
# below, timed on one thread (batch 4, 256 tokens, width 256, 8 heads,
# inference mode), say what each choice is worth on this machine.
import torch

from cheatsheet import compare, environment

torch.manual_seed(0)
mha = torch.nn.MultiheadAttention(256, 8, batch_first=True).eval()
x = torch.randn(4, 256, 256)


def mha_call(fastpath, need_weights):
    """Return a function that runs ``mha`` on ``x`` with the fast path on or off."""

    def call():
        torch.backends.mha.set_fastpath_enabled(fastpath)
        try:
            return mha(x, x, x, need_weights=need_weights)
        finally:
            torch.backends.mha.set_fastpath_enabled(True)

    return call


threads = torch.get_num_threads()
# With two threads, a core taken by another process stalls the parallel
# kernels at random: intervals grew past any verdict in some runs.
torch.set_num_threads(1)
try:
    with torch.inference_mode():
        fast_out, _ = mha_call(True, False)()
        slow_out, _ = mha_call(False, False)()
        mha_table = compare(
            {
                "slow path, need_weights=False": mha_call(False, False),
                "slow path, need_weights=True": mha_call(False, True),
                "fast path, need_weights=False": mha_call(True, False),
            },
            device="cpu",  # closures: nothing tells the timer where the work runs
            budget_s=1.5,
        )
    stamp = environment()  # taken on one thread, so the stamp says so
finally:
    torch.set_num_threads(threads)

torch.testing.assert_close(fast_out, slow_out)
print("fast path output equals slow path output")
for verdict in mha_table.verdicts():
    print(verdict)
print(stamp)
mha_table

# %%
# .. _pt2-attention-in-depth-kv-cache:
#
# Causal decoding with a key/value cache
# --------------------------------------
# A decoder produces one token at a time. Keys and values of earlier tokens do
# not change, so they are kept in a cache and each step attends one new query
# to all cached keys: no mask is needed, since the cache holds no future.
# Step by step, this reproduces full causal attention over the sequence.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
batch, heads, length, head_dim = 2, 4, 24, 16
q, k, v = (torch.randn(batch, heads, length, head_dim) for _ in range(3))
full = F.scaled_dot_product_attention(q, k, v, is_causal=True)

k_cache = torch.empty(batch, heads, length, head_dim)
v_cache = torch.empty(batch, heads, length, head_dim)
steps = []
for t in range(length):
    k_cache[:, :, t] = k[:, :, t]
    v_cache[:, :, t] = v[:, :, t]
    steps.append(
        F.scaled_dot_product_attention(
            q[:, :, t : t + 1], k_cache[:, :, : t + 1], v_cache[:, :, : t + 1]
        )
    )
incremental = torch.cat(steps, dim=2)
torch.testing.assert_close(incremental, full)
print(f"{length} cached steps == one causal call over {length} tokens")

# %%
# .. _pt2-attention-in-depth-lower-right:
#
# Several new tokens at once: ``is_causal`` aligns top-left
# ---------------------------------------------------------
# With fewer queries than keys (a chunk of new tokens after a cached prefix),
# ``is_causal=True`` builds the mask from the top-left corner, so the chunk
# cannot see most of the prefix. ``causal_lower_right`` from
# ``torch.nn.attention.bias`` aligns the diagonal to the last key, which is
# what decoding needs.
import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

torch.manual_seed(0)
length = 24
q, k, v = (torch.randn(2, 4, length, 16) for _ in range(3))
full = F.scaled_dot_product_attention(q, k, v, is_causal=True)
chunk = slice(20, 24)  # queries of tokens 20..23, keys of tokens 0..23
q_new, k_seen, v_seen = q[:, :, chunk], k, v
top_left = F.scaled_dot_product_attention(q_new, k_seen, v_seen, is_causal=True)
lower_right = F.scaled_dot_product_attention(
    q_new, k_seen, v_seen, attn_mask=causal_lower_right(4, length)
)
print("is_causal=True, error vs full:     ", f"{(top_left - full[:, :, chunk]).abs().max():.3g}")
print("causal_lower_right, error vs full: ", f"{(lower_right - full[:, :, chunk]).abs().max():.3g}")
torch.testing.assert_close(lower_right, full[:, :, chunk])

# %%
# .. _pt2-attention-in-depth-cache-saves:
#
# What the cache saves
# --------------------
# Generating 64 tokens with a one-layer attention block: without a cache each
# step projects and attends the whole prefix again, work that grows with the
# prefix; with it, each step projects one token and attends one query, at the
# price of more small operations. Same outputs, checked; the verdict, timed on
# one thread, says which wins at this size on this machine.
import torch
import torch.nn.functional as F

from cheatsheet import compare

torch.manual_seed(0)
width, n_heads, n_tokens = 128, 4, 64
qkv_proj = torch.nn.Linear(width, 3 * width)
tokens = torch.randn(1, n_tokens, width)


def split_heads(t):
    return t.unflatten(-1, (n_heads, -1)).transpose(1, 2)


@torch.inference_mode()
def generate_without_cache():
    outs = []
    for t in range(1, n_tokens + 1):
        q, k, v = map(split_heads, qkv_proj(tokens[:, :t]).chunk(3, dim=-1))
        outs.append(F.scaled_dot_product_attention(q, k, v, is_causal=True)[:, :, -1:])
    return torch.cat(outs, dim=2)


@torch.inference_mode()
def generate_with_cache():
    k_cache = torch.empty(1, n_heads, n_tokens, width // n_heads)
    v_cache = torch.empty_like(k_cache)
    outs = []
    for t in range(n_tokens):
        q, k, v = map(split_heads, qkv_proj(tokens[:, t : t + 1]).chunk(3, dim=-1))
        k_cache[:, :, t : t + 1], v_cache[:, :, t : t + 1] = k, v
        outs.append(
            F.scaled_dot_product_attention(q, k_cache[:, :, : t + 1], v_cache[:, :, : t + 1])
        )
    return torch.cat(outs, dim=2)


torch.testing.assert_close(generate_with_cache(), generate_without_cache())
threads = torch.get_num_threads()
# With two threads, another process's load stretched single rounds up to 50x
# and left the interval too wide for any verdict.
torch.set_num_threads(1)
try:
    decode = compare(
        {
            "no cache (recompute prefix)": generate_without_cache,
            "key/value cache": generate_with_cache,
        },
        device="cpu",  # closures: nothing tells the timer where the work runs
        budget_s=1.0,
    )
finally:
    torch.set_num_threads(threads)
print(decode.verdict("key/value cache"))
decode

# %%
# .. _pt2-attention-in-depth-padding:
#
# Padding: ``key_padding_mask`` against SDPA's boolean mask
# ---------------------------------------------------------
# The conventions are opposite. In ``nn.MultiheadAttention``,
# ``key_padding_mask`` is ``True`` where a key is padding (ignore it). In
# SDPA, a boolean ``attn_mask`` is ``True`` where attention is *allowed*.
# Some PyTorch 2.0 write-ups describe SDPA's mask the other way round; the
# check below, which rebuilds the module's computation with SDPA, settles it.
# Then garbage in the padded tokens changes nothing at the real ones (rows at
# padded positions still get values: mask or drop them later).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
mha = torch.nn.MultiheadAttention(16, 2, batch_first=True).eval()
x = torch.randn(2, 5, 16)
lengths = torch.tensor([5, 3])
is_pad = torch.arange(5) >= lengths[:, None]  # (batch, keys), True = padding
print(is_pad)

with torch.no_grad():
    reference, _ = mha(x, x, x, key_padding_mask=is_pad, need_weights=False)
    q, k, v = F.linear(x, mha.in_proj_weight, mha.in_proj_bias).chunk(3, dim=-1)
    q, k, v = (t.unflatten(-1, (2, 8)).transpose(1, 2) for t in (q, k, v))
    allowed = ~is_pad[:, None, None, :]  # broadcast over heads and queries
    by_hand = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    by_hand = mha.out_proj(by_hand.transpose(1, 2).flatten(2))
torch.testing.assert_close(by_hand, reference)
print("SDPA with attn_mask = ~key_padding_mask matches nn.MultiheadAttention")

garbage = x.clone()
garbage[1, 3:] = 1e3
with torch.no_grad():
    changed, _ = mha(garbage, garbage, garbage, key_padding_mask=is_pad, need_weights=False)
torch.testing.assert_close(changed[1, :3], reference[1, :3])
print("outputs of the 3 real tokens are unchanged:", True)

# %%
# .. _pt2-attention-in-depth-16-bit:
#
# Attention in ``bfloat16`` (and ``float16`` on CUDA)
# ---------------------------------------------------
# SDPA accepts 16-bit inputs directly and, under ``torch.autocast``, is among
# the operations that switch to the 16-bit type. The error against
# ``float32`` is the price. Whether it buys speed depends on the hardware:
# :ref:`sphx_glr_gallery_pytorch2_mixed_precision.py` times ``bfloat16`` on
# this machine.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q, k, v = (torch.randn(2, 4, 512, 64) for _ in range(3))
exact = F.scaled_dot_product_attention(q, k, v)
q16, k16, v16 = (t.to(torch.bfloat16) for t in (q, k, v))
approx = F.scaled_dot_product_attention(q16, k16, v16)
print("bfloat16 output:", approx.dtype, f"| max error {(approx.float() - exact).abs().max():.3g}")
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("float32 inputs under autocast ->", F.scaled_dot_product_attention(q, k, v).dtype)
if torch.cuda.is_available():
    qh, kh, vh = (t.to("cuda", torch.float16) for t in (q, k, v))
    out = F.scaled_dot_product_attention(qh, kh, vh)
    print("float16 on CUDA: max error", f"{(out.float().cpu() - exact).abs().max():.3g}")
else:
    print("skipped float16 on CUDA: this machine has no CUDA device")

# %%
# .. _pt2-attention-in-depth-growth:
#
# How time and memory grow with the sequence length
# -------------------------------------------------
# Hand-written attention, ``softmax(Q Kᵀ / √d) V``, materialises an L×L score
# matrix (and a second one for the softmax), so its memory grows with L².
# SDPA's fused CPU kernel works block by block. Memory is measured from the
# profiler's allocation events (``profile_memory=True``; each event carries
# the running total), beside the analytic size of one score matrix. Time comes
# from one short ``compare`` per length, so each speedup has its interval and
# verdict. The sweep runs on one thread. In the plot, log axes make a slope of
# 2 quadratic growth; the dashed line is one float32 L×L score matrix; the right
# panel is SDPA's speedup with its 95% interval, the band "about as fast".
import json
import math
import os
import tempfile

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from cheatsheet import SAME_BAND, compare, environment


def naive_attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def peak_bytes(fn, *args):
    """Peak of allocated CPU memory during one call, from the profiler's memory events."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn(*args)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as f:
            events = [e for e in json.load(f)["traceEvents"] if e.get("name") == "[memory]"]
    if not events:
        return 0
    start = events[0]["args"]["Total Allocated"] - events[0]["args"]["Bytes"]
    return max(e["args"]["Total Allocated"] for e in events) - start


batch, heads, head_dim = 1, 2, 64
lengths = [128, 256, 512, 1024, 2048]
rows = []
threads_before = torch.get_num_threads()
# On a shared two-core machine, two OpenMP threads competing with other work
# made single lengths tens of times slower from one build to the next.
torch.set_num_threads(1)
with torch.inference_mode():
    for n in lengths:
        q, k, v = (torch.randn(batch, heads, n, head_dim) for _ in range(3))
        torch.testing.assert_close(
            naive_attention(q, k, v), F.scaled_dot_product_attention(q, k, v), atol=1e-4, rtol=1e-4
        )
        # A short budget per length: the sweep is about the trend, not the last percent.
        table = compare(
            {"naive": naive_attention, "sdpa": F.scaled_dot_product_attention},
            q,
            k,
            v,
            budget_s=0.5,
        )
        rows.append(
            {
                "L": n,
                "score matrix": batch * heads * n * n * 4,
                "naive s": table["naive"].median_s,
                "sdpa s": table["sdpa"].median_s,
                "speedup": table.speedup("sdpa"),
                "ratio": table.ratio("sdpa"),
                "naive peak": peak_bytes(naive_attention, q, k, v),
                "sdpa peak": peak_bytes(F.scaled_dot_product_attention, q, k, v),
            }
        )

mib = 2**20
print(
    f"{'L':>5} {'naive':>9} {'sdpa':>9} {'sdpa speedup (95%)':>19} "
    f"{'L*L scores':>10} {'naive peak':>10} {'sdpa peak':>9}"
)
for r in rows:
    interval = f"{r['speedup']:.2f}x ({r['ratio'].low:.2f}–{r['ratio'].high:.2f})"
    print(
        f"{r['L']:>5} {r['naive s'] * 1e3:>7.2f}ms {r['sdpa s'] * 1e3:>7.2f}ms {interval:>19} "
        f"{r['score matrix'] / mib:>7.1f}MiB {r['naive peak'] / mib:>7.1f}MiB "
        f"{r['sdpa peak'] / mib:>6.1f}MiB"
    )
stamp = environment()  # while still on one thread, so the stamp says so
torch.set_num_threads(threads_before)
print(stamp)

fig, (ax_time, ax_mem, ax_speed) = plt.subplots(1, 3, figsize=(13, 4), layout="constrained")
Ls = [r["L"] for r in rows]
ax_time.loglog(Ls, [r["naive s"] * 1e3 for r in rows], "o-", label="hand-written")
ax_time.loglog(Ls, [r["sdpa s"] * 1e3 for r in rows], "s-", label="SDPA")
ax_time.set(xlabel="sequence length L", ylabel="median time per call (ms)", title="Time")
ax_mem.loglog(Ls, [r["naive peak"] / mib for r in rows], "o-", label="hand-written (measured)")
ax_mem.loglog(Ls, [r["sdpa peak"] / mib for r in rows], "s-", label="SDPA (measured)")
ax_mem.loglog(Ls, [r["score matrix"] / mib for r in rows], "k--", label="one L×L score matrix")
ax_mem.set(xlabel="sequence length L", ylabel="peak allocated (MiB)", title="Peak memory")
speedups = [r["speedup"] for r in rows]
whiskers = [
    [r["speedup"] - r["ratio"].low for r in rows],
    [r["ratio"].high - r["speedup"] for r in rows],
]
ax_speed.axhspan(1 / (1 + SAME_BAND), 1 + SAME_BAND, color="0.5", alpha=0.25, lw=0)
ax_speed.errorbar(Ls, speedups, yerr=whiskers, fmt="o-", capsize=3, label="SDPA over hand-written")
ax_speed.set_xscale("log")
ax_speed.set(xlabel="sequence length L", ylabel="speedup (x, 95% interval)", title="Speedup")
for ax in (ax_time, ax_mem, ax_speed):
    ax.set_xticks(Ls, [str(n) for n in Ls])
    ax.minorticks_off()
    ax.legend()
fig.suptitle(f"Attention, batch {batch}, {heads} heads, head dim {head_dim}, float32, 1 CPU thread")
plt.show()

# %%
# .. _pt2-attention-in-depth-cuda-memory:
#
# On a GPU: ``torch.cuda.max_memory_allocated``
# ---------------------------------------------
# CUDA keeps its own peak counter, so the profiler is not needed there: reset
# it, run, read it. Guarded: it runs only where CUDA exists.
import math

import torch
import torch.nn.functional as F


def naive_attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


if torch.cuda.is_available():
    q, k, v = (torch.randn(1, 4, 4096, 64, device="cuda") for _ in range(3))
    for name, fn in (("naive", naive_attention), ("sdpa", F.scaled_dot_product_attention)):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        fn(q, k, v)
        torch.cuda.synchronize()
        print(
            f"{name}: peak {(torch.cuda.max_memory_allocated() - base) / 2**20:.1f} MiB above inputs"
        )
else:
    print("skipped: no CUDA device; the CPU numbers above come from the profiler instead")
