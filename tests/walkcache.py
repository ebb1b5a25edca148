"""Which pages passed the browser walk, and with what files: a pass holds until they change.

The walks (wide and phone, each page in light and dark) are the longest part of the
tests that a contributor waits for after changing one page: 306 s with every page
walked, on the 2-core machine with nothing else running (`nox -s walkperf`). A walk's
findings about a page depend on what the browser was given and how it looked: the
page's HTML, the files it loads (the site's static files, the images it shows), the
browser, axe-core and the walk's own code. This file remembers each page that passed a
walk, by those, the way ``blockcache.py`` remembers a block by its code and inputs; the
tests then judge the remembered visit as they judge a new one.

- A page is walked again when its HTML changed, or a file its HTML names for the browser
  to load (a stylesheet, a script, an image; not the pages its ``<link rel="prev">``,
  ``"next"``, ``"index"`` or ``"search"`` name), or any file under ``_static/`` except
  ``search-index.js``, which ``tasksearch.js`` loads only when a reader searches (with
  ``tasksearch-rank.js``, which the key covers like any file of ``_static/``). The walk
  records what each page loaded, and ``test_site_walk.py`` checks that every file is one
  its key covers.
- A page's HTML counts without the commit the build was made from. Every page carries
  it, in the feedback links' addresses and in the ``<meta name="cheatsheet-feedback">``
  that "suggest an entry" reads (``docs/_ext/feedback.py``), so every commit, and the
  first edit after one (``-dirty``), changed every page and walked all of them again.
  The browser renders neither an address nor a meta tag, so what the walk finds does
  not depend on it.
- Every page is walked again when the walk's inputs change: ``tools/sitewalk.py``, axe-core,
  Chromium's and Playwright's versions, the axe rules of the walk, the system's fonts.
  The walk names the inputs that changed.
- A visit with any finding (an axe violation, a console error, a failed request, a
  sideways scroll, a layout shift over ``MAX_LAYOUT_SHIFT``, the wrong colour mode) is
  never remembered, and it removes an earlier pass.

The records live beside the built site (``_build/site-walk/<walk>.json``), so a clean
build forgets them and a fresh clone (CI) walks every page. ``CHEATSHEET_EVERY_PAGE=1``
walks every page even when a record holds it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import os
import posixpath
import re
import time
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitewalk import MAX_LAYOUT_SHIFT, Shift, Visit, axe_script, published_root

from blockcache import read_passes, write_passes
from cheatsheet._variables import read

EVERY_PAGE = "CHEATSHEET_EVERY_PAGE"
ROOT = Path(__file__).resolve().parents[1]
# Files of _static/ that no page loads as it opens: the task search's records, loaded
# the first time a reader types a query (docs/_ext/tasksearch.py). They change with
# nearly every edit of a page's text.
LOADED_ON_SEARCH = frozenset({"_static/search-index.js"})
# The summary names the pages a walk visited when there are at most this many.
SHOWN_PAGES = 10
FONT_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts")
# Where an element names a file the browser loads with the page; a link (<a href>) is
# a place to go, not a file the page needs.
_LOADS = {
    "link": ("href",), "script": ("src",), "img": ("src", "srcset"),
    "source": ("src", "srcset"), "object": ("data",), "embed": ("src",),
    "iframe": ("src",), "video": ("src", "poster"), "audio": ("src",),
    "image": ("href", "xlink:href"), "use": ("href", "xlink:href"),
}  # fmt: skip


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fonts() -> str:
    """The system's font files, by name and size: what Chromium draws text with."""
    found = []
    for folder in FONT_FOLDERS:
        for dirpath, _, names in os.walk(folder):
            found += [f"{dirpath}/{n} {os.path.getsize(os.path.join(dirpath, n))}" for n in names]
    return _sha256("\n".join(sorted(found)).encode())


def inputs(browser, rules: tuple[str, ...] | None) -> dict[str, str]:
    """What every page's walk depends on besides the site's own files."""
    return {
        "sitewalk.py": _sha256((ROOT / "tools" / "sitewalk.py").read_bytes()),
        "axe-core": _sha256(axe_script().encode("utf-8")),
        "chromium": browser.version,
        "playwright": importlib.metadata.version("playwright"),
        "axe rules": ", ".join(rules) if rules else "all",
        "fonts": _fonts(),
    }


# A <link> with only these relations names a place to go, which the browser does not load
# with the page: the previous and next page, the index, the search page. Counted as
# files, they walked a page again whenever its neighbour or the general index changed.
_NAVIGATION = frozenset({
    "prev", "next", "index", "search", "canonical", "alternate", "author", "license",
    "help", "contents", "start", "first", "last", "up", "glossary", "copyright", "home",
})  # fmt: skip


class _Loads(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        rel = set((dict(attrs).get("rel") or "").lower().split())
        if tag == "link" and rel and rel <= _NAVIGATION:
            return
        for name, value in attrs:
            if value and name in _LOADS.get(tag, ()):
                if name == "srcset":
                    self.urls += [part.split()[0] for part in value.split(",") if part.strip()]
                else:
                    self.urls.append(value)

    handle_startendtag = handle_starttag


# The build's commit, as the layout writes it for "suggest an entry" (docs/_templates/layout.html).
_COMMIT = re.compile(rb'<meta name="cheatsheet-feedback"[^>]*?\sdata-commit="([^"]+)"')


def without_commit(html: bytes) -> bytes:
    """``html`` with the build's commit, wherever it appears, replaced by a placeholder.

    The commit is read from the page's own feedback ``<meta>``; a page without one is
    returned as it is.
    """
    found = _COMMIT.search(html)
    return html.replace(found.group(1), b"<commit>") if found else html


class SiteFiles:
    """The files of a built site each page's walk depends on, and their digest.

    Parameters
    ----------
    site : Path
        The built site's folder.
    """

    def __init__(self, site: Path) -> None:
        self.site = site
        # The 404 page names its files where the site lives on its host (sitewalk.serve).
        self.root = published_root(site).lstrip("/")
        self._digests: dict[str, str] = {}
        self._named: dict[str, list[str]] = {}
        self.static = sorted(
            p.relative_to(site).as_posix()
            for p in (site / "_static").rglob("*")
            if p.is_file() and p.relative_to(site).as_posix() not in LOADED_ON_SEARCH
        )
        self._static_digest = _sha256(
            "".join(f"{p} {self._digest(p)}\n" for p in self.static).encode()
        )

    def _digest(self, path: str) -> str:
        if path not in self._digests:
            file = self.site / path
            if not file.is_file():
                self._digests[path] = "missing"
            else:
                data = file.read_bytes()
                self._digests[path] = _sha256(
                    without_commit(data) if path.endswith(".html") else data
                )
        return self._digests[path]

    def site_path(self, url: str, page: str = "") -> str | None:
        """The site's file that ``url`` names from ``page``; None for anything else."""
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:
            return None
        path = unquote(parts.path)
        if path.startswith("/"):
            path = path.lstrip("/")
            if self.root and path.startswith(self.root):
                path = path[len(self.root) :]
        else:
            path = posixpath.join(posixpath.dirname(page), path)
        path = posixpath.normpath(path)
        return "index.html" if path in (".", "") else path

    def named_by(self, page: str) -> list[str]:
        """The site's files that ``page``'s HTML names for the browser to load."""
        if page not in self._named:
            parser = _Loads()
            parser.feed((self.site / page).read_text(encoding="utf-8"))
            found = {self.site_path(url, page) for url in parser.urls}
            self._named[page] = sorted(p for p in found if p)
        return self._named[page]

    def covered(self, page: str) -> set[str]:
        """Every file whose change walks ``page`` again."""
        return {page, *self.named_by(page), *self.static}

    def key(self, page: str) -> str:
        """One digest of ``page`` and every file its walk depends on."""
        named = "".join(f"{p} {self._digest(p)}\n" for p in self.named_by(page))
        return _sha256(f"{page} {self._digest(page)}\n{named}{self._static_digest}".encode())


def clean(visit: Visit, mode: str) -> bool:
    """Whether a visit found nothing any test of the walk would report."""
    return (
        visit.theme == mode
        and not (visit.axe or visit.console_errors or visit.failed_requests)
        and visit.scroll_width <= visit.client_width
        and visit.article_overflow <= 0
        and visit.layout_shift <= MAX_LAYOUT_SHIFT
    )


def _stored(visit: Visit) -> dict:
    return dataclasses.asdict(visit)


def _restored(stored: dict) -> Visit:
    return Visit(**{**stored, "shifts": [Shift(**s) for s in stored["shifts"]]})


class WalkRecord:
    """The pages that passed one walk (a viewport and a mode) under one set of inputs.

    Parameters
    ----------
    path : Path
        The record's file; it need not exist yet.
    depends_on : dict of str to str
        This walk's inputs (:func:`inputs`). Passes recorded under others do not count,
        and :attr:`changed` names the inputs that differ.
    mode : str
        The walk's colour mode: a visit in another one is not a pass.
    """

    def __init__(self, path: Path, depends_on: dict[str, str], mode: str) -> None:
        self.path, self.depends_on, self.mode = path, depends_on, mode
        self._passed, self.changed = read_passes(path, depends_on)

    def split(self, paths: Iterable[str], files: SiteFiles) -> tuple[list[str], dict[str, Visit]]:
        """Return the pages to walk now, and the visits that passed with the same files.

        With ``CHEATSHEET_EVERY_PAGE=1`` in the environment every page is walked.
        """
        paths = list(paths)
        if read(EVERY_PAGE) == "1":
            return paths, {}
        reused, todo = {}, []
        for path in paths:
            stored = self._passed.get(path)
            if stored is not None and stored["key"] == files.key(path):
                reused[path] = _restored(stored["visit"])
            else:
                todo.append(path)
        return todo, reused

    def save(self, walked: dict[str, Visit], files: SiteFiles, still_shown: Iterable[str]) -> None:
        """Remember the pages that passed now; keep only passes of pages ``still_shown``."""
        kept = set(still_shown)
        passed = {p: v for p, v in self._passed.items() if p in kept}
        for path, visit in walked.items():
            if clean(visit, self.mode):
                passed[path] = {"key": files.key(path), "visit": _stored(visit)}
            else:  # a pass remembered from before no longer holds
                passed.pop(path, None)
        last_run = {
            "at": time.time(),
            "walked": len(walked),
            "pages walked": sorted(walked),
            "passed before": len(kept - walked.keys()),
            "inputs changed": self.changed,
            "loaded again": {path: v.stalled for path, v in walked.items() if v.stalled},
        }
        self._passed, self.changed = passed, []
        write_passes(self.path, self.depends_on, passed, last_run)


def last_run_line(folder: Path, since: float) -> str | None:
    """Say how the walks used the records in ``folder``, if they did so after ``since``."""
    walks = []
    for path in sorted(folder.glob("*.json")):
        try:
            last = json.loads(path.read_text(encoding="utf-8"))["last run"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if last["at"] >= since:
            changed, walked = last["inputs changed"], last.get("pages walked", [])
            if changed:
                why = f" (inputs changed: {', '.join(changed)})"
            elif 0 < len(walked) <= SHOWN_PAGES:
                why = f" ({', '.join(walked)})"
            else:
                why = ""
            again = last.get("loaded again", {})
            walks.append(
                f"{path.stem} {last['walked']} walked now{why}, "
                f"{last['passed before']} passed before"
                + "".join(f", {page} loaded again after: {'; '.join(given_up)}"
                          for page, given_up in again.items())
            )  # fmt: skip
    if not walks:
        return None
    return (
        f"site walk: {'; '.join(walks)} with the same files ({folder}; "
        f"{EVERY_PAGE}=1 walks them all)"
    )
