r"""
Saving and loading
==================

Save a model's ``state_dict``, not the model object; bundle it with the
optimizer state to resume; know what ``torch.load`` refuses by default.

Summary
-------

=========================  ==================================================
You want                   Call
=========================  ==================================================
the weights of a model     :entry:`model.state_dict() <basics-state-dict>`
to save them               :entry:`torch.save(model.state_dict(), path) <basics-state-dict>`
to load them               :entry:`model.load_state_dict(torch.load(path)) <basics-state-dict>`
to resume training         :entry:`torch.save({"model": ..., "optimizer": ...}) <basics-checkpoint>`, with ``epoch``
to load a pickled object   :entry:`weights_only=False <basics-weights-only>` (trusted files), ``torch.serialization.safe_globals``
to load nested tensors     :entry:`safe_globals([_rebuild_njt, NestedTensor]) <basics-save-nested-tensor>` (trusted files)
to load on another device  :entry:`torch.load(path, map_location="cpu") <basics-map-location>`
a huge checkpoint          :entry:`torch.load(path, mmap=True) <basics-mmap-load>`, ``load_state_dict(..., assign=True)``
to move an optimizer       :entry:`opt.load_state_dict(opt.state_dict()) <basics-optimizer-device>` after ``model.to(...)``
=========================  ==================================================
"""

# %%
# .. _basics-state-dict:
#
# Save and load a state_dict
# --------------------------
# A ``state_dict`` is an ordered dict from names to tensors; to load it, build the
# same architecture and call ``load_state_dict``, which reports missing or unexpected keys.
import tempfile
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
print({name: tuple(t.shape) for name, t in model.state_dict().items()})

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "model.pt"
    torch.save(model.state_dict(), path)
    print("file size:", path.stat().st_size, "bytes")

    fresh = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    print(fresh.load_state_dict(torch.load(path)))

x = torch.randn(3, 4)
print("same outputs:", torch.equal(model(x), fresh(x)))

# %%
# .. _basics-checkpoint:
#
# A checkpoint to resume training
# -------------------------------
# To resume training you also need the optimizer's state (Adam's running averages,
# for example) and the epoch, so save them in one dict and restore each piece.
import tempfile
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
model(torch.randn(8, 4)).pow(2).mean().backward()
optimizer.step()  # gives the optimizer some state to save

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "checkpoint.pt"
    torch.save(
        {
            "epoch": 5,
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "loss": 0.123,
        },
        path,
    )

    checkpoint = torch.load(path)
    new_model = nn.Linear(4, 1)
    new_optimizer = torch.optim.Adam(new_model.parameters(), lr=1e-3)
    new_model.load_state_dict(checkpoint["model"])
    new_optimizer.load_state_dict(checkpoint["optimizer"])
    start_epoch = checkpoint["epoch"] + 1

print("resume at epoch", start_epoch, "| saved loss", checkpoint["loss"])
print("optimizer state restored:", sorted(new_optimizer.state_dict()["state"][0]))
print("step count:", new_optimizer.state_dict()["state"][0]["step"].item())

# %%
# .. _basics-weights-only:
#
# torch.load and weights_only=True
# --------------------------------
# Since PyTorch 2.6 ``torch.load`` defaults to ``weights_only=True``: it loads tensors,
# dicts, lists and numbers but refuses to unpickle arbitrary objects (which could run
# code), so a pickled whole model fails unless you trust the file and pass
# ``weights_only=False`` or allow its classes with ``torch.serialization.safe_globals``.
import pickle
import tempfile
from pathlib import Path

import torch
from torch import nn

model = nn.Linear(4, 1)
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "whole_model.pt"
    torch.save(model, path)  # pickles the object itself, not just its tensors
    try:
        torch.load(path)
    except pickle.UnpicklingError as err:
        message = str(err)  # long: the first sentence, then the reason further down
        reason = next(line.strip() for line in message.splitlines() if "Unsupported global" in line)
        print(f"{type(err).__name__}: {message.split('.')[0]}.")
        print("   ", reason.split(". ")[0] + ".")

    loaded = torch.load(path, weights_only=False)  # only for files you trust
    print("weights_only=False:", loaded)
    with torch.serialization.safe_globals([nn.Linear]):
        print("safe_globals([nn.Linear]):", torch.load(path))

# %%
# .. _basics-save-nested-tensor:
#
# Loading a nested tensor with weights_only=True
# ----------------------------------------------
# ``torch.save`` writes a nested tensor like any other, but the default
# ``torch.load(weights_only=True)`` now refuses it, jagged or strided: its class
# and the function that rebuilds it are not on the allowlist. In 2.14 both
# loaded. The message names the two globals to allow: with
# ``torch.serialization.safe_globals`` (for a file you trust) the load stays
# ``weights_only=True`` for everything else in the file. The block prints what
# this torch does; below it, what 2.14.1 printed for the same code.
import io
import pickle

import torch
from torch.nested._internal.nested_tensor import NestedTensor, _rebuild_njt

nested = torch.nested.nested_tensor([torch.ones(2), torch.arange(3.0)], layout=torch.jagged)
buffer = io.BytesIO()
torch.save(nested, buffer)
buffer.seek(0)
try:
    torch.load(buffer, weights_only=True)
    print("weights_only=True: loaded")
except pickle.UnpicklingError as err:
    reason = next(line for line in str(err).splitlines() if "Unsupported global" in line)
    print("weights_only=True:", reason.strip().split(" was not")[0])
buffer.seek(0)
with torch.serialization.safe_globals([_rebuild_njt, NestedTensor]):
    back = torch.load(buffer, weights_only=True)
print("with safe_globals:", [t.tolist() for t in back.unbind()])

# %%
# .. torch-outputs:: basics-save-nested-tensor
#    :releases: 2.14.1

# %%
# .. _basics-map-location:
#
# Load a GPU checkpoint on any machine: map_location
# --------------------------------------------------
# Tensors are restored on the device they were saved from, so pass ``map_location``
# to put them where you want, for example on the CPU of a machine without a GPU.
import tempfile
from pathlib import Path

import torch

from cheatsheet import pick_device

device = pick_device()
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "weights.pt"
    torch.save({"w": torch.ones(2, device=device)}, path)
    on_cpu = torch.load(path, map_location="cpu")
    on_device = torch.load(path, map_location=device)
print(
    "saved from:",
    device,
    "| map_location='cpu':",
    on_cpu["w"].device,
    "| map_location=device:",
    on_device["w"].device,
)

# %%
# .. _basics-mmap-load:
#
# Load a large checkpoint without copying it: mmap=True
# -----------------------------------------------------
# ``torch.load`` reads every tensor into memory, and ``load_state_dict`` then copies it
# into the model's own tensors, so both copies are in memory at once.
# ``mmap=True`` maps the file instead, so bytes are read when a tensor is used; a model
# built on the ``meta`` device (no memory for its weights) and loaded with
# ``assign=True`` takes those tensors as they are, with no copy. Leave the file
# unchanged while the model uses it.
import tempfile
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "big.pt"
    saved = nn.Linear(2048, 2048).state_dict()
    torch.save(saved, path)
    print(f"checkpoint: {path.stat().st_size / 2**20:.0f} MiB")

    state = torch.load(path, mmap=True, weights_only=True)
    with torch.device("meta"):
        model = nn.Linear(2048, 2048)  # shapes only, no memory
    model.load_state_dict(state, assign=True)
    print("weights as saved:", torch.equal(model.weight, saved["weight"]))
    maps = Path("/proc/self/maps")  # Linux lists the files a process has mapped
    if maps.exists():
        print("mapped from the file:", str(path) in maps.read_text())
    del model, state

# %%
# .. _basics-optimizer-device:
#
# Move an optimizer to another device or dtype
# --------------------------------------------
# An optimizer has no ``.to()`` method. ``model.to(...)`` keeps the same parameter
# objects, so the optimizer still updates them, but the state it keeps beside each one
# (Adam's running averages, momentum buffers) stays where and as it was made, and the
# next ``step`` mixes the two and fails; here ``model.double()`` on the CPU shows it,
# and ``model.to("cuda")`` fails the same way. ``load_state_dict`` puts each loaded
# state tensor on its parameter's device and in its dtype, so loading the optimizer's
# own ``state_dict`` moves it. An optimizer that holds no state yet needs nothing: most
# make theirs at the first ``step``, but ``Adagrad`` makes it when created (the last
# lines count it), so move the model before creating the optimizer.
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model(torch.randn(4, 3)).sum().backward()
optimizer.step()
optimizer.zero_grad()

model.double()  # or model.to("cuda")
print("same parameter:", model.weight is optimizer.param_groups[0]["params"][0])
model(torch.randn(4, 3, dtype=torch.double)).sum().backward()
print("state before:", optimizer.state[model.weight]["exp_avg"].dtype)
try:
    optimizer.step()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

optimizer.load_state_dict(optimizer.state_dict())
print("state after load_state_dict:", optimizer.state[model.weight]["exp_avg"].dtype)
optimizer.step()
print("step taken:", model.weight.dtype)

for make in (torch.optim.Adam, torch.optim.Adagrad):
    state = make(torch.nn.Linear(3, 1).parameters()).state
    print(f"{make.__name__} just created holds state for {len(state)} parameters")
