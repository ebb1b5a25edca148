"""Run every benchmark page several times and print its verdicts side by side.

A verdict on the site must hold when the page is built again on the same
machine. This runs each page that calls ``cheatsheet.compare`` (found by
reading the sources) as a script in a fresh interpreter, as sphinx-gallery
runs it, ``--repeats`` times (three by default), one page after another so
that runs do not compete for the cores. It records every comparison the page
makes and prints, for each candidate, the verdict of every run. A verdict that
says "faster" in one run and "slower" in another contradicts itself: that is a
flip, and the session lists them and exits with status 1. One that moves between
"about as fast" and a direction sits at the edge of the ±5% band (a true ratio
near 0.95x or 1.05x, where both words are right): it is listed apart, so that a
reader can see how many verdicts a rebuild may word differently.

Run with ``nox -s verdicts`` (``-- --repeats 5``, ``-- --page sdpa`` to narrow).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from page_comparisons import MARK

from cheatsheet.report import verdict_change

ROOT = Path(__file__).resolve().parents[1]
# Runs one page and prints the comparisons it made, after MARK (page_comparisons.py).
RUNNER = Path(__file__).with_name("page_comparisons.py")


def benchmark_pages() -> list[Path]:
    """Return the example pages that compare timings, in a stable order."""
    return sorted(
        p for p in (ROOT / "examples").rglob("*.py") if "compare(" in p.read_text(encoding="utf-8")
    )


def run_page(page: Path) -> tuple[list[dict], float]:
    """Run ``page`` in a fresh interpreter; return its comparisons and its run time."""
    env = {**os.environ, "MPLBACKEND": "agg"}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(
            [sys.executable, str(RUNNER), str(page)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    elapsed = time.perf_counter() - start
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK) :]), elapsed
    raise RuntimeError(f"{page.name} failed:\n{(done.stdout + done.stderr)[-4000:]}")


def _cells(runs: list[list[dict]]) -> dict[tuple[int, str], list[dict | None]]:
    """Line up each candidate's ratio across runs: key (comparison index, label vs baseline)."""
    rows: dict[tuple[int, str], list[dict | None]] = {}
    for r, comparisons in enumerate(runs):
        for i, table in enumerate(comparisons):
            for ratio in table["ratios"]:
                key = (i, f"{ratio['label']} vs {ratio['baseline']}")
                rows.setdefault(key, [None] * len(runs))[r] = ratio
    return rows


def _text(ratio: dict | None) -> str:
    from cheatsheet.report import format_ratio, verdict_word

    if ratio is None:
        return "(not made)"
    return (
        f"{verdict_word(ratio['kind'])} {format_ratio(ratio['speedup'])}x "
        f"[{format_ratio(ratio['low'])}–{format_ratio(ratio['high'])}]"
    )


def main() -> int:
    """Run the pages, print the verdicts side by side and return 1 if any flipped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--page", action="append", help="only pages whose name contains this")
    options = parser.parse_args()
    pages = [
        p for p in benchmark_pages() if not options.page or any(s in p.name for s in options.page)
    ]
    from cheatsheet import environment

    print(environment(), "\n")
    flips, edges = [], []
    for page in pages:
        runs, times = [], []
        for _ in range(options.repeats):
            comparisons, elapsed = run_page(page)
            runs.append(comparisons)
            times.append(elapsed)
        print(f"{page.relative_to(ROOT)}  (runs of {', '.join(f'{t:.0f} s' for t in times)})")
        for (i, name), cells in _cells(runs).items():
            how = verdict_change({c["kind"] for c in cells if c is not None})
            flag = {"flip": "  <-- FLIPS", "edge": "  <-- at the band's edge", "": ""}[how]
            if how:
                (flips if how == "flip" else edges).append(f"{page.name} #{i} {name}")
            print(f"  #{i} {name:45} " + " | ".join(_text(c) for c in cells) + flag)
        print()
    if edges:
        print(f"{len(edges)} verdict(s) moved between a direction and 'about as fast' "
              "(at the band's edge):\n  " + "\n  ".join(edges))  # fmt: skip
    if flips:
        print(
            f"{len(flips)} verdict(s) flipped between faster and slower:\n  " + "\n  ".join(flips)
        )
        return 1
    print(f"No verdict flipped between faster and slower across {options.repeats} runs of "
          f"{len(pages)} page(s).")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
