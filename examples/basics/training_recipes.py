r"""
Training recipes
================

The everyday additions to a training loop, each run on a small model: warm-up, early
stopping, counting and freezing parameters, a learning rate per part, an average of
the weights, imbalanced classes, padded batches, and resuming exactly where a run
stopped.

Summary
-------

=================================  ==================================================
You want                           Call
=================================  ==================================================
warm up, then decay                :entry:`SequentialLR(opt, [LinearLR, CosineAnnealingLR], milestones=[w]) <basics-lr-warmup>`, ``OneCycleLR``
stop when validation stalls        :entry:`if epochs_without_improvement == patience: break <basics-early-stopping>`
keep the best weights              :entry:`torch.save(model.state_dict(), best) <basics-early-stopping>`, ``load_state_dict`` at the end
count parameters                   :entry:`sum(p.numel() for p in model.parameters()) <basics-count-parameters>`
their size in bytes                :entry:`p.numel() * p.element_size() <basics-count-parameters>`
freeze a backbone                  :entry:`model.backbone.requires_grad_(False) <basics-freeze-layers>`
fine-tune a pretrained model       :entry:`model.fc = nn.Linear(model.fc.in_features, n) <basics-freeze-layers>`, then freeze the rest
a learning rate per part           :entry:`AdamW([{"params": ..., "lr": 1e-4}, ...]) <basics-param-groups>`
a learning rate per channel        :entry:`w.register_hook(lambda g: g * rate[:, None]) <basics-lr-per-channel>` (SGD); step hooks for Adam
an average of the weights (EMA)    :entry:`AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999), use_buffers=True) <basics-ema>`
rare classes drawn more often      :entry:`WeightedRandomSampler(weights, num_samples) <basics-class-imbalance>`
rare classes weighted in the loss  :entry:`nn.CrossEntropyLoss(weight=class_weights) <basics-class-imbalance>`
batches of different lengths       :entry:`DataLoader(ds, collate_fn=pad_collate) <basics-pad-collate>`, ``pad_sequence``
bounded gradients                  :entry:`nn.utils.clip_grad_norm_(model.parameters(), 1.0) <basics-grad-clipping>`, after ``scaler.unscale_(opt)`` with a ``GradScaler``
resume exactly                     :entry:`torch.save({..., "rng": ...}, path) <basics-resume-exactly>`, ``set_rng_state``
find where the loss turns NaN      :entry:`register_forward_hook(check_finite) <basics-nan-loss>`, ``torch.isfinite(loss)``
unused embedding rows kept still   :entry:`nn.Embedding(n, d, sparse=True) <basics-zero-grad-moves>` with ``SparseAdam``
what slows training down           :entry:`profile(schedule=schedule(wait=1, warmup=1, active=4)) <basics-profile-training>`
a loss that will not go down       :entry:`overfit_one_batch(model) <basics-overfit-one-batch>` first: it must reach about 0
=================================  ==================================================
"""

# %%
# .. _basics-lr-warmup:
#
# Warm up, then decay
# -------------------
# A few steps of rising learning rate keep the first updates, made with poor
# statistics in Adam's moments, small; ``SequentialLR`` chains ``LinearLR`` (the
# warm-up) and ``CosineAnnealingLR`` (the decay) at a milestone, and ``OneCycleLR``
# does both in one scheduler, stepped once per batch.
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, OneCycleLR, SequentialLR

total_steps, warmup_steps, peak = 12, 3, 0.1
params = [torch.zeros(1, requires_grad=True)]


def rates(optimizer, scheduler):
    found = []
    for _ in range(total_steps):
        found.append(scheduler.get_last_lr()[0])
        optimizer.step()  # the training step(s) of this batch or epoch
        scheduler.step()
    return found


optimizer = torch.optim.SGD(params, lr=peak, momentum=0.9)
warmup = LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=warmup_steps)
decay = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
chained = rates(optimizer, SequentialLR(optimizer, [warmup, decay], milestones=[warmup_steps]))

optimizer = torch.optim.SGD(params, lr=peak, momentum=0.9)
one_cycle = rates(optimizer, OneCycleLR(optimizer, max_lr=peak, total_steps=total_steps))

print("step  LinearLR + CosineAnnealingLR       OneCycleLR")
for step, (a, b) in enumerate(zip(chained, one_cycle, strict=True)):
    print(
        f"{step:4d}  {a:.4f} {'#' * round(a / peak * 20):<20}  {b:.4f} {'#' * round(b / peak * 20)}"
    )

# %%
# .. _basics-early-stopping:
#
# Early stopping that keeps the best weights
# ------------------------------------------
# Training stops once the validation loss has not improved for ``patience`` epochs, and
# the weights saved at the best epoch are loaded back, not the last ones; here a large
# network fits 16 noisy points until it overfits.
import tempfile
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
x_train = torch.linspace(-1, 1, 16).unsqueeze(1)
y_train = x_train.sin() + 0.3 * torch.randn(16, 1)
x_val = torch.linspace(-1, 1, 200).unsqueeze(1)
y_val = x_val.sin()
model = nn.Sequential(
    nn.Linear(1, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, 1)
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
patience, best_loss, best_epoch = 20, float("inf"), -1

with tempfile.TemporaryDirectory() as tmp:
    best_path = Path(tmp, "best.pt")
    for epoch in range(1000):
        model.train()
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x_train), y_train).backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            val_loss = nn.functional.mse_loss(model(x_val), y_val).item()
        if val_loss < best_loss:
            best_loss, best_epoch = val_loss, epoch
            torch.save(model.state_dict(), best_path)
        elif epoch - best_epoch == patience:
            break
    print(f"stopped at epoch {epoch}: validation loss {val_loss:.4f}")
    print(f"best epoch {best_epoch}:     validation loss {best_loss:.4f}")
    model.load_state_dict(torch.load(best_path))
with torch.no_grad():
    restored = nn.functional.mse_loss(model(x_val), y_val).item()
print(f"after restoring:     validation loss {restored:.4f}, the best: {restored == best_loss}")

# %%
# .. _basics-count-parameters:
#
# Count parameters and their bytes
# --------------------------------
# ``numel()`` of each parameter adds up to the model's size; the trainable ones are
# those with ``requires_grad``, and ``element_size()`` turns counts into bytes. Buffers
# (``BatchNorm``'s running statistics) are saved with the model but not trained.
import torch
from torch import nn

model = nn.Sequential(
    nn.Conv2d(3, 32, 3), nn.BatchNorm2d(32), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10)
)
model(torch.zeros(1, 3, 32, 32))  # materialises the LazyLinear
model[0].requires_grad_(False)  # freeze the first layer, to tell the counts apart

total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
buffer_bytes = sum(b.numel() * b.element_size() for b in model.buffers())
print(f"parameters: {total:,} ({trainable:,} trainable)")
print(f"bytes:      {param_bytes / 2**20:.2f} MiB of parameters, {buffer_bytes:,} B of buffers")
print(f"in bfloat16: {sum(p.numel() * 2 for p in model.parameters()) / 2**20:.2f} MiB")

# %%
# .. _basics-freeze-layers:
#
# Freeze a backbone
# -----------------
# Fine-tuning a pretrained model (transfer learning) usually trains a new final layer
# and freezes the layers before it. ``requires_grad_(False)`` on a submodule stops
# gradients for its parameters, so the optimizer leaves them alone; give the optimizer
# only the trainable ones. A frozen backbone's ``BatchNorm`` layers still update their
# running statistics in training mode; to keep those still too, put the backbone in
# ``eval()``, and again after every ``model.train()``, which sets every submodule back
# to training mode (``model.train(); model.backbone.eval()`` at the top of each epoch).
# The new head replaces the old one by
# assignment, sized for your classes: ``model.fc = nn.Linear(model.fc.in_features, 5)``.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.ModuleDict(
    {"backbone": nn.Sequential(nn.Linear(8, 32), nn.ReLU()), "head": nn.Linear(32, 2)}
)
model["backbone"].requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
print(
    f"trainable: {sum(p.numel() for p in trainable)} of {sum(p.numel() for p in model.parameters())}"
)

backbone_before = model["backbone"][0].weight.clone()
head_before = model["head"].weight.clone()
x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
loss = nn.functional.cross_entropy(model["head"](model["backbone"](x)), y)
loss.backward()
optimizer.step()
print("backbone changed:", not torch.equal(backbone_before, model["backbone"][0].weight))
print("head changed:    ", not torch.equal(head_before, model["head"].weight))

# %%
# .. _basics-param-groups:
#
# A learning rate per part: parameter groups
# ------------------------------------------
# An optimizer takes a list of groups, each a dict with its ``params`` and any option
# that differs from the defaults; fine-tuning often gives a pretrained backbone a
# smaller rate than a new head, and schedulers scale every group's rate together.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.ModuleDict({"backbone": nn.Linear(8, 32), "head": nn.Linear(32, 2)})
optimizer = torch.optim.AdamW(
    [
        {"params": model["backbone"].parameters(), "lr": 1e-4},
        {"params": model["head"].parameters()},  # takes the default below
    ],
    lr=1e-2,
    weight_decay=0.01,
)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
for epoch in range(3):
    rates = ", ".join(f"{group['lr']:.0e}" for group in optimizer.param_groups)
    print(f"epoch {epoch}: backbone, head = {rates}")
    optimizer.step()
    scheduler.step()

# %%
# .. _basics-lr-per-channel:
#
# A learning rate per channel
# ---------------------------
# Parameter groups give a rate per tensor. For a rate per output channel (a row of a
# weight, an element of a bias), scale what the optimizer does to each row. SGD's step
# is the rate times the gradient, so a gradient hook that scales each row is exactly a
# rate per row, with momentum too (it is linear in the gradient); SGD's own
# ``weight_decay`` is added after the hook and keeps the common rate.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
rate = torch.tensor([1.0, 0.1, 0.0])  # a factor on lr for each output channel (row)
start = [p.detach().clone() for p in layer.parameters()]
layer.weight.register_hook(lambda grad: grad * rate[:, None])
layer.bias.register_hook(lambda grad: grad * rate)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.5)

x, y = torch.randn(8, 4), torch.randn(8, 3)
nn.functional.mse_loss(layer(x), y).backward()
optimizer.step()

# The same step by hand: each row moves by its own rate, 0.5 * rate[row].
w, b = (p.requires_grad_() for p in start)
plain = torch.autograd.grad(nn.functional.mse_loss(nn.functional.linear(x, w, b), y), w)[0]
expected = w.detach() - 0.5 * rate[:, None] * plain
print("weight as by hand:", torch.allclose(layer.weight, expected))
print("row 2 moved:", not torch.equal(layer.weight[2], start[0][2]))

# %%
# Adam divides each gradient by its own running size, so a gradient scaled by 0.1
# makes the same step: with Adam, the hook above changes nothing but the rows it zeroes.
import torch
from torch import nn


def steps(hooked: bool) -> torch.Tensor:
    """How far one Adam step moves each row of the weight."""
    torch.manual_seed(0)
    layer = nn.Linear(4, 3)
    rate = torch.tensor([1.0, 0.1, 0.0])
    if hooked:
        layer.weight.register_hook(lambda grad: grad * rate[:, None])
    optimizer = torch.optim.Adam(layer.parameters(), lr=0.01)
    before = layer.weight.detach().clone()
    x, y = torch.randn(8, 4), torch.randn(8, 3)
    nn.functional.mse_loss(layer(x), y).backward()
    optimizer.step()
    return (layer.weight.detach() - before).norm(dim=1)


# Adam divides by the gradient's own size: a gradient scaled by 0.1 takes the same step.
ratios = steps(True) / steps(False)
print("Adam, gradient scaled per row:", [round(r, 4) for r in ratios.tolist()])

# %%
# With Adam (or any optimizer), scale the step itself: note the parameters before
# ``step()`` and shrink each row's move after it, with the optimizer's step hooks. A row
# with factor ``f`` then moves as it would under ``lr * f``; Adam's moment estimates do
# not depend on the rate, so this holds at every step.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
rate = torch.tensor([1.0, 0.1, 0.0])
factors = {layer.weight: rate[:, None], layer.bias: rate}
optimizer = torch.optim.Adam(layer.parameters(), lr=0.01)
saved: dict[torch.Tensor, torch.Tensor] = {}


def keep(opt, args, kwargs):
    saved.update({p: p.detach().clone() for p in factors})


def scale_the_step(opt, args, kwargs):
    with torch.no_grad():
        for p, factor in factors.items():
            p.copy_(saved[p] + factor * (p - saved[p]))


optimizer.register_step_pre_hook(keep)
optimizer.register_step_post_hook(scale_the_step)

reference = nn.Linear(4, 3)
reference.load_state_dict(layer.state_dict())
plain = torch.optim.Adam(reference.parameters(), lr=0.01)
start = layer.weight.detach().clone()
x, y = torch.randn(8, 4), torch.randn(8, 3)
for model, opt in ((layer, optimizer), (reference, plain)):
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
ratio = (layer.weight - start).norm(dim=1) / (reference.weight - start).norm(dim=1)
print("Adam, step scaled per row:", [round(r, 6) for r in ratio.tolist()])

# %%
# .. _basics-ema:
#
# An exponential moving average of the weights
# --------------------------------------------
# ``AveragedModel`` keeps a copy whose weights follow the model's with
# ``ema = decay * ema + (1 - decay) * weights`` after each ``update_parameters``;
# evaluated instead of the model it is often smoother. Here the model learns ``y = 3x``
# and the average, a copy of the weights at the first update, trails it
# (``use_buffers=True`` averages ``BatchNorm``'s statistics too).
import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

torch.manual_seed(0)
model = nn.Linear(1, 1, bias=False)
nn.init.zeros_(model.weight)
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.8), use_buffers=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
x = torch.linspace(-1, 1, 32).unsqueeze(1)
for step in range(8):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), 3 * x).backward()
    optimizer.step()
    ema.update_parameters(model)
    w, ema_w = model.weight.item(), ema.module.weight.item()
    print(f"step {step}: model w = {w:.3f}   EMA w = {ema_w:.3f}")

# %%
# .. _basics-class-imbalance:
#
# Imbalanced classes: a weighted sampler or a weighted loss
# ---------------------------------------------------------
# With 90 samples of class 0 and 10 of class 1, ``WeightedRandomSampler`` draws each
# sample with a probability proportional to its weight (here one over its class's
# count), so an epoch sees the classes about equally; the other remedy keeps the data
# and weights each class's term of ``CrossEntropyLoss``.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

labels = torch.tensor([0] * 90 + [1] * 10)
data = TensorDataset(torch.randn(100, 4), labels)
class_counts = torch.bincount(labels)
sample_weights = 1.0 / class_counts[labels].double()
sampler = WeightedRandomSampler(
    sample_weights, num_samples=len(labels), generator=torch.Generator().manual_seed(0)
)
drawn = torch.cat([y for _, y in DataLoader(data, batch_size=20, sampler=sampler)])
print("in the data:       ", class_counts.tolist())
print("drawn in an epoch: ", torch.bincount(drawn).tolist())

class_weights = len(labels) / (len(class_counts) * class_counts.float())
print("class weights:     ", [round(w, 3) for w in class_weights.tolist()])
logits = torch.zeros(2, 2)  # undecided on one sample of each class
targets = torch.tensor([0, 1])
per_sample = nn.functional.cross_entropy(logits, targets, weight=class_weights, reduction="none")
print("weighted loss per sample:", [round(v, 3) for v in per_sample.tolist()])

# %%
# .. _basics-pad-collate:
#
# Pad a batch of sequences: a collate_fn
# --------------------------------------
# The default collate stacks samples and fails on different lengths
# (:ref:`errors-collate-equal-size`); a ``collate_fn`` can pad each batch to its longest
# sequence with ``pad_sequence`` and return the lengths and a mask, which later steps
# use to ignore the padding (a masked mean here).
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_collate(batch):
    sequences, labels = zip(*batch, strict=True)
    lengths = torch.tensor([len(s) for s in sequences])
    padded = pad_sequence(sequences, batch_first=True, padding_value=0.0)
    mask = torch.arange(padded.shape[1]) < lengths.unsqueeze(1)  # True on real steps
    return padded, lengths, mask, torch.tensor(labels)


samples = [(torch.arange(1.0, n + 1), n % 2) for n in (3, 5, 2, 4)]
for padded, lengths, mask, labels in DataLoader(samples, batch_size=2, collate_fn=pad_collate):
    mean = (padded * mask).sum(1) / lengths
    print("padded", padded.tolist(), "lengths", lengths.tolist())
    print("  mask", mask.int().tolist(), "masked mean", mean.tolist(), "labels", labels.tolist())

# %%
# .. _basics-resume-exactly:
#
# Resume training exactly
# -----------------------
# A checkpoint that resumes a run bit for bit holds the model, the optimizer, the
# scheduler, the ``GradScaler``, the epoch and every random state the loop draws from:
# torch's (dropout), the data loader's generator (the shuffle), NumPy's and Python's
# (augmentations) and, on a GPU, CUDA's. A run stopped after two epochs and resumed
# from its checkpoint ends with the same weights as a run that never stopped. On a GPU,
# bit for bit also needs deterministic kernels: some CUDA kernels (``index_add_``,
# ``scatter_add_``, cuDNN's convolutions chosen by timing) add in an order that changes
# from run to run, so set ``torch.use_deterministic_algorithms(True)`` and
# ``torch.backends.cudnn.benchmark = False`` in both runs; see
# :ref:`basics-deterministic` for what each switch does.
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
EPOCHS = 4


@dataclass(frozen=True)
class Run:
    """Everything a training run holds."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    scaler: torch.amp.GradScaler
    loader: DataLoader
    shuffle: torch.Generator  # the loader's random generator


def build():
    """A run made afresh, as a new process would make it."""
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    shuffle = torch.Generator().manual_seed(1)
    loader = DataLoader(data, batch_size=16, shuffle=True, generator=shuffle)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
    return Run(model, optimizer, scheduler, torch.amp.GradScaler(device), loader, shuffle)


def train_one_epoch(run):
    run.model.train()
    for x, y in run.loader:
        x = x + 0.01 * torch.from_numpy(np.random.randn(*x.shape)).float()  # NumPy noise
        if random.random() < 0.5:  # an augmentation drawn from Python's random
            x = x.flip(1)
        run.optimizer.zero_grad()
        loss = nn.functional.mse_loss(run.model(x.to(device)), y.to(device))
        run.scaler.scale(loss).backward()
        run.scaler.step(run.optimizer)
        run.scaler.update()
    run.scheduler.step()


def checkpoint(epoch, run):
    _, key, pos, has_gauss, gauss = np.random.get_state()
    rng = {
        "torch": torch.get_rng_state(),
        "loader": run.shuffle.get_state(),
        "numpy": (torch.from_numpy(key.astype(np.int64)), pos, has_gauss, gauss),
        "python": random.getstate(),
    }
    if torch.cuda.is_available():
        rng["cuda"] = torch.cuda.get_rng_state_all()
    return {
        "epoch": epoch,
        "model": run.model.state_dict(),
        "optimizer": run.optimizer.state_dict(),
        "scheduler": run.scheduler.state_dict(),
        "scaler": run.scaler.state_dict(),
        "rng": rng,  # plain tensors, tuples and numbers: torch.load reads it weights_only
    }


def restore(state, run, with_rng=True):
    """Load a checkpoint into a run; return the epoch to start from."""
    run.model.load_state_dict(state["model"])
    run.optimizer.load_state_dict(state["optimizer"])
    run.scheduler.load_state_dict(state["scheduler"])
    run.scaler.load_state_dict(state["scaler"])
    if with_rng:
        rng = state["rng"]
        torch.set_rng_state(rng["torch"])
        run.shuffle.set_state(rng["loader"])
        key, pos, has_gauss, gauss = rng["numpy"]
        np.random.set_state(("MT19937", key.numpy().astype(np.uint32), pos, has_gauss, gauss))
        random.setstate(rng["python"])
        if "cuda" in rng:
            torch.cuda.set_rng_state_all(rng["cuda"])
    return state["epoch"] + 1


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # CPU and every GPU


seed_all(0)
uninterrupted = build()
for _ in range(EPOCHS):
    train_one_epoch(uninterrupted)

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp, "checkpoint.pt")
    seed_all(0)
    stopped = build()
    for _ in range(2):  # this run stops after epochs 0 and 1
        train_one_epoch(stopped)
    torch.save(checkpoint(1, stopped), path)

    for with_rng in (True, False):
        seed_all(1234)  # a new process: its random state is not the old one
        resumed = build()
        start = restore(torch.load(path), resumed, with_rng=with_rng)
        for _ in range(start, EPOCHS):
            train_one_epoch(resumed)
        same = all(
            torch.equal(a, b)
            for a, b in zip(
                uninterrupted.model.parameters(), resumed.model.parameters(), strict=True
            )
        )
        what = "with" if with_rng else "without"
        print(f"resumed at epoch {start} {what} the random states: bit-identical weights: {same}")

# %%
# .. _basics-nan-loss:
#
# The loss turns NaN: find the first layer that makes one
# -------------------------------------------------------
# Stop at the first step whose loss is not finite (``torch.isfinite``) rather than
# training on: one NaN reaches every weight at the next step. Then look for where it
# starts. A forward hook on every layer names the first one whose output is not finite;
# if that is the first layer, look at the batch (here one infinite value that the data
# pipeline let through). If the forward pass is finite and the gradients are not,
# :ref:`api-detect-anomaly` names the backward function that made the first NaN, and
# :ref:`basics-nan-gradients` shows the usual cause. Under float16, a ``GradScaler``
# skips steps with infinite gradients by design.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(16, 4)
x[5, 1] = float("inf")  # one bad value in the batch

first_bad = []


def check_finite(module, inputs, output):
    if not first_bad and not torch.isfinite(output).all():
        first_bad.append(module)


hooks = [m.register_forward_hook(check_finite) for m in model]
loss = model(x).pow(2).mean()
for hook in hooks:
    hook.remove()

print("loss:", loss.item(), "| finite:", torch.isfinite(loss).item())
print("first layer with a non-finite output:", first_bad[0] if first_bad else None)
print(
    "batch rows that are not finite:", (~torch.isfinite(x).all(dim=1)).nonzero().flatten().tolist()
)

# %%
# .. _basics-zero-grad-moves:
#
# A zero gradient still moves a weight: momentum and weight decay
# ---------------------------------------------------------------
# Adam, and SGD with momentum, update a weight from running averages of its past
# gradients, so a weight whose gradient is now zero keeps moving for many steps; weight
# decay moves it too. An embedding's gradient is dense by default, zero for the rows the
# batch did not use, so those rows drift. Optimizers skip a parameter whose ``.grad`` is
# ``None``: freeze with ``requires_grad_(False)`` rather than by zeroing gradients. For
# an embedding, ``sparse=True`` gives a gradient of the used rows only, which
# ``SparseAdam`` updates alone.
import torch
from torch import nn


def drift_of_unused_row(sparse: bool) -> float:
    """Train on rows 0 and 3 once, then on row 0 only; return how far row 3 moved."""
    torch.manual_seed(0)
    table = nn.Embedding(4, 2, sparse=sparse)
    make = torch.optim.SparseAdam if sparse else torch.optim.Adam
    optimizer = make(table.parameters(), lr=0.1)
    for step in range(4):
        rows = torch.tensor([0, 3] if step == 0 else [0])
        table(rows).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        if step == 0:
            after_first = table.weight[3].detach().clone()
    return (table.weight[3].detach() - after_first).abs().max().item()


print(f"Adam, dense gradient:         row 3 moved {drift_of_unused_row(False):.4f}")
print(f"SparseAdam, sparse=True:      row 3 moved {drift_of_unused_row(True):.4f}")

weight = nn.Parameter(torch.ones(2))
optimizer = torch.optim.AdamW([weight], lr=0.1, weight_decay=0.1)
for grad, name in ((torch.zeros(2), "zero"), (None, "None")):
    before = [round(v, 4) for v in weight.tolist()]
    weight.grad = grad
    optimizer.step()
    after = [round(v, 4) for v in weight.tolist()]
    print(f"AdamW, gradient {name}:".ljust(29), before, "->", after)

# %%
# .. _basics-profile-training:
#
# Training is slow: profile a few steps to see whether data or the model takes the time
# --------------------------------------------------------------------------------------
# Measure before changing anything. ``torch.profiler`` records every operator of a few
# steps (its ``schedule`` skips the first ones, which are not typical), and the time the
# loop waits for its next batch shows as a row of its own, ``enumerate(DataLoader)#…``.
# When that row fills most of the step, the model waits for data: load in worker
# processes (:ref:`basics-num-workers`) or make each sample cheaper to read. When the
# operators fill it, look at the model: lower precision
# (:ref:`pt2-mixed-precision-train`), ``torch.compile``
# (:ref:`pt2-compile-essentials-module`). On a GPU, add ``ProfilerActivity.CUDA``; a
# ``.item()`` in every step makes the CPU wait for the GPU. Here each sample takes 2 ms
# to read: the table profiles the loop without workers, and the last lines time a step
# with none and with two.
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset


class SlowReads(Dataset):
    """64 samples, each taking 2 ms to read, as a decode from disk might."""

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        time.sleep(0.002)
        return torch.randn(32), i % 4


def profile_training(num_workers: int):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(SlowReads(), batch_size=8, num_workers=num_workers)
    steps = schedule(wait=1, warmup=1, active=4, repeat=1)
    with profile(activities=[ProfilerActivity.CPU], schedule=steps) as prof:
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()
    return prof.key_averages()


def main() -> None:
    for workers in (0, 2):
        events = profile_training(workers)
        if workers == 0:
            print(events.table(sort_by="cpu_time_total", row_limit=5, max_name_column_width=44))
        # microseconds over the profiled steps, per step
        count = sum(e.count for e in events if e.key.startswith("ProfilerStep"))
        total = sum(e.cpu_time_total for e in events if e.key.startswith("ProfilerStep"))
        waiting = sum(e.cpu_time_total for e in events if e.key.startswith("enumerate(DataLoader)"))
        print(
            f"num_workers={workers}: a step takes {total / count / 1000:.1f} ms,"
            f" {waiting / count / 1000:.1f} ms of it waiting for data"
        )


if __name__ == "__main__":
    main()

# %%
# .. _basics-overfit-one-batch:
#
# The loss will not go down: overfit one batch first
# --------------------------------------------------
# Before looking at the data, check that the model, the loss and the optimizer can learn
# at all: train for a few hundred steps on one fixed batch, which a working setup learns
# by heart, so its loss falls to about zero. If it stays up, the bug is in that wiring,
# not in the data. Below, the same model and batch with the usual mistakes:
# probabilities (a softmax) passed to ``cross_entropy``, which wants logits, stall; for
# plain SGD, a learning rate too small crawls and one too large ends in ``nan``, while
# the one between fits. Once one batch fits, a loss that stays high on the full data
# points at the data (labels that do not match their inputs, features of very different
# scales) or at a model too small.
import torch
from torch import nn


def overfit_one_batch(model: nn.Module, lr: float = 0.01, optimizer_class=torch.optim.Adam) -> str:
    """Train on one fixed batch for 200 steps; return the first and the last loss."""
    torch.manual_seed(0)
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    optimizer = optimizer_class(model.parameters(), lr=lr)
    losses = []
    for _ in range(200):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return f"loss {losses[0]:.3f} -> {losses[-1]:.3f}"


def mlp(*tail: nn.Module) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 4), *tail)


print("logits into cross_entropy:  ", overfit_one_batch(mlp()))
print("softmax, then cross_entropy:", overfit_one_batch(mlp(nn.Softmax(dim=1))))
for lr in (0.01, 1.0, 50.0):
    print(f"SGD, lr={lr}:".ljust(28), overfit_one_batch(mlp(), lr, torch.optim.SGD))
