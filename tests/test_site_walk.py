"""Every page of the built site, wide and on a phone, light and dark: accessible, clean, still.

One walk per viewport (tools/sitewalk.py, which `nox -s walkperf` times) loads every
page once, in light mode, checks it, picks dark mode in the theme's menu and checks it
again, and records what it finds in each mode; each test then states one claim about
that record, mode by mode. axe-core (shipped by the pinned axe-playwright-python
package, so nothing is fetched) checks each page as the reader sees it in that viewport
and mode: with every rule in light mode, with the rules that read colours in dark mode,
whose pages must show the same elements (checked here, page by page). A page that
passed a walk before, with the same files, browser and walk, is judged on its
remembered visit (walkcache.py); a clean build, a fresh clone or CHEATSHEET_EVERY_PAGE=1
walks every page.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sitewalk import (
    MAX_LAYOUT_SHIFT,
    MODES,
    VIEWPORTS,
    PageLoadError,
    SiteHandler,
    Visit,
    pages,
    rules_for,
    serve,
    walk,
)

from walkcache import SiteFiles, WalkRecord, inputs

pytestmark = [pytest.mark.site, pytest.mark.browser]


@pytest.fixture(scope="module")
def site_url(site: Path) -> Iterator[str]:
    server = serve(site)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


# Each viewport's walk: for each mode, each page's visit. Both modes come from one walk,
# so the first test of either mode walks the viewport and the other mode's tests reuse it.
_WALKED: dict[str, dict[str, dict[str, Visit]]] = {}


def _walk_viewport(
    viewport: str, browser, site_url: str, site: Path
) -> dict[str, dict[str, Visit]]:
    """Walk every page in ``viewport``, in every mode, but for the visits remembered as passes.

    A page is walked again, in both modes, when either mode's record does not hold it
    (walkcache.py says when): its modes come from one load.
    """
    if viewport not in _WALKED:
        paths, files = pages(site), SiteFiles(site)
        records = {
            mode: WalkRecord(
                site.parent / "site-walk" / f"{viewport}-{mode}.json",
                inputs(browser, rules_for(mode)),
                mode,
            )
            for mode in MODES
        }
        split = {mode: record.split(paths, files) for mode, record in records.items()}
        todo = [p for p in paths if any(p in split[mode][0] for mode in MODES)]
        walked = walk(browser, site_url, todo, viewport) if todo else {m: {} for m in MODES}
        found = {}
        for mode, record in records.items():
            record.save(walked[mode], files, paths)
            found[mode] = {path: walked[mode].get(path) or split[mode][1][path] for path in paths}
        _WALKED[viewport] = found
    return _WALKED[viewport]


@pytest.fixture(
    scope="module",
    params=[(v, m) for v in VIEWPORTS for m in MODES],
    ids=lambda combo: "-".join(combo),
)
def visits(request, browser, site_url, site) -> dict[str, Visit]:
    """What every page showed in one viewport and mode (walked now, or remembered)."""
    viewport, mode = request.param
    return _walk_viewport(viewport, browser, site_url, site)[mode]


def _report(findings: dict[str, object]) -> str:
    return "\n".join(f"{page}: {what}" for page, what in findings.items())


def test_walk_covers_every_page_in_its_mode(visits, request):
    mode = request.node.callspec.params["visits"][1]
    wrong = {v.page: v.theme for v in visits.values() if v.theme != mode}
    assert len(visits) > 1
    assert not wrong, f"pages not shown in {mode} mode:\n{_report(wrong)}"


def test_no_serious_accessibility_violation(visits):
    found = {v.page: v.axe for v in visits.values() if v.axe}
    assert not found, f"axe-core serious or critical violations:\n{_report(found)}"


def test_no_console_error(visits):
    found = {v.page: v.console_errors for v in visits.values() if v.console_errors}
    assert not found, f"console errors:\n{_report(found)}"


def test_every_request_succeeds(visits):
    found = {v.page: v.failed_requests for v in visits.values() if v.failed_requests}
    assert not found, f"failed requests:\n{_report(found)}"


def test_every_file_a_page_loaded_walks_it_again_when_it_changes(visits, site):
    """A page passed before is not walked again while its key holds (walkcache.py): the
    key must cover every file the page loaded, or a changed file would go unseen."""
    files = SiteFiles(site)
    found = {}
    for v in visits.values():
        loaded = {files.site_path(url) for url in v.loaded}
        uncovered = sorted(p for p in loaded - files.covered(v.page) if p)
        if uncovered:
            found[v.page] = uncovered
    assert any(v.loaded for v in visits.values())
    assert not found, f"files pages loaded that their walk's key leaves out:\n{_report(found)}"


def test_no_sideways_scroll(visits):
    found = {
        v.page: f"{v.scroll_width}px wide in a {v.client_width}px viewport, "
        f"the article scrolls by {v.article_overflow}px"
        for v in visits.values()
        if v.scroll_width > v.client_width or v.article_overflow > 0
    }
    assert not found, f"pages that scroll sideways:\n{_report(found)}"


def test_no_page_shifts_its_layout_while_it_loads(visits):
    found = {
        v.page: f"{v.layout_shift:.3f}, "
        + "; ".join(f"{s.value:.3f} at {s.at_ms} ms: {', '.join(s.sources)}" for s in v.shifts)
        for v in visits.values()
        if v.layout_shift > MAX_LAYOUT_SHIFT
    }
    assert not found, (
        f"pages whose layout shifts by more than {MAX_LAYOUT_SHIFT} as they load "
        f"(cumulative layout shift, then each shift and the nodes it moved):\n{_report(found)}"
    )


def test_dark_mode_shows_the_elements_light_mode_shows(visits, request, browser, site_url, site):
    """The dark walks run only axe's colour rules (tools/sitewalk.py says why): that holds while
    a dark page shows the elements its light page shows, which this checks page by page."""
    viewport, mode = request.node.callspec.params["visits"]
    if mode == "light":
        assert all(v.axe_rules == "all" for v in visits.values())
        return
    light = _walk_viewport(viewport, browser, site_url, site)["light"]
    differ = [page for page, v in visits.items() if v.shown != light[page].shown]
    assert not differ, (
        f"pages that show other elements in dark mode than in light mode ({viewport}): "
        f"their dark walk must run every axe rule, not only the colour rules: {differ}"
    )


# The theme's colour mode menu, as far as the walk uses it: an item that picks dark mode.
_MODE_MENU = (
    '<button class="theme-change-button" data-mode="dark" '
    "onclick=\"document.documentElement.dataset.theme = 'dark'\">Dark</button>"
)


def _walk_one_page(tmp_path: Path, browser, page: str) -> tuple[Visit, Visit]:
    """Serve a site of one page, ``page``'s HTML, walk it wide; return its light and dark visits."""
    (tmp_path / "404.html").write_text('<link href="/_static/x.css">', encoding="utf-8")
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    server = serve(tmp_path)
    try:
        walked = walk(
            browser, f"http://127.0.0.1:{server.server_address[1]}", ["page.html"], "wide"
        )
    finally:
        server.shutdown()
        server.server_close()
    light, dark = (walked[mode]["page.html"] for mode in MODES)
    return light, dark


def test_a_dark_mode_that_hides_an_element_shows_in_the_walk(tmp_path, browser):
    """The comparison above can fail: a page whose dark mode hides a link walks differently."""
    light, dark = _walk_one_page(
        tmp_path,
        browser,
        "<!doctype html><html lang=en><head><title>t</title><script>"
        'document.documentElement.dataset.theme = localStorage.getItem("mode");</script>'
        "<style>html[data-theme=dark] .only-light { display: none }</style></head>"
        '<body><main><p>text</p><a class="only-light" href="#">a link</a>'
        f"{_MODE_MENU}</main></body></html>",
    )
    assert (light.theme, dark.theme) == ("light", "dark")
    assert light.shown != dark.shown
    assert not dark.console_errors


def test_a_page_the_walk_cannot_switch_fails_in_the_mode_it_could_not_pick(tmp_path, browser):
    """A page without the theme's menu stays light: its dark visit reports that, and fails."""
    light, dark = _walk_one_page(
        tmp_path,
        browser,
        "<!doctype html><html lang=en><head><title>t</title></head>"
        "<body><main><p>text</p></main></body></html>",
    )
    assert dark.theme != "dark"
    assert any("could not switch" in error for error in dark.console_errors)
    assert not any("could not switch" in error for error in light.console_errors)


def _stalling_site(tmp_path: Path, stalls: int):
    """A one-page site whose stylesheet goes unanswered the first ``stalls`` times it is
    asked for: a load left hanging, as Chromium's emulated network once left one."""
    (tmp_path / "404.html").write_text('<link href="/_static/x.css">', encoding="utf-8")
    (tmp_path / "slow.css").write_text("p { color: black }", encoding="utf-8")
    (tmp_path / "page.html").write_text(
        '<!doctype html><html lang=en><head><title>t</title><link rel="stylesheet" '
        'href="slow.css"></head><body><main><p>text</p></main></body></html>',
        encoding="utf-8",
    )
    asked, release = itertools.count(), threading.Event()

    class Stalling(SiteHandler):
        def do_GET(self) -> None:
            if self.path == "/slow.css" and next(asked) < stalls:
                release.wait(60)  # no answer until the test is over
                return
            super().do_GET()

    return serve(tmp_path, Stalling), release


def test_a_load_left_hanging_is_tried_again_in_a_fresh_tab(tmp_path, browser):
    server, release = _stalling_site(tmp_path, stalls=1)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        visit = walk(browser, url, ["page.html"], "wide", ("light",), load_timeout_ms=3000)
    finally:
        release.set()
        server.shutdown()
        server.server_close()
    page = visit["light"]["page.html"]
    assert page.stalled == [f"load 1: {url}/slow.css"]
    assert "/slow.css" in page.loaded  # the second try loaded the page, and checked it
    assert page.shown
    assert not page.failed_requests


def test_a_page_that_hangs_at_every_try_fails_the_walk_naming_what_it_waited_for(tmp_path, browser):
    server, release = _stalling_site(tmp_path, stalls=2)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(PageLoadError, match=r"page\.html did not reach its load event") as e:
            walk(browser, url, ["page.html"], "wide", ("light",), load_timeout_ms=3000)
    finally:
        release.set()
        server.shutdown()
        server.server_close()
    assert f"load 1: {url}/slow.css; load 2: {url}/slow.css" in str(e.value)
