r"""
Autograd reference
==================

The calls that compute, shape and inspect gradients, from ``backward`` to
custom ``autograd.Function`` classes, forward-mode AD and anomaly detection.

Summary
-------

===================================================  ==================================================
You want                                             Call
===================================================  ==================================================
to accumulate gradients of a scalar into ``.grad``   :entry:`loss.backward() <api-tensor-backward>`
to get gradients back as values, or higher orders    :entry:`torch.autograd.grad <api-autograd-grad>`
to backpropagate non-scalar outputs with weights     :entry:`torch.autograd.backward <api-autograd-backward>`
to keep ``.grad`` on an intermediate tensor          :entry:`h.retain_grad() <api-retain-grad>`
to read or replace one tensor's gradient             :entry:`t.register_hook(fn) <api-tensor-register-hook>`
to walk the backward graph from ``grad_fn``          :entry:`y.grad_fn.next_functions <api-autograd-graph-node>`
to hook the gradient arriving at a graph node        :entry:`y.grad_fn.register_prehook(fn) <api-node-register-prehook>`
to stop (or resume) recording operations             :entry:`with torch.no_grad(): <api-no-grad>`, ``torch.enable_grad``
to switch recording with a boolean                   :entry:`torch.set_grad_enabled <api-set-grad-enabled>`
the fastest no-recording mode for inference          :entry:`torch.inference_mode <api-inference-mode>`
to transform tensors saved for backward              :entry:`graph.saved_tensors_hooks(pack, unpack) <api-saved-tensors-hooks>`
to offload saved activations to host memory          :entry:`graph.save_on_cpu() <api-save-on-cpu>`
to forbid saved-tensor hooks in a block              :entry:`graph.disable_saved_tensors_hooks(msg) <api-disable-saved-tensors-hooks>`
to write an op with its own backward formula         :entry:`torch.autograd.Function <api-autograd-function>`
to declare outputs without gradients                 :entry:`ctx.mark_non_differentiable <api-mark-non-differentiable>`
to declare inputs that ``forward`` changed in place  :entry:`ctx.mark_dirty <api-mark-dirty>`
to get ``None``, not zeros, for unused outputs       :entry:`ctx.set_materialize_grads(False) <api-set-materialize-grads>`
to add into ``.grad`` itself from ``backward``       :entry:`ctx.input_grad_buffers <pt2-whats-new-2-15-input-grad-buffers>`
to run code once the current backward ends           :entry:`torch.autograd.graph.queue_callback(fn) <pt2-whats-new-2-15-queue-callback>`
to test a backward formula numerically               :entry:`torch.autograd.gradcheck <api-gradcheck>`
a full Jacobian at a point                           :entry:`autograd.functional.jacobian(f, x) <api-autograd-functional-jacobian>`
a full Hessian at a point                            :entry:`autograd.functional.hessian(f, x) <api-autograd-functional-hessian>`
forward-mode directional derivatives                 :entry:`torch.autograd.forward_ad <api-forward-ad>`
to find the op whose backward made NaN               :entry:`torch.autograd.detect_anomaly <api-detect-anomaly>`
to switch anomaly detection by a boolean             :entry:`torch.autograd.set_detect_anomaly <api-set-detect-anomaly>`
===================================================  ==================================================
"""

# %%
# .. _api-tensor-backward:
#
# torch.Tensor.backward
# ---------------------
# Called on a scalar, it walks the graph back to the leaves and *adds* each
# gradient to their ``.grad``, so a second call without zeroing accumulates.
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w**2).sum().backward()
print("after one call:", w.grad)
(w**2).sum().backward()
print("after two calls:", w.grad)

# %%
# .. _api-autograd-grad:
#
# torch.autograd.grad
# -------------------
# Returns the gradients as a tuple instead of writing ``.grad``; with
# ``create_graph=True`` the result is itself differentiable, which gives
# higher derivatives.
import torch

t = torch.tensor(2.0, requires_grad=True)
cube = t**3
(first,) = torch.autograd.grad(cube, t, create_graph=True)  # 3 t^2
(second,) = torch.autograd.grad(first, t)  # 6 t
print("d/dt  t^3 at 2:", first.item())
print("d2/dt2 t^3 at 2:", second.item())
print("t.grad left untouched:", t.grad)

# %%
# .. _api-autograd-backward:
#
# torch.autograd.backward
# -----------------------
# A non-scalar output needs a weight per element (``grad_tensors``, or
# ``gradient=`` in ``Tensor.backward``): autograd computes the
# vector-Jacobian product with it.
import torch

a = torch.ones(3, requires_grad=True)
out = a * torch.tensor([1.0, 2.0, 3.0])
torch.autograd.backward(out, grad_tensors=torch.tensor([1.0, 0.0, 10.0]))
a.grad

# %%
# .. _api-retain-grad:
#
# torch.Tensor.retain_grad
# ------------------------
# Only leaves keep ``.grad`` after backward; call ``retain_grad()`` on an
# intermediate tensor to keep its gradient too.
import torch

leaf = torch.tensor([1.0, -2.0], requires_grad=True)
hidden = leaf * 3
hidden.retain_grad()
(hidden**2).sum().backward()
print("hidden is a leaf:", hidden.is_leaf)
print("hidden.grad:", hidden.grad)
print("leaf.grad:  ", leaf.grad)

# %%
# .. _api-tensor-register-hook:
#
# torch.Tensor.register_hook
# --------------------------
# The hook receives the gradient flowing into a tensor and may return a
# replacement; the returned handle's ``remove()`` takes it off again.
import torch

p = torch.tensor([1.0, 2.0], requires_grad=True)
handle = p.register_hook(lambda g: g.clamp(max=1.0))  # clip this gradient only
(p * 5).sum().backward()
print("clipped by the hook:", p.grad)
handle.remove()
p.grad = None
(p * 5).sum().backward()
print("after remove():     ", p.grad)

# %%
# .. _api-autograd-graph-node:
#
# torch.autograd.graph.Node
# -------------------------
# A non-leaf tensor's ``grad_fn`` is a ``Node`` of the backward graph:
# ``name()`` says which backward formula runs and ``next_functions`` links to
# the nodes that follow.
import torch

x = torch.tensor([0.5, 1.5], requires_grad=True)
z = (x.sin() * 2).sum()
node = z.grad_fn
print(isinstance(node, torch.autograd.graph.Node))
while node is not None:
    print(node.name())
    node = node.next_functions[0][0] if node.next_functions else None

# %%
# .. _api-node-register-prehook:
#
# torch.autograd.graph.Node.register_prehook
# ------------------------------------------
# A hook on a graph node: ``register_prehook`` sees (and may replace) the
# gradient arriving at the node, ``register_hook`` sees what it sends on.
import torch

src = torch.zeros(3, requires_grad=True)
copy = src.clone()
hook = copy.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
copy.sum().backward()
print("with prehook:", src.grad)
hook.remove()

# %%
# .. _api-no-grad:
#
# torch.no_grad
# -------------
# Inside the block (or in a function it decorates) nothing is recorded, so
# results have no ``grad_fn``; ``torch.enable_grad`` switches recording back on.
import torch

v = torch.ones(2, requires_grad=True)
with torch.no_grad():
    plain = v * 2
    with torch.enable_grad():
        tracked = v * 2


@torch.no_grad()
def evaluate(inp):
    return inp + 1


print(plain.requires_grad, tracked.requires_grad, evaluate(v).requires_grad)

# %%
# .. _api-set-grad-enabled:
#
# torch.set_grad_enabled
# ----------------------
# The same switch with a boolean argument, handy for one code path that
# serves both training and evaluation.
import torch

v = torch.ones(2, requires_grad=True)
for training in (True, False):
    with torch.set_grad_enabled(training):
        print(f"training={training}: requires_grad={(v * 2).requires_grad}")

# %%
# .. _api-inference-mode:
#
# torch.inference_mode
# --------------------
# A stricter ``no_grad`` that also skips version counting; its tensors are
# flagged ``is_inference()`` and cannot be saved for a later backward.
import torch

layer = torch.nn.Linear(4, 2)
with torch.inference_mode():
    pred = layer(torch.randn(1, 4))
print("inference tensor:", pred.is_inference(), "| requires_grad:", pred.requires_grad)
try:
    (layer.weight * pred.T).sum().backward()
except RuntimeError as err:
    print("RuntimeError:", str(err).split(".")[0])

# %%
# .. _api-saved-tensors-hooks:
#
# torch.autograd.graph.saved_tensors_hooks
# ----------------------------------------
# Every tensor autograd saves for backward goes through ``pack`` when saved
# and ``unpack`` when used, so you can log, compress or offload it.
import torch

log = []


def pack(saved):
    log.append(f"pack   {tuple(saved.shape)}")
    return saved.to(torch.bfloat16)  # keep a smaller copy


def unpack(stored):
    log.append(f"unpack {tuple(stored.shape)}")
    return stored.to(torch.float32)


m = torch.ones(2, 3, requires_grad=True)
n = torch.full((2, 3), 2.0, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    prod = (m * n).sum()
prod.backward()
print(*log, sep="\n")
print("m.grad[0]:", m.grad[0])

# %%
# .. _api-save-on-cpu:
#
# torch.autograd.graph.save_on_cpu
# --------------------------------
# A ready-made pair of those hooks that parks saved activations in CPU memory
# until backward needs them; it only saves memory for GPU tensors and is a
# harmless pass-through here on the CPU.
import torch

q = torch.randn(3, requires_grad=True)
with torch.autograd.graph.save_on_cpu(pin_memory=torch.cuda.is_available()):
    r = (q.exp() * q).sum()
r.backward()
torch.allclose(q.grad, q.exp() * (q + 1))

# %%
# .. _api-disable-saved-tensors-hooks:
#
# torch.autograd.graph.disable_saved_tensors_hooks
# ------------------------------------------------
# Forbids saved-tensor hooks inside its block; any attempt to install one
# raises ``RuntimeError`` with the message you passed.
from torch.autograd.graph import disable_saved_tensors_hooks, save_on_cpu

try:
    with disable_saved_tensors_hooks("no offloading in this block"), save_on_cpu():
        pass
except RuntimeError as err:
    print("RuntimeError:", err)

# %%
# .. _api-autograd-function:
#
# torch.autograd.Function
# -----------------------
# Subclass it with static ``forward`` and ``backward`` methods, keep what
# backward needs with ``ctx.save_for_backward``, and call it through ``.apply``.
# A backward can also add into the gradient already gathered for an input
# (:ref:`ctx.input_grad_buffers <pt2-whats-new-2-15-input-grad-buffers>`) or queue
# work for when the whole backward ends
# (:ref:`queue_callback <pt2-whats-new-2-15-queue-callback>`).
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return inp**3

    @staticmethod
    def backward(ctx, grad_out):
        (inp,) = ctx.saved_tensors
        return grad_out * 3 * inp**2


s = torch.tensor([1.0, 2.0], requires_grad=True)
Cube.apply(s).sum().backward()
s.grad

# %%
# .. _api-mark-non-differentiable:
#
# ctx.mark_non_differentiable
# ---------------------------
# Declares an output that carries no gradient, such as an index or a mask;
# ``backward`` still receives a slot for it, filled with zeros.
import torch


class ReluWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        mask = (inp > 0).to(inp.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return inp * mask, mask

    @staticmethod
    def backward(ctx, grad_out, grad_mask):  # grad_mask is unused
        (mask,) = ctx.saved_tensors
        return grad_out * mask


u = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
y, keep = ReluWithMask.apply(u)
y.sum().backward()
print("mask requires_grad:", keep.requires_grad, "| u.grad:", u.grad)

# %%
# .. _api-mark-dirty:
#
# ctx.mark_dirty
# --------------
# Declares an input that ``forward`` modified in place, which the
# ``autograd.Function`` contract asks of every such input: autograd then records
# the returned tensor as that same input, changed, rather than as a new output.
import torch


class DoubleInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        inp.mul_(2)
        ctx.mark_dirty(inp)
        return inp

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * 2


leaf = torch.tensor([1.0, 2.0], requires_grad=True)
work = leaf.clone()  # a leaf that requires grad cannot be changed in place
out = DoubleInPlace.apply(work)
out.sum().backward()
print("same tensor:", out is work, "| values:", out.detach(), "| leaf.grad:", leaf.grad)

# %%
# .. _api-set-materialize-grads:
#
# ctx.set_materialize_grads
# -------------------------
# By default ``backward`` receives zero tensors for outputs that got no
# gradient; ``ctx.set_materialize_grads(False)`` passes ``None`` instead, which
# saves allocating zeros when many outputs go unused.
import torch


class SplitTwo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.set_materialize_grads(False)
        return inp.clone(), inp.clone()

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        print("grad_a:", grad_a, "| grad_b:", grad_b)
        total = torch.zeros_like(grad_a if grad_a is not None else grad_b)
        for grad in (grad_a, grad_b):
            if grad is not None:
                total = total + grad
        return total


x = torch.tensor([1.0, 2.0], requires_grad=True)
first, _ = SplitTwo.apply(x)
(3 * first).sum().backward()
x.grad

# %%
# .. _api-gradcheck:
#
# torch.autograd.gradcheck
# ------------------------
# Compares a function's analytical backward with finite differences on
# ``float64`` inputs; a wrong formula raises ``GradcheckError``, or returns
# ``False`` with ``raise_exception=False``.
import torch
from torch.autograd import gradcheck


class GoodSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return inp**2

    @staticmethod
    def backward(ctx, grad_out):
        (inp,) = ctx.saved_tensors
        return grad_out * 2 * inp


class BadSquare(GoodSquare):
    @staticmethod
    def backward(ctx, grad_out):
        (inp,) = ctx.saved_tensors
        return grad_out * inp  # forgot the factor 2


torch.manual_seed(0)
probe = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("GoodSquare:", gradcheck(GoodSquare.apply, (probe,)))
print("BadSquare: ", gradcheck(BadSquare.apply, (probe,), raise_exception=False))

# %%
# .. _api-autograd-functional-jacobian:
#
# torch.autograd.functional.jacobian
# ----------------------------------
# Builds the full Jacobian of a function at a point, one row per output
# element; ``torch.func.jacrev`` and ``jacfwd`` do the same with
# vectorisation and compose with ``vmap``.
import torch
from torch.autograd.functional import jacobian


def scale_by_sum(vec):
    return vec * vec.sum()


jacobian(scale_by_sum, torch.tensor([1.0, 2.0, 3.0]))

# %%
# .. _api-autograd-functional-hessian:
#
# torch.autograd.functional.hessian
# ---------------------------------
# The matrix of second derivatives of a scalar function.
import torch
from torch.autograd.functional import hessian


def energy(point):
    return point[0] ** 2 * point[1] + point[1] ** 3


hessian(energy, torch.tensor([1.0, 2.0]))

# %%
# .. _api-forward-ad:
#
# torch.autograd.forward_ad
# -------------------------
# Forward-mode AD: ``make_dual`` attaches a tangent to an input inside
# ``dual_level()``, and ``unpack_dual`` reads the directional derivative off
# the output in the same pass, with no backward. (The first ``make_dual`` of a
# session loads helpers inside torch that still call the deprecated
# ``torch.jit.script``: since 2.14 that prints a ``FutureWarning`` to every
# user, in 2.13 a hidden ``DeprecationWarning``. It is harmless and filtered here.)
import warnings

import torch
import torch.autograd.forward_ad as fwAD

primal = torch.tensor([0.0, 1.0, 2.0])
direction = torch.tensor([1.0, 1.0, 0.0])
with fwAD.dual_level(), warnings.catch_warnings():
    warnings.filterwarnings("ignore", r".*torch\.jit\.script.*deprecated")
    dual_out = fwAD.make_dual(primal, direction).sin()
    value, jvp = fwAD.unpack_dual(dual_out)
print("sin(x):        ", value)
print("cos(x) * dir:  ", jvp)

# %%
# .. _api-detect-anomaly:
#
# torch.autograd.detect_anomaly
# -----------------------------
# Makes backward check every node's output for NaN and raise at the first
# node that makes one, and records forward tracebacks to point at the line
# that built it; it warns on entry because it slows everything down (the
# warnings are caught here and listed in one line each).
import warnings

import torch

root = torch.tensor([0.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        damped = (root.sqrt() * torch.tensor([0.0, 1.0])).sum()  # 0 * inf in backward
        try:
            damped.backward()
        except RuntimeError as err:
            print("RuntimeError:", err)
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).splitlines()[0]}")

# %%
# .. _api-set-detect-anomaly:
#
# torch.autograd.set_detect_anomaly
# ---------------------------------
# The same checks switched by a boolean, as a context manager or a plain call;
# ``torch.is_anomaly_enabled()`` reports the current state.
import torch

print("default:", torch.is_anomaly_enabled())
with torch.autograd.set_detect_anomaly(True):
    print("inside: ", torch.is_anomaly_enabled())
print("after:  ", torch.is_anomaly_enabled())
