"""Every Python fence in docs/*.md is one that the sybil collector in docs/conftest.py runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.myst import PythonCodeBlockParser

ROOT = Path(__file__).resolve().parents[1]

PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if "gallery" not in p.parts)
_PYTHONISH = re.compile(
    r"\b(py|python3?|pycon|ipython3?|pytb)\b|code-block\}\s*python", re.IGNORECASE
)


def _fence_infos(text: str) -> list[str]:
    infos, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,}|~{3,})(.*)$", line)
        if not m:
            continue
        if fence is None:
            fence = m.group(1)
            infos.append(m.group(2).strip())
        elif m.group(1).startswith(fence) and not m.group(2).strip():
            fence = None
    return infos


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_no_python_fence_escapes_collection(page):
    text = page.read_text(encoding="utf-8")
    python_fences = [i for i in _fence_infos(text) if _PYTHONISH.search(i)]
    escaped = [i for i in python_fences if i != "python"]
    assert not escaped, f"{page.name}: fences {escaped} would not run; write ```python"
    regions = list(Sybil(parsers=[PythonCodeBlockParser()]).parse(page))
    assert len(regions) == len(python_fences)
