r"""
Recurrent cells and Transformer layers reference
================================================

The recurrent cells and loops of ``torch.nn`` and the Transformer stacks with
their masks, at sizes small enough that the printed shapes tell which dimension
is which.

Summary
-------

==============================================  ==================================================
You want                                        Call
==============================================  ==================================================
to step a tanh or ReLU RNN by hand              :entry:`nn.RNNCell <api-nn-rnncell>`
to step an LSTM by hand, carrying ``(h, c)``    :entry:`nn.LSTMCell <api-nn-lstmcell>`
to step a GRU by hand                           :entry:`nn.GRUCell <api-nn-grucell>`
to run a stacked, optionally bidirectional RNN  :entry:`nn.RNN <api-nn-rnn>`
to run an LSTM; ``proj_size`` shrinks ``h``     :entry:`nn.LSTM <api-nn-lstm>`
to run a GRU; ``h_n`` ignores ``batch_first``   :entry:`nn.GRU <api-nn-gru>`
one self-attention + feed-forward block         :entry:`nn.TransformerEncoderLayer <api-nn-transformerencoderlayer>`
to stack encoder layers, mask padding           :entry:`nn.TransformerEncoder <api-nn-transformerencoder>`
one masked self-, cross-attention block         :entry:`nn.TransformerDecoderLayer <api-nn-transformerdecoderlayer>`
to stack decoder layers over ``memory``         :entry:`nn.TransformerDecoder <api-nn-transformerdecoder>`
to build a causal ``tgt_mask``                  :entry:`generate_square_subsequent_mask(5) <api-nn-transformer-generate-square-subsequent-mask>`
a full encoder-decoder without embeddings       :entry:`nn.Transformer <api-nn-transformer>`
the attention block itself                      :entry:`nn.MultiheadAttention <api-nn-multiheadattention>`
==============================================  ==================================================
"""

# %%
# .. _api-nn-rnncell:
#
# torch.nn.RNNCell
# ----------------
# One step of an Elman RNN, ``h' = tanh(W_ih x + W_hh h + b)``; you write the
# loop over time yourself. ``nonlinearity="relu"`` swaps the tanh, and the
# hidden state defaults to zeros when you leave it out.
import torch
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(input_size=4, hidden_size=3)
seq = torch.randn(5, 2, 4)  # (time, batch, features)
h = torch.zeros(2, 3)
outputs = []
for x_t in seq:
    h = cell(x_t, h)
    outputs.append(h)
print("per step:", tuple(outputs[0].shape), "| stacked:", tuple(torch.stack(outputs).shape))

# %%
# .. _api-nn-lstmcell:
#
# torch.nn.LSTMCell
# -----------------
# One LSTM step that takes and returns the pair ``(h, c)``. Copy the layer-0
# weights of an ``nn.LSTM`` into a cell, loop over time, and you get the same
# numbers as the fused module.
import torch
from torch import nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=4, hidden_size=3)
cell = nn.LSTMCell(input_size=4, hidden_size=3)
with torch.no_grad():
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        getattr(cell, name).copy_(getattr(lstm, f"{name}_l0"))

seq = torch.randn(5, 2, 4)
h, c = torch.zeros(2, 3), torch.zeros(2, 3)
steps = []
for x_t in seq:
    h, c = cell(x_t, (h, c))
    steps.append(h)

out, (h_n, c_n) = lstm(seq)
print("outputs match:", torch.allclose(torch.stack(steps), out, atol=1e-6))
print(
    "final h and c match:",
    torch.allclose(h, h_n[0], atol=1e-6),
    torch.allclose(c, c_n[0], atol=1e-6),
)

# %%
# .. _api-nn-grucell:
#
# torch.nn.GRUCell
# ----------------
# One GRU step: reset and update gates, no separate cell state, so it carries
# a single tensor ``h`` like ``RNNCell`` does. Cells also take an unbatched
# 1-D input and return a 1-D state.
import torch
from torch import nn

torch.manual_seed(0)
cell = nn.GRUCell(input_size=4, hidden_size=3)
seq = torch.randn(5, 4)  # one sequence, no batch dimension
h = torch.zeros(3)
for x_t in seq:
    h = cell(x_t, h)
print("final state shape:", tuple(h.shape))
h.detach().round(decimals=4)

# %%
# .. _api-nn-rnn:
#
# torch.nn.RNN
# ------------
# The whole loop in one call, stacked ``num_layers`` deep. With
# ``bidirectional=True`` the output joins both directions on its last
# dimension (``2 * hidden_size``), while ``h_n`` has shape
# ``(num_layers * 2, batch, hidden_size)``: rows ordered layer by layer, forward
# then backward, so ``h_n[-2]`` and ``h_n[-1]`` are the top layer's two
# directions. The forward one ends at the last time step, the backward one at
# the first.
import torch
from torch import nn

torch.manual_seed(0)
rnn = nn.RNN(input_size=4, hidden_size=3, num_layers=2, bidirectional=True)
seq = torch.randn(5, 2, 4)
out, h_n = rnn(seq)
print("output:", tuple(out.shape), "| h_n:", tuple(h_n.shape))
print("h_n[-2] == forward half of output[-1]: ", torch.allclose(h_n[-2], out[-1, :, :3]))
print("h_n[-1] == backward half of output[0]:", torch.allclose(h_n[-1], out[0, :, 3:]))

# %%
# .. _api-nn-lstm:
#
# torch.nn.LSTM
# -------------
# Multi-layer LSTM returning ``output, (h_n, c_n)``. With ``proj_size`` the
# hidden state is projected down by an extra ``weight_hr_l0``, so the output and
# ``h_n`` have ``proj_size`` features while the cell state ``c_n`` keeps
# ``hidden_size``. On CPU builds with oneDNN, the first projected LSTM call of
# a process warns that it falls back to the plain kernel (caught and printed).
import warnings

import torch
from torch import nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=4, hidden_size=6, proj_size=3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out, (h_n, c_n) = lstm(torch.randn(5, 2, 4))
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).split(' (Triggered')[0]}")
print("output:", tuple(out.shape), "| h_n:", tuple(h_n.shape), "| c_n:", tuple(c_n.shape))
print(
    "weight_hr_l0:",
    tuple(lstm.weight_hr_l0.shape),
    "| weight_hh_l0:",
    tuple(lstm.weight_hh_l0.shape),
)

# %%
# .. _api-nn-gru:
#
# torch.nn.GRU
# ------------
# Multi-layer GRU returning ``output, h_n``. ``batch_first=True`` makes the
# input and output ``(batch, time, features)``, but the hidden state stays
# ``(num_layers, batch, hidden_size)``: the flag does not apply to it.
import torch
from torch import nn

torch.manual_seed(0)
gru = nn.GRU(input_size=4, hidden_size=3, num_layers=2, batch_first=True)
out, h_n = gru(torch.randn(2, 5, 4))
print("output:", tuple(out.shape), "| h_n:", tuple(h_n.shape))
print("last step of output == top layer of h_n:", torch.allclose(out[:, -1], h_n[-1]))

# %%
# .. _api-nn-transformerencoderlayer:
#
# torch.nn.TransformerEncoderLayer
# --------------------------------
# Self-attention followed by a feed-forward block, each with a residual and a
# LayerNorm; ``norm_first=True`` moves the norms before each block (pre-norm),
# which usually trains more stably in deep stacks. In ``eval()`` under
# ``torch.no_grad()`` (with ``batch_first=True`` and an even ``nhead``) it runs a
# fused kernel instead; train and eval outputs still differ only through dropout.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(2, 5, 8)  # (batch, seq, d_model) because batch_first=True
pre_norm = nn.TransformerEncoderLayer(
    d_model=8, nhead=2, dim_feedforward=16, batch_first=True, norm_first=True
)
print("norm_first output:", tuple(pre_norm(x).shape))

for p in (0.1, 0.0):
    layer = nn.TransformerEncoderLayer(
        d_model=8, nhead=2, dim_feedforward=16, dropout=p, batch_first=True
    )
    trained = layer.train()(x)
    with torch.no_grad():
        evaluated = layer.eval()(x)  # the fused path
    print(f"dropout={p}: train == eval? {torch.allclose(trained, evaluated, atol=1e-5)}")

# %%
# .. _api-nn-transformerencoder:
#
# torch.nn.TransformerEncoder
# ---------------------------
# Stacks ``num_layers`` deep copies of a layer. ``src_key_padding_mask`` is
# ``(batch, seq)`` with ``True`` at padding. We pass
# ``enable_nested_tensor=False``: with the default ``True``, a padded batch in
# eval under ``no_grad`` goes through prototype nested tensors, which warns
# that they are a prototype (caught and printed below) and returns exact zeros
# at padded positions (real positions agree). The constructor also warns when
# nesting cannot apply, for example with ``norm_first=True``.
import warnings

import torch
from torch import nn

torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
x = torch.randn(2, 5, 8)
padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])  # 2nd sequence has length 3
with torch.no_grad():
    out = encoder(x, src_key_padding_mask=padding)
print("output:", tuple(out.shape), "| padded rows all zero:", bool((out[1, 3:] == 0).all()))

nested = nn.TransformerEncoder(layer, num_layers=2).eval()  # enable_nested_tensor=True
with warnings.catch_warnings(record=True) as caught, torch.no_grad():
    warnings.simplefilter("always")
    out_nested = nested(x, src_key_padding_mask=padding)
    nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), num_layers=2
    )
print("default, padded rows all zero:", bool((out_nested[1, 3:] == 0).all()))
print("real positions agree:", torch.allclose(out[1, :3], out_nested[1, :3], atol=1e-6))
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).split('. ')[0]}")

# %%
# .. _api-nn-transformerdecoderlayer:
#
# torch.nn.TransformerDecoderLayer
# --------------------------------
# Masked self-attention over the target, cross-attention to the encoder output
# ``memory``, then a feed-forward block. With a causal ``tgt_mask``, editing a
# later target token leaves the outputs at earlier positions unchanged.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
layer.eval()
memory = torch.randn(2, 5, 8)  # encoder output: 5 source positions
tgt = torch.randn(2, 4, 8)  # 4 target positions
causal = nn.Transformer.generate_square_subsequent_mask(4)
out = layer(tgt, memory, tgt_mask=causal, tgt_is_causal=True)

edited = tgt.clone()
edited[:, 3] += 1.0  # change only the last target token
out_edited = layer(edited, memory, tgt_mask=causal, tgt_is_causal=True)
print("output:", tuple(out.shape))
print("positions 0-2 unchanged:", torch.allclose(out[:, :3], out_edited[:, :3], atol=1e-6))
print("position 3 changed:     ", not torch.allclose(out[:, 3], out_edited[:, 3]))

# %%
# .. _api-nn-transformerdecoder:
#
# torch.nn.TransformerDecoder
# ---------------------------
# Stacks ``num_layers`` copies of a decoder layer; every layer attends to the
# same ``memory``. ``memory_key_padding_mask`` hides padded source positions
# from the cross-attention.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
decoder = nn.TransformerDecoder(layer, num_layers=2)
memory = torch.randn(2, 5, 8)
tgt = torch.randn(2, 4, 8)
source_padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
out = decoder(
    tgt,
    memory,
    tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
    tgt_is_causal=True,
    memory_key_padding_mask=source_padding,
)
print("output:", tuple(out.shape), "| layers:", len(decoder.layers))

# %%
# .. _api-nn-transformer-generate-square-subsequent-mask:
#
# torch.nn.Transformer.generate_square_subsequent_mask
# ----------------------------------------------------
# A static method returning the ``(sz, sz)`` float causal mask: ``0.0`` where a
# position may attend, ``-inf`` above the diagonal (future positions). A boolean
# mask with ``True`` above the diagonal means the same thing to these layers.
import torch
from torch import nn

mask = nn.Transformer.generate_square_subsequent_mask(4)
print(mask)
print("same as bool triu:", torch.equal(mask == float("-inf"), torch.ones(4, 4).triu(1).bool()))

# %%
# .. _api-nn-transformer:
#
# torch.nn.Transformer
# --------------------
# The full encoder-decoder model: ``forward(src, tgt)`` encodes the source and
# decodes the target against it. It has no embeddings, positional encodings or
# output projection: add those yourself. With ``dropout=0.0`` the fast path
# again changes nothing.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Transformer(
    d_model=8,
    nhead=2,
    num_encoder_layers=2,
    num_decoder_layers=2,
    dim_feedforward=16,
    dropout=0.0,
    batch_first=True,
)
src = torch.randn(2, 5, 8)
tgt = torch.randn(2, 4, 8)
tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
out = model(src, tgt, tgt_mask=tgt_mask, tgt_is_causal=True)
with torch.no_grad():
    out_eval = model.eval()(src, tgt, tgt_mask=tgt_mask, tgt_is_causal=True)
print("output:", tuple(out.shape), "| train == eval:", torch.allclose(out, out_eval, atol=1e-5))
print(f"parameters: {sum(p.numel() for p in model.parameters())}")

# %%
# .. _api-nn-multiheadattention:
#
# torch.nn.MultiheadAttention
# ---------------------------
# The attention block inside all of the layers above. Its fast path, its
# ``key_padding_mask`` convention and how it relates to
# ``scaled_dot_product_attention`` are covered in
# :ref:`sphx_glr_gallery_pytorch2_attention_in_depth.py`. Here, only the shapes:
# weights are averaged over heads unless ``average_attn_weights=False``.
import torch
from torch import nn

torch.manual_seed(0)
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
query, keys = torch.randn(2, 4, 8), torch.randn(2, 5, 8)
out, weights = mha(query, keys, keys)
_, per_head = mha(query, keys, keys, average_attn_weights=False)
print("output:", tuple(out.shape), "| weights:", tuple(weights.shape))
print("per-head weights:", tuple(per_head.shape))
