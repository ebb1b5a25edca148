"""The notebook hooks in docs/_ext/notebooks.py and the pandoc reader and filter beside it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

import notebooks  # on the path through pytest's pythonpath setting

pypandoc = pytest.importorskip("pypandoc", reason="pandoc comes with the docs dependency group")

SITE = "https://example.org/sheet/"


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A gallery of one topic with one page, as examples/ holds them."""
    topic = tmp_path / "examples" / "basics"
    topic.mkdir(parents=True)
    (topic / "GALLERY_HEADER.rst").write_text(
        ".. _gallery_basics:\n\nEveryday PyTorch\n----------------\n", encoding="utf-8"
    )
    (topic / "tensors.py").write_text(
        'r"""\nTensors\n=======\n\nOne sentence.\n"""\n\n'
        "# %%\n# .. _basics-zeros:\n#\n# Zeros: ``torch.zeros``\n# ----------------------\n"
        "# A sentence.\nimport torch\n",
        encoding="utf-8",
    )
    return tmp_path / "examples"


def _markdown(rst: str, examples: Path, tmp_path: Path) -> str:
    links = tmp_path / "links.json"
    targets = notebooks.link_targets(examples, "gallery", SITE)
    links.write_text(json.dumps({k: asdict(v) for k, v in targets.items()}), encoding="utf-8")
    # As sphinx-gallery calls it (notebook.py, fill_notebook), with this site's options.
    return pypandoc.convert_text(rst, to="md", format="rst", **notebooks.pandoc_options(links))


def test_link_targets_find_every_label_and_every_page(examples):
    targets = notebooks.link_targets(examples, "gallery", SITE)
    assert targets["basics-zeros"].url == f"{SITE}gallery/basics/tensors.html#basics-zeros"
    assert targets["basics-zeros"].title == "Zeros: ``torch.zeros``"
    assert targets["sphx_glr_gallery_basics_tensors.py"].url == f"{SITE}gallery/basics/tensors.html"
    assert targets["sphx_glr_gallery_basics_tensors.py"].title == "Tensors"
    assert targets["gallery_basics"].url == f"{SITE}gallery/basics/index.html#gallery-basics"


def test_a_text_block_keeps_the_heading_levels_of_its_page(examples, tmp_path):
    title = _markdown("\nTensors\n=======\n\nSummary\n-------\n\nText.\n", examples, tmp_path)
    entry = _markdown("\n.. _basics-zeros:\n\nZeros\n-----\nText.\n", examples, tmp_path)
    assert title.startswith("# Tensors\n")
    assert "\n## Summary\n" in title
    assert entry.startswith("## Zeros\n")  # pandoc alone would make it level 1


def test_roles_become_links_to_the_published_site(examples, tmp_path):
    markdown = _markdown(
        "See :entry:`torch.zeros(2) <basics-zeros>`, :ref:`basics-zeros`, "
        ":ref:`the page <sphx_glr_gallery_basics_tensors.py>` and ``x``.\n",
        examples,
        tmp_path,
    )
    zeros = f"{SITE}gallery/basics/tensors.html#basics-zeros"
    assert f"[`torch.zeros(2)`]({zeros})" in markdown
    assert f"[Zeros: `torch.zeros`]({zeros})" in markdown  # the heading, as Sphinx shows it
    assert f"[the page]({SITE}gallery/basics/tensors.html)" in markdown
    assert "`x`" in markdown


def test_a_table_becomes_a_pipe_table_and_a_target_leaves_no_trace(examples, tmp_path):
    markdown = _markdown(
        "\n.. _basics-zeros:\n\nSummary\n-------\n\n"
        "========  ==========================================\n"
        "You want  Call\n"
        "========  ==========================================\n"
        "zeros     :entry:`torch.zeros(2) <basics-zeros>`\n"
        "========  ==========================================\n",
        examples,
        tmp_path,
    )
    assert "| You want | Call |" in markdown
    assert "basics-zeros}" not in markdown
    assert "<" not in markdown  # no HTML anchors or tables


def test_an_unknown_label_fails_the_conversion_naming_it(examples, tmp_path):
    with pytest.raises(RuntimeError, match="basics-nowhere"):
        _markdown(":entry:`torch.ones(2) <basics-nowhere>`\n", examples, tmp_path)


def test_a_page_needs_the_optional_packages_it_imports_or_names(tmp_path):
    optional = ["sphinx>=8", "onnx>=1.18", "onnxruntime>=1.20", "torchao>=0.18"]
    page = tmp_path / "page.py"
    page.write_text(
        'r"""Title\n=====\n\nonnx is a format."""\n'
        "import importlib.util\n\nimport torch\n\n"
        'if importlib.util.find_spec("onnx") is not None:\n'
        "    import onnxruntime as ort\n",
        encoding="utf-8",
    )
    assert notebooks.page_requirements(page, optional) == ["onnx>=1.18", "onnxruntime>=1.20"]


def test_the_install_cell_installs_what_it_is_given_and_never_torch():
    cell = notebooks.install_cell(["cheatsheet @ git+https://example.org/repo", "onnx>=1.18"])
    [install] = [line for line in cell.splitlines() if line.startswith("%pip")]
    assert (
        install == '%pip install --quiet "cheatsheet @ git+https://example.org/repo" "onnx>=1.18"'
    )
    assert "torch.__version__" in cell


def test_a_page_s_text_in_one_run_is_each_block_s_own_run(examples, tmp_path):
    links = tmp_path / "links.json"
    targets = notebooks.link_targets(examples, "gallery", SITE)
    links.write_text(json.dumps({k: asdict(v) for k, v in targets.items()}), encoding="utf-8")
    options = notebooks.pandoc_options(links)
    blocks = [
        "Tensors\n=======\n\nOne sentence with ``code``.\n",
        "Zeros: ``torch.zeros``\n----------------------\nSee :ref:`basics-zeros`.\n\n- a\n- list",
        "A literal block::\n\n    x = 1\n",
        ".. note::\n\n   Inside a directive.",
        "===== =====\nhead  cell\n===== =====\nA     B\n===== =====\n",
        "Sub-heading\n~~~~~~~~~~~\n\nUnder a third style.\n",
    ]
    alone = [pypandoc.convert_text(b, to="md", format="rst", **options) for b in blocks]
    assert notebooks.convert_together(blocks, options) == alone
    # A block with no Markdown of its own cannot be told apart: it gets its own run.
    assert notebooks.convert_together(["One.", ".. a comment only", "Two."], options)[1] is None
