"""The held-out search queries are well formed and name real entries.

Three sets judge the site's search on queries it was not tuned on: tests/search_heldout.toml
(written here, without looking at the tuning queries), tests/search_titles.toml (titles
other people wrote, each with its source) and tests/search_questions.toml (questions and
pasted errors as readers posted them, each with its source, labelled before any search).
This test reads them as data only: it runs no search and needs neither the built site nor
a browser.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest
import searchsets  # tools/, on the path through pytest's pythonpath setting

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "tests" / "search_heldout.toml"
TITLES = ROOT / "tests" / "search_titles.toml"
QUESTIONS = ROOT / "tests" / "search_questions.toml"
SEARCH_TERMS = ROOT / "docs" / "search_terms.toml"
DEV = ROOT / "tools" / "search_dev.toml"  # readers' own words, tuned on
SETS = [HELDOUT, TITLES, QUESTIONS]

KINDS = {"task", "error", "api"}
LABEL = re.compile(r"^# \.\. _([A-Za-z0-9_-]+):\s*$", re.MULTILINE)
PAGE_ANCHOR = re.compile(r"^[a-z0-9_./-]+\.html#[A-Za-z0-9_-]+$")


def _queries(path: Path) -> list[dict]:
    with path.open("rb") as f:
        return tomllib.load(f)["query"]


def _defined_labels() -> set[str]:
    return {
        label
        for path in (ROOT / "examples").glob("*/*.py")
        for label in LABEL.findall(path.read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_the_set_holds_at_least_80_queries(path):
    assert len(_queries(path)) >= 80


@pytest.mark.parametrize(
    "query",
    [q for path in SETS for q in _queries(path)],
    ids=lambda q: q.get("text", "?")[:40],
)
def test_every_query_has_text_a_known_kind_and_an_answer(query):
    assert isinstance(query.get("text"), str)
    assert query["text"].strip()
    assert query.get("kind") in KINDS, f"kind {query.get('kind')!r} is not one of {sorted(KINDS)}"
    answers = query.get("answers")
    assert isinstance(answers, list)
    assert answers, "a query needs at least one answer"
    assert all(isinstance(a, str) and a for a in answers)
    assert len(set(answers)) == len(answers), f"an answer is listed twice: {answers}"


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_no_two_queries_share_a_text(path):
    counts = Counter(" ".join(q["text"].split()) for q in _queries(path))
    assert [text for text, n in counts.items() if n > 1] == []


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_answer_names_an_entry_of_the_examples_or_a_page_anchor(path):
    defined = _defined_labels()
    unknown = sorted(
        {
            answer
            for query in _queries(path)
            for answer in query["answers"]
            if answer not in defined and not PAGE_ANCHOR.match(answer)
        }
    )
    assert unknown == [], f"neither a label of examples/ nor page.html#anchor: {unknown}"


def test_every_title_says_where_it_came_from_and_whether_it_was_looked_at():
    # The titles are other people's words: each names its page, and says whether its
    # misses were read (looked_at = true) or it stays a blind measure.
    queries = _queries(TITLES)
    assert all(re.match(r"^https?://\S+$", q.get("source", "")) for q in queries)
    assert all(isinstance(q.get("looked_at"), bool) for q in queries)
    assert sum(not q["looked_at"] for q in queries) >= 40


def test_the_questions_are_over_a_hundred_each_with_its_source_and_every_kind_is_there():
    queries = _queries(QUESTIONS)
    assert len(queries) >= 100
    assert all(re.match(r"^https?://\S+$", q.get("source", "")) for q in queries)
    assert {q["kind"] for q in queries} == KINDS


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def _tuning_texts() -> set[str]:
    """What the ranking was tuned on: docs/search_terms.toml, tools/searchsets.py and
    tools/search_dev.toml."""
    with SEARCH_TERMS.open("rb") as f:
        phrases = {p for entry in tomllib.load(f)["entry"] for p in entry.get("phrases", [])}
    keys = set(searchsets.QUERIES) | set(searchsets.ASKED)
    dev = {q["text"] for q in _queries(DEV)}
    return {_normal(t) for t in phrases | keys | dev}


def test_no_held_out_query_is_a_copy_of_a_tuning_query():
    tuning = _tuning_texts()
    assert len(tuning) > 100  # the reading found them
    copies = sorted(
        q["text"] for path in SETS for q in _queries(path) if _normal(q["text"]) in tuning
    )
    assert copies == [], f"held-out queries the ranking was tuned on: {copies}"


def test_the_development_set_is_readers_words_with_sources_and_none_is_held_out():
    # tools/search_dev.toml is what the ranking is tuned on: well formed like the held-out
    # sets, and no question of it comes from a page a held-out query came from.
    dev = _queries(DEV)
    defined = _defined_labels()
    assert len(dev) >= 50
    assert {q["kind"] for q in dev} == KINDS
    assert all(re.match(r"^https?://\S+$", q.get("source", "")) for q in dev)
    assert all(q["answers"] and set(q["answers"]) <= defined for q in dev)
    held_out = {q["source"] for path in SETS for q in _queries(path) if "source" in q}
    assert sorted({q["source"] for q in dev} & held_out) == []
