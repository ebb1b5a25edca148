""" "Report a problem" and "suggest an entry" (docs/_ext/feedback.py): the new-issue form, filled in."""

from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import feedback  # docs/_ext, on the path above

REPOSITORY = "https://github.com/pytorch2-cheatsheet/pytorch2-cheatsheet"
PAGE = "gallery/basics/training_recipes.html"


def _form(url: str) -> tuple[str, dict[str, str], str]:
    """The form's address, the body's "Name: value" lines, and the title."""
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    facts = dict(line.split(": ", 1) for line in query["body"].splitlines() if ": " in line)
    return f"{parts.scheme}://{parts.netloc}{parts.path}", facts, query["title"]


def test_issue_url_carries_title_and_facts_through_any_characters():
    url = feedback.issue_url(
        REPOSITORY + "/",
        "Problem in api-x",
        {"Page": "https://e.org/a.html#api-x", "Entry": "a&b=c"},
    )
    form, facts, title = _form(url)
    assert form == REPOSITORY + "/issues/new"
    assert title == "Problem in api-x"
    assert facts == {"Page": "https://e.org/a.html#api-x", "Entry": "a&b=c"}


def test_a_repository_that_is_not_on_github_is_refused_naming_the_setting():
    with pytest.raises(ValueError, match=r"repository_url .*https://github.com/OWNER/NAME"):
        feedback.issue_url("https://gitlab.com/o/r", "t", {})


def test_the_commit_is_the_checkout_s_unless_one_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("CHEATSHEET_COMMIT", raising=False)
    assert feedback.tree_commit(tmp_path) == "unknown"  # not a checkout
    git = functools.partial(subprocess.run, cwd=tmp_path, check=True, capture_output=True)
    git(["git", "init", "-q"])
    (tmp_path / "f").write_text("1")
    git(["git", "add", "f"])
    git(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "m"])
    head = git(["git", "rev-parse", "HEAD"], text=True).stdout.strip()
    assert feedback.tree_commit(tmp_path) == head
    (tmp_path / "f").write_text("2")
    assert feedback.tree_commit(tmp_path) == head + "-dirty"
    monkeypatch.setenv("CHEATSHEET_COMMIT", "abc123")
    assert feedback.tree_commit(tmp_path) == "abc123"


# -- In the built site, in Chromium ----------------------------------------------------


def _record_machine(site: Path) -> str:
    record = site / "_records" / "basics" / "training_recipes.json"
    return json.loads(record.read_text())["machine_id"]


@pytest.fixture(scope="module")
def subpath_url(site: Path) -> Iterator[str]:
    """The site served under /cheatsheet/, as a project's GitHub Pages serves it."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path: str) -> str:
            prefix = "/cheatsheet"
            inside = path[len(prefix) :] if path.startswith(prefix + "/") else "/missing"
            return super().translate_path(inside)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/cheatsheet"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.site
@pytest.mark.browser
@pytest.mark.parametrize("where", ["root", "subpath", "file"])
def test_each_entry_and_the_page_link_to_a_filled_in_issue(
    browser, site, base_url, subpath_url, where
):
    start = {"root": base_url, "subpath": subpath_url, "file": site.as_uri()}[where]
    page = browser.new_page()
    try:
        page.goto(f"{start}/{PAGE}")
        section = page.locator("section:has(> span#basics-ema)")
        link = section.get_by_role("link", name="Report a problem with this entry")
        assert link.count() == 1
        entry_url = link.get_attribute("href")
        footer = page.locator("footer").get_by_role("link", name="Report a problem with this page")
        page_url = footer.get_attribute("href")
        entries = page.locator("article section .feedback-link").count()
    finally:
        page.close()
    form, facts, title = _form(entry_url)
    assert form == REPOSITORY + "/issues/new"
    assert title == "Problem in basics-ema"
    assert facts["Page"].endswith(f"/{PAGE}#basics-ema")
    assert facts["Entry"] == "basics-ema"
    assert facts["torch"] == metadata.version("torch")
    assert facts["Machine"] == _record_machine(site)
    assert facts["Commit"] not in ("", "unknown")
    form, facts, title = _form(page_url)
    assert title == "Problem on gallery/basics/training_recipes"
    assert facts["Page"].endswith(f"/{PAGE}")
    assert "Entry" not in facts
    # Every entry of the page has its own, the page's title section none.
    labels = [
        line for line in (ROOT / "examples/basics/training_recipes.py").read_text().splitlines()
        if line.startswith("# .. _basics-")
    ]  # fmt: skip
    assert entries == len(labels)


@pytest.mark.site
@pytest.mark.browser
def test_a_search_that_finds_nothing_offers_to_suggest_an_entry(browser, base_url, site):
    page = browser.new_page()
    query = "qzxv wombat teleportation"
    try:
        page.goto(f"{base_url}/{PAGE}")
        page.keyboard.press("Control+k")
        page.keyboard.type(query, delay=20)
        offer = page.locator("#pst-search-dialog .tasksearch-suggest a")
        # "qzxv" already finds nothing, so the offer shows while the rest is typed; the
        # one to read names the whole query.
        whole = re.compile(re.escape(urlencode({"title": f"Suggest an entry: {query}"})))
        expect(offer).to_have_attribute("href", whole, timeout=20_000)
        dropdown = offer.get_attribute("href")
        page.goto(f"{base_url}/search.html?q=" + query.replace(" ", "+"))
        on_search_page = page.locator(".tasksearch-page .tasksearch-suggest a")
        on_search_page.wait_for(timeout=20_000)
        listed = on_search_page.get_attribute("href")
        # A query that finds entries offers nothing.
        page.goto(f"{base_url}/search.html?q=clip_grad_norm_")
        page.locator(".tasksearch-page .tasksearch-results li a").first.wait_for(timeout=20_000)
        found_offers = page.locator(".tasksearch-suggest").count()
    finally:
        page.close()
    for url in (dropdown, listed):
        form, facts, title = _form(url)
        assert form == REPOSITORY + "/issues/new"
        assert title == f"Suggest an entry: {query}"
        assert facts["Searched for"] == query
        assert facts["torch"] == metadata.version("torch")
        assert facts["Commit"] not in ("", "unknown")
    assert found_offers == 0
