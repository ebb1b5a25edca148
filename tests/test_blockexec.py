"""blockexec: how each code block runs, through sphinx-gallery's own per-block function."""

from __future__ import annotations

import inspect

import pytest
from sphinx_gallery import gen_rst
from sphinx_gallery.py_source_parser import Block

import blockexec  # on the path through pytest's pythonpath setting

MARKED = "\n# torchrun --nproc-per-node=2 hello.py\nimport os\nprint(os.environ['RANK'])\n"


def test_sphinx_gallery_still_runs_every_block_through_execute_code_block():
    # blockexec wraps this function; if sphinx-gallery renames it, changes what it takes
    # or stops calling it for each block, marked blocks would run in the build's process.
    original = getattr(gen_rst.execute_code_block, "__wrapped__", gen_rst.execute_code_block)
    assert list(inspect.signature(original).parameters) == [
        "compiler", "block", "example_globals", "script_vars", "gallery_conf", "file_conf",
    ]  # fmt: skip
    assert "execute_code_block(" in inspect.getsource(gen_rst.execute_script)
    assert Block._fields == ("type", "content", "lineno")
    blockexec.install()
    blockexec.install()  # once is enough: a second install does not wrap twice
    assert gen_rst.execute_code_block.__wrapped__ is original


def test_a_moved_function_fails_the_build_naming_what_to_fix(monkeypatch):
    monkeypatch.delattr(gen_rst, "execute_code_block")
    with pytest.raises(Exception, match="no longer calls execute_code_block") as info:
        blockexec.install()
    assert type(info.value).__name__ == "ExtensionError"


def _executed(block: Block) -> Block:
    """The block that sphinx-gallery's function receives once the policies have run."""
    seen = []
    wrapped = blockexec._policy_runs(lambda compiler, block, *rest: seen.append(block) or "")
    wrapped(None, block, {}, {"src_file": "page.py"}, {}, {})
    return seen[0]


def test_a_marked_block_runs_a_call_to_torchrun_and_other_blocks_run_as_they_are():
    marked = _executed(Block("code", MARKED, 12))
    assert marked.content == f"__import__('blockexec').run_torchrun_block({MARKED!r})\n"
    assert marked.lineno == 12  # a failure still points at the block's line
    plain = Block("code", "print(1)\n", 3)
    assert _executed(plain) is plain
    text = Block("text", MARKED, 1)
    assert _executed(text) is text


def test_a_marked_block_runs_the_script_the_page_shows_without_its_hidden_lines():
    hidden = (
        "# sphinx_gallery_start_ignore\n# a note for maintainers\n# sphinx_gallery_end_ignore\n"
    )
    marked = _executed(Block("code", MARKED + "\n" + hidden, 12))
    assert marked.content == f"__import__('blockexec').run_torchrun_block({MARKED + chr(10)!r})\n"


def test_the_first_policy_that_claims_a_block_decides(monkeypatch):
    never, first, second = (lambda b, v: None), (lambda b, v: "first\n"), (lambda b, v: "2\n")
    monkeypatch.setattr(blockexec, "POLICIES", [never, first, second])
    assert _executed(Block("code", "print(1)\n", 1)).content == "first\n"


def test_a_marked_block_prints_each_rank_s_lines_from_a_real_torchrun(capsys):
    from cheatsheet import _records as records
    from cheatsheet._blocks import script_digest

    records.take()
    blockexec.run_torchrun_block(MARKED)
    assert capsys.readouterr().out.splitlines() == ["[rank0]: 0", "[rank1]: 1"]
    # The page's record names the script and the reader's command that ran it.
    [noted] = records.take()
    assert noted["kind"] == "script"
    assert noted["sha256"] == script_digest(MARKED)
    assert noted["command"] == "torchrun --nproc-per-node=2 hello.py"


WARNS = "# torchrun --nproc-per-node=2 warns.py\nimport warnings\nwarnings.warn('planted')\n"


def test_a_warning_a_rank_prints_fails_the_block():
    with pytest.raises(RuntimeError, match=r"a rank printed a warning") as info:
        blockexec.run_torchrun_block(WARNS)
    assert "UserWarning: planted" in str(info.value)


def test_under_an_older_torch_a_rank_s_warning_is_shown_not_an_error(monkeypatch, capsys):
    import pagestate

    monkeypatch.setattr(pagestate, "warnings_fail_pages", False)
    blockexec.run_torchrun_block(WARNS)
    assert "UserWarning: planted" in capsys.readouterr().out


def test_a_script_that_aborts_as_python_shuts_down_gets_one_more_run(tmp_path, capsys):
    # The first run prints its lines and then aborts as a rank did while gloo's threads
    # still ran at exit; the second run is the one the page shows.
    runs = tmp_path / "runs"
    aborts = (
        "# torchrun --nproc-per-node=1 aborts.py\nimport os, sys\nfrom pathlib import Path\n"
        f"runs = Path({str(runs)!r})\nruns.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
        "print('finished', len(runs.read_text()))\nif runs.read_text() == 'x':\n"
        "    print('terminate called without an active exception', file=sys.stderr, flush=True)\n"
        "    os.abort()\n"
    )
    blockexec.run_torchrun_block(aborts)
    assert capsys.readouterr().out.splitlines() == ["[rank0]: finished 2"]
    assert runs.read_text() == "xx"


def test_a_script_that_fails_otherwise_fails_at_once(tmp_path):
    runs = tmp_path / "runs"
    fails = (
        "# torchrun --nproc-per-node=1 fails.py\nfrom pathlib import Path\n"
        f"runs = Path({str(runs)!r})\nruns.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
        "raise ValueError('a real bug')\n"
    )
    with pytest.raises(Exception, match="a real bug"):
        blockexec.run_torchrun_block(fails)
    assert runs.read_text() == "x"


def _no_namespace(monkeypatch):
    from cheatsheet import _torchrun

    monkeypatch.setattr(_torchrun, "_namespace", lambda: ())  # as where unshare is refused


def test_without_a_network_namespace_a_torchrun_block_fails_before_it_runs(monkeypatch, tmp_path):
    _no_namespace(monkeypatch)
    monkeypatch.delenv("CHEATSHEET_TORCHRUN_ANY_INTERFACE", raising=False)
    ran = tmp_path / "ran"
    code = f"# torchrun --nproc-per-node=1 mark.py\nopen({str(ran)!r}, 'w').close()\n"
    with pytest.raises(RuntimeError, match=r"listen on every interface") as stopped:
        blockexec.run_torchrun_block(code)
    assert "CHEATSHEET_TORCHRUN_ANY_INTERFACE=1" in str(stopped.value)
    assert "apparmor_restrict_unprivileged_userns" in str(stopped.value)
    assert not ran.exists(), "torchrun started all the same"


def test_every_interface_accepted_on_purpose_runs_the_block(monkeypatch, capsys):
    _no_namespace(monkeypatch)
    monkeypatch.setenv("CHEATSHEET_TORCHRUN_ANY_INTERFACE", "1")
    blockexec.run_torchrun_block("# torchrun --nproc-per-node=1 hello.py\nprint('hello')\n")
    assert capsys.readouterr().out.splitlines() == ["[rank0]: hello"]
