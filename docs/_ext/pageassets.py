"""Each page loads sphinx-gallery's optional assets only where it has what they serve.

sphinx-gallery puts two files in every page's head whatever the page holds:
``sg-tags.js``, which filters a gallery index by the tags its pages carry, and
``sg_gallery-rendered-html.css``, which styles the HTML a page printed (a table shown
through ``_repr_html_``). Only an index of tagged pages needs the one, only a page with
printed HTML the other; on every other page they were 2.5 KB of the first visit's
150 KB budget (``nox -s weight``).
sphinx-gallery has a switch for its stylesheets (``css`` in ``conf.py``, which drops
the Binder and pandas ones everywhere) but not per page, and none for the script, so a
page's list of assets is trimmed here as it is written.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

# Each asset, with what in a page's HTML needs it: a gallery item carrying tags (the
# script builds its tag filter from them), an element holding printed HTML.
NEEDED_BY = {
    "sg-tags.js": re.compile(r"\sdata-sgtags="),
    "sg_gallery-rendered-html.css": re.compile(r'class="(?:[^"]*\s)?rendered_html[\s"]'),
}


def needless(body: str) -> set[str]:
    """Return the assets of ``NEEDED_BY`` that nothing in ``body`` needs."""
    return {asset for asset, needs in NEEDED_BY.items() if not needs.search(body)}


def trim(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
         doctree: Any) -> None:  # fmt: skip
    drop = {f"_static/{name}" for name in needless(context.get("body", ""))}
    for key in ("script_files", "css_files"):
        # Sphinx restores both lists after each page: removing here affects this page only.
        if isinstance(files := context.get(key), list):
            # Sphinx names a file of html_static_path as _static/<name>.
            files[:] = [f for f in files if getattr(f, "filename", f) not in drop]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", trim)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
