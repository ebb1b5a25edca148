"""Each page's notebook: Markdown text, a first cell that keeps Colab's torch, it opens in Colab, it runs."""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import torch
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.site

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/*.py") if p.name != "__init__.py")
# What a page imports beyond torch and the helper package, and its notebook installs.
OPTIONAL = {
    "errors/compile_and_export_errors": ("onnx>=", "onnxscript>=", "onnxruntime>="),
    "pytorch2/deployment": ("onnx>=", "onnxscript>=", "onnxruntime>="),
    "pytorch2/quantization_torchao": ("torchao>=",),
    "reference_tensors/quantization": ("torchao>=",),  # checks whether torchao imports
}


def _page_id(example: Path) -> str:
    return f"{example.parent.name}/{example.stem}"


@functools.cache
def _page(site: Path, example: Path) -> BeautifulSoup:
    page = site / "gallery" / example.parent.name / f"{example.stem}.html"
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


@functools.cache
def _notebook_json(site: Path, example: Path) -> str:
    """The notebook the page offers for download, as its JSON text."""
    soup = _page(site, example)
    link = soup.select_one("a[href$='.ipynb'][download], a.download[href$='.ipynb']")
    link = link or next(a for a in soup.select("a") if a.get("href", "").endswith(".ipynb"))
    folder = site / "gallery" / example.parent.name
    return (folder / link["href"]).read_text(encoding="utf-8")


def _notebook(site: Path, example: Path) -> dict:
    return json.loads(_notebook_json(site, example))


def _markdown(notebook: dict) -> list[str]:
    """The Markdown cells' text, fenced code blocks left out (code may hold anything)."""
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    return [re.sub(r"^```.*?^```", "", cell, flags=re.DOTALL | re.MULTILINE) for cell in cells]


RESTRUCTUREDTEXT = {
    "a table rule": re.compile(r"^=+(\s+=+)+$", re.MULTILINE),
    "a double-backtick literal": re.compile(r"``"),
    "a Sphinx role": re.compile(r":(entry|since|ref|doc):`"),
    "a directive or target": re.compile(r"^\s*\.\. ", re.MULTILINE),
    "a heading's {#id}": re.compile(r"\{#[\w-]+\}"),
}


@pytest.mark.parametrize("example", EXAMPLES, ids=_page_id)
def test_the_notebooks_text_is_markdown_without_restructuredtext(site, example):
    for text in _markdown(_notebook(site, example)):
        for what, pattern in RESTRUCTUREDTEXT.items():
            found = pattern.search(text)
            assert not found, f"{what} in a Markdown cell: {text[: found.end() + 80]!r}"


def test_a_summary_table_is_a_markdown_pipe_table(site):
    summary = _markdown(_notebook(site, ROOT / "examples" / "basics" / "tensor_basics.py"))[0]
    assert "## Summary" in summary
    assert "| You want | Call |" in summary
    assert re.search(r"^\|-+\|-+\|$", summary, re.MULTILINE)
    # :entry:`torch.zeros(2, 3) <basics-factory-functions>`: the call as code, linked.
    assert "[`torch.zeros(2, 3)`](https://" in summary
    assert "/gallery/basics/tensor_basics.html#basics-factory-functions)" in summary


@functools.cache
def _ids(page: Path) -> frozenset[str]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return frozenset(tag["id"] for tag in soup.select("[id]"))


def _site_url(site: Path) -> str:
    soup = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser")
    return soup.select_one("link[rel=canonical]")["href"].removesuffix("index.html")


@pytest.mark.parametrize("example", EXAMPLES, ids=_page_id)
def test_the_notebooks_links_lead_to_places_on_the_published_site(site, example):
    # A notebook has no site around it: its links are absolute, to pages and anchors
    # that this build made.
    base = _site_url(site)
    for text in _markdown(_notebook(site, example)):
        for url in re.findall(r"\]\((\S+?)\)", text):
            assert not url.startswith("#"), f"a link within the notebook: {url}"
            if not url.startswith(base):
                continue
            path, anchor = urlsplit(url).path, urlsplit(url).fragment
            page = site / path.removeprefix(urlsplit(base).path)
            assert page.is_file(), f"{url} is no page of the site"
            assert not anchor or anchor in _ids(page), f"{url}: no such anchor on the page"


def _first_cell(site: Path, example: Path) -> str:
    cell = _notebook(site, example)["cells"][0]
    assert cell["cell_type"] == "code"
    return "".join(cell["source"])


@pytest.mark.parametrize("example", EXAMPLES, ids=_page_id)
def test_the_first_cell_installs_the_helpers_and_keeps_colabs_torch(site, example):
    first = _first_cell(site, example)
    [install] = [line for line in first.splitlines() if line.startswith("%pip install")]
    assert '"cheatsheet @ git+https://github.com/' in install
    assert not re.search(r'"torch\b', install), "the cell would replace Colab's torch"
    assert "torch==" not in first
    assert re.search(r"^print\(.*torch\.__version__", first, re.MULTILINE)
    assert "Change runtime type > GPU" in first


@pytest.mark.parametrize("example", EXAMPLES, ids=_page_id)
def test_the_first_cell_installs_the_optional_packages_the_page_imports(site, example):
    [install] = [line for line in _first_cell(site, example).splitlines() if "%pip" in line]
    wanted = OPTIONAL.get(_page_id(example), ())
    for requirement in wanted:
        assert f'"{requirement}' in install
    assert install.count('"') // 2 == 1 + len(wanted), f"installs more than it needs: {install}"


@pytest.mark.parametrize("example", EXAMPLES, ids=_page_id)
def test_every_page_opens_its_notebook_in_colab(site, example):
    [link] = [a for a in _page(site, example).select(".colab-link a")]
    href = link["href"]
    assert href.startswith("https://colab.research.google.com/github/")
    assert href.endswith(f"/blob/notebooks/{example.parent.name}/{example.stem}.ipynb")


@pytest.mark.slow
def test_a_notebook_runs_in_a_jupyter_kernel(site, tmp_path, monkeypatch):
    import nbclient
    import nbformat

    # jupyter_core warns on import until platformdirs' folders are its default.
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "agg")
    example = ROOT / "examples" / "basics" / "tensor_basics.py"
    notebook = nbformat.reads(_notebook_json(site, example), as_version=4)
    # The install line is left out: this machine already has what it installs.
    first = notebook.cells[0]
    first.source = "\n".join(line for line in first.source.splitlines() if "%pip" not in line)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and its traceback, if one fails
    said = "".join(o.get("text", "") for o in notebook.cells[0].outputs)
    assert said.startswith(f"torch {torch.__version__} ")
    assert os.listdir(tmp_path) == [], "the notebook left files behind"
