"""An errors entry's message as other releases word it, under the entry's heading.

An entry of ``examples/errors/`` is headed by the message its code prints under the
build's torch (``tests/test_errors_section.py`` holds it to that). Releases word
messages differently, and a reader pastes the words of the torch they run. The version
records (``tools/torch_versions.py``) keep what each of the entry's blocks printed
under each release; where a release printed an error message that the build's own run
did not (compared as search compares messages, ``errortext.normalise``: shapes, names
and paths aside; and after what the page printed before it, which says what the code
tried), the entry shows it under its heading, with the releases that printed
it and the record it comes from. Search reads those messages as the entry's
(``tasksearch``), so an older release's wording finds the entry too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from docutils import nodes
from packaging.version import Version
from sphinx.application import Sphinx

import errortext
import order  # docs/_ext: where each hook runs among the libraries' handlers
import since
from tasksearch import ERROR_LABEL_PREFIX as LABEL_PREFIX

CLASS = "release-wordings"  # tasksearch reads its messages, not its words
# A record's output holds what the block wrote to stderr too, where Python's warnings
# module writes "file:line: Category: message" and the source line after it. A page
# shows no such line (a warning fails its build), so they are not its wording.
_STDERR_WARNING = re.compile(r"^\S*:\d+: \w*Warning: .*\n(?:[ \t]+.*\n?)?", re.MULTILINE)


def other_wordings(
    own: Iterable[str], outputs: dict[Version, list[str]]
) -> dict[tuple[str, ...], list[Version]]:
    """Group the releases by the messages they printed that the build's run did not.

    Parameters
    ----------
    own : iterable of str
        What the entry's blocks printed in this build.
    outputs : dict
        Release -> what each of the entry's blocks printed under it (the records).

    Returns
    -------
    dict
        The messages (as printed, in order) -> the releases that printed them, oldest
        first; releases whose messages all appear in ``own`` are left out.
    """
    seen = {_key(m) for text in own for m in errortext.printed_lines(text)}
    groups: dict[tuple[str, ...], list[Version]] = {}
    for release in sorted(outputs):
        texts = (_STDERR_WARNING.sub("", text) for text in outputs[release])
        printed = [m for text in texts for m in errortext.printed_lines(text)]
        other = tuple(dict.fromkeys(m for m in printed if _key(m) not in seen))
        if other:
            groups.setdefault(other, []).append(release)
    return groups


def _key(message: str) -> tuple[str, str]:
    """Return what makes two printed messages one wording.

    That is the page's words before the exception (``"nccl: "``, what the code tried)
    and the message as search compares it.
    """
    found = errortext.load_rules().compiled_marker.search(message)
    prefix = message[: found.start()].strip() if found else ""
    return prefix, errortext.normalise(message)


def _own_output(section: nodes.section) -> list[str]:
    """Return what the section's code printed in this build (sphinx-gallery's output)."""
    found = []
    for child in section.children:
        if isinstance(child, nodes.section):
            break
        if CLASS in child.get("classes", []):
            continue  # what the records say, not this build
        for block in child.findall(nodes.literal_block):
            if block.get("language") in {"none", "text"}:
                found.append(block.astext())
    return found


def _recorded(blocks: dict[int, dict[Version, since.Outcome]]) -> dict[Version, list[str]]:
    """Return release -> its blocks' kept outputs, for the releases whose records kept any.

    Only a block that ran to its end counts: one that failed under a release printed
    its failure, not the entry's message (the since note says so).
    """
    kept = {
        n: {v: o.output for v, o in per.items() if o.output and o.status == since.WORKS}
        for n, per in blocks.items()
    }
    releases = {v for per in kept.values() for v in per}
    return {v: [per[v] for _, per in sorted(kept.items()) if v in per] for v in releases}


def _note(groups: dict[tuple[str, ...], list[Version]], records: dict[Version, str]) -> nodes.Node:
    box = nodes.container(classes=[CLASS])
    box += nodes.paragraph(
        "", "Other releases print other messages for the same code (from the version records):"
    )
    for messages, releases in groups.items():
        where = records[releases[-1]]
        named = "its version record" if len(releases) == 1 else f"the record of {releases[-1]}"
        box += nodes.paragraph("", f"torch {since._release_list(releases)} ({named}: {where}):")
        text = "\n".join(messages)
        block = nodes.literal_block(text, text)
        block["language"] = "none"  # output, not code to highlight
        box += block
    return box


def _mark_entries(app: Sphinx, doctree: nodes.document) -> None:
    if not app.env.docname.startswith("gallery/"):
        return
    outcomes = since._state(app).outcomes
    for section in doctree.findall(nodes.section):
        label = next((i for i in section["ids"] if i.startswith(LABEL_PREFIX)), None)
        if label is None or label not in outcomes or not isinstance(section[0], nodes.title):
            continue
        recorded = _recorded(outcomes[label])
        groups = other_wordings(_own_output(section), recorded)
        if not groups:
            continue
        records = {
            v: next(per[v].record for per in outcomes[label].values() if v in per) for v in recorded
        }
        section.insert(1, _note(groups, records))


def setup(app: Sphinx) -> dict[str, Any]:
    order.connect(app, "doctree-read", _mark_entries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
