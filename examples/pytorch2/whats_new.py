r"""
What changed in PyTorch 2.14
============================

The public names PyTorch 2.14 added to 2.13, found by comparing ``dir()`` of both on this machine, each run on the CPU, and the behaviour that changed.

Summary
-------

=====================================  ==================================================================================
You want                               Call
=====================================  ==================================================================================
``A = U @ H``, ``U`` orthonormal       :entry:`torch.linalg.polar(A) <pt2-whats-new-polar>`
the square root of an SPD matrix       :entry:`torch.linalg.matrix_sqrth(A) <pt2-whats-new-matrix-sqrth>`
untraceable Python in a compiled fn    :entry:`@torch.compiler.nonstrict_trace <pt2-whats-new-nonstrict-trace>`
a compiled artifact saved as Python    :entry:`precompile.capture(fn, artifact_path=...) <pt2-whats-new-precompile>`
load it in another process             :entry:`precompile.load(code_path, cache_path) <pt2-whats-new-precompile>`
what precompile refuses                :entry:`torch.compiler.PrecompileError <pt2-whats-new-precompile>`
one more CUDA graph warm-up            :entry:`cudagraph_mark_warmup_incomplete() <pt2-whats-new-cudagraph-warmup>`
a hook on every new autograd node      :entry:`node_creation_hook(hook) <pt2-whats-new-node-creation-hook>`
complex numbers in 4 bytes             :entry:`torch.bcomplex32 <pt2-whats-new-bcomplex32>`, storage only
the accelerator's RNG, any backend     :entry:`torch.accelerator.random <pt2-whats-new-accelerator-random>`
gather into one tensor                 :entry:`dist.gather_single(t, out) <pt2-whats-new-gather-timeout>`, not on gloo
the same, its older name               :entry:`dist.gather_into_tensor <pt2-whats-new-gather-timeout>`
a new timeout for a process group      :entry:`dist.set_timeout(timedelta) <pt2-whats-new-gather-timeout>`
evenly spaced values as a DTensor      :entry:`distributed.tensor.linspace(...) <pt2-whats-new-dtensor-linspace>`
the same on a log scale                :entry:`distributed.tensor.logspace(...) <pt2-whats-new-dtensor-linspace>`
TorchScript's warning, now visible     :entry:`FutureWarning <pt2-whats-new-behaviour>` from ``torch.jit.script``
the accelerator that is really there   :entry:`current_accelerator(check_available=True) <pt2-whats-new-behaviour>`
=====================================  ==================================================================================
"""

# %%
# .. _pt2-whats-new-polar:
#
# torch.linalg.polar
# ------------------
# The polar decomposition ``A = U @ H`` of an ``m x n`` matrix with
# ``m >= n``: ``U`` has orthonormal columns, ``H`` is symmetric (Hermitian)
# positive semi-definite. ``U`` is the matrix with orthonormal columns closest
# to ``A``, which makes it an orthogonalization step (QR's ``Q`` is farther).
# Not to be confused with ``torch.polar``, which builds complex numbers from
# magnitudes and angles. On the CPU it goes through an SVD; it has gradients.
import torch

torch.manual_seed(0)
A = torch.randn(5, 3, dtype=torch.float64)
U, H = torch.linalg.polar(A)
torch.testing.assert_close(U @ H, A)
torch.testing.assert_close(U.mT @ U, torch.eye(3, dtype=A.dtype))  # orthonormal columns
torch.testing.assert_close(H, H.mT)  # symmetric
print("shapes U, H:", tuple(U.shape), tuple(H.shape))
print("eigenvalues of H (>= 0):", torch.linalg.eigvalsh(H))
Q = torch.linalg.qr(A).Q
print(f"distance to A: polar U {torch.dist(U, A):.3f}, QR Q {torch.dist(Q, A):.3f}")
try:
    torch.linalg.polar(torch.randn(3, 5))  # wide matrices are refused
except RuntimeError as err:
    print("RuntimeError:", err)

# %%
# .. _pt2-whats-new-matrix-sqrth:
#
# torch.linalg.matrix_sqrth
# -------------------------
# The principal square root ``X`` (``X @ X == A``, ``X`` symmetric)
# of a symmetric or Hermitian positive-definite matrix, batched. Like
# ``eigh``, it reads only the lower triangle and assumes the rest. It does not
# check definiteness: a negative eigenvalue comes back as 0, silently.
import torch

torch.manual_seed(0)
M = torch.randn(2, 3, 3, dtype=torch.float64)
A = M @ M.mT + torch.eye(3, dtype=M.dtype)  # a batch of two SPD matrices
X = torch.linalg.matrix_sqrth(A)
torch.testing.assert_close(X @ X, A)
torch.testing.assert_close(X, X.mT)
print("X @ X == A for the batch of", X.shape[0])
upper_ignored = torch.tensor([[4.0, 100.0], [0.0, 9.0]])
print("upper triangle ignored:", torch.linalg.matrix_sqrth(upper_ignored).tolist())
not_psd = torch.tensor([[-1.0, 0.0], [0.0, 4.0]])
print("eigenvalue -1 becomes 0:", torch.linalg.matrix_sqrth(not_psd).tolist())

# %%
# .. _pt2-whats-new-nonstrict-trace:
#
# @torch.compiler.nonstrict_trace
# -------------------------------
# New as a public name; the same decorator has existed as
# ``torch._dynamo.nonstrict_trace`` since 2.7, which code for older releases
# can call. Dynamo does not read a function so marked: it puts one opaque call
# in its graph, and AOTAutograd traces the body by running it on fake
# tensors. Code Dynamo breaks the graph on (here a C function it does not
# know, ``time.perf_counter``) then costs no graph break. The catch: with an
# AOT backend (``aot_eager``, ``inductor``) the Python in it runs only while
# compiling, on traced tensors, not on each call; tensors it reads from
# globals are constants. ``explain`` counts the graphs.
import time
import warnings

import torch
import torch._dynamo

runs = []


def stamp(x):
    runs.append((type(x).__name__, time.perf_counter()))  # a C call Dynamo cannot trace
    return x * 2


def graphs(fn):
    def f(x):
        return fn(x.sin()).cos()

    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Dynamo does not know how to trace")
        report = torch._dynamo.explain(f)(torch.randn(8))
    return f"{report.graph_count} graph(s), {report.graph_break_count} break(s)"


print("plain function:         ", graphs(stamp))
marked = torch.compiler.nonstrict_trace(stamp)
print("with nonstrict_trace:   ", graphs(marked))


@torch.compile(backend="aot_eager", fullgraph=True)
def step(x):
    return marked(x.sin()).cos()


runs.clear()
x = torch.randn(8)
for calls in range(1, 6):
    torch.testing.assert_close(step(x), (x.sin() * 2).cos())
    if calls in (1, 5):
        print(f"after {calls} call(s) the body had run {len(runs)} times")
print("on:", sorted({kind for kind, _ in runs}))

# %%
# .. _pt2-whats-new-precompile:
#
# torch.compiler.precompile
# -------------------------
# Traces ``fn`` on the caller's own call (a non-strict ``make_fx`` trace, not
# Dynamo), lowers it with Inductor (``backend="eager"`` keeps the ATen graph)
# and writes two files: a self-contained Python source and a kernel cache. No
# weights are inside: the caller passes the model again, with the same
# structure. 2.14 shipped it as a function, ``precompile(fn, *args)``, that
# returned the source and the cache as values; the next release made it a
# module, and the code below is that form: ``capture`` (a context manager whose
# one call runs for real and is traced) and ``load``, which runs the source
# (it logs a warning that it executes code: load only what you made). Shapes,
# strides and control flow are fixed by the example; another shape raises
# ``PrecompileError``. Here a fresh process loads the files and runs them.
import logging
import pathlib
import subprocess
import sys
import tempfile

import torch

logging.getLogger("torch._precompile").setLevel(logging.ERROR)  # the exec warning
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
x = torch.randn(3, 4)
fresh = """
import logging, pathlib, sys, torch
logging.getLogger("torch._precompile").setLevel(logging.ERROR)
folder = pathlib.Path(sys.argv[1])
forward = torch.compiler.precompile.load(folder / "linear.py", folder / "linear.bin")
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)  # same structure and, seeded, same weights
x = torch.randn(3, 4)
print("fresh process, max difference from eager:", (forward(model, x) - model(x)).abs().max().item())
"""
with tempfile.TemporaryDirectory() as tmp:
    code, cache = pathlib.Path(tmp, "linear.py"), pathlib.Path(tmp, "linear.bin")
    capture = torch.compiler.precompile.capture
    with capture(lambda m, t: m(t), artifact_path=code, cache_path=cache) as cap:
        y = cap(model, x)  # runs for real, and is traced
    print(
        f"python_code: {code.read_text().count(chr(10))} lines, cache: {cache.stat().st_size} bytes"
    )
    forward = torch.compiler.precompile.load(code, cache)
    torch.testing.assert_close(forward(model, x), y)
    try:
        forward(model, torch.randn(5, 4))
    except torch.compiler.PrecompileError as err:
        print("PrecompileError:", str(err).split(" (")[0])
    done = subprocess.run(
        [sys.executable, "-c", fresh, tmp], check=False, capture_output=True, text=True
    )
print(done.stdout.strip() or done.stderr[-800:])

# %%
# .. _pt2-whats-new-cudagraph-warmup:
#
# torch.compiler.cudagraph_mark_warmup_incomplete
# -----------------------------------------------
# Per its docstring: called from code that runs during a CUDA Graph
# Trees warm-up (``mode="reduce-overhead"``), such as an autotuner, it
# asks for one more eager warm-up run before the function is recorded. Outside
# a warm-up it does nothing, which is all a CPU can show.
import torch

print("outside a warm-up it returns:", torch.compiler.cudagraph_mark_warmup_incomplete())

# %%
# .. _pt2-whats-new-node-creation-hook:
#
# torch.autograd.graph.node_creation_hook
# ---------------------------------------
# A context manager: ``hook(node)`` is called for each autograd node
# created inside it, once the node is complete, so it can read the node,
# write ``node.metadata`` or register backward hooks on it. Operations without
# ``requires_grad`` inputs make no node. A hook that itself creates a node
# raises.
import torch
from torch.autograd.graph import node_creation_hook

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
created, backward_order = [], []


def hook(node):
    created.append(node.name())
    node.metadata["region"] = "forward"
    node.register_prehook(lambda grad_outputs: backward_order.append(node.name()))


with node_creation_hook(hook):
    loss = model(torch.randn(4, 3)).relu().sum()
    torch.ones(2) * 3  # no requires_grad: no node
print("created:", created)
print("loss.grad_fn.metadata:", loss.grad_fn.metadata)
loss.backward()
print("backward ran:", backward_order)

# %%
# .. _pt2-whats-new-bcomplex32:
#
# torch.bcomplex32
# ----------------
# A complex dtype made of two ``bfloat16`` (4 bytes), as
# ``complex32`` is made of two ``float16``. It is experimental (creating one
# warns) and so far a storage type: conversions, copies, ``cat`` and views
# work; arithmetic raises ``NotImplementedError`` on the CPU. Compute in
# ``complex64`` and store in ``bcomplex32``.
import warnings

import torch

dtype = torch.bcomplex32
print(
    dtype,
    "itemsize",
    dtype.itemsize,
    "is_complex",
    dtype.is_complex,
    "to_real",
    dtype.to_real(),
)
z = torch.tensor([1 + 2j, 3 - 0.5j])
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "BComplex32 support is experimental")
    packed = z.to(dtype)
print(packed, "->", packed.to(torch.complex64))
print("real part:", packed.real, "| view_as_real:", torch.view_as_real(packed).shape)
for name, op in [("a + b", lambda t: t + t), ("abs", torch.abs), ("sum", torch.sum)]:
    try:
        op(packed)
        print(f"{name}: works")
    except NotImplementedError as err:
        print(f"{name}: NotImplementedError: {str(err).splitlines()[0]}")

# %%
# .. _pt2-whats-new-accelerator-random:
#
# torch.accelerator.random
# ------------------------
# Three readers of the default generator of whatever accelerator this
# build targets (CUDA, XPU, MPS...): ``initial_seed``,
# ``get_rng_state`` (a ``uint8`` tensor) and ``get_rng_state_all`` (one per
# device). Seeding stays ``torch.manual_seed``. They start the accelerator's
# runtime, so ask ``is_available()`` first: on a CUDA build without a GPU they
# raise.
import torch

if not torch.accelerator.is_available():
    print("skipped initial_seed / get_rng_state: no accelerator here")
    print("get_rng_state_all():", torch.accelerator.random.get_rng_state_all())
else:
    device = torch.accelerator.current_accelerator()
    torch.manual_seed(1234)  # seeds the CPU and every accelerator
    print(device, "initial_seed:", torch.accelerator.random.initial_seed())
    state = torch.accelerator.random.get_rng_state()
    first = torch.rand(3, device=device)
    torch.get_device_module(device).set_rng_state(state)  # the backend's own setter
    torch.testing.assert_close(torch.rand(3, device=device), first)
    print("state:", state.dtype, tuple(state.shape), "- restoring it repeats the draw")
    print("devices:", len(torch.accelerator.random.get_rng_state_all()))

# %%
# .. _pt2-whats-new-gather-timeout:
#
# gather_single, gather_into_tensor and set_timeout
# -------------------------------------------------
# Since 2.14. ``dist.gather_single(t, out, dst=0)`` gathers every rank's
# ``t`` into one tensor ``out`` on ``dst`` (flat or stacked), where ``gather``
# fills a list; per its docstring NCCL 2.28.3+ does it without the extra copy.
# ``gather_into_tensor`` is the same call under its older name: 2.14 warned
# that it is deprecated, and the next release kept it as a plain alias; the
# script prints what the running torch says.
# gloo does not implement it: on CPU ranks keep ``gather`` and ``torch.cat``.
# ``dist.set_timeout`` changes the timeout of an existing group (gloo's
# default is 30 minutes): below, rank 1 comes late and rank 0 gives up. The
# block is a script for ``torchrun``, run with the command on its first line.

# torchrun --nproc-per-node=2 gather_timeout.py
import contextlib
import datetime
import time
import warnings

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    mine = torch.arange(2) + 10 * rank
    out = torch.empty(world_size * 2, dtype=mine.dtype) if rank == 0 else None
    try:
        dist.gather_single(mine, out, dst=0)
    except RuntimeError as err:
        print("gather_single:", err)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(RuntimeError):  # the same gloo error as above
            dist.gather_into_tensor(mine, out, dst=0)
    said = [f"{w.category.__name__}: {w.message}" for w in caught] or ["no warning"]
    print("gather_into_tensor:", *said)
    pieces = [torch.empty_like(mine) for _ in range(world_size)] if rank == 0 else None
    dist.gather(mine, pieces, dst=0)  # what works on gloo
    if rank == 0:
        print("gather + cat:", torch.cat(pieces))

    dist.set_timeout(datetime.timedelta(seconds=1))
    start = time.perf_counter()
    if rank == 0:
        try:
            dist.all_reduce(torch.ones(1))
        except RuntimeError as err:
            waited = time.perf_counter() - start
            print(f"all_reduce gave up after {waited:.1f} s:", str(err).split("] ")[-1])
    else:
        time.sleep(2)  # never joins the all_reduce
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. torch-outputs:: pt2-whats-new-gather-timeout
#    :releases: 2.14.1

# %%
# .. _pt2-whats-new-dtensor-linspace:
#
# DTensor linspace and logspace
# -----------------------------
# Since 2.14, ``torch.distributed.tensor`` has ``linspace`` and ``logspace``
# beside ``zeros``, ``ones``, ``full``, ``rand``... Each rank computes only
# its own shard (from its offset in the whole), and the result equals
# ``torch.linspace`` once gathered, which every rank checks. With an uneven split
# the first ranks get the extra element. ``init_device_mesh`` starts the process
# group itself when none exists.

# torchrun --nproc-per-node=2 spaced.py
import torch
import torch.distributed as dist
import torch.distributed.tensor as dtensor
from torch.distributed.device_mesh import init_device_mesh


def main():
    mesh = init_device_mesh("cpu", (2,))
    xs = dtensor.linspace(0.0, 1.0, 5, device_mesh=mesh, placements=[dtensor.Shard(0)])
    print("linspace shard:", xs.to_local(), "of", tuple(xs.shape))
    torch.testing.assert_close(xs.full_tensor(), torch.linspace(0.0, 1.0, 5))
    print("gathered, it equals torch.linspace(0.0, 1.0, 5)")
    powers = dtensor.logspace(0, 3, 4, device_mesh=mesh, placements=[dtensor.Replicate()])
    print("logspace, replicated:", powers.to_local())
    dist.barrier()  # no rank tears the group down while another still works
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# %%
# .. _pt2-whats-new-behaviour:
#
# Behaviour changes from 2.13
# ---------------------------
# ``torch.jit.script``, ``trace`` and ``freeze`` raise a ``DeprecationWarning``
# in 2.13 (``script`` already did in 2.10), which Python hides outside
# ``__main__``; 2.14 raises a ``FutureWarning``, which Python always shows.
# Forward-mode AD (``jvp``, ``jacfwd``, ``make_dual``) scripts helpers inside
# torch the first time it runs in a process, so it now raises that warning
# too, many times over, as a fresh process counts below (one that already ran
# forward mode raises none); Python's default filters print it once, since
# every one comes from the same line of torch. The filter below, by message,
# silences only it. ``current_accelerator()``
# answers from how torch was built: ``cuda`` for the CUDA wheel even with no
# GPU; ``check_available=True`` asks the machine.
import subprocess
import sys
import warnings

import torch
from torch.func import jvp


def double(x):
    return x * 2


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.jit.script(double)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")

first_jvp = """
import sys, warnings
import torch
from torch.func import jvp

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter(sys.argv[1])
    jvp(torch.sin, (torch.ones(2),), (torch.ones(2),))
print(sum("torch.jit.script" in str(w.message) for w in caught))
"""
counts = {
    action: subprocess.run(
        [sys.executable, "-c", first_jvp, action], capture_output=True, text=True, check=True
    ).stdout.strip()
    for action in ("always", "default")
}
print(
    f"first jvp of a fresh process: {counts['always']} torch.jit.script warnings raised,"
    f" {counts['default']} shown under Python's default filters"
)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", r".*torch\.jit\.script.*deprecated")  # the filter to copy
    jvp(torch.sin, (torch.ones(2),), (torch.ones(2),))

print("torch", torch.__version__, "| CUDA build:", torch.version.cuda)
print("current_accelerator():                    ", torch.accelerator.current_accelerator())
print(
    "current_accelerator(check_available=True):",
    torch.accelerator.current_accelerator(check_available=True),
)
