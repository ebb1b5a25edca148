"""The site walk's record: a page passed before is judged again, not walked, while its
files, the browser and the walk are the same (walkcache.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from sitewalk import COLOUR_RULES, MAX_LAYOUT_SHIFT, Shift, Visit

from walkcache import EVERY_PAGE, SiteFiles, WalkRecord, clean, inputs, last_run_line

# CHEATSHEET_EVERY_*=1 in the shell must not change what these tests of the record see.
pytestmark = pytest.mark.usefixtures("without_rerun_switches")


INPUTS = {"sitewalk.py": "a", "axe-core": "b", "chromium": "1", "axe rules": "all"}


def _site(root: Path) -> Path:
    site = root / "html"
    files = {
        "404.html": '<link href="/name/_static/theme.css"><img src="/name/_images/lost.png">',
        "index.html": '<link rel="stylesheet" href="_static/theme.css?v=1">'
        '<script src="_static/site.js"></script><a href="gallery/page.html">go</a>',
        "gallery/page.html": '<link href="../_static/theme.css"><link rel="icon" '
        'href="../_images/icon.png"><link rel="prev" href="other.html" title="Other">'
        '<link href="../genindex.html" rel="index"><link rel="search" href="../search.html">'
        '<img src="../_images/plot.png" '
        'srcset="../_images/plot.png 1x, ../_images/plot@2x.png 2x">'
        '<object data="../_images/chart.svg"></object><a href="../_images/other.png">x</a>',
        "gallery/other.html": '<img src="../_images/other.png">',
        "_static/theme.css": "body{}",
        "_static/site.js": "1",
        "_static/search-index.js": "records",
        "_images/plot.png": "p",
        "_images/plot@2x.png": "p2",
        "_images/chart.svg": "<svg/>",
        "_images/icon.png": "i",
        "genindex.html": "entries",
        "search.html": "search",
        "_images/other.png": "o",
        "_images/lost.png": "l",
    }
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text, encoding="utf-8")
    return site


def _visit(page: str, **found) -> Visit:
    return Visit(page=page, theme="light", shown="abc", scroll_width=100, client_width=100,
                 loaded=[f"/{page}"], **found)  # fmt: skip


def test_a_page_names_the_files_its_browser_loads_not_the_pages_it_links(tmp_path):
    files = SiteFiles(_site(tmp_path))
    assert files.named_by("index.html") == ["_static/site.js", "_static/theme.css"]
    # ... and not the pages its <link rel="prev">, "index" or "search" name.
    assert files.named_by("gallery/page.html") == [
        "_images/chart.svg", "_images/icon.png", "_images/plot.png", "_images/plot@2x.png",
        "_static/theme.css",
    ]  # fmt: skip
    # The 404 page names its files where the site lives on its host.
    assert files.named_by("404.html") == ["_images/lost.png", "_static/theme.css"]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/gallery/page.html", "gallery/page.html"),
        ("/name/_static/theme.css", "_static/theme.css"),
        ("/", "index.html"),
        ("/_images/a%20b.png", "_images/a b.png"),
        ("https://example.org/x.css", None),
        ("data:image/png;base64,AAAA", None),
        ("#top", None),
    ],
)
def test_a_url_maps_to_the_site_file_the_server_sends(tmp_path, url, expected):
    assert SiteFiles(_site(tmp_path)).site_path(url) == expected


def _key_after(tmp_path: Path, page: str, change: str) -> tuple[str, str]:
    site = _site(tmp_path)
    before = SiteFiles(site).key(page)
    (site / change).write_text("changed", encoding="utf-8")
    return before, SiteFiles(site).key(page)


@pytest.mark.parametrize(
    "change",
    ["gallery/page.html", "_images/plot.png", "_images/plot@2x.png", "_images/chart.svg",
     "_images/icon.png", "_static/site.js", "_static/theme.css"],
)  # fmt: skip
def test_a_page_is_walked_again_when_a_file_it_loads_changes(tmp_path, change):
    before, after = _key_after(tmp_path, "gallery/page.html", change)
    assert before != after


@pytest.mark.parametrize(
    "change",
    ["gallery/other.html", "index.html", "_images/other.png", "_static/search-index.js",
     "genindex.html", "search.html"],
)  # fmt: skip
def test_a_page_is_not_walked_again_for_a_file_it_does_not_load(tmp_path, change):
    before, after = _key_after(tmp_path, "gallery/page.html", change)
    assert before == after


def test_a_page_s_key_covers_its_own_file_what_it_names_and_the_static_files(tmp_path):
    files = SiteFiles(_site(tmp_path))
    covered = files.covered("index.html")
    assert {"index.html", "_static/theme.css", "_static/site.js"} <= covered
    assert "_static/search-index.js" not in covered
    assert "_images/plot.png" not in covered


def _record(tmp_path: Path, depends_on=INPUTS) -> WalkRecord:
    return WalkRecord(tmp_path / "walk" / "wide-light.json", dict(depends_on), "light")


def test_a_page_that_passed_is_reused_while_its_files_and_the_inputs_hold(tmp_path):
    site = _site(tmp_path)
    pages = ["index.html", "gallery/page.html"]
    first = _record(tmp_path)
    todo, reused = first.split(pages, SiteFiles(site))
    assert (todo, reused) == (pages, {})
    walked = {
        "index.html": _visit("index.html"),
        "gallery/page.html": _visit("gallery/page.html", shifts=[Shift(0.01, 120, ["div"])]),
    }
    first.save(walked, SiteFiles(site), pages)

    todo, reused = _record(tmp_path).split(pages, SiteFiles(site))
    assert todo == []
    assert reused == walked

    (site / "_images" / "plot.png").write_text("new plot", encoding="utf-8")
    todo, reused = _record(tmp_path).split(pages, SiteFiles(site))
    assert todo == ["gallery/page.html"]
    assert list(reused) == ["index.html"]


@pytest.mark.parametrize(
    "changed",
    [{"chromium": "2"}, {"axe rules": ", ".join(COLOUR_RULES)}, {"sitewalk.py": "z"},
     {"fonts": "new"}],
)  # fmt: skip
def test_every_page_is_walked_again_when_an_input_changes_and_the_input_is_named(tmp_path, changed):
    site = _site(tmp_path)
    _record(tmp_path).save({"index.html": _visit("index.html")}, SiteFiles(site), ["index.html"])
    again = _record(tmp_path, {**INPUTS, **changed})
    assert again.split(["index.html"], SiteFiles(site)) == (["index.html"], {})
    assert again.changed == sorted(changed)


@pytest.mark.parametrize(
    "finding",
    [
        {"axe": [{"id": "color-contrast", "impact": "serious"}]},
        {"console_errors": ["TypeError: x is undefined"]},
        {"failed_requests": ["404 http://127.0.0.1/_static/gone.css"]},
        {"scroll_width": 120},
        {"article_overflow": 3},
        {"shifts": [Shift(MAX_LAYOUT_SHIFT + 0.01, 300, ["img"])]},
        {"theme": "dark"},
    ],
)
def test_a_visit_with_a_finding_is_not_remembered_and_undoes_an_earlier_pass(tmp_path, finding):
    site = _site(tmp_path)
    pages = ["index.html"]
    _record(tmp_path).save({"index.html": _visit("index.html")}, SiteFiles(site), pages)
    bad = _visit("index.html")
    for name, value in finding.items():
        setattr(bad, name, value)
    assert not clean(bad, "light")
    _record(tmp_path).save({"index.html": bad}, SiteFiles(site), pages)
    assert _record(tmp_path).split(pages, SiteFiles(site)) == (pages, {})


def test_a_page_no_longer_on_the_site_leaves_the_record(tmp_path):
    site = _site(tmp_path)
    both = ["index.html", "gallery/other.html"]
    walked = {p: _visit(p) for p in both}
    _record(tmp_path).save(walked, SiteFiles(site), both)
    _record(tmp_path).save({}, SiteFiles(site), ["index.html"])
    stored = json.loads((tmp_path / "walk" / "wide-light.json").read_text(encoding="utf-8"))
    assert list(stored["passed"]) == ["index.html"]


def test_every_page_is_walked_when_asked_or_when_the_record_is_missing_or_damaged(
    tmp_path, monkeypatch
):
    site = _site(tmp_path)
    pages = ["index.html"]
    _record(tmp_path).save({"index.html": _visit("index.html")}, SiteFiles(site), pages)
    monkeypatch.setenv(EVERY_PAGE, "1")
    assert _record(tmp_path).split(pages, SiteFiles(site)) == (pages, {})
    monkeypatch.delenv(EVERY_PAGE)
    assert _record(tmp_path).split(pages, SiteFiles(site))[0] == []
    (tmp_path / "walk" / "wide-light.json").write_text("{not json", encoding="utf-8")
    assert _record(tmp_path).split(pages, SiteFiles(site)) == (pages, {})


def test_the_walk_s_inputs_name_the_browser_and_the_rules():
    browser = SimpleNamespace(version="140.0")
    every, colour = inputs(browser, None), inputs(browser, COLOUR_RULES)
    assert every["chromium"] == "140.0"
    assert every["axe rules"] == "all"
    assert colour["axe rules"] == "color-contrast, link-in-text-block"
    assert inputs(SimpleNamespace(version="141.0"), None) != every


def test_the_summary_says_how_many_pages_each_walk_took_from_the_record(tmp_path):
    site = _site(tmp_path)
    started = time.time()
    assert last_run_line(tmp_path / "walk", since=started) is None
    pages = ["index.html", "gallery/page.html"]
    _record(tmp_path).save({p: _visit(p) for p in pages}, SiteFiles(site), pages)
    line = last_run_line(tmp_path / "walk", since=started)
    assert line.startswith(
        "site walk: wide-light 2 walked now (gallery/page.html, index.html), 0 passed before"
    )
    again = _record(tmp_path, {**INPUTS, "chromium": "2"})
    todo, _ = again.split(pages, SiteFiles(site))
    again.save({p: _visit(p) for p in todo}, SiteFiles(site), pages)
    line = last_run_line(tmp_path / "walk", since=started)
    assert "wide-light 2 walked now (inputs changed: chromium), 0 passed before" in line
    assert f"{EVERY_PAGE}=1 walks them all" in line
    many = [f"page{i}.html" for i in range(11)]
    for page in many:
        (site / page).write_text("<p>", encoding="utf-8")
    shown = _record(tmp_path, {**INPUTS, "chromium": "2"})
    shown.save({p: _visit(p) for p in many}, SiteFiles(site), pages + many)
    line = last_run_line(tmp_path / "walk", since=started)
    assert "wide-light 11 walked now, 2 passed before" in line  # too many to name
    assert last_run_line(tmp_path / "walk", since=time.time() + 60) is None


def test_the_summary_names_a_page_that_loaded_only_at_its_second_try(tmp_path):
    site = _site(tmp_path)
    started = time.time()
    pages = ["index.html", "gallery/page.html"]
    visits = {p: _visit(p) for p in pages}
    visits["index.html"].stalled = ["load 1: http://127.0.0.1:1/_static/a.css"]
    _record(tmp_path).save(visits, SiteFiles(site), pages)
    line = last_run_line(tmp_path / "walk", since=started)
    assert "index.html loaded again after: load 1: http://127.0.0.1:1/_static/a.css" in line
    assert "gallery/page.html loaded again" not in line


def _with_commit(commit: str, words: str = "text") -> str:
    # As the layout and feedback.py write a page: the commit in the meta and in a link.
    return (
        '<meta name="cheatsheet-feedback" content="https://example.org/issues/new" '
        f'data-torch="2.15.0" data-machine="m" data-commit="{commit}"/>'
        f'<p>{words}</p><a href="https://example.org/issues/new?body=Commit%3A+{commit}%0A">'
        "Report a problem</a>"
    )


def test_a_page_s_key_leaves_out_the_commit_it_was_built_from_and_nothing_else(tmp_path):
    site = _site(tmp_path)
    page = site / "gallery" / "other.html"
    keys = {}
    for name, text in {
        "clean": _with_commit("a" * 40),
        "dirty": _with_commit("a" * 40 + "-dirty"),
        "next commit": _with_commit("b" * 40),
        "new words": _with_commit("b" * 40, words="other text"),
    }.items():
        page.write_text(text, encoding="utf-8")
        keys[name] = SiteFiles(site).key("gallery/other.html")
    assert keys["clean"] == keys["dirty"] == keys["next commit"]
    assert keys["new words"] != keys["next commit"]
