"""The order in which the test files start: the longest first, timed by the last run.

``nox -s tests`` runs one worker per core (pytest-xdist, ``--dist loadfile``): each file
runs whole on one worker, and a worker that is free takes the next file. By default
xdist hands out the files with the most tests first, which are not the longest ones. In
a run after a one-page change (2 cores, nothing else running), one worker finished
47 s before the other, because the three-shard merge test (53 s) started near the end.
Starting the longest files first (the longest-processing-time rule) leaves the short
files for the end, where they fill whichever worker is free.

Each run records how long each test took (setup, call and teardown) in
``_build/test-seconds.json``, beside the other records, so a clean build forgets it.
The next run orders the files by the seconds that their selected tests took.
``noxfile.py`` passes ``--no-loadscope-reorder``, so that xdist keeps this order. A test
not timed yet counts as the mean of those that were: without a record (a fresh clone),
files go by their number of tests, which is xdist's own order. Only the order changes:
every test still runs, in its file's order, on one worker per file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def file_of(nodeid: str) -> str:
    """The file a test belongs to (its node id up to the first ``::``)."""
    return nodeid.split("::", 1)[0]


def longest_first(nodeids: Iterable[str], seconds: Mapping[str, float]) -> list[str]:
    """Return ``nodeids`` grouped by file, the files in order of their tests' total seconds.

    A test missing from ``seconds`` counts as the mean of those there (1 s when none
    is). Tests keep their order inside a file; files of equal time keep theirs.
    """
    nodeids = list(nodeids)
    known = [seconds[n] for n in nodeids if n in seconds]
    guess = sum(known) / len(known) if known else 1.0
    files: dict[str, list[str]] = {}
    for nodeid in nodeids:
        files.setdefault(file_of(nodeid), []).append(nodeid)
    total = {f: sum(seconds.get(n, guess) for n in ids) for f, ids in files.items()}
    ordered = sorted(files, key=lambda f: -total[f])  # sorted() is stable: ties keep order
    return [nodeid for f in ordered for nodeid in files[f]]


def reorder(items: list[Any], record: Path) -> None:
    """Put pytest's collected ``items`` longest file first, by the seconds in ``record``."""
    by_id = {item.nodeid: item for item in items}
    items[:] = [by_id[nodeid] for nodeid in longest_first(by_id, read(record))]


def read(path: Path) -> dict[str, float]:
    """The seconds each test took when it last ran; empty when the record is missing or damaged."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))["seconds"]
        return {str(k): float(v) for k, v in stored.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def write(path: Path, ran: Mapping[str, float]) -> None:
    """Record the seconds of the tests that ran now, keeping the others' last times."""
    if not ran:
        return
    merged = {**read(path), **ran}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps({"seconds": merged}, indent=0, sort_keys=True) + "\n",
                       encoding="utf-8")  # fmt: skip
    partial.replace(path)
