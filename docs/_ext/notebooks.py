"""Each page's notebook: its text as Markdown through pandoc, and a first cell that keeps Colab's torch.

sphinx-gallery writes a page's notebook when it runs the page. Two things it leaves to
this module:

- Its text blocks are reStructuredText. With sphinx-gallery's ``pypandoc`` option,
  pandoc converts them (a page's blocks in one run, below), with
  ``notebook_markdown.lua`` (beside this file) as its reader and filter: headings keep
  the page's levels, the site's roles become links to the published site (labels read
  here from the example sources), tables become pipe tables.
- Its ``first_notebook_cell`` is one cell for every page. After the gallery is written,
  each notebook's first cell is made to install the helper package and the optional
  packages that this page imports (from the ``docs`` dependency group), and never torch:
  Colab's own CUDA build already meets the helper package's ``torch>=2.4``, so pip
  leaves it alone.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from docutils.nodes import make_id
from packaging.requirements import Requirement
from sphinx.application import Sphinx
from sphinx.util import logging

import order  # docs/_ext: where each hook runs among the libraries' handlers

logger = logging.getLogger(__name__)

MARKDOWN_LUA = Path(__file__).with_name("notebook_markdown.lua")
# sphinx-gallery asks pandoc for pandoc's own Markdown, whose tables (simple, grid) and
# attributes ({#id}, {.class}) Jupyter shows as text; GitHub-flavoured Markdown is what
# Jupyter and Colab render. pandoc takes the last --from and --to it is given, so these
# override the ones sphinx-gallery passes first.
_PANDOC_ARGS = ("--to=gfm", "--wrap=preserve")
_LINKS_FILE = "notebook_links.json"  # in the doctree folder: a build cache, never published
_OPTIONAL_GROUP = "docs"  # the dependency group that holds what some pages import

# -- Links: where each label of the gallery leads on the published site ----------------


@dataclass(frozen=True)
class LinkTarget:
    """Where a label of the gallery leads, for the links of a notebook.

    Attributes
    ----------
    url : str
        The absolute address on the published site, anchor included.
    title : str
        The heading the label stands before, in reStructuredText: the text of a
        ``:ref:`` that gives none.
    """

    url: str
    title: str


_TARGET = re.compile(r"^\.\. _(?P<label>[^:]+):\s*$")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1+\s*$")


def _text_lines(source: str) -> list[str]:
    # A page's text is its docstring and its "# " comment blocks: drop the comment marks.
    return [line[2:] if line.startswith("# ") else "" if line == "#" else line
            for line in source.splitlines()]  # fmt: skip


def _title_from(lines: list[str], start: int) -> str | None:
    """Return the heading at the first non-blank line from ``start``, if that line is one."""
    for i in range(start, len(lines) - 1):
        text = lines[i].strip()
        if not text:
            continue
        underline = lines[i + 1].strip()
        return text if _UNDERLINE.match(underline) and len(underline) >= len(text) else None
    return None


def link_targets(examples: Path, gallery: str, site_url: str) -> dict[str, LinkTarget]:
    """Every label of the gallery's pages and folder headers, with its address and heading.

    Parameters
    ----------
    examples : path
        The gallery's source folder (``examples/``), one folder per topic.
    gallery : str
        Where the gallery's pages are on the site, relative to its root (``gallery``).
    site_url : str
        The published site's address, ending in a slash.

    Returns
    -------
    dict of str to LinkTarget
        By label, lowercased as Sphinx keeps labels: every ``.. _label:`` target, and
        sphinx-gallery's ``sphx_glr_<gallery>_<folder>_<page>.py`` label of each page.
    """
    found: dict[str, LinkTarget] = {}
    sources = [*examples.glob("GALLERY_HEADER.rst"), *examples.glob("*/GALLERY_HEADER.rst")]
    sources += [p for p in examples.glob("*/*.py") if p.name != "__init__.py"]
    for source in sorted(sources):
        folder = source.parent.relative_to(examples)
        stem = "index" if source.suffix == ".rst" else source.stem
        page = f"{site_url}{Path(gallery, folder, stem).as_posix()}.html"
        text = source.read_text(encoding="utf-8")
        lines = _text_lines(text)
        if source.suffix == ".py":
            own = "_".join(("sphx_glr", *Path(gallery, folder).parts, source.name)).lower()
            docstring = ast.get_docstring(ast.parse(text)) or ""
            found[own] = LinkTarget(page, _title_from(docstring.splitlines(), 0) or source.stem)
        for i, line in enumerate(lines):
            target = _TARGET.match(line)
            if target:
                label = target["label"].lower()
                title = _title_from(lines, i + 1) or label
                found[label] = LinkTarget(f"{page}#{make_id(label)}", title)
    return found


# -- The text converter --------------------------------------------------------------


def pandoc_options(links: Path) -> dict[str, list[str]]:
    """sphinx-gallery's ``pypandoc`` option: this site's reader, filter and Markdown.

    ``links`` is the JSON file of :func:`link_targets` that the filter reads.
    """
    return {
        "extra_args": [f"--from={MARKDOWN_LUA}", *_PANDOC_ARGS, "-M", f"notebook-links={links}"],
        "filters": [str(MARKDOWN_LUA)],
    }


def text_converter(gallery_conf: dict[str, Any]) -> str:
    """Name what turns the notebooks' text into Markdown, for the page-inputs fingerprint.

    The pandoc version, the arguments and a digest of the Lua reader and filter:
    notebooks are written only when a page runs, so a change here must run them all.
    """
    if gallery_conf.get("pypandoc") is False:
        return "sphinx-gallery's own converter"
    import pypandoc  # sphinx-gallery found it when it read the configuration

    lua = hashlib.sha256(MARKDOWN_LUA.read_bytes()).hexdigest()
    return f"pandoc {pypandoc.get_pandoc_version()} {' '.join(_PANDOC_ARGS)}, lua {lua}"


def _gallery_folders(app: Sphinx) -> Iterator[tuple[Path, str]]:
    conf = app.config.sphinx_gallery_conf
    examples, galleries = conf["examples_dirs"], conf["gallery_dirs"]
    examples = [examples] if isinstance(examples, str) else examples
    galleries = [galleries] if isinstance(galleries, str) else galleries
    for source, gallery in zip(examples, galleries, strict=True):
        yield Path(app.srcdir, source).resolve(), gallery


def _convert_text_with_pandoc(app: Sphinx) -> None:
    # Before sphinx-gallery writes the notebooks (builder-inited, priority 500).
    gallery_conf = app.config.sphinx_gallery_conf
    if gallery_conf["pypandoc"] is False:
        return  # sphinx-gallery has warned that pypandoc is missing, which fails the build
    targets: dict[str, LinkTarget] = {}
    for examples, gallery in _gallery_folders(app):
        targets.update(link_targets(examples, gallery, app.config.html_baseurl))
    links = Path(app.doctreedir, _LINKS_FILE)
    links.parent.mkdir(parents=True, exist_ok=True)
    links.write_text(json.dumps({k: asdict(v) for k, v in sorted(targets.items())}, indent=1))
    gallery_conf["pypandoc"] = pandoc_options(links)


# -- A page's text in one pandoc run ----------------------------------------------------

# sphinx-gallery converts a notebook's text blocks one pandoc run each: about 950 runs of
# some 50 ms in a build. The blocks of one page go through one run instead, each behind a
# paragraph that marks where it starts, and sphinx-gallery is handed the same Markdown
# for each block as its own run would give (a block whose Markdown cannot be told apart
# that way gets its own run, as before).
_BREAK = "CHEATSHEETNOTEBOOKBLOCK{n}"
_BREAK_LINE = re.compile(r"^CHEATSHEETNOTEBOOKBLOCK(\d+)\n", re.MULTILINE)


def convert_together(texts: Sequence[str], options: dict[str, Any]) -> list[str | None]:
    """Convert reST ``texts`` to Markdown in one pandoc run, with the ``pypandoc`` options.

    Returns each text's Markdown as its own run gives it, or None for a text whose
    Markdown could not be separated from its neighbours' (empty, or a marker missing).
    """
    import pypandoc

    if not texts:
        return []
    joined = "\n\n".join(f"{_BREAK.format(n=n)}\n\n{text}" for n, text in enumerate(texts))
    out = pypandoc.convert_text(joined, to="md", format="rst", **options)
    pieces = _BREAK_LINE.split(out)
    found: list[str | None] = [None] * len(texts)
    for marker, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        markdown = piece.strip("\n")
        if markdown and 0 <= int(marker) < len(texts) and _BREAK.format(n="") not in markdown:
            found[int(marker)] = markdown + "\n"
    return found


def _one_run_per_page(original: Any) -> Any:
    """Wrap sphinx-gallery's ``jupyter_notebook``: the page's text in one pandoc run."""

    def jupyter_notebook(script_blocks: Any, gallery_conf: Any, target_dir: Any) -> Any:
        options = gallery_conf["pypandoc"]
        if options is False:
            return original(script_blocks, gallery_conf, target_dir)
        import pypandoc

        texts = [content for label, content, _ in script_blocks if label != "code"]
        ready = iter(zip(texts, convert_together(texts, options), strict=True))
        one_run = pypandoc.convert_text

        def convert_text(source: str, *args: Any, **kwargs: Any) -> str:
            text, markdown = next(ready, (None, None))
            if markdown is not None and source == text:
                return markdown
            return one_run(source, *args, **kwargs)

        pypandoc.convert_text = convert_text
        try:
            return original(script_blocks, gallery_conf, target_dir)
        finally:
            pypandoc.convert_text = one_run

    return jupyter_notebook


# -- The first cell: what this page needs that Colab lacks -------------------------------


def install_cell(requirements: Sequence[str]) -> str:
    """Return a notebook's first cell: pip installs ``requirements``, then it says which torch runs."""
    quoted = " ".join(f'"{r}"' for r in requirements)
    return (
        "# On Colab, for a GPU: Runtime > Change runtime type > GPU, before running this cell.\n"
        "# It installs what Colab lacks and keeps Colab's own torch.\n"
        f"%pip install --quiet {quoted}\n"
        "import torch\n"
        "\n"
        "gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None\n"
        'print("torch", torch.__version__, f"on {gpu}" if gpu else "without a CUDA GPU")'
    )


_MODULE = re.compile(r"[A-Za-z_]\w*(\.\w+)*")


def page_requirements(source: Path, optional: Sequence[str]) -> list[str]:
    """Return the requirements among ``optional`` whose package the page uses.

    A page uses a package when it imports it or names it in a string: pages check
    for an optional package by name before they import it
    (``importlib.util.find_spec("onnx")``), and some need one only through torch
    (``torch.onnx.export`` imports ``onnxscript``), which the page then names.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    packages = {name.split(".")[0] for name in names if _MODULE.fullmatch(name)}
    # Each optional package of this site is imported under its distribution's name.
    return [r for r in optional if Requirement(r).name.lower().replace("-", "_") in packages]


def _optional_requirements(pyproject: Path) -> list[str]:
    groups = tomllib.loads(pyproject.read_text(encoding="utf-8"))["dependency-groups"]
    return [r for r in groups[_OPTIONAL_GROUP] if isinstance(r, str)]


def _install_what_each_page_needs(app: Sphinx) -> None:
    # After sphinx-gallery has written the notebooks (builder-inited, priority 500), on
    # every build: a notebook written by an earlier build gets the same first cell.
    from sphinx_gallery.utils import zip_files

    optional = _optional_requirements(Path(app.confdir, "pyproject.toml"))
    common = app.config.notebook_requirements
    for _, gallery in _gallery_folders(app):
        for notebook in sorted(Path(app.srcdir, gallery).rglob("*.ipynb")):
            source = notebook.with_suffix(".py")  # sphinx-gallery's copy of the page
            cell = install_cell([*common, *page_requirements(source, optional)])
            content = json.loads(notebook.read_text(encoding="utf-8"))
            if content["cells"][0]["source"] == [cell]:
                continue
            content["cells"][0]["source"] = [cell]
            notebook.write_text(json.dumps(content, indent=2), encoding="utf-8")
            # The page's zip download holds the notebook too, as sphinx-gallery made it.
            zip_files([source, notebook], source.with_suffix(".zip"), notebook.parent)
            logger.info("notebook %s: first cell installs what the page needs", notebook.name)
        if app.config.sphinx_gallery_conf["download_all_examples"]:
            # sphinx-gallery zipped every page (its "download all", on the gallery's front
            # page) before the cells above were set: zipped again, with them.
            from sphinx_gallery.downloads import generate_zipfiles

            generate_zipfiles(Path(app.srcdir, gallery), app.srcdir, app.config.sphinx_gallery_conf)


def install() -> None:
    """Wrap ``sphinx_gallery.gen_rst.jupyter_notebook`` once (gen_rst calls the name it imported)."""
    from sphinx_gallery import gen_rst

    if not hasattr(gen_rst.jupyter_notebook, "__wrapped_by_cheatsheet__"):
        gen_rst.jupyter_notebook = _one_run_per_page(gen_rst.jupyter_notebook)
        gen_rst.jupyter_notebook.__wrapped_by_cheatsheet__ = True  # type: ignore[attr-defined]


def setup(app: Sphinx) -> dict[str, Any]:
    import freshpage  # docs/_ext: each page runs in a process of its own

    freshpage.in_each_page(install)
    # What every notebook installs first (conf.py); pages add their optional packages.
    app.add_config_value("notebook_requirements", [], "", types=[list])
    order.connect(app, "builder-inited", _convert_text_with_pandoc)
    order.connect(app, "builder-inited", _install_what_each_page_needs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
