r"""
torch.nn utilities reference
============================

The helpers around ``torch.nn`` layers: hooks, initialisation, gradient
clipping, pruning, sequence packing and parametrizations.

Summary
-------

====================================================  ==================================================
You want                                              Call
====================================================  ==================================================
to read or replace a module's output                  :entry:`m.register_forward_hook(fn) <api-register-forward-hook>`
to read or replace a module's inputs                  :entry:`m.register_forward_pre_hook(fn) <api-register-forward-pre-hook>`
to see gradients at a module's boundary               :entry:`m.register_full_backward_hook(fn) <api-register-full-backward-hook>`
to initialise weights in place                        :entry:`nn.init <api-nn-init>`
to build a module without default initialisation      :entry:`nn.utils.skip_init <api-skip-init>`
to clip the total gradient norm                       :entry:`nn.utils.clip_grad_norm_ <api-clip-grad-norm>`
to clamp each gradient element                        :entry:`nn.utils.clip_grad_value_ <api-clip-grad-value>`
to measure gradients, then ``clip_grads_with_norm_``  :entry:`nn.utils.get_total_norm <api-get-total-norm>`
to flatten all parameters into one vector             :entry:`nn.utils.parameters_to_vector <api-parameters-to-vector>`
to load a flat vector back into parameters            :entry:`nn.utils.vector_to_parameters <api-vector-to-parameters>`
to mask the smallest weights of one tensor            :entry:`prune.l1_unstructured <api-prune-l1-unstructured>`
to mask whole channels or rows by norm                :entry:`prune.ln_structured <api-prune-ln-structured>`
to mask the smallest weights across layers            :entry:`prune.global_unstructured <api-prune-global-unstructured>`
to apply a mask you computed                          :entry:`prune.custom_from_mask <api-prune-custom-from-mask>`
to mask random channels or rows                       :entry:`prune.random_structured <api-prune-random-structured>`
to make pruning permanent                             :entry:`prune.remove <api-prune-remove>`
to pad a list of sequences into a batch               :entry:`rnn.pad_sequence <api-pad-sequence>`
to pack a padded batch for an RNN                     :entry:`rnn.pack_padded_sequence <api-pack-padded-sequence>`
to unpack an RNN's packed output                      :entry:`rnn.pad_packed_sequence <api-pad-packed-sequence>`
to pack a list of sequences for an RNN                :entry:`rnn.pack_sequence <api-pack-sequence>`
to split a weight into magnitude and direction        :entry:`parametrizations.weight_norm <api-weight-norm>`
to bound a weight's largest singular value            :entry:`parametrizations.spectral_norm <api-spectral-norm>`
to keep a weight orthogonal                           :entry:`parametrizations.orthogonal <api-orthogonal>`
to constrain a parameter with your own module         :entry:`parametrize.register_parametrization <api-register-parametrization>`
to compute parametrized weights once per block        :entry:`parametrize.cached <api-parametrize-cached>`
to bake a parametrization into a plain weight         :entry:`parametrize.remove_parametrizations <api-remove-parametrizations>`
====================================================  ==================================================
"""

# %%
# .. _api-register-forward-hook:
#
# torch.nn.Module.register_forward_hook
# -------------------------------------
# Runs ``hook(module, args, output)`` after every forward call of that module,
# the usual way to capture intermediate activations without editing the model.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
captured = {}


def keep_output(module, args, output):
    captured[type(module).__name__] = output.detach()


handle = net[1].register_forward_hook(keep_output)
net(torch.randn(2, 4))
handle.remove()
captured["ReLU"]

# %%
# .. _api-register-forward-pre-hook:
#
# torch.nn.Module.register_forward_pre_hook
# -----------------------------------------
# Runs ``hook(module, args)`` before forward; returning a tuple replaces the
# positional arguments the module receives.
import torch
from torch import nn

double = nn.Identity()
double.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
double(torch.tensor([1.0, 2.0]))

# %%
# .. _api-register-full-backward-hook:
#
# torch.nn.Module.register_full_backward_hook
# -------------------------------------------
# Runs ``hook(module, grad_input, grad_output)`` when gradients with respect to
# the module's inputs are computed; return new ``grad_input`` to change them.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
seen = []
layer.register_full_backward_hook(
    lambda module, grad_in, grad_out: seen.append((grad_in[0].shape, grad_out[0].shape))
)
layer(torch.randn(5, 3, requires_grad=True)).sum().backward()
print("grad_input shape, grad_output shape:", seen)

# %%
# .. _api-nn-init:
#
# torch.nn.init
# -------------
# In-place initialisers (trailing underscore) that overwrite a tensor with
# values drawn for a given fan-in, fan-out and nonlinearity.
import torch
from torch import nn

torch.manual_seed(0)
wide = nn.Linear(1000, 500)
nn.init.kaiming_normal_(wide.weight, nonlinearity="relu")  # std = sqrt(2 / fan_in)
print(f"kaiming_normal_ std: {wide.weight.std():.4f} (expect {(2 / 1000) ** 0.5:.4f})")
nn.init.xavier_uniform_(wide.weight)  # U(-a, a), a = sqrt(6 / (fan_in + fan_out))
print(f"xavier_uniform_ max: {wide.weight.abs().max():.4f} (bound {(6 / 1500) ** 0.5:.4f})")
nn.init.zeros_(wide.bias)
print("zeros_ bias sum:", wide.bias.sum().item())

# %%
# .. _api-skip-init:
#
# torch.nn.utils.skip_init
# ------------------------
# Builds a module without running its default initialisation (the memory is
# left uninitialised), for when you are about to overwrite every weight anyway.
import torch
from torch import nn

fresh = torch.nn.utils.skip_init(nn.Linear, 8, 4)
nn.init.orthogonal_(fresh.weight)
nn.init.zeros_(fresh.bias)
print(fresh)
print("rows orthonormal:", torch.allclose(fresh.weight @ fresh.weight.T, torch.eye(4), atol=1e-6))

# %%
# .. _api-clip-grad-norm:
#
# torch.nn.utils.clip_grad_norm\_
# -------------------------------
# Rescales all gradients together so that their combined norm is at most
# ``max_norm``, and returns the norm measured before clipping.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(10, 10)
(model(torch.randn(16, 10)) * 100).sum().backward()
before = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
after = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.parameters()]))
print(f"norm before: {before:.2f}, after: {after:.4f}")

# %%
# .. _api-clip-grad-value:
#
# torch.nn.utils.clip_grad_value\_
# --------------------------------
# Clamps each gradient element to ``[-clip_value, clip_value]`` independently,
# which, unlike norm clipping, can change the gradient's direction.
import torch

weights = torch.nn.Parameter(torch.zeros(4))
(weights * torch.tensor([-3.0, -0.2, 0.5, 7.0])).sum().backward()
torch.nn.utils.clip_grad_value_([weights], clip_value=1.0)
weights.grad

# %%
# .. _api-get-total-norm:
#
# torch.nn.utils.get_total_norm
# -----------------------------
# Norm clipping in two steps: ``get_total_norm`` measures and
# ``clip_grads_with_norm_`` scales, so the norm can be logged or all-reduced in
# between.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(10, 10)
model(torch.randn(16, 10)).pow(2).sum().backward()
grads = [p.grad for p in model.parameters()]
total = torch.nn.utils.get_total_norm(grads)
torch.nn.utils.clip_grads_with_norm_(model.parameters(), max_norm=0.5, total_norm=total)
print(f"measured {total:.3f}, now {torch.nn.utils.get_total_norm(grads):.3f}")

# %%
# .. _api-parameters-to-vector:
#
# torch.nn.utils.parameters_to_vector
# -----------------------------------
# Concatenates every parameter, flattened, into one 1-D tensor (a copy), in
# the order ``parameters()`` yields them.
import torch
from torch import nn

tiny = nn.Linear(2, 2)
with torch.no_grad():
    tiny.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tiny.bias.copy_(torch.tensor([5.0, 6.0]))
torch.nn.utils.parameters_to_vector(tiny.parameters())

# %%
# .. _api-vector-to-parameters:
#
# torch.nn.utils.vector_to_parameters
# -----------------------------------
# The inverse: slices a flat vector back into the parameters, in place, so a
# vector produced by an optimiser or an average can be loaded into a model.
import torch
from torch import nn

tiny = nn.Linear(2, 2)
torch.nn.utils.vector_to_parameters(torch.arange(6.0), tiny.parameters())
print(tiny.weight.data, tiny.bias.data, sep="\n")

# %%
# .. _api-prune-l1-unstructured:
#
# torch.nn.utils.prune.l1_unstructured
# ------------------------------------
# Zeroes the given fraction (or count) of entries with the smallest absolute
# value by storing ``weight_orig`` and a ``weight_mask`` buffer; ``weight``
# becomes their product, recomputed before each forward.
import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)
fc = nn.Linear(4, 2)
prune.l1_unstructured(fc, name="weight", amount=0.5)
print("parameters:", [n for n, _ in fc.named_parameters()])
print("buffers:   ", [n for n, _ in fc.named_buffers()])
fc.weight_mask

# %%
# .. _api-prune-ln-structured:
#
# torch.nn.utils.prune.ln_structured
# ----------------------------------
# Prunes whole slices along ``dim`` ranked by their Ln norm, for example entire
# output channels of a convolution (``dim=0``).
import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)
conv = nn.Conv2d(2, 4, kernel_size=3)
prune.ln_structured(conv, name="weight", amount=2, n=2, dim=0)
print("channels kept:", conv.weight_mask.flatten(1).all(dim=1).tolist())

# %%
# .. _api-prune-global-unstructured:
#
# torch.nn.utils.prune.global_unstructured
# ----------------------------------------
# Ranks the entries of several tensors together and prunes the smallest overall,
# so layers end up with different sparsities.
import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)
stack = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 2))
with torch.no_grad():
    stack[1].weight.mul_(10)  # the second layer has larger weights
targets = [(stack[0], "weight"), (stack[1], "weight")]
prune.global_unstructured(targets, pruning_method=prune.L1Unstructured, amount=0.5)
for idx, mod in enumerate(stack):
    print(f"layer {idx}: {(mod.weight == 0).float().mean():.0%} zeros")

# %%
# .. _api-prune-custom-from-mask:
#
# torch.nn.utils.prune.custom_from_mask
# -------------------------------------
# Applies a mask you computed yourself (1 keeps, 0 prunes), with the same
# ``weight_orig`` and ``weight_mask`` bookkeeping as the built-in methods.
import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)
fc = nn.Linear(3, 2)
prune.custom_from_mask(fc, name="weight", mask=torch.tensor([[1, 0, 1], [0, 1, 0]]))
fc.weight

# %%
# .. _api-prune-random-structured:
#
# torch.nn.utils.prune.random_structured
# --------------------------------------
# Removes whole slices along ``dim`` chosen at random rather than by norm: a
# baseline to check that a norm-based choice is worth it.
import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)
conv = nn.Conv2d(1, 4, kernel_size=3)
prune.random_structured(conv, name="weight", amount=0.5, dim=0)
print("output channels kept:", conv.weight_mask.flatten(1).all(dim=1).tolist())

# %%
# .. _api-prune-remove:
#
# torch.nn.utils.prune.remove
# ---------------------------
# Makes pruning permanent: the masked values are written into a plain
# ``weight`` parameter and the mask and hook are dropped.
import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)
fc = nn.Linear(4, 2)
prune.random_unstructured(fc, name="weight", amount=0.25)
print("is_pruned before:", prune.is_pruned(fc))
prune.remove(fc, "weight")
print("is_pruned after: ", prune.is_pruned(fc))
print("parameters:", [n for n, _ in fc.named_parameters()], "| zeros:", int((fc.weight == 0).sum()))

# %%
# .. _api-pad-sequence:
#
# torch.nn.utils.rnn.pad_sequence
# -------------------------------
# Stacks tensors of different lengths into one, padding the short ones with
# ``padding_value``; ``batch_first=True`` puts the batch dimension first.
import torch
from torch.nn.utils.rnn import pad_sequence

sentences = [torch.tensor([7, 8, 9]), torch.tensor([4]), torch.tensor([5, 6])]
pad_sequence(sentences, batch_first=True, padding_value=0)

# %%
# .. _api-pack-padded-sequence:
#
# torch.nn.utils.rnn.pack_padded_sequence
# ---------------------------------------
# Turns a padded batch plus its lengths into a ``PackedSequence`` that RNN
# layers consume without ever reading the padding; ``enforce_sorted=False``
# accepts lengths in any order.
import torch
from torch.nn.utils.rnn import pack_padded_sequence

padded = torch.tensor([[7, 8, 9], [4, 0, 0], [5, 6, 0]])
packed = pack_padded_sequence(padded, lengths=[3, 1, 2], batch_first=True, enforce_sorted=False)
print("data:       ", packed.data)
print("batch_sizes:", packed.batch_sizes)

# %%
# .. _api-pad-packed-sequence:
#
# torch.nn.utils.rnn.pad_packed_sequence
# --------------------------------------
# The inverse, applied to an RNN's packed output: a padded tensor back in the
# original batch order, plus the lengths.
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)
rnn = nn.GRU(input_size=1, hidden_size=2, batch_first=True)
batch = torch.tensor([[7.0, 8.0, 9.0], [4.0, 0.0, 0.0], [5.0, 6.0, 0.0]]).unsqueeze(-1)
packed_in = pack_padded_sequence(batch, [3, 1, 2], batch_first=True, enforce_sorted=False)
packed_out, _ = rnn(packed_in)
unpacked, lengths = pad_packed_sequence(packed_out, batch_first=True)
print("shape:", tuple(unpacked.shape), "| lengths:", lengths)
print("padding positions stay zero:", unpacked[1, 1:].abs().sum().item() == 0)

# %%
# .. _api-pack-sequence:
#
# torch.nn.utils.rnn.pack_sequence
# --------------------------------
# Packs a list of unpadded tensors directly; ``unpack_sequence`` gives the list
# back.
import torch
from torch.nn.utils.rnn import pack_sequence, unpack_sequence

pieces = [torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])]
packed = pack_sequence(pieces)
print("data:", packed.data, "| batch_sizes:", packed.batch_sizes)
print(unpack_sequence(packed))

# %%
# .. _api-weight-norm:
#
# torch.nn.utils.parametrizations.weight_norm
# -------------------------------------------
# Splits a weight into a magnitude ``original0`` and a direction ``original1``
# and rebuilds ``weight`` from them on access. The older hook-based
# ``torch.nn.utils.weight_norm`` (``weight_g``, ``weight_v``) is deprecated: it
# emits the ``FutureWarning`` caught and printed below.
import warnings

import torch
from torch import nn
from torch.nn.utils.parametrizations import weight_norm

torch.manual_seed(0)
normed = weight_norm(nn.Linear(3, 2))
for name, param in normed.named_parameters():
    print(f"{name:38} {tuple(param.shape)}")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.nn.utils.weight_norm(nn.Linear(3, 2))  # the deprecated spelling
print(f"old API -> {caught[0].category.__name__}: {caught[0].message}")

# %%
# .. _api-spectral-norm:
#
# torch.nn.utils.parametrizations.spectral_norm
# ---------------------------------------------
# Divides the weight by an estimate of its largest singular value, refined by
# one power-iteration step per forward in training mode, as in GAN
# discriminators. It supersedes the hook-based ``torch.nn.utils.spectral_norm``,
# whose documentation asks for this version (the old one still runs silently,
# 2.14 and later).
import torch
from torch import nn
from torch.nn.utils.parametrizations import spectral_norm

torch.manual_seed(0)
critic = spectral_norm(nn.Linear(6, 6))
for _ in range(5):
    critic(torch.randn(1, 6))
print(f"largest singular value: {torch.linalg.matrix_norm(critic.weight, ord=2):.4f}")

# %%
# .. _api-orthogonal:
#
# torch.nn.utils.parametrizations.orthogonal
# ------------------------------------------
# Keeps a weight matrix orthogonal (or with orthonormal rows or columns, when
# not square) while the optimiser updates an unconstrained tensor underneath.
import torch
from torch import nn
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
rot = orthogonal(nn.Linear(3, 3))
print("W @ W.T == I:", torch.allclose(rot.weight @ rot.weight.T, torch.eye(3), atol=1e-6))

# %%
# .. _api-register-parametrization:
#
# torch.nn.utils.parametrize.register_parametrization
# ---------------------------------------------------
# Puts any ``nn.Module`` between a parameter and its users: the stored tensor
# is ``parametrizations.<name>.original`` and every read of ``<name>`` returns
# the module's output.
import torch
from torch import nn
from torch.nn.utils import parametrize


class Symmetric(nn.Module):
    def forward(self, raw):
        return raw.triu() + raw.triu(1).T


torch.manual_seed(0)
sym = nn.Linear(3, 3)
parametrize.register_parametrization(sym, "weight", Symmetric())
print("symmetric:", torch.equal(sym.weight, sym.weight.T))
print("parametrized:", parametrize.is_parametrized(sym, "weight"))

# %%
# .. _api-parametrize-cached:
#
# torch.nn.utils.parametrize.cached
# ---------------------------------
# Inside this context each parametrized tensor is computed once and reused,
# which pays off when a weight is read many times, as in an RNN loop.
import torch
from torch import nn
from torch.nn.utils import parametrize

calls = []


class Counted(nn.Module):
    def forward(self, raw):
        calls.append(1)
        return raw


cell = nn.Linear(2, 2)
parametrize.register_parametrization(cell, "weight", Counted())
calls.clear()
state = torch.zeros(1, 2)
with parametrize.cached():
    for _ in range(10):
        state = torch.tanh(cell(state))
print("parametrization evaluated", len(calls), "time(s) for 10 steps")

# %%
# .. _api-remove-parametrizations:
#
# torch.nn.utils.parametrize.remove_parametrizations
# --------------------------------------------------
# Freezes the current parametrized value into a plain parameter
# (``leave_parametrized=True``) and removes the machinery.
import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
rot = orthogonal(nn.Linear(3, 3))
parametrize.remove_parametrizations(rot, "weight", leave_parametrized=True)
print(type(rot).__name__, "|", [n for n, _ in rot.named_parameters()])
