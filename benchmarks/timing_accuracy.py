"""How closely cheatsheet.benchmark agrees with torch.utils.benchmark, and how much it moves run to run.

Targets: median within 3% of ``Timer.blocked_autorange`` at the same
thread count, for work of 10 µs or more; run-to-run spread of the median at most 2%.
Run with ``nox -s timingperf``; it prints the figures and changes nothing.
"""

from __future__ import annotations

import statistics

import torch
from torch.utils.benchmark import Timer

from cheatsheet import benchmark, environment, format_seconds

REPEATS = 7
WORKLOADS = {
    "sin, 16k floats": lambda: (torch.sin, (torch.randn(16_384),)),
    "matmul 128x128": lambda: (torch.mm, (torch.randn(128, 128), torch.randn(128, 128))),
    "matmul 512x512": lambda: (torch.mm, (torch.randn(512, 512), torch.randn(512, 512))),
    "softmax 256x1024": lambda: (torch.softmax, (torch.randn(256, 1024), -1)),
}


def _spread(medians: list[float]) -> float:
    """Return (max - min) / median of the per-run medians."""
    return (max(medians) - min(medians)) / statistics.median(medians)


def _iqr_spread(medians: list[float]) -> float:
    """Return IQR / median of the per-run medians, a spread one outlying run cannot dominate."""
    q1, _, q3 = statistics.quantiles(medians, n=4, method="inclusive")
    return (q3 - q1) / statistics.median(medians)


def _measure(threads: int) -> None:
    torch.set_num_threads(threads)
    header = (
        f"{'workload':18} {'ours':>9} {'Timer':>9} {'ours/Timer':>11} "
        f"{'max-min ours':>13} {'max-min Timer':>14} {'IQR ours':>9} {'IQR Timer':>10}"
    )
    print(f"\n{threads} thread(s)\n{header}\n{'-' * len(header)}")
    rows = []
    for name, make in WORKLOADS.items():
        fn, args = make()
        timer = Timer("fn(*args)", globals={"fn": fn, "args": args}, num_threads=threads)
        ours, theirs = [], []
        for _ in range(REPEATS):
            ours.append(benchmark(fn, *args, budget_s=1.0).median_s)
            theirs.append(timer.blocked_autorange(min_run_time=1.0).median)
        ratio = statistics.median(ours) / statistics.median(theirs)
        row = (ratio, _spread(ours), _spread(theirs), _iqr_spread(ours), _iqr_spread(theirs))
        rows.append(row)
        print(
            f"{name:18} {format_seconds(statistics.median(ours)):>9} "
            f"{format_seconds(statistics.median(theirs)):>9} {ratio:>11.3f} "
            f"{row[1]:>13.1%} {row[2]:>14.1%} {row[3]:>9.1%} {row[4]:>10.1%}"
        )
    print(
        f"worst disagreement with torch.utils.benchmark: "
        f"{max(abs(r[0] - 1) for r in rows):.1%} (target 3%)\n"
        f"worst run-to-run spread, ours: {max(r[1] for r in rows):.1%} max-min, "
        f"{max(r[3] for r in rows):.1%} IQR (target 2%); torch.utils.benchmark on the "
        f"same machine: {max(r[2] for r in rows):.1%} max-min, {max(r[4] for r in rows):.1%} IQR"
    )


def main() -> None:
    """Measure each workload REPEATS times with both timers, interleaved, and print tables.

    Spreads are over the medians of REPEATS interleaved runs. torch.utils.benchmark's
    own spread, measured in the same loop, is the noise floor of the machine: a
    timer cannot be steadier than the machine it runs on. Run at the default
    thread count and, where that is above one, at one thread.
    """
    print(environment())
    default = torch.get_num_threads()
    for threads in sorted({default, 1}, reverse=True):
        _measure(threads)
    torch.set_num_threads(default)


if __name__ == "__main__":
    main()
