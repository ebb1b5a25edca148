"""The errors section: every entry's heading quotes a message its own code printed.

An entry of ``examples/errors/`` is headed by the message it raises, written with ``…``
where a reader's message carries other numbers or names. The page prints the message
as the build's torch words it, so a heading typed from memory, or from an older
release, fails here against the real output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

MIN_ENTRIES = 40
LABEL_PREFIX = "errors-"
# sphinx-gallery's class for a page's code cells, and for what a cell printed
CODE = "div.highlight-Python"
OUTPUT = "div.sphx-glr-script-out"
# Where a printed message starts (errortext.toml's marker, simplified)
MARKER = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning):|\bUnsupported:")


@dataclass(frozen=True)
class Entry:
    """One entry of an errors page, as built.

    Attributes
    ----------
    page : str
        The page's file name.
    label : str
        The entry's label, ``errors-...``.
    heading : str
        The heading's text: the quoted message.
    output : str
        Everything the entry's own code cells printed, whitespace collapsed.
    code_blocks : int
        How many code cells the entry has.
    """

    page: str
    label: str
    heading: str
    output: str
    code_blocks: int


def quoted_parts(heading: str) -> list[str]:
    """The literal parts of a quoted message, split where ``…`` stands for a value."""
    parts = (" ".join(part.split()) for part in heading.split("…"))
    return [part for part in parts if part]


def quotes(heading: str, output: str) -> bool:
    """Whether ``output`` holds the heading's parts, in order (whitespace aside)."""
    text, start = " ".join(output.split()), 0
    for part in quoted_parts(heading):
        found = text.find(part, start)
        if found < 0:
            return False
        start = found + len(part)
    return True


def _own(section: Tag, selector: str) -> list[Tag]:
    return [t for t in section.select(selector) if t.find_parent("section") is section]


def _heading_text(section: Tag) -> str:
    heading = section.find(["h1", "h2", "h3", "h4"])
    for link in heading.select("a.headerlink"):
        link.extract()
    return heading.get_text().strip()


def page_entries(path: Path) -> list[Entry]:
    """The entries of one built errors page: the sections labelled ``errors-...``."""
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    found = []
    for section in soup.find_all("section"):
        ids = [section.get("id", "")]
        ids += [s.get("id", "") for s in section.find_all("span", recursive=False)]
        label = next((i for i in ids if i.startswith(LABEL_PREFIX)), None)
        if label is None:
            continue
        output = "\n".join(out.get_text() for out in _own(section, OUTPUT))
        found.append(
            Entry(path.name, label, _heading_text(section), output, len(_own(section, CODE)))
        )
    return found


@pytest.fixture(scope="module")
def entries(site: Path) -> list[Entry]:
    pages = sorted(p for p in (site / "gallery" / "errors").glob("*.html") if p.stem != "index")
    assert pages, f"no errors pages in {site}: build the site first"
    return [entry for page in pages for entry in page_entries(page)]


def test_a_heading_matches_the_output_it_quotes_with_values_left_out():
    heading = "The size of tensor a (…) must match the size of tensor b (…) at dimension …"
    printed = "RuntimeError: The size of tensor a (3) must match\n  the size of tensor b (4) at dimension 1"
    assert quoted_parts(heading)[0] == "The size of tensor a ("
    assert quotes(heading, printed)


def test_a_heading_typed_differently_from_the_output_does_not_match():
    printed = "RuntimeError: expected target dtype to be Long or Byte, but got Float"
    assert not quotes("expected scalar type Long but found Float", printed)
    assert not quotes("but got … expected target dtype", printed)  # parts out of order


@pytest.mark.site
def test_the_errors_section_has_enough_entries(entries):
    assert len(entries) >= MIN_ENTRIES, f"only {len(entries)} errors entries"
    labels = [e.label for e in entries]
    assert len(labels) == len(set(labels))


@pytest.mark.site
def test_every_errors_heading_quotes_what_its_own_code_printed(entries):
    wrong = [
        f"{e.page}#{e.label}: heading {e.heading!r} is not in its output:\n    {e.output[:300]!r}"
        for e in entries
        if not quotes(e.heading, e.output)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.site
def test_every_errors_entry_raises_in_one_block_and_fixes_in_another(entries):
    short = [f"{e.page}#{e.label}: {e.code_blocks}" for e in entries if e.code_blocks < 2]
    assert not short, "entries with fewer than two code blocks:\n" + "\n".join(short)


@pytest.mark.site
def test_the_wordings_of_other_releases_are_messages_the_build_did_not_print(site):
    # docs/_ext/wordings.py shows them from the version records; the records of this
    # repository hold errors pages under several releases, whose wordings differ (2.15
    # says "nccl2 requires at least one CUDA device" where 2.14 said "ProcessGroupNCCL is
    # only supported with GPUs"), so some entry shows one.
    shown = 0
    for page in sorted((site / "gallery" / "errors").glob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for note in soup.select("div.release-wordings"):
            section = note.find_parent("section")
            own = " ".join("\n".join(o.get_text() for o in _own(section, OUTPUT)).split())
            assert "torch " in note.get_text(), note.get_text()
            for block in note.select("pre"):
                shown += 1
                # Each message with its continuation lines: two releases may share a
                # first line and word the reason below it differently (export's
                # "Constraints violated": "inferred to be a constant" up to 2.7).
                messages: list[list[str]] = []
                for line in block.get_text().splitlines():
                    if MARKER.search(line) or not messages:
                        messages.append([])
                    messages[-1].append(line)
                for message in messages:
                    if MARKER.search(message[0]):
                        assert " ".join(" ".join(message).split()) not in own, (page.name, message)
    assert shown, "no errors entry shows another release's wording: are the records there?"
