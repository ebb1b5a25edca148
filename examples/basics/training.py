r"""
Training a model
================

Optimizers, learning-rate schedules and a complete training loop on a small
synthetic data set, on the CPU in a few seconds.

Summary
-------

============================  ==================================================
You want                      Call
============================  ==================================================
an optimizer                  :entry:`optim.SGD(params, lr, momentum=0.9) <basics-optimizers>`, ``Adam``, ``AdamW``, ``RMSprop``
one training step             :entry:`optimizer.zero_grad() <basics-zero-grad>`, ``loss.backward()``, ``optimizer.step()``
a schedule                    :entry:`lr_scheduler.StepLR <basics-lr-schedulers>`, ``CosineAnnealingLR``, ``OneCycleLR``; ``scheduler.step()``
the current rate              :entry:`scheduler.get_last_lr() <basics-lr-schedulers>`, ``optimizer.param_groups[0]["lr"]``
lower the rate on a plateau   :entry:`ReduceLROnPlateau <basics-reduce-lr-on-plateau>`; ``scheduler.step(val_loss)``
a whole loop with validation  :entry:`for batch_x, batch_y in train_loader: <basics-training-loop>`
training or evaluation mode   :entry:`model.train() <basics-train-eval>`, ``model.eval()``, ``model.training``
a big batch in small pieces   :entry:`(loss / k).backward() <basics-grad-accumulation>` k times, then one ``step``
bounded gradients             :entry:`nn.utils.clip_grad_norm_ <basics-grad-clipping>`, ``nn.utils.clip_grad_value_``
predictions from a model      :entry:`model(x.unsqueeze(0)).argmax(1) <basics-predict>` in ``eval()`` and ``inference_mode``
============================  ==================================================
"""

# %%
# .. _basics-optimizers:
#
# Optimizers: SGD, Adam, AdamW, RMSprop
# -------------------------------------
# An optimizer takes the parameters to update and a learning rate; here each one
# fits the same line ``y = 3x + 1`` from the same start for 50 steps, and the final
# losses show how far each got with these settings.
import torch
from torch import nn

x = torch.linspace(-1, 1, 64).unsqueeze(1)
y = 3 * x + 1
optimizers = {
    "SGD(lr=0.1, momentum=0.9)": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    "Adam(lr=0.1)": lambda p: torch.optim.Adam(p, lr=0.1),
    "AdamW(lr=0.1, weight_decay=0.01)": lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.01),
    "RMSprop(lr=0.05)": lambda p: torch.optim.RMSprop(p, lr=0.05),
}
for name, make in optimizers.items():
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    optimizer = make(model.parameters())
    for _ in range(50):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    w, b = model.weight.item(), model.bias.item()
    print(f"{name:<34} loss {loss.item():.5f}  w={w:.3f}  b={b:.3f}")

# %%
# .. _basics-zero-grad:
#
# One optimization step: zero_grad, backward, step
# ------------------------------------------------
# Gradients add up across ``backward`` calls, so every step starts with
# ``optimizer.zero_grad()``, which by default sets each ``.grad`` to ``None``.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, targets = torch.randn(8, 3), torch.randn(8, 1)

optimizer.zero_grad()
print("after zero_grad:  grad is", model.weight.grad)
loss = nn.functional.mse_loss(model(inputs), targets)
loss.backward()
print("after backward:   grad is", model.weight.grad)
before = model.weight.detach().clone()
optimizer.step()
print("after step:       weight moved by", model.weight.detach() - before)
print("which is -lr * grad:", -0.1 * model.weight.grad)

# %%
# .. _basics-lr-schedulers:
#
# Learning-rate schedulers
# ------------------------
# A scheduler rescales the optimizer's learning rate each time its ``step()`` is
# called, after ``optimizer.step()``: once per epoch for ``StepLR`` and
# ``CosineAnnealingLR`` as used here, once per batch for ``OneCycleLR``.
import torch
from torch.optim import lr_scheduler

params = [torch.zeros(1, requires_grad=True)]
schedules = {
    "StepLR(step_size=3, gamma=0.1)": lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.1),
    "CosineAnnealingLR(T_max=8)": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=8),
    "OneCycleLR(max_lr=1.0, total_steps=9)": lambda o: lr_scheduler.OneCycleLR(
        o, max_lr=1.0, total_steps=9
    ),
}
for name, make in schedules.items():
    optimizer = torch.optim.SGD(params, lr=1.0)
    scheduler = make(optimizer)
    lrs = []
    for _ in range(9):
        lrs.append(scheduler.get_last_lr()[0])
        optimizer.step()  # the training step(s) of this epoch or batch
        scheduler.step()
    print(f"{name:<38}", " ".join(f"{lr:.3f}" for lr in lrs))

# %%
# .. _basics-reduce-lr-on-plateau:
#
# ReduceLROnPlateau
# -----------------
# ``ReduceLROnPlateau`` watches a metric you pass to ``step(metric)``, usually the
# validation loss, and multiplies the rate by ``factor`` once *more* than
# ``patience`` epochs in a row have failed to beat the best value so far (by a
# relative ``threshold``, 1e-4 by default): with ``patience=2``, at the third
# such epoch. A value equal to the best counts as no improvement.
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau

optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
val_losses = [1.0, 0.8, 0.7, 0.71, 0.72, 0.70, 0.69, 0.69, 0.70, 0.70]
for epoch, val_loss in enumerate(val_losses):
    optimizer.step()
    scheduler.step(val_loss)
    print(f"epoch {epoch}: val_loss {val_loss:.2f} -> lr {optimizer.param_groups[0]['lr']:.4f}")

# %%
# .. _basics-training-loop:
#
# A complete training loop
# ------------------------
# This loop teaches a small network to tell whether a 2-D point lies inside the
# unit circle: it batches the data with a ``DataLoader``, runs forward, loss,
# ``zero_grad``, ``backward`` and ``step``, and then measures accuracy in ``eval()``
# mode under ``torch.no_grad()``.
import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from cheatsheet import pick_device

torch.manual_seed(0)
device = pick_device()
points = torch.rand(1024, 2) * 4 - 2  # uniform in the square [-2, 2)^2
labels = (points.pow(2).sum(dim=1) < 1.0).long()  # class 1 inside the circle
train_loader = DataLoader(TensorDataset(points[:768], labels[:768]), batch_size=128, shuffle=True)
val_x, val_y = points[768:].to(device), labels[768:].to(device)

model = nn.Sequential(
    nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2)
).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

history = []
for epoch in range(30):
    model.train()
    total = 0.0
    for batch_x, batch_y in train_loader:
        batch_x, batch_y = batch_x.to(device), batch_y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(batch_x), batch_y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch_x)
    history.append(total / len(train_loader.dataset))

    model.eval()
    with torch.no_grad():
        accuracy = (model(val_x).argmax(dim=1) == val_y).float().mean().item()
    if epoch % 5 == 0 or epoch == 29:
        print(f"epoch {epoch:2d}  train loss {history[-1]:.4f}  val accuracy {accuracy:.1%}")

fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.plot(range(1, len(history) + 1), history, marker="o", markersize=3)
ax.set(
    xlabel="epoch",
    ylabel="mean training loss",
    yscale="log",
    title="Inside-the-circle classifier: loss per epoch",
)
ax.grid(True, alpha=0.3)
plt.show()

# %%
# .. _basics-train-eval:
#
# train() and eval(): what changes
# --------------------------------
# ``model.eval()`` switches ``Dropout`` off (in training it zeroes entries and scales
# the rest by ``1 / (1 - p)``) and makes ``BatchNorm`` use its stored
# running statistics instead of the batch's own (and stop updating them); it does
# not turn off gradients, which is what ``torch.no_grad()`` is for.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.ModuleDict({"dropout": nn.Dropout(p=0.5), "norm": nn.BatchNorm1d(3)})
x = torch.arange(12.0).reshape(4, 3)
for mode in ("train", "eval"):
    getattr(model, mode)()  # model.train() or model.eval(), applied to every submodule
    dropped = model["dropout"](torch.ones(8))
    normed = model["norm"](x)
    print(f"after model.{mode}(): model.training = {model.training}")
    print("  Dropout(ones):            ", dropped)
    print("  BatchNorm running_mean:   ", model["norm"].running_mean)
    print("  BatchNorm output column 0:", normed[:, 0].detach())
    print("  output requires grad:     ", normed.requires_grad)

# %%
# .. _basics-grad-accumulation:
#
# Gradient accumulation
# ---------------------
# Calling ``backward`` on several micro-batches before one ``step``, with each loss
# divided by the number of pieces, gives the same gradient as the whole batch at once
# while only one piece is in memory, as the comparison shows. Under DDP, skip the
# all-reduce of all but the last piece with ``no_sync()`` (:ref:`distributed-no-sync`).
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(10, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
inputs, targets = torch.randn(32, 10), torch.randn(32, 1)

nn.functional.mse_loss(model(inputs), targets).backward()
full_batch_grad = model.weight.grad.clone()

accumulation_steps = 4
optimizer.zero_grad()
for step, (x, y) in enumerate(
    zip(inputs.chunk(accumulation_steps), targets.chunk(accumulation_steps), strict=True)
):
    loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
    loss.backward()  # adds into .grad
    if (step + 1) % accumulation_steps == 0:
        print(
            "accumulated == full batch:",
            torch.allclose(model.weight.grad, full_batch_grad, atol=1e-6),
        )
        optimizer.step()
        optimizer.zero_grad()

# %%
# .. _basics-grad-clipping:
#
# Gradient clipping
# -----------------
# Between ``backward`` and ``step``, ``clip_grad_norm_`` rescales all gradients so
# their combined norm is at most ``max_norm`` (and returns the norm before clipping),
# while ``clip_grad_value_`` caps every element separately. With a ``GradScaler`` (mixed
# precision), the gradients after ``backward`` are still multiplied by the scale, so call
# ``scaler.unscale_(optimizer)`` first, then clip, then ``scaler.step(optimizer)``:
# :ref:`pt2-mixed-precision-clip` shows the order.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(10, 1)
loss = model(100 * torch.randn(16, 10)).pow(2).mean()  # large inputs, large gradients
loss.backward()

norm_before = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
norm_after = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.parameters()]))
print(f"clip_grad_norm_: total norm {norm_before.item():.1f} -> {norm_after.item():.3f}")

model.weight.grad = torch.tensor([[-3.0, 0.2, 5.0, -0.1, 1.0, 0.0, 2.0, -0.5, 0.3, 4.0]])
nn.utils.clip_grad_value_(model.parameters(), clip_value=1.0)
print("clip_grad_value_(1.0):", model.weight.grad)

# %%
# .. _basics-predict:
#
# Predict with a trained model: eval(), inference_mode, a batch of one
# --------------------------------------------------------------------
# Switch to ``model.eval()`` (dropout off, stored normalisation statistics), run under
# ``torch.inference_mode()`` (no graph is kept), and give the model a batch even for one
# sample: layers take the first dimension as the batch, so ``x.unsqueeze(0)`` adds it.
# A classifier returns logits: ``softmax`` turns them into probabilities, ``argmax``
# picks the class, and comparing with the labels counts the correct ones.
import torch
from torch import nn

torch.manual_seed(0)
# stands in for your trained model
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 3))
model.eval()
with torch.inference_mode():
    sample = torch.randn(4)  # one sample: 4 features, no batch dimension
    logits = model(sample.unsqueeze(0))  # shape (1, 3): a batch of one
    probabilities = logits.softmax(dim=1)
    print("class:", logits.argmax(dim=1).item(), "| probabilities:", probabilities.squeeze(0))

    inputs, labels = torch.randn(10, 4), torch.randint(0, 3, (10,))
    predicted = model(inputs).argmax(dim=1)
    correct = (predicted == labels).sum().item()
    print(f"correct: {correct} of {len(labels)} | accuracy: {correct / len(labels):.0%}")
