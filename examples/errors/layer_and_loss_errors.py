r"""
Layer and loss errors
=====================

The messages ``nn`` layers and losses raise about their inputs: channels, dimensions
and dtypes a layer refuses, and targets a loss cannot use.

Summary
-------

====================================================  ==========================================================
You see                                               Fix
====================================================  ==========================================================
expected input to have 3 channels, but got            :entry:`x.permute(0, 3, 1, 2) <errors-conv-channels>`, ``in_channels=x.shape[1]``
Expected 3D (unbatched) or 4D (batched) input         :entry:`x.unsqueeze(0) <errors-conv-input-dims>`
Input type and bias type should be the same           :entry:`x.float() <errors-conv-input-type>`, ``x.to(conv.weight.dtype)``
Target is out of bounds                               :entry:`labels - 1 <errors-target-out-of-bounds>`, ``num_classes = labels.max() + 1``
expected target dtype to be Long or Byte              :entry:`target.long() <errors-target-dtype-long>`
weight tensor should be defined for all classes       :entry:`weight=torch.ones(num_classes) <errors-loss-weight-size>`
Found dtype Long but expected Float                   :entry:`target.float() <errors-bce-target-float>`
Expected input batch_size to match target batch_size  :entry:`target.reshape(-1) <errors-batch-size-mismatch>`
index out of range in self                            :entry:`nn.Embedding(ids.max() + 1, dim) <errors-embedding-index>`
Output size is too small                              :entry:`F.interpolate(x, size=224) <errors-output-size-too-small>`, or fewer stages
Expected more than 1 value per channel when training  :entry:`model.eval() <errors-batchnorm-one-value>`, ``DataLoader(drop_last=True)``
Using a target size that is different to the input    :entry:`target.view(-1, 1) <errors-mse-target-size>`, ``output.squeeze(1)``
optimizer got an empty parameter list                 :entry:`nn.ModuleList(layers) <errors-empty-parameter-list>`
mixed dtype (CPU): inputs must share same datatype    :entry:`x.float() <errors-mixed-dtype-cpu>`, or ``model.double()``
0D or 1D target tensor expected                       :entry:`labels.squeeze(1) <errors-multi-target>`
Module is missing the required \"forward\" function   :entry:`def forward(self, x) <errors-missing-forward>`
forward() takes 2 positional arguments but 3 given    :entry:`def forward(self, x, mask) <errors-forward-positional>`
Expected tensor for argument #1 \'indices\'           :entry:`token_ids.long() <errors-embedding-float-indices>`
====================================================  ==========================================================
"""

# %%
# .. _errors-conv-channels:
#
# Given groups=1, weight of size […], expected input[…] to have … channels, but got … channels instead
# ----------------------------------------------------------------------------------------------------
# A convolution reads channels from dimension 1 (``N, C, H, W``), and the input has a
# different number there: images from NumPy or PIL are usually ``N, H, W, C``, and a
# grayscale image has 1 channel where the layer expects 3.
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 16, kernel_size=3)
images = torch.rand(8, 32, 32, 3)  # height, width, then the 3 colour channels
try:
    conv(images)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: move the channels to dimension 1 with ``permute`` (or build the layer with
# ``in_channels`` equal to the input's ``shape[1]``).
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 16, kernel_size=3)
images = torch.rand(8, 32, 32, 3).permute(0, 3, 1, 2)  # N, C, H, W
print("input:", tuple(images.shape), "-> output:", tuple(conv(images).shape))

# %%
# .. _errors-conv-input-dims:
#
# Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: […]
# -----------------------------------------------------------------------------------
# ``Conv2d`` takes ``C, H, W`` or ``N, C, H, W``; one grayscale image as ``H, W`` lacks
# its channel dimension, and a stack of batches has one dimension too many.
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(1, 4, kernel_size=3)
image = torch.rand(28, 28)  # one grayscale image, no channel or batch dimension
try:
    conv(image)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: add the missing dimensions with ``unsqueeze`` (or index with ``None``).
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(1, 4, kernel_size=3)
image = torch.rand(28, 28)
print("C, H, W:   ", tuple(conv(image.unsqueeze(0)).shape))
print("N, C, H, W:", tuple(conv(image[None, None]).shape))

# %%
# .. _errors-conv-input-type:
#
# Input type (…) and bias type (…) should be the same
# ---------------------------------------------------
# A convolution got an input whose dtype differs from its parameters': ``float64``
# from NumPy, or ``float16`` data fed to a ``float32`` model outside ``autocast``.
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 4, kernel_size=3)
images = torch.from_numpy(np.random.default_rng(0).random((2, 3, 8, 8)))  # float64
try:
    conv(images)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")
try:
    conv(images.half())
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: convert the input to the layer's dtype (``x.float()``, or
# ``x.to(conv.weight.dtype)``). ``torch.autocast`` is no fix for the usual cause: it
# never casts ``float64`` (only ``float32``, ``float16`` and ``bfloat16`` tensors are
# eligible), so NumPy's ``float64`` images still fail under it (the message then names
# the bias's ``BFloat16``, which autocast did cast). Inside
# autocast, a model fed ``float32`` runs each eligible operation in the lower precision,
# as the last line shows.
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 4, kernel_size=3)
images = torch.from_numpy(np.random.default_rng(0).random((2, 3, 8, 8)))
print("x.float():", conv(images.float()).dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("autocast: ", conv(images.float()).dtype)

# %%
# .. _errors-target-out-of-bounds:
#
# Target … is out of bounds.
# --------------------------
# ``CrossEntropyLoss`` and ``NLLLoss`` want class indices from 0 to ``C - 1`` for ``C``
# scores per sample; labels numbered from 1, or more classes than the model's output
# layer has, give an index of ``C`` or more.
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)  # 3 classes
labels = torch.tensor([1, 2, 3, 1])  # numbered 1 to 3
try:
    nn.functional.cross_entropy(logits, labels)
except IndexError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: number the classes from 0, or size the output layer for every label there is
# (``labels.max() + 1`` classes).
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)
labels = torch.tensor([1, 2, 3, 1])
print("classes needed:", labels.max().item() + 1, "| classes given:", logits.shape[1])
print("loss with labels - 1:", nn.functional.cross_entropy(logits, labels - 1))

# %%
# .. _errors-target-dtype-long:
#
# expected target dtype to be Long or Byte, but got …
# ---------------------------------------------------
# Class-index targets for ``CrossEntropyLoss`` and ``NLLLoss`` must be integers
# (``int64``); float labels of shape ``(N,)`` are refused (float targets of shape
# ``(N, C)`` are read as class probabilities instead). Older releases say
# "expected scalar type Long but found Float".
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)
labels = torch.tensor([0.0, 2.0, 1.0, 0.0])  # class indices stored as floats
try:
    nn.functional.cross_entropy(logits, labels)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: convert the labels with ``long()`` (or make them ``int64`` in the data set).
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)
labels = torch.tensor([0.0, 2.0, 1.0, 0.0]).long()
print(labels.dtype, nn.functional.cross_entropy(logits, labels))

# %%
# .. _errors-loss-weight-size:
#
# weight tensor should be defined either for all … classes or no classes
# -----------------------------------------------------------------------
# ``CrossEntropyLoss(weight=w)`` and ``NLLLoss(weight=w)`` take one weight per class:
# ``w`` of shape ``(C,)``, ``C`` being the size of the scores' class dimension
# (dimension 1). Weights counted for another labelling, or one weight per sample or
# per position, are refused. For scores of more than two dimensions (``(N, C, L)``)
# the message names no count: "either for all or no classes".
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 5)  # 5 classes
labels = torch.tensor([0, 1, 4, 2])
weights = torch.tensor([1.0, 2.0, 1.0])  # counted for 3 classes
try:
    nn.CrossEntropyLoss(weight=weights)(logits, labels)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: one weight per class, ``weight.shape == (logits.shape[1],)`` (here from the
# labels' counts). To weight samples instead, take the loss per sample
# (``reduction="none"``) and average it with the samples' weights.
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 5)
labels = torch.tensor([0, 1, 4, 2])
counts = torch.bincount(labels, minlength=logits.shape[1]).float()
per_class = 1.0 / counts.clamp(min=1)  # inverse frequency; a class never seen gets 1
print("weights:", tuple(per_class.shape), "for", logits.shape[1], "classes")
print("class-weighted loss:", nn.CrossEntropyLoss(weight=per_class)(logits, labels))
per_sample = torch.tensor([1.0, 0.5, 2.0, 1.0])
losses = nn.CrossEntropyLoss(reduction="none")(logits, labels)
print("sample-weighted loss:", (losses * per_sample).sum() / per_sample.sum())

# %%
# .. _errors-bce-target-float:
#
# Found dtype Long but expected Float
# -----------------------------------
# ``BCELoss`` needs float targets (probabilities between 0 and 1), and labels
# ``0``/``1`` made with ``torch.tensor([0, 1])`` are integers; ``BCEWithLogitsLoss``
# refuses them with :ref:`errors-result-type-cast`.
import torch
from torch import nn

torch.manual_seed(0)
probabilities = torch.rand(4)
labels = torch.tensor([0, 1, 1, 0])
try:
    nn.BCELoss()(probabilities, labels)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: give the loss float targets.
import torch
from torch import nn

torch.manual_seed(0)
probabilities = torch.rand(4)
labels = torch.tensor([0, 1, 1, 0])
print("BCELoss:", nn.BCELoss()(probabilities, labels.float()))

# %%
# .. _errors-batch-size-mismatch:
#
# Expected input batch_size (…) to match target batch_size (…).
# -------------------------------------------------------------
# The loss got a different number of score rows than targets; with sequences, the
# scores were flattened to ``(N * T, C)`` and the targets were left as ``(N, T)``.
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(2, 5, 10)  # 2 sequences of 5 tokens, 10 classes
targets = torch.randint(0, 10, (2, 5))
try:
    nn.functional.cross_entropy(logits.reshape(-1, 10), targets)
except ValueError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: flatten the targets the same way (``reshape(-1)``), so there is one per row.
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(2, 5, 10)
targets = torch.randint(0, 10, (2, 5))
flat_logits, flat_targets = logits.reshape(-1, 10), targets.reshape(-1)
print(tuple(flat_logits.shape), tuple(flat_targets.shape))
print("loss:", nn.functional.cross_entropy(flat_logits, flat_targets))

# %%
# .. _errors-embedding-index:
#
# index out of range in self
# --------------------------
# An ``nn.Embedding`` with ``num_embeddings=n`` has rows 0 to ``n - 1``, and a token id
# (or any index) is ``n`` or more: a vocabulary that grew, or a padding id past the end.
import torch
from torch import nn

torch.manual_seed(0)
embedding = nn.Embedding(num_embeddings=10, embedding_dim=4)
token_ids = torch.tensor([[1, 5, 10]])  # 10 is one past the last row
try:
    embedding(token_ids)
except IndexError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: size the table for the largest id (``max() + 1``), and check ids against it.
import torch
from torch import nn

torch.manual_seed(0)
token_ids = torch.tensor([[1, 5, 10]])
embedding = nn.Embedding(num_embeddings=int(token_ids.max()) + 1, embedding_dim=4)
print("rows:", embedding.num_embeddings, "| output:", tuple(embedding(token_ids).shape))

# %%
# .. _errors-batchnorm-one-value:
#
# Expected more than 1 value per channel when training, got input size …
# ----------------------------------------------------------------------
# In training mode ``BatchNorm`` normalises with the batch's own statistics, which one
# sample per channel cannot give: a single-sample prediction left in ``train()``, or a
# last batch of size 1.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
one_sample = torch.randn(1, 4)
try:
    model(one_sample)
except ValueError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: predict in ``eval()`` mode (running statistics), and drop a last batch of one
# in training with ``drop_last=True``.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
print("eval():", tuple(model.eval()(torch.randn(1, 4)).shape))
data = TensorDataset(torch.randn(9, 4))
print("batch sizes:", [len(b) for (b,) in DataLoader(data, batch_size=4)])
print("drop_last:  ", [len(b) for (b,) in DataLoader(data, batch_size=4, drop_last=True)])

# %%
# .. _errors-mse-target-size:
#
# Using a target size (…) that is different to the input size (…)
# ---------------------------------------------------------------
# A ``UserWarning``, not an error: the model's output is ``(N, 1)`` and the target
# ``(N,)``, so ``MSELoss`` broadcasts them to ``(N, N)`` and averages the wrong
# differences; the loss is silently wrong.
import warnings

import torch
from torch import nn

torch.manual_seed(0)
output = torch.randn(4, 1)  # a regression model's output, one column
target = torch.randn(4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss = nn.functional.mse_loss(output, target)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("loss computed:", loss.item())

# %%
# Fix: give both the same shape; the loss then matches the mean of the squared
# differences, with no warning.
import warnings

import torch
from torch import nn

torch.manual_seed(0)
output = torch.randn(4, 1)
target = torch.randn(4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss = nn.functional.mse_loss(output, target.view(-1, 1))
print("warnings:", len(caught), "| loss:", loss.item())
print("by hand: ", ((output.squeeze(1) - target) ** 2).mean().item())

# %%
# .. _errors-empty-parameter-list:
#
# optimizer got an empty parameter list
# -------------------------------------
# ``model.parameters()`` found nothing: the model keeps its layers in a plain Python
# list (or dict), which ``nn.Module`` does not look into. Such layers are not
# registered, so no optimizer sees their weights, ``.to(device)`` leaves them where
# they are and the ``state_dict`` saves none of them; a model with other layers beside
# the list trains those and silently leaves the listed ones at their initial values.
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(8, 8) for _ in range(3)]  # a plain list

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


model = Stack()
print("parameters found:", len(list(model.parameters())))
try:
    torch.optim.SGD(model.parameters(), lr=0.1)
except ValueError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: hold the layers in ``nn.ModuleList`` (``nn.ModuleDict`` for a dict,
# ``nn.ParameterList`` for bare tensors), which registers each one.
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


model = Stack()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print("parameters found:", len(list(model.parameters())))
print("state_dict keys: ", list(model.state_dict())[:2], "...")

# %%
# .. _errors-output-size-too-small:
#
# Given input size: (…). Calculated output size: (…). Output size is too small
# ----------------------------------------------------------------------------
# Every pooling (or strided convolution) stage shrinks the image, and one of them got
# less than a full window: a network designed for 224-pixel images halves its input
# five times or more, and a small image reaches zero before the end. A convolution
# whose kernel is larger than what is left says so in its own words: ``Kernel size
# can't be greater than actual input size``. Here four halvings of an 8-pixel image.
import torch
from torch import nn


def stage(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))


features = nn.Sequential(stage(3, 16), stage(16, 32), stage(32, 64), stage(64, 64))
try:
    features(torch.randn(1, 3, 8, 8))
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: follow the shape through the stages to see where it runs out, then give the
# network the input size it was built for (``nn.functional.interpolate`` resizes), or
# take a stage out.
import torch
from torch import nn


def stage(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))


features = nn.Sequential(stage(3, 16), stage(16, 32), stage(32, 64), stage(64, 64))
for side in (8, 16):
    x = torch.randn(1, 3, side, side)
    sides = [side]
    for block in features:
        if x.shape[-1] < 2:
            sides.append("too small for MaxPool2d(2)")
            break
        x = block(x)
        sides.append(x.shape[-1])
    print(f"{side:2}-pixel input, side after each stage:", sides)

# %%
# .. _errors-mixed-dtype-cpu:
#
# mixed dtype (CPU): all inputs must share same datatype.
# -------------------------------------------------------
# A normalisation layer (``LayerNorm``, ``BatchNorm``, ``GroupNorm``) got an input whose
# dtype differs from its weights': ``float64`` data from NumPy into a ``float32``
# model. :ref:`errors-expected-scalar-type` lists what other operations say.
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
norm = nn.LayerNorm(4)
x = torch.from_numpy(np.random.default_rng(0).random((2, 4)))  # float64
try:
    norm(x)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: convert the input to the model's dtype where the data comes in, or the model
# to the input's (``model.double()``, at twice the memory).
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
norm = nn.LayerNorm(4)
x = torch.from_numpy(np.random.default_rng(0).random((2, 4)))
print("x.float():     ", norm(x.float()).dtype)
print("model.double():", norm.double()(x).dtype)

# %%
# .. _errors-multi-target:
#
# 0D or 1D target tensor expected, multi-target not supported
# -----------------------------------------------------------
# ``CrossEntropyLoss`` and ``NLLLoss`` take one class index per sample, shape ``(N,)``;
# labels of shape ``(N, 1)``, as a data set that returns ``[label]`` or a column of a
# table gives them, look like several targets per sample.
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)
labels = torch.tensor([[0], [2], [1], [0]])  # shape (4, 1)
try:
    nn.functional.cross_entropy(logits, labels)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: drop the extra dimension (``squeeze(1)`` or ``view(-1)``), best where the data
# set makes the label. For one-hot or soft labels, pass float targets of shape
# ``(N, C)`` instead, which the loss reads as class probabilities.
import torch
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)
labels = torch.tensor([[0], [2], [1], [0]])
print("class indices:", nn.functional.cross_entropy(logits, labels.squeeze(1)))
one_hot = nn.functional.one_hot(labels.squeeze(1), num_classes=3).float()
print("probabilities:", nn.functional.cross_entropy(logits, one_hot))

# %%
# .. _errors-missing-forward:
#
# Module […] is missing the required \"forward\" function
# -------------------------------------------------------
# Calling a module runs its ``forward`` method, and this class has none by that name:
# usually a misspelling (``foward``, ``Forward``) or a ``forward`` indented into
# ``__init__``.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def foward(self, x):  # misspelt
        return self.fc(x)


try:
    Net()(torch.randn(1, 4))
except NotImplementedError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: name the method ``forward``, at the class's level, and call the module (not
# ``forward`` itself, which skips its hooks).
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


print(Net()(torch.randn(1, 4)).shape)

# %%
# .. _errors-forward-positional:
#
# forward() takes 2 positional arguments but 3 were given
# -------------------------------------------------------
# The module was called with two inputs, and its ``forward`` takes one (``self`` is
# the other argument counted). ``nn.Sequential`` passes one value from layer to layer,
# so it cannot take an input and a mask. A ``forward`` written without ``self`` gets
# the same message with one fewer of each: "takes 1 positional argument but 2 were given".
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x, mask = torch.randn(3, 4), torch.tensor([[1.0], [0.0], [1.0]])
try:
    model(x, mask)
except TypeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: write a module whose ``forward`` takes every input it needs and decides where
# each goes; or call the ``Sequential`` with one tensor.
import torch
from torch import nn


class MaskedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, x, mask):
        return self.body(x) * mask


torch.manual_seed(0)
x, mask = torch.randn(3, 4), torch.tensor([[1.0], [0.0], [1.0]])
print(MaskedMLP()(x, mask))

# %%
# .. _errors-embedding-float-indices:
#
# Expected tensor for argument #1 \'indices\' to have one of the following scalar types: Long, Int; but got …
# -----------------------------------------------------------------------------------------------------------
# ``nn.Embedding`` looks rows up by integer ids, and got floats: ids that went through
# NumPy, a float tensor built with ``torch.tensor`` from mixed data, or a ``Dataset``
# that returned ``float`` values.
import torch
from torch import nn

torch.manual_seed(0)
embedding = nn.Embedding(num_embeddings=10, embedding_dim=4)
token_ids = torch.tensor([[1.0, 5.0, 7.0]])
try:
    embedding(token_ids)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: convert the ids to ``int64`` (``long()``), where the data set makes them.
import torch
from torch import nn

torch.manual_seed(0)
embedding = nn.Embedding(num_embeddings=10, embedding_dim=4)
token_ids = torch.tensor([[1.0, 5.0, 7.0]]).long()
print(token_ids.dtype, tuple(embedding(token_ids).shape))
