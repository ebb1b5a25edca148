"""Walk every page of the built site in Chromium: the machinery of the site walk test and of its benchmark.

``walk()`` visits every page in one viewport, in each colour mode, and records, for
each, what ``tests/test_site_walk.py`` makes claims about: axe-core's serious and
critical violations, console errors, failed requests, sideways scroll, and how far the
page shifted its layout while it loaded. ``benchmarks/site_walk.py`` (``nox -s
walkperf``) walks the site in each viewport and prints where the time went in each
mode: loading pages, injecting axe-core, settling and running the checks.

Where the time goes, and why the walk is shaped the way it is:

- axe-core is most of it, and it runs in the page's renderer. Its colour-contrast rule
  took about two thirds, most of that on the thousands of token spans of the code
  blocks; those colours are measured once, by their own test, and axe leaves them out.
  The walk keeps a few pages in flight, each in a tab of a browser context of its own
  (tabs of one context share a renderer, and its one thread): while one tab runs axe,
  another runs it too, or loads. The contexts are made once per walk, not per page.
- A colour mode changes colours, not what a page shows: this site's dark mode and the
  theme's set colours and a filter on plots. So the light walks run every axe rule and
  the dark walks only the rules that read colours (``COLOUR_RULES``): the others would
  judge the same elements again (this benchmark prints each walk's axe time). Every
  walk records which elements each page shows, and the tests check that the dark walk
  saw what the light one did, page by page; a dark mode that shows something else
  fails there.
- For the same reason a page loads once per viewport, not once per mode. It loads in
  the first mode of the walk (light), as a reader who chose that mode on an earlier visit
  sees it, and after its checks the walk picks the next mode in the theme's own menu, as
  a reader does, and checks the page again: the load, the injection of axe-core and the
  wait for the page's scripts happen once for both modes. A visit in a later mode reports
  what happened since its mode was picked (console errors, requests, the files loaded
  for it, added to those of the load) and every layout shift of the page, the load's and
  the switch's.
- Nothing intercepts requests (a Playwright route turns Chromium's cache off, and every
  page would fetch the theme's styles and scripts again); Chromium itself blocks what is
  outside the site, and any request that leaves it is reported all the same.
- Pages load over an emulated network (Lighthouse's desktop profile: 40 ms round trip,
  10 Mbit/s), so a page arrives in pieces and the browser paints before it has all of
  it, as a reader's does. On a local server a page arrives at once, and what moves when
  a late part arrives (a sidebar, an image) would only show when the machine is slow.
  That network has once left a load hanging with nothing wrong in the page (the first
  page of a CI run's first walk), so a load that runs out of time is tried again, once,
  in a fresh tab; the visit keeps what the first try was still waiting for.
"""

from __future__ import annotations

import functools
import http.server
import re
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from cheatsheet._variables import read

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = read("CHEATSHEET_CHROMIUM")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

VIEWPORTS = {"wide": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
MODES = ("light", "dark")
SERIOUS = {"serious", "critical"}
# Folders of the built site that hold files pages use, not pages.
NOT_PAGES = {"_static", "_sources", "_downloads", "_images"}
# Pages in flight at once, each in a tab of a browser context of its own: tabs of one
# context share a renderer process, whose one thread ran their axe-core one after the
# other. Measured on two cores (`nox -s walkperf -- --only wide`, both modes, nothing
# else running): 207 s with two tabs in one context, 172 s in two, 158 s with three.
TABS = 3
# Lighthouse's desktop network: a page arrives in pieces, as it does for a reader.
NETWORK = {"offline": False, "latency": 40, "downloadThroughput": 10 * 1024 * 1024 / 8,
           "uploadThroughput": 10 * 1024 * 1024 / 8}  # fmt: skip
# Core Web Vitals call a cumulative layout shift of 0.1 or less good; a page that holds
# still shifts by nothing, and 0.05 leaves room for a browser's rounding.
MAX_LAYOUT_SHIFT = 0.05
# How long a page may take to reach its load event before a try is given up. Playwright's
# default, 30 s, once ran out for search.html while the blocks test held both cores (the
# page loads in about 5 s on its own): a page that never loads still fails, a busy
# machine does not. How fast pages load is measured by `nox -s weight`, not here.
LOAD_TIMEOUT_MS = 60_000
# Tries of a page's load, each in a fresh tab (_Tab.start says why there is a second).
LOAD_ATTEMPTS = 2
# The axe rules whose result a colour mode can change: text contrast, and links told
# apart from the text around them by colour.
COLOUR_RULES = ("color-contrast", "link-in-text-block")

# After the load event: time for the site's and the theme's scripts to finish what they
# do on load, before the layout shift is read.
SETTLE_MS = 250

# Before any script of the page: the reader chose this mode on an earlier visit.
CHOOSE_MODE = """localStorage.setItem("mode", "{mode}"); localStorage.setItem("theme", "{mode}");"""

# A mode picked in the theme's menu, as a reader picks it, on a page already loaded.
_PICK_MODE = """(mode) => {
  const item = document.querySelector(`.theme-change-button[data-mode="${mode}"]`);
  if (!item) return "no item of the theme's colour mode menu picks " + mode;
  item.click();
  const root = document.documentElement;
  return root.dataset.theme === mode ? "" : `picking ${mode} left the page in ${root.dataset.theme}`;
}"""

# Started once the page has loaded; the walk collects its promise later, so the tab works
# while the walk loads the next page in another tab.
#   - Layout shift as Chromium reports it to the page (the Core Web Vitals definition):
#     every shift not caused by input, summed, with the nodes that moved.
#   - axe-core: preload false, or axe fetches the stylesheets again itself (and resolves
#     their @import against the page, asking for files that do not exist);
#     label-content-name-mismatch is experimental in axe, so off unless asked for; the
#     code's token colours are left to test_code_token_colours_are_legible_in_both_modes.
_CHECK = """([settleMs, onlyRules]) => {
  const describe = node => {
    const element = node && (node.nodeType === 1 ? node : node.parentElement);
    if (!element) return "(a node no longer in the page)";
    const id = element.id ? "#" + element.id : "";
    const classes = [...element.classList].slice(0, 2).map(c => "." + c).join("");
    return element.tagName.toLowerCase() + id + classes;
  };
  const box = r => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
  window.__cheatsheetWalk = (async () => {
    await document.fonts.ready;
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    await new Promise(done => setTimeout(done, settleMs));
    const observer = new PerformanceObserver(() => {});
    observer.observe({type: "layout-shift", buffered: true});
    const shifts = observer.takeRecords().filter(e => !e.hadRecentInput).map(e => ({
      value: e.value,
      at_ms: Math.round(e.startTime),
      sources: e.sources.map(s => `${describe(s.node)} (${box(s.previousRect)} to ${box(s.currentRect)})`),
    }));
    observer.disconnect();
    const root = document.documentElement;
    const theme = root.dataset.theme;
    // What the page shows: each rendered element, by tag and id, in document order,
    // folded into a short FNV-1a hash (compared across colour modes).
    let shown = 0x811c9dc5;
    for (const element of document.body.querySelectorAll("*")) {
      if (!element.checkVisibility({visibilityProperty: true})) continue;
      const name = element.tagName + (element.id ? "#" + element.id : "") + " ";
      for (let i = 0; i < name.length; i++) {
        shown = Math.imul(shown ^ name.charCodeAt(i), 0x01000193) >>> 0;
      }
    }
    const article = document.querySelector(".bd-article-container");
    const widths = [root.scrollWidth, root.clientWidth,
                    article ? article.scrollWidth - article.clientWidth : 0];
    // The code's token spans are thousands a page, in a few colours on one background:
    // tests/test_browser.py measures every colour of the highlighting style against it,
    // in both modes, once. axe measures everything else, which takes half the time.
    axe.configure({rules: [{id: "color-contrast", selector: "*:not(.highlight pre span)"}]});
    const started = performance.now();
    const options = {resultTypes: ["violations"], preload: false};
    if (onlyRules) options.runOnly = {type: "rule", values: onlyRules};
    else options.rules = {"label-content-name-mismatch": {enabled: true}};
    const results = await axe.run(document, options);
    const axeMs = performance.now() - started;
    const violations = results.violations.map(v => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
    }));
    return {shifts, theme, widths, violations, axeMs, shown: shown.toString(16)};
  })();
}"""


class PageLoadError(RuntimeError):
    """A page did not reach its load event in any of its tries."""


@dataclass
class Shift:
    """One layout shift of a page, as Chromium reported it.

    Attributes
    ----------
    value : float
        Its score: the share of the viewport that moved, times how far it moved.
    at_ms : int
        When it happened, from the start of the navigation.
    sources : list[str]
        The nodes that moved, each with its box before and after (x,y widthxheight).
    """

    value: float
    at_ms: int
    sources: list[str]


@dataclass
class Visit:
    """What one page showed in one viewport and mode, and what visiting it cost.

    Attributes
    ----------
    page : str
        The page's path in the site.
    theme : str
        The colour theme the page showed (``data-theme`` of its root element).
    axe : list[dict]
        axe-core's serious and critical violations: rule id, impact, up to three nodes.
    axe_rules : str
        Which axe rules ran: ``"all"``, or the names of the few that did.
    shown : str
        A hash of the elements the page rendered (tag and id, in order): equal in two
        colour modes when both showed the same elements.
    console_errors, failed_requests : list[str]
        Console errors and uncaught exceptions; requests that failed, answered 400 or
        more, or went outside the site.
    scroll_width, client_width : int
        The document's width and the viewport's: wider means it scrolls sideways.
    article_overflow : int
        How far the article's own box scrolls sideways, in pixels (0 when it fits).
    shifts : list[Shift]
        Every layout shift of the page while it loaded, input-caused ones left out.
    loaded : list[str]
        The paths of the site's files the page loaded (as the browser reported them;
        a file it took from its memory cache may be missing).
    load_s, inject_s, check_s : float
        Seconds to load the page, to inject axe-core, and to settle and run the
        checks (the walk's share: in flight beside other tabs, not alone).
    axe_s : float
        Seconds axe-core ran in the page.
    stalled : list[str]
        Loads of the page given up before the one that loaded (``_Tab.start``), each
        with the requests still unanswered when it was; empty when the first loaded.
    """

    page: str
    theme: str = ""
    axe: list[dict] = field(default_factory=list)
    axe_rules: str = "all"
    shown: str = ""
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    scroll_width: int = 0
    client_width: int = 0
    article_overflow: int = 0
    shifts: list[Shift] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    load_s: float = 0.0
    inject_s: float = 0.0
    check_s: float = 0.0
    axe_s: float = 0.0
    stalled: list[str] = field(default_factory=list)

    @property
    def layout_shift(self) -> float:
        """Cumulative layout shift while the page loaded: the sum of its shifts."""
        return sum(shift.value for shift in self.shifts)


def pages(site: Path) -> list[str]:
    """Every page of the built site, as paths relative to its root."""
    return sorted(
        p.relative_to(site).as_posix()
        for p in site.rglob("*.html")
        if p.relative_to(site).parts[0] not in NOT_PAGES
    )


def published_root(site: Path) -> str:
    """Return the path the 404 page loads its files from: the site's address on its host."""
    href = re.search(r'href="([^"]*)_static/', (site / "404.html").read_text(encoding="utf-8"))
    return href.group(1) if href and href.group(1).startswith("/") else "/"


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site, quietly, at ``/`` and at the published root.

    The 404 page links to its files where the site lives on its host
    (``/<name>/_static/...``); serving the site there too lets it load them without
    rewriting requests in the browser.
    """

    published_root = "/"

    def translate_path(self, path: str) -> str:
        root = self.published_root
        if root != "/" and path.startswith(root):
            path = "/" + path[len(root) :]
        return super().translate_path(path)

    def end_headers(self) -> None:
        # As GitHub Pages serves it: the browser keeps each file ten minutes before it
        # asks again, so a walk loads the theme's files once, not on every page.
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


class _SiteServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A tab closed while a file was on its way (the end of a walk, a load given up):
        # the browser's doing, not the site's, so no traceback on the test's output.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(
    site: Path, handler_class: type[SiteHandler] = SiteHandler
) -> http.server.ThreadingHTTPServer:
    """Serve ``site`` on a free port of 127.0.0.1 from a background thread."""
    handler = type("Handler", (handler_class,), {"published_root": published_root(site)})
    server = _SiteServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def axe_script() -> str:
    """axe-core's source, as the axe-playwright-python package ships it."""
    from axe_playwright_python.base import AXE_FILE_PATH

    return AXE_FILE_PATH.read_text(encoding="utf-8")


class _Tab:
    """A tab of the walk: the page it is on, the mode it is checking, what each mode showed."""

    def __init__(
        self,
        context,
        base_url: str,
        axe: str,
        modes: tuple[str, ...],
        *,
        load_timeout_ms: int = LOAD_TIMEOUT_MS,
    ) -> None:
        self.context = context
        self.base_url = base_url
        self.axe = axe
        self.modes = modes
        self.load_timeout_ms = load_timeout_ms
        self.visit = Visit(page="")
        self.visits: dict[str, Visit] = {}
        self.mode = self.emulated = modes[0]
        self.started = 0.0
        self.page = self._open()

    def _open(self):
        """Open a fresh page on the emulated network, reporting into this tab's visit."""
        page = self.context.new_page()
        cdp = self.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", NETWORK)
        # Chromium refuses requests outside the site itself; a Playwright route would
        # also turn the browser's cache off. _on_request reports any that get through.
        cdp.send(
            "Network.setBlockedURLs",
            {"urls": [], "urlPatterns": [
                {"urlPattern": f"{self.base_url}/*", "block": False},
                {"urlPattern": "*://*/*", "block": True},
            ]},
        )  # fmt: skip
        # A page given up on (start) may still report as it closes: only the tab's
        # current page writes into the visit.
        page.pending = {}

        def on(event: str, handler) -> None:
            page.on(event, lambda item: handler(item) if page is self.page else None)

        def settled(request) -> None:
            page.pending.pop(request, None)

        page.on("request", lambda request: page.pending.__setitem__(request, request.url))
        page.on("requestfinished", settled)
        page.on("requestfailed", settled)
        on("console", self._on_console)
        on("pageerror", lambda error: self.visit.console_errors.append(str(error)))
        on("request", self._on_request)
        on("response", self._on_response)
        on("requestfailed", lambda r: self.visit.failed_requests.append(f"{r.failure} {r.url}"))
        self.emulated = self.modes[0]  # the colour scheme the page reports to CSS: the context's
        return page

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.visit.console_errors.append(message.text)

    def _on_request(self, request) -> None:
        if not request.url.startswith((self.base_url + "/", "data:", "blob:")):
            self.visit.failed_requests.append(f"outside the site: {request.url}")

    def _on_response(self, response) -> None:
        if response.status >= 400:
            self.visit.failed_requests.append(f"{response.status} {response.url}")
        elif response.url.startswith(self.base_url + "/"):
            self.visit.loaded.append(urlsplit(response.url).path)

    def start(self, path: str) -> None:
        """Load ``path`` and start the checks; they run while the walk goes on.

        A load that has not reached its load event after ``load_timeout_ms`` is given up:
        the tab is replaced by a fresh one, which loads the page again, once. Chromium's
        emulated network has been seen to leave a load hanging with nothing wrong in the
        page (once in some thousands of loads; Playwright issue 22676 reports the same).
        The requests still unanswered are kept in the visit's ``stalled``; a page that
        hangs twice fails the walk, naming them.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        self.visits, self.mode = {}, self.modes[0]
        if self.emulated != self.mode:  # the last page was left in a later mode
            self.page.emulate_media(color_scheme=self.mode)
            self.emulated = self.mode
        stalled: list[str] = []
        for attempt in range(1, LOAD_ATTEMPTS + 1):
            self.visit = Visit(page=path, stalled=list(stalled))
            start = time.perf_counter()
            try:
                self.page.goto(
                    f"{self.base_url}/{path}", wait_until="load", timeout=self.load_timeout_ms
                )
                break
            except PlaywrightTimeoutError:
                unanswered = sorted(set(self.page.pending.values())) or ["(none)"]
                stalled.append(f"load {attempt}: " + ", ".join(unanswered))
                if attempt == LOAD_ATTEMPTS:
                    raise PageLoadError(
                        f"{path} did not reach its load event in {LOAD_ATTEMPTS} tries of "
                        f"{self.load_timeout_ms / 1000:.0f} s each; requests unanswered: "
                        + "; ".join(stalled)
                    ) from None
                self.page.close()
                self.page = self._open()
        loaded = time.perf_counter()
        self.page.evaluate(self.axe)
        self._check()
        self.visit.load_s, self.visit.inject_s = loaded - start, self.started - loaded

    def _check(self) -> None:
        """Start the checks of the page in the current mode; they run while the walk goes on."""
        self.started = time.perf_counter()
        self.page.evaluate(_CHECK, [SETTLE_MS, rules_for(self.mode)])

    def finish(self) -> bool:
        """Wait for the checks in the current mode; pick the next mode, or say the page is done.

        Returns True when the page has been checked in every mode of the walk (its
        visits are in ``visits``), False when the checks in the next mode have started.
        """
        found = self.page.evaluate("window.__cheatsheetWalk")
        visit = self.visit
        rules = rules_for(self.mode)
        visit.check_s = time.perf_counter() - self.started
        visit.axe_s = found["axeMs"] / 1000
        visit.theme = found["theme"]
        visit.shown = found["shown"]
        visit.axe_rules = ", ".join(rules) if rules else "all"
        visit.scroll_width, visit.client_width, visit.article_overflow = found["widths"]
        visit.shifts = [Shift(**shift) for shift in found["shifts"]]
        visit.axe = [v for v in found["violations"] if v["impact"] in SERIOUS]
        self.visits[self.mode] = visit
        following = self.modes[len(self.visits) :]
        if not following:
            return True
        # The next mode, picked on the page as it is: what happens from here is its visit's,
        # besides the files the load brought, which its page uses in this mode too.
        self.mode = following[0]
        self.visit = Visit(page=visit.page, loaded=list(visit.loaded), stalled=list(visit.stalled))
        self.page.emulate_media(color_scheme=self.mode)
        self.emulated = self.mode
        problem = self.page.evaluate(_PICK_MODE, self.mode)
        if problem:
            self.visit.console_errors.append(f"the walk could not switch the page: {problem}")
        self._check()
        return False


def walk(
    browser,
    base_url: str,
    paths: list[str],
    viewport: str,
    modes: tuple[str, ...] = MODES,
    *,
    tabs: int = TABS,
    load_timeout_ms: int = LOAD_TIMEOUT_MS,
) -> dict[str, dict[str, Visit]]:
    """Visit every page of ``paths`` in one viewport, in each colour mode; return what each showed.

    Each page loads once, in the first of ``modes``; the walk then picks each later mode
    in the theme's menu and checks the page again (the module's docstring says why).

    Parameters
    ----------
    browser
        A Playwright (sync) Chromium browser.
    base_url : str
        Where the site is served, without a trailing slash.
    paths : list[str]
        The pages to visit, relative to ``base_url``.
    viewport : str
        A key of ``VIEWPORTS``.
    modes : tuple of str
        The colour modes, ``"light"`` or ``"dark"``, in the order each page shows them.
        :func:`rules_for` says which axe rules run in each.
    tabs : int
        Pages in flight at once.
    load_timeout_ms : int
        How long one try of a page's load may take (``_Tab.start``).

    Returns
    -------
    dict
        For each mode, each page's :class:`Visit`: ``walk(...)["dark"]["index.html"]``.

    Raises
    ------
    PageLoadError
        When a page does not load in any of its tries.
    """
    if not modes or set(modes) - set(MODES) or len(set(modes)) < len(modes):
        raise ValueError(f"modes must be some of {MODES}, each once, got {modes!r}")
    contexts = []
    for _ in range(max(1, tabs)):
        contexts.append(browser.new_context(viewport=VIEWPORTS[viewport], color_scheme=modes[0]))
        contexts[-1].add_init_script(script=CHOOSE_MODE.format(mode=modes[0]))
    axe = axe_script()
    idle = [
        _Tab(context, base_url, axe, modes, load_timeout_ms=load_timeout_ms) for context in contexts
    ]
    in_flight: deque[_Tab] = deque()
    visits: dict[str, dict[str, Visit]] = {mode: {} for mode in modes}

    def collect(tab: _Tab) -> None:
        """Take the oldest checks in flight; a tab whose page is done is free again."""
        if tab.finish():
            for mode, visit in tab.visits.items():
                visits[mode][visit.page] = visit
            idle.append(tab)
        else:
            in_flight.append(tab)

    try:
        for path in paths:
            while not idle:
                collect(in_flight.popleft())
            tab = idle.pop()
            tab.start(path)
            in_flight.append(tab)
        while in_flight:
            collect(in_flight.popleft())
    finally:
        for context in contexts:
            context.close()
    return {mode: {path: found[path] for path in paths} for mode, found in visits.items()}


def rules_for(mode: str) -> tuple[str, ...] | None:
    """Return the axe rules a walk in ``mode`` runs: all in light mode, the colour rules in dark."""
    return COLOUR_RULES if mode == "dark" else None
