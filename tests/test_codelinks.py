"""docs/_ext/codelinks.py: a rebuild links the code of every page it writes, as a clean build does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main
from sphinx_codeautolink.extension import cache

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = ROOT / "docs" / "_inventories" / "torch.inv"  # the site's own, read offline
PAGES = {
    # Markdown pages all: the landing page is written again, not read, when a page it
    # lists changes.
    "index.md": "# Home\n\n```python\nimport torch\nz = torch.eye(2)\n```\n\n"
    "```{toctree}\nalpha\nbeta\n```\n",
    "alpha.md": "# Alpha\n\n```python\nimport torch\nx = torch.zeros(2)\n```\n",
    "beta.md": "# Beta\n\n```python\nimport torch\ny = torch.ones(3).sum()\n```\n",
}


def _project(folder: Path, extensions: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conf.py").write_text(
        f"extensions = ['myst_parser', 'sphinx.ext.intersphinx', *{extensions!r}]\n"
        f"intersphinx_mapping = {{'torch': ('https://docs.pytorch.org/docs/2.14/', {str(INVENTORY)!r})}}\n"
    )
    for name, text in PAGES.items():
        (folder / name).write_text(text)
    return folder


def _build(source: Path, out: Path) -> dict[str, int]:
    """Build ``source`` into ``out`` (incrementally if ``out`` holds a build); code links per page."""
    args = ["-q", "-W", "-b", "html", "-d", str(out / ".doctrees"), str(source), str(out)]
    assert build_main(args) == 0  # -W: a page linked a second time warns
    return {
        page: len(re.findall(r'class="sphinx-codeautolink-a"', (out / f"{page}.html").read_text()))
        for page in ("index", "alpha", "beta")
    }


def _add_extension(source: Path, extension: str) -> None:
    conf = source / "conf.py"
    conf.write_text(conf.read_text() + f"extensions.append({extension!r})\n")


@pytest.mark.parametrize("change", ["nothing", "one page", "the extension list", "an HTML setting"])
def test_a_rebuild_links_what_a_clean_build_links(tmp_path, change, monkeypatch):
    # The extension replaces codeautolink's cache reading for the process: put it back.
    monkeypatch.setattr(cache.DataCache, "read", cache.DataCache.read)
    source = _project(tmp_path / "src", ["codelinks"])
    out = tmp_path / "out"
    first = _build(source, out)
    assert first["index"] >= 2  # torch, torch.eye
    assert first["alpha"] >= 2  # torch, torch.zeros
    assert first["beta"] >= 2  # torch, torch.ones, .sum
    if change == "one page":
        (source / "alpha.md").write_text(PAGES["alpha.md"] + "\nA change.\n")
    elif change == "the extension list":
        # An extension with no env_version: Sphinx reads every page again and keeps its
        # HTML settings' hash, so codeautolink counted no page as changed.
        _add_extension(source, "sphinx.ext.githubpages")
    elif change == "an HTML setting":
        # Every page's HTML is out of date, and Sphinx writes none again.
        conf = source / "conf.py"
        conf.write_text(conf.read_text() + "html_title = 'Another title'\n")
    assert _build(source, out) == _build(source, tmp_path / "clean") == first


@pytest.mark.parametrize(
    ("change", "unlinked"),
    [("one page", {"index"}), ("the extension list", {"index", "alpha", "beta"})],
)
def test_without_it_a_rebuild_writes_pages_with_no_code_links(tmp_path, change, unlinked):
    # What the extension is for. When a sphinx-codeautolink release links every page it
    # writes, this fails and codelinks can go.
    source = _project(tmp_path / "src", ["sphinx_codeautolink"])
    out = tmp_path / "out"
    first = _build(source, out)
    if change == "one page":
        (source / "alpha.md").write_text(PAGES["alpha.md"] + "\nA change.\n")
    else:
        _add_extension(source, "sphinx.ext.githubpages")
    rebuilt = _build(source, out)
    assert min(first.values()) >= 2
    assert {page for page, links in rebuilt.items() if links == 0} == unlinked
