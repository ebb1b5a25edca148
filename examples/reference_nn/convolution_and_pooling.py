r"""
Convolution and pooling layers reference
========================================

The sliding-window layers of ``torch.nn`` on tiny inputs, printing the shapes
that people come to look up.

Summary
-------

==================================================================  ==================================================
You want                                                            Call
==================================================================  ==================================================
to filter sequences ``(N, C, L)``                                   :entry:`nn.Conv1d <api-nn-conv1d>`
to filter images; ``stride``, ``"same"``, ``dilation``, ``groups``  :entry:`nn.Conv2d <api-nn-conv2d>`
to filter volumes and clips ``(N, C, D, H, W)``                     :entry:`nn.Conv3d <api-nn-conv3d>`
to upsample sequences with learned filters                          :entry:`nn.ConvTranspose1d <api-nn-convtranspose1d>`
to upsample images; ``output_size=`` picks the exact size           :entry:`nn.ConvTranspose2d <api-nn-convtranspose2d>`
to upsample volumes                                                 :entry:`nn.ConvTranspose3d <api-nn-convtranspose3d>`
to keep the maximum of each window along a sequence                 :entry:`nn.MaxPool1d <api-nn-maxpool1d>`
to max-pool images, optionally with ``return_indices``              :entry:`nn.MaxPool2d <api-nn-maxpool2d>`
to max-pool volumes; ``ceil_mode`` keeps partial windows            :entry:`nn.MaxPool3d <api-nn-maxpool3d>`
to put pooled maxima back, zeros elsewhere                          :entry:`nn.MaxUnpool1d <api-nn-maxunpool1d>`
to unpool images; ``output_size=`` for odd sides                    :entry:`nn.MaxUnpool2d <api-nn-maxunpool2d>`
to unpool volumes                                                   :entry:`nn.MaxUnpool3d <api-nn-maxunpool3d>`
to average each window along a sequence                             :entry:`nn.AvgPool1d <api-nn-avgpool1d>`
to average image windows; ``count_include_pad`` for borders         :entry:`nn.AvgPool2d <api-nn-avgpool2d>`
to average volume windows; ``divisor_override``                     :entry:`nn.AvgPool3d <api-nn-avgpool3d>`
to average down to a fixed length                                   :entry:`nn.AdaptiveAvgPool1d <api-nn-adaptiveavgpool1d>`
to average down to a fixed size (global pooling with 1)             :entry:`nn.AdaptiveAvgPool2d <api-nn-adaptiveavgpool2d>`
to max-pool down to a fixed length                                  :entry:`nn.AdaptiveMaxPool1d <api-nn-adaptivemaxpool1d>`
to max-pool down to a fixed size                                    :entry:`nn.AdaptiveMaxPool2d <api-nn-adaptivemaxpool2d>`
to max-pool a volume to a fixed grid                                :entry:`nn.AdaptiveMaxPool3d <api-nn-adaptivemaxpool3d>`
to shrink by a non-integer ratio with random windows                :entry:`nn.FractionalMaxPool2d <api-nn-fractionalmaxpool2d>`
to the same for volumes                                             :entry:`nn.FractionalMaxPool3d <api-nn-fractionalmaxpool3d>`
to take the p-norm of each window along a sequence                  :entry:`nn.LPPool1d <api-nn-lppool1d>`
to take the p-norm of each image window                             :entry:`nn.LPPool2d <api-nn-lppool2d>`
to turn sliding patches into columns                                :entry:`nn.Unfold <api-nn-unfold>`
to sum columns back into an image (overlaps add)                    :entry:`nn.Fold <api-nn-fold>`
to predict a layer's output length                                  :entry:`(L + 2p - d(k - 1) - 1) // s + 1 <api-nn-conv-output-size>`
images in channels-last memory (NHWC)                               :entry:`x.to(memory_format=torch.channels_last) <api-channels-last>`
the model's weights too                                             :entry:`model.to(memory_format=torch.channels_last) <api-channels-last>`
==================================================================  ==================================================
"""

# %%
# .. _api-nn-conv1d:
#
# torch.nn.Conv1d
# ---------------
# Slides ``out_channels`` learned filters of width ``kernel_size`` along the
# last axis of an ``(N, C_in, L)`` tensor, e.g. a batch of audio or sensor
# signals; the weight is ``(C_out, C_in, kernel_size)``.
import torch
from torch import nn

torch.manual_seed(0)
signal = torch.randn(2, 3, 20)  # batch 2, 3 channels, 20 time steps
conv = nn.Conv1d(in_channels=3, out_channels=5, kernel_size=4, stride=2)
print("output:", tuple(conv(signal).shape))
print("weight:", tuple(conv.weight.shape), "| bias:", tuple(conv.bias.shape))

# %%
# .. _api-nn-conv2d:
#
# torch.nn.Conv2d
# ---------------
# The image convolution on ``(N, C_in, H, W)``: ``stride`` skips positions,
# ``padding="same"`` keeps H and W (stride 1 only; a ``ValueError`` otherwise),
# ``dilation`` spreads the kernel taps apart, and ``groups`` splits the channels
# into independent groups, so each filter sees only ``C_in / groups`` channels.
import torch
from torch import nn

torch.manual_seed(0)
image = torch.randn(1, 4, 9, 9)
print("plain 3x3:        ", tuple(nn.Conv2d(4, 8, 3)(image).shape))
print("stride=2:         ", tuple(nn.Conv2d(4, 8, 3, stride=2)(image).shape))
print("padding='same':   ", tuple(nn.Conv2d(4, 8, 3, padding="same")(image).shape))
print("dilation=2:       ", tuple(nn.Conv2d(4, 8, 3, dilation=2)(image).shape))
grouped = nn.Conv2d(4, 8, 3, groups=2)
depthwise = nn.Conv2d(4, 4, 3, groups=4)
print("groups=2 weight:  ", tuple(grouped.weight.shape))
print("groups=4 weight:  ", tuple(depthwise.weight.shape), "(depthwise)")
try:
    nn.Conv2d(4, 8, 3, stride=2, padding="same")
except ValueError as err:
    print("stride=2 + 'same':", err)

# %%
# .. _api-nn-conv3d:
#
# torch.nn.Conv3d
# ---------------
# The same operation over volumes or video clips shaped ``(N, C, D, H, W)``;
# ``kernel_size``, ``stride`` and ``padding`` take one int or a triple.
import torch
from torch import nn

torch.manual_seed(0)
clip = torch.randn(1, 3, 6, 16, 16)  # 6 frames of 16x16 RGB
conv = nn.Conv3d(3, 8, kernel_size=(3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2))
print("output:", tuple(conv(clip).shape))
print("weight:", tuple(conv.weight.shape))

# %%
# .. _api-nn-convtranspose1d:
#
# torch.nn.ConvTranspose1d
# ------------------------
# The gradient of ``Conv1d`` used as a layer: it spreads each input step over
# ``kernel_size`` outputs and, with ``stride=2``, roughly doubles the length,
# which makes it a learned upsampler. Its weight is ``(C_in, C_out, k)``, the
# reverse of ``Conv1d``.
import torch
from torch import nn

torch.manual_seed(0)
coarse = torch.randn(1, 8, 10)
up = nn.ConvTranspose1d(8, 4, kernel_size=4, stride=2, padding=1)
print("output:", tuple(up(coarse).shape))
print("weight:", tuple(up.weight.shape))

# %%
# .. _api-nn-convtranspose2d:
#
# torch.nn.ConvTranspose2d
# ------------------------
# With ``stride`` above 1 several input sizes map to the same strided-conv
# output, so the inverse is ambiguous: pass ``output_size=`` in the call to pick
# one (``output_padding`` does the same at construction). A size outside the
# valid range raises a ``ValueError`` that lists the range.
import torch
from torch import nn

torch.manual_seed(0)
down = nn.Conv2d(2, 2, 3, stride=2, padding=1)
up = nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)
for side in (7, 8):
    small = down(torch.randn(1, 2, side, side))
    print(f"{side}x{side} -> conv ->", tuple(small.shape[-2:]), end="  ")
    print("-> transposed conv ->", tuple(up(small).shape[-2:]), end="  ")
    print("with output_size ->", tuple(up(small, output_size=(side, side)).shape[-2:]))
try:
    up(small, output_size=(9, 9))
except ValueError as err:
    print(err)

# %%
# .. _api-nn-convtranspose3d:
#
# torch.nn.ConvTranspose3d
# ------------------------
# The volumetric version, as in the decoder of a 3-D U-Net; here
# ``kernel_size=2, stride=2`` doubles every spatial side exactly.
import torch
from torch import nn

torch.manual_seed(0)
volume = torch.randn(1, 16, 4, 4, 4)
up = nn.ConvTranspose3d(16, 8, kernel_size=2, stride=2)
print("output:", tuple(up(volume).shape))

# %%
# .. _api-nn-maxpool1d:
#
# torch.nn.MaxPool1d
# ------------------
# Keeps the largest value of each window along the last axis; ``stride``
# defaults to ``kernel_size``, so windows do not overlap unless you say so.
import torch
from torch import nn

row = torch.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0, 9.0]]])
print("kernel 2:          ", nn.MaxPool1d(2)(row))
print("kernel 3, stride 1:", nn.MaxPool1d(3, stride=1)(row))

# %%
# .. _api-nn-maxpool2d:
#
# torch.nn.MaxPool2d
# ------------------
# Two-dimensional max pooling; ``return_indices=True`` also returns where each
# maximum came from, as flat indices into each ``H * W`` plane, which is what
# ``MaxUnpool2d`` needs.
import torch
from torch import nn

grid = torch.tensor([[[[1.0, 8.0, 2.0, 3.0], [4.0, 0.0, 9.0, 1.0], [7.0, 2.0, 5.0, 6.0]]]])
pooled, where = nn.MaxPool2d(2, return_indices=True)(grid)
print("values: ", pooled)
print("indices:", where)

# %%
# .. _api-nn-maxpool3d:
#
# torch.nn.MaxPool3d
# ------------------
# Max over ``(D, H, W)`` boxes; ``ceil_mode=True`` keeps a last, partial
# window instead of dropping the leftover rows.
import torch
from torch import nn

torch.manual_seed(0)
volume = torch.randn(1, 2, 5, 5, 5)
print("floor (default):", tuple(nn.MaxPool3d(2)(volume).shape))
print("ceil_mode=True: ", tuple(nn.MaxPool3d(2, ceil_mode=True)(volume).shape))

# %%
# .. _api-nn-maxunpool1d:
#
# torch.nn.MaxUnpool1d
# --------------------
# A partial inverse of max pooling: it writes each pooled value back at its
# recorded index and fills every other position with zero.
import torch
from torch import nn

row = torch.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0]]])
pooled, where = nn.MaxPool1d(2, return_indices=True)(row)
nn.MaxUnpool1d(2)(pooled, where)

# %%
# .. _api-nn-maxunpool2d:
#
# torch.nn.MaxUnpool2d
# --------------------
# When the pooled input had an odd side, the default output is one row and
# column short, so the recorded flat indices may not fit (a ``RuntimeError``
# here); pass ``output_size=`` to restore the original shape.
import torch
from torch import nn

torch.manual_seed(0)
image = torch.randn(1, 1, 5, 5)
pooled, where = nn.MaxPool2d(2, return_indices=True)(image)
unpool = nn.MaxUnpool2d(2)
print("pooled:", tuple(pooled.shape), "| largest index:", where.max().item())
try:
    unpool(pooled, where)
except RuntimeError as err:
    print("default size:", err)
restored = unpool(pooled, where, output_size=image.shape)
print("output_size=image.shape:", tuple(restored.shape))
print("non-zeros are the maxima:", torch.equal(restored[restored != 0], image[restored != 0]))

# %%
# .. _api-nn-maxunpool3d:
#
# torch.nn.MaxUnpool3d
# --------------------
# The same for volumes, paired with ``MaxPool3d(..., return_indices=True)``.
import torch
from torch import nn

torch.manual_seed(0)
volume = torch.randn(1, 1, 4, 4, 4)
pooled, where = nn.MaxPool3d(2, return_indices=True)(volume)
restored = nn.MaxUnpool3d(2)(pooled, where)
print(tuple(pooled.shape), "->", tuple(restored.shape))
print("non-zero entries:", int((restored != 0).sum()), "of", restored.numel())

# %%
# .. _api-nn-avgpool1d:
#
# torch.nn.AvgPool1d
# ------------------
# Replaces each window by its mean; like max pooling, ``stride`` defaults to the
# window size.
import torch
from torch import nn

row = torch.tensor([[[1.0, 3.0, 2.0, 6.0, 4.0, 4.0]]])
nn.AvgPool1d(2)(row)

# %%
# .. _api-nn-avgpool2d:
#
# torch.nn.AvgPool2d
# ------------------
# With ``padding``, border windows contain zeros; by default
# (``count_include_pad=True``) those zeros count in the divisor and drag the
# mean down, while ``count_include_pad=False`` averages real pixels only.
import torch
from torch import nn

ones = torch.ones(1, 1, 3, 3)
print("count_include_pad=True:", nn.AvgPool2d(2, padding=1)(ones), sep="\n")
print(
    "count_include_pad=False:", nn.AvgPool2d(2, padding=1, count_include_pad=False)(ones), sep="\n"
)

# %%
# .. _api-nn-avgpool3d:
#
# torch.nn.AvgPool3d
# ------------------
# Box averaging over ``(D, H, W)``; ``divisor_override`` replaces the window
# size in the division (a value of 1 turns it into a box sum).
import torch
from torch import nn

cube = torch.ones(1, 1, 4, 4, 4)
print("mean:", nn.AvgPool3d(2)(cube).flatten()[:4])
print("sum: ", nn.AvgPool3d(2, divisor_override=1)(cube).flatten()[:4])

# %%
# .. _api-nn-adaptiveavgpool1d:
#
# torch.nn.AdaptiveAvgPool1d
# --------------------------
# You give the output length and the layer chooses the windows; when the input
# length is not a multiple of it, neighbouring windows overlap (here bins
# ``[0:3]``, ``[2:5]``, ``[4:7]`` of a length-7 row).
import torch
from torch import nn

row = torch.arange(7.0).view(1, 1, 7)
nn.AdaptiveAvgPool1d(3)(row)

# %%
# .. _api-nn-adaptiveavgpool2d:
#
# torch.nn.AdaptiveAvgPool2d
# --------------------------
# Produces a fixed ``output_size`` whatever the input resolution, which is why
# classifiers end with ``AdaptiveAvgPool2d(1)`` (global average pooling);
# ``None`` in the size keeps that axis unchanged.
import torch
from torch import nn

torch.manual_seed(0)
for side in (7, 13):
    features = torch.randn(1, 32, side, side)
    print(f"{side}x{side} ->", tuple(nn.AdaptiveAvgPool2d(1)(features).shape), end="   ")
    print("(None, 1) ->", tuple(nn.AdaptiveAvgPool2d((None, 1))(features).shape))

# %%
# .. _api-nn-adaptivemaxpool1d:
#
# torch.nn.AdaptiveMaxPool1d
# --------------------------
# The max counterpart: a fixed number of outputs, each the maximum of its
# computed bin.
import torch
from torch import nn

row = torch.tensor([[[2.0, 9.0, 1.0, 4.0, 7.0, 3.0, 8.0, 0.0]]])
nn.AdaptiveMaxPool1d(3)(row)

# %%
# .. _api-nn-adaptivemaxpool2d:
#
# torch.nn.AdaptiveMaxPool2d
# --------------------------
# Fixed-size max pooling for images; it too accepts ``return_indices=True``.
import torch
from torch import nn

grid = torch.arange(16.0).view(1, 1, 4, 4)
values, where = nn.AdaptiveMaxPool2d(2, return_indices=True)(grid)
print("values: ", values.flatten().tolist())
print("indices:", where.flatten().tolist())

# %%
# .. _api-nn-adaptivemaxpool3d:
#
# torch.nn.AdaptiveMaxPool3d
# --------------------------
# Any ``(D, H, W)`` volume to a fixed ``(d, h, w)`` grid of maxima.
import torch
from torch import nn

torch.manual_seed(0)
pool = nn.AdaptiveMaxPool3d((1, 2, 2))
for shape in [(5, 9, 9), (3, 6, 10)]:
    print(shape, "->", tuple(pool(torch.randn(1, 4, *shape)).shape))

# %%
# .. _api-nn-fractionalmaxpool2d:
#
# torch.nn.FractionalMaxPool2d
# ----------------------------
# Max pooling whose window positions are drawn at random on each call, so the
# size can shrink by a non-integer factor (``output_ratio``) or to an exact
# ``output_size``; seed first if you need repeatable output.
import torch
from torch import nn

torch.manual_seed(0)
grid = torch.arange(25.0).view(1, 1, 5, 5)
print(nn.FractionalMaxPool2d(2, output_size=3)(grid))
print(
    "ratio 0.7 on 10x10 ->",
    tuple(nn.FractionalMaxPool2d(2, output_ratio=0.7)(torch.randn(1, 1, 10, 10)).shape),
)

# %%
# .. _api-nn-fractionalmaxpool3d:
#
# torch.nn.FractionalMaxPool3d
# ----------------------------
# The volumetric version; the random windows differ from call to call.
import torch
from torch import nn

torch.manual_seed(0)
volume = torch.randn(1, 1, 9, 9, 9)
pool = nn.FractionalMaxPool3d(2, output_ratio=0.5)
first, second = pool(volume), pool(volume)
print("shape:", tuple(first.shape), "| two calls equal:", torch.equal(first, second))

# %%
# .. _api-nn-lppool1d:
#
# torch.nn.LPPool1d
# -----------------
# Power-average pooling: each window gives ``(sum x**p) ** (1/p)``, so
# ``norm_type=2`` is the Euclidean norm of the window, ``1`` is a plain sum (not
# a mean), and large ``p`` approaches max pooling.
import torch
from torch import nn

row = torch.tensor([[[3.0, 4.0, 1.0, 1.0]]])
print("p=2:", nn.LPPool1d(norm_type=2, kernel_size=2)(row))
print("p=1:", nn.LPPool1d(norm_type=1, kernel_size=2)(row))

# %%
# .. _api-nn-lppool2d:
#
# torch.nn.LPPool2d
# -----------------
# The same over 2-D windows: with ``norm_type=2`` a 2x2 window of ``1, 2, 2, 4``
# yields ``sqrt(1 + 4 + 4 + 16) = 5``.
import torch
from torch import nn

patch = torch.tensor([[[[1.0, 2.0], [2.0, 4.0]]]])
nn.LPPool2d(norm_type=2, kernel_size=2)(patch)

# %%
# .. _api-nn-unfold:
#
# torch.nn.Unfold
# ---------------
# Extracts every sliding ``kernel_size`` patch of an ``(N, C, H, W)`` batch into
# a column, giving ``(N, C * kh * kw, number_of_patches)``; a convolution is this
# followed by a matrix product with the flattened weight.
import torch
from torch import nn

torch.manual_seed(0)
image = torch.randn(1, 3, 5, 5)
columns = nn.Unfold(kernel_size=3)(image)
print("columns:", tuple(columns.shape))
conv = nn.Conv2d(3, 2, 3, bias=False)
by_hand = (conv.weight.view(2, -1) @ columns).view(1, 2, 3, 3)
print("matches Conv2d:", torch.allclose(by_hand, conv(image), atol=1e-6))

# %%
# .. _api-nn-fold:
#
# torch.nn.Fold
# -------------
# Sums patch columns back into an image of ``output_size``. Where patches
# overlap, the values add up, so ``Fold(Unfold(x))`` is ``x`` times the number
# of patches covering each pixel; with non-overlapping patches
# (``stride == kernel_size``) the round trip is exact.
import torch
from torch import nn

ones = torch.ones(1, 1, 4, 4)
overlap = nn.Fold(output_size=4, kernel_size=2)(nn.Unfold(kernel_size=2)(ones))
print("overlapping 2x2 patches, stride 1 (coverage count):", overlap, sep="\n")

image = torch.arange(16.0).view(1, 1, 4, 4)
tiles = nn.Unfold(kernel_size=2, stride=2)(image)
back = nn.Fold(output_size=4, kernel_size=2, stride=2)(tiles)
print("non-overlapping round trip exact:", torch.equal(back, image))

# %%
# .. _api-nn-conv-output-size:
#
# Output size formula
# -------------------
# Along each spatial axis, convolutions and pooling layers give
# ``floor((L + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``
# and transposed convolutions give
# ``(L - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``.
# The code computes both and compares them with real layers.
import torch
from torch import nn


def conv_out(length, kernel, stride=1, padding=0, dilation=1):
    return (length + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def transposed_out(length, kernel, stride=1, padding=0, dilation=1, output_padding=0):
    return (length - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


x = torch.zeros(1, 1, 11, 11)
settings = {"kernel": 3, "stride": 2, "padding": 1, "dilation": 2}
real = nn.Conv2d(
    1, 1, settings["kernel"], settings["stride"], settings["padding"], settings["dilation"]
)
print("Conv2d          formula:", conv_out(11, **settings), "| layer:", real(x).shape[-1])
pool = nn.MaxPool2d(3, stride=2, padding=1, dilation=2)
print("MaxPool2d       formula:", conv_out(11, **settings), "| layer:", pool(x).shape[-1])
tconv = nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1, output_padding=1, dilation=2)
print("ConvTranspose2d formula:", transposed_out(11, output_padding=1, **settings), end=" ")
print("| layer:", tconv(x).shape[-1])

# %%
# .. _api-channels-last:
#
# channels_last memory format
# ---------------------------
# ``channels_last`` keeps an ``(N, C, H, W)`` tensor's shape but stores it as
# NHWC, the order many convolution kernels (oneDNN on CPUs, cuDNN tensor cores
# on GPUs) prefer. Convert both the input and the model; a convolution then
# returns channels-last output, and ``is_contiguous`` names the format it checks.
# Whether it pays depends on the kernel and the machine: measure, as here.
import torch
from torch import nn

from cheatsheet import compare

torch.manual_seed(0)
x = torch.randn(8, 32, 56, 56)
conv = nn.Conv2d(32, 32, 3, padding=1).eval()
x_cl = x.to(memory_format=torch.channels_last)
conv_cl = nn.Conv2d(32, 32, 3, padding=1).eval()
conv_cl.load_state_dict(conv.state_dict())
conv_cl = conv_cl.to(memory_format=torch.channels_last)
print("shape", tuple(x_cl.shape), "strides NCHW", x.stride(), "-> channels_last", x_cl.stride())
with torch.no_grad():
    out = conv_cl(x_cl)
    print("output channels_last:", out.is_contiguous(memory_format=torch.channels_last))
    print("same values:", torch.allclose(out, conv(x), atol=1e-5))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: steadier on a busy machine
    try:
        table = compare(
            {"NCHW": lambda: conv(x), "channels_last": lambda: conv_cl(x_cl)},
            device="cpu",
            budget_s=1.5,
        )
    finally:
        torch.set_num_threads(threads)
print(f"On this machine, {table.verdict('channels_last')}.")
