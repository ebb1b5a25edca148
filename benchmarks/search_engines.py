"""Compare the site's search engines on the task queries of tests/test_search.py.

Engines, each run in Chromium against the built site served over HTTP:

- ``sphinx``: Sphinx's own search page (searchtools.js and searchindex.js, which
  already holds the phrases of docs/search_terms.toml as index entries);
- ``pagefind``: Pagefind (PyPI ``pagefind[bin]``) indexing a copy of the built HTML,
  the same phrases added as hidden, weighted text under each target heading;
- ``tasksearch``: the site's search as you type (docs/_static/tasksearch.js).

For each: the share of queries whose expected section is first and in the first three,
the bytes a first search fetches (as sent, and gzipped), and the time from the search
starting cold (nothing loaded) to its first result. Run after building the site:
``python benchmarks/search_engines.py [--engines sphinx,pagefind,tasksearch]``.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT / "tests"))

from test_search import QUERIES, hits  # the query set lives with its test

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SITE_PATH = re.compile(r"^https?://[^/]+/")
PAGEFIND_WEIGHT = 5.0  # a heading's own weight in Pagefind is 7 (h1) to 2 (h6)


@dataclass(frozen=True)
class EngineResult:
    """How one engine did on the query set.

    Attributes
    ----------
    engine : str
        Its name.
    top1 : float
        Share of queries whose expected section comes first.
    top3 : float
        Share of queries whose expected section is among the first three.
    fetched_bytes : int
        Median bytes one cold search fetches, as the server sent them.
    fetched_gzip_bytes : int
        The same responses, gzipped (what a web server would send).
    first_result_s : float
        Median seconds from a cold search's start to its first result.
    misses : tuple of str
        Queries whose expected section is not in the first three.
    """

    engine: str
    top1: float
    top3: float
    fetched_bytes: int
    fetched_gzip_bytes: int
    first_result_s: float
    misses: tuple[str, ...]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on a free port; yield its address."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _section_of(href: str, title: str) -> dict[str, str]:
    return {"href": href, "title": title}


@functools.cache
def _sections(path: str) -> dict[str, tuple[str, str]]:
    """Map every id on a page to its section's id and heading."""
    file = SITE / path
    if not file.is_file():
        return {}
    soup = BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser")
    found = {}
    for section in soup.find_all("section", id=True):
        heading = section.find(["h1", "h2", "h3", "h4"])
        entry = (section["id"], heading.get_text(" ", strip=True).rstrip("#") if heading else "")
        found[section["id"]] = entry
        for span in section.find_all("span", id=True, recursive=False):
            found[span["id"]] = entry
    return found


def canonical(href: str) -> str:
    """Name a section one way, whichever of its ids (label or heading) a link uses."""
    path, _, anchor = href.partition("#")
    return f"{path}#{_sections(path).get(anchor, (anchor,))[0]}" if anchor else path


def _as_section(result: dict[str, str]) -> dict[str, str]:
    # Engines title a result differently (Sphinx gives the page's title for an index
    # entry); the section's own heading is what the expected headings are matched with.
    path, _, anchor = result["href"].partition("#")
    section = _sections(path).get(anchor)
    if section is None:
        return {"href": path, "title": "" if anchor else result["title"]}
    return {"href": f"{path}#{section[0]}", "title": section[1]}


# -- Each engine: run one cold query, return (results, bytes, gzip bytes, seconds) --


def _count(page, site: Path, wanted: Callable[[str], bool]) -> Callable[[], tuple[int, int]]:
    """Start counting the files the page fetches; the result sums them, sent and gzipped.

    Resource Timing names every request; the bytes are those of the files served.
    """
    page.evaluate(
        "performance.clearResourceTimings(); performance.setResourceTimingBufferSize(5000)"
    )

    def total() -> tuple[int, int]:
        names = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        sent = zipped = 0
        for name in names:
            path = SITE_PATH.sub("", name.split("#")[0].split("?")[0])
            file = site / path
            if wanted(path) and file.is_file():
                body = file.read_bytes()
                sent += len(body)
                zipped += len(gzip.compress(body, 6))
        return sent, zipped

    return total


def _sphinx(browser, base: str, site: Path, query: str):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base}/index.html")
    totals = _count(
        page, site, lambda u: "search" in u or "language_data" in u or u.endswith(".html")
    )
    start = time.perf_counter()
    page.goto(f"{base}/search.html?q={query}")
    # The first result shown, or the message that there is none.
    page.wait_for_function(
        "document.querySelector('#search-results ul.search li')"
        " || /did not match|found/i.test(document.querySelector('#search-results')?.innerText)",
        timeout=20_000,
    )
    elapsed = time.perf_counter() - start
    results = page.evaluate(
        "q => Search._performSearch(...Search._parseQuery(q)).slice(-3).reverse()"
        ".map(r => [r[0] + DOCUMENTATION_OPTIONS.FILE_SUFFIX + r[2], r[1]])",
        query,
    )
    page.wait_for_load_state("networkidle")  # the summaries it fetches count too
    sent, zipped = totals()
    context.close()
    return [_section_of(h, t.split(" > ")[-1]) for h, t in results], sent, zipped, elapsed


_PAGEFIND_QUERY = """async q => {
  const t0 = performance.now();
  const pf = await import('/pagefind/pagefind.js');
  const found = await pf.search(q);
  const pages = await Promise.all(found.results.slice(0, 3).map(r => r.data()));
  const t1 = performance.now();
  const subs = pages.flatMap(p => [...p.sub_results]
    .map(s => ({href: s.url.replace(/^\\//, ''), title: s.title,
                score: (s.weighted_locations || []).reduce((a, w) => a + w.balanced_score, 0)}))
    .sort((a, b) => b.score - a.score));
  return {subs, seconds: (t1 - t0) / 1000};
}"""


def _pagefind(browser, base: str, site: Path, query: str):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base}/index.html")
    totals = _count(page, site, lambda u: u.startswith("pagefind/"))
    out = page.evaluate(_PAGEFIND_QUERY, query)
    sent, zipped = totals()
    context.close()
    subs = [_section_of(s["href"].replace(".html#", ".html#"), s["title"]) for s in out["subs"]]
    return subs[:3], sent, zipped, out["seconds"]


def _tasksearch(browser, base: str, site: Path, query: str):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base}/index.html")
    totals = _count(page, site, lambda u: "search-index" in u or "language_data" in u)
    out = page.evaluate(
        "async q => { const t0 = performance.now(); const r = await TaskSearch.search(q, 3);"
        " return {r, seconds: (performance.now() - t0) / 1000}; }",
        query,
    )
    sent, zipped = totals()
    context.close()
    return out["r"], sent, zipped, out["seconds"]


ENGINES = {"sphinx": _sphinx, "pagefind": _pagefind, "tasksearch": _tasksearch}


# -- Pagefind's index, built from a copy of the site ------------------------------


def _with_phrases(site: Path, into: Path) -> None:
    """Copy the site, adding each section's search phrases as weighted hidden text."""
    shutil.copytree(site, into)
    text = (site / "_static" / "search-index.js").read_text(encoding="utf-8")
    data = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    phrases: dict[str, dict[str, str]] = {}
    for page, anchor, title, _snippet, names, _keys, _words in data["sections"]:
        extra = [n for n in names.split("\n") if n != title.lower()]
        if extra:
            phrases.setdefault(data["pages"][page], {})[anchor] = " · ".join(extra)
    for file in into.rglob("*.html"):
        path = file.relative_to(into).as_posix()
        soup = BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser")
        for anchor, words in phrases.get(path, {}).items():
            target = soup.find(id=anchor)
            section = target if target is None or target.name == "section" else target.parent
            heading = section and section.find(["h1", "h2", "h3", "h4"])
            if heading is None:
                continue
            hidden = soup.new_tag("span", hidden="")
            hidden["data-pagefind-weight"] = str(PAGEFIND_WEIGHT)
            hidden.string = " " + words
            heading.append(hidden)
        _pagefind_markup(soup)
        file.write_text(str(soup), encoding="utf-8")


def _pagefind_markup(soup: BeautifulSoup) -> None:
    """Mark up a page as Pagefind needs it to find sections (what adopting it would take).

    Pagefind indexes the element marked ``data-pagefind-body`` and splits a page into
    sub-results at headings that carry an ``id``; Sphinx puts the id on the ``section``.
    """
    article = soup.find("article")
    if article is not None:
        article["data-pagefind-body"] = ""
    for link in soup.find_all("a", class_="headerlink"):
        link["data-pagefind-ignore"] = ""
    for section in soup.find_all("section", id=True):
        heading = section.find(["h1", "h2", "h3", "h4"], recursive=False)
        if heading is not None and not heading.get("id"):
            heading["id"] = section["id"]
            del section["id"]


def build_pagefind(site: Path, into: Path) -> None:
    """Index a copy of ``site`` with Pagefind at ``into`` (``into/pagefind/``)."""
    _with_phrases(site, into)
    subprocess.run(
        [sys.executable, "-m", "pagefind", "--site", str(into), "--silent"],
        check=True,
    )


# -- Measure and print ----------------------------------------------------------------


def measure(browser, base: str, site: Path, engine: str) -> EngineResult:
    """Run every query cold through ``engine``."""
    run = ENGINES[engine]
    top1 = top3 = 0
    sizes, zipped, times, misses = [], [], [], []
    for query, expected in QUERIES.items():
        results, sent, packed, seconds = run(browser, base, site, query)
        results = [_as_section(r) for r in results[:3]]
        found = hits(canonical(expected) if isinstance(expected, str) else expected, results)
        top1 += found[:1] == [True]
        top3 += any(found)
        if not any(found):
            misses.append(query)
        sizes.append(sent)
        zipped.append(packed)
        times.append(seconds)
    n = len(QUERIES)
    return EngineResult(
        engine=engine,
        top1=top1 / n,
        top3=top3 / n,
        fetched_bytes=int(statistics.median(sizes)),
        fetched_gzip_bytes=int(statistics.median(zipped)),
        first_result_s=statistics.median(times),
        misses=tuple(misses),
    )


def table(results: list[EngineResult]) -> str:
    """Format the comparison as a Markdown table (CONTRIBUTING.md quotes it)."""
    lines = [
        f"{len(QUERIES)} task queries; bytes and time of one cold search (medians)",
        "",
        "| engine | top-1 | top-3 | fetched (KB) | gzipped (KB) | first result (ms) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.engine} | {r.top1:.0%} | {r.top3:.0%} | {r.fetched_bytes / 1000:.0f} "
            f"| {r.fetched_gzip_bytes / 1000:.0f} | {r.first_result_s * 1000:.0f} |"
        )
    for r in results:
        if r.misses:
            lines.append(f"\n{r.engine} misses (not in top 3): {', '.join(r.misses)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    engines = parser.parse_args().engines.split(",")
    if not (SITE / "_static" / "search-index.js").exists():
        sys.exit(f"no built site at {SITE}: run `nox -s docs` first")
    from playwright.sync_api import sync_playwright

    results = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for engine in engines:
            site = SITE
            if engine == "pagefind":
                site = Path(tmp) / "site"
                build_pagefind(SITE, site)
            with serve(site) as base:
                results.append(measure(browser, base, site, engine))
            print(f"measured {engine}", file=sys.stderr)
        browser.close()
    print(table(results))


if __name__ == "__main__":
    main()
