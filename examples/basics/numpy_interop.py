r"""
NumPy interoperability
======================

CPU tensors and NumPy arrays can share memory, so a conversion can be free and
a change through one shows through the other.

Summary
-------

==============================  ==================================================
You want                        Call
==============================  ==================================================
a tensor over an array          :entry:`torch.from_numpy(arr) <basics-from-numpy>`, ``torch.as_tensor(arr)`` (no copy)
an independent tensor           :entry:`torch.tensor(arr) <basics-from-numpy>` (copy)
float32 from NumPy's float64    :entry:`torch.from_numpy(arr).float() <basics-from-numpy>`
an array over a CPU tensor      :entry:`t.numpy() <basics-to-numpy>` (no copy)
an array from a tracked tensor  :entry:`t.detach().numpy() <basics-numpy-requires-grad>`
an array from a GPU tensor      :entry:`t.detach().cpu().numpy() <basics-numpy-from-gpu>`, ``t.numpy(force=True)``
a tensor from a Python buffer   :entry:`torch.asarray(buf, dtype=torch.int32) <pt2-whats-new-2-15-behaviour>`: its default dtype changed
==============================  ==================================================
"""

# %%
# .. _basics-from-numpy:
#
# From NumPy: from_numpy, as_tensor, tensor
# -----------------------------------------
# ``from_numpy`` and ``as_tensor`` wrap the array's memory without copying and keep
# its dtype (NumPy's default ``float64`` stays ``float64``), while ``torch.tensor``
# always copies.
import numpy as np
import torch

arr = np.array([[1.0, 2.0], [3.0, 4.0]])
shared = torch.from_numpy(arr)
also_shared = torch.as_tensor(arr)
copied = torch.tensor(arr)
arr[0, 0] = 100.0
print("dtype:", shared.dtype)
print("from_numpy sees the change:", shared[0, 0].item())
print("as_tensor sees the change: ", also_shared[0, 0].item())
print("torch.tensor does not:     ", copied[0, 0].item())
print("for float32 weights:", torch.from_numpy(arr).float().dtype)

# %%
# .. _basics-to-numpy:
#
# From PyTorch to NumPy: .numpy() shares memory
# ---------------------------------------------
# ``.numpy()`` on a CPU tensor returns an array over the same memory, so an in-place
# change to the tensor shows up in the array (and the other way round).
import torch

t = torch.zeros(2, 3)
a = t.numpy()
t.add_(1)
a[1, 2] = 42.0
print(type(a).__name__, a.dtype)
print(a)
print(t)

# %%
# .. _basics-numpy-requires-grad:
#
# A tensor that requires grad: .detach().numpy()
# ----------------------------------------------
# NumPy cannot track gradients, so ``.numpy()`` refuses a tensor in the autograd
# graph and asks you to ``detach()`` it first.
import torch

w = torch.ones(3, requires_grad=True)
try:
    w.numpy()
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0]}")
print(w.detach().numpy())

# %%
# .. _basics-numpy-from-gpu:
#
# From a GPU tensor: .cpu().numpy()
# ---------------------------------
# NumPy lives in CPU memory, so a GPU tensor must be copied back first with
# ``.cpu()`` (that copy no longer shares memory), and ``.numpy(force=True)``
# does the detach and the copy in one call.
import torch

if torch.cuda.is_available():
    g = torch.arange(3.0, device="cuda", requires_grad=True)
    try:
        g.detach().numpy()
    except TypeError as err:
        print(f"{type(err).__name__}: {str(err).splitlines()[0]}")
    print(".detach().cpu().numpy():", g.detach().cpu().numpy())
    print(".numpy(force=True):     ", g.numpy(force=True))
else:
    print("skipped the GPU copy: no CUDA GPU on this machine")
    print(
        "on the CPU, numpy(force=True) still detaches:",
        torch.ones(2, requires_grad=True).numpy(force=True),
    )
