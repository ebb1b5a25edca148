r"""
Autograd errors
===============

The messages ``backward`` and ``torch.autograd.grad`` raise: a saved value changed in
place, a graph already freed, nothing to differentiate, an output that is not a scalar.

Summary
-------

============================================================  ==========================================================
You see                                                       Fix
============================================================  ==========================================================
modified by an inplace operation                              :entry:`y = y * 2 <errors-inplace-modified>` instead of ``y.mul_(2)``
Trying to backward through the graph a second time            :entry:`hidden = hidden.detach() <errors-backward-twice>`, ``retain_graph=True``
element 0 of tensors does not require grad                    :entry:`loss = model(x) <errors-no-grad-fn>` outside ``torch.no_grad()``
grad can be implicitly created only for scalar outputs        :entry:`loss.mean().backward() <errors-grad-scalar-outputs>`, ``y.backward(torch.ones_like(y))``
Can\'t call numpy() on Tensor that requires grad              :entry:`x.detach().cpu().numpy() <errors-numpy-requires-grad>`
a leaf Variable that requires grad is used in an in-place op  :entry:`with torch.no_grad(): w -= lr * w.grad <errors-leaf-inplace>`
Inference tensors cannot be saved for backward                :entry:`x.clone() <errors-inference-tensor-backward>`, ``torch.no_grad()`` for the data
Tensor appears to not have been used in the graph             :entry:`grad(..., allow_unused=True) <errors-unused-input>`, ``materialize_grads=True``
vmap: It looks like you\'re calling .item() on a Tensor       :entry:`torch.where(x.sum() > 0, a, b) <errors-vmap-item>`, both branches computed
============================================================  ==========================================================
"""

# %%
# .. _errors-inplace-modified:
#
# one of the variables needed for gradient computation has been modified
# ----------------------------------------------------------------------
# Backward needs some values from the forward pass (``sigmoid`` keeps its output), and an
# in-place operation (``mul_``, ``+=``, ``ReLU(inplace=True)``) overwrote one of them
# before ``backward`` ran; the version numbers in the message count those writes.
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x.sigmoid()  # saves y for its backward
y.mul_(2)  # overwrites y in place
try:
    y.sum().backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: write the result to a new tensor; ``torch.autograd.set_detect_anomaly(True)``
# names the forward operation when the culprit is hard to find.
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x.sigmoid()
y = y * 2  # a new tensor: the saved y is untouched
y.sum().backward()
print("grad:", x.grad)
s = x.detach().sigmoid()
print("check, 2 * s * (1 - s):", 2 * s * (1 - s))

# %%
# .. _errors-backward-twice:
#
# Trying to backward through the graph a second time
# --------------------------------------------------
# ``backward`` frees the values the graph saved, so a second ``backward`` through the
# same part fails; it often comes from a tensor carried over between iterations (an
# RNN's hidden state, a running total of losses) that still links to the old graph.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
hidden = torch.zeros(3)
for step in range(2):
    hidden = torch.tanh(hidden + w)  # step 1 links to step 0's graph through hidden
    try:
        hidden.sum().backward()
        print(f"step {step}: backward ran")
    except RuntimeError as err:
        print(f"step {step}: {type(err).__name__}: {err}")

# %%
# Fix: cut the carried tensor from the old graph with ``detach()`` (or build a new
# graph per ``backward``); ``retain_graph=True`` keeps the saved values, when you really
# mean to go through the same graph twice.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
hidden = torch.zeros(3)
for step in range(2):
    hidden = torch.tanh(hidden.detach() + w)
    w.grad = None
    hidden.sum().backward()
    print(f"step {step}: backward ran, w.grad = {w.grad}")

# %%
# .. _errors-no-grad-fn:
#
# element 0 of tensors does not require grad and does not have a grad_fn
# ----------------------------------------------------------------------
# The loss was computed without a graph: under ``torch.no_grad()`` or
# ``torch.inference_mode()``, from ``detach()``-ed tensors, or with every parameter
# frozen, so there is nothing for ``backward`` to go through.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
with torch.no_grad():  # left over from an evaluation loop
    loss = model(torch.randn(4, 3)).pow(2).mean()
print("loss.requires_grad:", loss.requires_grad, "| grad_fn:", loss.grad_fn)
try:
    loss.backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: run the forward pass of a training step with gradients on (and check that some
# parameters still have ``requires_grad=True``).
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
loss = model(torch.randn(4, 3)).pow(2).mean()
print("grad_fn:", loss.grad_fn.name())
loss.backward()
print("weight.grad:", model.weight.grad)

# %%
# .. _errors-grad-scalar-outputs:
#
# grad can be implicitly created only for scalar outputs
# ------------------------------------------------------
# ``backward()`` with no argument starts from a gradient of 1, which only makes sense
# for one number; a loss with ``reduction="none"`` or a model's raw output has many.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
try:
    y.backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: reduce to a scalar first, or pass the gradient of the output yourself
# (``ones_like`` gives the gradient of the sum).
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x**2).sum().backward()
print("sum().backward():          ", x.grad)
x.grad = None
(x**2).backward(torch.ones_like(x))
print("backward(torch.ones_like):", x.grad)

# %%
# .. _errors-numpy-requires-grad:
#
# Can\'t call numpy() on Tensor that requires grad
# ------------------------------------------------
# A NumPy array cannot carry the autograd graph, so ``numpy()`` refuses a tensor that is
# part of one: a parameter or anything computed from one.
import torch
from torch import nn

torch.manual_seed(0)
prediction = nn.Linear(3, 1)(torch.randn(2, 3))
try:
    prediction.numpy()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: ``detach()`` it first, and ``cpu()`` when it may be on a GPU (``numpy()`` reads
# only CPU memory).
import torch
from torch import nn

torch.manual_seed(0)
prediction = nn.Linear(3, 1)(torch.randn(2, 3))
array = prediction.detach().cpu().numpy()
print(type(array).__name__, array.dtype, array.ravel())

# %%
# .. _errors-leaf-inplace:
#
# a leaf Variable that requires grad is being used in an in-place operation.
# --------------------------------------------------------------------------
# A parameter you created (a leaf) was updated in place while autograd was recording,
# typically a hand-written gradient step ``w -= lr * w.grad``.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
(w**2).sum().backward()
try:
    w -= 0.1 * w.grad
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: make the update under ``torch.no_grad()`` (it is not part of the model), as
# optimizers do.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
before = w.detach().clone()
(w**2).sum().backward()
with torch.no_grad():
    w -= 0.1 * w.grad
print("w moved by:", w.detach() - before, "| still a leaf:", w.is_leaf)

# %%
# .. _errors-inference-tensor-backward:
#
# Inference tensors cannot be saved for backward
# ----------------------------------------------
# A tensor made under ``torch.inference_mode()`` (data prepared or cached there) went
# into a computation that autograd records and must save it for backward.
import torch
from torch import nn

torch.manual_seed(0)
with torch.inference_mode():
    features = torch.randn(4, 3) * 2  # made under inference_mode
model = nn.Linear(3, 1)
try:
    model(features).pow(2).mean().backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: ``clone()`` it outside inference mode (a normal tensor), or prepare such data
# under ``torch.no_grad()`` instead.
import torch
from torch import nn

torch.manual_seed(0)
with torch.inference_mode():
    features = torch.randn(4, 3) * 2
model = nn.Linear(3, 1)
features = features.clone()
print("is_inference:", features.is_inference())
model(features).pow(2).mean().backward()
print("weight.grad:", model.weight.grad)

# %%
# .. _errors-unused-input:
#
# The differentiated Tensor at index … appears to not have been used in the graph
# -------------------------------------------------------------------------------
# ``torch.autograd.grad`` was asked for the gradient with respect to a tensor the output
# does not depend on (a layer the forward pass skipped, a copy of the real input);
# older releases word it "One of the differentiated Tensors appears to not have been
# used in the graph".
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
unused = torch.tensor([3.0], requires_grad=True)
y = (x**2).sum()
try:
    torch.autograd.grad(y, [x, unused])
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: if the tensor really plays no part, say so: ``allow_unused=True`` gives ``None``
# for it, ``materialize_grads=True`` gives zeros.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
unused = torch.tensor([3.0], requires_grad=True)
print("allow_unused:     ", torch.autograd.grad((x**2).sum(), [x, unused], allow_unused=True))
print(
    "materialize_grads:",
    torch.autograd.grad((x**2).sum(), [x, unused], materialize_grads=True),
)

# %%
# .. _errors-vmap-item:
#
# vmap: It looks like you\'re calling .item() on a Tensor
# -------------------------------------------------------
# Under ``torch.func.vmap`` the function runs once for the whole batch, so one
# sample's value never reaches Python: ``.item()``, ``float(x)`` and an ``if`` on a
# tensor have nothing to return, and the ``if`` gets its own message ("data-dependent
# control flow"). ``torch.func.grad`` alone runs both functions in this build, but only
# the branch is right: it differentiates the branch taken. A number read with
# ``.item()`` and then used in arithmetic is a constant to it, so the gradient silently
# leaves out every path through that number (for ``x * x.sum().item()`` it misses the
# ``x.sum()`` term): the fix below, a tensor instead of the number, is right under
# ``grad`` as well as under ``vmap``.
import torch
from torch.func import grad, vmap


def double_if_positive(x):
    if x.sum() > 0:
        return x * 2
    return x


def scaled_by_sum(x):
    return x * x.sum().item()


for fn in (double_if_positive, scaled_by_sum):
    try:
        vmap(fn)(torch.ones(3, 2))
    except RuntimeError as err:
        print(f"{fn.__name__}: {type(err).__name__}: {str(err).split('. ')[0]}")
print("grad alone:", grad(lambda x: double_if_positive(x).sum())(torch.ones(2)))

# %%
# Fix: keep the value a tensor. ``torch.where`` computes both branches and picks per
# sample; a tensor operation stands in for the number ``.item()`` would have given.
import torch
from torch.func import vmap


def double_if_positive(x):
    return torch.where(x.sum() > 0, x * 2, x)


def scaled_by_sum(x):
    return x * x.sum()


batch = torch.tensor([[1.0, 2.0], [-3.0, 1.0]])
print("where:", vmap(double_if_positive)(batch).tolist())
print("sum as a tensor:", vmap(scaled_by_sum)(batch).tolist())
