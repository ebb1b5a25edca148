r"""
Padding, upsampling and pixel-shuffle layers reference
======================================================

The layers that pad, resize and reshuffle a tensor without learning anything,
on inputs small enough to read every value off the output.

Summary
-------

=====================================================  ==================================================
You want                                               Call
=====================================================  ==================================================
to add zeros at both ends of a sequence                :entry:`nn.ZeroPad1d <api-nn-zeropad1d>`
to add a zero border around an image                   :entry:`nn.ZeroPad2d <api-nn-zeropad2d>`
to pad a sequence with a chosen value                  :entry:`nn.ConstantPad1d <api-nn-constantpad1d>`
to pad an image with a chosen value                    :entry:`nn.ConstantPad2d <api-nn-constantpad2d>`
to pad a volume with a chosen value                    :entry:`nn.ConstantPad3d <api-nn-constantpad3d>`
to mirror a sequence at its ends                       :entry:`nn.ReflectionPad1d <api-nn-reflectionpad1d>`
to mirror an image at its borders                      :entry:`nn.ReflectionPad2d <api-nn-reflectionpad2d>`
to mirror a volume at its faces                        :entry:`nn.ReflectionPad3d <api-nn-reflectionpad3d>`
to repeat the end values of a sequence                 :entry:`nn.ReplicationPad1d <api-nn-replicationpad1d>`
to repeat the border pixels of an image                :entry:`nn.ReplicationPad2d <api-nn-replicationpad2d>`
to repeat the faces of a volume                        :entry:`nn.ReplicationPad3d <api-nn-replicationpad3d>`
to wrap a periodic sequence around                     :entry:`nn.CircularPad1d <api-nn-circularpad1d>`
to wrap an image like a torus                          :entry:`nn.CircularPad2d <api-nn-circularpad2d>`
to pad or crop any dims, last dim first, any mode      :entry:`F.pad <api-f-pad-modes>`
to resize inside an ``nn.Sequential``                  :entry:`nn.Upsample <api-nn-upsample>`
to old name: use ``nn.Upsample(mode="nearest")``       :entry:`nn.UpsamplingNearest2d <api-nn-upsamplingnearest2d>`
to old name: use bilinear with ``align_corners=True``  :entry:`nn.UpsamplingBilinear2d <api-nn-upsamplingbilinear2d>`
to resize by size or factor, bicubic, antialiased      :entry:`F.interpolate <api-f-interpolate-modes>`
to sample a volume at points, bicubic                  :entry:`F.grid_sample(vol, grid, mode="bicubic") <pt2-whats-new-2-15-grid-sample-bicubic>`
to move channels into a larger image                   :entry:`nn.PixelShuffle <api-nn-pixelshuffle>`
to move image blocks back into channels                :entry:`nn.PixelUnshuffle <api-nn-pixelunshuffle>`
to interleave channel groups                           :entry:`nn.ChannelShuffle <api-nn-channelshuffle>`
=====================================================  ==================================================
"""

# %%
# .. _api-nn-zeropad1d:
#
# torch.nn.ZeroPad1d
# ------------------
# Adds zeros at both ends of the last dimension; an int pads both sides by the
# same amount, a pair ``(left, right)`` pads them separately.
import torch
from torch import nn

seq = torch.arange(1.0, 5.0).reshape(1, 1, 4)
print(nn.ZeroPad1d(2)(seq))
print(nn.ZeroPad1d((1, 3))(seq))

# %%
# .. _api-nn-zeropad2d:
#
# torch.nn.ZeroPad2d
# ------------------
# Zero-pads the last two dimensions of an image batch; the 4-tuple is
# ``(left, right, top, bottom)``.
import torch
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
nn.ZeroPad2d((1, 0, 0, 1))(img)

# %%
# .. _api-nn-constantpad1d:
#
# torch.nn.ConstantPad1d
# ----------------------
# Like ``ZeroPad1d`` but fills with any ``value``, for example a sentinel that
# a later mask or ``min`` can recognise.
import torch
from torch import nn

seq = torch.arange(1.0, 5.0).reshape(1, 1, 4)
nn.ConstantPad1d((2, 1), value=-1.0)(seq)

# %%
# .. _api-nn-constantpad2d:
#
# torch.nn.ConstantPad2d
# ----------------------
# Fills a border around the last two dimensions with ``value``; here one
# column on each side and nothing above or below.
import torch
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
nn.ConstantPad2d((1, 1, 0, 0), value=9.0)(img)

# %%
# .. _api-nn-constantpad3d:
#
# torch.nn.ConstantPad3d
# ----------------------
# Pads a volume (depth, height, width); the 6-tuple is
# ``(left, right, top, bottom, front, back)``. Below, a 2x2x2 cube gains one
# slice of 9s in front.
import torch
from torch import nn

cube = torch.arange(1.0, 9.0).reshape(1, 1, 2, 2, 2)
padded = nn.ConstantPad3d((0, 0, 0, 0, 1, 0), value=9.0)(cube)
print("shape:", tuple(padded.shape))
print(padded[0, 0, 0])  # the new front slice
print(padded[0, 0, 1])  # the old first slice

# %%
# .. _api-nn-reflectionpad1d:
#
# torch.nn.ReflectionPad1d
# ------------------------
# Mirrors the signal at its edges without repeating the edge value itself,
# so each padding width must be smaller than the input length.
import torch
from torch import nn

seq = torch.arange(1.0, 5.0).reshape(1, 1, 4)
print(nn.ReflectionPad1d(2)(seq))
try:
    nn.ReflectionPad1d(4)(seq)
except RuntimeError as err:
    print("pad 4 on length 4 ->", type(err).__name__)

# %%
# .. _api-nn-reflectionpad2d:
#
# torch.nn.ReflectionPad2d
# ------------------------
# Mirrors an image across each border, a common choice before convolutions in
# style transfer and super-resolution to avoid dark frames.
import torch
from torch import nn

img = torch.arange(1.0, 10.0).reshape(1, 1, 3, 3)
nn.ReflectionPad2d(1)(img)

# %%
# .. _api-nn-reflectionpad3d:
#
# torch.nn.ReflectionPad3d
# ------------------------
# Mirrors a volume along depth, height and width; following one line through
# the depth axis shows the mirroring.
import torch
from torch import nn

cube = torch.arange(1.0, 28.0).reshape(1, 1, 3, 3, 3)
padded = nn.ReflectionPad3d(1)(cube)
print("shape:", tuple(padded.shape))
print("depth line at (h=1, w=1):", padded[0, 0, :, 1, 1])

# %%
# .. _api-nn-replicationpad1d:
#
# torch.nn.ReplicationPad1d
# -------------------------
# Repeats the edge value outward, so the padding may be wider than the input.
import torch
from torch import nn

seq = torch.arange(1.0, 5.0).reshape(1, 1, 4)
nn.ReplicationPad1d((3, 1))(seq)

# %%
# .. _api-nn-replicationpad2d:
#
# torch.nn.ReplicationPad2d
# -------------------------
# Copies the outermost rows and columns of an image outward (corners take
# the corner pixel).
import torch
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
nn.ReplicationPad2d(1)(img)

# %%
# .. _api-nn-replicationpad3d:
#
# torch.nn.ReplicationPad3d
# -------------------------
# The same edge copying for volumes; two extra slices at the back both repeat
# the last slice.
import torch
from torch import nn

cube = torch.arange(1.0, 9.0).reshape(1, 1, 2, 2, 2)
padded = nn.ReplicationPad3d((0, 0, 0, 0, 0, 2))(cube)
print("shape:", tuple(padded.shape))
print("depth line at (h=0, w=0):", padded[0, 0, :, 0, 0])

# %%
# .. _api-nn-circularpad1d:
#
# torch.nn.CircularPad1d
# ----------------------
# Wraps around: the left padding comes from the end of the signal and the
# right padding from its start, as for periodic data. ``CircularPad2d`` and
# ``CircularPad3d`` do the same in more dimensions.
import torch
from torch import nn

seq = torch.arange(1.0, 5.0).reshape(1, 1, 4)
nn.CircularPad1d((2, 1))(seq)

# %%
# .. _api-nn-circularpad2d:
#
# torch.nn.CircularPad2d
# ----------------------
# Wraps an image like a torus: the row added on top is the bottom row.
import torch
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
nn.CircularPad2d((0, 0, 1, 0))(img)

# %%
# .. _api-f-pad-modes:
#
# torch.nn.functional.pad
# -----------------------
# One function for every padding layer. The ``pad`` tuple is read in pairs
# starting from the LAST dimension: ``(last_left, last_right, prev_left,
# prev_right, ...)``. ``mode`` is ``"constant"`` (default, with ``value``),
# ``"reflect"``, ``"replicate"`` or ``"circular"``; negative amounts crop.
import torch
import torch.nn.functional as F

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
print("(1, 0, 0, 2): 1 column on the left, 2 rows at the bottom")
print(F.pad(img, (1, 0, 0, 2)))

seq = torch.arange(1.0, 5.0).reshape(1, 1, 4)
for mode in ["constant", "reflect", "replicate", "circular"]:
    print(f"{mode:>9}:", F.pad(seq, (2, 2), mode=mode).flatten().tolist())
print(" negative:", F.pad(seq, (-1, 1), value=7.0).flatten().tolist())

# %%
# .. _api-nn-upsample:
#
# torch.nn.Upsample
# -----------------
# A module wrapper around ``F.interpolate``. With ``mode="bilinear"``,
# ``align_corners=True`` lines up the corner pixels of input and output and
# spaces the rest evenly between them, while the default ``False`` lines up
# pixel areas instead; the first row of each result shows the difference.
import torch
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
nearest = nn.Upsample(scale_factor=2, mode="nearest")(img)
print("nearest:")
print(nearest[0, 0])
for corners in (False, True):
    up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=corners)(img)
    print(f"bilinear, align_corners={corners}: first row", up[0, 0, 0].round(decimals=4))

# %%
# .. _api-nn-upsamplingnearest2d:
#
# torch.nn.UpsamplingNearest2d
# ----------------------------
# An older spelling of ``nn.Upsample(mode="nearest")``. Its documentation
# calls it deprecated in favour of ``F.interpolate``, yet it runs without
# any warning (the check below counts them); prefer ``nn.Upsample`` in new code.
import warnings

import torch
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = nn.UpsamplingNearest2d(scale_factor=2)(img)
new = nn.Upsample(scale_factor=2, mode="nearest")(img)
print("warnings raised:", len(caught), "| same as nn.Upsample:", torch.equal(old, new))

# %%
# .. _api-nn-upsamplingbilinear2d:
#
# torch.nn.UpsamplingBilinear2d
# -----------------------------
# Bilinear upsampling fixed to ``align_corners=True``, documented as deprecated
# but silent (the block counts its warnings). Its functional cousins ``F.upsample`` and
# ``F.upsample_bilinear`` do warn; use ``F.interpolate`` or ``nn.Upsample``
# with ``align_corners=True`` to get the same numbers.
import warnings

import torch
import torch.nn.functional as F
from torch import nn

img = torch.arange(1.0, 5.0).reshape(1, 1, 2, 2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = nn.UpsamplingBilinear2d(scale_factor=2)(img)
    print("module warnings:", len(caught))
    F.upsample(img, scale_factor=2, mode="bilinear", align_corners=True)
    F.upsample_bilinear(img, scale_factor=2)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
new = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=True)
print("same as interpolate(align_corners=True):", torch.equal(old, new))

# %%
# .. _api-f-interpolate-modes:
#
# torch.nn.functional.interpolate
# -------------------------------
# Resizes by a target ``size`` or by a ``scale_factor`` (the output length is
# rounded down). ``mode="bicubic"`` is smoother than bilinear but can overshoot
# the input range, and ``antialias=True`` (bilinear and bicubic) averages over
# the whole footprint when shrinking, so detail between sample points is not
# simply lost.
import torch
import torch.nn.functional as F

seq = torch.arange(1.0, 6.0).reshape(1, 1, 5)
print("size=3:          ", tuple(F.interpolate(seq, size=3).shape))
print("scale_factor=1.5:", tuple(F.interpolate(seq, scale_factor=1.5).shape))

step = torch.tensor([0.0, 0.0, 10.0, 10.0]).reshape(1, 1, 1, 4)
print("bilinear:", F.interpolate(step, size=(1, 8), mode="bilinear")[0, 0, 0].round(decimals=2))
print("bicubic: ", F.interpolate(step, size=(1, 8), mode="bicubic")[0, 0, 0].round(decimals=2))

dot = torch.zeros(1, 1, 8, 8)
dot[0, 0, 0, 0] = 1.0  # one bright pixel that no bilinear sample point touches
for aa in (False, True):
    small = F.interpolate(dot, size=(2, 2), mode="bilinear", antialias=aa)
    print(f"8x8 -> 2x2, antialias={aa}: top-left = {small[0, 0, 0, 0].item():.4f}")

# %%
# .. _api-nn-pixelshuffle:
#
# torch.nn.PixelShuffle
# ---------------------
# Turns ``(N, C*r*r, H, W)`` into ``(N, C, H*r, W*r)`` by spreading each group
# of ``r*r`` channels over an ``r`` by ``r`` block, the usual last step of
# sub-pixel super-resolution networks.
import torch
from torch import nn

channels = torch.arange(1.0, 5.0).reshape(1, 4, 1, 1)
nn.PixelShuffle(upscale_factor=2)(channels)

# %%
# .. _api-nn-pixelunshuffle:
#
# torch.nn.PixelUnshuffle
# -----------------------
# The exact inverse: folds each ``r`` by ``r`` block back into channels, so a
# round trip returns the original tensor bit for bit.
import torch
from torch import nn

torch.manual_seed(0)
feats = torch.randn(2, 8, 3, 3)
up = nn.PixelShuffle(2)(feats)
back = nn.PixelUnshuffle(2)(up)
print("shuffled:", tuple(up.shape), "| unshuffled:", tuple(back.shape))
print("round trip exact:", torch.equal(back, feats))

# %%
# .. _api-nn-channelshuffle:
#
# torch.nn.ChannelShuffle
# -----------------------
# Splits the channels into ``groups``, then interleaves them (group 0's first
# channel, group 1's first channel, ...), as ShuffleNet does between grouped
# convolutions so information crosses groups.
import torch
from torch import nn

labels = torch.arange(8.0).reshape(1, 8, 1, 1)
nn.ChannelShuffle(groups=2)(labels).flatten()
