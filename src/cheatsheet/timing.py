"""Time a function the way a benchmark engineer would."""

from __future__ import annotations

import gc
import html
import math
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from cheatsheet.device import synchronize

__all__ = ["NOISY_IQR_FRACTION", "Measurement", "benchmark", "format_seconds"]

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


def _unit_for(seconds: float) -> tuple[str, float]:
    """Return the largest of s, ms, µs, ns that keeps ``seconds`` at 1 or above."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return unit, scale
    return "ns", 1e-9


def format_seconds(seconds: float) -> str:
    """Format a duration with a unit that keeps three significant digits.

    >>> format_seconds(0.00123)
    '1.23 ms'
    """
    if not math.isfinite(seconds):
        return str(seconds)
    unit, scale = _unit_for(seconds)
    return f"{seconds / scale:.3g} {unit}"


@dataclass(frozen=True)
class Measurement:
    """The timing of one function.

    Attributes
    ----------
    label : str
        What was timed.
    median_s : float
        Median time of one call, in seconds, over the timed blocks.
    iqr_s : float
        Interquartile range of the per-call time across blocks, in seconds.
    runs : int
        Number of timed blocks.
    calls_per_run : int
        Calls of the function in each block.
    first_call_s : float
        Time of the very first call on its own, in seconds (for a compiled
        function, mostly compilation).
    threads : int
        ``torch.get_num_threads()`` while timing.
    device : str
        Device that was synchronized around each clock read.
    times_s : tuple of float
        Per-call time of every block, in seconds, in the order measured.
    """

    label: str
    median_s: float
    iqr_s: float
    runs: int
    calls_per_run: int
    first_call_s: float
    threads: int
    device: str
    times_s: tuple[float, ...]

    @property
    def iqr_fraction(self) -> float:
        """Interquartile range as a fraction of the median."""
        return self.iqr_s / self.median_s if self.median_s > 0 else math.inf

    @property
    def noisy(self) -> bool:
        """Whether the spread is too wide to trust small differences."""
        return self.iqr_fraction > NOISY_IQR_FRACTION

    def _summary(self) -> str:
        return (
            f"{format_seconds(self.median_s)} ± {self.iqr_fraction:.1%} IQR, "
            f"{self.runs} runs × {self.calls_per_run} calls, "
            f"first call {format_seconds(self.first_call_s)}, "
            f"{self.device}, {self.threads} threads"
        )

    def __repr__(self) -> str:
        noisy = " [noisy: spread above 10% of median]" if self.noisy else ""
        return f"{self.label}: {self._summary()}{noisy}"

    def _repr_html_(self) -> str:
        noisy = " <strong>noisy</strong>" if self.noisy else ""
        return (
            f"<p><code>{html.escape(self.label)}</code>: {html.escape(self._summary())}{noisy}</p>"
        )


def _tensor_device(args: tuple[Any, ...], kwargs: dict[str, Any]) -> torch.device | None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            return value.device
    return None


@contextmanager
def _gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _make_block_timer(
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
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args, **kwargs)
        synchronize(device)
        return time.perf_counter() - t0

    return host_block


def benchmark(
    fn: Callable[..., Any],
    *args: Any,
    label: str | None = None,
    device: str | torch.device | None = None,
    min_time_s: float = 1.0,
    min_runs: int = 15,
    **kwargs: Any,
) -> Measurement:
    """Time ``fn(*args, **kwargs)``.

    The first call is timed on its own and reported as ``first_call_s``
    (compilation, lazy initialisation, cache warm-up), never mixed into the
    steady state. Then the number of calls per block is calibrated so one
    block lasts at least 10 ms, blocks run as warm-up for a tenth of
    ``min_time_s``, and blocks are timed until both ``min_runs`` blocks and
    ``min_time_s`` seconds are reached. The median over many short blocks
    shrugs off bursts of interference that would skew a few long ones. The device is synchronized
    before every clock read and the garbage collector is paused while timing.

    Parameters
    ----------
    fn : callable
        The function to time. Use ``functools.partial`` if it takes
        keyword arguments named ``label``, ``device``, ``min_time_s`` or
        ``min_runs``.
    *args, **kwargs
        Passed to ``fn`` on every call.
    label : str, optional
        Name shown in tables; defaults to ``fn``'s name.
    device : str or torch.device, optional
        Device to synchronize; defaults to that of the first tensor argument,
        else torch's default device.
    min_time_s : float
        Least total time of the timed blocks, in seconds.
    min_runs : int
        Least number of timed blocks.

    Returns
    -------
    Measurement

    Raises
    ------
    TypeError
        If ``fn`` is not callable.
    ValueError
        If ``min_time_s`` is not positive or ``min_runs`` is below 2.
    """
    if not callable(fn):
        raise TypeError(
            f"benchmark() needs a callable first argument, got {type(fn).__name__}; "
            "pass the function itself, e.g. benchmark(model, x), not benchmark(model(x))"
        )
    if isinstance(min_time_s, bool) or not isinstance(min_time_s, (int, float)):
        raise TypeError(f"min_time_s must be a number of seconds, got {min_time_s!r}")
    if not (math.isfinite(min_time_s) and min_time_s > 0):
        raise ValueError(f"min_time_s must be a positive number of seconds, got {min_time_s!r}")
    if isinstance(min_runs, bool) or not isinstance(min_runs, int) or min_runs < 2:
        raise ValueError(
            f"min_runs must be an integer of at least 2 (a spread needs two runs), got {min_runs!r}"
        )

    if device is not None:
        dev = torch.device(device)
    else:
        dev = _tensor_device(args, kwargs) or torch.get_default_device()
    name = label if label is not None else getattr(fn, "__name__", type(fn).__name__)
    block = _make_block_timer(fn, args, kwargs, dev)

    first_call_s = block(1)

    with _gc_paused():
        number = 1
        # The fastest of three tries: one slow block must not stop calibration early.
        while (elapsed := min(block(number) for _ in range(3))) < _BLOCK_S:
            # Aim a little past the target so calibration rarely needs another round.
            grow = 1.2 * _BLOCK_S / elapsed if elapsed > 0 else 10.0
            number = max(number + 1, min(int(number * grow), number * 100))
        warm_s = 0.0
        while warm_s < _WARMUP_FRACTION * min_time_s:
            warm_s += block(number)

        totals: list[float] = []
        while len(totals) < min_runs or sum(totals) < min_time_s:
            totals.append(block(number))

    per_call = tuple(t / number for t in totals)
    q1, _, q3 = statistics.quantiles(per_call, n=4, method="inclusive")
    return Measurement(
        label=name,
        median_s=statistics.median(per_call),
        iqr_s=q3 - q1,
        runs=len(per_call),
        calls_per_run=number,
        first_call_s=first_call_s,
        threads=torch.get_num_threads(),
        device=str(dev),
        times_s=per_call,
    )
