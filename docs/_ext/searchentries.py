"""Sphinx's search index keeps the index entries of the pages a rebuild does not write.

The site's search page also runs Sphinx's own search, whose ``searchindex.js`` lists
the index entries (tasksearch.py gives each section one for each of its search phrases
and for what each Summary row says the reader wants). A rebuild writes only the pages
that changed and reads the rest of the index back from the last ``searchindex.js``, but
Sphinx 9.0 reads back every part of it except the index entries (a Sphinx bug, open
upstream): after a rebuild, the entries of every page it did not write were gone (the
file shrank from 292 KB to 211 KB) until the next clean build.

This extension reads them back too, forgets those of pages that no longer exist (and
the words only they held), and lists an entry's pages in the order a clean build does,
so a rebuild writes the same ``searchindex.js`` as a clean build, byte for byte (the
site walk loads it with the search page, and walks that page again when it changes).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from sphinx.application import Sphinx
from sphinx.search import IndexBuilder

_load = IndexBuilder.load
_prune = IndexBuilder.prune
_freeze = IndexBuilder.freeze


def _load_with_entries(self: IndexBuilder, stream: Any, format: Any) -> None:
    """``IndexBuilder.load``, then the index entries the frozen index holds."""
    text = stream.read()
    _load(self, io.StringIO(text) if isinstance(text, str) else io.BytesIO(text), format)
    frozen = (self.formats[format] if isinstance(format, str) else format).loads(text)
    names = frozen["docnames"]
    restored: dict[str, list[tuple[str, str, str]]] = {}
    for entry, places in frozen.get("indexentries", {}).items():
        for doc, target, main in places:
            restored.setdefault(names[doc], []).append((entry, target, "main" if main else ""))
    for docname, entries in restored.items():
        self._index_entries[docname] = sorted(entries)


def _prune_with_entries(self: IndexBuilder, docnames: Iterable[str]) -> None:
    """``IndexBuilder.prune``, which keeps only ``docnames``: their index entries too."""
    keep = set(docnames)
    _prune(self, keep)
    for docname in [d for d in self._index_entries if d not in keep]:
        del self._index_entries[docname]


def _freeze_as_a_clean_build(self: IndexBuilder) -> dict[str, Any]:
    """``IndexBuilder.freeze``, holding what a clean build's index holds, in its order.

    A clean build feeds the pages in name order; a rebuild feeds the pages it writes after
    those it read back, so an entry on several pages listed them in another order. And
    ``prune`` leaves the words of a removed page behind with no page (``"beta": []``).
    """
    self._index_entries = dict(sorted(self._index_entries.items()))
    for mapping in (self._mapping, self._title_mapping):
        for word in [w for w, docnames in mapping.items() if not docnames]:
            del mapping[word]
    return _freeze(self)


def setup(app: Sphinx) -> dict[str, Any]:
    IndexBuilder.load = _load_with_entries  # type: ignore[method-assign]
    IndexBuilder.prune = _prune_with_entries  # type: ignore[method-assign]
    IndexBuilder.freeze = _freeze_as_a_clean_build  # type: ignore[method-assign]
    return {"parallel_read_safe": True, "parallel_write_safe": True}
