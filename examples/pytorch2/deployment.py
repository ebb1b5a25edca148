r"""
Deployment: AOTInductor and ONNX
================================

Two ways to ship a model without its Python code: an AOTInductor ``.pt2`` package of compiled C++, or an ONNX file for ONNX Runtime, each checked against eager and timed here.

Summary
-------

====================================  ===================================================================================================
You want                              Call
====================================  ===================================================================================================
the versions that matter              :entry:`importlib.metadata.version("onnx") <pt2-deployment-versions>`, ``torch.__version__``
a batch size chosen at run time       :entry:`Dim("batch") <pt2-deployment-aoti>` in ``export(m, (x,), dynamic_shapes=...)``
a compiled package (.pt2)             :entry:`aoti_compile_and_package(ep, package_path=p) <pt2-deployment-aoti>`
run the package from Python           :entry:`torch._inductor.aoti_load_package(p) <pt2-deployment-aoti>`
one package, several threads          :entry:`aoti_load_package(p, num_runners=2) <pt2-deployment-aoti-runners>`
the package against eager, timed      :entry:`compare({"eager": m, "AOTInductor": runner}, x) <pt2-deployment-aoti>`
run the package from C++              :entry:`torch::inductor::AOTIModelPackageLoader <pt2-deployment-cpp>`, no Python
an ONNX model                         :entry:`torch.onnx.export(m, (x,), dynamo=True) <pt2-deployment-onnx>` (the default since 2.9)
write the .onnx file                  :entry:`onnx_program.save(path) <pt2-deployment-onnx>`
run it with ONNX Runtime              :entry:`ort.InferenceSession(path, providers=[...]) <pt2-deployment-onnx>`
ONNX Runtime against eager, timed     :entry:`compare({"eager": m, "ONNX Runtime": run}, x) <pt2-deployment-onnx>`
====================================  ===================================================================================================

The graph both start from, ``torch.export.export``, has its own entry on
:ref:`torch.compile in practice <pt2-compile-in-practice-export>`.
"""

# %%
# .. _pt2-deployment-versions:
#
# The versions that matter
# ------------------------
# AOTInductor ships inside PyTorch. The ONNX path needs three more packages:
# ``onnx`` (the format), ``onnxscript`` (the exporter behind ``dynamo=True``
# translates with it) and ``onnxruntime`` (to run the file). Blocks below
# check for them and say what they skipped.
import importlib.metadata

import torch

print("torch", torch.__version__)
for package in ("onnx", "onnxscript", "onnxruntime"):
    try:
        print(package, importlib.metadata.version(package))
    except importlib.metadata.PackageNotFoundError:
        print(package, "not installed: pip install", package)

# %%
# .. _pt2-deployment-aoti:
#
# AOTInductor: compile once, load, check, time
# --------------------------------------------
# ``torch._inductor.aoti_compile_and_package`` compiles an
# ``ExportedProgram`` to C++ and a shared library, and zips them with the
# weights into a ``.pt2`` package; ``aoti_load_package`` loads it as a
# callable. A ``Dim`` in ``dynamic_shapes`` keeps the batch size free, so one
# package serves every size in its range; any other input shape is an error,
# not a recompile. Compiling runs a C++ compiler, so it takes seconds even for
# this tiny network: it is a build step, not a start-up cost. The precompiled
# headers that Inductor builds by default pay off over many compiles on one
# machine; for a single one they cost more than they save, so they are off here.
import os
import tempfile
import time

import torch

from cheatsheet import compare, format_seconds

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
).eval()
batch = torch.export.Dim("batch", min=1, max=1024)
exported = torch.export.export(model, (torch.randn(8, 64),), dynamic_shapes={"input": {0: batch}})
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        path = torch._inductor.aoti_compile_and_package(
            exported,
            package_path=os.path.join(tmp, "model.pt2"),
            inductor_configs={"aot_inductor.precompile_headers": False},
        )
        compile_s = time.perf_counter() - start
        print(f"compiled in {format_seconds(compile_s)}; package {os.path.getsize(path):,} bytes")
        runner = torch._inductor.aoti_load_package(path)
        with torch.no_grad():
            for rows in (3, 64):
                x = torch.randn(rows, 64)
                torch.testing.assert_close(runner(x), model(x))
                print(f"batch {rows:>2}: output {tuple(runner(x).shape)} matches eager")
            table = compare({"eager": model, "AOTInductor": runner}, torch.randn(64, 64))
finally:
    torch.set_num_threads(threads)
print(table)
for verdict in table.verdicts():
    print(verdict + ".")

# %%
# .. _pt2-deployment-aoti-runners:
#
# One package, called from several threads
# -----------------------------------------
# A loaded package runs one call at a time. ``num_runners=N`` loads N
# instances of the compiled model from the one package, so that N threads (a
# server's workers) can call it at once; each call takes a free instance. The
# path may also be the folder a ``.pt2`` was unzipped into. Below, two threads
# make eight calls on two runners and every output matches eager; the speed of
# concurrent calls depends on the model and the cores, and is not timed here.
import concurrent.futures
import os
import tempfile
import zipfile

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
model.eval()
exported = torch.export.export(model, (torch.randn(8, 16),))
with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
    path = torch._inductor.aoti_compile_and_package(
        exported,
        package_path=os.path.join(tmp, "model.pt2"),
        inductor_configs={"aot_inductor.precompile_headers": False},
    )
    runner = torch._inductor.aoti_load_package(path, num_runners=2)
    inputs = [torch.randn(8, 16) for _ in range(8)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        outputs = list(pool.map(runner, inputs))
    for x, y in zip(inputs, outputs, strict=True):
        torch.testing.assert_close(y, model(x))
    print(f"{len(outputs)} calls from 2 threads on 2 runners: every output matches eager")
    with zipfile.ZipFile(path) as package:
        package.extractall(os.path.join(tmp, "unzipped"))
    from_folder = torch._inductor.aoti_load_package(os.path.join(tmp, "unzipped"))
    torch.testing.assert_close(from_folder(inputs[0]), model(inputs[0]))
    print("loaded from the unzipped folder: matches eager")

# %%
# .. _pt2-deployment-cpp:
#
# Load the package from C++
# -------------------------
# The same ``.pt2`` file runs in a C++ program linked against libtorch, with no
# Python interpreter: ``AOTIModelPackageLoader`` unpacks it and runs the
# compiled library. Build it with CMake's ``find_package(Torch)`` and
# link ``${TORCH_LIBRARIES}``. The package is tied to the device and, for
# CPUs, to the instruction set it was compiled for. Its library also needs
# the C++ runtime of the compiler that built it: on the H200 machine that
# records this site's GPU numbers (torch 2.11.0, the system's g++ 13.3),
# ``aoti_load_package`` ended Python with a segmentation fault, and the same
# package loaded and ran once the system's ``libstdc++.so.6`` was preloaded
# with ``LD_PRELOAD``, which points at an older libstdc++ loaded before it.
#
# .. code-block:: cpp
#
#    #include <iostream>
#    #include <torch/torch.h>
#    #include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#
#    int main() {
#      c10::InferenceMode no_autograd;
#      torch::inductor::AOTIModelPackageLoader package("model.pt2");
#      std::vector<torch::Tensor> inputs{torch::randn({3, 64})};
#      std::vector<torch::Tensor> outputs = package.run(inputs);
#      std::cout << outputs[0].sizes() << "\n";  // [3, 10]
#    }

# %%
# .. _pt2-deployment-onnx:
#
# ONNX: export, save, run with ONNX Runtime
# -----------------------------------------
# ``torch.onnx.export(model, args, dynamo=True)`` captures the model with
# ``torch.export`` and returns an ``ONNXProgram``; since 2.9 ``dynamo=True``
# is the default and the TorchScript exporter is the legacy one.
# ``dynamic_shapes`` takes the same ``Dim`` as ``torch.export``, and
# ``verbose=False`` silences the exporter's progress lines. ONNX Runtime runs the
# file on NumPy arrays; one intra-op thread matches the one PyTorch thread the
# timing uses. A network this small spends most of a call outside its matrix
# products, so this verdict weighs each runtime's per-call cost more than its
# kernels; time your own model before choosing a runtime for speed.
import importlib.util
import os
import tempfile

import torch

from cheatsheet import compare

needed = ("onnx", "onnxscript", "onnxruntime")
missing = [name for name in needed if importlib.util.find_spec(name) is None]
if missing:
    print("skipped: the ONNX export and run need", ", ".join(missing))
else:
    import onnxruntime as ort

    torch.manual_seed(0)
    # sphinx_gallery_start_ignore
    # Without torchvision the exporter logs that it skips torchvision's operators.
    import logging

    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    # sphinx_gallery_end_ignore
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    ).eval()
    onnx_program = torch.onnx.export(
        model,
        (torch.randn(8, 64),),
        dynamo=True,
        dynamic_shapes={"input": {0: torch.export.Dim("batch")}},
        verbose=False,
    )
    print(type(onnx_program).__name__, [node.op_type for node in onnx_program.model.graph])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx_program.save(path)
        print(f"model.onnx: {os.path.getsize(path):,} bytes")
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    print("input", input_name, session.get_inputs()[0].shape)

    def run_onnx(x):
        return session.run(None, {input_name: x.numpy()})[0]

    with torch.no_grad():
        for rows in (3, 64):
            x = torch.randn(rows, 64)
            torch.testing.assert_close(torch.from_numpy(run_onnx(x)), model(x))
            print(f"batch {rows:>2}: ONNX Runtime matches eager")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            table = compare({"eager": model, "ONNX Runtime": run_onnx}, torch.randn(64, 64))
        finally:
            torch.set_num_threads(threads)
    print(table)
    for verdict in table.verdicts():
        print(verdict + ".")
