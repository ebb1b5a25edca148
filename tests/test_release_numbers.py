"""No page names the build's own torch release in prose typed by hand.

What the build's torch does is printed by the page's code, and from which release an
entry works is computed from the version records (``:since:``). A sentence such as "in
2.15 it warns", typed while 2.15 was the pinned release, turns false the day the site
moves on, and nothing would fail. So the prose of every page (sphinx-gallery's text
cells, the Markdown pages outside their code) may not name the build's release. The
one exception is the page about that release, and the lines that link to it: "What
changed in PyTorch 2.15" names its subject, not the build.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

ROOT = Path(__file__).resolve().parents[1]


def own_release() -> str:
    """Return the release the site is built with (constraints.txt's pin), as ``"2.15"``.

    The pin, not the installed torch: a run with an older one (``--installed-torch``)
    checks the same pages the hosted build shows.
    """
    pins = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    major, minor = re.search(r"^torch==(\d+)\.(\d+)", pins, re.MULTILINE).groups()
    return f"{major}.{minor}"


def release_page(release: str) -> str:
    """Return the file name of the page about ``release``: ``whats_new_2_15``."""
    return "whats_new_" + release.replace(".", "_")


def hand_typed(text: str, release: str) -> list[tuple[int, str]]:
    """Return ``(line, text)`` of each line of ``text`` that names ``release``.

    ``2.15``, ``2.15.0`` and ``2.15.1`` count; ``2.150`` and ``12.15`` do not. A line
    that links to the release's own page does not count.
    """
    pattern = re.compile(rf"(?<![\d.]){re.escape(release)}(?:\.\d+)?(?![\d])")
    return [
        (n, line.strip())
        for n, line in enumerate(text.splitlines(), 1)
        if pattern.search(line) and release_page(release) not in line
    ]


def page_prose(path: Path) -> str:
    """Return the text cells of an example page, each line near its line in the file."""
    _, blocks = split_code_and_text_blocks(str(path))
    lines: dict[int, str] = {}
    for kind, content, first in blocks:
        if kind == "text":
            lines.update((first + i, line) for i, line in enumerate(content.splitlines()))
    return "\n".join(lines.get(n, "") for n in range(1, max(lines, default=0) + 1))


def markdown_prose(path: Path) -> str:
    """Return a Markdown page with its fenced code blanked line for line."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return "\n".join(lines)


def _pages() -> list[Path]:
    examples = sorted((ROOT / "examples").glob("*/*.py"))
    headers = sorted((ROOT / "examples").glob("**/GALLERY_HEADER.rst"))
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "gallery" not in p.parts)
    return examples + headers + docs


def _prose(path: Path) -> str:
    if path.suffix == ".py":
        return page_prose(path)
    if path.suffix == ".md":
        return markdown_prose(path)
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_names_the_build_s_release_in_prose(path):
    release = own_release()
    if path.stem == release_page(release):
        pytest.skip(f"the page about {release} names its subject")
    found = hand_typed(_prose(path), release)
    assert not found, (
        f"{path.relative_to(ROOT)} names torch {release}, the build's own release, in "
        f"prose typed by hand: {found}. Let the code print what this torch does, or say "
        'which releases were measured without naming the build\'s ("2.14 and later").'
    )


def test_a_planted_sentence_naming_the_release_is_found(tmp_path):
    page = tmp_path / "planted.py"
    page.write_text(
        'r"""\nTitle\n=====\n\nOne sentence.\n"""\n\n'
        "# %%\n# In 2.15 this warns; in 2.150 and 12.15 it does not.\n"
        "print('2.15 in code is output, not prose')\n",
        encoding="utf-8",
    )
    assert hand_typed(page_prose(page), "2.15") == [
        (9, "In 2.15 this warns; in 2.150 and 12.15 it does not.")
    ]
    assert hand_typed("see whats_new_2_15 for 2.15", "2.15") == []
    assert hand_typed("2.15.1 fixed it", "2.15") == [(1, "2.15.1 fixed it")]


def test_fenced_markdown_code_is_not_prose(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n```python\nprint('2.15')\n```\n\nIn 2.15 it runs.\n")
    assert hand_typed(markdown_prose(page), "2.15") == [(7, "In 2.15 it runs.")]
