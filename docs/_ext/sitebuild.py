"""Build hooks of this site: the build command, page order, entry links, the footer line.

The other hooks have a file each: ``pagestate.py`` (a fresh start for every page),
``pagerecords.py`` (what each page measured), ``pageinputs.py`` (reruns when what every
page depends on changed), ``freshpage.py`` (a process per page), ``blockexec.py`` (how
each block runs).
"""

from __future__ import annotations

import ast
import datetime
import difflib
import os
import queue
import re
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.roles import XRefRole
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

import order  # docs/_ext: where each hook runs among the libraries' handlers
from cheatsheet._variables import read
from pageinputs import distribution_version

# torch, numpy and cheatsheet are imported where they are used: a rebuild in which
# no example runs then never pays the seconds that importing torch costs.

logger = logging.getLogger(__name__)


def site_url(repository_url: str) -> str:
    """Return the address the site is published at, ending in a slash.

    The deploy workflow passes GitHub Pages' address in ``CHEATSHEET_SITE_URL``
    and Read the Docs its own in ``READTHEDOCS_CANONICAL_URL``; otherwise the
    GitHub Pages address of ``repository_url`` (``https://github.com/OWNER/NAME``).
    """
    url = read("CHEATSHEET_SITE_URL") or os.environ.get("READTHEDOCS_CANONICAL_URL")
    if not url:
        owner, name = repository_url.rstrip("/").split("/")[-2:]
        url = f"https://{owner}.github.io/{name}/"
    return url.rstrip("/") + "/"


def build_line() -> str:
    """Say when and with which torch the site was built, for the footer.

    Read without importing torch, like :func:`pageinputs.page_inputs`. The machine is not named
    here: pages may run on several machines, and each page that measures something
    names its own (docs/_ext/machines.py); the landing page lists them all.
    """
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    return f"Built on {today} with torch {distribution_version('torch')}"


def _sitemap_lists_every_page(app: Sphinx, exception: BaseException | None) -> None:
    """Hand sphinx-sitemap every page of the site, not only those this build wrote.

    It collects pages as they are written, so after an incremental build its
    sitemap would list the changed pages alone. This runs just before it writes.
    """
    links = getattr(app, "sitemap_links", None)
    if exception is not None or links is None:
        return
    found: dict[str, Any] = {}
    while True:
        try:
            link, last_updated = links.get_nowait()
        except queue.Empty:
            break
        found[link] = last_updated
    for doc in app.env.found_docs:
        found.setdefault(f"{doc}.html", None)
    for link in sorted(found):
        links.put((link, found[link]))


# -- The build command --------------------------------------------------------------


def sphinx_build_command(noxfile: str | os.PathLike[str]) -> list[str]:
    """Return the site's sphinx-build command line, run by this Python.

    noxfile.py writes it once, as the literal tuple ``SPHINX_BUILD``. Tests and
    benchmarks read it from there, because importing noxfile.py needs nox.

    Parameters
    ----------
    noxfile : path
        The project's ``noxfile.py``.

    Returns
    -------
    list of str
        ``[sys.executable, "-m", "sphinx", ...]`` with the flags, source and output
        folders of ``SPHINX_BUILD``, relative to the project root.
    """
    tree = ast.parse(Path(noxfile).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "SPHINX_BUILD"
        ]:
            _, *args = ast.literal_eval(node.value)
            return [sys.executable, "-m", "sphinx", *args]
    raise LookupError(f"{noxfile} defines no SPHINX_BUILD tuple")


# -- Page order, entry count, machine stamp -------------------------------------

_API_LABEL = re.compile(r"^# \.\. _api-[\w-]+:$", re.MULTILINE)


def count_api_entries(examples: str | os.PathLike[str]) -> int:
    """Count the API reference entries: cells labelled ``api-...`` in ``examples/reference_*``."""
    pages = sorted(Path(examples).glob("reference_*/*.py"))
    return sum(len(_API_LABEL.findall(p.read_text(encoding="utf-8"))) for p in pages)


class HeaderOrder:
    """Order examples as their folder's ``GALLERY_HEADER.rst`` first links them.

    The header of each topic links its pages in reading order
    (``:ref:`sphx_glr_gallery_<folder>_<name>.py```), so that list is the one
    place the order is written. Pages it does not link follow, alphabetically.
    """

    def __init__(self, src_dir: str | os.PathLike[str]) -> None:
        self.src_dir = Path(src_dir)

    def __call__(self, filename: str) -> tuple[int, str]:
        header = self.src_dir / "GALLERY_HEADER.rst"
        text = header.read_text(encoding="utf-8") if header.exists() else ""
        stem = Path(filename).stem
        ref = rf"sphx_glr_\w*?_{re.escape(self.src_dir.name)}_{re.escape(stem)}\.py"
        found = re.search(ref, text)
        return (found.start() if found else len(text) + 1, stem)

    def __repr__(self) -> str:  # sphinx-gallery hashes the repr into its cache key
        return f"HeaderOrder({self.src_dir.name!r})"


# -- Summary links: a call in code type that jumps to its entry --------------------

# ``:entry:`torch.zeros(shape) <api-torch-zeros>``` in a page's Summary table shows
# the call as code and links it to the labelled entry that runs it. (``:ref:``
# would show it as plain text.) A label that does not exist fails the build.
ENTRY_ROLE = XRefRole(innernodeclass=nodes.literal, warn_dangling=True)


def _resolve_entry(app: Sphinx, env: Any, node: Any, contnode: nodes.Element) -> Any:
    if node.get("refdomain") != "std" or node.get("reftype") != "entry":
        return None
    std = env.get_domain("std")
    target = node["reftarget"].lower()
    if target not in std.anonlabels:
        # The build fails on this warning; the closest labels say what was meant.
        close = difflib.get_close_matches(target, list(std.anonlabels), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        logger.warning("no entry labelled %r%s", target, hint, location=node, type="entry")
        return contnode
    docname, labelid = std.anonlabels[target]
    return make_refnode(app.builder, node["refdoc"], docname, labelid, contnode)


def _restamp_when_examples_ran(
    app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # The stamp names the machine that produced the outputs on the site. When
    # this build ran examples, it produced outputs, so the stamped pages are read
    # again even if their source did not change; when nothing ran, the stamp of
    # the build that did run them stays true.
    gallery = app.config.sphinx_gallery_conf
    if not (gallery.get("passing_examples") or gallery.get("failing_examples")):
        return []
    return [doc for doc in app.config.stamp_pages if doc in env.found_docs]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("stamp_pages", [], "env", types=[list])
    app.add_role_to_domain("std", "entry", ENTRY_ROLE)
    app.connect("missing-reference", _resolve_entry)
    app.connect("env-get-outdated", _restamp_when_examples_ran)
    order.connect(app, "build-finished", _sitemap_lists_every_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
