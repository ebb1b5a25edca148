"""The site's Python code blocks, each run alone in its own process, as a reader pastes it.

A reader copies one block into a fresh file or interpreter and runs it, so a block
must bring its own imports, tensors and seeds. This module finds the blocks in the
built HTML (as the copy button copies them) or in an example's source, and runs each
with :mod:`cheatsheet._blocks`, in a new process whose namespace is empty.

Starting a Python that imports torch costs about a second, and the site has hundreds
of blocks, so the processes are forked from a server that has imported torch, NumPy
and matplotlib and nothing else (and, for a block that compiles, Dynamo and Inductor:
``cheatsheet._blocks`` says when): a fork sees the same empty ``__main__`` as a fresh
interpreter (a missing ``import torch`` still fails with NameError) and no state that
another block left, because every block forks from the same untouched server.
``--fresh`` starts a real new interpreter for each block instead. A block whose first
line is ``# torchrun --nproc-per-node=N name.py`` is a script for torchrun: it is saved
as ``name.py`` and started with torchrun, as that line says (``cheatsheet._torchrun``).

From the command line, on an example's source while writing it::

    python tests/snippets.py examples/basics/autograd.py
    python tests/snippets.py _build/html/gallery/basics/autograd.html --fresh
"""

from __future__ import annotations

import html
import os
import re
import sys
from pathlib import Path

from cheatsheet._blocks import (
    BLOCK_TIMEOUT_S,
    TRANSIENT_RUNS,
    Block,
    Outcome,
    gallery_blocks,
    run_alone,
)

__all__ = [
    "BLOCK_TIMEOUT_S",
    "TRANSIENT_RUNS",
    "Block",
    "Outcome",
    "gallery_blocks",
    "html_blocks",
    "run_alone",
    "site_blocks",
]

# What a language-tagged block is called in the HTML that Sphinx writes.
_PYTHON_CLASSES = ("highlight-python", "highlight-Python", "highlight-python3", "highlight-default")


# Sphinx writes a block as <div class="highlight-LANG notranslate"><div class="highlight">
# <pre>...</pre>: Pygments' spans (and sphinx-codeautolink's links) around escaped text.
# Read that shape with regular expressions: Beautiful Soup's parse of the whole site took
# 17 s of every test run (2 cores). A page where a block's div has another shape is read
# with Beautiful Soup instead, so no block is missed.
_DIV = re.compile(r'<div class="([^"]*)">')
_ANY_DIV = re.compile(r"<div\b[^>]*\bclass=[\"'][^\"']*\bhighlight-(?:" + "|".join(
    c.removeprefix("highlight-") for c in _PYTHON_CLASSES) + r")\b")  # fmt: skip
_PRE = re.compile(r'<div class="highlight"><pre>(.*?)</pre>', re.DOTALL)
_TAG = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""")


def _codes_by_pattern(page: str) -> list[str] | None:
    """The text of each Python block's ``pre``, in page order; None when a div has another shape."""
    codes = []
    for div in _DIV.finditer(page):
        if not set(div.group(1).split()) & set(_PYTHON_CLASSES):
            continue
        pre = _PRE.match(page, div.end())
        if pre is None:
            return None
        codes.append(html.unescape(_TAG.sub("", pre.group(1))))
    return codes if len(codes) == len(_ANY_DIV.findall(page)) else None


def _codes_by_soup(page: str) -> list[str | None]:
    """The text of each Python block's first ``pre`` (None where it has none), by Beautiful Soup."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    divs = soup.select(", ".join(f"div.{c}" for c in _PYTHON_CLASSES))
    return [pre.get_text() if (pre := div.find("pre")) else None for div in divs]


def html_blocks(
    path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None
) -> list[Block]:
    """The Python code blocks of a built page, as the copy button copies them."""
    page = Path(path).read_text(encoding="utf-8")
    name = Path(path).relative_to(root).as_posix() if root else Path(path).name
    codes = _codes_by_pattern(page)
    found = []
    for n, code in enumerate(_codes_by_soup(page) if codes is None else codes, 1):
        if code is None or code.lstrip().startswith(">>>"):
            continue  # an interpreter session shows output; its prompts are not code
        found.append(Block(f"{name} block {n}", code))
    return found


def site_blocks(site: str | os.PathLike[str]) -> list[Block]:
    """Every Python code block of every page of a built site."""
    site = Path(site)
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)
    return [b for page in pages for b in html_blocks(page, site)]


def _main(argv: list[str]) -> int:
    fresh = "--fresh" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")]
    if not paths:
        print(__doc__)
        return 2
    blocks = []
    for p in paths:
        if p.is_dir():
            blocks += (
                site_blocks(p)
                if any(p.rglob("*.html"))
                else [b for f in sorted(p.rglob("*.py")) for b in gallery_blocks(f)]
            )
        elif p.suffix == ".html":
            blocks += html_blocks(p)
        else:
            blocks += gallery_blocks(p)
    failed = 0
    for o in run_alone(blocks, fresh=fresh):
        print(f"{'ok  ' if o.ok else 'FAIL'} {o.seconds:6.1f} s  {o.block.origin}")
        if not o.ok:
            failed += 1
            print("    " + o.output.strip().replace("\n", "\n    ")[-2000:])
    print(f"{len(blocks) - failed} of {len(blocks)} blocks run alone")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
