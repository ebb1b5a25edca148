"""Time a function, or several side by side, the way a benchmark engineer would."""

from __future__ import annotations

import gc
import html
import inspect
import itertools
import math
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import time
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import torch

from cheatsheet import _records as records
from cheatsheet.device import available_devices, check_device, synchronize
from cheatsheet.stats import quartiles

__all__ = [
    "NOISY_IQR_FRACTION",
    "Measurement",
    "StartupCost",
    "benchmark",
    "format_seconds",
    "interleave",
    "startup_cost",
    "time_unit",
]

#: A result whose interquartile range exceeds this fraction of its median is flagged noisy.
NOISY_IQR_FRACTION = 0.10

# Each timed block lasts about this long: long enough that the clock's own cost
# (well under a microsecond for perf_counter plus a device synchronize) stays
# below 0.01% of it and that single-call jitter averages out, short enough that
# a one-second budget yields about a hundred blocks, so that a burst of
# interference from the OS spoils a few blocks, which the median then ignores.
# torch.utils.benchmark's blocks end up the same length.
_BLOCK_S = 10e-3
# Share of the time budget spent warming up at the final block size.
_WARMUP_FRACTION = 0.1
# Fewest timed blocks, whatever the budget: a spread needs a few values.
_FEWEST_RUNS = 3
# Fewest rounds of an interleaved comparison: six is the least number of paired
# ratios that can give a 95% interval for their median.
FEWEST_ROUNDS = 6
# Caps on blocks, and on calls that took no time at all, so that a clock that
# never advances cannot loop forever: a thousand real calls always take some time.
_MAX_RUNS = 100_000
_STILL_CLOCK_CALLS = 1000

# The host clock. Tests replace it with a fake one whose blocks take known times.
_clock: Callable[[], float] = time.perf_counter


def time_unit(seconds: float) -> tuple[str, float]:
    """Return the largest of s, ms, µs, ns that keeps ``seconds`` at 1 or above, and its scale.

    >>> time_unit(0.004)
    ('ms', 0.001)
    """
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return unit, scale
    return "ns", 1e-9


def format_seconds(seconds: float) -> str:
    """Format a duration with a unit that keeps three significant digits.

    Minutes and hours from a minute on, so a twenty-minute build reads as one.

    >>> from cheatsheet import format_seconds
    >>> format_seconds(0.00123)
    '1.23 ms'
    >>> format_seconds(0.9999)
    '1 s'
    >>> format_seconds(1234.5)
    '20.6 min'
    """
    if not math.isfinite(seconds):
        return str(seconds)
    for unit, scale in (("h", 3600.0), ("min", 60.0)):
        if abs(seconds) >= scale:
            return f"{float(f'{seconds / scale:.3g}'):.3g} {unit}"
    # Round first, so that 0.9999 s becomes "1 s", not "1e+03 ms".
    rounded = float(f"{seconds:.3g}")
    unit, scale = time_unit(rounded)
    return f"{rounded / scale:.3g} {unit}"


def _is_duration(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


@dataclass(frozen=True)
class Measurement:
    """The timing of one function.

    Attributes
    ----------
    label : str
        What was timed.
    times_s : tuple of float
        Per-call time of every timed block, in seconds, in the order measured.
        In a comparison, entry ``i`` of every candidate comes from round ``i``.
    calls_per_run : int
        Calls of the function in each block.
    first_call_s : float
        Time of the very first call on its own, in seconds (for a compiled
        function, mostly compilation).
    threads : int
        ``torch.get_num_threads()`` while timing.
    device : str
        Device that was synchronized around each clock read.
    runs_wanted : int
        Blocks asked for (``min_runs``); fewer ran when the budget ran out first.
    session_sizes : tuple of int
        For a measurement made in independent sessions (:func:`cheatsheet.compare`),
        the number of blocks of each, in order; empty for one session.
    """

    label: str
    times_s: tuple[float, ...]
    calls_per_run: int
    first_call_s: float
    threads: int
    device: str
    runs_wanted: int
    session_sizes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.times_s) < 2:
            raise ValueError(f"a Measurement needs at least two timed blocks, got {self.times_s}")
        for name in ("calls_per_run", "threads", "runs_wanted"):
            count = getattr(self, name)
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ValueError(f"{name} is a count of at least 1, got {count!r}")
        seconds = (*self.times_s, self.first_call_s)
        bad = [t for t in seconds if not _is_duration(t)]
        if bad:
            raise ValueError(
                f"times_s and first_call_s are durations: finite seconds, 0 or more, got {bad[0]!r}"
            )
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in self.session_sizes):
            raise ValueError(f"session sizes are counts of at least 1, got {self.session_sizes}")
        if self.session_sizes and sum(self.session_sizes) != len(self.times_s):
            raise ValueError(
                f"session sizes {self.session_sizes} do not add up to the {len(self.times_s)} blocks"
            )

    @property
    def runs(self) -> int:
        """Number of timed blocks."""
        return len(self.times_s)

    @property
    def median_s(self) -> float:
        """Median time of one call, in seconds, over the timed blocks."""
        return quartiles(self.times_s)[1]

    @property
    def iqr_s(self) -> float:
        """Interquartile range of the per-call time across blocks, in seconds."""
        q1, _, q3 = quartiles(self.times_s)
        return q3 - q1

    @property
    def iqr_fraction(self) -> float:
        """Interquartile range as a fraction of the median."""
        return self.iqr_s / self.median_s if self.median_s > 0 else math.inf

    @property
    def noisy(self) -> bool:
        """Whether the spread is too wide to trust small differences."""
        return self.iqr_fraction > NOISY_IQR_FRACTION

    @property
    def few_runs(self) -> bool:
        """Whether the budget ran out before ``runs_wanted`` blocks were timed."""
        return self.runs < self.runs_wanted

    def as_dict(self) -> dict[str, Any]:
        """Every field, the median and the spread, ready for ``json.dumps``."""
        return {**asdict(self), "median_s": self.median_s, "iqr_s": self.iqr_s}

    def _summary(self) -> str:
        return (
            f"{format_seconds(self.median_s)} ± {self.iqr_fraction:.1%} IQR, "
            f"{self.runs} runs × {self.calls_per_run} calls, "
            f"first call {format_seconds(self.first_call_s)}, "
            f"{self.device}, {self.threads} thread{'' if self.threads == 1 else 's'}"
        )

    def _notes(self) -> list[str]:
        notes = []
        if self.noisy:
            notes.append(f"noisy: spread above {NOISY_IQR_FRACTION:.0%} of median")
        if self.few_runs:
            notes.append(f"only {self.runs} of {self.runs_wanted} runs fit the budget")
        return notes

    def __repr__(self) -> str:
        notes = "".join(f" [{note}]" for note in self._notes())
        return f"{self.label}: {self._summary()}{notes}"

    def _repr_html_(self) -> str:
        notes = "".join(f" <strong>[{html.escape(note)}]</strong>" for note in self._notes())
        return (
            f"<p><code>{html.escape(self.label)}</code>: {html.escape(self._summary())}{notes}</p>"
        )


# -- Which device to synchronize -------------------------------------------------

# How deep to look into nested containers, partials, methods and functions for a tensor.
_SEARCH_DEPTH = 6
_DEVICES_SEEN = 64  # tensors looked at, at most, for one on an accelerator
_ITEMS_SEEN = 256  # items of one container looked into (a dataset list can be long)
_VISITS = 20_000  # objects looked at in all, however the containers nest
# Functions of these packages are not looked into: their globals are library state, not
# the reader's tensors (and torch's would take long to walk).
_LIBRARIES = ("torch", "cheatsheet", "functools", "numpy", "builtins")


def _devices_in(
    value: Any, depth: int = 0, left: list[int] | None = None
) -> Iterator[torch.device]:
    """Yield the devices of tensors found in ``value``.

    It looks into nested containers, modules, optimizers (their parameters), partials,
    bound methods, and the reader's own functions and lambdas: the variables they close
    over and the module-level names their code reads, so that
    ``compare({"a": lambda: model(x)})`` finds ``x`` without being told its device.
    """
    left = [_VISITS] if left is None else left
    left[0] -= 1
    if depth > _SEARCH_DEPTH or left[0] < 0:
        return
    if isinstance(value, torch.Tensor):
        yield value.device
    elif isinstance(value, torch.device):
        yield value
    elif isinstance(value, torch.nn.Module):
        for tensor in (*value.parameters(), *value.buffers()):
            yield tensor.device
            return
    elif isinstance(value, torch.optim.Optimizer):
        for group in value.param_groups:
            yield from _devices_in(group["params"], depth + 1, left)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in itertools.islice(value, _ITEMS_SEEN):
            yield from _devices_in(item, depth + 1, left)
    elif isinstance(value, Mapping):
        for item in itertools.islice(value.values(), _ITEMS_SEEN):
            yield from _devices_in(item, depth + 1, left)
    elif hasattr(value, "func") and hasattr(value, "args"):  # functools.partial
        yield from _devices_in((value.func, value.args, value.keywords), depth + 1, left)
    elif isinstance(value, types.FunctionType):
        yield from _devices_read_by(value, depth, left)
    elif hasattr(value, "__self__"):  # a bound method of a module, say model.forward
        yield from _devices_in(value.__self__, depth + 1, left)
    elif callable(getattr(value, "__wrapped__", None)):  # a callable object's wrapper
        yield from _devices_in(value.__wrapped__, depth + 1, left)


def _devices_read_by(fn: types.FunctionType, depth: int, left: list[int]) -> Iterator[torch.device]:
    """Yield the devices of what a reader's function closes over and reads from its module."""
    wrapped = getattr(fn, "__wrapped__", None)
    if callable(wrapped):  # a decorator's wrapper (torch.compile's too): look at what it wraps
        yield from _devices_in(wrapped, depth, left)
    if (fn.__module__ or "").split(".")[0] in _LIBRARIES:
        return
    for cell in fn.__closure__ or ():
        try:
            contents = cell.cell_contents
        except ValueError:  # a variable not yet assigned
            continue
        yield from _devices_in(contents, depth + 1, left)
    for name in fn.__code__.co_names:
        if name in fn.__globals__:
            yield from _devices_in(fn.__globals__[name], depth + 1, left)


def _accelerator_in_use() -> str | None:
    """Name an accelerator this process has already started, else None."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return "cuda"
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available() and xpu.is_initialized():
        return "xpu"
    if "mps" in available_devices():
        return "mps"  # MPS has no "initialized" flag to consult
    return None


def resolve_device(
    device: str | torch.device | None, fns: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict
) -> torch.device:
    """Choose the device to synchronize: the one asked for, else the one the tensors are on."""
    if device is not None:
        return check_device(device, "device")
    # The work's arguments first, then what the functions themselves read; a tensor on
    # an accelerator among them decides, since timing it needs that device's clock.
    found = list(itertools.islice(_devices_in((args, kwargs, fns)), _DEVICES_SEEN))
    if found:
        return next((d for d in found if d.type != "cpu"), found[0])
    try:
        default = torch.get_default_device()
    except AttributeError:  # torch 2.4 after set_default_device(None): no default is set
        default = torch.device("cpu")
    if default.type != "cpu":
        return default
    if (accelerator := _accelerator_in_use()) is not None:
        raise ValueError(
            f"cannot tell which device the timed work runs on: no tensor or module among its "
            f"arguments or what its functions read, and this process uses {accelerator}. Timing it as CPU work would "
            f"measure only kernel launches; pass device='{accelerator}' (or device='cpu')"
        )
    return torch.device("cpu")


def _started_by_first_call(
    asked: str | torch.device | None, dev: torch.device, before: str | None
) -> torch.device | None:
    """Return the accelerator the first call started, when the work was to be timed on the CPU.

    Work that makes its own tensors on a GPU (``lambda: torch.randn(n, device="cuda") @ w``)
    shows no device before it runs, and a fresh process has not started CUDA yet: timed as
    CPU work, only its kernel launches would count. Checked again after the first call,
    the device it started decides, unless a device was asked for.
    """
    if asked is not None or dev.type != "cpu" or before is not None:
        return None
    started = _accelerator_in_use()
    return torch.device(started) if started is not None else None


def _wait_for(dev: torch.device) -> float:
    """Seconds until ``dev`` has finished what was queued on it."""
    t0 = _clock()
    synchronize(dev)
    return _clock() - t0


# -- Blocks of calls -----------------------------------------------------------


@contextmanager
def gc_paused() -> Iterator[None]:
    """Collect garbage once, then keep the collector from pausing the timed calls.

    Inside another ``gc_paused`` it does nothing: a collection costs a tenth of a second
    or more in a process that holds many objects, and a comparison's sessions would
    pay it once each.
    """
    if not gc.isenabled():
        yield
        return
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _block_timer(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], device: torch.device
) -> Callable[[int], float]:
    """Return ``timer(n)``: seconds for ``n`` back-to-back calls, device work included."""
    if device.type == "cuda":
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)

        def cuda_block(n: int) -> float:
            torch.cuda.synchronize(device)
            start.record()
            for _ in range(n):
                fn(*args, **kwargs)
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3

        return cuda_block

    def host_block(n: int) -> float:
        synchronize(device)
        t0 = _clock()
        for _ in range(n):
            fn(*args, **kwargs)
        synchronize(device)
        return _clock() - t0

    return host_block


def _calibrate(block: Callable[[int], float]) -> int:
    """Return the number of calls that makes one block last at least ``_BLOCK_S``."""
    number = 1
    while True:
        elapsed = block(number)
        if elapsed >= _BLOCK_S:
            return number
        # Grow from the fastest of three tries: an interrupted try would make the next
        # size too small and cost another round. (The fastest is below the target too.)
        elapsed = min(elapsed, block(number), block(number))
        if elapsed <= 0 and number >= _STILL_CLOCK_CALLS:
            raise RuntimeError(
                f"{number:,} calls took no measurable time: the clock does not advance; "
                "time work that takes time"
            )
        # Aim a little past the target so calibration rarely needs another round.
        grow = 1.2 * _BLOCK_S / elapsed if elapsed > 0 else 10.0
        number = max(number + 1, min(int(number * grow), number * 100))


def check_options(budget_s: Any, runs: Any, runs_name: str, fewest: int) -> None:
    if isinstance(budget_s, bool) or not isinstance(budget_s, (int, float)):
        raise TypeError(f"budget_s must be a number of seconds, got {budget_s!r}")
    if not (math.isfinite(budget_s) and budget_s > 0):
        raise ValueError(f"budget_s must be a positive number of seconds, got {budget_s!r}")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < fewest:
        raise ValueError(f"{runs_name} must be an integer of at least {fewest}, got {runs!r}")


def _check_callable(fn: Any, what: str) -> None:
    if not callable(fn):
        raise TypeError(
            f"{what} must be callable, got {type(fn).__name__}; pass the function itself, "
            "e.g. benchmark(model, x), not benchmark(model(x))"
        )
    # Calling these only creates a generator or coroutine: the work would never be timed.
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(
            f"{what} is a generator function: calling it only creates a generator and times "
            "none of its work; pass a function that runs it, e.g. lambda: list(gen())"
        )
    if inspect.iscoroutinefunction(fn):
        raise TypeError(
            f"{what} is an async function: calling it only creates a coroutine and times none "
            "of its work; pass a function that runs it, e.g. lambda: asyncio.run(main())"
        )


def benchmark(
    fn: Callable[..., Any],
    *args: Any,
    label: str | None = None,
    device: str | torch.device | None = None,
    budget_s: float = 1.0,
    min_runs: int = 15,
    **kwargs: Any,
) -> Measurement:
    """Time ``fn(*args, **kwargs)``.

    The first call is timed on its own and reported as ``first_call_s``
    (compilation, lazy initialisation, cache warm-up), never mixed into the
    steady state. Then the number of calls per block is calibrated so one
    block lasts at least 10 ms, blocks run as warm-up for a tenth of the
    budget, and blocks are timed until the budget is spent. The median over
    many short blocks shrugs off bursts of interference that would skew a few
    long ones. The device is synchronized before every clock read and the
    garbage collector is paused while timing.

    To compare functions, use :func:`cheatsheet.compare`, which times them
    interleaved and says how sure the difference is.

    Parameters
    ----------
    fn : callable
        The function to time. Use ``functools.partial`` if it takes
        keyword arguments named ``label``, ``device``, ``budget_s`` or
        ``min_runs``.
    *args, **kwargs
        Passed to ``fn`` on every call.
    label : str, optional
        Name shown in tables; defaults to ``fn``'s name.
    device : str or torch.device, optional
        Device to synchronize; defaults to that of the first tensor found in
        the arguments (containers and modules included), else torch's default
        device. When neither tells and an accelerator is in use, it must be given.
    budget_s : float
        Seconds to spend after the first call: calibration, warm-up and timed
        blocks together stop at the first block that ends past it. At least
        three blocks are timed, so a call slower than a third of the budget
        takes about five calls' time.
    min_runs : int
        Timed blocks wanted; when the budget fits fewer, the result says so
        (``few_runs``).

    Returns
    -------
    Measurement

    Raises
    ------
    TypeError
        If ``fn`` is not callable, ``label`` is not a string or ``budget_s`` is
        not a number.
    ValueError
        If ``budget_s`` is not positive, ``min_runs`` is below 3, ``device``
        names no device of this machine, or the device cannot be told.
    """
    _check_callable(fn, "benchmark()'s first argument")
    check_options(budget_s, min_runs, "min_runs", _FEWEST_RUNS)
    name = _label(label, fn)
    dev = resolve_device(device, (fn,), args, kwargs)
    block = _block_timer(fn, args, kwargs, dev)

    before = _accelerator_in_use()
    first_call_s = block(1)
    if (started := _started_by_first_call(device, dev, before)) is not None:
        first_call_s += _wait_for(started)  # the first call's work, queued on the device
        dev, block = started, _block_timer(fn, args, kwargs, started)
    with gc_paused():
        start = _clock()
        deadline = start + budget_s
        number = _calibrate(block)
        # Calibration counts as warm-up: a slow function is not run again for it.
        while _clock() < start + _WARMUP_FRACTION * budget_s:
            block(number)
        totals: list[float] = []
        while len(totals) < _FEWEST_RUNS or (_clock() < deadline and len(totals) < _MAX_RUNS):
            totals.append(block(number))

    measured = Measurement(
        label=name,
        times_s=tuple(t / number for t in totals),
        calls_per_run=number,
        first_call_s=first_call_s,
        threads=torch.get_num_threads(),
        device=str(dev),
        runs_wanted=min_runs,
    )
    records.note("measurement", measured.as_dict())
    return measured


def _label(label: Any, fn: Any) -> str:
    if label is None:
        return getattr(fn, "__name__", type(fn).__name__)
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {type(label).__name__}; pass label=str(...)")
    return label


def _named(name: str, block: Callable[[int], float], number: int) -> float:
    """Run ``block(number)``; an exception it raises names the candidate that raised it."""
    try:
        return block(number)
    except Exception as err:
        err.add_note(f"(raised by the candidate {name!r})")
        raise


def interleave(
    candidates: Mapping[str, Callable[..., Any]],
    *args: Any,
    device: str | torch.device | None = None,
    budget_s: float = 2.0,
    min_rounds: int = 20,
    **kwargs: Any,
) -> tuple[Measurement, ...]:
    """Time several functions in alternation, so that drift of the machine falls on all alike.

    Each candidate's first call is timed on its own and its block size is
    calibrated separately. Then rounds run until the budget is spent: in each
    round every candidate times one block, in an order shuffled afresh, so
    that neither a slow spell of the machine nor the position in the round
    favours one of them. Entry ``i`` of every result's ``times_s`` comes from
    round ``i``, which is what lets :func:`cheatsheet.compare` pair them.

    Parameters
    ----------
    candidates : dict
        Label and function of each candidate, in the order to report them.
    *args, **kwargs
        Passed to every candidate on every call; use ``lambda`` or
        ``functools.partial`` where candidates take different inputs.
    device : str or torch.device, optional
        As in :func:`cheatsheet.benchmark`.
    budget_s : float
        Seconds to spend after the first calls, all candidates together.
    min_rounds : int
        Rounds wanted; at least six run whatever the budget.

    Returns
    -------
    tuple of Measurement
        One per candidate, in the order given.
    """
    check_candidates(candidates)
    check_options(budget_s, min_rounds, "min_rounds", FEWEST_ROUNDS)
    dev = resolve_device(device, tuple(candidates.values()), args, kwargs)
    timed = rounds_of(candidates, args, kwargs, dev, budget_s, FEWEST_ROUNDS,
                      settle=device is None)  # fmt: skip
    threads = torch.get_num_threads()
    return tuple(
        Measurement(
            label=name,
            times_s=rounds.times_s,
            calls_per_run=rounds.calls_per_run,
            first_call_s=rounds.first_call_s,
            threads=threads,
            device=str(rounds.device),
            runs_wanted=min_rounds,
        )
        for name, rounds in timed.items()
    )


class Rounds(NamedTuple):
    """One candidate's blocks from :func:`rounds_of`: per-call times, block size, first call.

    ``device`` is the device synchronized around the blocks.
    """

    times_s: tuple[float, ...]
    calls_per_run: int
    first_call_s: float
    device: torch.device


def check_candidates(candidates: Any) -> None:
    """Refuse what is not a dict of at least two labelled functions, naming the fix."""
    if not isinstance(candidates, Mapping) or len(candidates) < 2:
        raise TypeError(
            "candidates must be a dict of at least two label: function pairs, e.g. "
            "{'eager': model, 'compiled': torch.compile(model)}"
        )
    for name, fn in candidates.items():
        if not isinstance(name, str):
            raise TypeError(f"label must be a str, got {type(name).__name__}; use text as the key")
        _check_callable(fn, f"candidate {name!r}")


def rounds_of(
    candidates: Mapping[str, Callable[..., Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    dev: torch.device,
    budget_s: float,
    fewest: int,
    seed: int = 0,
    first_calls: bool = True,
    settle: bool = False,
) -> dict[str, Rounds]:
    """Time checked candidates in shuffled rounds on ``dev``: the work of :func:`interleave`.

    At least ``fewest`` rounds run whatever the budget; ``seed`` fixes the orders. Without
    ``first_calls`` (a later session of a comparison) the first calls are not timed on
    their own, and ``first_call_s`` is 0. With ``settle`` (no device was asked for), an
    accelerator that the first calls started replaces a CPU ``dev``.
    """
    blocks = {name: _block_timer(fn, args, kwargs, dev) for name, fn in candidates.items()}

    before = _accelerator_in_use()
    firsts = {
        name: _named(name, block, 1) if first_calls else 0.0 for name, block in blocks.items()
    }
    started = _started_by_first_call(None if settle else dev, dev, before)
    if started is not None:
        waited = _wait_for(started)
        firsts = {name: first + waited if first_calls else 0.0 for name, first in firsts.items()}
        dev = started
        blocks = {name: _block_timer(fn, args, kwargs, dev) for name, fn in candidates.items()}
    # A fixed seed: the order varies from round to round but not from build to build.
    order = list(blocks)
    shuffler = random.Random(seed)
    with gc_paused():
        start = _clock()
        deadline = start + budget_s
        numbers = {name: _calibrate(block) for name, block in blocks.items()}
        while _clock() < start + _WARMUP_FRACTION * budget_s:
            for name in order:
                blocks[name](numbers[name])
        totals: dict[str, list[float]] = {name: [] for name in blocks}
        rounds = 0
        while rounds < fewest or (_clock() < deadline and rounds < _MAX_RUNS):
            shuffler.shuffle(order)
            for name in order:
                totals[name].append(blocks[name](numbers[name]))
            rounds += 1

    return {
        name: Rounds(
            tuple(t / numbers[name] for t in totals[name]), numbers[name], firsts[name], dev
        )
        for name in candidates
    }


# -- Start-up costs, paid once per process -------------------------------------

_CHILD = """\
import json, time
import torch

{setup}

def _sync():
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()

_sync()
_t0 = time.perf_counter()
{call}
_sync()
print("CHEATSHEET_FIRST_CALL_S", json.dumps(time.perf_counter() - _t0))
"""


@dataclass(frozen=True)
class StartupCost:
    """What the first call of some code costs in a new process, with cold and warm caches.

    Attributes
    ----------
    cold_s : float
        First call in a fresh process whose compiler caches (TorchInductor's
        and Triton's) are empty: what the first run on a new machine pays.
    warm_s : float
        First call in another fresh process that finds the caches the cold
        run filled: what every later run of the program pays.
    """

    cold_s: float
    warm_s: float

    def calls_to_repay(self, saved_per_call_s: float) -> tuple[float, float]:
        """Return how many calls repay the cold and the warm start, given the time each saves.

        Returns ``(inf, inf)`` when nothing is saved.
        """
        if not saved_per_call_s > 0:
            return math.inf, math.inf
        return self.cold_s / saved_per_call_s, self.warm_s / saved_per_call_s


def _first_call_in_new_process(script: str, env: dict[str, str], timeout_s: float) -> float:
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith("CHEATSHEET_FIRST_CALL_S "):
            return float(line.split()[1])
    raise RuntimeError(
        f"the child process exited with {done.returncode} without timing its call; "
        f"its last output:\n{(done.stdout + done.stderr)[-3000:]}"
    )


def startup_cost(setup: str, call: str, *, timeout_s: float = 600.0) -> StartupCost:
    """Time the first call of ``call`` after ``setup`` in new processes, with cold and warm caches.

    Compiling happens at the first call, and what it costs depends on what
    the process and the disk already hold: a first run on a machine imports
    the compiler and fills empty caches, a later run finds the compiled
    kernels on disk. Each is measured in its own fresh Python process, sharing
    a temporary cache directory that starts empty, so neither this process's
    state nor the machine's own caches colour the figures.

    Parameters
    ----------
    setup : str
        Python source that prepares the call (imports, model, inputs, and
        usually ``torch.compile``); runs untimed.
    call : str
        One statement, timed once, e.g. ``"compiled(x)"``.
    timeout_s : float
        Limit on each child process, in seconds.

    Returns
    -------
    StartupCost

    Raises
    ------
    RuntimeError
        If a child process fails; the message holds the end of its output.
    """
    if not isinstance(setup, str) or not isinstance(call, str):
        raise TypeError("setup and call are Python source, passed as str")
    script = _CHILD.format(setup=textwrap.dedent(setup), call=textwrap.dedent(call).strip())
    with tempfile.TemporaryDirectory(prefix="cheatsheet-cache-") as cache:
        env = {
            **os.environ,
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache, "inductor"),
            "TRITON_CACHE_DIR": os.path.join(cache, "triton"),
        }
        cold_s = _first_call_in_new_process(script, env, timeout_s)
        warm_s = _first_call_in_new_process(script, env, timeout_s)
    return StartupCost(cold_s=cold_s, warm_s=warm_s)
