r"""
torch.nn containers and the Module API reference
================================================

How a model is assembled from containers and glue layers, and the ``nn.Module``
methods that walk, freeze and export it.

Summary
-------

=======================================================  ==================================================
You want                                                 Call
=======================================================  ==================================================
to walk every module in the tree, root included          :entry:`model.modules() <api-nn-module-modules>`
to walk the tree with dotted paths                       :entry:`model.named_modules() <api-nn-module-named-modules>`
to list the direct submodules                            :entry:`model.children() <api-nn-module-children>`
to list the direct submodules with their names           :entry:`model.named_children() <api-nn-module-named-children>`
to list trainable tensors with their names               :entry:`model.named_parameters() <api-nn-module-named-parameters>`
to keep non-trainable state; list it with ``buffers()``  :entry:`model.register_buffer(name, t) <api-nn-module-register-buffer>`
to fetch a submodule by dotted path                      :entry:`model.get_submodule("encoder.0") <api-nn-module-get-submodule>`
to run a function on every submodule (e.g. init)         :entry:`model.apply(fn) <api-nn-module-apply>`
to freeze or unfreeze a whole module                     :entry:`model.requires_grad_(False) <api-nn-module-requires-grad>`
to get every parameter and buffer by name                :entry:`model.state_dict() <api-nn-module-state-dict>`
to chain layers; index, slice, ``append``                :entry:`nn.Sequential <api-nn-sequential>`
to hold layers you loop over yourself                    :entry:`nn.ModuleList <api-nn-modulelist>`
to hold layers chosen by key                             :entry:`nn.ModuleDict <api-nn-moduledict>`
to make a tensor a trainable attribute                   :entry:`nn.Parameter <api-nn-parameter>`
to hold a variable number of parameters                  :entry:`nn.ParameterList <api-nn-parameterlist>`
to hold parameters looked up by name                     :entry:`nn.ParameterDict <api-nn-parameterdict>`
to stand in for a layer and pass input through           :entry:`nn.Identity <api-nn-identity>`
to merge dimensions, keeping the batch dimension         :entry:`nn.Flatten <api-nn-flatten>`
to split one dimension into several                      :entry:`nn.Unflatten <api-nn-unflatten>`
to apply an affine map (``bias=False``: linear only)     :entry:`nn.Linear <api-nn-linear>`
to combine two inputs with a bilinear form               :entry:`nn.Bilinear <api-nn-bilinear>`
=======================================================  ==================================================
"""

# %%
# .. _api-nn-module-modules:
#
# torch.nn.Module.modules
# -----------------------
# Yields the module itself and then every submodule below it, depth first; an
# instance reached twice (shared weights) is yielded only once.
import torch
from torch import nn

shared = nn.Linear(2, 2)
net = nn.Sequential(shared, nn.ReLU(), nn.Sequential(shared, nn.Tanh()))
[type(m).__name__ for m in net.modules()]

# %%
# .. _api-nn-module-named-modules:
#
# torch.nn.Module.named_modules
# -----------------------------
# Like ``modules()`` but pairs each module with its dotted path; the root's
# path is the empty string, and ``prefix`` prepends a name to every path.
import torch
from torch import nn

net = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 1)))
for path, module in net.named_modules():
    print(f"{path!r:8} {type(module).__name__}")

# %%
# .. _api-nn-module-children:
#
# torch.nn.Module.children
# ------------------------
# Yields only the direct submodules, one level down, which is what you iterate
# over to rebuild or truncate a model layer by layer.
import torch
from torch import nn

net = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 1)))
[type(m).__name__ for m in net.children()]

# %%
# .. _api-nn-module-named-children:
#
# torch.nn.Module.named_children
# ------------------------------
# The direct submodules with the attribute names they were assigned to, handy
# for swapping one layer by name with ``setattr``.
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.act = nn.GELU()


block = Block()
for name, child in block.named_children():
    if isinstance(child, nn.GELU):
        setattr(block, name, nn.SiLU())
dict(block.named_children())

# %%
# .. _api-nn-module-named-parameters:
#
# torch.nn.Module.named_parameters
# --------------------------------
# Yields ``(dotted_name, Parameter)`` for every trainable tensor in the tree;
# ``recurse=False`` limits it to the module's own parameters.
import torch
from torch import nn

net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1, bias=False))
for name, param in net.named_parameters():
    print(f"{name:9} {tuple(param.shape)} requires_grad={param.requires_grad}")

# %%
# .. _api-nn-module-register-buffer:
#
# torch.nn.Module.register_buffer
# -------------------------------
# Attaches a tensor that is part of the module's state (moved by ``.to()``,
# saved in ``state_dict``) but is not a parameter, such as running statistics;
# ``persistent=False`` keeps it out of ``state_dict``. ``buffers()`` and
# ``named_buffers()`` list them.
import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor([2.0, 0.5]))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, x):
        return x * self.scale


scaler = Scaler()
print("output:     ", scaler(torch.ones(2)))
print("buffers:    ", [name for name, _ in scaler.named_buffers()])
print("parameters: ", list(scaler.parameters()))
print("state_dict: ", list(scaler.state_dict()))

# %%
# .. _api-nn-module-get-submodule:
#
# torch.nn.Module.get_submodule
# -----------------------------
# Returns the submodule at a dotted path such as ``"encoder.0"`` (integer
# indices of containers included), and raises ``AttributeError`` for a path
# that does not exist.
import torch
from torch import nn

model = nn.Module()
model.encoder = nn.Sequential(nn.Linear(8, 4), nn.ReLU())
print(model.get_submodule("encoder.0"))
try:
    model.get_submodule("decoder")
except AttributeError as err:
    print("AttributeError:", err)

# %%
# .. _api-nn-module-apply:
#
# torch.nn.Module.apply
# ---------------------
# Calls ``fn(module)`` on every submodule and then on the module itself
# (children first) and returns the module, the usual way to run a custom
# weight initialisation over a whole model.
import torch
from torch import nn


def init_linear(module):
    if isinstance(module, nn.Linear):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


net = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1)).apply(init_linear)
order = []
net.apply(lambda m: order.append(type(m).__name__))
print("visit order:", order)
net[2].weight

# %%
# .. _api-nn-module-requires-grad:
#
# torch.nn.Module.requires_grad\_
# -------------------------------
# Sets ``requires_grad`` on every parameter of the module in place and returns
# the module, so ``backbone.requires_grad_(False)`` freezes a sub-network in
# one call.
import torch
from torch import nn

net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
net[0].requires_grad_(False)
trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
frozen = sum(p.numel() for p in net.parameters() if not p.requires_grad)
print(f"trainable: {trainable}, frozen: {frozen}")

# %%
# .. _api-nn-module-state-dict:
#
# torch.nn.Module.state_dict
# --------------------------
# An ordered mapping from dotted names to the tensors of every parameter and
# persistent buffer, the object you save and load with ``torch.save``; here
# only its keys and shapes.
import torch
from torch import nn

net = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
for key, value in net.state_dict().items():
    print(f"{key:24} {tuple(value.shape)}")

# %%
# .. _api-nn-sequential:
#
# torch.nn.Sequential
# -------------------
# Chains modules so each one's output feeds the next; an integer index returns
# one layer, a slice returns a new ``Sequential`` sharing the same layers, and
# ``append`` adds a layer at the end.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
net.append(nn.Softmax(dim=-1))
print(net)
print("net[0]:  ", net[0])
print("net[:2]: ", type(net[:2]).__name__, "of", len(net[:2]), "layers")
print("same layer object:", net[:2][0] is net[0])
net(torch.randn(2, 4)).sum(dim=-1)

# %%
# .. _api-nn-modulelist:
#
# torch.nn.ModuleList
# -------------------
# A list whose entries are registered as submodules, for layers you call in
# your own loop. A plain Python list in ``__init__`` is not registered: its
# parameters are missing from ``parameters()``, so the optimiser, ``.to()``
# and ``state_dict`` all ignore them, as the counts below show.
import torch
from torch import nn


class WithPlainList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(4, 4) for _ in range(3)]


class WithModuleList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


plain, registered = WithPlainList(), WithModuleList()
print("plain list  -> parameters():", len(list(plain.parameters())))
print("ModuleList  -> parameters():", len(list(registered.parameters())))
print(
    "state_dict keys, plain vs ModuleList:", len(plain.state_dict()), len(registered.state_dict())
)
print("output shape:", tuple(registered(torch.ones(2, 4)).shape))

# %%
# .. _api-nn-moduledict:
#
# torch.nn.ModuleDict
# -------------------
# A dict whose values are registered as submodules, for picking a layer by key
# at run time (per task heads, a choice of activation); keys keep their
# insertion order.
import torch
from torch import nn

torch.manual_seed(0)
heads = nn.ModuleDict({"classify": nn.Linear(4, 3), "regress": nn.Linear(4, 1)})
features = torch.randn(2, 4)
print({task: tuple(head(features).shape) for task, head in heads.items()})
print("keys:", list(heads.keys()))
print("parameters:", sum(p.numel() for p in heads.parameters()))

# %%
# .. _api-nn-parameter:
#
# torch.nn.Parameter
# ------------------
# A tensor subclass that, once assigned as a module attribute, is registered as
# a parameter; ``requires_grad`` defaults to ``True``.
import torch
from torch import nn


class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(3))
        self.offset = torch.zeros(3)  # plain tensor: not a parameter

    def forward(self, x):
        return x * self.gain + self.offset


affine = Affine()
print([name for name, _ in affine.named_parameters()])
print("requires_grad:", affine.gain.requires_grad)
affine.gain

# %%
# .. _api-nn-parameterlist:
#
# torch.nn.ParameterList
# ----------------------
# A list that registers each entry as a parameter under its index (plain
# tensors are wrapped in ``Parameter`` for you), for a variable number of
# weights.
import torch
from torch import nn


class PerStageScale(nn.Module):
    def __init__(self, stages):
        super().__init__()
        self.scales = nn.ParameterList(torch.full((2,), float(i + 1)) for i in range(stages))

    def forward(self, x):
        for scale in self.scales:
            x = x * scale
        return x


model = PerStageScale(3)
print([name for name, _ in model.named_parameters()])
print("entry type:", type(model.scales[0]).__name__)
model(torch.ones(2))

# %%
# .. _api-nn-parameterdict:
#
# torch.nn.ParameterDict
# ----------------------
# A dict that registers each value as a parameter under its key, for weights
# looked up by name (one embedding per language, say).
import torch
from torch import nn

torch.manual_seed(0)
table = nn.ParameterDict({"en": torch.randn(2), "fr": torch.randn(2)})
table["de"] = nn.Parameter(torch.zeros(2))
for name, param in table.named_parameters():
    print(name, param.detach().round(decimals=4))

# %%
# .. _api-nn-identity:
#
# torch.nn.Identity
# -----------------
# Returns its input unchanged and ignores any constructor arguments; use it as
# a placeholder, for example to remove a model's final layer without changing
# its structure.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 10))
net[2] = nn.Identity()  # the model now returns the 3 features
x = torch.randn(2, 4)
print(net)
tuple(net(x).shape)

# %%
# .. _api-nn-flatten:
#
# torch.nn.Flatten
# ----------------
# Merges dimensions ``start_dim`` to ``end_dim`` into one; the defaults
# (``start_dim=1``, ``end_dim=-1``) keep the batch dimension, unlike
# ``torch.flatten``, whose ``start_dim`` defaults to 0.
import torch
from torch import nn

images = torch.zeros(8, 3, 4, 4)
print("nn.Flatten():           ", tuple(nn.Flatten()(images).shape))
print("nn.Flatten(0, 1):       ", tuple(nn.Flatten(0, 1)(images).shape))
print("torch.flatten(images):  ", tuple(torch.flatten(images).shape))

# %%
# .. _api-nn-unflatten:
#
# torch.nn.Unflatten
# ------------------
# The inverse: splits dimension ``dim`` into the shape ``unflattened_size``,
# whose product must equal that dimension's size.
import torch
from torch import nn

flat = torch.arange(12.0).reshape(2, 6)
nn.Unflatten(dim=1, unflattened_size=(2, 3))(flat)

# %%
# .. _api-nn-linear:
#
# torch.nn.Linear
# ---------------
# Computes ``x @ weight.T + bias`` with a ``weight`` of shape
# ``(out_features, in_features)``; ``bias=False`` drops the bias, as is usual
# before ``BatchNorm``, which subtracts each feature's batch mean and so
# cancels it (``LayerNorm`` subtracts the mean across features, which cancels
# only the bias's own mean, not the whole bias).
import torch
from torch import nn

torch.manual_seed(0)
proj = nn.Linear(in_features=3, out_features=2, bias=False)
x = torch.randn(4, 3)
print("weight shape:", tuple(proj.weight.shape), "| bias:", proj.bias)
print("parameters:", [name for name, _ in proj.named_parameters()])
print("matches x @ W.T:", torch.allclose(proj(x), x @ proj.weight.T))

# %%
# .. _api-nn-bilinear:
#
# torch.nn.Bilinear
# -----------------
# Combines two inputs multiplicatively: output ``k`` is
# ``x1 @ weight[k] @ x2 + bias[k]``, with a ``weight`` of shape
# ``(out_features, in1_features, in2_features)``.
import torch
from torch import nn

torch.manual_seed(0)
pair = nn.Bilinear(in1_features=3, in2_features=2, out_features=4)
x1, x2 = torch.randn(5, 3), torch.randn(5, 2)
out = pair(x1, x2)
by_hand = torch.einsum("bi,kij,bj->bk", x1, pair.weight, x2) + pair.bias
print("weight shape:", tuple(pair.weight.shape), "| output shape:", tuple(out.shape))
print("matches einsum:", torch.allclose(out, by_hand, atol=1e-6))
