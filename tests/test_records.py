"""Page records: what compare() and benchmark() note, the record format, the site's records."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import torch

from cheatsheet import _records as records
from cheatsheet import benchmark, compare

MACHINE = {
    "cpu": "AMD EPYC 9454 48-Core Processor",
    "logical_cores": 2,
    "torch_threads": 2,
    "gpus": [],
    "torch_version": "2.13.0+cpu",
    "cuda_version": "none",
    "python_version": "3.11.7",
    "os": "Linux 6.1",
    "inductor_cpp_compiler": "/usr/bin/g++",
    "date": "2026-11-23",
    "can_compile": True,
}


@pytest.fixture(autouse=True)
def _no_leftover_notes():
    records.take()
    yield
    records.take()


def _record(notes, **changes):
    fields = {
        "page": "pytorch2/sdpa",
        "source": "print('hi')\n",
        "notes": notes,
        "machine": MACHINE,
        "commit": "0" * 40,
        "date": "2026-11-23T10:00:00+00:00",
    }
    return records.page_record(**{**fields, **changes})


@pytest.mark.slow
def test_compare_and_benchmark_note_what_they_measured():
    x = torch.ones(8)
    compare({"relu": torch.relu, "abs": torch.abs}, x, budget_s=0.2, min_rounds=6)
    benchmark(torch.neg, x, budget_s=0.1, min_runs=3)
    notes = records.take()
    assert [n["kind"] for n in notes] == ["comparison", "measurement"]
    assert [m["label"] for m in notes[0]["measurements"]] == ["relu", "abs"]
    assert notes[1]["label"] == "neg"
    assert records.take() == []


@pytest.mark.slow
def test_a_record_of_real_results_follows_the_schema():
    x = torch.ones(8)
    compare({"relu": torch.relu, "abs": torch.abs}, x, budget_s=0.2, min_rounds=6)
    benchmark(torch.neg, x, budget_s=0.1, min_runs=3)
    record = json.loads(json.dumps(_record(records.take())))
    jsonschema.validate(record, records.schema())
    assert record["comparisons"][0]["ratios"][0]["sentence"].startswith("abs is")


def test_the_same_candidates_twice_on_a_page_get_numbered_keys():
    comparison = {
        "kind": "comparison",
        "baseline": "a",
        "measurements": [{"label": "a"}, {"label": "b"}],
        "ratios": [],
    }
    record = _record([comparison, comparison, {**comparison, "measurements": [{"label": "c"}]}])
    assert [c["key"] for c in record["comparisons"]] == ["a vs b", "a vs b #2", "c"]


def test_the_schema_refuses_a_record_missing_its_machine_or_with_a_bad_verdict():
    good = _record([])
    jsonschema.validate(good, records.schema())
    without_machine = {k: v for k, v in good.items() if k != "machine"}
    with pytest.raises(jsonschema.ValidationError, match="'machine' is a required property"):
        jsonschema.validate(without_machine, records.schema())
    ratio = {
        "label": "b", "baseline": "a", "speedup": 2.0, "low": 1.8, "high": 2.2,
        "coverage": 0.95, "q1": 1.9, "q3": 2.1, "rounds": 20, "kind": "much faster",
        "sentence": "b is 2x faster than a",
    }  # fmt: skip
    timing = {
        "label": "a", "times_s": [1e-3, 1e-3], "calls_per_run": 1, "first_call_s": 0.0,
        "threads": 1, "device": "cpu", "runs_wanted": 2, "median_s": 1e-3, "iqr_s": 0.0,
    }  # fmt: skip
    comparison = {
        "key": "a vs b",
        "baseline": "a",
        "measurements": [timing, {**timing, "label": "b"}],
    }
    bad = {**good, "comparisons": [{**comparison, "ratios": [ratio]}]}
    with pytest.raises(jsonschema.ValidationError, match="much faster"):
        jsonschema.validate(bad, records.schema())


def test_the_source_digest_changes_with_the_page():
    assert _record([])["source_sha256"] != _record([], source="print('bye')\n")["source_sha256"]


@pytest.mark.parametrize(
    ("machine", "expected"),
    [
        (MACHINE, "amd-epyc-9454-2c"),
        (
            {
                **MACHINE,
                "cpu": "Intel(R) Xeon(R) Platinum 8480+",
                "logical_cores": 16,
                "gpus": ["NVIDIA H100 80GB HBM3 (79.1 GiB)"],
            },
            "intel-xeon-platinum-8480-16c-nvidia-h100-80gb-hbm3-79-1-gib",
        ),
        ({**MACHINE, "cpu": "???"}, "2c"),
    ],
)
def test_machine_ids_are_short_stable_file_names(machine, expected):
    assert records.machine_id(machine) == expected


@pytest.mark.parametrize(
    ("cpu", "named"),
    [
        ("AMD EPYC 9454 48-Core Processor", True),
        ("Intel(R) Xeon(R) Platinum 8480+", True),
        ("Apple M3 Max", True),
        ("Intel(R) Xeon(R) Processor", False),
        ("Intel(R) Xeon(R) CPU @ 2.50GHz", False),
        ("AMD EPYC", False),
        ("aarch64", False),
    ],
)
def test_a_cpu_name_names_its_model_only_with_a_model_number(cpu, named):
    import machines

    assert machines.names_its_model(cpu) is named


def test_two_vms_that_show_one_cpu_name_read_apart_wherever_a_machine_is_named():
    # Two VMs both called "Intel(R) Xeon(R) Processor": their columns, the page stamp
    # and the landing page's list name them by signature, and by torch's kernels.
    import machines

    vm = {**MACHINE, "cpu": "Intel(R) Xeon(R) Processor"}
    sapphire = {**vm, "cpu_signature": "family 6 model 143 stepping 8", "cpu_capability": "AVX512"}
    cascade = {**vm, "cpu_signature": "family 6 model 85 stepping 7"}
    assert machines.cpu_words(sapphire) == (
        "Intel(R) Xeon(R) Processor (family 6 model 143 stepping 8, AVX512 kernels)"
    )
    assert (
        machines.cpu_words(cascade) == "Intel(R) Xeon(R) Processor (family 6 model 85 stepping 7)"
    )
    assert machines.describe_machine(sapphire) == (
        "Intel(R) Xeon(R) Processor (family 6 model 143 stepping 8, 2 logical cores, "
        "2 torch threads, AVX512 kernels), no GPU"
    )
    assert machines.describe_machine(sapphire) != machines.describe_machine(cascade)
    stamps = [machines._stamp({"machine": m, "date": "2026-11-28", "commit": "0" * 40}, None)
              for m in (sapphire, cascade)]  # fmt: skip
    assert stamps[0] != stamps[1]
    # A name that says its model is left as it is, apart from the kernels.
    assert machines.cpu_words({**MACHINE, "cpu_signature": "family 25 model 17"}) == MACHINE["cpu"]


@pytest.mark.site
def test_every_page_of_the_site_has_a_record_that_follows_the_schema(site):
    gallery = site / "gallery"
    pages = sorted(
        f"{p.parent.name}/{p.stem}" for p in gallery.glob("*/*.html") if p.stem != "index"
    )
    found = sorted(f"{p.parent.name}/{p.stem}" for p in (site / "_records").glob("*/*.json"))
    assert found == pages
    schema = records.schema()
    for page in found:
        record = json.loads((site / "_records" / f"{page}.json").read_text(encoding="utf-8"))
        jsonschema.validate(record, schema)
        assert record["page"] == page


def test_a_script_that_ran_is_named_in_the_record_and_follows_the_schema():
    script = {"sha256": "a" * 64, "command": "torchrun --nproc-per-node=2 hello.py", "seconds": 3.2}
    record = _record([{"kind": "script", **script}])
    jsonschema.validate(json.loads(json.dumps(record)), records.schema())
    assert record["scripts"] == [script]
    assert record["measurements"] == []
    assert "scripts" not in _record([])  # a page without scripts keeps the record it had


def test_a_tree_without_git_names_the_commit_it_was_given(tmp_path, monkeypatch):
    # The tree sent to another machine (no .git) still names its commit, when told it.
    import pagerecords

    page = tmp_path / "page.py"
    page.write_text("x = 1\n")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv(pagerecords.COMMIT_ENV, raising=False)
    assert pagerecords._commit(page) == "unknown"
    monkeypatch.setenv(pagerecords.COMMIT_ENV, "0123abc")
    assert pagerecords._commit(page) == "0123abc"


def test_the_commit_given_wins_over_a_git_that_travelled_with_the_tree(monkeypatch):
    # A GPU machine's copy carried a .git of an older commit than its files: told the
    # commit, the record names it, not the .git's HEAD with -dirty.
    import pagerecords

    page = Path(pagerecords.__file__)
    monkeypatch.delenv(pagerecords.COMMIT_ENV, raising=False)
    assert pagerecords._commit(page) not in ("unknown", "0123abc")
    monkeypatch.setenv(pagerecords.COMMIT_ENV, "0123abc")
    assert pagerecords._commit(page) == "0123abc"


def test_pages_show_anew_when_a_record_or_the_code_rendering_records_changes(tmp_path, monkeypatch):
    # The digest that makes Sphinx read the gallery again: a record, and the code that
    # turns records into notes and tables (since.py, machines.py), both count.
    import machines

    assert {p.name for p in machines.RENDERERS if p.is_file()} == {"machines.py", "since.py"}
    renderer = tmp_path / "since.py"
    renderer.write_text("NOTE = 'one'\n")
    monkeypatch.setattr(machines, "RENDERERS", (renderer,))
    results = tmp_path / "results"
    (results / "m" / "basics").mkdir(parents=True)
    record = results / "m" / "basics" / "page.json"
    record.write_text("{}")
    first = machines._results_digest(results)
    assert machines._results_digest(results) == first
    renderer.write_text("NOTE = 'two'\n")
    second = machines._results_digest(results)
    assert second != first
    record.write_text('{"x": 1}')
    assert machines._results_digest(results) != second


# -- Records that cannot lie ---------------------------------------------------------


def _comparison_note(label: str = "b") -> dict:
    from cheatsheet.report import Comparison, _paired_ratio
    from cheatsheet.timing import Measurement

    base = Measurement("a", tuple(2e-3 + i * 1e-6 for i in range(20)), 1, 0.0, 1, "cpu", 20)
    other = Measurement(
        label, tuple(1e-3 + (i % 3) * 1e-6 for i in range(20)), 1, 0.0, 1, "cpu", 20
    )
    comparison = Comparison((base, other), "a", (_paired_ratio(base, other),))
    return {"kind": "comparison", **comparison.as_dict()}


def _filed(tmp_path, record, folder=None, name=None):
    path = tmp_path / (folder or record["machine_id"]) / record["page"].split("/")[0]
    path = path / (name or record["page"].split("/")[1] + ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, allow_nan=True), encoding="utf-8")
    return path


def test_a_record_true_to_itself_is_read(tmp_path):
    record = json.loads(json.dumps(_record([_comparison_note()])))
    assert record["comparisons"][0]["ratios"][0]["kind"] == "faster"
    assert records.read_record(_filed(tmp_path, record)) == record


def _spoil_kind(r):
    # 2x faster, its interval wholly above 1, filed as slower
    r["comparisons"][0]["ratios"][0]["kind"] = "slower"


def _spoil_interval(r):
    r["comparisons"][0]["ratios"][0].update(speedup=9.0, low=0.1, high=0.2)


def _spoil_sentence(r):
    r["comparisons"][0]["ratios"][0]["sentence"] = "b is 20x faster than a (19–21x)"


def _spoil_median(r):
    r["comparisons"][0]["measurements"][0]["median_s"] = 1.0


def _spoil_key(r):
    r["comparisons"][0]["key"] = "x vs y"


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda r: r["comparisons"][0]["ratios"][0].update(speedup=math.nan),
         "not a readable JSON record: NaN is not a number"),
        (lambda r: r["comparisons"][0]["measurements"][0].update(median_s=math.inf),
         "not a readable JSON record: Infinity is not a number"),
        (_spoil_kind, r"field comparisons/0/ratios/0/kind: 'slower', but its interval .* gives 'faster'"),
        (_spoil_interval, r"field comparisons/0/ratios/0: speedup 9.0 lies outside its interval"),
        (_spoil_sentence, r"field comparisons/0/ratios/0/sentence: 'b is 20x"),
        (_spoil_median, r"field comparisons/0/measurements/0/median_s: 1.0, but its times give"),
        (_spoil_key, r"field comparisons/0/key: 'x vs y' is not what its labels give"),
        (lambda r: r["comparisons"][0]["measurements"][0].update(calls_per_run=0),
         r"field comparisons/0/measurements/0/calls_per_run: 0 is less than the minimum of 1"),
        (lambda r: r.update(machine_id="intel-xeon-2c"),
         r"field machine_id: 'intel-xeon-2c', but its machine stamp gives 'amd-epyc-9454-2c'"),
        (lambda r: r.update(page="pytorch2/compile"),
         r"field page: 'pytorch2/compile', but the file is pytorch2/sdpa.json"),
    ],
)  # fmt: skip
def test_a_record_that_contradicts_itself_is_refused_naming_its_file(tmp_path, spoil, message):
    record = json.loads(json.dumps(_record([_comparison_note()])))
    spoil(record)
    path = _filed(tmp_path, record, folder="amd-epyc-9454-2c", name="sdpa.json")
    with pytest.raises(records.RecordError, match=re.escape(str(path)) + ": " + message):
        records.read_record(path)


def test_a_record_nested_too_deep_is_refused_naming_its_file(tmp_path):
    path = tmp_path / "p" / "a.json"
    path.parent.mkdir()
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(records.RecordError, match=re.escape(str(path)) + ": .*nested too deep"):
        records.read_record(path)


def test_a_record_filed_under_another_machine_is_refused(tmp_path):
    import machines

    record = json.loads(json.dumps(_record([])))
    _filed(tmp_path / "results", record)
    assert [r["page"] for r in machines.load_records(tmp_path / "results")] == ["pytorch2/sdpa"]
    shutil.rmtree(tmp_path / "results")
    path = _filed(tmp_path / "results", record, folder="intel-xeon-2c")
    with pytest.raises(records.RecordError, match=re.escape(str(path)) + ": field machine_id: "
                       "the record is of amd-epyc-9454-2c under torch 2.13.0"):  # fmt: skip
        machines.load_records(tmp_path / "results")
    # A version run's folder names its release; a build's record has no place there.
    shutil.rmtree(tmp_path / "results")
    path = _filed(tmp_path / "results", record, folder="amd-epyc-9454-2c-torch-2.13.0")
    with pytest.raises(records.RecordError, match="file it under results/amd-epyc-9454-2c/"):
        machines.load_records(tmp_path / "results")
    record["entries"] = []
    _filed(tmp_path / "results", record, folder="amd-epyc-9454-2c-torch-2.13.0")
    assert len(machines.load_records(tmp_path / "results")) == 1


def test_the_records_of_one_page_are_that_page_s_and_every_file_is_still_checked(tmp_path):
    import machines

    record = json.loads(json.dumps(_record([])))
    _filed(tmp_path / "results", record)
    _filed(tmp_path / "results", {**record, "page": "pytorch2/flex_attention"})
    found = machines.load_records(tmp_path / "results", page="pytorch2/sdpa")
    assert [(r["page"], r["_path"]) for r in found] == [
        ("pytorch2/sdpa", "results/amd-epyc-9454-2c/pytorch2/sdpa.json")
    ]
    assert machines.load_records(tmp_path / "results", page="pytorch2/devices") == []
    spoiled = _filed(tmp_path / "results", {**record, "page": "pytorch2/devices", "date": 7})
    with pytest.raises(records.RecordError, match=re.escape(str(spoiled))):
        machines.load_records(tmp_path / "results", page="pytorch2/sdpa")


def test_filing_a_merge_of_two_machines_keeps_each_under_its_own(tmp_path):
    other = {**MACHINE, "cpu": "Intel(R) Xeon(R) Platinum 8480+", "logical_cores": 16}
    built, results = tmp_path / "_records", tmp_path / "results"
    _filed(built, json.loads(json.dumps(_record([]))), folder=".")
    _filed(built, json.loads(json.dumps(_record([], page="basics/autograd", machine=other))),
           folder=".")  # fmt: skip
    # What the last filing left: a stale record of a removed page, and a note of someone's.
    stale = results / "amd-epyc-9454-2c" / "pytorch2" / "removed_page.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    kept = results / "amd-epyc-9454-2c" / "README.md"
    kept.write_text("notes")
    counts = records.file_records(built, results)
    assert counts == {"amd-epyc-9454-2c": 1, "intel-xeon-platinum-8480-16c": 1}
    assert sorted(p.relative_to(results).as_posix() for p in results.rglob("*.json")) == [
        "amd-epyc-9454-2c/pytorch2/sdpa.json",
        "intel-xeon-platinum-8480-16c/basics/autograd.json",
    ]
    assert kept.read_text() == "notes"
    # A bad record stops the filing before anything is written.
    (built / "basics" / "autograd.json").write_text('{"page": NaN}')
    before = {p: p.read_bytes() for p in results.rglob("*") if p.is_file()}
    with pytest.raises(records.RecordError, match=r"autograd\.json"):
        records.file_records(built, results)
    assert {p: p.read_bytes() for p in results.rglob("*") if p.is_file()} == before


def test_comparison_keys_of_different_labels_never_collide():
    key = records.comparison_key
    assert key(["a vs b", "c"], {}) != key(["a", "b vs c"], {})
    assert key(["a vs b", "c"], {}) == '"a vs b" vs c'
    seen: dict[str, int] = {}
    assert key(["x", "y"], seen) == "x vs y"
    assert key(["x", "y"], seen) == "x vs y #2"
    assert key(["x", "y #2"], seen) != "x vs y #2"
    assert key(["eager", "compiled"], {}) == "eager vs compiled"  # plain labels: as before
