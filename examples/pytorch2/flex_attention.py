r"""
FlexAttention
=============

``flex_attention`` is attention whose scores and mask you write as small Python functions, which ``torch.compile`` turns into one fused kernel that skips the masked-out blocks.

Summary
-------

====================================  ==============================================================================
You want                              Call
====================================  ==============================================================================
change every score (bias, capping)    :entry:`flex_attention(q, k, v, score_mod=fn) <pt2-flex-attention-score-mod>`
causal attention, block-sparse        :entry:`create_block_mask(causal, None, None, L, L) <pt2-flex-attention-causal>`
how much a mask skips                 :entry:`block_mask.sparsity() <pt2-flex-attention-causal>`, ``print(block_mask)``
sliding-window attention              :entry:`and_masks(causal, window) <pt2-flex-attention-sliding-window>`
packed sequences, one mask            :entry:`doc[q_idx] == doc[kv_idx] <pt2-flex-attention-documents>`
the same mask, dense, for SDPA        :entry:`create_mask(mask_mod, ...) <pt2-flex-attention-documents>`
a mask per sequence of a batch        :entry:`lengths[b] in mask_mod <pt2-flex-attention-per-sequence>`, ``create_block_mask(fn, B, ...)``
dropout on attention weights          :entry:`SDPA(..., attn_mask=create_mask(...), dropout_p=p) <pt2-flex-attention-dropout>`
what runs on a CPU                    :entry:`eager: forward only, unfused <pt2-flex-attention-cpu>`
the fused kernel                      :entry:`torch.compile(flex_attention) <pt2-flex-attention-benchmark>`
flex against SDPA, timed here         :entry:`compare(...) <pt2-flex-attention-benchmark>` on a sliding window
on a GPU, with backward               :entry:`device="cuda" <pt2-flex-attention-cuda>`, ``bfloat16``
====================================  ==============================================================================
"""

# %%
# .. _pt2-flex-attention-score-mod:
#
# score_mod: change each score
# ----------------------------
# ``score_mod(score, b, h, q_idx, kv_idx)`` gets one scaled score ``q·k/√E``
# and its indices (0-D tensors) and returns the new score; softmax follows.
# Here ALiBi, a per-head linear penalty on distance, is checked against the
# same bias added by hand. Without ``torch.compile`` the call runs an unfused
# reference path and warns once (see :ref:`pt2-flex-attention-cpu`).
import math
import warnings

import torch
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)
B, H, L, E = 2, 4, 256, 32
q, k, v = (torch.randn(B, H, L, E) for _ in range(3))
slopes = torch.exp2(-8.0 * torch.arange(1, H + 1) / H)  # one slope per head


def alibi(score, b, h, q_idx, kv_idx):
    return score + slopes[h] * (kv_idx - q_idx)


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = flex_attention(q, k, v, score_mod=alibi)
for warning in caught:  # once per process
    print(f"{warning.category.__name__}: {str(warning.message).splitlines()[0]}")

pos = torch.arange(L)
bias = slopes[:, None, None] * (pos[None, None, :] - pos[None, :, None])  # (H, L, L)
by_hand = (q @ k.transpose(-2, -1) / math.sqrt(E) + bias).softmax(dim=-1) @ v
torch.testing.assert_close(out, by_hand)
print(
    "ALiBi through score_mod == softmax(q @ kᵀ / √E + bias) @ v, max error",
    (out - by_hand).abs().max().item(),
)

# %%
# Soft-capping (Gemma 2, Grok) squashes each score into ``(-cap, cap)`` with
# ``tanh``: a nonlinear change that a float ``attn_mask`` for
# :ref:`SDPA <pt2-sdpa-masks>` cannot express, since a mask can only add.
import math
import warnings

import torch
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)
q, k, v = (torch.randn(2, 4, 256, 32) * 3 for _ in range(3))
cap = 20.0


def soft_cap(score, b, h, q_idx, kv_idx):
    return cap * torch.tanh(score / cap)


with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    out = flex_attention(q, k, v, score_mod=soft_cap)
scores = q @ k.transpose(-2, -1) / math.sqrt(32)
by_hand = (cap * torch.tanh(scores / cap)).softmax(dim=-1) @ v
torch.testing.assert_close(out, by_hand)
print(f"largest score {scores.abs().max():.1f}, capped to below {cap}: matches by hand")

# %%
# .. _pt2-flex-attention-causal:
#
# create_block_mask: causal
# -------------------------
# A ``mask_mod(b, h, q_idx, kv_idx)`` returns ``True`` where a query may see a
# key. ``create_block_mask`` evaluates it once over the whole grid
# and keeps, per 128 × 128 tile, whether the tile is empty, full or partial; the
# compiled kernel never loads the empty ones. ``None`` for batch or heads means
# the mask is the same for all. Printing the mask draws the tiles;
# ``sparsity()`` is the percentage skipped. The result equals SDPA's
# :ref:`is_causal=True <pt2-sdpa-causal>`.
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


L = 512
block_mask = create_block_mask(causal, None, None, L, L, device="cpu")
print(block_mask)
print(f"tiles skipped: {block_mask.sparsity():.1f}%")

torch.manual_seed(0)
q, k, v = (torch.randn(2, 4, L, 64) for _ in range(3))
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    out = flex_attention(q, k, v, block_mask=block_mask)
torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True))
print("flex with a causal block mask == SDPA is_causal=True")

# %%
# .. _pt2-flex-attention-sliding-window:
#
# Sliding window: combine mask functions
# --------------------------------------
# ``and_masks`` and ``or_masks`` combine mask functions. Causal and
# "at most ``window`` positions back" make a sliding window: the band of tiles
# along the diagonal is all that is computed. SDPA needs the same rule as an
# explicit boolean mask (``True`` = attend) and computes every tile.
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import and_masks, create_block_mask, flex_attention

L, window = 1024, 128


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def near(b, h, q_idx, kv_idx):
    return q_idx - kv_idx < window


block_mask = create_block_mask(and_masks(causal, near), None, None, L, L, device="cpu")
print(block_mask)
print(f"tiles skipped: {block_mask.sparsity():.1f}%")

torch.manual_seed(0)
q, k, v = (torch.randn(1, 4, L, 64) for _ in range(3))
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    out = flex_attention(q, k, v, block_mask=block_mask)
i = torch.arange(L)
allowed = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < window)
torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=allowed))
print("sliding window: flex == SDPA with the boolean mask")

# %%
# .. _pt2-flex-attention-documents:
#
# Document masking: packed sequences
# ----------------------------------
# Several sequences packed end to end into one row waste no padding; a
# document id per position keeps each token inside its own sequence. The mask
# function indexes a tensor it closes over. ``create_mask`` turns
# any ``mask_mod`` into the dense ``(B, H, L, L)`` boolean mask SDPA takes,
# checked here against the mask built by hand.
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import (
    and_masks,
    create_block_mask,
    create_mask,
    flex_attention,
)

lengths = torch.tensor([300, 60, 100, 52])  # four sequences, 512 positions in all
doc = torch.repeat_interleave(torch.arange(len(lengths)), lengths)
L = len(doc)


def same_doc(b, h, q_idx, kv_idx):
    return doc[q_idx] == doc[kv_idx]


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


packed = and_masks(same_doc, causal)
block_mask = create_block_mask(packed, None, None, L, L, device="cpu")
print(block_mask)
print(f"tiles skipped: {block_mask.sparsity():.1f}%")

i = torch.arange(L)
allowed = (doc[:, None] == doc[None, :]) & (i[:, None] >= i[None, :])
assert torch.equal(create_mask(packed, None, None, L, L, device="cpu")[0, 0], allowed)

torch.manual_seed(0)
q, k, v = (torch.randn(1, 4, L, 64) for _ in range(3))
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    out = flex_attention(q, k, v, block_mask=block_mask)
torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=allowed))
first = slice(0, 300)  # the first document alone, as if unpacked
alone = F.scaled_dot_product_attention(
    q[..., first, :], k[..., first, :], v[..., first, :], is_causal=True
)
torch.testing.assert_close(out[..., first, :], alone)
print("packed: flex == SDPA with the mask, and document 0 == document 0 on its own")

# %%
# .. _pt2-flex-attention-per-sequence:
#
# A different mask for each sequence of a batch
# ----------------------------------------------
# ``mask_mod`` gets the batch index ``b`` too, so a mask can read a per-sequence
# tensor: here each sequence's own length, which masks its padding as keys. Give
# ``create_block_mask`` the batch size (``B``) instead of ``None`` and it builds one
# mask per sequence; a tile wholly past a sequence's length is skipped. Lengths that
# change from batch to batch need a new block mask for each batch, made the same way.
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, create_mask, flex_attention

lengths = torch.tensor([512, 300, 100])  # real tokens in each sequence of a batch of 3
B, L = len(lengths), 512


def within_length(b, h, q_idx, kv_idx):  # b: which sequence, so its own length
    return kv_idx < lengths[b]


block_mask = create_block_mask(within_length, B, None, L, L, device="cpu")
print(block_mask.shape, f"- tiles skipped: {block_mask.sparsity():.1f}%")
dense = create_mask(within_length, B, None, L, L, device="cpu")  # (B, 1, L, L) for SDPA
keys = torch.arange(L)
by_hand = (keys < lengths[:, None])[:, None, None, :].expand(B, 1, L, L)
print("per-sequence mask as built by hand:", torch.equal(dense, by_hand))

torch.manual_seed(0)
q, k, v = (torch.randn(B, 2, L, 16) for _ in range(3))
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    out = flex_attention(q, k, v, block_mask=block_mask)
torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=dense))
short = slice(0, 100)  # the third sequence alone, without its padding
alone = F.scaled_dot_product_attention(q[2:, :, short], k[2:, :, short], v[2:, :, short])
torch.testing.assert_close(out[2:, :, short], alone)
print("flex == SDPA with the dense mask, and sequence 2 == sequence 2 unpadded")

# %%
# .. _pt2-flex-attention-dropout:
#
# Dropout on attention weights
# ----------------------------
# ``flex_attention`` takes no dropout probability (its parameters are printed
# below), and a ``score_mod`` cannot stand in for one: it changes scores before the
# softmax, so a score set to ``-inf`` is renormalised away, where dropout zeroes
# weights after the softmax and scales the rest by ``1 / (1 - p)``. To train with
# attention dropout, run the same mask dense through
# ``F.scaled_dot_product_attention(..., dropout_p=p)`` (``create_mask`` makes it from
# the ``mask_mod``), or put the dropout after the attention instead, or train
# without attention dropout, as many recent language models do.
import inspect
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, create_mask, flex_attention

print("flex_attention's parameters:", ", ".join(inspect.signature(flex_attention).parameters))


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


L = 256
dense = create_mask(causal, None, None, L, L, device="cpu")
torch.manual_seed(0)
q, k, v = (torch.randn(2, 4, L, 32) for _ in range(3))
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    flex = flex_attention(q, k, v, block_mask=create_block_mask(causal, None, None, L, L, "cpu"))
torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=dense), flex)
print("SDPA with the dense mask and no dropout matches flex")
torch.manual_seed(1)
first = F.scaled_dot_product_attention(q, k, v, attn_mask=dense, dropout_p=0.1)
torch.manual_seed(1)
again = F.scaled_dot_product_attention(q, k, v, attn_mask=dense, dropout_p=0.1)
print("with dropout_p=0.1: differs from no dropout:", not torch.allclose(first, flex),
      "| the same seed repeats it:", torch.equal(first, again))  # fmt: skip

# %%
# .. _pt2-flex-attention-cpu:
#
# What runs on a CPU
# ------------------
# Called as is, ``flex_attention`` runs a reference path: it materialises the
# whole ``L × L`` score matrix, applies the functions with ``vmap``, and warns
# once per process (printed in :ref:`pt2-flex-attention-score-mod`). It skips
# no tiles, so a block mask saves no work there, only the masked scores. The
# fused, tile-skipping kernel comes from ``torch.compile(flex_attention)``,
# whose CPU backend is an Inductor C++ template, forward only (timed in
# :ref:`pt2-flex-attention-benchmark`). Neither path has a backward
# pass on the CPU (2.14 and later, checked): an input with ``requires_grad`` is refused before
# anything runs, so training with flex needs a GPU.
import warnings

import torch
from torch.nn.attention.flex_attention import flex_attention

q, k, v = (torch.randn(1, 2, 128, 32) for _ in range(3))
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    print("eager forward:", tuple(flex_attention(q, k, v).shape))
    try:
        flex_attention(q.requires_grad_(), k, v)
    except NotImplementedError as err:
        print(f"with requires_grad: NotImplementedError: {err}")

# %%
# .. _pt2-flex-attention-benchmark:
#
# Compiled flex against SDPA, timed here
# --------------------------------------
# The sliding window of :ref:`pt2-flex-attention-sliding-window`: SDPA with the
# boolean mask (its CPU flash kernel computes every tile), eager flex
# (materialises everything), and compiled flex (skips the empty tiles). The
# first compiled call generates and compiles C++, so it runs once, checked
# against SDPA, before the timing, and its time is printed on its own (several
# times longer when Inductor's on-disk cache is cold, on a first run).
# ``compare`` then alternates the three on one thread, baseline SDPA. Bars:
# speedup with 95% interval.
import time
import warnings

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import and_masks, create_block_mask, flex_attention

from cheatsheet import compare, format_seconds

L, window = 1024, 128


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def near(b, h, q_idx, kv_idx):
    return q_idx - kv_idx < window


block_mask = create_block_mask(and_masks(causal, near), None, None, L, L, device="cpu")
i = torch.arange(L)
allowed = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < window)
torch.manual_seed(0)
q, k, v = (torch.randn(1, 4, L, 64) for _ in range(3))
reference = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
compiled_flex = torch.compile(flex_attention)

threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    start = time.perf_counter()
    first = compiled_flex(q, k, v, block_mask=block_mask)
    compile_s = time.perf_counter() - start
    torch.testing.assert_close(first, reference)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
        table = compare(
            {
                "SDPA, boolean mask": lambda: F.scaled_dot_product_attention(
                    q, k, v, attn_mask=allowed
                ),
                "flex, eager": lambda: flex_attention(q, k, v, block_mask=block_mask),
                "flex, compiled": lambda: compiled_flex(q, k, v, block_mask=block_mask),
            },
            budget_s=1.5,
        )
finally:
    torch.set_num_threads(threads)
print(f"first compiled call (compiles the kernel): {format_seconds(compile_s)}")
print(f"tiles skipped by the compiled kernel: {block_mask.sparsity():.1f}%")
for verdict in table.verdicts():
    print(f"On this machine, {verdict}.")
table.plot(title=f"Sliding window {window}, (1, 4, {L}, 64) float32: speedup over SDPA")
plt.show()
table

# %%
# .. _pt2-flex-attention-cuda:
#
# On a GPU: compiled, in bfloat16, with backward
# ----------------------------------------------
# On CUDA the compiled kernel is generated in Triton, and the backward pass is
# compiled with it, so flex trains. The block mask must live on the same device
# as the inputs. The timing compares against SDPA with the boolean mask (which
# rules out FlashAttention, see :ref:`pt2-sdpa-which-kernel`) and against
# ``is_causal=True``, the full causal kernel with no window.
import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import and_masks, create_block_mask, flex_attention

from cheatsheet import compare

if torch.cuda.is_available():
    L, window = 4096, 256

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    def near(b, h, q_idx, kv_idx):
        return q_idx - kv_idx < window

    block_mask = create_block_mask(and_masks(causal, near), None, None, L, L, device="cuda")
    i = torch.arange(L, device="cuda")
    allowed = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < window)
    torch.manual_seed(0)
    q, k, v = (
        torch.randn(4, 16, L, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        for _ in range(3)
    )
    compiled_flex = torch.compile(flex_attention)
    out = compiled_flex(q, k, v, block_mask=block_mask)
    out.sum().backward()
    reference = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    torch.testing.assert_close(out, reference, atol=2e-2, rtol=2e-2)
    print("CUDA: compiled flex == SDPA; gradient of q:", tuple(q.grad.shape))
    with torch.no_grad():
        table = compare(
            {
                "SDPA, boolean mask": lambda: F.scaled_dot_product_attention(
                    q, k, v, attn_mask=allowed
                ),
                "SDPA, is_causal (no window)": lambda: F.scaled_dot_product_attention(
                    q, k, v, is_causal=True
                ),
                "flex, compiled": lambda: compiled_flex(q, k, v, block_mask=block_mask),
            },
            device="cuda",
        )
    for verdict in table.verdicts():
        print(f"On this GPU, {verdict}.")
else:
    print("skipped the CUDA run (compiled flex, backward, timing): no CUDA device here")
