"""Build hooks of this site: a fresh start for every page, reruns, page order, the footer line."""

from __future__ import annotations

import ast
import datetime
import difflib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import logging as pylogging
import os
import queue
import random
import re
import sys
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.roles import XRefRole
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

from cheatsheet import hardware
from notebooks import text_converter

# torch, numpy and cheatsheet are imported where they are used: a rebuild in which
# no example runs then never pays the seconds that importing torch costs.

logger = logging.getLogger(__name__)

# -- A fresh start for every page ------------------------------------------------

# Config modules whose switches a page may flip (torch.compile's knobs live here).
_CONFIG_MODULES = (
    "torch._dynamo.config",
    "torch._inductor.config",
    "torch._functorch.config",
    "torch.compiler.config",
    "torch.fx.experimental._config",
)
# Namespaces a page may monkey-patch (``torch.Tensor.foo = ...``, a replaced
# ``torch.nn.functional.relu``), as (module, attribute path).
_NAMESPACES = (
    ("torch", ""),
    ("torch", "Tensor"),
    ("torch.nn.functional", ""),
    ("torch.nn", "Module"),
    ("numpy", ""),
)
_AUTOCAST_DEVICES = ("cpu", "cuda", "mps", "xpu")


def _namespace(module: str, path: str) -> Any:
    found: Any = importlib.import_module(module)
    for name in filter(None, path.split(".")):
        found = getattr(found, name)
    return found


def _flush_denormal_enabled() -> bool:
    import torch

    # torch offers no getter; with flushing on, arithmetic turns a denormal into 0.
    return (torch.tensor([1e-323], dtype=torch.float64) * 1).item() == 0.0


def _torch_switches() -> list[tuple[Callable[[], Any], Callable[[Any], Any]]]:
    """Process-wide torch settings a page can change, as (read, write) pairs, in write order."""
    import torch

    backends = torch.backends

    def attribute(owner: Any, name: str) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        return (lambda: getattr(owner, name), lambda value: setattr(owner, name, value))

    def autocast(device: str) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        def read() -> tuple[bool, Any]:
            return torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)

        def write(value: tuple[bool, Any]) -> None:
            torch.set_autocast_enabled(device, value[0])
            torch.set_autocast_dtype(device, value[1])

        return read, write

    def default_device() -> Any:
        device = torch.get_default_device()
        # "cpu" means no default set: setting it would install a torch-function
        # mode that slows every later call.
        return None if device.type == "cpu" else device

    return [
        (torch.get_default_dtype, torch.set_default_dtype),
        (default_device, torch.set_default_device),
        (torch.is_grad_enabled, torch.set_grad_enabled),
        (torch.get_num_threads, torch.set_num_threads),
        (
            lambda: (
                torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled(),
            ),
            lambda value: torch.use_deterministic_algorithms(value[0], warn_only=value[1]),
        ),
        (torch.is_warn_always_enabled, torch.set_warn_always),
        (
            lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
            lambda value: torch.set_anomaly_enabled(*value),
        ),
        (_flush_denormal_enabled, torch.set_flush_denormal),
        (torch.is_autocast_cache_enabled, torch.set_autocast_cache_enabled),
        *(autocast(device) for device in _AUTOCAST_DEVICES),
        # The legacy precision switches come before the fp32_precision ones that
        # replace them: once a page mixed the two APIs torch refuses to read them,
        # and writing all of them in this order makes them agree again.
        (torch.get_float32_matmul_precision, torch.set_float32_matmul_precision),
        attribute(backends.cudnn, "allow_tf32"),
        attribute(backends.cuda.matmul, "allow_tf32"),
        attribute(backends, "fp32_precision"),
        attribute(backends.mkldnn.matmul, "fp32_precision"),
        attribute(backends.mkldnn.conv, "fp32_precision"),
        attribute(backends.mkldnn.rnn, "fp32_precision"),
        attribute(backends.cudnn.conv, "fp32_precision"),
        attribute(backends.cudnn.rnn, "fp32_precision"),
        attribute(backends.cuda.matmul, "fp32_precision"),
        attribute(backends.mkldnn, "enabled"),
        attribute(backends.mkldnn, "deterministic"),
        attribute(backends.cudnn, "enabled"),
        attribute(backends.cudnn, "deterministic"),
        attribute(backends.cudnn, "benchmark"),
        attribute(backends.cuda.matmul, "allow_fp16_reduced_precision_reduction"),
        attribute(backends.cuda.matmul, "allow_bf16_reduced_precision_reduction"),
        (backends.cuda.flash_sdp_enabled, backends.cuda.enable_flash_sdp),
        (backends.cuda.mem_efficient_sdp_enabled, backends.cuda.enable_mem_efficient_sdp),
        (backends.cuda.math_sdp_enabled, backends.cuda.enable_math_sdp),
        (backends.cuda.cudnn_sdp_enabled, backends.cuda.enable_cudnn_sdp),
        (
            backends.cuda.fp16_bf16_reduction_math_sdp_allowed,
            backends.cuda.allow_fp16_bf16_reduction_math_sdp,
        ),
        (backends.mha.get_fastpath_enabled, backends.mha.set_fastpath_enabled),
        attribute(backends.opt_einsum, "enabled"),
        attribute(backends.quantized, "engine"),
        (torch._tensor_str.get_printoptions, lambda value: torch.set_printoptions(**value)),
    ]


@dataclass(frozen=True)
class PageState:
    """What one page can change that every later page, and the build, would inherit.

    Attributes
    ----------
    torch_switches : tuple
        The values of :func:`_torch_switches`: default dtype and device, grad mode,
        threads, determinism, anomaly mode, denormal flushing, autocast, matmul
        precision, ``torch.backends`` flags, print options.
    configs : dict
        ``get_config_copy()`` of each of ``_CONFIG_MODULES`` (dynamo, inductor, ...).
    namespaces : dict
        A copy of ``vars()`` of each of ``_NAMESPACES``, to undo monkey-patching.
    numpy_printoptions, numpy_errors : dict
        ``numpy.get_printoptions()`` and ``numpy.geterr()``.
    environ : dict
        A copy of ``os.environ``.
    warning_filters : tuple
        ``warnings.filters``.
    """

    torch_switches: tuple[Any, ...]
    configs: dict[str, dict[str, Any]]
    namespaces: dict[tuple[str, str], dict[str, Any]]
    numpy_printoptions: dict[str, Any]
    numpy_errors: dict[str, str]
    environ: dict[str, str]
    warning_filters: tuple[Any, ...]

    @classmethod
    def capture(cls) -> PageState:
        """Record the current state."""
        import numpy as np

        return cls(
            torch_switches=tuple(read() for read, _ in _torch_switches()),
            configs={
                name: importlib.import_module(name).get_config_copy() for name in _CONFIG_MODULES
            },
            namespaces={key: dict(vars(_namespace(*key))) for key in _NAMESPACES},
            numpy_printoptions=np.get_printoptions(),
            numpy_errors=np.geterr(),
            environ=dict(os.environ),
            warning_filters=tuple(warnings.filters),
        )

    def restore(self) -> None:
        """Put every recorded setting back, and undo what a page added or replaced."""
        import numpy as np

        with warnings.catch_warnings():
            # Writing a deprecated switch back must not warn into the next page.
            warnings.simplefilter("ignore")
            for (_, write), value in zip(_torch_switches(), self.torch_switches, strict=True):
                write(value)
            for name, saved in self.configs.items():
                _restore_config(importlib.import_module(name), saved)
        for key, saved in self.namespaces.items():
            _restore_namespace(_namespace(*key), saved)
        np.set_printoptions(**self.numpy_printoptions)
        np.seterr(**self.numpy_errors)
        for name in os.environ.keys() - self.environ.keys():
            del os.environ[name]
        for name, value in self.environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        # resetwarnings() also forgets which warnings were already shown once.
        warnings.resetwarnings()
        warnings.filters[:] = self.warning_filters


def _restore_config(module: Any, saved: dict[str, Any]) -> None:
    current = module.get_config_copy()
    for name, value in saved.items():
        if current.get(name) != value:
            setattr(module, name, value)


_MISSING = object()


def _restore_namespace(owner: Any, saved: dict[str, Any]) -> None:
    current = dict(vars(owner))
    for name, value in current.items():
        # A submodule imported since is bound on its parent by the import system,
        # and removing it would break ``torch._inductor.config``-style lookups.
        if name not in saved and not isinstance(value, types.ModuleType):
            delattr(owner, name)
    for name, value in saved.items():
        if current.get(name, _MISSING) is not value:
            setattr(owner, name, value)


_start: PageState | None = None


def reset_state(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """Start every example from the same state, and leave nothing behind it.

    sphinx-gallery runs all examples in one interpreter and calls this before and
    after each (``reset_modules_order = "both"``). The first call records the
    state (:class:`PageState`); every call restores it and reseeds the random
    generators, so a page that changes a setting changes neither a later page nor
    what the build itself reports afterwards (the machine stamp's thread count).
    Before a page runs, every warning that would be shown becomes an error: a
    warning the page does not catch fails the build instead of being printed
    into the page. Warnings Python hides by default (a library's own
    ``DeprecationWarning``) stay hidden, as they are for a reader.
    """
    global _start
    import numpy as np
    import torch

    if _start is None:
        _start = PageState.capture()
    _start.restore()
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    torch._dynamo.reset()
    _forget_old_main(torch)
    # A page that turned on TORCH_LOGS-style logging (recompiles, graph breaks)
    # would otherwise log into every later page.
    torch._logging.set_logs()
    # A CUDA build of torch on a machine without a GPU (this site's pinned wheel on
    # a CPU build machine) logs "No CUDA runtime is found, using CUDA_HOME=..." at
    # every C++ compile: a fact about the build machine, not about the page.
    pylogging.getLogger("torch.utils.cpp_extension").setLevel(pylogging.ERROR)
    if when == "before":
        _raise_shown_warnings()
    _keep_record(gallery_conf, fname, when)


def _forget_old_main(torch: Any) -> None:
    """Make Dynamo forget the ``__main__`` module of the page before.

    sphinx-gallery runs each page as a new ``__main__`` module. Dynamo (2.14) finds
    a module by name once and caches it (``_import_module``), and keeps an alias to
    it (``__import___main__``) in the globals of every frame it compiled, torch's
    own functions included; ``torch._dynamo.reset()`` forgets neither. The next
    page's guards would then read its globals from the old page's module
    (``AttributeError``), or Dynamo would refuse the alias (``AssertionError``).
    A reader's script or notebook has one ``__main__`` and never meets this.
    """
    import_module = getattr(torch._dynamo.symbolic_convert, "_import_module", None)
    if hasattr(import_module, "cache_clear"):
        import_module.cache_clear()
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if isinstance(namespace, dict):
            namespace.pop("__import___main__", None)


def _raise_shown_warnings() -> None:
    # Each filter that would print a warning raises it instead, and so does the
    # default action for a warning no filter matches; "ignore" filters stay.
    warnings.filters[:] = [f if f[0] == "ignore" else ("error", *f[1:]) for f in warnings.filters]
    warnings.simplefilter("error", append=True)  # also tells warnings the filters changed


# -- A record of what each page measured -----------------------------------------

RECORD_SUFFIX = ".record.json"
RECORDS_DIR = "_records"  # in the built site


def _keep_record(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    # Everything compare() and benchmark() noted while the page ran, written next
    # to the page sphinx-gallery generates, so a page that is not run again keeps
    # the record of the run whose outputs it still shows.
    from cheatsheet import environment, records

    notes = records.take()
    if when != "after" or fname is None:
        return
    source = _example_path(gallery_conf, fname)
    if source is None:
        return
    page = f"{source.parent.name}/{source.stem}"
    record = records.page_record(
        page=page,
        source=source.read_text(encoding="utf-8"),
        notes=notes,
        machine=environment().as_dict(),
        commit=_commit(source),
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    target = _gallery_root(gallery_conf) / page
    target.parent.mkdir(parents=True, exist_ok=True)
    target.with_name(source.stem + RECORD_SUFFIX).write_text(
        json.dumps(record, indent=1) + "\n", encoding="utf-8"
    )


def _examples_root(gallery_conf: dict[str, Any]) -> Path:
    dirs = gallery_conf["examples_dirs"]
    return Path(gallery_conf["src_dir"], dirs if isinstance(dirs, str) else dirs[0]).resolve()


def _gallery_root(gallery_conf: dict[str, Any]) -> Path:
    dirs = gallery_conf["gallery_dirs"]
    return Path(gallery_conf["src_dir"], dirs if isinstance(dirs, str) else dirs[0]).resolve()


def _example_path(gallery_conf: dict[str, Any], fname: str) -> Path | None:
    # sphinx-gallery passes the file name within its folder; names are unique.
    found = sorted(_examples_root(gallery_conf).glob(f"*/{Path(fname).name}"))
    return found[0] if found else None


def _commit(path: Path) -> str:
    """Return the commit, with ``-dirty`` when ``path`` has uncommitted changes."""
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=path.parent, capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD")
    if not commit:
        return "unknown"
    return commit + ("-dirty" if git("status", "--porcelain", "--", path.name) else "")


def _publish_records(app: Sphinx, exception: BaseException | None) -> None:
    """Copy the record of every page that still exists into the built site's ``_records/``."""
    if exception is not None or app.builder.format != "html":
        return
    gallery_conf = app.config.sphinx_gallery_conf
    examples, gallery = _examples_root(gallery_conf), _gallery_root(gallery_conf)
    out = Path(app.outdir, RECORDS_DIR)
    if out.exists():
        import shutil

        shutil.rmtree(out)
    for record in sorted(gallery.glob(f"*/*{RECORD_SUFFIX}")):
        stem = record.name[: -len(RECORD_SUFFIX)]
        if (examples / record.parent.name / f"{stem}.py").exists():
            (out / record.parent.name).mkdir(parents=True, exist_ok=True)
            (out / record.parent.name / f"{stem}.json").write_bytes(record.read_bytes())


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


def _version(distribution: str) -> str:
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
    return _version("torch")


# Environment variables that change what a page prints: the device choice, the threads
# torch starts with, the C++ compiler Inductor calls, the ranks a script thinks it has,
# what torch logs, the CPU kernels ATen picks, the MPS fallback; and the page filter.
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
    "CHEATSHEET_RUN_ONLY",
)
# Every TORCHINDUCTOR_* variable counts too (Inductor reads dozens of them).
PAGE_ENVIRON_PREFIXES = ("TORCHINDUCTOR_",)
# The optional packages some pages use, whose version shows in what those pages print.
OPTIONAL_PACKAGES = ("torchao", "onnx", "onnxscript", "onnxruntime")
# The build's own code that decides how a page runs and what it starts from.
BUILD_HOOKS = ("plotscraper.py", "blockexec.py", "freshpage.py", "sitebuild.py")


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
        **{name: _version(name) for name in ("numpy", "matplotlib", *OPTIONAL_PACKAGES)},
        "cpu": f"{hardware.cpu_model()} ({hardware.cpu_signature() or 'no signature'})",
        "usable cpus": str(cpus),
        **{name: os.environ.get(name, "unset") for name in (*PAGE_ENVIRON, *prefixed)},
    }


def site_url(repository_url: str) -> str:
    """Return the address the site is published at, ending in a slash.

    The deploy workflow passes GitHub Pages' address in ``CHEATSHEET_SITE_URL``
    and Read the Docs its own in ``READTHEDOCS_CANONICAL_URL``; otherwise the
    GitHub Pages address of ``repository_url`` (``https://github.com/OWNER/NAME``).
    """
    url = os.environ.get("CHEATSHEET_SITE_URL") or os.environ.get("READTHEDOCS_CANONICAL_URL")
    if not url:
        owner, name = repository_url.rstrip("/").split("/")[-2:]
        url = f"https://{owner}.github.io/{name}/"
    return url.rstrip("/") + "/"


def build_line() -> str:
    """Say when and with which torch the site was built, for the footer.

    Read without importing torch, like :func:`page_inputs`. The machine is not named
    here: pages may run on several machines, and each page that measures something
    names its own (docs/_ext/machines.py); the landing page lists them all.
    """
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    return f"Built on {today} with torch {_version('torch')}"


def _sitemap_lists_every_page(app: Sphinx, exception: BaseException | None) -> None:
    """Hand sphinx-sitemap every page of the site, not only those this build wrote.

    It collects pages as they are written, so after an incremental build its
    sitemap would list the changed pages alone. This runs just before it writes.
    """
    links = getattr(app, "sitemap_links", None)
    if exception is not None or links is None:
        return
    found: dict[str, Any] = {}
    while True:
        try:
            link, last_updated = links.get_nowait()
        except queue.Empty:
            break
        found[link] = last_updated
    for doc in app.env.found_docs:
        found.setdefault(f"{doc}.html", None)
    for link in sorted(found):
        links.put((link, found[link]))


def _rerun_pages_when_inputs_changed(app: Sphinx) -> None:
    # Runs before sphinx-gallery generates the gallery (builder-inited). Removing
    # an example's .md5 record is what makes sphinx-gallery run it again.
    gallery_conf = app.config.sphinx_gallery_conf
    if not gallery_conf["plot_gallery"]:
        return
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
            logger.info("page inputs changed (%s): running every example again", ", ".join(changed))
        for md5 in records:
            md5.unlink()
        gallery.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", encoding="utf-8")


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


# -- Page order, entry count, machine stamp -------------------------------------

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


# -- Summary links: a call in code type that jumps to its entry --------------------

# ``:entry:`torch.zeros(shape) <api-torch-zeros>``` in a page's Summary table shows
# the call as code and links it to the labelled entry that runs it. (``:ref:``
# would show it as plain text.) A label that does not exist fails the build.
ENTRY_ROLE = XRefRole(innernodeclass=nodes.literal, warn_dangling=True)


def _resolve_entry(app: Sphinx, env: Any, node: Any, contnode: nodes.Element) -> Any:
    if node.get("refdomain") != "std" or node.get("reftype") != "entry":
        return None
    std = env.get_domain("std")
    target = node["reftarget"].lower()
    if target not in std.anonlabels:
        # The build fails on this warning; the closest labels say what was meant.
        close = difflib.get_close_matches(target, list(std.anonlabels), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        logger.warning("no entry labelled %r%s", target, hint, location=node, type="entry")
        return contnode
    docname, labelid = std.anonlabels[target]
    return make_refnode(app.builder, node["refdoc"], docname, labelid, contnode)


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
    app.add_role_to_domain("std", "entry", ENTRY_ROLE)
    app.connect("missing-reference", _resolve_entry)
    # Before sphinx-gallery's own builder-inited handler (priority 500) runs the examples.
    app.connect("builder-inited", _rerun_pages_when_inputs_changed, priority=400)
    app.connect("env-get-outdated", _restamp_when_examples_ran)
    app.connect("build-finished", _sitemap_lists_every_page, priority=400)
    app.connect("build-finished", _publish_records)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
