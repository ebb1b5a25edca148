"""Weigh a first visit: every byte a page pulls in with an empty cache, gzipped.

Target: a typical page (a reference page with its tables and code) at most
150 KB gzipped on a first visit. Each page loads in a fresh Chromium context,
so nothing is cached; every response body is gzipped here at level 6 (what
web servers use by default), whatever the server sent, so the figure does not
depend on how the site is hosted. Images and fonts are counted at their
gzipped size too, which for PNG, SVG-less WOFF2 and the like is their own.
Run with ``python benchmarks/page_weight.py`` (``nox -s weight``) after building
the site: it weighs every page and prints the median, the figure the target is for,
with the lightest and heaviest pages and the files nearly every page loads. Name pages
(``nox -s weight -- index.html``) to see each of their resources instead.
"""

from __future__ import annotations

import collections
import functools
import gzip
import http.server
import statistics
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from sitewalk import pages as site_pages

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TARGET_KB = 150
VIEWPORT = {"width": 1440, "height": 900}


@dataclass(frozen=True)
class Resource:
    """One response of a page load.

    Attributes
    ----------
    path : str
        The address, relative to the site's root.
    kind : str
        What Chromium loaded it as: document, stylesheet, script, font, image...
    raw_bytes : int
        Size of the body as served.
    gzip_bytes : int
        Size of the body gzipped at level 6.
    """

    path: str
    kind: str
    raw_bytes: int
    gzip_bytes: int


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def weigh(browser, base_url: str, page: str) -> list[Resource]:
    """Load ``page`` with an empty cache and return every response it caused."""
    context = browser.new_context(viewport=VIEWPORT)
    responses = []
    context.on("response", lambda response: responses.append(response))
    tab = context.new_page()
    tab.goto(base_url + page)
    tab.wait_for_load_state("networkidle")
    resources = []
    for response in responses:
        body = response.body() if response.status < 300 else b""
        resources.append(
            Resource(
                path=response.url.removeprefix(base_url).split("?")[0],
                kind=response.request.resource_type,
                raw_bytes=len(body),
                gzip_bytes=len(gzip.compress(body, compresslevel=6, mtime=0)),
            )
        )
    context.close()
    return resources


def _report(page: str, resources: list[Resource]) -> int:
    print(f"\n{page}")
    for r in sorted(resources, key=lambda r: -r.gzip_bytes):
        print(
            f"  {r.gzip_bytes / 1000:7.1f} KB gz {r.raw_bytes / 1000:8.1f} KB  {r.kind:10} {r.path}"
        )
    total = sum(r.gzip_bytes for r in resources)
    print(f"  {total / 1000:7.1f} KB gzipped in {len(resources)} requests (target {TARGET_KB} KB)")
    return total


def _median_report(weighed: dict[str, list[Resource]]) -> None:
    totals = {page: sum(r.gzip_bytes for r in found) for page, found in weighed.items()}
    ranked = sorted(totals, key=totals.__getitem__)
    shown = [*ranked[:3], "...", *ranked[-5:]] if len(ranked) > 8 else ranked
    print(f"First visit of each of {len(totals)} pages, gzipped (lightest and heaviest):")
    for page in shown:
        print("  ..." if page == "..." else f"  {totals[page] / 1000:7.1f} KB  {page}")
    # What nearly every page loads (the 404 page loads its files from the host's root).
    loads = collections.Counter(r.path for found in weighed.values() for r in found)
    common = {path for path, n in loads.items() if n >= 0.9 * len(weighed)}
    shared = {r.path: r for found in weighed.values() for r in found if r.path in common}
    size = sum(r.gzip_bytes for r in shared.values()) / 1000
    print(f"\nLoaded by at least 90% of the pages ({size:.1f} KB):")
    for r in sorted(shared.values(), key=lambda r: -r.gzip_bytes):
        print(f"  {r.gzip_bytes / 1000:7.1f} KB gz  {r.kind:10} {r.path}")
    median = statistics.median(totals.values())
    verdict = "within" if median <= TARGET_KB * 1000 else "over"
    print(f"\nMedian first visit: {median / 1000:.1f} KB gzipped, {verdict} the "
          f"target of {TARGET_KB} KB")  # fmt: skip


def main() -> None:
    """Weigh every page and print the median, or each resource of the pages named."""
    from playwright.sync_api import sync_playwright

    if not (SITE / "index.html").exists():
        sys.exit(f"no built site at {SITE}: build it first with `nox -s docs`")
    named = sys.argv[1:]
    server, base_url = _serve(SITE)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            weighed = {page: weigh(browser, base_url, page) for page in named or site_pages(SITE)}
            browser.close()
    finally:
        server.shutdown()
    if not named:
        _median_report(weighed)
        return
    totals = {page: _report(page, found) for page, found in weighed.items()}
    print("\nFirst visit, gzipped:")
    for page, total in totals.items():
        verdict = "ok" if total <= TARGET_KB * 1000 else "over"
        print(f"  {total / 1000:7.1f} KB  {verdict:4}  {page}")


if __name__ == "__main__":
    main()
