"""The test files start longest first, timed by the last run (tests/testorder.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import testorder

ROOT = Path(__file__).resolve().parents[1]


def _nox_xdist() -> tuple[str, ...]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "XDIST" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError("noxfile.py no longer names its pytest-xdist options XDIST")


XDIST = _nox_xdist()
IDS = ["a.py::one", "a.py::two", "b.py::one", "c.py::one", "c.py::two", "c.py::three"]


def test_files_go_longest_first_and_tests_keep_their_order_inside_a_file():
    seconds = {"a.py::one": 1, "a.py::two": 2, "b.py::one": 40, "c.py::one": 5,
               "c.py::two": 1, "c.py::three": 1}  # fmt: skip
    assert testorder.longest_first(IDS, seconds) == [
        "b.py::one", "c.py::one", "c.py::two", "c.py::three", "a.py::one", "a.py::two"]  # fmt: skip


def test_without_a_record_files_go_by_their_number_of_tests_as_xdist_orders_them():
    assert testorder.longest_first(IDS, {}) == [
        "c.py::one", "c.py::two", "c.py::three", "a.py::one", "a.py::two", "b.py::one"]  # fmt: skip


def test_a_test_not_timed_yet_counts_as_the_mean_of_the_timed_ones():
    # b's new test counts as 10 s (the mean of 2 and 18): b (10) then goes before a (2).
    seconds = {"a.py::one": 2, "c.py::one": 18}
    order = testorder.longest_first(["a.py::one", "b.py::new", "c.py::one"], seconds)
    assert order == ["c.py::one", "b.py::new", "a.py::one"]


def test_only_the_selected_tests_count_toward_a_file():
    # a's slow test was deselected (-m, -k): a no longer goes first.
    seconds = {"a.py::slow": 100, "a.py::fast": 1, "b.py::one": 5}
    assert testorder.longest_first(["a.py::fast", "b.py::one"], seconds) == [
        "b.py::one", "a.py::fast"]  # fmt: skip


def test_a_record_keeps_the_last_time_of_tests_that_did_not_run_now(tmp_path):
    path = tmp_path / "seconds.json"
    testorder.write(path, {"a.py::one": 3.0, "b.py::one": 4.0})
    testorder.write(path, {"a.py::one": 5.0})  # e.g. a run of one file
    assert testorder.read(path) == {"a.py::one": 5.0, "b.py::one": 4.0}
    testorder.write(path, {})  # a run that ran nothing (--collect-only) leaves it
    assert testorder.read(path) == {"a.py::one": 5.0, "b.py::one": 4.0}


def test_a_missing_or_damaged_record_holds_no_times(tmp_path):
    path = tmp_path / "seconds.json"
    assert testorder.read(path) == {}
    for damaged in ("{", "[]", '{"seconds": 3}', '{"seconds": {"a": "x"}}'):
        path.write_text(damaged)
        assert testorder.read(path) == {}
    testorder.write(path, {"a.py::one": 1.0})  # a damaged record is replaced whole
    assert json.loads(path.read_text()) == {"seconds": {"a.py::one": 1.0}}


_CONFTEST = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
import pytest
import testorder

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    testorder.reorder(items, Path({record!r}))
"""

_TEST = """
def test_{n}():
    with open({log!r}, "a") as log:
        log.write("{name}::{n}\\n")
"""


def _ran(tmp_path: Path, *flags: str) -> list[str]:
    log = tmp_path / "ran.txt"
    log.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "1",
               "--dist", "loadfile", *flags, "-c", "/dev/null", "--rootdir", str(tmp_path),
               str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split("::")[0] for line in log.read_text().splitlines()]


@pytest.mark.slow
def test_xdist_runs_the_files_in_the_order_the_nox_session_asks_for(tmp_path):
    record, log = tmp_path / "seconds.json", tmp_path / "ran.txt"
    (tmp_path / "conftest.py").write_text(
        _CONFTEST.format(tests=str(Path(__file__).parent), record=str(record))
    )
    counts = {"test_few": 1, "test_many": 3, "test_some": 2}
    for name, count in counts.items():
        code = "".join(_TEST.format(n=n, name=name, log=str(log)) for n in range(count))
        (tmp_path / f"{name}.py").write_text(code)
    # test_few took longest last time: it goes first, then the others by their times.
    took = {"test_few.py::test_0": 9.0, "test_some.py::test_0": 2.0, "test_some.py::test_1": 2.0}
    testorder.write(record, {**took, **{f"test_many.py::test_{n}": 1.0 for n in range(3)}})
    xdist = [a for a in XDIST if a not in ("-n", "auto", "--dist", "loadfile")]
    assert _ran(tmp_path, *xdist) == ["test_few"] + ["test_some"] * 2 + ["test_many"] * 3
    # Without the session's flag xdist puts the file with most tests first again.
    assert _ran(tmp_path)[:3] == ["test_many"] * 3
