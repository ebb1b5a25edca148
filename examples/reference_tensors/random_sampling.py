r"""
Random sampling and generators
==============================

Seeds, private generators, the sampling functions, the in-place samplers, and saving or
isolating the random state.

Summary
-------

=====================================  =================================================================================================
You want                               Call
=====================================  =================================================================================================
repeatable draws on every device       :entry:`torch.manual_seed(s) <api-torch-manual-seed>`, ``initial_seed()`` reads it
a private stream                       :entry:`torch.Generator().manual_seed(s) <api-torch-generator>`, pass ``generator=``
uniform on [0, 1), or standard normal  :entry:`torch.rand(shape) <api-torch-rand>`, ``randn``, ``rand_like``
integers in [low, high)                :entry:`torch.randint(low, high, shape) <api-torch-randint>`
a shuffled ``arange(n)``               :entry:`torch.randperm(n) <api-torch-randperm>`
indices drawn by weight                :entry:`torch.multinomial(w, k) <api-torch-multinomial>`, ``replacement=True`` to repeat
0 or 1, 1 with probability ``p``       :entry:`torch.bernoulli(p) <api-torch-bernoulli>`
normal draws per element               :entry:`torch.normal(mean, std) <api-torch-normal>`
Poisson counts per element             :entry:`torch.poisson(rate) <api-torch-poisson>`
refill a tensor in place               :entry:`t.uniform_(a, b) <api-torch-tensor-uniform>`, ``t.normal_(m, s)``
other in-place samplers                :entry:`t.exponential_(rate) <api-torch-tensor-exponential>`, ``cauchy_``, ``geometric_``, ...
score a sample, backprop through it    :entry:`Categorical(logits=l).log_prob(a) <api-torch-distributions>`, ``rsample`` keeps the graph
save and restore the stream            :entry:`torch.get_rng_state() <api-torch-get-rng-state>`, ``set_rng_state(s)``
draw without disturbing the stream     :entry:`torch.random.fork_rng() <api-torch-random-fork-rng>`
=====================================  =================================================================================================
"""

# %%
# .. _api-torch-manual-seed:
#
# torch.manual_seed
# -----------------
# Seeds the default generator of the CPU and of every GPU, so the draws that
# follow repeat; ``initial_seed`` reads the seed back. A seed repeats its numbers
# on the same PyTorch version and device only, not across versions or devices.
import torch

torch.manual_seed(42)
first = torch.rand(3)
torch.manual_seed(42)
print(first, torch.equal(first, torch.rand(3)), "seed:", torch.initial_seed())

# %%
# .. _api-torch-generator:
#
# torch.Generator
# ---------------
# A private random stream: pass it as ``generator=`` and the draws depend only
# on its seed, not on what the rest of the program drew (the global generator is
# untouched). Give ``device=`` for a GPU generator.
import torch

torch.manual_seed(0)
next_global = torch.rand(1)
torch.manual_seed(0)
gen = torch.Generator().manual_seed(7)
print(torch.rand(2, generator=gen), torch.randn(2, generator=gen))
print("global stream untouched:", torch.equal(torch.rand(1), next_global))

# %%
# .. _api-torch-rand:
#
# torch.rand and torch.randn
# --------------------------
# ``rand``: uniform on ``[0, 1)``; ``randn``: standard normal (mean 0,
# standard deviation 1). Both take a shape and ``dtype``/``device``;
# ``rand_like`` and ``randn_like`` copy another tensor's shape and dtype.
import torch

torch.manual_seed(0)
print(torch.rand(2, 3))
print(torch.randn(3, dtype=torch.float64))
print(torch.randn_like(torch.zeros(2, dtype=torch.bfloat16)))

# %%
# .. _api-torch-randint:
#
# torch.randint
# -------------
# Integers from ``low`` (default 0) up to but excluding ``high``; the shape is a
# tuple even for one dimension. The result is ``int64``.
import torch

torch.manual_seed(0)
dice = torch.randint(1, 7, (10,))
print(dice, dice.dtype)
print(torch.randint(2, (2, 4)))  # coin flips: 0 or 1

# %%
# .. _api-torch-randperm:
#
# torch.randperm
# --------------
# A random permutation of ``0 .. n-1``: index a dataset with it to shuffle rows
# without repeating any.
import torch

torch.manual_seed(0)
rows = torch.arange(10, 70, 10)
order = torch.randperm(len(rows))
print(order, rows[order])

# %%
# .. _api-torch-multinomial:
#
# torch.multinomial
# -----------------
# Draws indices with probability proportional to the (non-negative, not
# necessarily normalised) weights: how a language model samples its next token.
# Without ``replacement=True`` an index comes out at most once.
import torch

torch.manual_seed(0)
weights = torch.tensor([0.1, 0.0, 0.6, 0.3])
print(torch.multinomial(weights, 10, replacement=True))
print(torch.multinomial(weights, 3))  # index 1 (weight 0) never comes out

# %%
# .. _api-torch-bernoulli:
#
# torch.bernoulli
# ---------------
# One 0-or-1 draw per element, 1 with the probability given in the input
# tensor: a hand-made dropout mask.
import torch

torch.manual_seed(0)
keep = torch.bernoulli(torch.full((12,), 0.75))
print(keep, f"kept {int(keep.sum())} of 12")

# %%
# .. _api-torch-normal:
#
# torch.normal
# ------------
# Normal draws with a mean and standard deviation per element (tensors
# broadcast); a standard deviation of 0 returns the mean exactly.
import torch

torch.manual_seed(0)
print(torch.normal(torch.tensor([0.0, 10.0, 100.0]), torch.tensor([1.0, 0.1, 0.0])))
print(torch.normal(2.0, 0.5, size=(3,)))  # scalar mean and std need size=

# %%
# .. _api-torch-poisson:
#
# torch.poisson
# -------------
# A count per element, drawn from a Poisson distribution with that element as
# its rate (mean); the result keeps the input's float dtype.
import torch

torch.manual_seed(0)
print(torch.poisson(torch.tensor([0.5, 5.0, 50.0, 500.0])))

# %%
# .. _api-torch-tensor-uniform:
#
# torch.Tensor.uniform\_ and normal\_
# -----------------------------------
# Refill an existing tensor in place, keeping its shape, dtype and device: the
# way ``torch.nn.init`` initialises weights.
import torch

torch.manual_seed(0)
weight = torch.empty(2, 4)
print(weight.uniform_(-0.5, 0.5))
print(weight.normal_(mean=0.0, std=0.02))

# %%
# .. _api-torch-tensor-exponential:
#
# torch.Tensor.exponential\_ and other in-place samplers
# ------------------------------------------------------
# The other distributions that refill a tensor in place: ``exponential_``,
# ``cauchy_`` (heavy tails: the occasional huge value), ``log_normal_``,
# ``geometric_`` (trials until the first success) and ``random_`` (integers in
# ``[from, to)``). ``torch.distributions`` has many more, with log-densities.
import torch

torch.manual_seed(0)
buf = torch.empty(6)
for name, sample in [
    ("exponential_(rate 2)", lambda t: t.exponential_(2.0)),
    ("cauchy_()", lambda t: t.cauchy_()),
    ("log_normal_()", lambda t: t.log_normal_()),
    ("geometric_(p 0.5)", lambda t: t.geometric_(0.5)),
    ("random_(0, 3)", lambda t: t.random_(0, 3)),
]:
    print(f"{name:21}", sample(buf))

# %%
# .. _api-torch-distributions:
#
# torch.distributions
# -------------------
# Distribution objects that sample and score: ``log_prob`` is differentiable, so
# ``-log_prob(action) * reward`` is the policy-gradient (REINFORCE) loss, and
# ``rsample`` draws through the parameters (the reparameterisation trick) where
# ``sample`` cuts the graph.
import torch
from torch.distributions import Categorical, Normal

torch.manual_seed(0)
logits = torch.tensor([2.0, 0.5, -1.0], requires_grad=True)
policy = Categorical(logits=logits)
actions = policy.sample((5,))
reward = torch.tensor([1.0, -1.0, 0.5, 1.0, 0.0])
loss = -(policy.log_prob(actions) * reward).mean()
loss.backward()
print("probs   ", policy.probs.detach().round(decimals=3))
print("actions ", actions)
print("log_prob", policy.log_prob(actions).detach().round(decimals=3))
print("grad of the logits", logits.grad.round(decimals=4))

mean = torch.tensor(0.0, requires_grad=True)
normal = Normal(mean, 1.0)
print("rsample keeps the graph:", normal.rsample((3,)).requires_grad)
print("sample does not:        ", normal.sample((3,)).requires_grad)

# %%
# .. _api-torch-get-rng-state:
#
# torch.get_rng_state and set_rng_state
# -------------------------------------
# The generator's whole state is a ``uint8`` tensor: save it, draw, put it back,
# and the same draws come again (``torch.cuda.get_rng_state`` does this for a
# GPU). Checkpoints store it to resume training exactly.
import torch

torch.manual_seed(0)
state = torch.get_rng_state()
before = torch.rand(3)
torch.set_rng_state(state)
print(before, torch.equal(before, torch.rand(3)), "| state:", state.dtype, tuple(state.shape))

# %%
# .. _api-torch-random-fork-rng:
#
# torch.random.fork_rng
# ---------------------
# Draws inside the block leave the generator outside as they found it (CPU and,
# by default, every visible GPU): sample for a diagnostic without changing the
# rest of a seeded run.
import torch

torch.manual_seed(0)
expected = torch.rand(2)
torch.manual_seed(0)
with torch.random.fork_rng():
    torch.rand(1000)  # a thousand draws that do not count
print(expected, torch.equal(expected, torch.rand(2)))
