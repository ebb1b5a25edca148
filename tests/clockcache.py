"""Which real-clock tests passed, and under what: a pass holds until that changes.

The tests marked ``clock`` read verdicts off a real clock (each comparison right at
least 19 times in 20), so ``nox -s tests`` runs them last, alone, on quiet cores: 65 s
of the 9.5 minutes a one-page loop took on the 2-core machine (nothing else running).
What they check is the helper package's timing and verdict code on this machine, with
these packages. This file remembers each clock test that passed, by what it ran (its
own test file and ``conftest.py``) and the inputs a block's run depends on
(``blockcache.fresh_inputs``: the helper package's source, Python, the CPU, every
installed version, the environment variables that change what torch does), the way
``blockcache.py`` remembers a block. A change to any of them runs the test again, and
a failure is never remembered.

The record lives beside the built site (``_build/clock-tests.json``), so a clean build
forgets it and a fresh clone (CI) runs every clock test. ``CHEATSHEET_EVERY_CLOCK=1``
runs them all even when the record holds them.
"""

from __future__ import annotations

import datetime
import hashlib
import time
from pathlib import Path

import pytest

from blockcache import fresh_inputs, read_passes, write_passes
from cheatsheet._variables import read

EVERY_CLOCK = "CHEATSHEET_EVERY_CLOCK"
_CONFTEST = Path(__file__).with_name("conftest.py")


def _code(item: pytest.Item) -> str:
    """What a clock test ran besides the helper package: its file and the shared fixtures."""
    return hashlib.sha256(item.path.read_bytes() + _CONFTEST.read_bytes()).hexdigest()


class ClockRecord:
    """The clock tests that passed under one set of inputs.

    Parameters
    ----------
    path : Path
        The record's file; it need not exist yet.
    depends_on : dict of str to str, optional
        This run's inputs; by default :func:`blockcache.fresh_inputs`.
    """

    def __init__(self, path: Path, depends_on: dict[str, str] | None = None) -> None:
        self.path = path
        self.depends_on = fresh_inputs() if depends_on is None else depends_on
        self._passed, self.changed = read_passes(path, self.depends_on)
        self._ran: dict[str, dict | None] = {}  # nodeid: its pass, or None when it failed
        self._before: list[str] = []

    def split(self, items: list[pytest.Item]) -> tuple[list[pytest.Item], list[pytest.Item]]:
        """Return the clock tests to run now and those that passed under these inputs."""
        if read(EVERY_CLOCK) == "1":
            return list(items), []
        before = [i for i in items if self._passed.get(i.nodeid, {}).get("code") == _code(i)]
        self._before = [i.nodeid for i in before]
        return [i for i in items if i not in before], before

    def note(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Take one phase's report of a clock test that ran now."""
        if report.failed or report.skipped:
            self._ran[item.nodeid] = None
        elif report.when == "call" and self._ran.get(item.nodeid, {}) is not None:
            today = datetime.date.today().isoformat()
            self._ran[item.nodeid] = {"code": _code(item), "seconds": round(report.duration, 2),
                                      "on": today}  # fmt: skip

    def save(self) -> None:
        """Remember the passes of this run beside those of the record that still hold."""
        passed = dict(self._passed)
        for nodeid, outcome in self._ran.items():
            if outcome is None:
                passed.pop(nodeid, None)
            else:
                passed[nodeid] = outcome
        last_run = {
            "at": time.time(),
            "ran": len(self._ran),
            "passed before": len(self._before),
            "inputs changed": self.changed,
        }
        write_passes(self.path, self.depends_on, passed, last_run)
