"""Each page's Summary table states its column widths, so it holds still while it loads.

A browser lays out a table without stated column widths from the rows it has read so
far: while a page arrives, a row that comes in can widen one column and rewrap the
others, and everything below moves (on a phone, by a layout-shift score above 0.05 on
some pages). Given each column's share of the width, the browser sizes the columns once.
The shares are those a browser settles on for the whole table on a wide screen: in
proportion to each column's longest cell.

The Summary table is the one that matters: it opens every gallery page, in the first
screen, where a shift is seen. Tables further down have arrived before a reader gets
there.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from tasksearch import SUMMARY_HEADING

# A column never gets less: a short "You want" column still has room for its words.
MIN_SHARE = 0.25


def column_shares(table: nodes.table) -> list[float]:
    """Each column's share of ``table``'s width: its longest cell, in characters, of all.

    Shares below ``MIN_SHARE`` are raised to it, and the others scaled to make room.
    A row with a cell that spans columns does not count.
    """
    tgroup = table.next_node(nodes.tgroup)
    columns = tgroup["cols"]
    longest = [1] * columns
    for row in tgroup.findall(nodes.row):
        entries = [e for e in row.children if isinstance(e, nodes.entry)]
        if len(entries) != columns:
            continue
        for i, entry in enumerate(entries):
            longest[i] = max(longest[i], len(" ".join(entry.astext().split())))
    shares = [n / sum(longest) for n in longest]
    floor = min(MIN_SHARE, 1 / columns)
    small = [s < floor for s in shares]
    rest = sum(s for s, is_small in zip(shares, small, strict=True) if not is_small)
    room = 1 - floor * sum(small)
    return [
        floor if is_small else s * room / rest for s, is_small in zip(shares, small, strict=True)
    ]


def _summary_tables(doctree: nodes.document) -> list[nodes.table]:
    found = []
    for section in doctree.findall(nodes.section):
        if section.children and section[0].astext().strip() == SUMMARY_HEADING:
            found += [t for t in section.findall(nodes.table) if _nearest_section(t) is section]
    return found


def _nearest_section(node: nodes.Node) -> nodes.Node | None:
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    return node


def _state_widths(app: Sphinx, doctree: nodes.document) -> None:
    for table in _summary_tables(doctree):
        if "colwidths-given" in table["classes"]:
            continue
        colspecs = [
            c for c in table.next_node(nodes.tgroup).children if isinstance(c, nodes.colspec)
        ]
        for colspec, share in zip(colspecs, column_shares(table), strict=True):
            colspec["colwidth"] = round(share * 1000)
        table["classes"] = [c for c in table["classes"] if c != "colwidths-auto"]
        table["classes"].append("colwidths-given")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", _state_widths)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
