r"""
Datasets and DataLoader
=======================

A ``Dataset`` says how many samples there are and what sample ``i`` is; a
``DataLoader`` batches, shuffles and loads it in worker processes.

Summary
-------

===========================  ==================================================
You want                     Call
===========================  ==================================================
your own data set            :entry:`class D(Dataset) <basics-dataset>`: ``__len__``, ``__getitem__``
data already in tensors      :entry:`TensorDataset(x, y) <basics-tensor-dataset>`
train and validation parts   :entry:`random_split(ds, [0.8, 0.2]) <basics-tensor-dataset>`, ``generator=``
batches                      :entry:`DataLoader(ds, batch_size=4) <basics-dataloader>`, ``drop_last=``
a new order every epoch      :entry:`shuffle=True <basics-shuffle>`, a seeded ``generator=``
samples of different shapes  :entry:`collate_fn=... <basics-collate-fn>`, ``pad_sequence``
loading in worker processes  :entry:`num_workers=2 <basics-num-workers>`, under ``if __name__ == "__main__":``
faster copies to the GPU     :entry:`pin_memory=True <basics-num-workers>` (only when a GPU is there)
random numbers in workers    :entry:`generator=torch.Generator().manual_seed(0) <basics-worker-seeds>`
samples read as a stream     :entry:`class S(IterableDataset) <basics-iterable-dataset>`, split with ``get_worker_info()``
===========================  ==================================================
"""

# %%
# .. _basics-dataset:
#
# A custom Dataset: ``__len__`` and ``__getitem__``
# -------------------------------------------------
# Subclass ``torch.utils.data.Dataset`` and implement ``__len__`` and
# ``__getitem__``; load or compute a sample only when it is asked for, so the data
# set can be larger than memory.
import torch
from torch.utils.data import Dataset


class Squares(Dataset):
    """Sample i is the pair (i, i squared), as float tensors."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.tensor([float(i)])
        return x, x**2


squares = Squares(10)
print("len:", len(squares))
print("squares[3]:", squares[3])

# %%
# .. _basics-tensor-dataset:
#
# Data already in tensors: TensorDataset, random_split
# ----------------------------------------------------
# ``TensorDataset`` indexes several tensors along their first dimension at once,
# and ``random_split`` divides any data set into non-overlapping parts, here with
# a seeded generator so the split is the same on every run.
import torch
from torch.utils.data import TensorDataset, random_split

features = torch.arange(20.0).reshape(10, 2)
labels = torch.arange(10) % 3
dataset = TensorDataset(features, labels)
print("dataset[4]:", dataset[4])
train, val = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
print("train size:", len(train), "| val indices:", val.indices)

# %%
# .. _basics-dataloader:
#
# Batches: DataLoader(batch_size=..., drop_last=...)
# --------------------------------------------------
# The loader stacks ``batch_size`` samples into one tensor per field; the last
# batch is smaller unless ``drop_last=True`` drops it.
import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.arange(20.0).reshape(10, 2), torch.arange(10))
loader = DataLoader(dataset, batch_size=4)
print("batches per epoch:", len(loader))
for batch_x, batch_y in loader:
    print("x", tuple(batch_x.shape), " y", batch_y.tolist())
print("with drop_last=True:", len(DataLoader(dataset, batch_size=4, drop_last=True)), "batches")

# %%
# .. _basics-shuffle:
#
# Shuffling: shuffle=True and a seeded generator
# ----------------------------------------------
# ``shuffle=True`` draws a new order every epoch, and passing a seeded
# ``torch.Generator`` makes that sequence of orders repeat exactly from run to run.
import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.arange(8))
loader = DataLoader(
    dataset, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(42)
)
for epoch in range(3):
    print(f"epoch {epoch}:", [batch.tolist() for (batch,) in loader])

# %%
# .. _basics-collate-fn:
#
# Variable-length samples: collate_fn
# -----------------------------------
# The default ``collate_fn`` can only stack samples of equal shape, so for sequences
# of different lengths pass your own that pads them (``pad_sequence``) and keeps
# the true lengths.
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

sentences = [
    torch.tensor([5, 2, 9]),
    torch.tensor([7]),
    torch.tensor([3, 3]),
    torch.tensor([1, 8, 6, 4]),
]


def pad_batch(batch: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(s) for s in batch])
    return pad_sequence(batch, batch_first=True, padding_value=0), lengths


for padded, lengths in DataLoader(sentences, batch_size=2, collate_fn=pad_batch):
    print(padded.tolist(), "lengths", lengths.tolist())
try:
    next(iter(DataLoader(sentences, batch_size=2)))
except RuntimeError as err:
    print(f"default collate: {type(err).__name__}: {str(err).splitlines()[0]}")

# %%
# .. _basics-num-workers:
#
# Load in parallel: num_workers
# -----------------------------
# With ``num_workers > 0`` each batch is built in a separate process, which helps
# when loading or augmenting is slow. Workers started by *spawn* (macOS, Windows)
# or *forkserver* (Linux from Python 3.14) re-import your script, so the data set
# class must be defined at the top level and the loop must sit under
# ``if __name__ == "__main__":``; *fork*, Linux's default up to Python 3.13, needs
# neither, but the guard does no harm. The first line names the start method
# this run used.
import multiprocessing

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class WhoLoadedMe(Dataset):
    """Sample i is (i, id of the worker process that produced it)."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> tuple[int, int]:
        info = get_worker_info()  # None in the main process
        return i, -1 if info is None else info.id


def main() -> None:
    print("workers start by:", multiprocessing.get_start_method())
    loader = DataLoader(
        WhoLoadedMe(),
        batch_size=2,
        num_workers=2,
        pin_memory=torch.cuda.is_available(),  # page-locked batches copy faster to a GPU
    )
    for index, worker in loader:
        print("samples", index.tolist(), "from worker", worker.unique().item())


if __name__ == "__main__":
    main()

# %%
# .. _basics-worker-seeds:
#
# Random numbers in workers: seeded apart, repeatable with generator=
# -------------------------------------------------------------------
# Each worker process seeds torch, Python's ``random`` and NumPy's global
# generator from one base seed and its worker id, so no two workers draw the
# same sequence, and a random augmentation stays random across workers with
# no ``worker_init_fn``. The base seed is drawn from the loader's
# ``generator=`` (the global generator when there is none): a seeded generator
# repeats every worker's numbers on the next run. Inside a worker,
# ``get_worker_info().seed`` (or ``torch.initial_seed()``) is that worker's
# seed, for seeding any other library in ``worker_init_fn``. Old advice to
# seed NumPy there dates from releases before 1.9, whose forked workers all
# inherited one NumPy state (pytorch/pytorch#56488 changed that).
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Draws(Dataset):
    """Sample i is one draw from torch's, Python's and NumPy's generators."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.tensor([torch.rand(()).item(), random.random(), np.random.rand()])


def load(seed: int) -> torch.Tensor:
    loader = DataLoader(
        Draws(), batch_size=2, num_workers=2, generator=torch.Generator().manual_seed(seed)
    )
    return torch.cat(list(loader))  # samples 0-1 from worker 0, samples 2-3 from worker 1


def main() -> None:
    first, again, other = load(0), load(0), load(1)
    print("first draw of each worker (torch, random, numpy):")
    print("  worker 0:", [round(v, 4) for v in first[0].tolist()])
    print("  worker 1:", [round(v, 4) for v in first[2].tolist()])
    print("same seed, same numbers:    ", torch.equal(first, again))
    print("another seed, other numbers:", not torch.equal(first, other))


if __name__ == "__main__":
    main()

# %%
# .. _basics-iterable-dataset:
#
# A stream of samples: IterableDataset, split across workers
# ----------------------------------------------------------
# When samples come in order (lines of a file too big to index, a database cursor, a
# generator) rather than by number, subclass ``IterableDataset`` and write
# ``__iter__``. It has no ``__len__`` and takes no ``shuffle=True`` or sampler. Each
# worker process gets its own copy of the data set and iterates it from the start, so
# with ``num_workers=2`` every sample arrives twice unless ``__iter__`` asks
# ``get_worker_info()`` which worker it is and keeps only its share.
import math

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Stream(IterableDataset):
    """The numbers start, ..., stop - 1, read in order as from a file."""

    def __init__(self, start: int, stop: int, split: bool) -> None:
        self.start, self.stop, self.split = start, stop, split

    def __iter__(self):
        start, stop = self.start, self.stop
        info = get_worker_info()  # None in the main process
        if self.split and info is not None:
            share = math.ceil((stop - start) / info.num_workers)
            start += info.id * share
            stop = min(start + share, stop)
        return iter(range(start, stop))


def main() -> None:
    for split in (False, True):
        loader = DataLoader(Stream(0, 6, split), batch_size=2, num_workers=2)
        seen = torch.cat(list(loader)).tolist()
        print(f"split by worker: {split!s:5}  samples seen: {sorted(seen)}")


if __name__ == "__main__":
    main()
