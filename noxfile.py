"""The project's verbs: ``nox -s docs``, ``tests``, ``lint``, ``docs-live``, and the benchmarks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nox

ROOT = Path(__file__).parent
BUILD = ROOT / "_build" / "html"
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
# Every session installs from this file, so torch is the 2.13.0 CPU build, not a
# multi-gigabyte CUDA download, and every run sees the same versions.
CONSTRAINTS = ("-c", str(ROOT / "constraints.txt"))
SPHINX_BUILD = ("sphinx-build", "-c", ".", "-W", "--keep-going", "-n", "-b", "html")

nox.needs_version = ">=2024.10"
nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["docs", "tests"]


def _install(session: nox.Session, *groups: str) -> None:
    deps = [dep for group in groups for dep in nox.project.dependency_groups(PYPROJECT, group)]
    session.install(*CONSTRAINTS, "-e", ".", *deps)


def _build_site(session: nox.Session, *extra: str) -> None:
    session.run(*SPHINX_BUILD, *extra, "docs", str(BUILD), env={"MPLBACKEND": "agg"})


@nox.session
def docs(session: nox.Session) -> None:
    """Build the whole site, every example executed, into _build/html/."""
    _install(session, "docs")
    if "--clean" in session.posargs:
        shutil.rmtree(ROOT / "_build", ignore_errors=True)
        shutil.rmtree(ROOT / "docs" / "gallery", ignore_errors=True)
    _build_site(session)
    session.log(f"Site built: open {(BUILD / 'index.html').as_uri()}")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the whole test suite (unit tests, page snippets, the built site)."""
    _install(session, "docs", "test")
    if not (BUILD / "index.html").exists():
        session.log("No built site yet: building it first (nox -s docs does the same).")
        _build_site(session)
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check code style (ruff) and the reStructuredText/Markdown pages (sphinx-lint)."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run(
        "sphinx-lint",
        "--ignore",
        "docs/gallery",
        "docs",
        "examples",
        "README.md",
        "CONTRIBUTING.md",
    )


@nox.session(name="docs-live")
def docs_live(session: nox.Session) -> None:
    """Serve the site and rebuild it as pages, examples or the package change."""
    _install(session, "docs-live")
    session.run(
        "sphinx-autobuild",
        "-c",
        ".",
        "docs",
        str(BUILD),
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
        *session.posargs,
    )


@nox.session
def timingperf(session: nox.Session) -> None:
    """Measure cheatsheet.benchmark against torch.utils.benchmark, and its run-to-run noise."""
    _install(session)
    session.run("python", "benchmarks/timing_accuracy.py", *session.posargs)


@nox.session
def verdicts(session: nox.Session) -> None:
    """Run every benchmark page three times and print its verdicts side by side; fail on a flip."""
    _install(session)
    session.run("python", "benchmarks/verdict_stability.py", *session.posargs)


@nox.session
def buildperf(session: nox.Session) -> None:
    """Time a cold build, a rebuild with nothing changed, and one after touching an example."""
    _install(session, "docs")
    session.run("python", "benchmarks/build_speed.py", *session.posargs)


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
