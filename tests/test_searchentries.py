"""docs/_ext/searchentries.py: a rebuild's searchindex.js holds the index entries a clean build's does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

import searchentries  # on the path through pytest's pythonpath setting

PAGES = {
    "index.rst": "Home\n====\n\n.. toctree::\n\n   alpha\n   beta\n",
    "alpha.rst": (
        "Alpha\n=====\n\n.. index:: single: first entry\n\n.. index:: pair: Second; entry\n\n"
        ".. index:: single: shared entry\n\nText.\n"
    ),
    "beta.rst": (
        "Beta\n====\n\n.. index:: single: third entry\n   :name: third\n\n.. index:: ! main entry\n\n"
        ".. index:: single: shared entry\n\nMore text.\n"
    ),
}


def _project(folder: Path, pages: dict[str, str], extensions: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conf.py").write_text(f"extensions = {extensions!r}\n")
    for name, text in pages.items():
        (folder / name).write_text(text)
    return folder


def _build(source: Path, out: Path) -> dict[str, list[tuple[str, str, bool]]]:
    """Build ``source`` into ``out`` (incrementally if ``out`` holds a build); its index entries."""
    assert (
        build_main(["-q", "-b", "html", "-d", str(out / ".doctrees"), str(source), str(out)]) == 0
    )
    text = (out / "searchindex.js").read_text(encoding="utf-8")
    frozen = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    names = frozen["docnames"]
    return {
        entry: sorted((names[doc], target, main) for doc, target, main in places)
        for entry, places in frozen["indexentries"].items()
    }


@pytest.mark.parametrize(
    "change",
    ["nothing", "a page's entry", "a page removed"],
)
def test_a_rebuild_writes_the_index_entries_a_clean_build_writes(tmp_path, change):
    source = _project(tmp_path / "src", PAGES, ["searchentries"])
    out = tmp_path / "out"
    first = _build(source, out)
    assert {"first entry", "second", "entry", "third entry", "main entry"} <= set(first)
    if change == "a page's entry":
        (source / "alpha.rst").write_text(
            PAGES["alpha.rst"].replace("first entry", "renamed entry")
        )
    elif change == "a page removed":
        (source / "beta.rst").unlink()
        (source / "index.rst").write_text(PAGES["index.rst"].replace("   beta\n", ""))
    rebuilt = _build(source, out)
    clean = _build(source, tmp_path / "clean")
    assert rebuilt == clean
    # The same file, byte for byte: an entry on two pages lists them in the same order.
    assert (out / "searchindex.js").read_bytes() == (tmp_path / "clean/searchindex.js").read_bytes()
    if change == "nothing":
        assert rebuilt == first
    elif change == "a page's entry":
        assert "renamed entry" in rebuilt
        assert "first entry" not in rebuilt
        assert rebuilt["third entry"] == first["third entry"]  # the page not written again
    else:
        assert not any(doc == "beta" for places in rebuilt.values() for doc, _, _ in places)


def test_without_it_a_rebuild_loses_the_entries_of_pages_it_does_not_write(tmp_path, monkeypatch):
    # What the extension is for: Sphinx's own reading back of the index. When a
    # Sphinx release reads the entries back itself, this fails and the extension can go.
    monkeypatch.setattr(searchentries.IndexBuilder, "load", searchentries._load)
    monkeypatch.setattr(searchentries.IndexBuilder, "prune", searchentries._prune)
    source = _project(tmp_path / "src", PAGES, [])
    out = tmp_path / "out"
    first = _build(source, out)
    (source / "alpha.rst").write_text(PAGES["alpha.rst"] + "\nA change.\n")
    rebuilt = _build(source, out)
    assert "third entry" in first
    assert "third entry" not in rebuilt
