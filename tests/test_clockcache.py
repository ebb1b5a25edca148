"""tests/clockcache.py: a clock test that passed runs again only when what it ran changed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from blockcache import last_run_line
from clockcache import EVERY_CLOCK, ClockRecord

# CHEATSHEET_EVERY_*=1 in the shell must not change what these tests of the record see.
pytestmark = pytest.mark.usefixtures("without_rerun_switches")


INPUTS = {"torch": "2.14.1", "cpu": "a CPU", "cheatsheet source": "abc"}


def _item(folder: Path, name: str, code: str = "def test(): pass\n") -> SimpleNamespace:
    path = folder / f"test_{name}.py"
    if not path.exists():
        path.write_text(code)
    return SimpleNamespace(nodeid=f"test_{name}.py::test", path=path)


def _report(when: str, outcome: str = "passed") -> SimpleNamespace:
    return SimpleNamespace(
        when=when, failed=outcome == "failed", skipped=outcome == "skipped", duration=1.5
    )


def _run(record: ClockRecord, items, failing=()) -> list[str]:
    """Run what the record does not hold, as pytest would report it; the nodeids run."""
    to_run, _ = record.split(items)
    for item in to_run:
        for when in ("setup", "call", "teardown"):
            failed = when == "call" and item.nodeid in failing
            record.note(item, _report(when, "failed" if failed else "passed"))
    record.save()
    return [i.nodeid for i in to_run]


def test_a_pass_holds_until_the_test_s_file_changes(tmp_path):
    path = tmp_path / "clock.json"
    a, b = _item(tmp_path, "a"), _item(tmp_path, "b")
    assert _run(ClockRecord(path, INPUTS), [a, b]) == [a.nodeid, b.nodeid]
    assert _run(ClockRecord(path, INPUTS), [a, b]) == []
    a.path.write_text("def test(): assert 1\n")
    assert _run(ClockRecord(path, INPUTS), [a, b]) == [a.nodeid]


def test_a_failure_is_never_remembered_and_removes_the_earlier_pass(tmp_path):
    path = tmp_path / "clock.json"
    a = _item(tmp_path, "a")
    _run(ClockRecord(path, INPUTS), [a])
    record = ClockRecord(path, {**INPUTS, "torch": "2.13.0"})  # another torch: runs again
    assert record.changed == ["torch"]
    assert _run(record, [a], failing={a.nodeid}) == [a.nodeid]
    assert _run(ClockRecord(path, {**INPUTS, "torch": "2.13.0"}), [a]) == [a.nodeid]


def test_the_variable_runs_every_clock_test_and_the_summary_names_it(tmp_path, monkeypatch):
    path = tmp_path / "clock.json"
    a = _item(tmp_path, "a")
    _run(ClockRecord(path, INPUTS), [a])
    monkeypatch.setenv(EVERY_CLOCK, "1")
    assert _run(ClockRecord(path, INPUTS), [a]) == [a.nodeid]
    monkeypatch.delenv(EVERY_CLOCK)
    assert _run(ClockRecord(path, INPUTS), [a]) == []
    line = last_run_line(path, 0, "clock tests", every=EVERY_CLOCK)
    assert line.startswith("clock tests: 0 ran now, 1 passed before with the same code")
    assert f"{EVERY_CLOCK}=1 runs them all" in line
