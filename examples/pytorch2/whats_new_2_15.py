r"""
What changed in PyTorch 2.15
============================

The public names PyTorch 2.15 added to 2.14, found by comparing both releases' namespaces on this machine, each run on the CPU where a CPU can run it, and the behaviour that changed, measured under both.

Summary
-------

=====================================  ======================================================================
You want                               Call
=====================================  ======================================================================
one op over a list of tensors          :entry:`torch.foreach.add_(params, grads, alpha=-lr) <pt2-whats-new-2-15-foreach>`
an AdamW step without an optimizer     :entry:`torch.optim.functional.adamw(params, grads, ...) <pt2-whats-new-2-15-optim-functional>`
run code when this backward ends       :entry:`torch.autograd.graph.queue_callback(fn) <pt2-whats-new-2-15-queue-callback>`
add into the gradient already there    :entry:`ctx.input_grad_buffers <pt2-whats-new-2-15-input-grad-buffers>`
a dynamic dim with bounds              :entry:`maybe_mark_dynamic(x, 0, min=2, max=16) <pt2-whats-new-2-15-maybe-mark-dynamic>`
keep an input's shape static           :entry:`torch.compiler.config.static_sources <pt2-whats-new-2-15-static-sources>`
bicubic sampling of a volume           :entry:`F.grid_sample(x5d, grid, mode="bicubic") <pt2-whats-new-2-15-grid-sample-bicubic>`
a checkpoint through fsspec            :entry:`dcp.save(sd, storage_writer=FsspecWriter(url)) <pt2-whats-new-2-15-fsspec-checkpoint>`
precompile, as it is now               :entry:`torch.compiler.precompile.capture(...) <pt2-whats-new-2-15-precompile>`
the ``*_into_tensor`` collectives      :entry:`dist.all_gather_into_tensor, no warning <pt2-whats-new-2-15-collective-aliases>`
a tensor from a buffer, its dtype      :entry:`torch.asarray(array.array("i", ...)) <pt2-whats-new-2-15-behaviour>`
what needs a GPU, a Mac or ranks       :entry:`F.scaled_addmm, torch.mps.Stream, FSDP2 ... <pt2-whats-new-2-15-not-on-cpu>`
=====================================  ======================================================================

The names come from ``tools/public_names.py``, run under each release; its two
files in ``results/public-names/`` are what this page accounts for, name by name.
"""

# %%
# .. _pt2-whats-new-2-15-foreach:
#
# torch.foreach
# -------------
# A public home (beta) for the multi-tensor operations that optimizers have
# long used as ``torch._foreach_*``: each function applies one operation at
# every position of one or more lists of tensors, with a fused kernel where the
# inputs allow it and a loop otherwise. An in-place function (``add_``) returns
# the list it changed. The private names still work and give the same numbers.
import torch

torch.manual_seed(0)
params = [torch.randn(3), torch.randn(2, 2)]
grads = [torch.ones(3), torch.ones(2, 2)]
by_loop = [p - 0.1 * g for p, g in zip(params, grads, strict=True)]
torch.foreach.add_(params, grads, alpha=-0.1)  # one SGD step for the whole list
for p, q in zip(params, by_loop, strict=True):
    torch.testing.assert_close(p, q)
print(len(torch.foreach.__all__), "functions, for example", torch.foreach.__all__[:4])
norms = torch.foreach.norm(params)
print("norms:", [round(n.item(), 3) for n in norms])
print("same as torch._foreach_norm:", all(map(torch.equal, norms, torch._foreach_norm(params))))
try:
    torch.foreach.mul_([], 2.0)
except RuntimeError as err:
    print("an empty list: RuntimeError:", err)

# %%
# .. _pt2-whats-new-2-15-optim-functional:
#
# torch.optim.functional
# ----------------------
# The step of each optimizer as a function (``sgd``, ``adam``, ``adamw``,
# ``muon``, ...), where the caller holds the state (moments, step counts) that
# an optimizer object would keep. Below, three ``adamw`` steps on one copy of
# a model and three ``torch.optim.AdamW`` steps on its twin leave the same
# weights: ``torch.equal`` compares them bit for bit.
import torch
from torch.optim.functional import adamw

torch.manual_seed(0)
model, twin = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
twin.load_state_dict(model.state_dict())
x, y = torch.randn(8, 4), torch.randn(8, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
params = [p.detach() for p in twin.parameters()]
exp_avgs = [torch.zeros_like(p) for p in params]  # the state AdamW keeps per parameter
exp_avg_sqs = [torch.zeros_like(p) for p in params]
steps = [torch.tensor(0.0) for _ in params]
for _ in range(3):
    for m in (model, twin):
        m.zero_grad()
        torch.nn.functional.mse_loss(m(x), y).backward()
    optimizer.step()
    grads = [p.grad for p in twin.parameters()]
    adamw(params, grads, exp_avgs, exp_avg_sqs, [], steps, amsgrad=False,
          beta1=0.9, beta2=0.999, lr=1e-2, weight_decay=0.1, eps=1e-8, maximize=False)  # fmt: skip
same = [torch.equal(a, b) for a, b in zip(model.parameters(), twin.parameters(), strict=True)]
print("bit for bit equal to torch.optim.AdamW after 3 steps:", same)
print("step counts the caller kept:", [s.item() for s in steps])

# %%
# .. _pt2-whats-new-2-15-queue-callback:
#
# torch.autograd.graph.queue_callback
# -----------------------------------
# Called while a backward pass runs (from a tensor hook or a custom
# ``backward``), it queues a function to run once that backward has finished,
# when every ``.grad`` is written: the place for work that needs all the
# gradients, such as a check or a log line. Outside a backward it raises.
import torch
from torch.autograd.graph import queue_callback

events = []
w = torch.randn(3, requires_grad=True)


def hook(grad):
    events.append("hook: w's gradient computed")
    queue_callback(lambda: events.append(f"callback: w.grad written = {w.grad is not None}"))
    return grad


w.register_hook(hook)
(w * 2).sum().backward()
print(*events, sep="\n")
try:
    queue_callback(print)
except RuntimeError as err:
    print("outside a backward: RuntimeError:", err)

# %%
# .. _pt2-whats-new-2-15-input-grad-buffers:
#
# ctx.input_grad_buffers
# ----------------------
# In a custom ``Function.backward``, one entry per input of ``forward``: the
# gradient the engine has gathered for that input so far, or ``None``. A
# backward may add its part into that buffer and return ``None`` for the input,
# which saves a tensor. Whether a buffer is there depends on the order the
# engine runs the graph in, so the code must handle both cases, as below:
# the same sum, with the custom op last and then first.
import torch


class Triple(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, grad_out):
        (buffer,) = ctx.input_grad_buffers
        if buffer is not None:
            buffer.add_(grad_out * 3)  # added into what is there
            print("  backward: added into the buffer, returned None")
            return None
        print("  backward: no buffer yet, returned a new gradient")
        return grad_out * 3


x = torch.ones(2, requires_grad=True)
for name, loss in [
    ("Triple first in the sum", lambda: Triple.apply(x).sum() + (x * 5).sum()),
    ("Triple last in the sum", lambda: (x * 5).sum() + Triple.apply(x).sum()),
]:
    print(name)
    x.grad = None
    loss().backward()
    print("  x.grad:", x.grad.tolist())

# %%
# .. _pt2-whats-new-2-15-maybe-mark-dynamic:
#
# maybe_mark_dynamic with bounds
# ------------------------------
# ``torch._dynamo.maybe_mark_dynamic(x, dim)`` asks the compiler to treat a
# dimension as a symbol rather than a constant, without failing when it cannot.
# It now takes ``min=`` and ``max=``: one graph serves every size in the range,
# and an input outside it raises ``ConstraintViolationError`` instead of
# compiling again. The backend below only records the graphs it is given.
import torch
import torch._dynamo
from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

graphs = []


def recording(gm, example_inputs):
    graphs.append([tuple(t.shape) if isinstance(t, torch.Tensor) else t for t in example_inputs])
    return gm.forward


@torch.compile(backend=recording)
def f(x):
    return x.sin() * 2


for n in (4, 6, 8, 40):
    x = torch.randn(n)
    torch._dynamo.maybe_mark_dynamic(x, 0, min=2, max=16)
    try:
        f(x)
    except ConstraintViolationError as err:
        print(f"size {n}: {type(err).__name__}: {str(err).splitlines()[0]}")
print(f"{len(graphs)} graph for sizes 4, 6 and 8, its inputs:", graphs)

# %%
# .. _pt2-whats-new-2-15-static-sources:
#
# torch.compiler.config.static_sources
# ------------------------------------
# The opposite of ``dynamic_sources``: a comma-separated list of inputs, by
# their Dynamo names (``L['x']``, ``L['x']:0`` for one dimension), to keep
# static even when automatic dynamic shapes would make them symbolic. The
# environment variable ``TORCH_COMPILE_STATIC_SOURCES`` sets it too. Three
# sizes give two graphs by default (the second size makes the dimension
# dynamic) and three with ``x`` listed.
import torch
import torch._dynamo

graphs = []


def recording(gm, example_inputs):
    graphs.append(next(tuple(t.shape) for t in example_inputs if isinstance(t, torch.Tensor)))
    return gm.forward


def count_graphs(**config):
    torch._dynamo.reset()
    graphs.clear()
    with torch.compiler.config.patch(**config):
        g = torch.compile(lambda x: x.cos() + 1, backend=recording)
        for n in (4, 6, 8):
            g(torch.randn(n))
    return f"{len(graphs)} graphs, input shapes {graphs}"


print("default:                 ", count_graphs())
print("static_sources=\"L['x']\":", count_graphs(static_sources="L['x']"))

# %%
# .. _pt2-whats-new-2-15-grid-sample-bicubic:
#
# grid_sample: bicubic on 5-D input
# ---------------------------------
# ``F.grid_sample`` samples a volume ``(N, C, D, H, W)`` at the points of a
# grid ``(N, D', H', W', 3)``; ``mode="bicubic"``, which earlier releases
# refused for 5-D input, now reads the 4 x 4 x 4 neighbourhood of each point.
# An identity grid gives the volume back; one point shows the three modes
# side by side, and the gradient reaches the voxels bicubic read.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
volume = torch.randn(1, 2, 6, 6, 6)
identity = F.affine_grid(torch.eye(3, 4).unsqueeze(0), (1, 2, 6, 6, 6), align_corners=False)
same = F.grid_sample(volume, identity, mode="bicubic", align_corners=False)
torch.testing.assert_close(same, volume)
print("identity grid gives the volume back:", tuple(same.shape))
point = torch.tensor([[[[[0.1, -0.3, 0.3]]]]])  # x, y, z in [-1, 1]
for mode in ("nearest", "bilinear", "bicubic"):
    values = F.grid_sample(volume, point, mode=mode, align_corners=True).flatten()
    print(f"{mode:8}", [round(v, 4) for v in values.tolist()])
v = volume.clone().requires_grad_()
F.grid_sample(v, point, mode="bicubic", align_corners=True).sum().backward()
print("voxels with a gradient, per channel:", (v.grad != 0).sum((2, 3, 4)).flatten().tolist())

# %%
# .. _pt2-whats-new-2-15-fsspec-checkpoint:
#
# FsspecWriter and FsspecReader
# -----------------------------
# ``torch.distributed.checkpoint`` now exports its fsspec storage classes
# (and their module, ``fsspec_filesystem``): a
# distributed checkpoint goes to any fsspec URL (``s3://``, ``gs://``, ...)
# the installed fsspec can reach. Here the URL is ``file://`` on the local
# disk, in one process: ``dcp`` warns once that there is no process group and
# saves as a single rank, which the filter below expects.
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp

torch.manual_seed(0)
model, fresh = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
state = fresh.state_dict()
with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
    warnings.filterwarnings("ignore", "torch.distributed is disabled, unavailable or uninit")
    url = f"file://{tmp}/step-100"
    dcp.save(model.state_dict(), storage_writer=dcp.FsspecWriter(url))
    print("written:", sorted(os.listdir(f"{tmp}/step-100")))
    dcp.load(state, storage_reader=dcp.FsspecReader(url))  # fills state in place
fresh.load_state_dict(state)
torch.testing.assert_close(fresh.weight, model.weight)
print("loaded back, weights equal:", torch.equal(fresh.weight, model.weight))

# %%
# .. _pt2-whats-new-2-15-precompile:
#
# precompile is a module now
# --------------------------
# In 2.14 ``torch.compiler.precompile(fn, *args)`` was a function returning
# the source and the cache. It is now a module (still a prototype): 2.14's
# call raises ``TypeError``, and ``capture`` and ``load`` take its place, with
# files on disk; the :ref:`2.14 page's entry <pt2-whats-new-precompile>` runs
# them across two processes.
import torch

model, x = torch.nn.Linear(4, 2), torch.randn(3, 4)
try:
    torch.compiler.precompile(lambda m, t: m(t), model, x)  # the 2.14 form
except TypeError as err:
    print("precompile(fn, *args): TypeError:", err)
print(type(torch.compiler.precompile).__name__, "torch.compiler.precompile:")
print("  ", ", ".join(torch.compiler.precompile.__all__))

# %%
# .. _pt2-whats-new-2-15-collective-aliases:
#
# The collectives that no longer warn
# -----------------------------------
# ``all_gather_into_tensor``, ``reduce_scatter_tensor`` and
# ``gather_into_tensor`` warned in 2.14 that they are deprecated in favour
# of the ``*_single`` names. They are now plain aliases, kept for existing
# code, and call the new names without a warning
# (:ref:`api-distributed-all-gather-into-tensor` runs them in a world of one
# process, on the API's own page). The warning came before the call needed a
# process group, so one process shows it: each call below fails for want of a
# group, and what it warned is printed.
import contextlib
import warnings

import torch
import torch.distributed as dist

out, mine = torch.empty(4), torch.ones(2)
for name in ("all_gather_into_tensor", "reduce_scatter_tensor", "gather_into_tensor"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(ValueError, RuntimeError):  # no process group here
            getattr(dist, name)(out, mine)
    said = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught) or "no warning"
    print(f"{name}: {said}")
print("its docstring:", dist.all_gather_into_tensor.__doc__.split("\n\n")[1].split(".")[0].strip())

# %%
# .. torch-outputs:: pt2-whats-new-2-15-collective-aliases
#    :releases: 2.14.1

# %%
# .. _pt2-whats-new-2-15-behaviour:
#
# Behaviour changes from 2.14
# ---------------------------
# ``torch.asarray`` of a Python buffer without ``dtype=`` now takes the
# buffer's own format (``array.array("i")`` is ``int32``, a ``bytearray``
# ``uint8``), where 2.14 read the bytes as the default float dtype (a
# 2-byte ``bytearray`` raised). An optimizer given a ``set`` of parameters
# warns (``FutureWarning``), since a set's order changes between runs and the
# saved state would follow it. ``torch.load(weights_only=True)`` refuses
# nested tensors, jagged or strided: load them with ``weights_only=False``
# from a file you trust. The profiler's ``FunctionEvent.metadata_json`` is
# gone. The block prints what the running torch does. The pages of these APIs
# show each change again, with what 2.14.1 printed beside it:
# :ref:`api-torch-asarray-buffer`, :ref:`pt2-optimizers-param-order` and
# :ref:`basics-save-nested-tensor`.
import array
import io
import pickle
import warnings

import torch

print("torch", torch.__version__)
for buffer in (array.array("i", [1, 2, 3]), bytearray(b"\x01\x02")):
    try:
        print(f"asarray({type(buffer).__name__}):", torch.asarray(buffer).dtype)
    except ValueError as err:
        print(f"asarray({type(buffer).__name__}): ValueError:", err)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.optim.SGD({torch.nn.Parameter(torch.zeros(2))}, lr=0.1)
print("SGD(a set):", [f"{w.category.__name__}: {str(w.message)[:60]}..." for w in caught])

saved = io.BytesIO()
torch.save(torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged), saved)
saved.seek(0)
try:
    torch.load(saved, weights_only=True)
    print("a jagged nested tensor loads with weights_only=True")
except pickle.UnpicklingError as err:
    print(f"a jagged nested tensor, weights_only=True: {type(err).__name__}")
saved.seek(0)
print("weights_only=False:", torch.load(saved, weights_only=False).is_nested)

from torch.autograd.profiler_util import FunctionEvent

print("FunctionEvent.metadata_json exists:", hasattr(FunctionEvent, "metadata_json"))

# %%
# .. torch-outputs:: pt2-whats-new-2-15-behaviour
#    :releases: 2.14.1
#    :blocks: 1
#
# The backend ``"nccl"`` now builds NCCL 2's process group
# (``ProcessGroupNCCL2``) unless ``TORCH_DIST_USE_NCCL2=0`` is set before torch
# starts; ``"nccl-legacy"`` names the older one. In 2.14 NCCL 2 was the one you
# asked for, with ``TORCH_DIST_USE_NCCL2=1``. No GPU here, so the block prints
# the lines of torch's own source that choose, from the installed release, and
# the record below the same lines from 2.14.1.
import inspect

import torch.distributed.distributed_c10d as c10d

source = inspect.getsource(c10d._register_builtin_nccl_backend)
chooses = [line for line in source.splitlines() if "creator_fn =" in line or "nccl" in line.lower()]
print(*chooses[:5], sep="\n")
print('"nccl-legacy" registered by:', c10d._register_builtin_nccl_legacy_backend.__name__)

# %%
# .. torch-outputs:: pt2-whats-new-2-15-behaviour
#    :releases: 2.14.1
#    :blocks: 2

# %%
# .. _pt2-whats-new-2-15-not-on-cpu:
#
# What a CPU cannot run
# ---------------------
# The other names 2.15 added need hardware this machine lacks, each tried or
# named here: ``F.scaled_addmm`` and ``F.scaled_addmm_`` (``beta * input +
# alpha * scaled_mm(a, b)`` in float8, a CUDA kernel: the CPU has none, as the
# call below shows); ``torch.mps.Stream``, ``stream``, ``current_stream``,
# ``default_stream`` and ``set_stream`` (Apple GPUs); the profiler's
# ``ProfilerActivityConfig``, ``CuspyConfig`` and ``PerformanceMetricsConfig``
# (CUDA activity and hardware counters); FSDP2's
# ``FSDPModule.set_keep_unsharded_storage``, ``MixedPrecisionPolicy``'s
# ``param_dtype_override_fn`` and ``GradientReductionHandle`` (sharded
# training on GPUs); ``DeviceMesh(preserve_rank_order=)`` and
# ``DeviceMesh.abort()`` (several nodes). The block checks that each is
# there.
import inspect

import torch
import torch.nn.functional as F
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.fsdp import FSDPModule, GradientReductionHandle, MixedPrecisionPolicy

scale = torch.tensor(1.0)
a = torch.randn(16, 16).to(torch.float8_e4m3fn)
b = torch.randn(16, 16).to(torch.float8_e4m3fn).t()
try:
    F.scaled_addmm(torch.zeros(16, 16), a, b, scale, F.ScalingType.TensorWise,
                   scale, F.ScalingType.TensorWise)  # fmt: skip
    print("scaled_addmm ran")
except NotImplementedError as err:
    print("scaled_addmm on the CPU: NotImplementedError:", str(err).split(" with ")[0])
names = [
    torch.mps.Stream, torch.mps.set_stream, torch.profiler.ProfilerActivityConfig,
    torch.profiler.CuspyConfig, torch.profiler.PerformanceMetricsConfig,
    FSDPModule.set_keep_unsharded_storage, GradientReductionHandle, DeviceMesh.abort,
]  # fmt: skip
print("present:", ", ".join(n.__qualname__ for n in names))
print("param_dtype_override_fn" in inspect.signature(MixedPrecisionPolicy).parameters,
      "preserve_rank_order" in inspect.signature(DeviceMesh).parameters)  # fmt: skip

# %%
# Summary
# -------
# Upgrading from 2.14, look for three things in your code: calls of
# ``torch.compiler.precompile(fn, ...)`` (now ``capture`` and ``load``),
# ``torch.asarray`` of a buffer without ``dtype=`` (the dtype may change),
# and ``torch.load(weights_only=True)`` of nested tensors (refused). The new
# ``torch.foreach`` and ``torch.optim.functional`` are public names for code
# that existed, and give the same numbers.
