"""Compare the site's search engines on the tuning queries and on the held-out queries.

Two query sets, reported apart:

- tuning: ``QUERIES`` of tools/searchsets.py, the only queries the ranking (and the
  phrase map) was tuned on;
- held-out: ``tests/search_heldout.toml`` when it exists, queries written by other
  people and never used for tuning: ``[[query]]`` tables with ``text``, ``kind`` and
  ``answers`` (entry labels, or ``page.html#anchor``; any of them counts). Its hit
  rates are also given by kind, and its misses are not listed. ``--heldout
  tests/search_titles.toml`` measures titles other people wrote instead, and
  ``--heldout tests/search_questions.toml`` readers' questions and errors as posted.

Engines, each run in Chromium against the built site served over HTTP:

- ``sphinx``: Sphinx's own search page (searchtools.js and searchindex.js, which
  already holds the phrases of docs/search_terms.toml as index entries);
- ``pagefind``: Pagefind (PyPI ``pagefind[bin]``) indexing a copy of the built HTML,
  the same phrases added as hidden, weighted text under each target heading;
- ``tasksearch``: the site's search as you type (docs/_static/tasksearch.js);
- ``tasksearch-nophrases``: the same without docs/search_terms.toml's phrases
  (``TaskSearch.search(q, n, {phrases: false})``): what the pages' own words find.

For each: the share of queries whose expected section is first and in the first three,
the bytes a first search fetches (as sent, and gzipped), and the time from the search
starting cold (nothing loaded) to its first result. Run after building the site:
``python benchmarks/search_engines.py [--engines sphinx,pagefind,tasksearch]
[--heldout FILE]``.
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
import tomllib
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
HELDOUT = ROOT / "tests" / "search_heldout.toml"
sys.path.insert(0, str(ROOT / "tools"))  # the tuning set, shared with tests/test_search.py

from searchsets import QUERIES, hits

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SITE_PATH = re.compile(r"^https?://[^/]+/")
PAGEFIND_WEIGHT = 5.0  # a heading's own weight in Pagefind is 7 (h1) to 2 (h6)


# What a query expects: a section as "page.html#anchor", or (page, words of its heading).
Expected = str | tuple[str, str]


@dataclass(frozen=True)
class Query:
    """One query and the sections that answer it.

    Attributes
    ----------
    text : str
        What the reader types or pastes.
    kind : str
        What sort of query it is (``task``; the held-out file names its own kinds).
    answers : tuple
        The sections that answer it; finding any of them counts.
    """

    text: str
    kind: str
    answers: tuple[Expected, ...]


@dataclass(frozen=True)
class HitRates:
    """How one engine did on one query set, or on one kind of its queries.

    Attributes
    ----------
    query_set : str
        ``tuning`` or ``held-out``, with the kind after a colon for a kind's share.
    queries : int
        How many queries.
    top1 : float
        Share of queries whose expected section comes first.
    top3 : float
        Share of queries whose expected section is among the first three.
    misses : tuple of str
        Queries whose expected section is not in the first three.
    """

    query_set: str
    queries: int
    top1: float
    top3: float
    misses: tuple[str, ...]


@dataclass(frozen=True)
class EngineResult:
    """How one engine did on the query sets.

    Attributes
    ----------
    engine : str
        Its name.
    rates : tuple of HitRates
        Per query set, then per kind of the held-out set.
    fetched_bytes : int
        Median bytes one cold search fetches, as the server sent them.
    fetched_gzip_bytes : int
        The same responses, gzipped (what a web server would send).
    first_result_s : float
        Median seconds from a cold search's start to its first result.
    """

    engine: str
    rates: tuple[HitRates, ...]
    fetched_bytes: int
    fetched_gzip_bytes: int
    first_result_s: float

    def of(self, query_set: str) -> HitRates | None:
        return next((r for r in self.rates if r.query_set == query_set), None)


def tuning_queries() -> tuple[Query, ...]:
    """Return the tuning queries of tools/searchsets.py (kind ``task``)."""
    return tuple(Query(text, "task", (expected,)) for text, expected in QUERIES.items())


def load_heldout(path: Path) -> tuple[Query, ...]:
    """Read a held-out file (``[[query]]`` with text, kind, answers); none if it is absent."""
    if not path.exists():
        return ()
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return tuple(
        Query(text=q["text"], kind=q.get("kind", ""), answers=tuple(q["answers"]))
        for q in data.get("query", [])
    )


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A context closed while a file was on its way (search.html goes on loading
        # tasksearch's index after Sphinx's first result): not a fault of the measurement.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on a free port; yield its address."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
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


@functools.cache
def _page_of_id() -> dict[str, str]:
    """Map every section id and label of the site to its page."""
    found: dict[str, str] = {}
    for file in sorted(SITE.rglob("*.html")):
        path = file.relative_to(SITE).as_posix()
        for anchor in _sections(path):
            found.setdefault(anchor, path)
    return found


def resolve(answer: Expected) -> Expected | None:
    """Name an answer's section as canonical() does; None when no entry has that label."""
    if isinstance(answer, tuple):
        return answer
    if "#" not in answer:
        page = _page_of_id().get(answer)
        if page is None:
            return None
        answer = f"{page}#{answer}"
    return canonical(answer)


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
    # search.html also lists tasksearch's results, with its own index: not Sphinx's cost.
    totals = _count(
        page,
        site,
        lambda u: (
            ("search" in u or "language_data" in u or u.endswith(".html"))
            and "tasksearch" not in u
            and "search-index" not in u
        ),
    )
    start = time.perf_counter()
    page.goto(f"{base}/search.html?q={urllib.parse.quote_plus(query)}")
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


def _tasksearch(browser, base: str, site: Path, query: str, *, phrases: bool = True):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base}/index.html")
    loaded_on_search = ("search-index", "language_data", "tasksearch-rank")
    totals = _count(page, site, lambda u: any(f in u for f in loaded_on_search))
    out = page.evaluate(
        "async ([q, options]) => { const t0 = performance.now();"
        " const r = await TaskSearch.search(q, 3, options);"
        " return {r, seconds: (performance.now() - t0) / 1000}; }",
        [query, {"phrases": phrases}],
    )
    sent, zipped = totals()
    context.close()
    return out["r"], sent, zipped, out["seconds"]


ENGINES = {
    "sphinx": _sphinx,
    "pagefind": _pagefind,
    "tasksearch": _tasksearch,
    "tasksearch-nophrases": functools.partial(_tasksearch, phrases=False),
}


# -- Pagefind's index, built from a copy of the site ------------------------------


def _want_cells(site: Path) -> dict[str, dict[str, list[str]]]:
    """Collect the "You want" cell of every row that links an entry, by page and anchor."""
    found: dict[str, dict[str, list[str]]] = {}
    for file in sorted(site.rglob("*.html")):
        soup = BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser")
        for table in soup.find_all("table"):
            head = table.find("th")
            if head is None or head.get_text(strip=True) != "You want":
                continue
            for row in table.select("tbody tr"):
                cells = row.find_all("td")
                for link in cells[1].select("a.reference.internal") if len(cells) > 1 else []:
                    href = (file.parent / link["href"]).resolve().relative_to(site.resolve())
                    path, _, anchor = href.as_posix().partition("#")
                    want = cells[0].get_text(" ", strip=True)
                    found.setdefault(path, {}).setdefault(anchor, []).append(want)
    return found


def _with_phrases(site: Path, into: Path) -> None:
    """Copy the site, adding each section's search words as weighted hidden text.

    The words are those tasksearch has beyond the section's own text: the terms file's
    phrases and the "You want" cells that link the section.
    """
    shutil.copytree(site, into)
    text = (site / "_static" / "search-index.js").read_text(encoding="utf-8")
    data = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    phrases = _want_cells(site)
    for page, anchor, _title, _snippet, names, *_fields in data["sections"]:
        if names:
            path = data["pages"][page]
            phrases.setdefault(path, {}).setdefault(anchor, []).extend(names.split("\n"))
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
            hidden.string = " " + " · ".join(words)
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


def _rates(query_set: str, queries: list[Query], found: dict[str, list[bool]]) -> HitRates:
    n = len(queries)
    return HitRates(
        query_set=query_set,
        queries=n,
        top1=sum(found[q.text][:1] == [True] for q in queries) / n,
        top3=sum(any(found[q.text][:3]) for q in queries) / n,
        misses=tuple(q.text for q in queries if not any(found[q.text][:3])),
    )


def measure(
    browser, base: str, site: Path, engine: str, query_sets: dict[str, tuple[Query, ...]]
) -> EngineResult:
    """Run every query of every set cold through ``engine``."""
    run = ENGINES[engine]
    sizes, zipped, times, rates = [], [], [], []
    for name, queries in query_sets.items():
        found: dict[str, list[bool]] = {}
        for query in queries:
            results, sent, packed, seconds = run(browser, base, site, query.text)
            results = [_as_section(r) for r in results[:3]]
            answers = [a for a in map(resolve, query.answers) if a is not None]
            each = [hits(a, results) for a in answers] or [[False] * len(results)]
            found[query.text] = [any(column) for column in zip(*each, strict=True)]
            sizes.append(sent)
            zipped.append(packed)
            times.append(seconds)
        if queries:
            rates.append(_rates(name, list(queries), found))
            kinds = sorted({q.kind for q in queries})
            if len(kinds) > 1:
                for kind in kinds:
                    of_kind = [q for q in queries if q.kind == kind]
                    rates.append(_rates(f"{name}:{kind}", of_kind, found))
    return EngineResult(
        engine=engine,
        rates=tuple(rates),
        fetched_bytes=int(statistics.median(sizes)),
        fetched_gzip_bytes=int(statistics.median(zipped)),
        first_result_s=statistics.median(times),
    )


def unresolved(query_sets: dict[str, tuple[Query, ...]]) -> list[str]:
    """Answers that name no entry of the built site (a label that is not there)."""
    return sorted(
        {a for qs in query_sets.values() for q in qs for a in q.answers if resolve(a) is None}
    )


def table(results: list[EngineResult], query_sets: dict[str, tuple[Query, ...]]) -> str:
    """Format the comparison as Markdown tables (CONTRIBUTING.md quotes them)."""
    sets = {name: len(qs) for name, qs in query_sets.items() if qs}
    lines = [
        "; ".join(f"{name}: {n} queries" for name, n in sets.items())
        + ". Bytes and time of one cold search (medians over all queries)",
        "",
        "| engine | "
        + " | ".join(f"{s} top-1 | {s} top-3" for s in sets)
        + " | fetched (KB) | gzipped (KB) | first result (ms) |",
        "|---|" + "---|---|" * len(sets) + "---|---|---|",
    ]
    for r in results:
        cells = []
        for s in sets:
            rates = r.of(s)
            cells += [f"{rates.top1:.0%}", f"{rates.top3:.0%}"] if rates else ["", ""]
        lines.append(
            f"| {r.engine} | "
            + " | ".join(cells)
            + f" | {r.fetched_bytes / 1000:.0f} | {r.fetched_gzip_bytes / 1000:.0f}"
            f" | {r.first_result_s * 1000:.0f} |"
        )
    kinds = sorted({x.query_set for r in results for x in r.rates if ":" in x.query_set})
    if kinds:
        lines += ["", "By kind: top-1 / top-3 (queries)", ""]
        lines += ["| engine | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
        for r in results:
            cells = [
                f"{x.top1:.0%} / {x.top3:.0%} ({x.queries})" if (x := r.of(k)) else ""
                for k in kinds
            ]
            lines.append(f"| {r.engine} | " + " | ".join(cells) + " |")
    # Only the tuning set's misses are listed: a held-out query read one by one is on its
    # way to being tuned for, and the set would stop measuring what it is there for.
    for r in results:
        for x in r.rates:
            if x.misses and x.query_set == "tuning":
                lines.append(f"\n{r.engine}, {x.query_set}, not in top 3: {', '.join(x.misses)}")
    missing = unresolved(query_sets)
    if missing:
        lines.append(f"\nanswers that name no entry of this build: {', '.join(missing)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument(
        "--heldout", type=Path, default=HELDOUT, help="held-out queries (skipped if absent)"
    )
    args = parser.parse_args()
    engines = args.engines.split(",")
    if not (SITE / "_static" / "search-index.js").exists():
        sys.exit(f"no built site at {SITE}: run `nox -s docs` first")
    query_sets = {"tuning": tuning_queries(), "held-out": load_heldout(args.heldout)}
    if not query_sets["held-out"]:
        print(f"no held-out queries at {args.heldout}: tuning set only", file=sys.stderr)
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
                results.append(measure(browser, base, site, engine, query_sets))
            print(f"measured {engine}", file=sys.stderr)
        browser.close()
    print(table(results, query_sets))


if __name__ == "__main__":
    main()
