r"""
Saving and loading errors
=========================

The messages ``load_state_dict`` and ``torch.load`` raise: keys that do not match the
model, shapes that changed, prefixes added by wrappers, and objects ``weights_only``
refuses.

Summary
-------

==================================  ==========================================================
You see                             Fix
==================================  ==========================================================
Error(s) in loading state_dict for  :entry:`{new: state[old] ...} <errors-state-dict-keys>`, ``strict=False``
Missing key(s) / Unexpected key(s)  :entry:`model.load_state_dict(state, strict=False) <errors-state-dict-keys>`
size mismatch for, copying a param  :entry:`del state["head.weight"] <errors-state-dict-size>`, then ``strict=False``
Unexpected key(s) \"_orig_mod.\"    :entry:`consume_prefix_in_state_dict_if_present(state, "_orig_mod.") <errors-compiled-prefix>`
Unexpected key(s) \"module.\"       :entry:`consume_prefix_in_state_dict_if_present(state, "module.") <errors-module-prefix>`
Weights only load failed            :entry:`with torch.serialization.safe_globals([cls]): <errors-weights-only>`
\'initial_lr\' is not specified     :entry:`scheduler.load_state_dict(state["scheduler"]) <errors-initial-lr>`, not ``last_epoch=``
==================================  ==========================================================
"""

# %%
# .. _errors-state-dict-keys:
#
# Error(s) in loading state_dict for …: Missing key(s) in state_dict … Unexpected key(s) in state_dict
# ----------------------------------------------------------------------------------------------------
# The checkpoint's parameter names and the model's differ: a layer was renamed, added or
# removed since the checkpoint was saved (here ``fc`` became ``head``), and
# ``load_state_dict`` is strict by default.
import torch
from torch import nn


class Old(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.fc = nn.Linear(4, 8), nn.Linear(8, 2)


class New(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(4, 8), nn.Linear(8, 2)


torch.manual_seed(0)
state = Old().state_dict()
try:
    New().load_state_dict(state)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: rename the keys to the model's names; ``strict=False`` loads what matches and
# returns what did not, to check rather than ignore.
import torch
from torch import nn


class Old(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.fc = nn.Linear(4, 8), nn.Linear(8, 2)


class New(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(4, 8), nn.Linear(8, 2)


torch.manual_seed(0)
state = Old().state_dict()
renamed = {key.replace("fc.", "head.", 1): value for key, value in state.items()}
print("renamed:     ", New().load_state_dict(renamed))
print("strict=False:", New().load_state_dict(state, strict=False))

# %%
# .. _errors-state-dict-size:
#
# size mismatch for …: copying a param with shape … from checkpoint, the shape in current model is …
# --------------------------------------------------------------------------------------------------
# A parameter has the same name but another shape, typically a classifier head
# fine-tuned for a different number of classes than the checkpoint's.
import torch
from torch import nn

torch.manual_seed(0)
pretrained = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 10))  # 10 classes
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))  # 3 classes now
try:
    model.load_state_dict(pretrained.state_dict())
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: drop the entries whose shapes differ and load the rest with ``strict=False``; the
# new head keeps its fresh initialisation.
import torch
from torch import nn

torch.manual_seed(0)
pretrained = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 10))
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
own = model.state_dict()
state = {k: v for k, v in pretrained.state_dict().items() if v.shape == own[k].shape}
print(model.load_state_dict(state, strict=False))
print("body loaded:", torch.equal(model[0].weight, pretrained[0].weight))

# %%
# .. _errors-compiled-prefix:
#
# Unexpected key(s) in state_dict: \"_orig_mod.…\"
# ------------------------------------------------
# ``torch.compile(model)`` returns a wrapper that holds the model as ``_orig_mod``, so
# the wrapper's ``state_dict`` prefixes every key, and a plain model does not recognise
# them.
import torch
from torch import nn

torch.manual_seed(0)
compiled = torch.compile(nn.Linear(3, 2))  # nothing is compiled until the first call
print("keys:", list(compiled.state_dict()))
try:
    nn.Linear(3, 2).load_state_dict(compiled.state_dict())
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: strip the prefix from a checkpoint you already have; to save plain keys, compile
# in place with ``model.compile()``, whose ``state_dict`` keeps the module's names.
import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

torch.manual_seed(0)
state = torch.compile(nn.Linear(3, 2)).state_dict()
consume_prefix_in_state_dict_if_present(state, "_orig_mod.")  # in place
print("stripped:", list(state), nn.Linear(3, 2).load_state_dict(state))
model = nn.Linear(3, 2)
model.compile()
print("model.compile() keys:", list(model.state_dict()))

# %%
# .. _errors-module-prefix:
#
# Unexpected key(s) in state_dict: \"module.…\"
# ---------------------------------------------
# ``DistributedDataParallel`` and ``DataParallel`` hold the model as ``module``, so a
# checkpoint saved from the wrapper has every key prefixed with ``module.``.
import torch
from torch import nn

torch.manual_seed(0)
wrapped = nn.DataParallel(nn.Linear(3, 2))  # DDP prefixes the keys the same way
try:
    nn.Linear(3, 2).load_state_dict(wrapped.state_dict())
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: save ``wrapped.module.state_dict()``, or strip the prefix when loading.
import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

torch.manual_seed(0)
wrapped = nn.DataParallel(nn.Linear(3, 2))
print("module.state_dict():", list(wrapped.module.state_dict()))
state = wrapped.state_dict()
consume_prefix_in_state_dict_if_present(state, "module.")
print("stripped:", list(state), nn.Linear(3, 2).load_state_dict(state))

# %%
# .. _errors-weights-only:
#
# Weights only load failed
# ------------------------
# Since 2.6 ``torch.load`` reads only tensors and plain Python types unless told
# otherwise, and the checkpoint holds another object (here the training run's
# ``argparse`` arguments); the message names the class to allow.
import argparse
import pickle
import re
import tempfile
from pathlib import Path

import torch

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp, "checkpoint.pt")
    torch.save({"weight": torch.ones(2), "args": argparse.Namespace(lr=0.1)}, path)
    try:
        torch.load(path)
    except pickle.UnpicklingError as err:
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(err))  # drop the terminal's bold
        print(f"{type(err).__name__}: {message}")

# %%
# Fix: allow that one class (``safe_globals``) for a file you trust, or save only
# tensors and plain types (``vars(args)`` is a dict); ``weights_only=False`` runs any code
# the file contains.
import argparse
import tempfile
from pathlib import Path

import torch

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp, "checkpoint.pt")
    torch.save({"weight": torch.ones(2), "args": argparse.Namespace(lr=0.1)}, path)
    with torch.serialization.safe_globals([argparse.Namespace]):
        print("safe_globals:", torch.load(path)["args"])
    torch.save({"weight": torch.ones(2), "args": vars(argparse.Namespace(lr=0.1))}, path)
    print("a dict:      ", torch.load(path)["args"])

# %%
# .. _errors-initial-lr:
#
# KeyError: param \'initial_lr\' is not specified in param_groups[0]
# -------------------------------------------------------------------
# A learning-rate scheduler made with ``last_epoch`` set, to resume at that epoch, looks
# in the optimizer for the ``initial_lr`` a scheduler writes there when it starts; a new
# optimizer has none. Older releases end the message with "when resuming an optimizer".
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
try:
    torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4], last_epoch=2)
except KeyError as err:
    print(f"{type(err).__name__}: {err.args[0].splitlines()[0]}")

# %%
# Fix: make the scheduler as for a new run, then load the optimizer's and the
# scheduler's ``state_dict`` from the checkpoint; the rates go on as if never stopped.
# Loading only the optimizer's is not enough: the new scheduler counts its epochs from 0
# again, so the rate drops at the wrong epochs, as the last line shows.
import torch


def fresh():
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4])
    return optimizer, scheduler


def run(optimizer, scheduler, epochs):
    rates = []
    for _ in range(epochs):
        optimizer.step()  # after a backward pass in real training
        scheduler.step()
        rates.append(round(scheduler.get_last_lr()[0], 6))
    return rates


optimizer, scheduler = fresh()
print("never stopped:        ", run(optimizer, scheduler, 5))

optimizer, scheduler = fresh()
first = run(optimizer, scheduler, 3)
checkpoint = {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}

optimizer, scheduler = fresh()
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
print("stopped after 3:      ", first + run(optimizer, scheduler, 2))

optimizer, scheduler = fresh()
optimizer.load_state_dict(checkpoint["optimizer"])
print("optimizer state only: ", first + run(optimizer, scheduler, 2))
