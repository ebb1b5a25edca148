"""From which torch release each entry works (docs/_ext/since.py): each failure mode planted."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from packaging.version import Version

from cheatsheet import _records as records
from cheatsheet._entries import (
    FAILS,
    FLAKY,
    SKIPPED,
    WORKS,
    CodeBlock,
    Entry,
    block_status,
    load_probes,
    repeated_status,
)
from since import (  # on the path through pytest's pythonpath setting
    Outcome,
    compute,
    date,
    what_is_missing,
)

ROOT = Path(__file__).resolve().parents[1]
V = Version

# -- Dating one part ---------------------------------------------------------------------


def _series(**by_release: str | Outcome) -> dict[Version, Outcome]:
    """Test data only: ``_series(v2_4_1="works", ...)``."""
    found = {}
    for key, value in by_release.items():
        version = V(key[1:].replace("_", "."))
        found[version] = value if isinstance(value, Outcome) else Outcome(value, f"E{version}")
    return found


def test_a_part_that_works_under_the_oldest_release_dates_from_it():
    dating = date(_series(v2_4_1=WORKS, v2_5_1=WORKS))
    assert dating.first == V("2.4.1")
    assert dating.at_oldest
    assert dating.last_failing is None


def test_since_is_the_first_release_after_the_last_failure():
    dating = date(_series(v2_4_1=FAILS, v2_5_1=FAILS, v2_6_0=WORKS, v2_7_1=WORKS))
    assert dating.first == V("2.6.0")
    assert dating.last_failing == (V("2.5.1"), "E2.5.1")
    assert not dating.at_oldest


def test_one_release_failing_between_two_working_ones_is_named_and_does_not_move_the_date():
    dating = date(_series(v2_7_1=FAILS, v2_8_0=WORKS, v2_9_1=FAILS, v2_10_0=WORKS))
    assert dating.first == V("2.8.0")
    assert dating.regressions == ((V("2.9.1"), "E2.9.1"),)
    assert dating.last_failing == (V("2.7.1"), "E2.7.1")


def test_two_failing_releases_in_a_row_do_move_the_date():
    dating = date(_series(v2_4_1=WORKS, v2_5_1=FAILS, v2_6_0=FAILS, v2_7_1=WORKS))
    assert dating.first == V("2.7.1")
    assert dating.regressions == ()


def test_a_release_without_a_record_before_the_first_working_one_keeps_the_since_a_bound():
    chain = [V(v) for v in ("2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.1")]
    dating = date(_series(v2_4_1=FAILS, v2_9_1=WORKS), chain)
    assert dating.first == V("2.9.1")
    assert dating.gap == (V("2.5.1"), V("2.6.0"), V("2.7.1"), V("2.8.0"))
    assert dating.since() == "≤ 2.9"
    # Once every release between is measured, the since is exact.
    full = date(_series(v2_4_1=FAILS, v2_5_1=FAILS, v2_6_0=FAILS, v2_7_1=FAILS, v2_8_0=WORKS,
                        v2_9_1=WORKS), chain)  # fmt: skip
    assert (full.gap, full.since()) == ((), "2.8")


def test_a_gap_is_said_in_the_note_and_not_counted_as_failing(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES)
    sac = _entry("sac", "checkpoint(..., respect_saved_tensors_hooks=True)")
    runs = [
        _record("2.4.1", _row(sac, "import torch\n", _part(FAILS, "ImportError: CheckpointPolicy"),
                              _part(FAILS, "ImportError: CheckpointPolicy"),
                              missing=["torch.utils.checkpoint.CheckpointPolicy"])),
        _record("2.8.0", _row(sac, "import torch\n", _part(WORKS), _part(WORKS))),
    ]  # fmt: skip
    chain = [V(v) for v in ("2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0")]
    since = compute(runs, {("p/a", "sac"): sac}, probes, chain).since["sac"]
    assert since.role_text() == "≤ 2.8"
    note = since.note()
    assert "did not work under 2.4.1" in note
    assert "works under 2.8.0" in note
    assert "2.5.1, 2.6.0 and 2.7.1" in note or "2.5.1–2.7.1" in note, note
    assert "Needs torch" not in note


def test_a_failure_that_did_not_reproduce_is_flaky_and_does_not_move_the_date():
    flaky = Outcome(FLAKY, "timed out after 300 s", runs=3, failures=1)
    dating = date(_series(v2_4_1=FAILS, v2_5_1=flaky, v2_6_0=WORKS))
    assert dating.first == V("2.5.1")
    assert dating.flaky == ((V("2.5.1"), "failed 1 of 3 runs: timed out after 300 s"),)


def test_a_skip_is_not_a_pass():
    skipped = Outcome(SKIPPED, "not installed under this release: onnxscript")
    dating = date(_series(v2_4_1=skipped, v2_5_1=WORKS))
    assert dating.first == V("2.5.1")
    assert not dating.at_oldest  # the oldest release measured nothing
    assert dating.unmeasured == ((V("2.4.1"), "not installed under this release: onnxscript"),)
    assert date(_series(v2_4_1=skipped)).first is None


def test_a_part_failing_under_the_newest_release_measured_has_no_since():
    assert date(_series(v2_4_1=WORKS, v2_5_1=FAILS)).first is None
    assert date({}).first is None


# -- The one rule for "works", and repeated runs ---------------------------------------


def test_code_that_prints_skipped_did_not_run_its_call():
    assert block_status(True, "x\nskipped: no CUDA device here\n") == SKIPPED
    assert block_status(True, "[rank0]: Skipped the GPU part\n") == SKIPPED
    assert block_status(True, "tiles skipped: 40%\n") == WORKS
    assert block_status(False, "skipped: ...") == FAILS


def test_a_failure_counts_only_when_every_run_failed():
    assert repeated_status([FAILS, FAILS, FAILS]) == FAILS
    assert repeated_status([FAILS, WORKS]) == FLAKY
    assert repeated_status([WORKS]) == WORKS
    assert repeated_status([SKIPPED]) == SKIPPED


# -- Entries, from records --------------------------------------------------------------


def _entry(label: str, *codes: str, page: str = "p/a") -> Entry:
    return Entry(page, label, tuple(CodeBlock(f"{page}.py:{n}", c) for n, c in enumerate(codes)))


def _probes(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "probes.toml"
    path.write_text(text)
    return load_probes(path)


def _record(
    version: str, *rows: dict, page: str = "p/a", path: str | None = None, machine: str = "m"
) -> dict:
    """Test data only: a version run's record, of the machine ``machine`` (its CPU's name)."""
    return {
        "page": page,
        "machine_id": machine,
        "machine": {"torch_version": version, "cpu": machine},
        "date": "2026-01-02T00:00:00+00:00",
        "entries": list(rows),
        "_path": path or f"results/{machine}-torch-{version}/{page}.json",
    }


def _part(status: str, error: str = "", runs: int = 1, failures: int | None = None) -> dict:
    if failures is None:
        failures = runs if status == FAILS else 0
    return {"status": status, "runs": runs, "failures": failures, "error": error}


def _row(entry: Entry, probe_code: str, probe: dict | None, *blocks: dict, missing=()) -> dict:
    return {
        "entry": entry.label,
        "source_sha256": entry.digest(probe_code),
        "probe": None if probe is None else {"api_missing": list(missing), **probe},
        "blocks": [
            {"origin": b.origin, **part} for b, part in zip(entry.blocks, blocks, strict=False)
        ],
    }


SAC_PROBES = """
[sac]
call = "create_selective_checkpoint_contexts"
api = ["torch.utils.checkpoint.CheckpointPolicy"]
code = "import torch"
"""


def test_an_optional_newer_argument_gets_its_own_note_and_does_not_date_the_call(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES)
    sac = _entry("sac", "checkpoint(..., respect_saved_tensors_hooks=True)")
    error = "TypeError: forward() got an unexpected keyword argument 'respect_saved_tensors_hooks'"
    runs = [
        _record("2.4.1", _row(sac, "import torch\n", _part(FAILS, "ImportError: CheckpointPolicy"),
                              _part(FAILS, "ImportError: CheckpointPolicy"),
                              missing=["torch.utils.checkpoint.CheckpointPolicy"])),
        _record("2.5.1", _row(sac, "import torch\n", _part(WORKS), _part(FAILS, error))),
        _record("2.13.0", _row(sac, "import torch\n", _part(WORKS), _part(FAILS, error))),
        _record("2.14.1", _row(sac, "import torch\n", _part(WORKS), _part(WORKS))),
    ]  # fmt: skip
    state = compute(runs, {("p/a", "sac"): sac}, probes)
    since = state.since["sac"]
    assert since.release == "2.5"
    assert since.role_text() == "2.5"
    note = since.note()
    assert "Needs torch 2.5 or newer" in note
    assert "`create_selective_checkpoint_contexts` did not work under 2.4.1" in note
    assert "`respect_saved_tensors_hooks=`, which needs 2.14 (under 2.13.0:" in note
    assert state.problems == []
    assert state.stale == []


FLEX_PROBES = """
[flex]
call = "torch.compile(flex_attention) on the CPU"
code = "import torch"
"""


def test_machines_that_disagree_under_a_release_each_get_their_since(tmp_path):
    probes = _probes(tmp_path, FLEX_PROBES)
    flex = _entry("flex", "torch.compile(flex_attention)(q, k, v)")
    cpp = "torch._inductor.exc.InductorError: CppCompileError: C++ compile error"

    def run(version: str, status: str, machine: str) -> dict:
        error = cpp if status == FAILS else ""
        row = _row(flex, "import torch\n", _part(status, error), _part(status, error))
        return _record(version, row, machine=machine)

    runs = [
        run("2.6.0", WORKS, "Xeon"), run("2.7.1", FAILS, "Xeon"), run("2.8.0", FAILS, "Xeon"),
        run("2.9.1", WORKS, "Xeon"), run("2.6.0", WORKS, "Epyc"), run("2.7.1", WORKS, "Epyc"),
        run("2.8.0", WORKS, "Epyc"), run("2.9.1", WORKS, "Epyc"),
    ]  # fmt: skip
    since = compute(runs, {("p/a", "flex"): flex}, probes).since["flex"]
    assert since.role_text() == "≤ 2.6 or 2.9, by machine"
    note = since.note()
    assert (
        "depends on the machine: under 2.7.1 and 2.8.0 it works on Epyc and fails on Xeon" in note
    )
    assert "CppCompileError" in note
    assert "on Epyc, ≤ 2.6; on Xeon, 2.9." in note
    # The same records from one machine only: one since, no word of machines.
    one = compute([r for r in runs if r["machine_id"] == "Xeon"], {("p/a", "flex"): flex}, probes)
    assert one.since["flex"].role_text() == "2.9"
    assert "machine" not in one.since["flex"].note()


def test_a_skipped_probe_is_not_measured_never_works(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES.replace("[sac]", "[onnx]").replace("sac", "onnx"))
    onnx = _entry("onnx", "torch.onnx.export(m, (x,), dynamo=True)")
    skipped = _part(SKIPPED, "not installed under this release: onnxscript", runs=0)
    runs = [
        _record("2.4.1", _row(onnx, "import torch\n", skipped, _part(SKIPPED, "skipped: no onnx"))),
        _record("2.5.1", _row(onnx, "import torch\n", _part(WORKS), _part(WORKS))),
    ]  # fmt: skip
    since = compute(runs, {("p/a", "onnx"): onnx}, probes).since["onnx"]
    assert since.release == "2.5"  # not "≤ 2.4": nothing was measured under 2.4.1
    assert "Not measured under 2.4.1: not installed under this release: onnxscript" in since.note()


def test_a_one_off_crash_is_flaky_and_a_middle_failure_is_named(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES.replace("sac", "pp"))
    pp = _entry("pp", "ScheduleGPipe(...)")
    runs = [
        _record("2.7.1", _row(pp, "import torch\n", _part(FAILS, "ImportError: x"), _part(FAILS))),
        _record("2.8.0", _row(pp, "import torch\n", _part(FLAKY, "timed out", 3, 1), _part(WORKS))),
        _record("2.9.1", _row(pp, "import torch\n", _part(FAILS, "(killed by SIGABRT)"), _part(WORKS))),
        _record("2.10.0", _row(pp, "import torch\n", _part(WORKS), _part(WORKS))),
    ]  # fmt: skip
    since = compute(runs, {("p/a", "pp"): pp}, probes).since["pp"]
    assert since.release == "2.8"
    note = since.note()
    assert "It fails under 2.9.1 only ((killed by SIGABRT))." in note
    assert "Under 2.8.0 it is flaky (failed 1 of 3 runs: timed out)." in note


def test_a_record_of_older_code_is_stale_and_names_the_command_that_refreshes_it(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES)
    old, new = _entry("sac", "old code"), _entry("sac", "new code")
    runs = [
        _record("2.4.1", _row(old, "import torch\n", _part(WORKS), _part(WORKS))),
        _record("2.6.0", _row(old, "import torch\n", _part(WORKS), _part(WORKS))),
    ]
    state = compute(runs, {("p/a", "sac"): new}, probes)
    assert "sac" not in state.since  # a stale record dates nothing
    assert len(state.stale) == 2
    assert (
        "results/m-torch-2.4.1/p/a.json: the record of 'sac' was measured from other code"
        in (state.stale[0])
    )
    assert "`nox -s oldest-torch -- examples/p/a.py`" in state.stale[0]
    assert "`nox -s torch-version -- 2.6.0 examples/p/a.py`" in state.stale[1]
    gone = compute(runs, {}, {})
    assert "is no longer on the page" in gone.stale[0]


def test_a_changed_probe_makes_the_record_stale_too(tmp_path):
    entry = _entry("sac", "code")
    runs = [_record("2.4.1", _row(entry, "import torch\n", _part(WORKS), _part(WORKS)))]
    probes = _probes(tmp_path, SAC_PROBES.replace('code = "import torch"', 'code = "import os"'))
    assert compute(runs, {("p/a", "sac"): entry}, probes).stale


def test_a_record_of_a_very_old_torch_dates_only_its_own_entries(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES + SAC_PROBES.replace("sac", "old"))
    sac, old = _entry("sac", "a"), _entry("old", "b", page="p/b")
    runs = [
        _record("2.4.1", _row(sac, "import torch\n", _part(WORKS), _part(WORKS))),
        _record("1.0.0", _row(old, "import torch\n", _part(WORKS), _part(WORKS)), page="p/b"),
    ]
    state = compute(runs, {("p/a", "sac"): sac, ("p/b", "old"): old}, probes)
    assert state.since["sac"].release == "≤ 2.4"
    assert state.since["old"].release == "≤ 1.0"


def test_the_api_check_and_the_call_disagreeing_shows_both(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES.replace("sac", "fsdp"))
    fsdp = _entry("fsdp", "fully_shard(model)")
    code = "import torch\n"
    runs = [
        _record("2.5.1", _row(fsdp, code, _part(FAILS, "ImportError"), missing=["fully_shard"])),
        _record("2.6.0", _row(fsdp, code, _part(FAILS, "AttributeError: record_event"))),
        _record("2.7.1", _row(fsdp, code, _part(FAILS, "AssertionError: not close"))),
        _record("2.8.0", _row(fsdp, code, _part(FAILS, "AssertionError: not close"))),
        _record("2.9.1", _row(fsdp, code, _part(WORKS))),
    ]
    since = compute(runs, {("p/a", "fsdp"): fsdp}, probes).since["fsdp"]
    assert "did not work under 2.7.1 and 2.8.0 (AssertionError: not close)" in since.note()
    assert since.role_text() == "2.9 (API 2.6)"
    assert "The names it needs exist from 2.6.0" in since.note()
    # A reader of 2.6 meets its own failure: named too, not only the last one's.
    assert "It also failed under 2.6.0: AttributeError: record_event." in since.note()
    assert "2.5.1:" not in since.note()  # before the names existed: the API check says it


def test_a_known_upstream_bug_explains_its_releases_and_must_match_the_records(tmp_path):
    probes = _probes(
        tmp_path,
        SAC_PROBES.replace("sac", "fsdp")
        + '\n[[fsdp.known]]\nreleases = ["2.8"]\nsays = "averages gradients wrongly"\n'
        'link = "https://github.com/pytorch/pytorch/issues/1"\n',
    )
    fsdp = _entry("fsdp", "fully_shard(model)")
    code = "import torch\n"
    runs = [
        _record("2.8.0", _row(fsdp, code, _part(FAILS, "AssertionError: not close"))),
        _record("2.9.1", _row(fsdp, code, _part(WORKS))),
    ]
    state = compute(runs, {("p/a", "fsdp"): fsdp}, probes)
    assert "did not work under 2.8.0 (averages gradients wrongly: https://github.com" in (
        state.since["fsdp"].note()
    )
    works = [_record("2.8.0", _row(fsdp, code, _part(WORKS)))]
    [problem] = compute(works, {("p/a", "fsdp"): fsdp}, probes).problems
    assert "says 2.8 averages gradients wrongly, but its record under 2.8.0 shows it working" in (
        problem
    )


def test_an_entry_dated_by_its_code_alone_must_get_a_probe(tmp_path):
    entry = _entry("e", "code")
    runs = [
        _record("2.4.1", _row(entry, "", None, _part(FAILS, "AttributeError: x"))),
        _record("2.6.0", _row(entry, "", None, _part(WORKS))),
    ]
    state = compute(runs, {("p/a", "e"): entry}, {})
    assert state.problems == [
        (
            "'e' (p/a) needs torch 2.6 by its code, but the call it documents is not measured: "
            "give it a probe in docs/probes.toml"
        )
    ]


def test_a_probe_for_no_entry_is_refused_with_a_suggestion(tmp_path):
    probes = _probes(tmp_path, SAC_PROBES.replace("[sac]", "[sca]"))
    state = compute([], {("p/a", "sac"): _entry("sac", "x")}, probes)
    assert state.problems == [
        "docs/probes.toml: [sca] is no entry of any page; did you mean 'sac'?"
    ]


def test_a_bad_probes_file_names_the_entry_and_the_fix(tmp_path):
    with pytest.raises(ValueError, match=r"\[x\] needs a `call` and the probe's `code`"):
        _probes(tmp_path, '[x]\ncall = "f()"\n')
    with pytest.raises(ValueError, match=r"\[x\] has unknown keys \['cal'\]"):
        _probes(tmp_path, '[x]\ncall = "f()"\ncode = "1"\ncal = 1\n')
    with pytest.raises(ValueError, match=r"\[y\] same = 'z', which has no probe"):
        _probes(tmp_path, '[y]\nsame = "z"\n')


@pytest.mark.parametrize(
    ("error", "named"),
    [
        ("TypeError: f() got an unexpected keyword argument 'set_priority'", "`set_priority=`"),
        ("ImportError: cannot import name 'CheckpointPolicy' from 'x'", "`CheckpointPolicy`"),
        ("AttributeError: module 'torch.cpu' has no attribute 'get_capabilities'",
         "`get_capabilities`"),
        ("ModuleNotFoundError: No module named 'torch.nn.attention.flex_attention'",
         "`torch.nn.attention.flex_attention`"),
        ("RuntimeError: something else", ""),
    ],
)  # fmt: skip
def test_what_an_error_says_is_missing(error, named):
    assert what_is_missing(error) == named


# -- Records read from disk --------------------------------------------------------------


def _valid_record() -> dict:
    machine = {
        "cpu": "c", "logical_cores": 2, "torch_threads": 2, "gpus": [],
        "torch_version": "2.4.1+cu121", "cuda_version": "12.1", "python_version": "3.11.7",
        "os": "Linux", "inductor_cpp_compiler": "/usr/bin/c++", "date": "2026-01-02",
        "can_compile": True,
    }  # fmt: skip
    record = records.page_record("p/a", "x", [], machine, "abc", "2026-01-02T00:00:00+00:00")
    row = {"entry": "e", "source_sha256": "0" * 64, "probe": None,
           "blocks": [{"origin": "p/a.py:1", **_part(WORKS)}]}  # fmt: skip
    record["entries"] = [row]
    return record


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda r: r.pop("machine"), r"field \(the record itself\): 'machine' is a required"),
        (lambda r: r["entries"][0]["blocks"][0].update(status="false"),
         r"field entries/0/blocks/0/status: 'false' is not one of"),
        (lambda r: r["machine"].update(torch_version="latest"),
         r"field machine/torch_version: 'latest' does not match"),
    ],
)  # fmt: skip
def test_a_malformed_record_fails_naming_its_file_and_field(tmp_path, spoil, message):
    record = _valid_record()
    path = tmp_path / "p" / "a.json"
    path.parent.mkdir()
    path.write_text(json.dumps(record))
    assert records.read_record(path)["page"] == "p/a"
    spoil(record)
    path.write_text(json.dumps(record))
    with pytest.raises(records.RecordError, match=re.escape(str(path)) + ": " + message):
        records.read_record(path)


def test_a_record_that_is_not_json_fails_naming_its_file(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"page": ')
    with pytest.raises(records.RecordError, match=re.escape(str(path)) + ": not a readable JSON"):
        records.read_record(path)


def test_the_build_checks_a_record_once_until_it_changes_and_a_bad_one_every_time(
    tmp_path, monkeypatch
):
    import machines

    checked, read = [], records.read_record
    monkeypatch.setattr(records, "read_record", lambda p: checked.append(p) or read(p))
    path = tmp_path / "results" / "c-2c-torch-2.4.1" / "p" / "a.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_valid_record()))
    first = machines.load_records(tmp_path / "results")
    first[0]["page"] = "changed by a caller"
    second = machines.load_records(tmp_path / "results")
    assert len(checked) == 1
    assert second[0]["page"] == "p/a"
    assert second[0]["_path"] == "results/c-2c-torch-2.4.1/p/a.json"
    spoiled = _valid_record()
    spoiled.pop("machine")
    path.write_text(json.dumps(spoiled, indent=1))  # another size: read again
    for _ in range(2):
        with pytest.raises(records.RecordError, match="'machine' is a required"):
            machines.load_records(tmp_path / "results")
    assert len(checked) == 3


# -- The committed records and the project's bounds -----------------------------------------


def _version_runs() -> list[dict]:
    return [
        r for r in (records.read_record(p) for p in sorted(ROOT.glob("results/*/*/*.json")))
        if "entries" in r
    ]  # fmt: skip


def test_the_dependency_bounds_are_the_oldest_versions_recorded():
    """pyproject.toml claims what the records show ran, no older."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runs = _version_runs()
    assert runs, "no version records in results/: run nox -s oldest-torch"
    oldest_torch = min(V(V(r["machine"]["torch_version"]).base_version) for r in runs)
    [bound] = [d for d in project["dependencies"] if re.match(r"torch\b", d)]
    assert bound == f"torch>={oldest_torch.major}.{oldest_torch.minor}"
    pythons = {V(r["machine"]["python_version"]) for r in runs}
    oldest_python = min(pythons)
    assert project["requires-python"] == f">={oldest_python.major}.{oldest_python.minor}"


def test_every_entry_the_pytorch2_index_dates_has_a_probe():
    header = (ROOT / "examples" / "pytorch2" / "GALLERY_HEADER.rst").read_text()
    dated = re.findall(r":since:`([\w-]+)`", header)
    assert len(dated) >= 20
    probes = load_probes(ROOT / "docs" / "probes.toml")
    assert set(dated) <= set(probes), sorted(set(dated) - set(probes))


def test_a_version_run_keeps_the_error_line_without_this_machines_folders():
    import torch_versions  # tools/, on the path through pytest's pythonpath setting

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
    killed = "Traceback...\nRuntimeError: boom\nkilled by SIGABRT"
    assert torch_versions._last_line(killed) == "RuntimeError: boom (killed by SIGABRT)"
    rank = (
        "[rank1]: ValueError: bad shard\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "  exitcode  : 1 (pid: 12)\n"
    )
    assert torch_versions._last_line(rank) == "[rank1]: ValueError: bad shard"
    aborted = (  # torchrun's summary of a rank that died of a signal, with no traceback
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "====================================================\n"
        "  exitcode  : -6 (pid: 14139)\n"
        "  traceback : Signal 6 (SIGABRT) received by PID 14139\n"
        "====================================================\n"
    )
    assert torch_versions._last_line(aborted) == (
        "a rank was killed by SIGABRT (torchrun's summary)"
    )
    # The other rank's error follows the abort (its peer is gone): the signal is the cause.
    assert torch_versions._last_line(
        "[rank0]: RuntimeError: Read error: Connection reset by peer\n" + aborted
    ) == ("a rank was killed by SIGABRT (torchrun's summary)")
    banner = "something went wrong\n------------------\n=====\n"
    assert torch_versions._last_line(banner) == "something went wrong"
    # An ImportError names the module's file in parentheses: the whole of it goes.
    module = f"{sys.prefix}/lib/python3.11/site-packages/torchao/quantization/__init__.py"
    assert (
        torch_versions._last_line(
            f"ImportError: cannot import name 'Int8WeightOnlyConfig' from 'torchao.quantization' "
            f"({module})\n"
        )
        == "ImportError: cannot import name 'Int8WeightOnlyConfig' from 'torchao.quantization'"
    )
    alone = f"subprocess.CalledProcessError: Command '['{sys.prefix}/bin/python', '-c']'"
    assert torch_versions._last_line(alone) == (
        "subprocess.CalledProcessError: Command '['<venv>/bin/python', '-c']'"
    )


def test_an_error_that_prints_more_than_is_kept_still_names_itself():
    import torch_versions

    from cheatsheet._blocks import OUTPUT_CHARS, clip_output

    # Inductor's C++ compile error: the exception line, then the compiler's whole report.
    report = "".join(f"/tmp/k.cpp:{n}:4: error: expected primary-expression\n" for n in range(2000))
    output = (
        "Traceback (most recent call last):\n"
        "torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n"
        f"{report}\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace\n"
    )
    assert len(output) > OUTPUT_CHARS
    kept = clip_output(output)
    assert kept.endswith(output[-OUTPUT_CHARS:])
    assert "characters of output cut" in kept
    assert torch_versions._last_line(kept) == (
        "torch._inductor.exc.InductorError: CppCompileError: C++ compile error"
    )
    assert clip_output("short\n") == "short\n"


def test_the_api_check_names_what_a_release_lacks():
    import torch_versions

    assert torch_versions.api_missing(["torch.nn.functional.scaled_dot_product_attention"]) == []
    assert torch_versions.api_missing(["torch.no_such_thing", "torch.nn.Linear(in_features=)"]) == [
        "torch.no_such_thing"
    ]
    assert torch_versions.api_missing(["torch.nn.Linear(in_features=, wings=)"]) == [
        "torch.nn.Linear(wings=)"
    ]


def test_a_later_release_retries_only_the_entries_that_did_not_work(tmp_path):
    import torch_versions

    folder = tmp_path / "m-torch-2.4.1" / "p"
    folder.mkdir(parents=True)
    ok, bad, skip = _entry("ok", "a"), _entry("bad", "b"), _entry("skip", "c")
    run = _record("2.4.1", _row(ok, "", None, _part(WORKS)), _row(bad, "", None, _part(FAILS)),
                  _row(skip, "", None, _part(SKIPPED)))  # fmt: skip
    (folder / "a.json").write_text(json.dumps(run))
    assert torch_versions.not_working(tmp_path / "m-torch-2.4.1") == {
        ("p/a", "bad"),
        ("p/a", "skip"),
    }


# -- A build with an older torch ------------------------------------------------------------


def _older_page(tmp_path, text: str):
    """Test data only: an example page ``basics/p`` under ``tmp_path/examples``."""
    page = tmp_path / "examples" / "basics" / "p.py"
    page.parent.mkdir(parents=True)
    page.write_text(text, encoding="utf-8")
    return page


def _older_build(tmp_path, state, releases: tuple[str, ...]):
    """Test data only: what the older-torch policy reads of a Sphinx app."""
    import types

    config = types.SimpleNamespace(since_releases=releases, html_baseurl="https://x/")
    return types.SimpleNamespace(config=config, confdir=str(tmp_path), _cheatsheet_since=state)


def test_an_entry_needing_a_newer_torch_than_the_builds_does_not_run_and_says_why(
    tmp_path, monkeypatch
):
    import types

    import since as since_ext

    page = _older_page(
        tmp_path,
        '"""\nTitle\n=====\n"""\n\n'
        "# %%\n# .. _e-new:\n#\n# New\n# ---\n\nprint('new call')\n\n"
        "# %%\n# .. _e-old:\n#\n# Old\n# ---\n\nprint('old call')\n",
    )
    new, old = since_ext.page_entries(page, tmp_path)
    probes = _probes(tmp_path, "")
    runs = [
        _record("2.4.1", _row(new, "", None, _part(FAILS, "AttributeError: x")),
                _row(old, "", None, _part(WORKS)), page="basics/p"),
        _record("2.6.0", _row(new, "", None, _part(WORKS)), _row(old, "", None, _part(WORKS)),
                page="basics/p"),
    ]  # fmt: skip
    state = compute(runs, {("basics/p", "e-new"): new, ("basics/p", "e-old"): old}, probes)
    app = _older_build(tmp_path, state, ("2.4.1", "2.6.0"))
    monkeypatch.setattr("torch.__version__", "2.5.1+cpu")
    policy = since_ext.older_torch_policy(app)
    block = types.SimpleNamespace(lineno=int(new.blocks[0].origin.rsplit(":", 1)[1]))
    said = policy(block, {"src_file": str(page)})
    assert said is not None
    assert "needs torch 2.6 or newer" in said
    assert "this build has torch 2.5.1" in said
    assert "https://x/gallery/basics/p.html#e-new" in said
    block = types.SimpleNamespace(lineno=int(old.blocks[0].origin.rsplit(":", 1)[1]))
    assert policy(block, {"src_file": str(page)}) is None
    # Under the newest release the records cover, every block runs as written.
    monkeypatch.setattr("torch.__version__", "2.6.0")
    assert since_ext.older_torch_policy(app)(block, {"src_file": str(page)}) is None


def test_an_entry_whose_probe_never_ran_here_is_held_back_by_its_blocks_own_runs(
    tmp_path, monkeypatch
):
    import types

    import since as since_ext

    page = _older_page(
        tmp_path,
        '"""\nTitle\n=====\n"""\n\n# %%\n# .. _e-gpu:\n#\n# GPU\n# ---\n\nprint(1)\n',
    )
    [gpu] = since_ext.page_entries(page, tmp_path)
    probes = _probes(tmp_path, '[e-gpu]\ncall = "c()"\ncode = "import torch"\n')
    code = probes["e-gpu"].code
    skipped = _part(SKIPPED, "skipped: needs a GPU")
    runs = [
        _record(
            "2.4.1", _row(gpu, code, skipped, _part(FAILS, "AttributeError: c")), page="basics/p"
        ),
        _record("2.6.0", _row(gpu, code, skipped, _part(WORKS)), page="basics/p"),
    ]
    state = compute(runs, {("basics/p", "e-gpu"): gpu}, probes)
    assert "e-gpu" not in state.since  # the call was never measured: no since to show
    app = _older_build(tmp_path, state, ("2.4.1", "2.6.0"))
    monkeypatch.setattr("torch.__version__", "2.5.1+cpu")
    block = types.SimpleNamespace(lineno=int(gpu.blocks[0].origin.rsplit(":", 1)[1]))
    said = since_ext.older_torch_policy(app)(block, {"src_file": str(page)})
    assert said is not None
    assert "needs torch 2.6 or newer (measured, it failed under 2.4.1)" in said


def test_a_block_that_failed_under_the_builds_release_is_held_back_though_nothing_dates_it(
    tmp_path, monkeypatch
):
    import types

    import since as since_ext

    page = _older_page(
        tmp_path,
        '"""\nTitle\n=====\n"""\n\n# %%\n# .. _e-mixed:\n#\n# Mixed\n# ---\n\nprint(1)\n'
        "\n# %%\n\nprint(2)\n",
    )
    [mixed] = since_ext.page_entries(page, tmp_path)
    probes = _probes(tmp_path, '[e-mixed]\ncall = "c()"\ncode = "import torch"\n')
    code = probes["e-mixed"].code
    works, fails = _part(WORKS), _part(FAILS, "AttributeError: module 'torch' has no attribute 'x'")
    skipped = _part(SKIPPED, "skipped: needs a GPU")
    runs = [  # a GPU's call, never measured; its second block failed under 2.4.1 before
        # reaching its GPU check, and skipped later: no release dates it, 2.4.1 holds it back
        _record("2.4.1", _row(mixed, code, skipped, works, fails), page="basics/p"),
        _record("2.5.1", _row(mixed, code, skipped, works, skipped), page="basics/p"),
    ]
    state = compute(runs, {("basics/p", "e-mixed"): mixed}, probes)
    app = _older_build(tmp_path, state, ("2.4.1", "2.5.1"))
    monkeypatch.setattr("torch.__version__", "2.4.1+cpu")
    policy = since_ext.older_torch_policy(app)
    first, second = (
        types.SimpleNamespace(lineno=int(b.origin.rsplit(":", 1)[1])) for b in mixed.blocks
    )
    assert policy(first, {"src_file": str(page)}) is None
    said = policy(second, {"src_file": str(page)})
    assert said is not None
    assert "failed under torch 2.4.1 (measured: AttributeError: module 'torch'" in said
    assert "https://x/gallery/basics/p.html#e-mixed" in said
    monkeypatch.setattr("torch.__version__", "2.5.1+cpu")  # its record there measured nothing
    assert since_ext.older_torch_policy(app)(second, {"src_file": str(page)}) is None


def test_under_an_older_torch_the_pages_warnings_are_printed_not_errors(monkeypatch):
    import types

    import blockexec
    import pagestate
    import since as since_ext

    monkeypatch.setattr(pagestate, "warnings_fail_pages", True)
    monkeypatch.setattr(blockexec, "POLICIES", list(blockexec.POLICIES))
    config = types.SimpleNamespace(since_releases=("2.4.1", "2.14.1"), html_baseurl="https://x/")
    app = types.SimpleNamespace(config=config, confdir=".")
    monkeypatch.setattr("torch.__version__", "2.14.1+cu130")
    since_ext._add_policy(app)
    assert pagestate.warnings_fail_pages  # the site's own torch: a warning fails the build
    monkeypatch.setattr("torch.__version__", "2.13.0+cpu")
    since_ext._add_policy(app)
    assert not pagestate.warnings_fail_pages


@pytest.mark.slow
def test_a_probe_whose_ranks_hang_in_sessions_of_their_own_times_out_leaving_nothing():
    import os

    import torch_versions

    from cheatsheet import _torchrun as torchrun

    before = set(torchrun._below(os.getpid()))
    # torchrun starts each rank in a session of its own (os.setsid() fails there):
    # killing the agent's session does not reach them.
    hangs = (
        "import os, time\nassert os.getsid(0) == os.getpid()\n"
        "print('rank started', flush=True)\ntime.sleep(300)\n"
    )
    started = time.monotonic()
    # Four times what torchrun takes to start ranks that import no torch on a busy
    # two-core machine; the ranks must have started for the test to mean anything.
    ok, output = torch_versions.run_probe_once(hangs, 2, timeout_s=12)
    assert not ok
    assert "timed out after 12 s" in output
    assert "rank started" in output
    assert time.monotonic() - started < 90, "the version run waited on the hung ranks"
    assert set(torchrun._below(os.getpid())) <= before, "a rank outlived the probe"


def test_the_entries_to_run_again_come_from_every_machine_s_records_of_the_oldest(tmp_path):
    import torch_versions

    def record(folder, page, **works):
        rows = [{"entry": e, "probe": None, "blocks": [{"status": WORKS if ok else FAILS}]}
                for e, ok in works.items()]  # fmt: skip
        path = tmp_path / folder / page.split("/")[0] / f"{page.split('/')[1]}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"page": page, "entries": rows}))
        return tmp_path / folder

    amd = record("amd-torch-2.4.1", "basics/a", one=True, two=False)
    intel = record("intel-torch-2.4.1", "errors/b", three=False, four=True)
    assert torch_versions.not_working(amd, intel) == {("basics/a", "two"), ("errors/b", "three")}


def test_a_note_leaves_out_the_cut_path_an_older_record_kept():
    # Records made before the version runs removed the whole path end their ImportError
    # with " (<venv>": the note must not show an unclosed parenthesis.
    from since import _short

    kept = "ImportError: cannot import name 'X' from 'torchao.quantization' (<venv>"
    assert _short(kept) == "ImportError: cannot import name 'X' from 'torchao.quantization'"
    closed = "ImportError: cannot import name 'X' from 'y' (<repo>/y/__init__.py)"
    assert _short(closed) == "ImportError: cannot import name 'X' from 'y'"
    middle = "RuntimeError: (<venv>) is not at the end"
    assert _short(middle) == middle
    assert _short("E" * 200) == "E" * 159 + "…"
