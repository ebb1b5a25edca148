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
