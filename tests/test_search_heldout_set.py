"""The held-out search queries (tests/search_heldout.toml) are well formed and name real entries.

The set judges the site's search on queries it was not tuned on, so this test reads it as
data only: it runs no search and needs neither the built site nor a browser.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "tests" / "search_heldout.toml"

KINDS = {"task", "error", "api"}
LABEL = re.compile(r"^# \.\. _([A-Za-z0-9_-]+):\s*$", re.MULTILINE)
PAGE_ANCHOR = re.compile(r"^[a-z0-9_./-]+\.html#[A-Za-z0-9_-]+$")


def _queries() -> list[dict]:
    with HELDOUT.open("rb") as f:
        return tomllib.load(f)["query"]


def _defined_labels() -> set[str]:
    return {
        label
        for path in (ROOT / "examples").glob("*/*.py")
        for label in LABEL.findall(path.read_text(encoding="utf-8"))
    }


def test_the_set_holds_at_least_80_queries():
    assert len(_queries()) >= 80


@pytest.mark.parametrize("query", _queries(), ids=lambda q: q.get("text", "?")[:40])
def test_every_query_has_text_a_known_kind_and_an_answer(query):
    assert isinstance(query.get("text"), str)
    assert query["text"].strip()
    assert query.get("kind") in KINDS, f"kind {query.get('kind')!r} is not one of {sorted(KINDS)}"
    answers = query.get("answers")
    assert isinstance(answers, list)
    assert answers, "a query needs at least one answer"
    assert all(isinstance(a, str) and a for a in answers)
    assert len(set(answers)) == len(answers), f"an answer is listed twice: {answers}"


def test_no_two_queries_share_a_text():
    counts = Counter(" ".join(q["text"].split()) for q in _queries())
    assert [text for text, n in counts.items() if n > 1] == []


def test_every_answer_names_an_entry_of_the_examples_or_a_page_anchor():
    defined = _defined_labels()
    unknown = sorted(
        {
            answer
            for query in _queries()
            for answer in query["answers"]
            if answer not in defined and not PAGE_ANCHOR.match(answer)
        }
    )
    assert unknown == [], f"neither a label of examples/ nor page.html#anchor: {unknown}"
