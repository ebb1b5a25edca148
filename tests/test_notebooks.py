"""Each page's notebook: its first cell installs what it needs, it opens in Colab, it runs."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.site

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/*.py") if p.name != "__init__.py")
TORCH_RELEASE = metadata.version("torch").split("+")[0]


def _notebook(site: Path, example: Path) -> dict:
    page = site / "gallery" / example.parent.name / f"{example.stem}.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    link = soup.select_one("a[href$='.ipynb'][download], a.download[href$='.ipynb']")
    link = link or next(a for a in soup.select("a") if a.get("href", "").endswith(".ipynb"))
    return json.loads((page.parent / link["href"]).read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_notebook_installs_this_torch_and_the_helpers_first(site, example):
    first = "".join(_notebook(site, example)["cells"][0]["source"])
    assert f'"torch=={TORCH_RELEASE}"' in first
    assert '"cheatsheet @ git+https://github.com/' in first
    assert "Change runtime type > GPU" in first


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_page_opens_its_notebook_in_colab(site, example):
    page = site / "gallery" / example.parent.name / f"{example.stem}.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    [link] = [a for a in soup.select(".colab-link a")]
    href = link["href"]
    assert href.startswith("https://colab.research.google.com/github/")
    assert href.endswith(f"/blob/notebooks/{example.parent.name}/{example.stem}.ipynb")


@pytest.mark.slow
def test_a_sample_of_notebooks_runs_as_downloaded(site, tmp_path):
    # The install cell is skipped: this machine already has what it installs. Pages
    # with scripts for torchrun are left out: run as one script, their cells would
    # call main() without torchrun; the build and the snippet tests run them.
    light = [
        e
        for e in EXAMPLES
        if e.parent.name.startswith(("basics", "reference_"))
        and "\n# torchrun --nproc-per-node=" not in e.read_text(encoding="utf-8")
    ]
    for example in random.Random(0).sample(light, 3):
        cells = _notebook(site, example)["cells"][1:]
        code = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        script = tmp_path / f"{example.stem}.py"
        script.write_text(code, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, check=False,
            env={**os.environ, "MPLBACKEND": "agg"}, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, f"{example.name}'s notebook fails:\n{done.stderr[-2000:]}"
