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

REPEATS = 5
WORKLOADS = {
    "sin, 16k floats": lambda: (torch.sin, (torch.randn(16_384),)),
    "matmul 128x128": lambda: (torch.mm, (torch.randn(128, 128), torch.randn(128, 128))),
    "matmul 512x512": lambda: (torch.mm, (torch.randn(512, 512), torch.randn(512, 512))),
    "softmax 256x1024": lambda: (torch.softmax, (torch.randn(256, 1024), -1)),
}


def main() -> None:
    """Measure each workload REPEATS times with both timers, interleaved, and print a table."""
    threads = torch.get_num_threads()
    print(environment(), "\n")
    header = f"{'workload':18} {'ours':>10} {'Timer':>10} {'ours/Timer':>11} {'spread ours':>12} {'spread Timer':>13}"
    print(header)
    print("-" * len(header))
    worst_agreement = worst_spread = 0.0
    for name, make in WORKLOADS.items():
        fn, args = make()
        timer = Timer("fn(*args)", globals={"fn": fn, "args": args}, num_threads=threads)
        ours, theirs = [], []
        for _ in range(REPEATS):
            ours.append(benchmark(fn, *args, min_time_s=1.0).median_s)
            theirs.append(timer.blocked_autorange(min_run_time=1.0).median)
        ratio = statistics.median(ours) / statistics.median(theirs)
        spread_ours = (max(ours) - min(ours)) / statistics.median(ours)
        spread_theirs = (max(theirs) - min(theirs)) / statistics.median(theirs)
        worst_agreement = max(worst_agreement, abs(ratio - 1))
        worst_spread = max(worst_spread, spread_ours)
        print(
            f"{name:18} {format_seconds(statistics.median(ours)):>10} "
            f"{format_seconds(statistics.median(theirs)):>10} {ratio:>11.3f} "
            f"{spread_ours:>12.1%} {spread_theirs:>13.1%}"
        )
    print(
        f"\nworst disagreement with torch.utils.benchmark: {worst_agreement:.1%} (target 3%)"
        f"\nworst run-to-run spread (max-min over {REPEATS} runs, of the median): "
        f"{worst_spread:.1%} (target 2%)"
    )


if __name__ == "__main__":
    main()
