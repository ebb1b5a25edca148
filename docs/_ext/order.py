"""Where each build hook runs among the libraries' own handlers of the same event, in one place.

Sphinx calls an event's handlers by priority, lowest first; a handler connected without
one gets 500, as do the libraries': sphinx-gallery runs every page in its
``builder-inited`` handler, sphinx-codeautolink reads its cache in its own, sphinx-sitemap
writes the sitemap at ``build-finished``, and ``tasksearch`` reads each page at
``doctree-read``. A hook that must run before or after one of those is listed here, with
why, and connects through :func:`connect`; every other hook runs at 500, in the order
``conf.py`` lists the extensions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # shards.py, which imports this, is imported where Sphinx is not
    from sphinx.application import Sphinx

# (event, "module:function") -> (priority, why)
ORDER: dict[tuple[str, str], tuple[int, str]] = {
    ("builder-inited", "shards:_every_page_has_its_output"): (
        300, "a merge that lacks a page's output fails before pageinputs or the gallery look",
    ),
    ("builder-inited", "pageinputs:_rerun_pages_when_inputs_changed"): (
        400, "before sphinx-gallery runs the pages: it drops the records of pages to run again",
    ),
    ("builder-inited", "since:_add_policy"): (
        400, "before sphinx-gallery runs the pages: what an older torch holds back",
    ),
    ("builder-inited", "notebooks:_convert_text_with_pandoc"): (
        400, "before sphinx-gallery writes the notebooks: their text goes through pandoc",
    ),
    ("builder-inited", "codelinks:_know_the_suffixes"): (
        400, "before sphinx-codeautolink's handler reads its cache, for every source suffix",
    ),
    ("builder-inited", "notebooks:_install_what_each_page_needs"): (
        600, "after sphinx-gallery has written the notebooks: each gets its install cell",
    ),
    ("builder-inited", "codelinks:forget_its_guess"): (
        600, "after sphinx-codeautolink's handler has guessed which pages are outdated",
    ),
    ("doctree-read", "wordings:_mark_entries"): (
        450, "before tasksearch reads the page: other releases' wordings are the entry's words",
    ),
    ("html-page-context", "feedback:_site_context"): (
        600, "after each page's own context: facts a page set for itself are kept",
    ),
    ("build-finished", "sitebuild:_sitemap_lists_every_page"): (
        400, "before sphinx-sitemap writes the sitemap: every page, not only those written",
    ),
}  # fmt: skip


def connect(app: Sphinx, event: str, handler: Callable[..., Any]) -> None:
    """Connect ``handler`` to ``event`` at the priority :data:`ORDER` gives it."""
    key = (event, f"{handler.__module__}:{handler.__name__}")
    if key not in ORDER:
        from sphinx.errors import ExtensionError

        raise ExtensionError(
            f"{key[1]} on {event!r} has no place in docs/_ext/order.py: add it to ORDER, "
            "with why it runs where it does, or connect it without a priority"
        )
    app.connect(event, handler, priority=ORDER[key][0])
