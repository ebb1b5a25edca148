"""A small site built with this project's conf.py: a failing page fails the build, pages do not leak state."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import sitebuild

SETS_STATE = '''r"""
Sets state
==========

Changes what a later page would inherit if the build did not reset it.
"""

# %%
import torch

torch.set_default_device("meta")
torch.set_default_dtype(torch.float64)
torch.manual_seed(123)
print("changed")
'''

READS_STATE = '''r"""
Reads state
===========

Shows the state a page starts with.
"""

# %%
import torch

print("device", torch.get_default_device())
print("dtype", torch.get_default_dtype())
print("draw", round(torch.rand(1).item(), 6))
'''

FAILS = '''r"""
Fails
=====

Raises, as a broken page would.
"""

# %%
ratio = 1 / 0
'''

HEADER = """Basics
------

#. :ref:`sphx_glr_gallery_basics_sets_state.py`
#. :ref:`sphx_glr_gallery_basics_reads_state.py`
"""


def _build(root: Path) -> subprocess.CompletedProcess[str]:
    # The site's own command line: noxfile.py's SPHINX_BUILD.
    command = sitebuild.sphinx_build_command(ROOT / "noxfile.py")
    env = {**os.environ, "MPLBACKEND": "agg"}
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mini")
    shutil.copy(ROOT / "conf.py", root)
    shutil.copytree(ROOT / "docs" / "_ext", root / "docs" / "_ext")
    shutil.copytree(ROOT / "docs" / "_static", root / "docs" / "_static")
    (root / "docs" / "index.md").write_text(
        "# Mini site\n\n```{toctree}\ngallery/index\n```\n", encoding="utf-8"
    )
    topic = root / "examples" / "basics"
    topic.mkdir(parents=True)
    (root / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n", encoding="utf-8")
    (topic / "GALLERY_HEADER.rst").write_text(HEADER, encoding="utf-8")
    (topic / "sets_state.py").write_text(SETS_STATE, encoding="utf-8")
    (topic / "reads_state.py").write_text(READS_STATE, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def passing_build(project: Path) -> subprocess.CompletedProcess[str]:
    return _build(project)


def test_a_good_site_builds_without_warnings(passing_build):
    assert passing_build.returncode == 0, passing_build.stderr


def test_pages_run_in_header_order_and_start_from_a_clean_state(project, passing_build):
    page = (project / "_build" / "html" / "gallery" / "basics" / "reads_state.html").read_text()
    torch.manual_seed(0)
    expected_draw = round(torch.rand(1).item(), 6)
    assert "device cpu" in page
    assert "dtype torch.float32" in page
    assert f"draw {expected_draw}" in page
    index = (project / "_build" / "html" / "gallery" / "index.html").read_text()
    assert index.index("sets_state") < index.index("reads_state")


def test_the_site_folder_holds_no_build_state(project, passing_build):
    site = project / "_build" / "html"
    assert not (site / ".doctrees").exists()
    assert not list(site.rglob("*.pickle")) + list(site.rglob("*.doctree"))
    # html_copy_source is off: Sphinx still makes the folder, and leaves it empty.
    assert not list((site / "_sources").rglob("*"))


def test_a_failing_page_fails_the_build_with_its_traceback(project, passing_build):
    (project / "examples" / "basics" / "fails.py").write_text(FAILS, encoding="utf-8")
    try:
        result = _build(project)
    finally:
        (project / "examples" / "basics" / "fails.py").unlink()
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "ZeroDivisionError" in output
    assert "fails.py" in output
