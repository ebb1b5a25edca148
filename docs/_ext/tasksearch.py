"""Search that answers tasks: an index of entries (sections), fed with the words readers use.

Each section of every page becomes one search record: its page, anchor, heading, the
first sentence of its text (the snippet a result shows) and its stemmed words. Two
sources add the words readers search with to the entries they mean:

- ``docs/search_terms.toml`` (``tasksearch_terms``): phrases mapped to an entry by
  label, or by page and heading; a target that does not exist fails the build;
- every page's Summary table: the "You want" cell of a row belongs to the entry its
  ``:entry:`` link points to.

The records are written to ``_static/search-index.js``, a script that
``_static/tasksearch.js`` loads only when a reader types in a search box (a script tag,
so it works from ``file://`` too). The same phrases become ``index`` entries in the
doctree, so Sphinx's own search page (Enter in the box) finds them as well.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import snowballstemmer
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

INDEX_FILE = "search-index.js"
SUMMARY_HEADING = "Summary"
_SNIPPET_CHARS = 180
_WORD = re.compile(r"[^\W\d_]\w*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_STEMMER = snowballstemmer.stemmer("english")


@dataclass(frozen=True)
class Target:
    """Where a group of phrases in the terms file points.

    Attributes
    ----------
    phrases : tuple of str
        What readers type.
    label : str
        An entry's label, or "" when the target is named by page and heading.
    page : str
        A docname (``gallery/pytorch2/sdpa``), with ``heading``.
    heading : str
        Text that the target's heading contains (case-insensitive).
    """

    phrases: tuple[str, ...]
    label: str = ""
    page: str = ""
    heading: str = ""

    def describe(self) -> str:
        return self.label or f"{self.page} › {self.heading!r}"

    def matches(self, docname: str, ids: list[str], title: str) -> bool:
        if self.label:
            return self.label in ids
        return docname == self.page and self.heading.lower() in _plain(title).lower()


@dataclass(frozen=True)
class Record:
    """One section as the search sees it.

    Attributes
    ----------
    anchor : str
        The id to link to: the entry's label where it has one.
    title : str
        The heading, as plain text.
    snippet : str
        The first sentence of the section's own text.
    names : tuple of str
        Exact strings (lower case) a query may equal: the heading and its phrases.
    keys : tuple of str
        Stemmed words of the heading and the phrases: a strong match.
    words : tuple of str
        Stemmed words of the section's text and code: a weak match.
    """

    anchor: str
    title: str
    snippet: str
    names: tuple[str, ...]
    keys: tuple[str, ...]
    words: tuple[str, ...]


def load_terms(path: str | Path) -> list[Target]:
    """Read the terms file; each ``[[entry]]`` gives one target and its phrases."""
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    targets = []
    for n, entry in enumerate(data.get("entry", []), start=1):
        named_by_page = "page" in entry and "heading" in entry
        if ("label" in entry) == named_by_page or not entry.get("phrases"):
            raise ValueError(
                f"{path}: entry {n} needs phrases and either a label or a page and a heading"
            )
        targets.append(
            Target(
                phrases=tuple(entry["phrases"]),
                label=entry.get("label", ""),
                page=entry.get("page", ""),
                heading=entry.get("heading", ""),
            )
        )
    return targets


def stems(text: str) -> list[str]:
    """Stem the words of ``text`` as the browser will (Snowball English, lower case).

    A dotted or underscored name counts whole and by its parts, so ``num_workers``
    matches both ``num_workers`` and "num workers".
    """
    out = []
    for token in re.findall(r"[\w.]+", text.lower()):
        parts = {p for p in token.split(".") if p}
        parts |= {q for p in list(parts) for q in p.split("_") if q}
        for word in parts:
            if _WORD.fullmatch(word) and not word.isdigit() and len(word) < 30:
                out.append(_STEMMER.stemWord(word))
    return out


def _plain(text: str) -> str:
    return text.replace("``", "").replace("`", "").strip()


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(sentence) > _SNIPPET_CHARS:
        sentence = sentence[: _SNIPPET_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return sentence


def _own_nodes(section: nodes.section) -> list[nodes.Node]:
    """Return the section's children before its first subsection, less the heading."""
    own = []
    for child in section.children:
        if isinstance(child, nodes.section):
            break
        if not isinstance(child, nodes.title):
            own.append(child)
    return own


def _is_output(node: nodes.Node) -> bool:
    # sphinx-gallery shows printed output as a ``none`` code block and rich output as raw
    # HTML: numbers and reprs that no reader searches for, and most of the index's size.
    if isinstance(node, nodes.raw):
        return True
    if isinstance(node, nodes.literal_block):
        return node.get("language") in {"none", "text"} or "sphx-glr-script-out" in node.get(
            "classes", []
        )
    return False


def _searchable_text(node: nodes.Node) -> str:
    if _is_output(node) or isinstance(node, (nodes.comment, nodes.system_message)):
        return ""
    if isinstance(node, nodes.Text):
        return str(node)
    return " ".join(_searchable_text(child) for child in node.children)


def _anchor(section: nodes.section, labels: set[str]) -> str:
    ids = section["ids"]
    return next((i for i in ids if i in labels), ids[0])


def _summary_phrases(section: nodes.section) -> list[tuple[str, str]]:
    """``(label, "You want" text)`` for each Summary row that links an entry."""
    found = []
    for row in section.findall(nodes.row):
        if row.parent.tagname != "tbody" or len(row.children) < 2:
            continue
        want = row.children[0].astext()
        for xref in row.children[1].findall(addnodes.pending_xref):
            if xref.get("reftype") == "entry":
                found.append((xref["reftarget"].lower(), " ".join(want.split())))
    return found


def _read_sections(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    labels = {
        label for label, (doc, _labelid) in env.get_domain("std").anonlabels.items()
        if doc == docname
    }  # fmt: skip
    sections = []
    summary: list[tuple[str, str]] = []
    for section in doctree.findall(nodes.section):
        title = _plain(section[0].astext()) if section.children else ""
        if title == SUMMARY_HEADING:
            summary.extend(_summary_phrases(section))
            continue
        own = _own_nodes(section)
        paragraph = next((n for n in own if isinstance(n, nodes.paragraph)), None)
        text = " ".join(_searchable_text(n) for n in own)
        sections.append((section, _anchor(section, labels), title, paragraph, text))

    targets: list[Target] = env.tasksearch_targets
    records = []
    for section, anchor, title, paragraph, text in sections:
        ids = section["ids"]
        phrases = [p for t in targets if t.matches(docname, ids, title) for p in t.phrases]
        phrases += [want for label, want in summary if label in ids]
        if phrases:
            # Sphinx's own search page finds index entries and links them to the section;
            # "main" entries rank with titles, the others after every other result.
            entries = [("single", p, anchor, "main", None) for p in phrases]
            section.insert(1, addnodes.index(entries=entries, inline=False))
        snippet = _first_sentence(paragraph.astext()) if paragraph is not None else ""
        names = {title.lower(), *(p.lower() for p in phrases)}
        keys = {*stems(title), *(s for p in phrases for s in stems(p))}
        records.append(
            Record(
                anchor=anchor,
                title=title,
                snippet=snippet,
                names=tuple(sorted(names)),
                keys=tuple(sorted(keys)),
                words=tuple(sorted(set(stems(text)) - keys)),
            )
        )
    env.tasksearch_records[docname] = records


def _terms_digest(app: Sphinx) -> str:
    return hashlib.sha256(Path(app.config.tasksearch_terms).read_bytes()).hexdigest()


def _load_targets(app: Sphinx, env: Any, docnames: list[str]) -> None:
    if not hasattr(env, "tasksearch_records"):
        env.tasksearch_records = {}
    env.tasksearch_targets = load_terms(app.config.tasksearch_terms)


def _reread_when_terms_changed(
    app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # The phrases live in the doctrees (as index entries) and in the records: when the
    # terms file changes, every page is read again (reading does not rerun examples).
    digest = _terms_digest(app)
    if getattr(env, "tasksearch_digest", None) == digest:
        return []
    env.tasksearch_digest = digest
    return sorted(env.found_docs)


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "tasksearch_records", {}).pop(docname, None)


def _merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    for docname in docnames:
        env.tasksearch_records[docname] = other.tasksearch_records[docname]


def _check_targets(app: Sphinx, env: Any) -> None:
    for target in env.tasksearch_targets:
        found = any(
            target.matches(doc, [r.anchor], r.title)
            for doc, records in env.tasksearch_records.items()
            for r in records
        )
        if not found:
            logger.warning(
                "%s: no entry %s; point these phrases to an entry that exists: %s",
                app.config.tasksearch_terms,
                target.describe(),
                ", ".join(target.phrases),
            )


def index_data(records: dict[str, list[Record]], suffix: str) -> dict[str, Any]:
    """Lay out the index as the browser reads it: pages, then one row per section."""
    pages = sorted(records)
    rows = [
        [
            i,
            r.anchor,
            r.title,
            r.snippet,
            "\n".join(r.names),
            " ".join(r.keys),
            " ".join(r.words),
        ]
        for i, page in enumerate(pages)
        for r in records[page]
    ]
    return {"pages": [p + suffix for p in pages], "sections": rows}


def _write_index(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    env = app.env
    titles = {doc: env.titles[doc].astext() for doc in env.tasksearch_records if doc in env.titles}
    data = index_data(env.tasksearch_records, app.builder.out_suffix)
    data["titles"] = [titles.get(p.removesuffix(app.builder.out_suffix), "") for p in data["pages"]]
    out = Path(app.outdir) / "_static" / INDEX_FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    out.write_text(f"TaskSearch.load({payload});\n", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value(
        "tasksearch_terms", str(Path(app.confdir) / "docs" / "search_terms.toml"), "env"
    )
    app.add_js_file("tasksearch.js", defer="defer")
    app.add_css_file("tasksearch.css")
    app.connect("env-before-read-docs", _load_targets)
    app.connect("env-get-outdated", _reread_when_terms_changed)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-read", _read_sections)
    app.connect("env-check-consistency", _check_targets)
    app.connect("build-finished", _write_index)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
