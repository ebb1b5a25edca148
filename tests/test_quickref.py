"""The quick reference prints on one sheet with every row, and its committed PDF is current."""

from __future__ import annotations

from pathlib import Path

import pytest
from print_quickref import (
    PAPERS,
    PDF,
    SOURCE,
    html_rows,
    missing_rows,
    pdf_pages_and_text,
    print_page,
    source_rows,
)


def test_source_rows_show_the_call_not_the_markup():
    rows = source_rows(
        "| You want | Call |\n| --- | --- |\n"
        "| zeros | {entry}`torch.zeros(2) <api-torch-zeros>`, `torch.ones(2)` |\n"
        "| the PDF | [PDF](_static/quickref.pdf) |\n"
    )
    assert rows == ["zeros torch.zeros(2), torch.ones(2)", "the PDF PDF"]


def test_a_row_broken_across_lines_is_still_found():
    assert missing_rows(["a causal mask torch.zeros(3)"], "a causal\nmask torch.ze\nros(3)") == []
    assert missing_rows(["a causal mask"], "a casual mask") == ["a causal mask"]


def test_committed_pdf_holds_every_row_of_the_quick_reference():
    rows = source_rows(SOURCE.read_text(encoding="utf-8"))
    assert len(rows) > 50, "the quick reference lost its tables"
    pages, text = pdf_pages_and_text(PDF.read_bytes())
    assert pages <= 2
    stale = missing_rows(rows, text)
    assert not stale, (
        f"{PDF.name} is older than quickref.md (rows missing: {stale[:3]}); rebuild the site "
        "and run `python tools/print_quickref.py --write`"
    )


@pytest.mark.site
def test_built_page_and_source_have_the_same_rows(site: Path):
    built = html_rows((site / "quickref.html").read_text(encoding="utf-8"))
    assert missing_rows(source_rows(SOURCE.read_text(encoding="utf-8")), "\n".join(built)) == []
    assert len(built) == len(source_rows(SOURCE.read_text(encoding="utf-8")))


@pytest.mark.site
def test_built_page_links_a_current_pdf(site: Path):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / "quickref.html").read_text(encoding="utf-8"), "html.parser")
    links = [a["href"] for a in soup.select("article a[href]") if a["href"].endswith(".pdf")]
    assert links, "the quick reference does not link its PDF"
    rows = html_rows((site / "quickref.html").read_text(encoding="utf-8"))
    for href in links:
        assert missing_rows(rows, pdf_pages_and_text((site / href).read_bytes())[1]) == []


@pytest.mark.site
@pytest.mark.browser
@pytest.mark.parametrize("paper", PAPERS)
def test_quick_reference_prints_on_one_sheet_with_every_row(site: Path, browser, paper: str):
    page = site / "quickref.html"
    rows = html_rows(page.read_text(encoding="utf-8"))
    pdf, smallest_pt = print_page(browser, page.as_uri(), paper)
    pages, text = pdf_pages_and_text(pdf)
    assert pages <= 2, f"the quick reference takes {pages} {paper} pages"
    assert missing_rows(rows, text) == []
    assert smallest_pt >= 6.5, f"text as small as {smallest_pt:.1f} pt is hard to read on paper"
