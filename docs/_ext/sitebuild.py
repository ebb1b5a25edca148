"""Build hooks of this site: per-example state reset, page order, the build-machine stamp."""

from __future__ import annotations

import ast
import os
import random
import re
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

# torch, numpy and cheatsheet are imported where they are used: a rebuild in which
# no example runs then never pays the seconds that importing torch costs.
_default_threads: int | None = None


def reset_state(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """Give every example the same fresh start: seeds, default device and dtype, caches.

    sphinx-gallery runs all examples in one interpreter; without this, a page
    that sets a default device or compiles a function would change the output
    of the pages after it. The thread count is restored to what it was before
    the first page ran.
    """
    global _default_threads
    import numpy as np
    import torch

    if _default_threads is None:
        _default_threads = torch.get_num_threads()
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    torch.set_default_device(None)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.use_deterministic_algorithms(False)
    torch.set_num_threads(_default_threads)
    torch.set_printoptions(profile="default")
    torch.set_float32_matmul_precision("highest")
    torch._dynamo.reset()
    # A page that turned on TORCH_LOGS-style logging (recompiles, graph breaks)
    # would otherwise log into every later page.
    torch._logging.set_logs()


# -- The build command --------------------------------------------------------------


def sphinx_build_command(noxfile: str | os.PathLike[str]) -> list[str]:
    """Return the site's sphinx-build command line, run by this Python.

    noxfile.py writes it once, as the literal tuple ``SPHINX_BUILD``. Tests and
    benchmarks read it from there, because importing noxfile.py needs nox.

    Parameters
    ----------
    noxfile : path
        The project's ``noxfile.py``.

    Returns
    -------
    list of str
        ``[sys.executable, "-m", "sphinx", ...]`` with the flags, source and output
        folders of ``SPHINX_BUILD``, relative to the project root.
    """
    tree = ast.parse(Path(noxfile).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "SPHINX_BUILD"
        ]:
            _, *args = ast.literal_eval(node.value)
            return [sys.executable, "-m", "sphinx", *args]
    raise LookupError(f"{noxfile} defines no SPHINX_BUILD tuple")


_API_LABEL = re.compile(r"^# \.\. _api-[\w-]+:$", re.MULTILINE)


def count_api_entries(examples: str | os.PathLike[str]) -> int:
    """Count the API reference entries: cells labelled ``api-...`` in ``examples/reference_*``."""
    pages = sorted(Path(examples).glob("reference_*/*.py"))
    return sum(len(_API_LABEL.findall(p.read_text(encoding="utf-8"))) for p in pages)


class HeaderOrder:
    """Order examples as their folder's ``GALLERY_HEADER.rst`` first links them.

    The header of each topic links its pages in reading order
    (``:ref:`sphx_glr_gallery_<folder>_<name>.py```), so that list is the one
    place the order is written. Pages it does not link follow, alphabetically.
    """

    def __init__(self, src_dir: str | os.PathLike[str]) -> None:
        self.src_dir = Path(src_dir)

    def __call__(self, filename: str) -> tuple[int, str]:
        header = self.src_dir / "GALLERY_HEADER.rst"
        text = header.read_text(encoding="utf-8") if header.exists() else ""
        stem = Path(filename).stem
        ref = rf"sphx_glr_\w*?_{re.escape(self.src_dir.name)}_{re.escape(stem)}\.py"
        found = re.search(ref, text)
        return (found.start() if found else len(text) + 1, stem)

    def __repr__(self) -> str:  # sphinx-gallery hashes the repr into its cache key
        return f"HeaderOrder({self.src_dir.name!r})"


class BuildStampDirective(SphinxDirective):
    """``.. build-stamp::`` renders :func:`cheatsheet.environment` as a table."""

    def run(self) -> list[nodes.Node]:
        from cheatsheet import environment

        return [nodes.raw("", environment()._repr_html_(), format="html")]


def _restamp_when_examples_ran(
    app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # The stamp names the machine that produced the outputs on the site. When
    # this build ran examples, it produced outputs, so the stamped pages are read
    # again even if their source did not change; when nothing ran, the stamp of
    # the build that did run them stays true.
    gallery = app.config.sphinx_gallery_conf
    if not (gallery.get("passing_examples") or gallery.get("failing_examples")):
        return []
    return [doc for doc in app.config.stamp_pages if doc in env.found_docs]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("stamp_pages", [], "env")
    app.add_directive("build-stamp", BuildStampDirective)
    app.connect("env-get-outdated", _restamp_when_examples_ran)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
