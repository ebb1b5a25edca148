"""From which torch release each entry works, read from records rather than remembered.

``nox -s oldest-torch`` runs every code block alone under the oldest torch that
``pyproject.toml`` allows; ``nox -s torch-version -- <release>`` runs again, under a
later release, the entries that did not work there. Each run leaves one record per page
in ``results/<machine-id>-torch-<version>/`` with a ``blocks`` list (see
``benchmarks/torch_versions.py``). An entry works under a release when every one of its
blocks ran and none only printed a version guard. Its *since* is the first release
tried after the last one under which it did not work; the build's own torch counts as
tried, since every page has just run under it.

- ``:since:`label``` writes an entry's since release ("2.6", or "≤ 2.4" when it works
  under the oldest release tried); a label no record knows fails the build.
- Each entry that needs a newer release than the oldest gets a line under its title
  that says which, and what was measured.
- ``.. torch-coverage::`` tabulates the releases tried and the entries that need more
  than the oldest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from packaging.version import Version
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective, SphinxRole

from machines import RESULTS_DIR, load_records
from sitebuild import torch_version


@dataclass(frozen=True)
class Since:
    """When one entry's code starts to work, and the evidence."""

    page: str
    entry: str
    first: str  # the first release tried from which it works (full version)
    last_failing: str | None  # the newest release tried under which it did not work
    error: str  # what it raised (or printed) there; "" when it works under the oldest

    @property
    def at_oldest(self) -> bool:
        return self.last_failing is None

    @property
    def release(self) -> str:
        """``"2.6"``, or ``"≤ 2.4"`` when the entry works under the oldest release tried."""
        v = Version(self.first)
        return f"≤ {v.major}.{v.minor}" if self.at_oldest else f"{v.major}.{v.minor}"


def _plain(version: str) -> str:
    return Version(version).base_version  # "2.14.1+cu130" -> "2.14.1"


def _works(block: dict[str, Any]) -> bool:
    """Whether a block ran its call: it ran, and did not only print a version guard."""
    return block["ran"] and not block.get("guard")


def entry_since(records: list[dict[str, Any]], built_with: str) -> dict[tuple[str, str], Since]:
    """Return the since release of every (page, entry) that the block records name.

    ``built_with`` is the torch of this build, under which every entry works.
    """
    # works[(page, entry)][version] is False as soon as one block of the entry fails there
    works: dict[tuple[str, str], dict[Version, bool]] = {}
    errors: dict[tuple[tuple[str, str], Version], str] = {}
    versions: set[Version] = set()
    for record in records:
        if "blocks" not in record:
            continue
        version = Version(_plain(record["machine"]["torch_version"]))
        versions.add(version)
        for block in record["blocks"]:
            key = (record["page"], block["entry"])
            ok = _works(block)
            seen = works.setdefault(key, {})
            seen[version] = seen.get(version, True) and ok
            if not ok:
                errors.setdefault((key, version), block["error"] or block.get("guard", ""))
    if not versions:
        return {}
    oldest, built = min(versions), Version(_plain(built_with))
    tried = sorted(versions | {built})
    found = {}
    for key, by_version in works.items():
        failing = [v for v, ok in by_version.items() if not ok]
        if not failing:
            first, last = oldest, None
        else:
            last = max(failing)
            later = [v for v in tried if v > last and (v in by_version or v == built)]
            if not later:
                continue  # it does not work under the newest release tried either
            first = later[0]
        found[key] = Since(
            page=key[0],
            entry=key[1],
            first=str(first),
            last_failing=None if last is None else str(last),
            error="" if last is None else errors[(key, last)],
        )
    return found


def _since_of(app: Sphinx) -> dict[str, Since]:
    """Return the since of every labelled entry, computed once per build."""
    cached = getattr(app, "_cheatsheet_since", None)
    if cached is None:
        records = load_records(Path(app.confdir, RESULTS_DIR))
        cached = {
            s.entry: s
            for s in entry_since(records, torch_version()).values()
            if not s.entry.startswith("(")
        }
        app._cheatsheet_since = cached  # type: ignore[attr-defined]
    return cached


def _note(since: Since) -> str:
    error = since.error if len(since.error) <= 160 else since.error[:159] + "…"
    return (
        f"Needs torch {since.release} or newer: measured, this entry's code did not work "
        f"under {since.last_failing} ({error}) and works from {since.first} on."
    )


class SinceRole(SphinxRole):
    """``:since:`label``` writes the first release from which the entry works."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        since = _since_of(self.env.app).get(self.text)
        if since is None:
            msg = self.inliner.reporter.error(
                f"no torch-version record names the entry {self.text!r}: run "
                "`nox -s oldest-torch` (records in results/) or fix the label",
                line=self.lineno,
            )
            return [nodes.problematic(self.rawtext, self.rawtext, refid=msg["ids"][0])], [msg]
        return [nodes.inline(self.rawtext, since.release, classes=["since"])], []


def _mark_entries(app: Sphinx, doctree: nodes.document) -> None:
    """Under the title of each entry that needs more than the oldest release, say so."""
    if not app.env.docname.startswith("gallery/"):
        return
    since = _since_of(app)
    for section in doctree.findall(nodes.section):
        needs = [since[i] for i in section["ids"] if i in since and not since[i].at_oldest]
        if needs and isinstance(section[0], nodes.title):
            section.insert(1, nodes.paragraph(text=_note(needs[0]), classes=["since-note"]))


class TorchCoverageDirective(SphinxDirective):
    """``.. torch-coverage::`` lists the releases tried and the entries that need a newer one."""

    def run(self) -> list[nodes.Node]:
        records = [
            r for r in load_records(Path(self.env.app.confdir, RESULTS_DIR)) if "blocks" in r
        ]
        if not records:
            return [nodes.paragraph(text="No run under an older torch is recorded yet.")]
        by_version: dict[Version, list[dict[str, Any]]] = {}
        for r in records:
            by_version.setdefault(Version(_plain(r["machine"]["torch_version"])), []).append(r)
        oldest = min(by_version)
        lines = []
        for version, runs in sorted(by_version.items()):
            blocks = [b for r in runs for b in r["blocks"]]
            ok = sum(_works(b) for b in blocks)
            what = "every block" if version == oldest else "the blocks that did not work there"
            lines.append(
                f"torch {version} ({runs[0]['date'][:10]}): {what}; {ok} of {len(blocks)} work."
            )
        found: list[nodes.Node] = [
            nodes.bullet_list("", *(nodes.list_item("", nodes.paragraph(text=t)) for t in lines))
        ]
        needs = sorted(
            (s for s in entry_since(records, torch_version()).values() if not s.at_oldest),
            key=lambda s: (Version(s.first), s.page, s.entry),
        )
        found.append(self._table(needs))
        return found

    def _table(self, needs: list[Since]) -> nodes.table:
        from sphinx import addnodes

        table = nodes.table(classes=["torch-coverage"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (1, 3, 3, 6):
            group += nodes.colspec(colwidth=width)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body
        titles = ("since", "page", "entry", "error under the release before")
        head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=t)) for t in titles))
        for since in needs:
            if since.entry.startswith("("):
                where: nodes.Node = nodes.paragraph(text=since.entry)
            else:
                ref = addnodes.pending_xref(
                    "", nodes.literal(text=since.entry), refdomain="std", reftype="entry",
                    reftarget=since.entry, refexplicit=True, refdoc=self.env.docname,
                )  # fmt: skip
                where = nodes.paragraph("", "", ref)
            cells = (
                nodes.paragraph(text=since.release),
                nodes.paragraph(text=since.page),
                where,
                nodes.paragraph(text=f"{since.last_failing}: {since.error}"),
            )
            body += nodes.row("", *(nodes.entry("", c) for c in cells))
        return table


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_role("since", SinceRole())
    app.add_directive("torch-coverage", TorchCoverageDirective)
    app.connect("doctree-read", _mark_entries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
