"""How closely cheatsheet.benchmark agrees with torch.utils.benchmark, and how much it moves run to run.

Targets (issue 2): median within 3% of ``Timer.blocked_autorange`` at the same
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
    """Run-to-run spread: (max - min) / median of the per-run medians."""
    return (max(medians) - min(medians)) / statistics.median(medians)


def main() -> None:
    """Measure each workload REPEATS times with both timers, interleaved, and print a table.

    torch.utils.benchmark's own spread, measured in the same loop, is the noise
    floor of the machine: a timer cannot be steadier than the machine it runs on.
    """
    threads = torch.get_num_threads()
    print(environment(), "\n")
    header = (
        f"{'workload':18} {'ours':>9} {'Timer':>9} {'ours/Timer':>11} "
        f"{'spread ours':>12} {'spread Timer':>13}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for name, make in WORKLOADS.items():
        fn, args = make()
        timer = Timer("fn(*args)", globals={"fn": fn, "args": args}, num_threads=threads)
        ours, theirs = [], []
        for _ in range(REPEATS):
            ours.append(benchmark(fn, *args, min_time_s=1.0).median_s)
            theirs.append(timer.blocked_autorange(min_run_time=1.0).median)
        ratio = statistics.median(ours) / statistics.median(theirs)
        rows.append((ratio, _spread(ours), _spread(theirs)))
        print(
            f"{name:18} {format_seconds(statistics.median(ours)):>9} "
            f"{format_seconds(statistics.median(theirs)):>9} {ratio:>11.3f} "
            f"{_spread(ours):>12.1%} {_spread(theirs):>13.1%}"
        )
    print(
        f"\nspread = (max - min) / median of the medians of {REPEATS} interleaved runs, "
        f"{threads} threads"
        f"\nworst disagreement with torch.utils.benchmark: "
        f"{max(abs(r - 1) for r, _, _ in rows):.1%} (target 3%)"
        f"\nworst run-to-run spread, ours: {max(s for _, s, _ in rows):.1%} (target 2%); "
        f"torch.utils.benchmark on the same machine: {max(s for _, _, s in rows):.1%}"
    )


if __name__ == "__main__":
    main()
