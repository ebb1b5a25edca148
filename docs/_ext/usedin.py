"""Used in: for each torch name the site's code calls, the entries that call it.

Each code block of a gallery page is read for the names it uses, resolved through the
block's own imports by sphinx-gallery's ``NameFinder`` (every block imports what it uses,
so a block alone says what ``nn.Linear`` or ``F.relu`` is). A name counts when PyTorch's
inventory documents it (``intersphinx_mapping``): the index holds the API, not a
reader's variables. A method is used on an object, so no import names it: for a
reference entry about one (``torch.Tensor.view``, ``torch.nn.Module.apply``), a call of
``.view`` or ``.apply`` on anything that is not an imported module counts.

Each reference entry (an ``api-`` label on a ``reference_*`` page) ends with the other
entries that call its name (a ``<details>`` that stays one line until opened), and the
page holding ``.. api-index::`` lists every name with the entries that call it, the
name's own entry first.

sphinx-gallery's backreferences (``doc_module``, ``backreferences_dir``, ``minigallery``)
do not fit: they keep one thumbnail per *page* that uses a name, where an entry is a
section of a page, and this site's gallery shows no thumbnails. sphinx-codeautolink's
``autolink-examples`` keeps code blocks, but the gallery's pages are not its to read
(``autolink-skip`` in ``rst_prolog``: sphinx-gallery links their code itself).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, cast

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.util.docutils import SphinxDirective
from sphinx_gallery.backreferences import NameFinder

import tasksearch

GALLERY = "gallery/"
REFERENCE = "gallery/reference_"
REFERENCE_LABEL = "api-"
# Names called on objects, not reached by an import: an entry about one of these
# classes' methods is matched on the method's name.
METHOD_OWNERS = ("torch.Tensor.", "torch.nn.Module.")
# Links listed under a reference entry, and in the index's row of a name: a name that
# hundreds of entries call (torch.tensor) would otherwise make the index weigh a megabyte.
SHOWN = 12
INDEX_SHOWN = 20
_NAME = re.compile(r"torch(?:\.\w+)+")


@dataclass(frozen=True)
class Entry:
    """One labelled section of a gallery page and what its code calls.

    Attributes
    ----------
    docname, anchor, title : str
        Where the entry is and its heading.
    names : frozenset of str
        Dotted names its code reaches through imports (``torch.nn.Linear``).
    methods : frozenset of str
        Attribute names its code uses on anything else (``view``, ``backward``).
    """

    docname: str
    anchor: str
    title: str
    names: frozenset[str]
    methods: frozenset[str]


def code_names(code: str) -> tuple[set[str], set[str]]:
    r"""Return the dotted names ``code`` reaches through its imports, and its other attributes.

    >>> names, attributes = code_names("import torch.nn as nn\\nnn.Linear(2, 3).weight.sum()")
    >>> names, sorted(attributes)
    ({'torch.nn.Linear'}, ['sum', 'weight'])
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(), set()  # a shell line or a snippet shown, not run
    finder = NameFinder()
    finder.visit(tree)
    names = {full for _name, full, *_ in finder.get_mapping() if "." in full}
    methods = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and root.id in finder.imported_names):
            methods.add(node.attr)
    return names, methods


def entry_name(title: str) -> str:
    """Return the torch name a reference entry's heading names ("" for one that names none)."""
    found = _NAME.match(title.strip())
    return found.group(0) if found else ""


def read_entries(doctree: nodes.document, docname: str, labels: set[str]) -> list[Entry]:
    """Every labelled section of a page, with the names its code blocks use."""
    found = []
    for section in doctree.findall(nodes.section):
        anchor = next((i for i in section["ids"] if i in labels), None)
        if anchor is None:
            continue
        names: set[str] = set()
        methods: set[str] = set()
        for node in tasksearch._own_nodes(section):
            for block in node.findall(nodes.literal_block):
                if not tasksearch._is_output(block):
                    more, attrs = code_names(block.astext())
                    names |= more
                    methods |= attrs
        title = tasksearch._plain(section[0].astext())
        found.append(Entry(docname, anchor, title, frozenset(names), frozenset(methods)))
    return found


def api_names(entries: list[Entry], documented: set[str]) -> dict[str, list[Entry]]:
    """Each documented name any entry calls, with the entries that call it.

    A name's own reference entry comes first, then the others by page and place.
    """
    reference = {
        entry_name(e.title): e
        for e in entries
        if e.docname.startswith(REFERENCE) and e.anchor.startswith(REFERENCE_LABEL)
    }
    reference.pop("", None)
    by_name: dict[str, list[Entry]] = {}
    by_method: dict[str, list[Entry]] = {}
    for entry in entries:
        for name in entry.names:
            by_name.setdefault(name, []).append(entry)
        for method in entry.methods:
            by_method.setdefault(method, []).append(entry)
    table = {}
    for name in sorted((by_name.keys() & documented) | reference.keys()):
        callers = list(by_name.get(name, []))
        owner = next((o for o in METHOD_OWNERS if name.startswith(o)), None)
        if owner is not None and name.count(".") == owner.count("."):
            callers += [e for e in by_method.get(name.removeprefix(owner), []) if e not in callers]
        own = reference.get(name)
        if own is not None:
            callers = [own] + [e for e in callers if e != own]
        table[name] = callers
    return table


def index_id(name: str) -> str:
    """Return the index row's anchor: ``used-torch-nn-linear``."""
    return "used-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class api_index(nodes.General, nodes.Element):  # docutils names its nodes in lower case
    """Where ``.. api-index::`` puts the list, once every page is read."""


class ApiIndex(SphinxDirective):
    """``.. api-index::``: the list of every torch name and the entries that call it."""

    def run(self) -> list[nodes.Node]:
        self.env.usedin_index = self.env.docname  # type: ignore[attr-defined]
        return [api_index()]


def _documented(app: Sphinx) -> dict[str, str]:
    """Each name PyTorch's inventory documents, and its address."""
    inventory = getattr(app.env, "intersphinx_named_inventory", {}).get("torch", {})
    return {
        # Sphinx 8.2 gave inventory items a `uri` and deprecated their tuple form ([2]).
        name: item.uri if hasattr(item, "uri") else item[2]
        for kind, items in inventory.items()
        if kind.startswith("py:")
        for name, item in items.items()
    }


def _entries(app: Sphinx) -> list[Entry]:
    pages = app.env.usedin_entries  # type: ignore[attr-defined]
    return [entry for doc in sorted(pages) for entry in pages[doc]]


def _link(app: Sphinx, fromdoc: str, entry: Entry, text: str = "") -> nodes.reference:
    uri = app.builder.get_relative_uri(fromdoc, entry.docname) + "#" + entry.anchor
    return nodes.reference("", text or entry.title, internal=True, refuri=uri)


def _index_link(app: Sphinx, fromdoc: str, name: str, text: str) -> nodes.Node:
    index = getattr(app.env, "usedin_index", None)
    if index is None:
        return nodes.Text(text)
    uri = app.builder.get_relative_uri(fromdoc, index) + "#" + index_id(name)
    return nodes.reference("", text, internal=True, refuri=uri)


class details(nodes.General, nodes.Element):  # docutils names its nodes in lower case
    """``<details>``: the "used in" list stays one line until the reader opens it."""


class summary(nodes.General, nodes.TextElement):  # docutils names its nodes in lower case
    """``<summary>``: the line that opens the list."""


def _visit_details(self: Any, node: details) -> None:
    self.body.append(self.starttag(node, "details"))


def _depart_details(self: Any, node: details) -> None:
    self.body.append("</details>")


def _visit_summary(self: Any, node: summary) -> None:
    self.body.append(self.starttag(node, "summary", suffix=""))


def _depart_summary(self: Any, node: summary) -> None:
    self.body.append("</summary>")


def _used_in_line(app: Sphinx, docname: str, name: str, others: list[Entry]) -> details:
    count = f"{len(others)} other entr{'y' if len(others) == 1 else 'ies'}"
    box = details(classes=["used-in"])
    box += summary("", f"Used in {count}")
    listed = nodes.paragraph()
    for i, entry in enumerate(others[:SHOWN]):
        if i:
            listed += nodes.Text(", ")
        listed += _link(app, docname, entry)
    rest = len(others) - SHOWN
    listed += nodes.Text(f", and {rest} more: " if rest > 0 else "; ")
    listed += _index_link(app, docname, name, "the API index")
    box += listed
    return box


def _index_list(app: Sphinx, docname: str, table: dict[str, list[Entry]]) -> nodes.Node:
    """Each name, linked to PyTorch's documentation, over the entries that call it.

    A list rather than a table: a phone has no room for two columns of long names.
    """
    documented = _documented(app)
    listing = nodes.definition_list(classes=["api-index"])
    for name, callers in table.items():
        code = nodes.literal(text=name)
        uri = documented.get(name)
        term = nodes.term("", "", nodes.reference("", "", code, refuri=uri) if uri else code)
        term["ids"] = [index_id(name)]
        para = nodes.paragraph()
        for i, entry in enumerate(callers[:INDEX_SHOWN]):
            if i:
                para += nodes.Text(", ")
            para += _link(app, docname, entry)
        if len(callers) > INDEX_SHOWN:
            para += nodes.Text(f", and {len(callers) - INDEX_SHOWN} more")
        listing += nodes.definition_list_item("", term, nodes.definition("", para))
    return listing


def _read(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    pages = app.env.usedin_entries  # type: ignore[attr-defined]
    pages.pop(docname, None)
    if not docname.startswith(GALLERY):
        return
    std = cast(StandardDomain, app.env.get_domain("std"))
    labels = {label for label, (doc, _) in std.anonlabels.items() if doc == docname}
    pages[docname] = read_entries(doctree, docname, labels)


def _resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    table = app.usedin_table  # type: ignore[attr-defined]
    for node in list(doctree.findall(api_index)):
        node.replace_self(_index_list(app, docname, table))
    if not docname.startswith(REFERENCE) or app.builder.format != "html":
        return
    std = cast(StandardDomain, app.env.get_domain("std"))
    labels = {label for label, (doc, _) in std.anonlabels.items() if doc == docname}
    for section in doctree.findall(nodes.section):
        anchor = next((i for i in section["ids"] if i in labels), "")
        if not anchor.startswith(REFERENCE_LABEL):
            continue
        name = entry_name(tasksearch._plain(section[0].astext()))
        others = [e for e in table.get(name, []) if e.anchor != anchor]
        if others:
            at = next(
                (i for i, child in enumerate(section.children) if isinstance(child, nodes.section)),
                len(section.children),
            )
            section.insert(at, _used_in_line(app, docname, name, others))


def _start(app: Sphinx, env: Any, docnames: list[str]) -> None:
    if not hasattr(env, "usedin_entries"):
        env.usedin_entries = {}


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "usedin_entries", {}).pop(docname, None)
    if getattr(env, "usedin_index", None) == docname:
        del env.usedin_index


def _merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    env.usedin_entries.update(other.usedin_entries)
    if getattr(other, "usedin_index", None):
        env.usedin_index = other.usedin_index


def _write_again(app: Sphinx, env: Any) -> list[str]:
    # Once every page is read. A page's "used in" lines and the index come from every
    # other page's code, so they are written again in every build (writing runs no example).
    app.usedin_table = api_names(_entries(app), set(_documented(app)))  # type: ignore[attr-defined]
    return sorted(
        d for d in env.found_docs
        if d.startswith(REFERENCE) or d == getattr(env, "usedin_index", None)
    )  # fmt: skip


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(api_index)
    app.add_node(details, html=(_visit_details, _depart_details))
    app.add_node(summary, html=(_visit_summary, _depart_summary))
    app.add_directive("api-index", ApiIndex)
    app.connect("env-before-read-docs", _start)
    app.connect("doctree-read", _read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-updated", _write_again)
    app.connect("doctree-resolved", _resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
