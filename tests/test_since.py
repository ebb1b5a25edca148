"""From which torch release each entry works (docs/_ext/since.py), and the bounds it sets."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import jsonschema
from packaging.version import Version

from cheatsheet import records
from since import Since, entry_since  # on the path through pytest's pythonpath setting

ROOT = Path(__file__).resolve().parents[1]


def _record(version: str, page: str, *blocks: tuple[str, bool, str]) -> dict:
    """Test data only: a version run's record, each block as (entry, ran, guard)."""
    return {
        "page": page,
        "machine": {"torch_version": version},
        "blocks": [
            {"entry": e, "origin": f"{page}.py:1", "ran": ran,
             "error": "" if ran else f"AttributeError: {e} in {version}",
             **({"guard": guard} if guard else {})}
            for e, ran, guard in blocks
        ],
    }  # fmt: skip


def test_an_entry_that_works_under_the_oldest_release_works_since_then():
    runs = [_record("2.4.1+cu121", "p/a", ("old", True, ""))]
    since = entry_since(runs, "2.14.1+cu130")[("p/a", "old")]
    assert since == Since("p/a", "old", "2.4.1", None, "")
    assert since.at_oldest
    assert since.release == "≤ 2.4"


def test_since_is_the_first_release_tried_after_the_last_failure():
    runs = [
        _record("2.4.1", "p/a", ("new", False, ""), ("new", True, ""), ("old", True, "")),
        _record("2.6.0", "p/a", ("new", True, ""), ("new", False, "")),  # one block fails
        _record("2.5.1", "p/a", ("new", True, ""), ("new", True, "")),  # works, then not
        _record("2.8.0", "p/a", ("new", True, ""), ("new", True, "")),
        _record("2.9.1", "p/a", ("new", True, ""), ("new", True, "")),
    ]
    since = entry_since(runs, "2.14.1")[("p/a", "new")]
    assert (since.first, since.last_failing, since.release) == ("2.8.0", "2.6.0", "2.8")
    assert since.error == "AttributeError: new in 2.6.0"
    assert entry_since(runs, "2.14.1")[("p/a", "old")].at_oldest


def test_a_block_that_only_prints_its_guard_does_not_count_as_working():
    runs = [
        _record("2.4.1", "p/w", ("w", True, "needs torch 2.14 (this is 2.4.1)")),
        _record("2.13.0", "p/w", ("w", True, "needs torch 2.14 (this is 2.13.0)")),
    ]
    since = entry_since(runs, "2.14.1+cu130")[("p/w", "w")]
    assert (since.first, since.release, since.error) == (
        "2.14.1", "2.14", "needs torch 2.14 (this is 2.13.0)"
    )  # fmt: skip


def test_an_entry_failing_under_the_newest_release_tried_gets_no_since():
    runs = [_record("2.4.1", "p/a", ("x", False, "")), _record("2.15.0", "p/a", ("x", False, ""))]
    assert entry_since(runs, "2.14.1") == {}
    assert entry_since([{"page": "p/a", "comparisons": []}], "2.14.1") == {}


def _version_runs() -> list[dict]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(ROOT.glob("results/*/*/*.json"))
        if "blocks" in json.loads(p.read_text(encoding="utf-8"))
    ]


def test_the_committed_version_records_follow_the_schema():
    runs = _version_runs()
    assert runs, "no version records in results/: run nox -s oldest-torch"
    for run in runs:
        jsonschema.validate(run, records.schema())


def test_the_dependency_bounds_are_the_oldest_versions_recorded():
    """pyproject.toml claims what the records show ran, no older."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runs = _version_runs()
    oldest_torch = min(Version(Version(r["machine"]["torch_version"]).base_version) for r in runs)
    [bound] = [d for d in project["dependencies"] if re.match(r"torch\b", d)]
    assert bound == f"torch>={oldest_torch.major}.{oldest_torch.minor}"
    # Every record of the site's pages, in any torch, ran under one of these Pythons.
    pythons = {
        Version(json.loads(p.read_text())["machine"]["python_version"])
        for p in ROOT.glob("results/*/*/*.json")
    }
    oldest_python = min(pythons)
    assert project["requires-python"] == f">={oldest_python.major}.{oldest_python.minor}"


def test_every_entry_the_pytorch2_index_dates_has_a_since():
    header = (ROOT / "examples" / "pytorch2" / "GALLERY_HEADER.rst").read_text()
    dated = re.findall(r":since:`([\w-]+)`", header)
    assert len(dated) >= 20
    known = {entry for _, entry in entry_since(_version_runs(), "99.0")}
    assert set(dated) <= known, sorted(set(dated) - known)


def test_a_version_run_keeps_the_error_line_without_this_machines_folders():
    import torch_versions  # benchmarks/, on the path through pytest's pythonpath setting

    child = (
        "Traceback (most recent call last):\n"
        f'  File "{torch_versions.ROOT}/x.py", line 1\n'
        "AttributeError: module 'torch' has no attribute 'accelerator'\n"
        f"subprocess.CalledProcessError: Command '['{sys.prefix}/bin/python']' returned 1.\n"
    )
    assert torch_versions._last_line(child) == (
        "AttributeError: module 'torch' has no attribute 'accelerator'"
    )
    dynamo = "torch._dynamo.exc.Unsupported: graph break\nSet TORCHDYNAMO_VERBOSE=1 for more: see\n"
    assert torch_versions._last_line(dynamo) == "torch._dynamo.exc.Unsupported: graph break"
    rank = (
        "[rank1]: ValueError: bad shard\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "  exitcode  : 1 (pid: 12)\n"
    )
    assert torch_versions._last_line(rank) == "[rank1]: ValueError: bad shard"
    alone = f"subprocess.CalledProcessError: Command '['{sys.prefix}/bin/python', '-c']'"
    assert torch_versions._last_line(alone) == (
        "subprocess.CalledProcessError: Command '['<venv>/bin/python', '-c']'"
    )


def test_a_later_release_retries_only_the_entries_that_did_not_work(tmp_path):
    import torch_versions

    folder = tmp_path / "m-torch-2.4.1" / "p"
    folder.mkdir(parents=True)
    run = _record("2.4.1", "p/a", ("ok", True, ""), ("bad", False, ""), ("guarded", True, "g"))
    (folder / "a.json").write_text(json.dumps(run))
    assert torch_versions.not_working(tmp_path / "m-torch-2.4.1") == {
        ("p/a", "bad"), ("p/a", "guarded")
    }  # fmt: skip


def test_each_block_of_a_page_belongs_to_the_entry_above_it():
    import torch_versions

    blocks = torch_versions.page_blocks(ROOT / "examples" / "pytorch2" / "whats_new.py")
    entries = [entry for entry, _ in blocks]
    assert entries[0] == "(page top)" or entries[0].startswith("pt2-whats-new-")
    assert "pt2-whats-new-polar" in entries
    polar = next(b for e, b in blocks if e == "pt2-whats-new-polar")
    assert "torch.linalg.polar" in polar.code
