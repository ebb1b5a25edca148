"""Print the built quick reference with Chromium: page count, smallest font, rows kept.

Prints, for A4 and Letter, how many pages the quick reference takes, the smallest
font size of its printed text, and how many of its table rows the PDF holds. With
``--write`` it also saves the A4 print as ``docs/quickref.pdf``, the PDF the
landing page links to: run it after every change to ``docs/quickref.md`` and the
site build (``nox -s docs``), and commit the PDF. Run with ``nox -s quickref``.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cheatsheet._variables import read

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
SOURCE = ROOT / "docs" / "quickref.md"
PDF = ROOT / "docs" / "quickref.pdf"
PAPERS = ("A4", "Letter")
CHROMIUM = read("CHEATSHEET_CHROMIUM")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

# The computed font size of every piece of printed text, smallest first (CSS px).
_FONT_SIZES = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const sizes = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || !el.getClientRects().length) continue;
    if (getComputedStyle(el).visibility === "hidden") continue;
    sizes.add(parseFloat(getComputedStyle(el).fontSize));
  }
  return [...sizes].sort((a, b) => a - b);
}"""


_PLAIN_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


def squeeze(text: str) -> str:
    """Return ``text`` with no whitespace, soft hyphens, ligatures or curly quotes (Sphinx curls prose's)."""
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "").translate(_PLAIN_QUOTES)
    return re.sub(r"\s+", "", text)


def html_rows(html: str) -> list[str]:
    """Return the text of every body row of every table of the quick reference's article."""
    from bs4 import BeautifulSoup

    article = BeautifulSoup(html, "html.parser").select_one("article")
    rows = article.select("table tbody tr")
    return [" ".join(td.get_text(" ", strip=True) for td in tr.find_all("td")) for tr in rows]


_ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)\s*(?:<[^>]*>)?`")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def source_rows(markdown: str) -> list[str]:
    """Return the shown text of every body row of every table in the quick reference's source."""
    rows = []
    for line in markdown.splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["You want", "Call"]:
            continue
        text = " ".join(cells)
        text = _ROLE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
        rows.append(text.replace("`", ""))
    return rows


def pdf_pages_and_text(pdf: bytes) -> tuple[int, str]:
    """Return how many pages ``pdf`` has, and all its text in page order."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    return len(reader.pages), "\n".join(page.extract_text() for page in reader.pages)


def missing_rows(rows: list[str], text: str) -> list[str]:
    """Return the rows whose text does not appear in ``text``, whitespace aside."""
    flat = squeeze(text)
    return [row for row in rows if squeeze(row) not in flat]


@contextmanager
def chromium() -> Iterator[object]:
    """Start a headless Chromium (Playwright's Browser) for the length of the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def print_page(browser: object, url: str, paper: str) -> tuple[bytes, float]:
    """Print ``url`` on ``paper`` as Chromium's print dialog would; return the PDF and smallest font (pt)."""
    page = browser.new_page()
    try:
        page.goto(url)
        page.emulate_media(media="print")
        smallest_px = page.evaluate(_FONT_SIZES)[0]
        pdf = page.pdf(format=paper, print_background=False)
    finally:
        page.close()
    return pdf, smallest_px * 72 / 96


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"save the A4 print as {PDF}")
    args = parser.parse_args()
    page = SITE / "quickref.html"
    if not page.exists():
        sys.exit(f"no built quick reference at {page}: build the site first with `nox -s docs`")
    rows = html_rows(page.read_text(encoding="utf-8"))
    prints = {}
    with chromium() as browser:
        for paper in PAPERS:
            pdf, smallest_pt = print_page(browser, page.as_uri(), paper)
            pages, text = pdf_pages_and_text(pdf)
            lost = missing_rows(rows, text)
            prints[paper] = pdf
            print(f"{paper:<7} {pages} pages, smallest font {smallest_pt:.1f} pt, "
                  f"{len(rows) - len(lost)}/{len(rows)} rows, {len(pdf) / 1024:.0f} KiB")  # fmt: skip
            for row in lost:
                print(f"        lost: {row}")
    if args.write:
        PDF.write_bytes(prints["A4"])
        print(f"wrote {PDF.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
