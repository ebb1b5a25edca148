r"""
torch.compile in practice
=========================

What you decide when you put ``torch.compile`` into real code: which mode, how to
stop shapes from triggering recompiles, how to train with it, how to save the
model, how to warm it up before serving, and when ``torch.export`` is the better
tool. Every timing on this page was measured while the page was built, on the
machine described in the first cell.
"""

# %%
# The machine behind the numbers
# ------------------------------
# Compile times and speedups depend on the CPU or GPU, the thread count and the
# compiler; this stamp travels with every number below. The page times on one
# thread: on a small machine shared with other work, a second OpenMP thread that
# waits for a free core turned sub-millisecond calls into tens of milliseconds.
import torch

from cheatsheet import environment

torch.set_num_threads(1)
environment()

# %%
# The first compile pays a one-time start-up
# ------------------------------------------
# The first ``torch.compile`` call in a process imports TorchInductor and sets up
# its code generation; later compiles skip that. Compiling a tiny model made of
# the same layer types pays it here (or finds it paid, when something in this
# process compiled before), so it stays out of the per-mode compile times below.
import time

tiny = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(), torch.nn.LayerNorm(8))
start = time.perf_counter()
with torch.no_grad():
    torch.compile(tiny)(torch.zeros(2, 8))
print(f"warm-up compile of a tiny model: {time.perf_counter() - start:.1f} s")

# %%
# Compare the modes: compile time and steady state
# ------------------------------------------------
# ``mode`` picks a preset. ``"default"`` balances compile time and speed;
# ``"reduce-overhead"`` adds CUDA graphs to cut per-call launch cost on a GPU;
# ``"max-autotune"`` also benchmarks kernel variants while compiling.
# ``benchmark`` reports the first call (the compile) apart from the steady state.
# Inductor's FX graph cache is switched off here, so every first call traces,
# lowers and generates code again; compiled C++ is still reused from disk when
# the generated source is identical, so the very first build on a machine is
# slower than the numbers below.
import torch._inductor.config

from cheatsheet import benchmark, compare, format_seconds

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512),
    torch.nn.GELU(),
    torch.nn.Linear(512, 256),
    torch.nn.LayerNorm(256),
).eval()
batch = torch.randn(64, 256)

results = []
with torch.no_grad(), torch._inductor.config.patch(fx_graph_cache=False):
    results.append(benchmark(model, batch, label="eager", min_time_s=0.3, min_runs=15))
    for mode in ["default", "reduce-overhead", "max-autotune"]:
        compiled = torch.compile(model, mode=mode)
        results.append(benchmark(compiled, batch, label=mode, min_time_s=0.3, min_runs=15))
        torch.testing.assert_close(compiled(batch), model(batch))

modes = compare(results, baseline="eager")
modes

# %%
# Compile time of each mode, and the verdicts
# -------------------------------------------
# The first call's time is nearly all compilation; the sentences come from the
# medians in the table above.
for m in results[1:]:
    print(
        f"{m.label:<16} first call {format_seconds(m.first_call_s):>9}  "
        f"(steady state {format_seconds(m.median_s)})"
    )
for label in ["default", "reduce-overhead", "max-autotune"]:
    print(modes.verdict(label) + ".")
print(compare(results, baseline="default").verdict("reduce-overhead") + ".")
print(compare(results, baseline="default").verdict("max-autotune") + ".")
if not torch.cuda.is_available():
    print("No CUDA device here: reduce-overhead cannot record CUDA graphs on this machine.")
noisy = [m.label for m in results if m.noisy]
if noisy:
    print(
        f"Flagged noisy (spread above 10% of the median): {', '.join(noisy)}; "
        "read those ratios as rough."
    )

# %%
# The same medians as a chart
# ---------------------------
# Bars are median time per call, whiskers the interquartile range.
fig = modes.plot(title="torch.compile modes against eager (higher speedup is better)")

# %%
# Recompiles on new shapes, counted
# ---------------------------------
# By default a graph is specialised to the sizes of the first call; the first new
# size makes Dynamo recompile with a symbolic size, which later sizes reuse.
# ``dynamic=True`` starts symbolic, ``dynamic=False`` specialises on every size,
# and ``torch._dynamo.mark_dynamic`` makes one dimension symbolic from the start.
# A backend that only counts its calls shows how many graphs were compiled.
import torch._dynamo


def scale_rows(x):
    return x * x.mean(dim=1, keepdim=True)


def count_compiles(mark=False, **compile_kwargs):
    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    fn = torch.compile(scale_rows, backend=counting_backend, **compile_kwargs)
    for rows in (2, 3, 4, 5):
        x = torch.randn(rows, 8)
        if mark:
            torch._dynamo.mark_dynamic(x, 0)
        fn(x)
    return len(graphs)


print("4 calls with 2, 3, 4, 5 rows -> graphs compiled")
print(f"  default (automatic dynamic): {count_compiles()}")
print(f"  dynamic=True:                {count_compiles(dynamic=True)}")
print(f"  dynamic=False:               {count_compiles(dynamic=False)}")
print(f"  mark_dynamic(x, 0) first:    {count_compiles(mark=True)}")

# %%
# Train a compiled model
# ----------------------
# Compile the module and train as usual: AOTAutograd compiles the backward pass
# too. On the first batch the compiled gradients match eager ones; then the loss
# falls.
import copy

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
eager_net = copy.deepcopy(net)
compiled_net = torch.compile(net)

inputs = torch.randn(256, 16)
targets = inputs[:, :4].sum(dim=1, keepdim=True).sin()
loss_fn = torch.nn.MSELoss()

loss_fn(compiled_net(inputs), targets).backward()
loss_fn(eager_net(inputs), targets).backward()
eager_grads = {name: p.grad for name, p in eager_net.named_parameters()}
for name, p in net.named_parameters():
    torch.testing.assert_close(p.grad, eager_grads[name])
print("gradients match eager for", list(eager_grads))

optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(1, 61):
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(compiled_net(inputs), targets)
    loss.backward()
    optimizer.step()
    if step in (1, 20, 40, 60):
        print(f"step {step:>2}  loss {loss.item():.4f}")

# %%
# One training step, eager against compiled
# -----------------------------------------
# The published speedups are for training, so time a whole step here as well:
# forward, backward and the optimizer update, on the same network and batch.
eager_opt = torch.optim.Adam(eager_net.parameters(), lr=1e-2)


def train_step(module, opt):
    opt.zero_grad(set_to_none=True)
    loss_fn(module(inputs), targets).backward()
    opt.step()


training = compare(
    [
        benchmark(train_step, eager_net, eager_opt, label="eager step", min_time_s=0.3),
        benchmark(train_step, compiled_net, optimizer, label="compiled step", min_time_s=0.3),
    ]
)
print(training)
print(training.verdict("compiled step") + ".")
if any(m.noisy for m in training.measurements):
    print("At least one of the two timings is noisy: read the ratio as rough.")

# %%
# Save the weights, not the wrapper
# ---------------------------------
# ``torch.compile`` returns a wrapper module that holds the original as
# ``_orig_mod``, so its ``state_dict`` keys carry that prefix. Save the original
# module's ``state_dict``: it loads into a plain, uncompiled model.
import os
import tempfile

print("wrapper keys: ", list(compiled_net.state_dict())[:2])
print("original keys:", list(net.state_dict())[:2])
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "weights.pt")
    torch.save(compiled_net._orig_mod.state_dict(), path)
    fresh = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    print(fresh.load_state_dict(torch.load(path)))
    torch.testing.assert_close(fresh(inputs), net(inputs))

# %%
# Pickling the compiled wrapper
# -----------------------------
# The 2.0 announcement said the compiled object cannot be saved. On this build
# ``torch.save`` of the wrapper runs, and the safe default of ``torch.load``
# (``weights_only=True`` since PyTorch 2.6) refuses to unpickle it; only a full
# unpickle, for files you trust, gets it back, and it compiles again when called.
import pickle
import re

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "compiled.pt")
    try:
        torch.save(compiled_net, path)
        print(f"torch.save(compiled wrapper): wrote {os.path.getsize(path)} bytes")
    except (pickle.PicklingError, TypeError, AttributeError, RuntimeError) as err:
        print("torch.save(compiled wrapper) failed:", type(err).__name__)
    if os.path.exists(path):
        try:
            torch.load(path)
        except pickle.UnpicklingError as err:
            first_line = re.sub(r"\x1b\[[0-9;]*m", "", str(err)).splitlines()[0]
            print(f"torch.load(path): {type(err).__name__}: {first_line[:60]}...")
        restored = torch.load(path, weights_only=False)
        print(
            "torch.load(path, weights_only=False):",
            type(restored).__name__,
            "wrapping",
            type(restored._orig_mod).__name__,
        )

# %%
# Warm up before serving, then forbid recompiles
# ----------------------------------------------
# Compile happens on the first call of each new shape, so a server should make
# those calls before traffic arrives. With ``dynamic=True`` one graph covers every
# batch size above 1 (size 1 is special-cased and would need its own warm-up).
# Afterwards ``torch.compiler.set_stance`` (new since 2.0) turns any further
# recompile into an error instead of a latency spike.
torch._dynamo.reset()  # forget the graphs compiled above, start as a server would
serving = torch.compile(model, dynamic=True)
with torch.no_grad():
    for rows in (8, 64):  # the batch sizes the server will see
        start = time.perf_counter()
        serving(torch.randn(rows, 256))
        print(f"warm-up, batch {rows:>2}: {format_seconds(time.perf_counter() - start):>9}")
    with torch.compiler.set_stance("fail_on_recompile"):
        for rows in (5, 32, 64, 8):
            start = time.perf_counter()
            serving(torch.randn(rows, 256))
            print(f"served,  batch {rows:>2}: {format_seconds(time.perf_counter() - start):>9}")
        try:
            serving(torch.randn(8, 256, dtype=torch.float64))
        except RuntimeError as err:
            message = str(err).splitlines()[0].split(" filename:")[0]
            print(f"float64 request: {type(err).__name__}: {message}")

# %%
# Start from scratch with torch._dynamo.reset()
# ---------------------------------------------
# ``torch._dynamo.reset()`` (public name ``torch.compiler.reset()``) drops every
# compiled graph and guard, for example between benchmarks; the next call compiles
# again.
compiled_graphs = []


def recording_backend(gm, example_inputs):
    compiled_graphs.append(gm)
    return gm.forward


fn = torch.compile(scale_rows, backend=recording_backend)
fn(torch.randn(3, 8))
fn(torch.randn(3, 8))
print("graphs after two calls:          ", len(compiled_graphs))
torch._dynamo.reset()
fn(torch.randn(3, 8))
print("graphs after reset and one call: ", len(compiled_graphs))

# %%
# A whole-graph artifact with torch.export
# ----------------------------------------
# ``torch.export.export`` traces the whole model ahead of time into an
# ``ExportedProgram``: one graph, no Python fallback, a signature that lists
# parameters and inputs. In 2.0 this was the unfinished ``torch._dynamo.export``;
# now it is public, and ``torch.export.save``/``load`` write a ``.pt2`` file.
example = (torch.randn(8, 256),)
exported = torch.export.export(model, example)
print(exported.graph_signature)
print(exported.graph_module.code.strip())

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pt2")
    torch.export.save(exported, path)
    reloaded = torch.export.load(path)
    with torch.no_grad():
        same = torch.equal(reloaded.module()(*example), model(*example))
    print(f"saved {os.path.getsize(path)} bytes; reloaded output equals eager: {same}")

# %%
# The published figures beside this machine's
# -------------------------------------------
# The announcement measured 163 open-source models on an NVIDIA A100. The rows
# marked "this page" were computed above, on the machine in the first cell: one
# small network each, so they show the method, not a survey.
published = "PyTorch 2.0 announcement, A100"
ours = f"this page: {environment().cpu}, threads={torch.get_num_threads()}"
rows = [
    ("models measured", "163", published),
    ("compiles and runs", "93% of models", published),
    ("training speedup, float32", "21% on average", published),
    ("training speedup, AMP", "51% on average", published),
    ("training speedup, 0.75 AMP + 0.25 float32", "43% on average", published),
]
for what, ratio in [
    ("training step, float32, small MLP", training.speedup("compiled step")),
    ("inference, float32, default mode", modes.speedup("default")),
    ("inference, float32, max-autotune", modes.speedup("max-autotune")),
]:
    rows.append((what, f"{ratio:.2f}x ({ratio - 1:+.0%})", ours))
width = max(len(r[0]) for r in rows)
for what, value, source in rows:
    print(f"{what:<{width}}  {value:>16}  {source}")

# %%
# Summary
# -------
#
# ==================================  =====================================================
# You want                            Call
# ==================================  =====================================================
# a preset                            ``torch.compile(m, mode="default" | "reduce-overhead"
#                                     | "max-autotune")``
# compile time apart from speed       ``benchmark(compiled, x).first_call_s``
# no recompile per new size           ``dynamic=True`` or ``torch._dynamo.mark_dynamic(x, 0)``
# compiled training                   ``torch.compile(model)``, then the usual loop
# portable weights                    ``torch.save(model.state_dict(), path)`` (no
#                                     ``_orig_mod.`` prefix)
# no surprise compiles while serving  warm up each shape, then
#                                     ``torch.compiler.set_stance("fail_on_recompile")``
# forget compiled graphs              ``torch._dynamo.reset()`` / ``torch.compiler.reset()``
# one graph to ship                   ``torch.export.export``, ``torch.export.save`` / ``load``
# ==================================  =====================================================
