"""Run every page again when something every page depends on changed.

sphinx-gallery reruns a page when its file changed (its ``.md5``). What else decides
a page's output (the helper package, the build hooks, torch and the other versions,
the CPU, the environment variables that change what torch does) is written to
``docs/gallery/page_inputs.json``; when it differs from this build's, every page's
``.md5`` goes and every page runs again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

import order  # docs/_ext: where each hook runs among the libraries' handlers
from cheatsheet import hardware
from cheatsheet._variables import read
from notebooks import text_converter

logger = logging.getLogger(__name__)

# -- Reruns when what every page depends on changes -------------------------------

# sphinx-gallery re-runs a page only when the page's own file changed. These are
# the inputs every page's output depends on besides its file.
_HELPER_PACKAGE = "cheatsheet"
_INPUTS_FILE = "page_inputs.json"


def _source_digest(package: str) -> str:
    # find_spec locates the copy the pages will import without importing it (and torch).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return "not installed"
    digest = hashlib.sha256()
    for folder in spec.submodule_search_locations:
        for path in sorted(Path(folder).rglob("*.py")):
            digest.update(path.relative_to(folder).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def distribution_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def torch_version() -> str:
    """``torch.__version__`` without importing torch: the build's local tag included.

    The wheel's metadata can leave the tag out (PyPI's CUDA 13.0 wheel of 2.14.1
    says ``2.14.1``, its ``torch.__version__`` ``2.14.1+cu130``), and builds for
    different CUDA versions make different pages.
    """
    spec = importlib.util.find_spec("torch")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        version_py = Path(folder) / "version.py"
        if version_py.exists():
            found = re.search(
                r"^__version__\s*=\s*['\"]([^'\"]+)", version_py.read_text(), re.MULTILINE
            )
            if found:
                return found.group(1)
    return distribution_version("torch")


# Environment variables that change what a page prints: the device choice, the threads
# torch starts with, the C++ compiler Inductor calls, the ranks a script thinks it has,
# what torch logs, the CPU kernels ATen picks, the MPS fallback. (Not CHEATSHEET_RUN_ONLY:
# which pages run does not change what a page prints, each in a process of its own.)
PAGE_ENVIRON = (
    "CHEATSHEET_DEVICE",
    "CUDA_VISIBLE_DEVICES",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "CXX",
    "WORLD_SIZE",
    "TORCH_LOGS",
    "ATEN_CPU_CAPABILITY",
    "PYTORCH_ENABLE_MPS_FALLBACK",
)
# Every TORCHINDUCTOR_* variable counts too (Inductor reads dozens of them).
PAGE_ENVIRON_PREFIXES = ("TORCHINDUCTOR_",)
# The optional packages some pages use, whose version shows in what those pages print.
OPTIONAL_PACKAGES = ("torchao", "onnx", "onnxscript", "onnxruntime")
# The build's own code that decides how a page runs and what it starts from.
BUILD_HOOKS = ("plotscraper.py", "blockexec.py", "freshpage.py", "pagestate.py", "pagerecords.py")


def page_inputs() -> dict[str, str]:
    """Describe what every page's output depends on besides the page's own file.

    Returns
    -------
    dict of str to str
        The source digests of the helper package and of the build hooks that run the
        pages (:data:`BUILD_HOOKS`: the plot scraper, the block runner, the fresh process
        per page and this module's resets), the versions of Python, torch, NumPy,
        matplotlib and the optional packages, the CPU (model and signature, so a page
        measured on one CPU is never shown as another's), the usable CPUs, and the
        environment variables of :data:`PAGE_ENVIRON` and :data:`PAGE_ENVIRON_PREFIXES`.
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    def digest(name: str) -> str:
        hook = Path(__file__).with_name(name)
        return hashlib.sha256(hook.read_bytes()).hexdigest() if hook.exists() else "none"

    prefixed = sorted(n for n in os.environ if n.startswith(PAGE_ENVIRON_PREFIXES))
    return {
        f"{_HELPER_PACKAGE} source": _source_digest(_HELPER_PACKAGE),
        **{f"build hook {name}": digest(name) for name in BUILD_HOOKS},
        "python": sys.version,
        "torch": torch_version(),
        **{
            name: distribution_version(name) for name in ("numpy", "matplotlib", *OPTIONAL_PACKAGES)
        },
        "cpu": f"{hardware.cpu_model()} ({hardware.cpu_signature() or 'no signature'})",
        "usable cpus": str(cpus),
        **{name: os.environ.get(name, "unset") for name in (*PAGE_ENVIRON, *prefixed)},
    }


def _rerun_pages_when_inputs_changed(app: Sphinx) -> None:
    # Runs before sphinx-gallery generates the gallery (builder-inited). Removing
    # an example's .md5 record is what makes sphinx-gallery run it again.
    gallery_conf = app.config.sphinx_gallery_conf
    if not gallery_conf["plot_gallery"] or read("CHEATSHEET_MERGE"):
        return  # in a merge of shards, each page's own machine decided its inputs
    # The notebooks are written when a page runs, so what converts their text is an input
    # too. Their first cell is not: notebooks.py rewrites it in every build.
    current = {**page_inputs(), "notebook text": text_converter(gallery_conf)}
    dirs = gallery_conf["gallery_dirs"]
    for gallery in [Path(app.srcdir, d) for d in ([dirs] if isinstance(dirs, str) else dirs)]:
        record = gallery / _INPUTS_FILE
        try:
            stored = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        if stored == current:
            continue
        changed = sorted(
            k for k in current.keys() | stored.keys() if current.get(k) != stored.get(k)
        )
        records = [
            md5
            for md5 in gallery.rglob("*.md5")
            if Path(md5.stem).suffix in gallery_conf["example_extensions"]
        ]
        if records:
            left_out = (
                "; CHEATSHEET_RUN_ONLY runs only its pages, so the others show without "
                "output until a build runs them"
                if read("CHEATSHEET_RUN_ONLY")
                else ""
            )
            logger.info("page inputs changed (%s): every example must run again%s",
                        ", ".join(changed), left_out)  # fmt: skip
        for md5 in records:
            md5.unlink()
        gallery.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    order.connect(app, "builder-inited", _rerun_pages_when_inputs_changed)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
