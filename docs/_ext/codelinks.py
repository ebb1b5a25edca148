"""sphinx-codeautolink links the code of every page a build writes.

codeautolink adds its links to the written HTML at the end of the build, and only to the
pages that the HTML builder called outdated when the build began: pages whose source is
newer than their HTML, or every page when an HTML setting changed. Sphinx writes more
pages than that. When ``extensions`` changes ("[extensions changed]"), or a page is read
again for a file it depends on, Sphinx reads and writes pages whose source did not change,
and they were written without their code links (``guides/measuring.html`` lost all 13)
until the next clean build. codeautolink's tracker has an open issue about links missing
after partial builds.

This extension adds each page the build resolves for writing to the pages codeautolink
links, so a rebuild links what a clean build links.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError


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


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_codeautolink")
    state = _codeautolink_state(app)

    def link_written_page(app: Sphinx, doctree: nodes.document, docname: str) -> None:
        # Emitted in the main process for each page about to be written, serial or
        # parallel; codeautolink keeps its page names as str(Path(docname)).
        state.outdated_docs.add(str(Path(docname)))

    app.connect("doctree-resolved", link_written_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
