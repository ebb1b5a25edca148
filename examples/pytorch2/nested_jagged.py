r"""
Nested jagged tensors
=====================

A nested jagged tensor (NJT, ``layout=torch.jagged``) holds a batch of sequences of different lengths packed end to end, without padding, and behaves as one tensor of shape ``(B, j1, ...)``.

Summary
-------

==================================  ========================================================================================
You want                            Call
==================================  ========================================================================================
a batch of variable-length rows     :entry:`nested_tensor(seqs, layout=torch.jagged) <pt2-nested-jagged-create>` (copies)
the packed data and boundaries      :entry:`nt.values(), nt.offsets() <pt2-nested-jagged-create>`
the sequences back                  :entry:`nt.unbind() <pt2-nested-jagged-create>`, ``nt[i]``
keep autograd to the list           :entry:`as_nested_tensor(seqs, layout=torch.jagged) <pt2-nested-jagged-autograd>`
a padded tensor                     :entry:`nt.to_padded_tensor(0.0) <pt2-nested-jagged-padded>`
from padded + lengths (a view)      :entry:`torch.nested.narrow(padded, 1, 0, lengths) <pt2-nested-jagged-padded>`
from packed values + offsets        :entry:`nested_tensor_from_jagged(values, offsets) <pt2-nested-jagged-padded>`, no copy
which operations work               :entry:`linear, layer_norm, sum(dim=1) <pt2-nested-jagged-ops>`; not ``nt @ ntᵀ``
attention over ragged sequences     :entry:`F.scaled_dot_product_attention(q, k, v) <pt2-nested-jagged-sdpa>` on ``(B, H, j, D)``
what SDPA refuses on a CPU          :entry:`is_causal=True, non-contiguous q <pt2-nested-jagged-sdpa-limits>`
padded against jagged, timed here   :entry:`compare(...) <pt2-nested-jagged-benchmark>`, with the padding waste
compile once for all lengths        :entry:`torch.compile(fn)(nt) <pt2-nested-jagged-compile>`
on a GPU                            :entry:`device="cuda" <pt2-nested-jagged-cuda>` (fused varlen kernels)
==================================  ========================================================================================
"""

# %%
# .. _pt2-nested-jagged-create:
#
# nested_tensor(..., layout=torch.jagged)
# ---------------------------------------
# ``torch.nested.nested_tensor`` with ``layout=torch.jagged`` (a prototype)
# copies a list of tensors that differ only in their first
# dimension. The ragged dimension shows as a symbol (``j1``), not a number.
# Underneath sit one packed ``values`` tensor ``(total, E)`` and ``offsets``,
# where sequence ``i`` spans ``values[offsets[i]:offsets[i+1]]``.
import torch

torch.manual_seed(0)
seqs = [torch.randn(n, 8) for n in (3, 5, 2)]
nt = torch.nested.nested_tensor(seqs, layout=torch.jagged)
print(nt)
print("shape:", nt.shape, " dim:", nt.dim(), " layout:", nt.layout)
print("values:", tuple(nt.values().shape), " offsets:", nt.offsets().tolist())
print("unbind:", [tuple(t.shape) for t in nt.unbind()], " nt[1]:", tuple(nt[1].shape))
assert all(torch.equal(a, b) for a, b in zip(nt.unbind(), seqs, strict=True))

# %%
# .. _pt2-nested-jagged-autograd:
#
# as_nested_tensor keeps autograd
# -------------------------------
# ``nested_tensor`` builds a new leaf with no history, like ``torch.tensor``.
# ``torch.nested.as_nested_tensor`` keeps the graph, so gradients reach the
# tensors in the list.
import torch

torch.manual_seed(0)
seqs = [torch.randn(n, 8, requires_grad=True) for n in (3, 5, 2)]
nt = torch.nested.as_nested_tensor(seqs, layout=torch.jagged)
print("grad_fn:", type(nt.grad_fn).__name__)
nt.values().pow(2).sum().backward()
torch.testing.assert_close(seqs[1].grad, 2 * seqs[1].detach())
print("gradient reached each sequence:", [tuple(s.grad.shape) for s in seqs])
print("nested_tensor instead:", torch.nested.nested_tensor(seqs, layout=torch.jagged).grad_fn)

# %%
# .. _pt2-nested-jagged-padded:
#
# To and from a padded tensor
# ---------------------------
# ``to_padded_tensor(value)`` pads to the longest sequence. Back from a padded
# batch and its lengths, ``torch.nested.narrow`` gives a non-contiguous view
# (no copy, padding kept in memory);
# ``nested_tensor_from_jagged(values, offsets)`` wraps packed
# values without copying them, as a data loader that packs sequences would.
# Its first call logs a deprecation note from inside ``torch.fx``, which the
# block keeps quiet.
import logging

import torch

torch.manual_seed(0)
lengths = torch.tensor([3, 5, 2])
nt = torch.nested.nested_tensor([torch.randn(n, 8) for n in lengths.tolist()], layout=torch.jagged)
padded = nt.to_padded_tensor(0.0)
print("padded:", tuple(padded.shape), " zeros added:", padded.numel() - nt.values().numel())

view = torch.nested.narrow(padded, 1, 0, lengths, layout=torch.jagged)  # start: int or per row
print("narrow:", view.shape, " contiguous:", view.is_contiguous())

real = torch.arange(padded.shape[1]) < lengths[:, None]  # (B, max_len) True on data
values = padded[real]  # (total, 8), packed
offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
fx_log = logging.getLogger("torch.fx._symbolic_trace")
fx_level = fx_log.level
fx_log.setLevel(logging.ERROR)
try:
    rebuilt = torch.nested.nested_tensor_from_jagged(values, offsets)
finally:
    fx_log.setLevel(fx_level)
print(
    "from_jagged:",
    rebuilt.shape,
    " shares values:",
    rebuilt.values().data_ptr() == values.data_ptr(),
)
for a, b, c in zip(nt.unbind(), view.unbind(), rebuilt.unbind(), strict=True):
    assert torch.equal(a, b)
    assert torch.equal(a, c)
print("all three hold the same sequences")

# %%
# .. _pt2-nested-jagged-ops:
#
# Which operations work
# ---------------------
# Operations on the last dimensions run on ``values`` directly: pointwise,
# ``nn.Linear``, ``layer_norm``, ``softmax``. Reductions over the ragged
# dimension (``dim=1``) give one dense row per sequence. What needs two ragged
# dimensions at once, such as the score matrix ``q @ kᵀ`` of attention, fails:
# that is what :ref:`SDPA <pt2-nested-jagged-sdpa>` is for. The list is what
# the build's torch does: every try prints its outcome.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
nt = torch.nested.nested_tensor([torch.randn(n, 8) for n in (3, 5, 2)], layout=torch.jagged)
linear = torch.nn.Linear(8, 16)
attempts = {
    "nt * 2 + 1": lambda: nt * 2 + 1,
    "F.gelu(nt)": lambda: F.gelu(nt),
    "linear(nt)": lambda: linear(nt),
    "F.layer_norm(nt, (8,))": lambda: F.layer_norm(nt, (8,)),
    "nt.softmax(dim=1)": lambda: nt.softmax(dim=1),
    "nt.sum(dim=1)": lambda: nt.sum(dim=1),
    "nt.mean(dim=1)": lambda: nt.mean(dim=1),
    "nt.unflatten(-1, (2, 4))": lambda: nt.unflatten(-1, (2, 4)),
    "nt @ nt.transpose(1, 2)": lambda: nt @ nt.transpose(1, 2),
    "nt.cumsum(dim=1)": lambda: nt.cumsum(dim=1),
    "torch.cat([nt, nt])": lambda: torch.cat([nt, nt]),
}
for code, attempt in attempts.items():
    try:
        print(f"{code:26} -> {attempt().shape}")
    except (RuntimeError, NotImplementedError) as err:
        print(f"{code:26} -> {type(err).__name__}: {str(err).splitlines()[0]}")

padded = nt.to_padded_tensor(0.0)
torch.testing.assert_close(nt.sum(dim=1), padded.sum(dim=1))  # zeros add nothing
print("sum over the ragged dimension == padded sum")

# %%
# .. _pt2-nested-jagged-sdpa:
#
# SDPA on jagged sequences
# ------------------------
# Projections run on the packed tokens; splitting heads gives
# ``(B, j, H, D)``, and ``transpose(1, 2)`` the ``(B, H, j, D)`` that
# :ref:`SDPA <pt2-sdpa-call>` takes. Each sequence attends only within
# itself, with no mask. The output equals dense SDPA run on each sequence
# alone. On the CPU the call takes the math path, which copies ``q``, ``k``
# and ``v`` into the older strided nested tensors, computes attention one
# sequence at a time, and warns once that those are a prototype; the block
# silences that warning.
import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
heads, head_dim = 4, 16
x = torch.nested.nested_tensor(
    [torch.randn(n, heads * head_dim) for n in (5, 9, 3)], layout=torch.jagged
)
to_q, to_k, to_v = (torch.nn.Linear(heads * head_dim, heads * head_dim) for _ in range(3))


def split_heads(t):
    return t.unflatten(-1, (heads, head_dim)).transpose(1, 2)  # (B, j, E) -> (B, H, j, D)


q, k, v = split_heads(to_q(x)), split_heads(to_k(x)), split_heads(to_v(x))
print("q:", q.shape)
with torch.no_grad(), warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors is in prototype")
    out = F.scaled_dot_product_attention(q, k, v)
    for o_i, q_i, k_i, v_i in zip(out.unbind(), q.unbind(), k.unbind(), v.unbind(), strict=True):
        torch.testing.assert_close(o_i, F.scaled_dot_product_attention(q_i, k_i, v_i))
print("out:", out.shape, "== dense SDPA on each sequence")

# %%
# .. _pt2-nested-jagged-sdpa-limits:
#
# What jagged SDPA refuses on a CPU
# ---------------------------------
# The CPU has only the math path for NJT, and it takes neither
# ``is_causal=True`` nor inputs whose ``(B, j, H, D)`` values are not
# contiguous, such as ``chunk`` slices of one fused ``qkv`` projection. With
# no kernel left, a CPU-only build raises "No viable backend"; a CUDA build on a
# machine without a GPU goes on to ask cuDNN and fails with a CUDA error
# instead. Both are ``RuntimeError``. The guard: ``.contiguous()`` each slice
# before splitting heads; for causal attention on a CPU, pad and pass a mask.
import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
heads, head_dim = 4, 16
x = torch.nested.nested_tensor([torch.randn(n, 64) for n in (5, 9, 3)], layout=torch.jagged)
to_qkv = torch.nn.Linear(64, 3 * 64)


def split_heads(t):
    return t.unflatten(-1, (heads, head_dim)).transpose(1, 2)


def attempt(label, q, k, v, **kwargs):
    try:
        out = F.scaled_dot_product_attention(q, k, v, **kwargs)
        print(f"{label:24} ok, {out.shape}")
    except RuntimeError as err:
        print(f"{label:24} {type(err).__name__}: {str(err).splitlines()[0]}")


with torch.no_grad(), warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors is in prototype")
    slices = to_qkv(x).chunk(3, dim=-1)
    attempt("chunk slices", *(split_heads(t) for t in slices))
    q, k, v = (split_heads(t.contiguous()) for t in slices)
    attempt("contiguous slices", q, k, v)
    attempt("is_causal=True", q, k, v, is_causal=True)

# %%
# .. _pt2-nested-jagged-benchmark:
#
# Padded against jagged, timed here
# ---------------------------------
# A skewed batch, one long sequence and fifteen short ones, is where padding
# wastes most. ``compare`` times two parts of a transformer layer on one
# thread: the MLP (token-wise, so jagged does only the real rows) and the
# attention block (projections and SDPA; the padded batch hides padding keys
# with a mask). On the CPU jagged SDPA takes the math path, which copies the
# sequences into strided nested tensors and computes them one at a time.
# On CUDA, jagged SDPA runs FlashAttention or memory-efficient varlen kernels
# on the packed tokens (see :ref:`pt2-nested-jagged-cuda`).
import warnings

import torch
import torch.nn.functional as F

from cheatsheet import compare

torch.manual_seed(0)
heads, head_dim = 4, 16
width = heads * head_dim
lengths = torch.tensor([256] + [8] * 15)
nt = torch.nested.nested_tensor(
    [torch.randn(n, width) for n in lengths.tolist()], layout=torch.jagged
)
padded = nt.to_padded_tensor(0.0)
keep = (torch.arange(padded.shape[1]) < lengths[:, None])[:, None, None, :]  # (B, 1, 1, L)
print(
    f"padded {padded.shape[0] * padded.shape[1]} rows for {int(lengths.sum())} real ones: "
    f"{1 - lengths.sum() / (padded.shape[0] * padded.shape[1]):.0%} padding"
)

mlp = torch.nn.Sequential(
    torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width)
)
to_qkv, to_out = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)


def attention(x, mask=None):
    q, k, v = (
        t.contiguous().unflatten(-1, (heads, head_dim)).transpose(1, 2)
        for t in to_qkv(x).chunk(3, -1)
    )
    return to_out(
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask).transpose(1, 2).flatten(-2)
    )


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="The PyTorch API of nested tensors is in prototype"
        )
        jagged_out = attention(nt)
        for i, n in enumerate(lengths.tolist()):
            torch.testing.assert_close(jagged_out[i], attention(padded, keep)[i, :n])
        mlp_table = compare(
            {"padded": lambda: mlp(padded), "jagged": lambda: mlp(nt)}, budget_s=1.0
        )
        attention_table = compare(
            {"padded": lambda: attention(padded, keep), "jagged": lambda: attention(nt)},
            budget_s=1.0,
        )
finally:
    torch.set_num_threads(threads)
for part, table in (("MLP", mlp_table), ("attention", attention_table)):
    print(table)
    for verdict in table.verdicts():
        print(f"{part}: on this machine, {verdict}.")

# %%
# .. _pt2-nested-jagged-compile:
#
# torch.compile with jagged inputs
# --------------------------------
# Dynamo treats the ragged length as symbolic: a batch with other lengths
# reuses the graph (``fail_on_recompile`` would raise otherwise); a different
# batch size recompiles. The first call compiles, timed here. In 2.14
# Inductor cannot hash a jagged tensor for its on-disk cache: it warns, and
# when it fails to pickle the cache key it logs a traceback; the graph compiles
# all the same, uncached. The block keeps both quiet.
import logging
import time
import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
mlp = torch.nn.Sequential(
    torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)
).eval()


def residual_mlp(x):
    return F.layer_norm(x + mlp(x), (64,))


compiled = torch.compile(residual_mlp)
first = torch.nested.nested_tensor([torch.randn(n, 64) for n in (3, 7, 5)], layout=torch.jagged)
other = torch.nested.nested_tensor([torch.randn(n, 64) for n in (9, 2, 6)], layout=torch.jagged)
cache_log = logging.getLogger("torch._inductor.codecache")
cache_level = cache_log.level
cache_log.setLevel(logging.ERROR)
try:
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="NestedTensor does not implement _stable_hash")
        start = time.perf_counter()
        out = compiled(first)
        print(f"first call, compiling: {time.perf_counter() - start:.1f} s")
        torch.testing.assert_close(out.values(), residual_mlp(first).values())
        with torch.compiler.set_stance("fail_on_recompile"):
            torch.testing.assert_close(compiled(other).values(), residual_mlp(other).values())
finally:
    cache_log.setLevel(cache_level)
print("new lengths, same batch size: no recompile, same result as eager")

# %%
# .. _pt2-nested-jagged-cuda:
#
# On a GPU: fused varlen attention
# --------------------------------
# On CUDA in ``float16`` or ``bfloat16``, jagged SDPA goes to FlashAttention or
# the memory-efficient kernel, which take the offsets directly and compute no
# padded scores; ``is_causal=True`` is accepted there. The block checks one
# sequence against dense SDPA and times the same attention padded and jagged.
import torch
import torch.nn.functional as F

from cheatsheet import compare

if torch.cuda.is_available():
    torch.manual_seed(0)
    lengths = [2048] + [64] * 31
    opts = {"device": "cuda", "dtype": torch.bfloat16}
    q, k, v = (
        torch.nested.nested_tensor(
            [torch.randn(n, 8, 64, **opts) for n in lengths], layout=torch.jagged
        ).transpose(1, 2)
        for _ in range(3)
    )
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # Two kernels adding up bfloat16 in another order: equal to about one bfloat16 step.
    torch.testing.assert_close(
        out[1],
        F.scaled_dot_product_attention(q[1], k[1], v[1], is_causal=True),
        atol=1e-2,
        rtol=2e-2,
    )
    pq, pk, pv = (t.to_padded_tensor(0.0) for t in (q, k, v))
    real = torch.arange(max(lengths), device="cuda") < torch.tensor(lengths, device="cuda")[:, None]
    causal = torch.ones(max(lengths), max(lengths), dtype=torch.bool, device="cuda").tril()
    mask = real[:, None, None, :] & causal
    table = compare(
        {
            "padded, mask": lambda: F.scaled_dot_product_attention(pq, pk, pv, attn_mask=mask),
            "jagged, is_causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        },
        device="cuda",
    )
    for verdict in table.verdicts():
        print(f"On this GPU, {verdict}.")
else:
    print("skipped the CUDA run (fused jagged SDPA, timing): no CUDA device here")
