"""The record of blocks that passed alone (tests/blockcache.py): what runs again, and when."""

from __future__ import annotations

import importlib.metadata
import time

import pytest

from blockcache import EVERY_BLOCK, PassRecord, fresh_inputs, inputs, last_run_line
from snippets import Block, Outcome

INPUTS = {"torch": "2.14.1", "cheatsheet source": "abc"}


# CHEATSHEET_EVERY_*=1 in the shell must not change what these tests of the record see.
pytestmark = pytest.mark.usefixtures("without_rerun_switches")


def _ran(*blocks: Block, ok: bool = True) -> list[Outcome]:
    return [Outcome(b, ok, "", 0.5) for b in blocks]


def test_a_block_that_passed_is_not_run_again_under_the_same_inputs(tmp_path):
    first, second = Block("a", "print(1)\n"), Block("b", "print(2)\n")
    PassRecord(tmp_path / "r.json", INPUTS).save(_ran(first), [first, second])
    to_run, passed = PassRecord(tmp_path / "r.json", INPUTS).split([first, second])
    assert (to_run, passed) == ([second], [first])


@pytest.mark.parametrize(
    "changed",
    [{**INPUTS, "torch": "2.13.0"}, {**INPUTS, "cheatsheet source": "def"}, {**INPUTS, "new": "1"}],
    ids=["torch", "helper package", "a new input"],
)
def test_a_changed_input_runs_the_block_again_and_is_named(tmp_path, changed):
    block = Block("a", "print(1)\n")
    PassRecord(tmp_path / "r.json", INPUTS).save(_ran(block), [block])
    record = PassRecord(tmp_path / "r.json", changed)
    assert record.split([block]) == ([block], [])
    assert record.changed == sorted(k for k in changed if changed[k] != INPUTS.get(k))
    record.save(_ran(block), [block])  # the record now holds the new inputs' passes only
    assert PassRecord(tmp_path / "r.json", changed).passed(block)
    assert not PassRecord(tmp_path / "r.json", INPUTS).passed(block)


def test_changed_code_runs_again_even_at_the_same_place(tmp_path):
    PassRecord(tmp_path / "r.json", INPUTS).save(_ran(Block("a", "print(1)\n")), [])
    edited = Block("a", "print(1)\nprint(2)\n")
    assert PassRecord(tmp_path / "r.json", INPUTS).split([edited]) == ([edited], [])


def test_a_failure_is_never_remembered_and_undoes_an_earlier_pass(tmp_path):
    block = Block("a", "print(1)\n")
    record = PassRecord(tmp_path / "r.json", INPUTS)
    record.save(_ran(block, ok=False), [block])
    assert PassRecord(tmp_path / "r.json", INPUTS).split([block]) == ([block], [])
    record.save(_ran(block), [block])
    assert PassRecord(tmp_path / "r.json", INPUTS).passed(block)
    record.save(_ran(block, ok=False), [block])  # e.g. run again with CHEATSHEET_EVERY_BLOCK=1
    assert not PassRecord(tmp_path / "r.json", INPUTS).passed(block)


def test_a_block_no_longer_shown_leaves_the_record(tmp_path):
    gone, kept = Block("a", "print(1)\n"), Block("b", "print(2)\n")
    PassRecord(tmp_path / "r.json", INPUTS).save(_ran(gone, kept), [gone, kept])
    PassRecord(tmp_path / "r.json", INPUTS).save([], [kept])
    record = PassRecord(tmp_path / "r.json", INPUTS)
    assert (record.passed(gone), record.passed(kept)) == (False, True)


def test_every_block_runs_when_asked(tmp_path, monkeypatch):
    block = Block("a", "print(1)\n")
    PassRecord(tmp_path / "r.json", INPUTS).save(_ran(block), [block])
    monkeypatch.setenv(EVERY_BLOCK, "1")
    assert PassRecord(tmp_path / "r.json", INPUTS).split([block]) == ([block], [])


def test_a_missing_or_damaged_record_runs_every_block(tmp_path):
    block = Block("a", "print(1)\n")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    for path in (tmp_path / "none.json", tmp_path / "bad.json"):
        record = PassRecord(path, INPUTS)
        assert (record.split([block]), record.changed) == (([block], []), [])


def test_the_inputs_cover_every_installed_version_and_what_every_page_depends_on(monkeypatch):
    found = inputs()
    assert {"cheatsheet source", "torch", "cpu", "OMP_NUM_THREADS", "installed"} <= found.keys()
    real = list(importlib.metadata.distributions())
    one = next(d for d in real if d.metadata["Name"])

    class Upgraded:
        metadata = one.metadata
        version = one.version + ".post1"

    monkeypatch.setattr(
        importlib.metadata, "distributions", lambda: [Upgraded, *(d for d in real if d is not one)]
    )
    assert inputs()["installed"] != found["installed"]


def test_a_test_process_s_own_path_does_not_change_the_inputs(monkeypatch, tmp_path):
    # Collecting tests puts folders on sys.path; a block's new interpreter has none of them.
    fresh = fresh_inputs()
    dist = tmp_path / "planted-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: planted\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert inputs()["installed"] != fresh["installed"]
    assert fresh_inputs() == fresh


def test_inductor_s_default_cache_folder_set_is_the_same_input_as_unset(monkeypatch):
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    unset = fresh_inputs()
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", default_cache_dir())
    assert fresh_inputs() == unset
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/somewhere/else")
    assert fresh_inputs()["TORCHINDUCTOR_CACHE_DIR"] == "/somewhere/else"


def test_the_run_s_summary_says_how_many_blocks_ran_and_how_many_passed_before(tmp_path):
    before, edited = Block("a", "print(1)\n"), Block("b", "print(2)\n")
    PassRecord(tmp_path / "r.json", INPUTS).save(_ran(before), [before])
    record = PassRecord(tmp_path / "r.json", INPUTS)
    to_run, _ = record.split([before, edited])
    started = time.time()
    record.save(_ran(*to_run), [before, edited])
    line = last_run_line(tmp_path / "r.json", since=started)
    assert line.startswith("blocks alone: 1 ran now, 1 passed before with the same code")
    assert last_run_line(tmp_path / "r.json", since=time.time() + 60) is None  # an older run's
    PassRecord(tmp_path / "r.json", {**INPUTS, "torch": "2.13.0"}).save([], [before, edited])
    assert "(inputs changed: torch)" in last_run_line(tmp_path / "r.json", since=started)
