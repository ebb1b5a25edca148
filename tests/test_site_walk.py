"""Every page of the built site, wide and on a phone, light and dark: accessible and clean.

One walk per viewport and colour mode visits every page once and records what it finds;
each test then states one claim about that record. axe-core (shipped by the pinned
axe-playwright-python package, so nothing is fetched) checks each page as the reader sees
it in that viewport and mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = [pytest.mark.site, pytest.mark.browser]

VIEWPORTS = {"wide": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
MODES = ("light", "dark")
SERIOUS = {"serious", "critical"}
# Folders of the built site that hold files pages use, not pages.
NOT_PAGES = {"_static", "_sources", "_downloads", "_images"}

AXE_RUN = """async () => {
  // preload: false, or axe fetches the stylesheets again itself (and resolves their
  // @import against the page, asking for files that do not exist).
  // label-content-name-mismatch is experimental in axe, so off unless asked for.
  const results = await axe.run(document, {
    resultTypes: ["violations"],
    preload: false,
    rules: {"label-content-name-mismatch": {enabled: true}},
  });
  return results.violations.map(v => ({
    id: v.id,
    impact: v.impact,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
  }));
}"""

# Before any script of the page: the reader chose this mode on an earlier visit.
CHOOSE_MODE = """localStorage.setItem("mode", "{mode}"); localStorage.setItem("theme", "{mode}");"""


@dataclass
class Visit:
    """What one page showed in one viewport and mode."""

    page: str
    theme: str = ""
    axe: list[dict] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    scroll_width: int = 0
    client_width: int = 0


def _pages(site: Path) -> list[str]:
    return sorted(
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if p.relative_to(site).parts[0] not in NOT_PAGES
    )


def _published_root(site: Path) -> str:
    """The path the 404 page loads its files from: the site's address on its host."""
    href = re.search(r'href="([^"]*)_static/', (site / "404.html").read_text(encoding="utf-8"))
    return href.group(1) if href and href.group(1).startswith("/") else "/"


def _axe_script() -> str:
    from axe_playwright_python.base import AXE_FILE_PATH

    return AXE_FILE_PATH.read_text(encoding="utf-8")


@pytest.fixture(
    scope="module",
    params=[(v, m) for v in VIEWPORTS for m in MODES],
    ids=lambda combo: "-".join(combo),
)
def walk(request, browser, base_url, site) -> dict[str, Visit]:
    """Visit every page in one viewport and mode; return what each one showed."""
    viewport, mode = request.param
    axe = _axe_script()
    context = browser.new_context(viewport=VIEWPORTS[viewport], color_scheme=mode)
    context.add_init_script(script=CHOOSE_MODE.format(mode=mode))

    def only_this_site(route):
        if route.request.url.startswith(base_url):
            route.continue_()
        else:
            route.abort()

    root = _published_root(site)
    context.route("**/*", only_this_site)
    if root != "/":  # serve the 404 page's files where its links point on the host
        context.route(
            f"{base_url}{root}**",
            lambda route: route.continue_(
                url=base_url + "/" + route.request.url[len(base_url + root) :]
            ),
        )

    visits: dict[str, Visit] = {}
    tab = context.new_page()
    current: list[Visit] = []

    def on_console(message):
        if message.type == "error":
            current[-1].console_errors.append(message.text)

    def on_response(response):
        if response.status >= 400:
            current[-1].failed_requests.append(f"{response.status} {response.url}")

    tab.on("console", on_console)
    tab.on("pageerror", lambda error: current[-1].console_errors.append(str(error)))
    tab.on("response", on_response)
    tab.on("requestfailed", lambda r: current[-1].failed_requests.append(f"{r.failure} {r.url}"))
    for path in _pages(site):
        visit = Visit(page=path)
        current.append(visit)
        tab.goto(f"{base_url}/{path}", wait_until="load")
        visit.theme = tab.evaluate("document.documentElement.dataset.theme")
        visit.scroll_width, visit.client_width = tab.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        tab.evaluate(axe)
        visit.axe = [v for v in tab.evaluate(AXE_RUN) if v["impact"] in SERIOUS]
        visits[path] = visit
    context.close()
    return visits


def _report(findings: dict[str, object]) -> str:
    return "\n".join(f"{page}: {what}" for page, what in findings.items())


def test_walk_covers_every_page_in_its_mode(walk, request):
    mode = request.node.callspec.params["walk"][1]
    wrong = {v.page: v.theme for v in walk.values() if v.theme != mode}
    assert len(walk) > 1
    assert not wrong, f"pages not shown in {mode} mode:\n{_report(wrong)}"


def test_no_serious_accessibility_violation(walk):
    found = {v.page: v.axe for v in walk.values() if v.axe}
    assert not found, f"axe-core serious or critical violations:\n{_report(found)}"


def test_no_console_error(walk):
    found = {v.page: v.console_errors for v in walk.values() if v.console_errors}
    assert not found, f"console errors:\n{_report(found)}"


def test_every_request_succeeds(walk):
    found = {v.page: v.failed_requests for v in walk.values() if v.failed_requests}
    assert not found, f"failed requests:\n{_report(found)}"


def test_no_sideways_scroll(walk):
    found = {
        v.page: f"{v.scroll_width}px wide in a {v.client_width}px viewport"
        for v in walk.values()
        if v.scroll_width > v.client_width
    }
    assert not found, f"pages that scroll sideways:\n{_report(found)}"
