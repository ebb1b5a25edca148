r"""
torch.func
==========

``torch.func`` (once ``functorch``) turns functions into functions: batched, differentiated, or run with weights you pass in, each result checked against plain autograd.

Summary
-------

=========================================  =============================================================================================
You want                                   Call
=========================================  =============================================================================================
``f`` over a batch                         :entry:`vmap(f, in_dims=0, out_dims=0) <pt2-torch-func-vmap>`; ``None`` in ``in_dims`` shares
random numbers inside ``vmap``             :entry:`vmap(f, randomness="different") <pt2-torch-func-randomness>`, ``"same"``
the gradient of a scalar ``f``             :entry:`grad(f, argnums=0, has_aux=False) <pt2-torch-func-grad>`
the gradient at an intermediate map        :entry:`vmap(grad(rest))(feature_map, labels) <pt2-torch-func-grad-intermediate>`
the full Jacobian                          :entry:`jacrev(f) <pt2-torch-func-jacobians>` (reverse), ``jacfwd(f)`` (forward)
the Jacobian in less memory                :entry:`jacrev(f, chunk_size=k) <pt2-torch-func-jacobians>`, ``k`` rows at a time
a Jacobian per sample of a batch           :entry:`vmap(jacrev(f))(xs) <pt2-torch-func-batch-jacobian>`, ``(N, out, in)``
the Hessian                                :entry:`hessian(f) <pt2-torch-func-hessian>`, which is ``jacfwd(jacrev(f))``
``(f(x), J @ v)``                          :entry:`jvp(f, primals, tangents) <pt2-torch-func-jvp-vjp>`
a pull-back of cotangents (``u @ J``)      :entry:`vjp(f, *primals) <pt2-torch-func-jvp-vjp>`, returns ``(f(x), vjp_fn)``
a reusable ``jvp`` function                :entry:`linearize(f, *primals) <pt2-torch-func-jvp-vjp>`
a module run with given weights            :entry:`functional_call(module, params, args) <pt2-torch-func-functional-call>`
per-sample gradients, and their speed      :entry:`vmap(grad(loss), in_dims=(None, 0, 0)) <pt2-torch-func-per-sample>`
an ensemble in one call                    :entry:`stack_module_state(models) <pt2-torch-func-ensemble>`
port ``functorch`` ensembles               :entry:`combine_state_for_ensemble <pt2-torch-func-functorch>` (deprecated)
=========================================  =============================================================================================
"""

# %%
# .. _pt2-torch-func-vmap:
#
# ``vmap``: write for one sample, run on a batch
# ----------------------------------------------
# ``in_dims`` says which dimension of each argument is the batch (``None``:
# shared by all); ``out_dims`` says where the batch goes in the result.
import torch
from torch.func import vmap

torch.manual_seed(0)


def score(features, weights):
    """One sample: features (5,), weights (3, 5) -> scores (3,)."""
    return weights @ features


batch = torch.randn(8, 5)
weights = torch.randn(3, 5)
scores = vmap(score, in_dims=(0, None))(batch, weights)
scores_t = vmap(score, in_dims=(0, None), out_dims=1)(batch, weights)
print("batch in dim 0 ->", tuple(scores.shape), "| out_dims=1 ->", tuple(scores_t.shape))
torch.testing.assert_close(scores, torch.stack([score(b, weights) for b in batch]))
print("matches a Python loop")

# %%
# .. _pt2-torch-func-randomness:
#
# ``vmap`` and random numbers: ``randomness=``
# --------------------------------------------
# By default (``"error"``) a random call inside ``vmap`` raises, because it is
# ambiguous. ``"different"`` draws independently per sample, ``"same"`` draws
# once and shares the draw across the batch.
import torch
from torch.func import vmap


def noisy(x):
    return x + torch.randn(())


zeros = torch.zeros(4)
try:
    vmap(noisy)(zeros)
except RuntimeError as err:
    print("randomness='error' (default) -> RuntimeError:", str(err).split(".")[0])
print("randomness='different':", vmap(noisy, randomness="different")(zeros))
print("randomness='same':     ", vmap(noisy, randomness="same")(zeros))

# %%
# .. _pt2-torch-func-grad:
#
# ``grad``: the gradient as a function
# ------------------------------------
# ``grad(f)`` returns a function computing the gradient of a scalar ``f``
# with respect to one argument; ``argnums`` picks others (a tuple picks
# several), and ``has_aux=True`` lets ``f`` return ``(loss, extra)``.
import torch
from torch.func import grad


def loss(w, x):
    return torch.sin(w * x).sum()


torch.manual_seed(0)
w, x = torch.randn(4), torch.randn(4)
dw = grad(loss)(w, x)
dw_dx = grad(loss, argnums=(0, 1))(w, x)

w_ref, x_ref = w.clone().requires_grad_(), x.clone().requires_grad_()
loss(w_ref, x_ref).backward()
torch.testing.assert_close(dw, w_ref.grad)
torch.testing.assert_close(dw_dx, (w_ref.grad, x_ref.grad))
print("grad and argnums=(0, 1): matches autograd")


def loss_with_aux(w, x):
    y = torch.sin(w * x)
    return y.sum(), {"max": y.max().detach()}


dw_aux, aux = grad(loss_with_aux, has_aux=True)(w, x)
torch.testing.assert_close(dw_aux, w_ref.grad)
print("has_aux=True returns (gradient, aux):", aux)

# %%
# .. _pt2-torch-func-grad-intermediate:
#
# The gradient with respect to an intermediate feature map
# --------------------------------------------------------
# ``grad`` differentiates with respect to a function's arguments, so make the
# intermediate an argument: write the rest of the model, from that map on, as a
# function of it. ``vmap(grad(rest))`` then gives each sample's gradient with respect to
# its own map (for saliency, Grad-CAM and the like); the sum of the per-sample losses
# gives the same maps through ``torch.autograd.grad``.
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
head = nn.Sequential(nn.Flatten(), nn.Linear(8 * 6 * 6, 10))
images = torch.randn(4, 3, 6, 6)
labels = torch.tensor([1, 0, 3, 9])

fmap = features(images).detach()  # the intermediate: the input of the rest of the model


def rest(fmap, label):
    """The model from the feature map on, as a function of that map: one sample."""
    logits = functional_call(head, dict(head.named_parameters()), (fmap.unsqueeze(0),))
    return nn.functional.cross_entropy(logits, label.unsqueeze(0))


per_sample = vmap(grad(rest))(fmap, labels)  # d loss_i / d fmap_i, one map per sample
print("gradient per feature map:", tuple(per_sample.shape))

# The same with autograd: keep the map in the graph and ask for its gradient.
kept = features(images)
loss = nn.functional.cross_entropy(head(kept), labels, reduction="sum")
(by_autograd,) = torch.autograd.grad(loss, kept)
torch.testing.assert_close(per_sample, by_autograd)
print("equal to autograd.grad(loss, feature_map): True")

# %%
# .. _pt2-torch-func-jacobians:
#
# Jacobians: ``jacrev`` and ``jacfwd``
# ------------------------------------
# Both return the full Jacobian, in one batched pass rather than a loop:
# ``jacrev`` runs ``vmap`` over ``vjp`` with the rows of an identity matrix
# (one per output), ``jacfwd`` runs ``vmap`` over ``jvp`` with one per input.
# Reverse mode suits few outputs, forward mode few inputs. ``jacrev``'s
# ``chunk_size`` pushes that many rows through at a time, to bound memory.
# (Since 2.14 the first forward-mode call of a session prints a
# ``FutureWarning`` about ``torch.jit.script`` from helpers inside torch; it is
# harmless, and filtered here.)
import warnings

import torch
from torch.autograd.functional import jacobian
from torch.func import jacfwd, jacrev


def f(x):
    return torch.stack([x[0] * x[1], torch.exp(x[2]), x.pow(2).sum()])


torch.manual_seed(0)
x = torch.randn(3)
reference = jacobian(f, x)
torch.testing.assert_close(jacrev(f)(x), reference)
torch.testing.assert_close(jacrev(f, chunk_size=1)(x), reference)  # one row at a time
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", r".*torch\.jit\.script.*deprecated")
    torch.testing.assert_close(jacfwd(f)(x), reference)
print("Jacobian shape:", tuple(reference.shape))
print("jacrev, jacrev(chunk_size=1) and jacfwd: matches autograd")

# %%
# .. _pt2-torch-func-batch-jacobian:
#
# A Jacobian for each sample of a batch
# -------------------------------------
# ``jacrev(f)(xs)`` on a batch of shape ``(N, d)`` differentiates every output with
# respect to every input of the whole batch: ``(N, out, N, d)``, where only the blocks
# on the batch diagonal are not zero, since sample ``i``'s output depends on sample
# ``i`` alone. ``vmap(jacrev(f))`` writes ``f`` for one sample and maps its Jacobian
# over the batch: ``(N, out, d)``, the diagonal blocks and nothing else, in one batched
# call. (``f`` must treat each sample on its own: a batch norm inside breaks that.)
import torch
from torch.func import jacrev, vmap

torch.manual_seed(0)
weight = torch.randn(2, 3)


def f(x):  # one sample of 3 features -> 2 outputs
    return torch.tanh(weight @ x)


xs = torch.randn(4, 3)  # a batch of 4
per_sample = vmap(jacrev(f))(xs)
print("vmap(jacrev(f)):", tuple(per_sample.shape))

whole = jacrev(lambda batch: torch.tanh(batch @ weight.T))(xs)  # the batch as one input
print("jacrev of the whole batch:", tuple(whole.shape))
diagonal = torch.stack([whole[i, :, i, :] for i in range(len(xs))])
print("its diagonal blocks are the per-sample Jacobians:", torch.allclose(diagonal, per_sample))
off = whole.clone()
for i in range(len(xs)):
    off[i, :, i, :] = 0
print("and every other block is zero:", bool((off == 0).all()))

# %%
# .. _pt2-torch-func-hessian:
#
# ``hessian``
# -----------
# ``hessian(f)`` is ``jacfwd(jacrev(f))``: forward over reverse, the usual
# fastest pairing for a scalar function.
import torch
from torch.autograd.functional import hessian as autograd_hessian
from torch.func import hessian


def energy(x):
    return (x.pow(3) + x.prod()).sum()


torch.manual_seed(0)
x = torch.randn(3)
H = hessian(energy)(x)
torch.testing.assert_close(H, autograd_hessian(energy, x))
print(H)
print("hessian: matches autograd")

# %%
# .. _pt2-torch-func-jvp-vjp:
#
# ``jvp``, ``vjp`` and ``linearize``
# ----------------------------------
# ``jvp`` pushes a tangent forward (Jacobian times vector) without building
# the Jacobian; ``vjp`` returns the output and a function that pulls a
# cotangent back (vector times Jacobian). ``linearize`` does the forward pass
# once and returns a reusable ``jvp`` function. (Since PyTorch 2.13
# ``linearize`` emits an internal, harmless ``UserWarning`` from its graph
# folding, and since 2.14 also the ``torch.jit.script`` one of forward mode; the filters
# below silence only those messages.)
import warnings

import torch
from torch.autograd.functional import jacobian
from torch.func import jvp, linearize, vjp


def f(x):
    return torch.tanh(x) * x.sum()


torch.manual_seed(0)
x, v, u = torch.randn(4), torch.randn(4), torch.randn(4)
J = jacobian(f, x)

out, jv = jvp(f, (x,), (v,))
torch.testing.assert_close(jv, J @ v)
out, pull_back = vjp(f, x)
(uJ,) = pull_back(u)
torch.testing.assert_close(uJ, u @ J)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Attempted to insert a get_attr Node")
    warnings.filterwarnings("ignore", r".*torch\.jit\.script.*deprecated")
    out, jvp_fn = linearize(f, x)
torch.testing.assert_close(jvp_fn(v), J @ v)
torch.testing.assert_close(jvp_fn(u), J @ u)
print("jvp, vjp and linearize: matches autograd")

# %%
# .. _pt2-torch-func-functional-call:
#
# ``functional_call``: a module with parameters you pass in
# ---------------------------------------------------------
# Transforms work on functions of tensors, so a module's weights must become
# arguments. ``functional_call(model, params, args)`` runs ``model`` with the
# given dictionary of parameters (and buffers) instead of its own.
import torch
from torch.func import functional_call

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
params = {name: p.detach() for name, p in model.named_parameters()}
doubled = {name: 2 * p for name, p in params.items()}
x = torch.randn(5, 3)

torch.testing.assert_close(functional_call(model, params, (x,)), model(x))
torch.testing.assert_close(functional_call(model, doubled, (x,)), 2 * model(x))
print("functional_call with the module's own and doubled weights: matches the module")

# %%
# .. _pt2-torch-func-per-sample:
#
# Per-sample gradients: ``vmap(grad(...))``
# -----------------------------------------
# Backward sums gradients over the batch. For one gradient per sample
# (differential privacy, data attribution), write one sample's loss as a
# function of the parameters, take ``grad`` and ``vmap`` it. Then the 64
# gradients, by one vectorised call and by 64 backward passes, are timed in
# alternation on one thread (vectorising, not spreading over cores, is
# compared); the verdict, table and plot (speedup with 95% interval) follow.
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

from cheatsheet import compare, environment

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
params = {name: p.detach() for name, p in model.named_parameters()}
inputs, targets = torch.randn(64, 16), torch.randint(0, 4, (64,))


def sample_loss(params, x, y):
    logits = functional_call(model, params, (x.unsqueeze(0),))
    return F.cross_entropy(logits, y.unsqueeze(0))


per_sample_vmap = vmap(grad(sample_loss), in_dims=(None, 0, 0))


def per_sample_loop(inputs, targets):
    grads = {name: [] for name in params}
    for x, y in zip(inputs, targets, strict=True):
        model.zero_grad()
        F.cross_entropy(model(x.unsqueeze(0)), y.unsqueeze(0)).backward()
        for name, p in model.named_parameters():
            grads[name].append(p.grad.clone())
    return {name: torch.stack(g) for name, g in grads.items()}


fast = per_sample_vmap(params, inputs, targets)
torch.testing.assert_close(fast, per_sample_loop(inputs, targets))
print({name: tuple(g.shape) for name, g in fast.items()})
print("per-sample gradients: matches autograd, one backward per sample")

threads = torch.get_num_threads()
# With two threads, a core taken by another process stalls every small
# parallel operation of the vmap call (up to 50x in some rounds) but not the
# loop's single-sample operations, which run on one thread anyway.
torch.set_num_threads(1)
try:
    per_sample = compare(
        {
            "Python loop, 64 backward": lambda: per_sample_loop(inputs, targets),
            "vmap(grad(...))": lambda: per_sample_vmap(params, inputs, targets),
        },
        device="cpu",  # closures: nothing tells the timer where the work runs
        budget_s=1.0,  # each call takes milliseconds: a second gives dozens of rounds
    )
    stamp = environment()  # taken on one thread, so the stamp says so
finally:
    torch.set_num_threads(threads)
print(per_sample.verdict("vmap(grad(...))"))
print(stamp)
per_sample.plot(title="Per-sample gradients of a 64-sample batch")
plt.show()
per_sample

# %%
# .. _pt2-torch-func-ensemble:
#
# Model ensembles: ``stack_module_state``
# ---------------------------------------
# Several copies of one architecture run as a single batched call:
# ``stack_module_state`` stacks their weights along a new first dimension,
# and ``vmap`` over ``functional_call`` runs all of them. A copy on the
# ``meta`` device serves as the shape template, without memory.
import copy

import torch
from torch.func import functional_call, stack_module_state, vmap

torch.manual_seed(0)
members = [
    torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    for _ in range(5)
]
stacked_params, stacked_buffers = stack_module_state(members)
template = copy.deepcopy(members[0]).to("meta")


def run_one(params, buffers, x):
    return functional_call(template, (params, buffers), (x,))


x = torch.randn(10, 8)
ensemble = vmap(run_one, in_dims=(0, 0, None))(stacked_params, stacked_buffers, x)
with torch.no_grad():
    reference = torch.stack([m(x) for m in members])
torch.testing.assert_close(ensemble, reference)
print("stacked weight shape:", tuple(stacked_params["0.weight"].shape))
print("ensemble output:", tuple(ensemble.shape), "- matches running each member")

# %%
# .. _pt2-torch-func-functorch:
#
# Older code: ``functorch.combine_state_for_ensemble``
# ----------------------------------------------------
# Before 2.0 these transforms lived in the separate ``functorch`` package, and
# ensembles were built with ``combine_state_for_ensemble``. Its deprecation
# warning says it would be deleted in a version ``>= 2.3``, yet the installed
# PyTorch still ships it, so the warning below comes from a real call: port to
# ``stack_module_state`` as above.
import warnings

import torch

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import functorch

    members = [torch.nn.Linear(2, 2) for _ in range(3)]
    fmodel, params, buffers = functorch.combine_state_for_ensemble(members)
print("torch", torch.__version__, "| still callable, returns", type(fmodel).__name__)
print("stacked parameter shapes:", [tuple(p.shape) for p in params])
print(f"{caught[0].category.__name__}: {str(caught[0].message).split(';')[0]}")
