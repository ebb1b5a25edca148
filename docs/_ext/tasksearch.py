"""Search that answers tasks: an index of entries (sections), each field by field.

Each section of every page becomes one search record: its page, anchor, heading, the
first sentence of its text (the snippet a result shows) and the stemmed words of each
of its fields, which ``_static/tasksearch-rank.js`` ranks with BM25F (a field's words
count by the field's weight):

- ``title``: the heading;
- ``want``: the "You want" cell of every table row that links to the entry, in a page's
  Summary or in the quick reference;
- ``phrases``: the words ``docs/search_terms.toml`` (``tasksearch_terms``) gives the
  entry, by label or by page and heading; a target that does not exist fails the build.
  The ranking does well without them (``TaskSearch.search(q, n, {phrases: false})``);
- ``prose``: the section's own text; ``code``: the names and words of its code;
  ``output``: the names (dotted, underscored, camel-cased) its code printed;
- ``errors``: the error messages its code printed (and an errors entry's heading, which
  is its message), normalised by ``errortext.py``.

The index also carries what the browser must do the same way as the build: the stop
words, the words rewritten before stemming (``WORD_FORMS``, ``SPELLING``), the synonym
groups of ``docs/search_synonyms.toml`` (``tasksearch_synonyms``), stemmed, and the
rules that normalise an error message. It is written to ``_static/search-index.js``, a
script that ``tasksearch.js`` loads, with the ranking, only when a reader reaches a
search box (a script tag, so it works from ``file://`` too). The phrases also become ``index`` entries in the
doctree, so Sphinx's own search page finds them as well.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import keyword
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import snowballstemmer
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.util import logging

import errortext

logger = logging.getLogger(__name__)

INDEX_FILE = "search-index.js"
SUMMARY_HEADING = "Summary"
# The first header cell of a table whose rows describe the entries they link, in a page's
# Summary and in the quick reference. (The errors pages' "You see" cells repeat their
# entries' headings, which the heading and message fields hold already.)
WANT_HEADER = "You want"
# The fields of a record, in the order the index lists them (tasksearch.js weighs them,
# and stems the heading itself: it has the title).
FIELDS = ("want", "phrases", "prose", "code", "output")
# Words that say "I am asking" rather than what about, and English's commonest (among
# them "two": "join two tensors" says how many the reader has, not what they ask about):
# left out of the index and of queries alike (the browser reads this list from the index).
STOP_WORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "by", "at", "as",
    "from", "into", "is", "are", "be", "was", "were", "been", "it", "its", "this", "that",
    "these", "those", "i", "my", "me", "we", "you", "your", "do", "does", "did", "can",
    "could", "how", "what", "why", "when", "where", "which", "who", "want", "way", "use",
    "using", "make", "get", "if", "pytorch", "two", "should",
})  # fmt: skip
# One word, spelt two ways or in forms the stemmer keeps apart: each is rewritten to one
# form before it is stemmed, in the index and in the query alike (the browser reads both
# from the index). The pages are written in British English and most readers type
# American ("normalize" must find "normalised"; the Snowball stemmer keeps "normalis"
# and "normal" apart), and Latin plurals and a few nouns of verbs have stems of their own
# ("matrices" is "matric", "matrix" is "matrix").
SPELLING = r"(?<=[a-z]{2})(is|ys)(?=(?:e|es|ed|ing|ation|ations|er|ers)$)"
WORD_FORMS = {
    "matrices": "matrix", "indices": "index", "vertices": "vertex", "axes": "axis",
    "multiplication": "multiply", "multiplications": "multiply", "division": "divide",
    "inverse": "invert", "inverses": "invert", "inversion": "invert",
    "colour": "color", "colours": "colors", "coloured": "colored",
    "behaviour": "behavior", "behaviours": "behaviors", "favour": "favor",
    "neighbour": "neighbor", "neighbours": "neighbors", "centre": "center",
}  # fmt: skip
# Python's keywords say nothing about what a block does, and are in nearly every one.
_CODE_NOISE = frozenset(k.lower() for k in keyword.kwlist) | {"print", "self"}
_SNIPPET_CHARS = 180
_LONGEST_WORD = 30
_WORD = re.compile(r"[^\W\d_]\w*")
_TOKEN = re.compile(r"[\w.]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_TAG = re.compile(r"<[^>]*>")
# A name in printed output: dotted, underscored or camel-cased (torch.float16, grad_fn,
# SDPBackend). Printed output is mostly numbers and the page's own labels ("first:",
# "matches"); its names are what a reader may search for.
_IDENTIFIER = re.compile(r"[A-Za-z][\w.]*(?:[_.][\w.]*[A-Za-z0-9]|[a-z][A-Z]\w*)")
_STEMMER = snowballstemmer.stemmer("english")
_SPELLING = re.compile(SPELLING)
# An errors entry (examples/errors/) is labelled errors-<slug>, and its heading is the
# stable part of its message (CONTRIBUTING.md): a message to match, like a printed one.
ERROR_LABEL_PREFIX = "errors-"
# What the build adds to a page, not the entry's own words: the since extension's note
# under an entry's heading, the machine stamp under a page's title (machines.py), and
# sphinx-gallery's own text: the "Go to the end to download" note under the title, and
# the running time and download links after the last block, which would otherwise read
# as the last entry's prose ("total", "notebook", "source code", "zip"). The messages
# other releases printed for an errors entry (wordings.py) are its messages, not its prose.
OTHER_RELEASES = "release-wordings"
NOT_OWN = frozenset({
    "since-note", "page-stamp", OTHER_RELEASES,
    "sphx-glr-download-link-note", "sphx-glr-timing", "sphx-glr-footer", "sphx-glr-signature",
})  # fmt: skip


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
    phrase_names : tuple of str
        The phrases of the terms file, in lower case: a query that equals one puts the
        entry first (as one that equals the heading does).
    phrases : tuple of str
        The stemmed words of those phrases, a word once for each time it occurs.
    prose, code, output : tuple of str
        The stemmed words of the section's text, of its code (less Python's keywords)
        and of the names its code printed: each word once, sorted (a count says little
        in these longer fields, and sorted words compress best).
    errors : tuple of str
        The error messages the section's code printed, and an errors entry's heading,
        normalised.
    """

    anchor: str
    title: str
    snippet: str
    phrase_names: tuple[str, ...]
    phrases: tuple[str, ...]
    prose: tuple[str, ...]
    code: tuple[str, ...]
    output: tuple[str, ...]
    errors: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    """What the search keeps of one page.

    Attributes
    ----------
    records : tuple of Record
        One per section, less the Summary.
    wants : tuple of (str, str)
        ``(label, "You want" text)`` for each row of the page's "You want" tables: the
        words of the entry it links, wherever that entry is.
    """

    records: tuple[Record, ...]
    wants: tuple[tuple[str, str], ...]


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


def load_synonyms(path: str | Path) -> list[list[list[str]]]:
    """Read the synonym file: each group a list of phrases, each phrase its stems.

    A phrase keeps its stop words (the browser finds a phrase in the query's words as
    typed); a group needs two phrases or more, and a phrase at least one word.
    """
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    groups = []
    for n, group in enumerate(data.get("group", []), start=1):
        phrases = [stems(phrase, keep_stop_words=True) for phrase in group]
        if len(phrases) < 2 or not all(phrases):
            raise ValueError(f"{path}: group {n} needs two phrases or more, each with a word")
        groups.append(phrases)
    return groups


def _words(token: str) -> list[str]:
    """Split a token into words: a dotted name by its parts, an underscored one also whole."""
    parts = [p for p in token.split(".") if p]
    return parts + [q for p in parts if "_" in p for q in p.split("_") if q]


def stems(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """Stem the words of ``text`` as the browser will (Snowball English, lower case).

    A dotted name counts by its parts and an underscored one whole and by its parts,
    so ``loader.num_workers`` matches ``num_workers`` and "num workers". Numbers and
    stop words (unless kept) are left out.
    """
    out = []
    for token in _TOKEN.findall(text.lower()):
        for word in _words(token):
            if not _WORD.fullmatch(word) or len(word) >= _LONGEST_WORD:
                continue
            if keep_stop_words or word not in STOP_WORDS:
                out.append(_STEMMER.stemWord(one_form(word)))
    return out


def one_form(word: str) -> str:
    """Return the form of a lower-case word that is stemmed (``WORD_FORMS``, ``SPELLING``)."""
    return WORD_FORMS.get(word) or _SPELLING.sub(lambda m: m[1][0] + "z", word)


def _plain(text: str) -> str:
    return text.replace("``", "").replace("`", "").strip()


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(sentence) > _SNIPPET_CHARS:
        sentence = sentence[: _SNIPPET_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return sentence


def _own_nodes(section: nodes.section) -> list[nodes.Node]:
    """Return the section's children before its first subsection, less the heading.

    A "You want" table is left out too: its words describe the entries it links.
    """
    own = []
    for child in section.children:
        if isinstance(child, nodes.section):
            break
        if isinstance(child, nodes.title) or _is_want_table(child):
            continue
        if not NOT_OWN.intersection(child.get("classes", [])):
            own.append(child)
    return own


def _is_output(node: nodes.Node) -> bool:
    # sphinx-gallery shows printed output as a ``none`` code block and rich output
    # (tables) as raw HTML.
    if isinstance(node, nodes.raw):
        return True
    if isinstance(node, nodes.literal_block):
        return node.get("language") in {"none", "text"} or "sphx-glr-script-out" in node.get(
            "classes", []
        )
    return False


@dataclass(frozen=True)
class _Text:
    """A section's own text, by kind."""

    prose: str
    code: str
    output: str


def _split_text(own: Iterable[nodes.Node]) -> _Text:
    prose: list[str] = []
    code: list[str] = []
    output: list[str] = []

    def walk(node: nodes.Node) -> None:
        if isinstance(node, (nodes.comment, nodes.system_message, addnodes.index)):
            return
        if isinstance(node, nodes.Element) and NOT_OWN.intersection(node.get("classes", [])):
            return  # inside an ``only`` directive, as sphinx-gallery's footer is
        if _is_output(node):
            text = node.astext()
            output.append(_TAG.sub(" ", text) if isinstance(node, nodes.raw) else text)
        elif isinstance(node, nodes.literal_block):
            code.append(node.astext())
        elif isinstance(node, nodes.Text):
            prose.append(str(node))
        else:
            for child in node.children:
                walk(child)

    for node in own:
        walk(node)
    return _Text(prose=" ".join(prose), code="\n".join(code), output="\n".join(output))


def _anchor(section: nodes.section, labels: set[str]) -> str:
    ids = section["ids"]
    return next((i for i in ids if i in labels), ids[0])


def _is_want_table(node: nodes.Node) -> bool:
    if not isinstance(node, nodes.table):
        return False
    header = next(node.findall(nodes.thead), None)
    first = next(header.findall(nodes.entry), None) if header is not None else None
    return first is not None and first.astext().strip() == WANT_HEADER


def want_rows(doctree: nodes.document) -> list[tuple[str, str]]:
    """``(label, "You want" cell)`` for each row of a "You want" table that links an entry."""
    found = []
    for table in doctree.findall(_is_want_table):
        for row in table.findall(nodes.row):
            if row.parent.tagname != "tbody" or len(row.children) < 2:
                continue
            want = " ".join(row.children[0].astext().split())
            for xref in row.children[1].findall(addnodes.pending_xref):
                if xref.get("reftype") == "entry":
                    found.append((xref["reftarget"].lower(), want))
    return found


def _sorted_set(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(words)))


def _record(
    section: nodes.section, title: str, anchor: str, phrases: list[str], *, error_entry: bool
) -> Record:
    own = _own_nodes(section)
    paragraph = next((n for n in own if isinstance(n, nodes.paragraph)), None)
    text = _split_text(own)
    messages = errortext.printed_messages(text.output)
    for child in section.children:
        if isinstance(child, nodes.section):
            break
        if OTHER_RELEASES in child.get("classes", []):
            for block in child.findall(nodes.literal_block):
                messages += errortext.printed_messages(block.astext())
    if error_entry:
        messages.append(errortext.normalise(title))
    return Record(
        anchor=anchor,
        title=title,
        snippet=_first_sentence(paragraph.astext()) if paragraph is not None else "",
        phrase_names=tuple(dict.fromkeys(p.lower() for p in phrases)),
        phrases=tuple(s for p in phrases for s in stems(p)),
        prose=_sorted_set(stems(text.prose)),
        code=_sorted_set(s for s in stems(text.code) if s not in _CODE_NOISE),
        output=_sorted_set(stems(" ".join(_IDENTIFIER.findall(text.output)))),
        errors=tuple(dict.fromkeys(m for m in messages if m)),
    )


def read_page(
    doctree: nodes.document, docname: str, labels: set[str], targets: list[Target]
) -> Page:
    """Read a page as search sees it: a record per section (less the Summary), its wants.

    Where a section has phrases (terms file, or a Summary row of its page), they are also
    inserted as ``index`` entries, for Sphinx's own search page.
    """
    wants = want_rows(doctree)
    records = []
    for section in doctree.findall(nodes.section):
        title = _plain(section[0].astext()) if section.children else ""
        if title == SUMMARY_HEADING:
            continue
        ids = section["ids"]
        anchor = _anchor(section, labels)
        phrases = [p for t in targets if t.matches(docname, ids, title) for p in t.phrases]
        own_wants = [want for label, want in wants if label in ids]
        if phrases or own_wants:
            # Sphinx's own search page finds index entries and links them to the section;
            # "main" entries rank with titles, the others after every other result.
            entries = [("single", p, anchor, "main", None) for p in phrases + own_wants]
            section.insert(1, addnodes.index(entries=entries, inline=False))
        error_entry = anchor in labels and anchor.startswith(ERROR_LABEL_PREFIX)
        records.append(_record(section, title, anchor, phrases, error_entry=error_entry))
    return Page(records=tuple(records), wants=tuple(wants))


def _read_page(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    labels = {
        label for label, (doc, _labelid) in cast(StandardDomain, env.get_domain("std")).anonlabels.items()
        if doc == docname
    }  # fmt: skip
    # The pages read so far and the targets live on the environment, as Sphinx's own do.
    pages, targets = env.tasksearch_pages, env.tasksearch_targets  # type: ignore[attr-defined]
    pages[docname] = read_page(doctree, docname, labels, targets)


def _inputs_digest(app: Sphinx) -> str:
    # What the records are made of besides the pages: the phrases, the error rules, and
    # the code that reads them into stems (this module's stop words and word forms,
    # errortext's normalising), since a page's words are stemmed when it is read.
    digest = hashlib.sha256(Path(app.config.tasksearch_terms).read_bytes())
    for path in (errortext.RULES_FILE, Path(errortext.__file__), Path(__file__)):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _load_targets(app: Sphinx, env: Any, docnames: list[str]) -> None:
    if not hasattr(env, "tasksearch_pages"):
        env.tasksearch_pages = {}
    env.tasksearch_targets = load_terms(app.config.tasksearch_terms)


def _reread_when_inputs_changed(
    app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # The phrases live in the doctrees (as index entries) and in the records, the
    # normalised messages and every word's stem in the records: when the terms file, the
    # rules or the code that applies them change, every page is read again (reading
    # does not rerun examples).
    digest = _inputs_digest(app)
    if getattr(env, "tasksearch_digest", None) == digest:
        return []
    env.tasksearch_digest = digest
    return sorted(env.found_docs)


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "tasksearch_pages", {}).pop(docname, None)


def _merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    for docname in docnames:
        env.tasksearch_pages[docname] = other.tasksearch_pages[docname]


def _check_targets(app: Sphinx, env: Any) -> None:
    for target in env.tasksearch_targets:
        found = any(
            target.matches(doc, [r.anchor], r.title)
            for doc, page in env.tasksearch_pages.items()
            for r in page.records
        )
        if not found:
            records = [r for page in env.tasksearch_pages.values() for r in page.records]
            known = sorted({r.anchor if target.label else _plain(r.title) for r in records})
            close = difflib.get_close_matches(target.label or target.heading, known, n=3)
            logger.warning(
                "%s: no entry %s%s; point these phrases to an entry that exists: %s",
                app.config.tasksearch_terms,
                target.describe(),
                f" (did you mean {', '.join(close)}?)" if close else "",
                ", ".join(target.phrases),
            )


def index_data(
    pages: dict[str, Page], suffix: str, synonyms: list[list[list[str]]]
) -> dict[str, Any]:
    """Lay out the index as the browser reads it: pages, one row per section, and rules.

    A row is ``[page, anchor, title, snippet, phrase names, *FIELDS, errors]``; phrase
    names and errors are joined with newlines, a field's words with spaces.
    """
    # Page by page in name order: ``pages`` is in the order the build read them, which a
    # rebuild of one page or a parallel read changes, and the index must not.
    names = sorted(pages)
    wants: dict[str, list[str]] = {}
    for name in names:
        for label, want in pages[name].wants:
            wants.setdefault(label, []).append(want)
    rows = []
    for i, name in enumerate(names):
        for r in pages[name].records:
            wanted = [s for w in wants.get(r.anchor, []) for s in stems(w)]
            fields = {"want": wanted, "phrases": r.phrases, "prose": r.prose, "code": r.code,
                      "output": r.output}  # fmt: skip
            rows.append(
                [
                    i,
                    r.anchor,
                    r.title,
                    r.snippet,
                    "\n".join(r.phrase_names),
                    *(" ".join(fields[f]) for f in FIELDS),
                    "\n".join(r.errors),
                ]
            )
    return {
        "pages": [p + suffix for p in names],
        "fields": list(FIELDS),
        "sections": rows,
        "stop": " ".join(sorted(STOP_WORDS)),
        "forms": {"words": WORD_FORMS, "spelling": SPELLING},
        "synonyms": [[" ".join(phrase) for phrase in group] for group in synonyms],
        "errors": errortext.load_rules().as_data(),
    }


def _write_index(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    env = app.env
    pages = env.tasksearch_pages  # type: ignore[attr-defined]
    titles = {doc: env.titles[doc].astext() for doc in pages if doc in env.titles}
    synonyms = load_synonyms(app.config.tasksearch_synonyms)
    suffix = app.builder.out_suffix  # type: ignore[attr-defined]  # an HTML builder's
    data = index_data(pages, suffix, synonyms)
    data["titles"] = [titles.get(p.removesuffix(suffix), "") for p in data["pages"]]
    out = Path(app.outdir) / "_static" / INDEX_FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    out.write_text(f"TaskSearch.load({payload});\n", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    docs = Path(app.confdir) / "docs"
    app.add_config_value("tasksearch_terms", str(docs / "search_terms.toml"), "env", types=[str])
    # Synonyms apply when a query is read, so a change needs no page read again.
    app.add_config_value(
        "tasksearch_synonyms", str(docs / "search_synonyms.toml"), "html", types=[str]
    )
    app.add_js_file("tasksearch.js", defer="defer")
    app.add_css_file("tasksearch.css")
    app.connect("env-before-read-docs", _load_targets)
    app.connect("env-get-outdated", _reread_when_inputs_changed)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-read", _read_page)
    app.connect("env-check-consistency", _check_targets)
    app.connect("build-finished", _write_index)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 6}
