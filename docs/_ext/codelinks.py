"""sphinx-codeautolink links the code of every page a build writes.

codeautolink notes each page's code while Sphinx reads it, keeps the notes in a cache
for the next build, and adds its links to the written HTML at the end of a build. Two of
its shortcuts left Markdown pages written with no code links until the next clean build:

- It links only the pages the HTML builder called outdated when the build began: pages
  whose source is newer than their HTML, or every page when an HTML setting changed.
  Sphinx writes more than that. When ``extensions`` changes ("[extensions changed]"),
  Sphinx reads and writes every page, and none was linked (``guides/measuring.html``
  lost all 13 links).
- It reads back from its cache only the notes of ``.rst`` pages. A Markdown page that a
  build writes without reading it again (the landing page, when a page its table of
  contents lists changed) had no notes, and lost its links.

Its list of outdated pages could also hold too many: when an HTML setting changed, it
held every page, and the pages Sphinx did not write again were linked a second time
(warnings, which fail the build).

This extension has codeautolink link exactly the pages the build resolves for writing,
and read back the notes of pages of every source suffix the site has, so a rebuild
links what a clean build links. codeautolink's tracker has an open issue about
links missing after partial builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx_codeautolink.extension import cache

import order  # docs/_ext: where each hook runs among the libraries' handlers

# The site's source suffixes (".rst", ".md"), known once the configuration is read.
_suffixes: tuple[str, ...] = (".rst",)


def _read_every_suffix(self: cache.DataCache) -> None:
    """``DataCache.read``, keeping the notes of every page whose source still exists."""
    path = self.cache_dir / self.cache_filename
    if not path.exists():
        return
    for docname, transforms in json.loads(path.read_text("utf-8")).items():
        if not any((self.src_dir / f"{docname}{suffix}").exists() for suffix in _suffixes):
            continue  # the page is gone
        for transform in transforms:
            transform["example"] = cache.CodeExample(**transform["example"])
            transform["names"] = [cache.Name(**name) for name in transform["names"]]
        self.transforms[docname] = [cache.SourceTransform(**t) for t in transforms]


def _codeautolink_state(app: Sphinx) -> Any:
    """Find the object whose handlers sphinx-codeautolink connected: it holds the pages to link."""
    for listener in app.events.listeners.get("build-finished", []):
        owner = getattr(listener.handler, "__self__", None)
        if owner is not None and hasattr(owner, "outdated_docs"):
            return owner
    raise ExtensionError(
        "codelinks found no list of outdated pages in sphinx-codeautolink: this release of it "
        "chooses the pages it links in another way. If a rebuild that changes conf.py's "
        "extensions keeps the Markdown pages' code links without codelinks "
        "(tests/test_codelinks.py), remove 'codelinks' from conf.py's extensions."
    )


def _know_the_suffixes(app: Sphinx) -> None:
    global _suffixes
    _suffixes = tuple(app.config.source_suffix)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_codeautolink")
    state = _codeautolink_state(app)
    cache.DataCache.read = _read_every_suffix
    order.connect(app, "builder-inited", _know_the_suffixes)

    def forget_its_guess(app: Sphinx) -> None:
        # After codeautolink's handler: its list of outdated pages is a guess, and asking
        # the builder for it used up the builder's note that an HTML setting changed (it
        # moved .buildinfo), so that list held pages Sphinx did not write again, and
        # their HTML, already linked, was linked again ("Could not match transformation").
        state.outdated_docs = set()

    def link_written_page(app: Sphinx, doctree: nodes.document, docname: str) -> None:
        # Emitted in the main process for each page about to be written, serial or
        # parallel; codeautolink keeps its page names as str(Path(docname)).
        state.outdated_docs.add(str(Path(docname)))

    order.connect(app, "builder-inited", forget_its_guess)
    app.connect("doctree-resolved", link_written_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
