r"""
Shape and dtype errors
======================

The messages PyTorch raises when shapes do not line up, dtypes do not match or an index
falls outside a tensor, each raised here for real with the fix beside it.

Summary
-------

======================================================  ==========================================================
You see                                                 Fix
======================================================  ==========================================================
mat1 and mat2 shapes cannot be multiplied               :entry:`nn.Linear(x.shape[-1], out) <errors-mat1-mat2-shapes>`, ``nn.LazyLinear(out)``
The size of tensor a must match the size of tensor b    :entry:`b.unsqueeze(1) <errors-size-must-match>`: line the sizes up from the right
shape is invalid for input of size                      :entry:`x.view(2, -1) <errors-shape-invalid>`: sizes whose product is ``x.numel()``
view size is not compatible with size and stride        :entry:`x.reshape(12) <errors-view-not-compatible>`, ``x.contiguous().view(12)``
mat1 and mat2 must have the same dtype                  :entry:`x.float() <errors-mat1-mat2-dtype>`, ``torch.from_numpy(a).float()``
Dimension out of range                                  :entry:`x.unsqueeze(0) <errors-dimension-out-of-range>`, ``dim=-1``
stack expects each tensor to be equal size              :entry:`pad_sequence(seqs, batch_first=True) <errors-stack-equal-size>`, ``torch.cat``
Boolean value of Tensor is ambiguous                    :entry:`(x > 0).any() <errors-bool-ambiguous>`, ``.all()``, ``torch.where``
a Tensor with N elements cannot be converted to Scalar  :entry:`loss.mean().item() <errors-item-one-element>`, ``x.tolist()``
index is out of bounds for dimension                    :entry:`x[len(x) - 1] <errors-index-out-of-bounds>`, ``x[-1]``
result type Float can\'t be cast to output type Long    :entry:`x = x / 2 <errors-result-type-cast>`, ``target.float()``
expected scalar type Float but found Double             :entry:`b.to(a.dtype) <errors-expected-scalar-type>`, ``torch.from_numpy(a).float()``
Sizes of tensors must match except in dimension         :entry:`torch.cat(parts, dim=1) <errors-cat-sizes>`: the sizes agree elsewhere
The expanded size of the tensor must match              :entry:`x.unsqueeze(1).expand(2, 3) <errors-expand-size>`
can\'t convert np.ndarray of type numpy.object\_        :entry:`pad_sequence(rows) <errors-numpy-object>`, a list of tensors
output with shape doesn\'t match the broadcast shape    :entry:`total = total + x <errors-inplace-broadcast>`, ``row.new_zeros(n)`` under ``vmap``
\"…\" not implemented for \'Half\'                      :entry:`x.float() <errors-not-implemented-dtype>`, then back: ``.to(x.dtype)``; ``torch.randint``
mean(): could not infer output dtype                    :entry:`(pred == y).float().mean() <errors-mean-integer>`, ``x.mean(dtype=torch.float32)``
======================================================  ==========================================================
"""

# %%
# .. _errors-mat1-mat2-shapes:
#
# mat1 and mat2 shapes cannot be multiplied
# -----------------------------------------
# A ``nn.Linear`` layer (or ``@``) got an input whose last size is not the layer's
# ``in_features``; in ``(4x8 and 10x5)`` the first pair is the input flattened to 2-D,
# the second the layer's weight transposed.
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(10, 5)
x = torch.randn(4, 8)  # 8 features per sample, the layer expects 10
try:
    layer(x)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: build the layer from the input's last size, or let ``nn.LazyLinear`` read it on
# the first call.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(4, 8)
print("Linear(x.shape[-1], 5):", nn.Linear(x.shape[-1], 5)(x).shape)
lazy = nn.LazyLinear(5)
print("LazyLinear(5):         ", lazy(x).shape, "| in_features became", lazy.in_features)

# %%
# .. _errors-size-must-match:
#
# The size of tensor a (…) must match the size of tensor b (…) at non-singleton dimension …
# -----------------------------------------------------------------------------------------
# An elementwise operation broadcasts its operands by comparing sizes from the last
# dimension backwards, and two sizes there differ while neither is 1: here a (4, 3)
# table and one value per row, shape (4,), are lined up against the 3 columns.
import torch

table = torch.ones(4, 3)
per_row = torch.tensor([1.0, 2.0, 3.0, 4.0])
try:
    table * per_row
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: give the smaller tensor a size-1 dimension where it should repeat, so ``(4, 1)``
# broadcasts against ``(4, 3)``.
import torch

table = torch.ones(4, 3)
per_row = torch.tensor([1.0, 2.0, 3.0, 4.0])
print(table * per_row.unsqueeze(1))  # per_row[:, None] is the same

# %%
# .. _errors-shape-invalid:
#
# shape \'[…]\' is invalid for input of size …
# --------------------------------------------
# ``view`` or ``reshape`` was asked for a shape whose sizes multiply to a different
# number of elements than the tensor holds: 3 × 4 = 12, but it has 10.
import torch

x = torch.arange(10)
try:
    x.view(3, 4)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: ask for sizes whose product is ``x.numel()``; ``-1`` lets PyTorch work one out,
# and fails the same way when it does not divide.
import torch

x = torch.arange(10)
print("numel:", x.numel())
print("view(2, -1):", x.view(2, -1).shape)

# %%
# .. _errors-view-not-compatible:
#
# view size is not compatible with input tensor\'s size
# -----------------------------------------------------
# ``view`` never copies, so it needs the elements already laid out in memory in the
# new order; after ``t()``, ``transpose`` or ``permute`` they are not (the tensor is
# not contiguous).
import torch

x = torch.arange(12.0).reshape(3, 4).t()
print("contiguous:", x.is_contiguous())
try:
    x.view(12)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: ``reshape`` returns a view when it can and copies when it must;
# ``contiguous().view`` copies first and says so.
import torch

x = torch.arange(12.0).reshape(3, 4).t()
print("reshape(12):          ", x.reshape(12))
print("contiguous().view(12):", x.contiguous().view(12))

# %%
# .. _errors-mat1-mat2-dtype:
#
# mat1 and mat2 must have the same dtype
# --------------------------------------
# The input and the layer's weight have different dtypes; the usual source is NumPy,
# whose arrays are ``float64`` (Double) while ``nn`` layers are ``float32`` (Float),
# and ``torch.from_numpy`` keeps the dtype.
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
x = torch.from_numpy(np.random.default_rng(0).random((4, 3)))
print("input:", x.dtype, "| weight:", layer.weight.dtype)
try:
    layer(x)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: convert the input to the model's dtype (or the model with ``.double()``, at twice
# the memory).
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
x = torch.from_numpy(np.random.default_rng(0).random((4, 3))).float()
print(layer(x).dtype, layer(x).shape)

# %%
# .. _errors-dimension-out-of-range:
#
# Dimension out of range (expected to be in range of […], but got …)
# ------------------------------------------------------------------
# A ``dim`` argument names a dimension the tensor does not have; the usual case is one
# sample without its batch dimension, so the class scores sit in ``dim=0``, not 1.
import torch

torch.manual_seed(0)
scores = torch.randn(10)  # one sample's 10 class scores, no batch dimension
try:
    torch.softmax(scores, dim=1)
except IndexError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: add the batch dimension (``unsqueeze(0)``), or count from the end with
# ``dim=-1``, which works with and without it.
import torch

torch.manual_seed(0)
scores = torch.randn(10)
print("unsqueeze(0):", torch.softmax(scores.unsqueeze(0), dim=1).shape)
probabilities = torch.softmax(scores, dim=-1)
print("dim=-1:      ", probabilities.shape, "sums to", probabilities.sum())

# %%
# .. _errors-stack-equal-size:
#
# stack expects each tensor to be equal size, but got […] at entry … and […] at entry …
# -------------------------------------------------------------------------------------
# ``torch.stack`` adds a new dimension, so every tensor must have the same shape; here
# two sequences of different lengths.
import torch

short, long = torch.ones(3), torch.ones(5)
try:
    torch.stack([short, long])
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: pad them to one length (``pad_sequence``), or join them end to end with
# ``torch.cat`` if a new dimension was not what you meant.
import torch
from torch.nn.utils.rnn import pad_sequence

short, long = torch.ones(3), torch.ones(5)
print("pad_sequence:\n", pad_sequence([short, long], batch_first=True))
print("cat:", torch.cat([short, long]).shape)

# %%
# .. _errors-bool-ambiguous:
#
# Boolean value of Tensor with more than one value is ambiguous
# -------------------------------------------------------------
# ``if``, ``and``, ``or``, ``not`` and ``while`` need one truth value, and a comparison
# of a tensor with several elements gives one per element.
import torch

x = torch.tensor([0.5, -1.0, 2.0])
try:
    if x > 0:
        print("positive")
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: say which truth you mean: ``any()`` or ``all()`` for one answer, ``torch.where``
# for one per element.
import torch

x = torch.tensor([0.5, -1.0, 2.0])
print("any positive:", bool((x > 0).any()), "| all positive:", bool((x > 0).all()))
print("per element: ", torch.where(x > 0, x, torch.zeros_like(x)))

# %%
# .. _errors-item-one-element:
#
# a Tensor with … elements cannot be converted to Scalar
# ------------------------------------------------------
# ``item()`` (and ``float()``, ``int()``) turn a one-element tensor into a Python
# number; a loss computed with ``reduction="none"`` still holds one value per sample.
import torch
from torch import nn

torch.manual_seed(0)
loss = nn.functional.mse_loss(torch.randn(4), torch.zeros(4), reduction="none")
try:
    loss.item()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: reduce first (``mean()``, ``sum()``), or take all the values with ``tolist()``.
import torch
from torch import nn

torch.manual_seed(0)
loss = nn.functional.mse_loss(torch.randn(4), torch.zeros(4), reduction="none")
print("mean().item():", loss.mean().item())
print("tolist():     ", loss.tolist())

# %%
# .. _errors-index-out-of-bounds:
#
# index … is out of bounds for dimension … with size …
# ----------------------------------------------------
# Indices run from 0 to ``size - 1``, so ``x[len(x)]`` is one past the end; on a GPU the
# same mistake in a kernel becomes :ref:`errors-device-side-assert`.
import torch

x = torch.arange(5) * 10
try:
    x[len(x)]
except IndexError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: the last element is ``x[len(x) - 1]``, or ``x[-1]``; check computed indices
# against the size before using them.
import torch

x = torch.arange(5) * 10
index = torch.tensor([0, 4, 5])
print("x[len(x) - 1] =", x[len(x) - 1].item(), "| x[-1] =", x[-1].item())
print("indices in range:", ((index >= 0) & (index < len(x))).tolist())

# %%
# .. _errors-result-type-cast:
#
# result type Float can\'t be cast to the desired output type Long
# ----------------------------------------------------------------
# An in-place operation must keep its tensor's dtype, and dividing integers gives
# floats; ``BCEWithLogitsLoss`` with integer targets raises the same message.
import torch
from torch import nn

counts = torch.tensor([3, 4, 5])
try:
    counts /= 2
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

logits, labels = torch.zeros(3), torch.tensor([0, 1, 1])
try:
    nn.functional.binary_cross_entropy_with_logits(logits, labels)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: compute out of place (a new float tensor) or divide with a rounding mode that
# stays integer; give the loss float targets.
import torch
from torch import nn

counts = torch.tensor([3, 4, 5])
print("counts / 2:              ", counts / 2)
print("div(2, rounding_mode=...):", counts.div(2, rounding_mode="floor"))
logits, labels = torch.zeros(3), torch.tensor([0, 1, 1])
print("loss:", nn.functional.binary_cross_entropy_with_logits(logits, labels.float()))

# %%
# .. _errors-expected-scalar-type:
#
# expected scalar type Float but found Double
# -------------------------------------------
# Two operands of one operation have different floating dtypes: here ``torch.bmm`` of a
# ``float32`` batch and a ``float64`` one, which NumPy data brings in. Other operations
# say the same in their own words: ``nn.Linear`` says "mat1 and mat2 must have the same
# dtype" (:ref:`errors-mat1-mat2-dtype`), the normalisation layers "mixed dtype (CPU)"
# (:ref:`errors-mixed-dtype-cpu`), and older releases used this wording for many more.
import numpy as np
import torch

torch.manual_seed(0)
queries = torch.randn(2, 3, 4)  # float32
keys = torch.from_numpy(np.random.default_rng(0).random((2, 4, 5)))  # float64
print("dtypes:", queries.dtype, keys.dtype)
try:
    torch.bmm(queries, keys)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: give both operands one dtype, converting where the data comes in (``.float()``
# on NumPy data, or ``np.float32`` arrays) rather than before each operation.
import numpy as np
import torch

torch.manual_seed(0)
queries = torch.randn(2, 3, 4)
keys = torch.from_numpy(np.random.default_rng(0).random((2, 4, 5))).float()
scores = torch.bmm(queries, keys)
print(scores.dtype, tuple(scores.shape))

# %%
# .. _errors-cat-sizes:
#
# Sizes of tensors must match except in dimension …
# -------------------------------------------------
# ``torch.cat`` joins tensors along one dimension, so every other size must agree:
# here two feature blocks of 3 and 4 columns joined along the rows (``dim=0``, the
# default). Tensors with different numbers of dimensions give "Tensors must have same
# number of dimensions".
import torch

torch.manual_seed(0)
image_features, text_features = torch.randn(8, 3), torch.randn(8, 4)
try:
    torch.cat([image_features, text_features])
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")
try:
    torch.cat([image_features, text_features.unsqueeze(-1)], dim=1)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: join along the dimension whose sizes differ, here the columns (``dim=1``); to
# add rows, the column counts must agree.
import torch

torch.manual_seed(0)
image_features, text_features = torch.randn(8, 3), torch.randn(8, 4)
print("dim=1:", tuple(torch.cat([image_features, text_features], dim=1).shape))
print("dim=0:", tuple(torch.cat([image_features, torch.randn(2, 3)]).shape))

# %%
# .. _errors-expand-size:
#
# The expanded size of the tensor (…) must match the existing size (…) at non-singleton dimension …
# -------------------------------------------------------------------------------------------------
# ``expand`` (and ``expand_as``, and assigning into a slice) can only repeat a dimension
# of size 1, and a new dimension goes on the left; a vector of 2 values cannot become 2
# rows of 3, because its 2 lines up with the 3.
import torch

per_row = torch.tensor([10.0, 20.0])  # one value for each of 2 rows
try:
    per_row.expand(2, 3)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: give the values the dimension they belong to, here a column (``unsqueeze(1)``,
# shape ``(2, 1)``), then expand the 1; ``expand`` makes a view, and ``repeat``
# a copy.
import torch

per_row = torch.tensor([10.0, 20.0])
print(per_row.unsqueeze(1).expand(2, 3))

# %%
# .. _errors-numpy-object:
#
# can\'t convert np.ndarray of type numpy.object\_. The only supported types are: …
# ---------------------------------------------------------------------------------
# NumPy keeps rows of different lengths as an array of Python objects (``dtype=object``),
# which no tensor can hold: here token lists of 2 and 3 ids, as they come from a
# tokenizer. A list of such rows passed to ``torch.tensor`` fails with "expected
# sequence of length … at dim 1 (got …)" for the same reason.
import numpy as np
import torch

rows = np.array([np.array([5, 7]), np.array([3, 9, 4])], dtype=object)
try:
    torch.from_numpy(rows)
except TypeError as err:
    print(f"{type(err).__name__}: {err}")
try:
    torch.tensor([[5, 7], [3, 9, 4]])
except ValueError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: make one tensor per row and pad them to one length (``pad_sequence``, with a
# padding id your model ignores), or keep them as a list of tensors.
import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence

rows = np.array([np.array([5, 7]), np.array([3, 9, 4])], dtype=object)
batch = pad_sequence([torch.from_numpy(r.astype(np.int64)) for r in rows], batch_first=True)
print(batch)

# %%
# .. _errors-inplace-broadcast:
#
# output with shape […] doesn\'t match the broadcast shape […]
# ------------------------------------------------------------
# An in-place operation (``+=``, ``add_``, ``mul_``) writes its result into the tensor on
# its left, so that tensor must already have the result's shape: broadcasting can grow the
# other operand, never the one written to. Under ``torch.func.vmap`` the same happens to
# a tensor the function creates itself (``torch.zeros(3)``): it is one tensor, not one per
# sample, so writing a per-sample value into it fails, with this message for ``add_`` and
# with "vmap: inplace arithmetic(self, \*extra_args) is not possible" for ``mul_``.
import torch
from torch.func import vmap

total = torch.zeros(3)
try:
    total += torch.ones(4, 3)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")


def add_into_new(row):
    out = torch.zeros(3)
    out += row
    return out


def scale_new(row):
    out = torch.ones(3)
    out.mul_(row)
    return out


for fn in (add_into_new, scale_new):
    try:
        vmap(fn)(torch.ones(4, 3))
    except RuntimeError as err:
        print(f"{type(err).__name__}: {str(err).split('. ')[0]}")

# %%
# Fix: write the result to a new tensor (``total = total + x``), or reduce the bigger
# operand first when a sum was meant (``x.sum(0)``); under ``vmap``, create the tensor
# from the input (``row.new_zeros(3)``, ``torch.zeros_like(row)``) so that it is batched
# too, or stay out of place.
import torch
from torch.func import vmap

total = torch.zeros(3)
print("out of place:", (total + torch.ones(4, 3)).shape)
total += torch.ones(4, 3).sum(0)  # reduce first when a sum was meant
print("reduced first:", total)


def add_into_new(row):
    out = row.new_zeros(3)  # batched like row
    out += row
    return out


print("vmap with new_zeros:", vmap(add_into_new)(torch.ones(4, 3)).shape)
print("vmap out of place:  ", vmap(lambda row: torch.ones(3) * row)(torch.ones(4, 3)).shape)

# %%
# .. _errors-not-implemented-dtype:
#
# \"…\" not implemented for \'Half\'
# --------------------------------------
# The operation has no kernel for this dtype on this device; the quoted name is the
# kernel, and the dtype is the one it lacks (``Half``, ``BFloat16``, ``Long``, ``Int``,
# ``Bool``). Common cases: drawing from a continuous distribution into an integer
# tensor, ``softmax`` of integers, and on the CPU the linear algebra of ``float16`` and
# ``bfloat16`` (their FFTs fail too, with "Unsupported dtype Half" and the like). Which
# operations lack which dtypes changes between releases: the matrix product of
# ``float16`` tensors on the CPU, the "addmm_impl_cpu\_" of older messages, runs in this
# build, as the last line shows.
import torch

attempts = {
    "torch.randn(3, dtype=torch.long)": lambda: torch.randn(3, dtype=torch.long),
    "torch.arange(3).softmax(0)": lambda: torch.arange(3).softmax(0),
    "torch.linalg.cholesky(half)": lambda: torch.linalg.cholesky(torch.eye(3).half()),
}
for code, attempt in attempts.items():
    try:
        attempt()
    except RuntimeError as err:  # NotImplementedError (a RuntimeError) in newer releases
        print(f"{code}\n    {type(err).__name__}: {err}")
half = torch.ones(2, 2, dtype=torch.half)
print("float16 matmul on the CPU here gives", (half @ half).dtype)

# %%
# Fix: give the operation a dtype it has a kernel for, usually ``float32``, and convert
# the result back if the rest of the program wants the old dtype; for random integers
# ask for them directly (``torch.randint``).
import torch

print("randint:  ", torch.randint(0, 10, (3,)).dtype)
print("softmax:  ", torch.arange(3).float().softmax(0))
a = torch.eye(3).half() * 4
factor = torch.linalg.cholesky(a.float()).to(a.dtype)
print("cholesky: ", factor.dtype, factor.diagonal().tolist())

# %%
# .. _errors-mean-integer:
#
# mean(): could not infer output dtype …
# ---------------------------------------
# The mean of integers or booleans is usually not one of them, so ``mean`` refuses
# rather than round; ``std`` and ``var`` refuse the same way with their own message. The
# common case is an accuracy: a comparison gives a ``bool`` tensor. ``sum`` works on any
# dtype, so the error first shows up at the mean.
import torch

pred = torch.tensor([0, 2, 1, 1])
target = torch.tensor([0, 1, 1, 1])
for code, attempt in {
    "(pred == target).mean()": lambda: (pred == target).mean(),
    "target.std()": lambda: target.std(),
}.items():
    try:
        attempt()
    except RuntimeError as err:
        print(f"{code}\n    {type(err).__name__}: {err}")
print("(pred == target).sum():", (pred == target).sum())

# %%
# Fix: convert to a floating dtype first, or let ``mean`` do it with ``dtype=``.
import torch

pred = torch.tensor([0, 2, 1, 1])
target = torch.tensor([0, 1, 1, 1])
print("accuracy:", (pred == target).float().mean().item())
print("mean(dtype=torch.float32):", target.mean(dtype=torch.float32))
print("std:", target.float().std())
