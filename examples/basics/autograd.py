r"""
Autograd
========

Autograd records what is done to tensors that require gradients and replays
it backwards to compute derivatives.

Summary
-------

=============================  ==================================================
You want                       Call
=============================  ==================================================
gradients for a tensor         :entry:`torch.tensor(..., requires_grad=True) <basics-requires-grad>`, ``x.requires_grad_()``
the same data without history  :entry:`x.detach() <basics-detach>`
gradients of a scalar          :entry:`loss.backward() <basics-backward>`, then read ``x.grad``
to clear gradients             :entry:`x.grad = None <basics-grad-accumulates>` or ``x.grad.zero_()``
no graph while evaluating      :entry:`with torch.no_grad(): <basics-no-grad>`, ``@torch.no_grad()``
the fastest pure inference     :entry:`with torch.inference_mode(): <basics-no-grad>`
tracking chosen by a flag      :entry:`with torch.set_grad_enabled(flag): <basics-no-grad>`
to edit weights in place       :entry:`with torch.no_grad(): <basics-inplace-autograd>`, then edit
no NaN gradient from where     :entry:`torch.where(x > 0, x, 1).sqrt() <basics-nan-gradients>` inside the ``where``
a copy, with or without graph  :entry:`x.clone() <basics-copies>`, ``x.detach().clone()``, ``copy.deepcopy(model)``
the gradient of an input       :entry:`torch.autograd.grad(out, x) <basics-input-gradient>` with ``x.requires_grad_()``
=============================  ==================================================
"""

# %%
# .. _basics-requires-grad:
#
# requires_grad, grad_fn, is_leaf
# -------------------------------
# A tensor created with ``requires_grad=True`` is a leaf of the graph; every result
# computed from it requires gradients too and remembers the operation that made it in ``grad_fn``.
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (w * 2).sum()
print("w:", w)
print("y:", y)
print("w.is_leaf:", w.is_leaf, "| y.is_leaf:", y.is_leaf)
print("y.grad_fn:", type(y.grad_fn).__name__)

# %%
# .. _basics-detach:
#
# Stop tracking: detach
# ---------------------
# ``detach`` returns a tensor that shares the data but has no history (use it to
# log values or feed them to NumPy); ``requires_grad_`` flips the flag of a leaf in place.
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = w.detach()
print("detached:", d, "| shares memory:", d.data_ptr() == w.data_ptr())
print(
    "(w * d).requires_grad:",
    (w * d).requires_grad,
    "| (d * d).requires_grad:",
    (d * d).requires_grad,
)
w.requires_grad_(False)
print("after requires_grad_(False):", w)

# %%
# .. _basics-backward:
#
# Backpropagation: backward() and .grad
# -------------------------------------
# ``backward()`` on a scalar fills ``.grad`` of every leaf that requires gradients;
# for ``z = mean(3 (x + 1)^2)`` the gradient is ``2 (x + 1)``, which the check confirms.
import torch

x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
z = (3 * (x + 1) ** 2).mean()
z.backward()
print("z:", z.item())
print("x.grad:            ", x.grad)
print("by hand, 2 (x + 1):", 2 * (x.detach() + 1))

# %%
# .. _basics-grad-accumulates:
#
# Gradients accumulate
# --------------------
# Each ``backward`` adds into ``.grad`` instead of overwriting it, which is what
# makes gradient accumulation work and why training loops clear gradients every step.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(3):
    (x**2).sum().backward()
    print(f"after backward #{step + 1}: x.grad = {x.grad}")
x.grad.zero_()
print("after x.grad.zero_():", x.grad)
x.grad = None  # what optimizer.zero_grad() does by default
print("after x.grad = None: ", x.grad)

# %%
# .. _basics-no-grad:
#
# no_grad, inference_mode, set_grad_enabled
# -----------------------------------------
# ``no_grad`` skips recording (for evaluation and weight updates), ``inference_mode``
# also skips version counters and is faster but its tensors can never enter a graph,
# and ``set_grad_enabled(flag)`` switches tracking with a boolean; all three also decorate functions.
import torch

w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    a = w * 2
with torch.inference_mode():
    b = w * 2
is_training = False
with torch.set_grad_enabled(is_training):
    c = w * 2
print("no_grad:          requires_grad =", a.requires_grad)
print("inference_mode:   requires_grad =", b.requires_grad, "| is_inference =", b.is_inference())
print("set_grad_enabled: requires_grad =", c.requires_grad)


@torch.no_grad()
def predict(inputs):
    return inputs @ w


print("decorated function:", predict(torch.ones(2, 3)).requires_grad)
try:
    (b * w).sum().backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")

# %%
# .. _basics-inplace-autograd:
#
# In-place operations that autograd refuses
# -----------------------------------------
# Autograd raises an error when an in-place edit would corrupt the graph: editing a
# leaf that requires gradients, or overwriting a value that ``backward`` still needs
# (here ``exp`` saves its output); do the edit out of place or under ``torch.no_grad()``.
import torch

w = torch.ones(3, requires_grad=True)
try:
    w.add_(1)
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")

y = w.exp()
y.add_(1)  # allowed now, but exp's backward needs its original output
try:
    y.sum().backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0][:150]}...")

y = w.exp() + 1  # out of place: fine
y.sum().backward()
print("out-of-place version works, w.grad =", w.grad)
with torch.no_grad():
    w.add_(1)  # how optimizers update weights
print("in-place under no_grad works, w =", w)

# %%
# .. _basics-nan-gradients:
#
# NaN gradients from values that look fine: sqrt at 0 and torch.where
# --------------------------------------------------------------------
# ``torch.where`` picks values, but its backward still runs both branches: where the
# unused branch has an infinite derivative (``sqrt`` at 0, ``log`` at 0, a division by
# 0), the chain rule multiplies that infinity by the zero gradient ``where`` sends it,
# and 0 × inf is NaN. The fix is a second ``where`` inside the first, so the risky
# function never sees the bad input. A hand-written norm, ``sqrt(sum(x**2))``, fails the
# same way at the zero vector, while ``torch.linalg.vector_norm`` defines its gradient
# there as 0.
import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
torch.where(x > 0, x.sqrt(), 0.0).sum().backward()
print("where(x > 0, sqrt(x), 0):  grad", x.grad.tolist())

x.grad = None
safe = torch.where(x > 0, x, 1.0)  # sqrt never sees the 0
torch.where(x > 0, safe.sqrt(), 0.0).sum().backward()
print("sqrt of a where inside:    grad", x.grad.tolist())

v = torch.zeros(3, requires_grad=True)
v.pow(2).sum().sqrt().backward()
print("sqrt(sum(v**2)) at zero:   grad", v.grad.tolist())
v.grad = None
torch.linalg.vector_norm(v).backward()
print("vector_norm(v) at zero:    grad", v.grad.tolist())

# %%
# .. _basics-copies:
#
# clone, detach, deepcopy: which copy to take
# -------------------------------------------
# ``clone()`` copies the data and stays in the graph, so gradients flow back through
# it. ``detach()`` leaves the graph but shares the data, so an in-place change to one
# shows in the other. ``detach().clone()`` is an independent copy with no history: the
# way to keep a value (a snapshot of the weights, a target). ``copy.deepcopy`` copies a
# whole module or optimizer, parameters and buffers included, but refuses a tensor in
# the middle of a graph.
import copy

import torch
from torch import nn

x = torch.ones(3, requires_grad=True)
y = x * 2
for name, t in [
    ("clone()", y.clone()),
    ("detach()", y.detach()),
    ("detach().clone()", y.detach().clone()),
]:
    shares = t.data_ptr() == y.data_ptr()
    print(f"{name:17} shares memory: {shares!s:5}  requires_grad: {t.requires_grad}")

y.clone().sum().backward()
print("gradient through clone():", x.grad.tolist())

model = nn.Linear(2, 2)
twin = copy.deepcopy(model)
print(
    "deepcopy(model): equal",
    torch.equal(twin.weight, model.weight),
    "| shares memory",
    twin.weight.data_ptr() == model.weight.data_ptr(),
)
try:
    copy.deepcopy(y)
except RuntimeError as err:
    print(f"deepcopy(y): {type(err).__name__}: {str(err).split('.')[0]}")

# %%
# .. _basics-input-gradient:
#
# The gradient with respect to the input, not the weights
# -------------------------------------------------------
# To see how an output depends on each input value (a saliency map, an adversarial
# step), make the input a tensor that requires grad and differentiate the output with
# respect to it. ``torch.autograd.grad`` returns that gradient without writing into any
# ``.grad``, so the model's parameters are left as they were; ``backward()`` would fill
# ``x.grad`` and every parameter's ``.grad`` as well. Put the model in ``eval()`` first
# when it has dropout or batch normalisation.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).eval()
x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
score = model(x)[0, 1]  # the output to explain: class 1's logit
(gradient,) = torch.autograd.grad(score, x)
print("d score / d x:", gradient)
print("parameters' .grad untouched:", all(p.grad is None for p in model.parameters()))
