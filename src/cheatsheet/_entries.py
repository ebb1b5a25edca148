"""A page's entries: its labelled sections, their code, and the rule for whether code worked.

An example page is a sphinx-gallery script. Each text cell that carries a label
(``# .. _pt2-sdpa-call:``) starts an *entry*; the code blocks that follow, up to the next
label, belong to it. Records of runs under other torch releases (``results/``) are kept
per entry, with a digest of the entry's code, so a later build can tell a record of the
code it shows from a record of an older version of it.

This module needs sphinx-gallery (it splits pages with sphinx-gallery's own parser, so
the blocks are exactly the ones the site shows); the site's build and tests have it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FAILS",
    "FLAKY",
    "SKIPPED",
    "WORKS",
    "CodeBlock",
    "Entry",
    "Known",
    "Probe",
    "block_status",
    "load_probes",
    "page_entries",
    "repeated_status",
    "skip_reason",
]

#: Status of code run under a torch release: it ran to the end and did what it shows.
WORKS = "works"
#: It raised, exited with an error, was killed or timed out, every time it was run.
FAILS = "fails"
#: It failed in some of its runs and worked in others.
FLAKY = "flaky"
#: It ran, but took a branch that skips its call (no GPU, a missing optional package,
#: too few ranks), so it says nothing about whether the call works there.
SKIPPED = "skipped"

# A label line of a text cell, as sphinx-gallery keeps it: ".. _pt2-sdpa-call:".
_LABEL = re.compile(r"^\.\. _([\w-]+):$", re.MULTILINE)
# The line a block prints when it skips its call: "skipped: no CUDA device here", also
# with the rank prefix torchrun puts on a rank's lines ("[rank0]: skipped ...").
_SKIP_LINE = re.compile(r"^(?:\[rank\s*\d+\]:?\s*)?skipped\b", re.IGNORECASE | re.MULTILINE)
# Code before the first labelled cell belongs to no entry.
PAGE_TOP = "(page top)"


@dataclass(frozen=True)
class CodeBlock:
    """One code block of a page.

    Attributes
    ----------
    origin : str
        ``examples/<folder>/<page>.py:<line>``, for messages.
    code : str
        The block as sphinx-gallery runs it, config comments included.
    """

    origin: str
    code: str


@dataclass(frozen=True)
class Entry:
    """The labelled section of a page and its code blocks.

    Attributes
    ----------
    page : str
        ``<folder>/<page>``, e.g. ``pytorch2/sdpa``.
    label : str
        The entry's label, or ``"(page top)"`` for code before the first label.
    blocks : tuple of CodeBlock
    """

    page: str
    label: str
    blocks: tuple[CodeBlock, ...]

    def digest(self, probe: str = "") -> str:
        """Return the SHA-256 of the entry's code (and of its probe's code, if it has one).

        A record of the entry made from other code is stale: the digest is what tells.
        """
        text = "\n\0".join([*(b.code for b in self.blocks), probe])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def page_entries(path: str | Path, root: str | Path | None = None) -> list[Entry]:
    """Return the entries of the example page at ``path``, in page order.

    Parameters
    ----------
    path : path
        An example script, ``examples/<folder>/<page>.py``.
    root : path, optional
        Folder that ``CodeBlock.origin`` is relative to (the project root);
        by default origins start at the page's folder.
    """
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    path = Path(path)
    page = f"{path.parent.name}/{path.stem}"
    shown = path.relative_to(root).as_posix() if root else f"{page}.py"
    label = PAGE_TOP
    found: dict[str, list[CodeBlock]] = {}
    for kind, content, lineno in split_code_and_text_blocks(str(path))[1]:
        if kind == "text":
            labels = _LABEL.findall(content)
            label = labels[-1] if labels else label
            continue
        if content.strip():
            found.setdefault(label, []).append(
                CodeBlock(f"{shown}:{lineno}", content.strip() + "\n")
            )
    return [Entry(page, name, tuple(blocks)) for name, blocks in found.items()]


def block_status(ok: bool, output: str) -> str:
    """Say what one run of a block or probe showed: ``WORKS``, ``FAILS`` or ``SKIPPED``.

    The one rule for "works": the code ran to the end (``ok``) and printed no line
    starting with "skipped", which is how a page's code says it left its call out.
    """
    if not ok:
        return FAILS
    return SKIPPED if _SKIP_LINE.search(output) else WORKS


def skip_reason(output: str) -> str:
    """Return the line in which code said it skipped its call, or ""."""
    found = _SKIP_LINE.search(output)
    if not found:
        return ""
    end = output.find("\n", found.start())
    return output[found.start() : end if end >= 0 else None].strip()


def repeated_status(statuses: list[str]) -> str:
    """Combine the statuses of repeated runs of the same code into one.

    A failure counts only when it reproduces: code that failed in every run
    ``FAILS``; code that failed in some runs and not others is ``FLAKY``.
    """
    if not statuses:
        raise ValueError("no runs to combine")
    failures = statuses.count(FAILS)
    if failures == len(statuses):
        return FAILS
    if failures:
        return FLAKY
    return SKIPPED if SKIPPED in statuses else WORKS


@dataclass(frozen=True)
class Known:
    """An upstream bug that explains what some releases show.

    Attributes
    ----------
    releases : tuple of str
        Minor releases it affects, e.g. ``("2.7", "2.8")``.
    says : str
        What happens there, in a reader's words.
    link : str
        The upstream issue.
    """

    releases: tuple[str, ...]
    says: str
    link: str


@dataclass(frozen=True)
class Probe:
    """The smallest code that makes the call an entry documents (``docs/probes.toml``).

    Attributes
    ----------
    label : str
        The entry it dates.
    call : str
        The call, as a note names it.
    code : str
        A script that raises when the call does not do what the entry says.
    api : tuple of str
        Dotted names the call needs; ``"name(arg=, other=)"`` names its arguments too.
    needs : tuple of str
        Optional packages; without them the probe is not measured.
    ranks : int
        0 to run it as a plain script, else the processes torchrun starts.
    known : tuple of Known
        Upstream bugs behind failures of some releases.
    """

    label: str
    call: str
    code: str
    api: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    ranks: int = 0
    known: tuple[Known, ...] = ()


_PROBE_KEYS = {"call", "code", "api", "needs", "ranks", "known"}
# An entry whose call another entry's probe already measures names that entry.
_SAME = "same"


def load_probes(path: str | Path) -> dict[str, Probe]:
    """Read ``docs/probes.toml``: the probe of each entry, by label.

    Raises
    ------
    ValueError
        Naming the file, the entry and what is wrong, for a probe without ``call``
        or ``code``, an unknown key, or a malformed ``known`` table.
    """
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    probes = {}
    for label, table in data.items():
        where = f"{path}: [{label}]"
        if isinstance(table, dict) and table.keys() == {_SAME}:
            continue
        if not isinstance(table, dict) or not {"call", "code"} <= table.keys():
            raise ValueError(f"{where} needs a `call` and the probe's `code`")
        unknown = table.keys() - _PROBE_KEYS
        if unknown:
            raise ValueError(
                f"{where} has unknown keys {sorted(unknown)}; known: {sorted(_PROBE_KEYS)}"
            )
        try:
            known = tuple(
                Known(tuple(k["releases"]), k["says"], k["link"]) for k in table.get("known", [])
            )
        except (KeyError, TypeError) as err:
            raise ValueError(
                f"{where}: each [[{label}.known]] needs releases, says and link"
            ) from err
        probes[label] = Probe(
            label=label,
            call=table["call"],
            code=table["code"].strip() + "\n",
            api=tuple(table.get("api", ())),
            needs=tuple(table.get("needs", ())),
            ranks=int(table.get("ranks", 0)),
            known=known,
        )
    for label, table in data.items():
        if isinstance(table, dict) and table.keys() == {_SAME}:
            other = probes.get(table[_SAME])
            if other is None:
                raise ValueError(f"{path}: [{label}] same = {table[_SAME]!r}, which has no probe")
            probes[label] = dataclasses.replace(other, label=label)
    return probes
