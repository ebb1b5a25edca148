r"""
Data loading errors
===================

The messages a ``DataLoader`` raises: worker processes that cannot be started, cannot
receive your function or die, and samples that do not batch.

Summary
-------

==================================================  ==========================================================
You see                                             Fix
==================================================  ==========================================================
Can\'t pickle local object                          :entry:`def collate(batch): <errors-pickle-lambda>` at the top of the module
DataLoader worker is killed by signal: Killed       :entry:`DataLoader(ds, num_workers=2, prefetch_factor=1) <errors-worker-killed>`
DataLoader worker exited unexpectedly               :entry:`DataLoader(ds, num_workers=0) <errors-worker-killed>` to see the real error
stack expects each tensor to be equal size          :entry:`DataLoader(ds, collate_fn=pad_batch) <errors-collate-equal-size>`
each element in list of batch should be equal size  :entry:`collate_fn=pad_batch <errors-collate-list-equal-size>`
An attempt has been made to start a new process     :entry:`if __name__ == "__main__": <errors-bootstrapping>`
==================================================  ==========================================================
"""

# %%
# .. _errors-pickle-lambda:
#
# Can\'t pickle local object \'…\'
# --------------------------------
# Workers started by *spawn* (the default on macOS and Windows) or *forkserver* (the
# default on Linux from Python 3.14) receive the data set and ``collate_fn`` pickled, and
# a lambda or a function defined inside another cannot be; a lambda at the top of a
# script fails with ``Can't pickle <function <lambda> ...>`` instead.
import warnings

import torch
from torch.utils.data import DataLoader


def make_loader():
    return DataLoader(
        list(range(8)),
        batch_size=4,
        num_workers=1,
        multiprocessing_context="spawn",
        collate_fn=lambda batch: torch.tensor(batch) * 10,
    )


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        next(iter(make_loader()))
    except AttributeError as err:
        error = err
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print(f"{type(error).__name__}: {error}")

# %%
# Fix: define the function at the top level of a module the workers can import, and
# start the loop under ``if __name__ == "__main__":``. Run as a script, as you would:
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    import torch
    from torch.utils.data import DataLoader


    def times_ten(batch):  # top level: a spawned worker imports it by name
        return torch.tensor(batch) * 10


    if __name__ == "__main__":
        loader = DataLoader(
            list(range(8)),
            batch_size=4,
            num_workers=1,
            multiprocessing_context="spawn",
            collate_fn=times_ten,
        )
        for batch in loader:
            print(batch)
    """
)
with tempfile.TemporaryDirectory() as tmp:
    Path(tmp, "train.py").write_text(script)
    run = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp, capture_output=True, text=True, check=True
    )
print(run.stdout.strip())

# %%
# .. _errors-worker-killed:
#
# DataLoader worker (pid …) is killed by signal: …
# ------------------------------------------------
# A worker process died from a signal; ``Killed`` (SIGKILL) is most often the kernel's
# out-of-memory killer and ``Bus error`` a full ``/dev/shm``, through which workers pass
# their batches. The worker here kills itself, as the out-of-memory killer would, and
# the loop reports it, then ``exited unexpectedly``.
import multiprocessing
import os
import signal

from torch.utils.data import DataLoader, Dataset


class KilledWorker(Dataset):
    """Every sample kills the worker that loads it with SIGKILL."""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        os.kill(os.getpid(), signal.SIGKILL)


if "fork" in multiprocessing.get_all_start_methods():
    loader = DataLoader(KilledWorker(), batch_size=2, num_workers=1, multiprocessing_context="fork")
    try:
        next(iter(loader))
    except RuntimeError as err:
        for error in (err.__cause__, err):  # the signal, then what the loop made of it
            if isinstance(error, RuntimeError):
                print(f"{type(error).__name__}: {error}")
else:
    print("skipped: no 'fork' on this system, and SIGKILL is POSIX")

# %%
# Fix: give the workers less to hold: fewer workers, fewer batches in flight each
# (``prefetch_factor``), samples kept in one array or tensor rather than in many Python
# objects; for ``Bus error`` in Docker, a larger ``--shm-size``. ``num_workers=0``
# loads in the main process, where a Python error shows its own traceback.
import os
import shutil

import torch
from torch.utils.data import DataLoader, TensorDataset

if os.path.isdir("/dev/shm"):  # Linux: the shared memory that carries the batches
    print(f"/dev/shm: {shutil.disk_usage('/dev/shm').free / 2**20:,.0f} MiB free")
data = TensorDataset(torch.randn(1000, 16), torch.randint(0, 2, (1000,)))
loader = DataLoader(data, batch_size=100, num_workers=2, prefetch_factor=1)
print("batches loaded:", sum(1 for _ in loader))

# %%
# .. _errors-collate-equal-size:
#
# stack expects each tensor to be equal size, but got […] at entry … and […] at entry …
# -------------------------------------------------------------------------------------
# The default ``collate_fn`` stacks the samples of a batch into one tensor, and
# sequences (tokens, audio, time series) of different lengths do not stack.
import torch
from torch.utils.data import DataLoader

sequences = [torch.arange(n) for n in (3, 5, 2, 4)]
try:
    next(iter(DataLoader(sequences, batch_size=2)))
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: a ``collate_fn`` that pads each batch to its longest sample and returns the
# lengths (more in :ref:`basics-pad-collate`).
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_batch(batch):
    lengths = torch.tensor([len(sample) for sample in batch])
    return pad_sequence(batch, batch_first=True, padding_value=0), lengths


sequences = [torch.arange(1, n + 1) for n in (3, 5, 2, 4)]
for padded, lengths in DataLoader(sequences, batch_size=2, collate_fn=pad_batch):
    print(padded.tolist(), "lengths", lengths.tolist())

# %%
# .. _errors-collate-list-equal-size:
#
# each element in list of batch should be of equal size
# -----------------------------------------------------
# The same problem with samples that are Python lists (token ids from a tokenizer):
# the default ``collate_fn`` batches a list position by position, which needs lists
# of one length.
from torch.utils.data import DataLoader

token_ids = [[5, 8, 2], [7, 1], [4, 4, 9, 3], [6]]
try:
    next(iter(DataLoader(token_ids, batch_size=2)))
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# Fix: turn each sample into a tensor and pad, in your own ``collate_fn``.
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_batch(batch):
    tensors = [torch.tensor(ids) for ids in batch]
    return pad_sequence(tensors, batch_first=True, padding_value=0)


token_ids = [[5, 8, 2], [7, 1], [4, 4, 9, 3], [6]]
for batch in DataLoader(token_ids, batch_size=2, collate_fn=pad_batch):
    print(batch.tolist())

# %%
# .. _errors-bootstrapping:
#
# An attempt has been made to start a new process before the current process has finished its bootstrapping phase.
# ----------------------------------------------------------------------------------------------------------------
# A *spawn* worker starts by importing your script, and a script that creates its
# ``DataLoader`` loop at the top level makes the worker start workers of its own,
# which Python stops with this message (each worker's, printed by the worker); the
# loop then reports the worker's exit. Here the script runs in its own Python, as
# ``python train.py`` would.
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    from torch.utils.data import DataLoader

    loader = DataLoader(list(range(8)), batch_size=4, num_workers=1, multiprocessing_context="spawn")
    for batch in loader:
        print(batch)
    """
)
with tempfile.TemporaryDirectory() as tmp:
    Path(tmp, "train.py").write_text(script)
    run = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp, capture_output=True, text=True, check=False
    )
lines = run.stderr.splitlines()  # it failed: the messages are in its stderr
start = next(i for i, line in enumerate(lines) if line.startswith("RuntimeError"))
end = next(i for i in range(start, len(lines)) if lines[i].startswith("Traceback"))
print(lines[start].strip())
print(textwrap.dedent("\n".join(lines[start + 1 : end])).strip())
print("the loop:", lines[-1])

# %%
# Fix: put the code that runs under ``if __name__ == "__main__":``; an imported copy of
# the script then only defines things.
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

script = textwrap.dedent(
    """
    from torch.utils.data import DataLoader

    if __name__ == "__main__":
        loader = DataLoader(
            list(range(8)), batch_size=4, num_workers=1, multiprocessing_context="spawn"
        )
        for batch in loader:
            print(batch)
    """
)
with tempfile.TemporaryDirectory() as tmp:
    Path(tmp, "train.py").write_text(script)
    run = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp, capture_output=True, text=True, check=True
    )
print(run.stdout.strip())
