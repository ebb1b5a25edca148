"""Shared fixtures: faked devices, a fake clock, a Measurement factory, the built and mini sites."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch

import sitebuild  # on the path through pytest's pythonpath setting
from blockcache import EVERY_BLOCK, last_run_line
from cheatsheet import Environment, Measurement, timing
from cheatsheet._variables import read
from clockcache import EVERY_CLOCK, ClockRecord
from walkcache import EVERY_PAGE
from walkcache import last_run_line as walk_line

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"


_STARTED = time.time()
CLOCK_RECORD = SITE.parent / "clock-tests.json"
_clock_record: ClockRecord | None = None


@pytest.hookimpl(trylast=True)  # after ``-m`` has deselected what it deselects
def pytest_collection_modifyitems(config, items) -> None:
    # A clock test that passed before under the same code and inputs does not run again
    # (clockcache.py). Only in a run of one process: nox runs the clock tests so.
    global _clock_record
    clock = [item for item in items if item.get_closest_marker("clock")]
    if not clock or hasattr(config, "workerinput") or config.getoption("numprocesses", 0):
        return
    _clock_record = ClockRecord(CLOCK_RECORD)
    _, before = _clock_record.split(clock)
    if before:
        config.hook.pytest_deselected(items=before)
        items[:] = [item for item in items if item not in before]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if _clock_record is not None and item.get_closest_marker("clock"):
        _clock_record.note(item, report)
    return report


def pytest_sessionfinish(session) -> None:
    if _clock_record is not None:
        _clock_record.save()


def pytest_terminal_summary(terminalreporter) -> None:
    # The blocks tests and the site walk skip what passed before (blockcache.py,
    # walkcache.py): say how many.
    for line in (
        last_run_line(SITE.parent / "blocks-alone.json", since=_STARTED),
        last_run_line(
            SITE.parent / "blocks-fresh.json", _STARTED, "blocks fresh as forked (a sample)"
        ),
        walk_line(SITE.parent / "site-walk", since=_STARTED),
        last_run_line(CLOCK_RECORD, _STARTED, "clock tests", every=EVERY_CLOCK),
    ):
        if line:
            terminalreporter.write_line(line)


@pytest.fixture
def without_rerun_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take CHEATSHEET_EVERY_BLOCK, _PAGE and _CLOCK out of the environment, for tests of the records."""
    for name in (EVERY_BLOCK, EVERY_PAGE, EVERY_CLOCK):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_devices(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Pretend this machine has the given accelerators (and nothing else)."""

    def install(cuda: int = 0, mps: bool = False, xpu: int = 0) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
        monkeypatch.setattr(torch.xpu, "is_available", lambda: xpu > 0)
        monkeypatch.setattr(torch.xpu, "device_count", lambda: xpu)

    monkeypatch.delenv("CHEATSHEET_DEVICE", raising=False)
    install()
    return install


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site; fails, naming the fix, when it has not been built."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"no built site at {SITE}: build it first with `nox -s docs`")
    return SITE


# -- A small site built with this project's conf.py and command ----------------------


class MiniSite:
    """Lay out and build a small site with this project's configuration and command."""

    @staticmethod
    def lay_out(root: Path) -> None:
        """Copy conf.py, the build hooks, templates, static files and the helper package.

        The site's search words and probes name its entries, so the copy's files of them are empty; the
        synonyms are about words, not entries, and are copied.
        """
        shutil.copy(ROOT / "conf.py", root)
        shutil.copy(ROOT / "pyproject.toml", root)  # the notebooks' install cell reads its groups
        for folder in ("_ext", "_static", "_templates", "_inventories"):
            shutil.copytree(ROOT / "docs" / folder, root / "docs" / folder)
        (root / "docs" / "search_terms.toml").write_text("", encoding="utf-8")
        (root / "docs" / "probes.toml").write_text("", encoding="utf-8")  # probes name entries too
        shutil.copy(ROOT / "docs" / "search_synonyms.toml", root / "docs")
        package = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / "src" / "cheatsheet", root / "src" / "cheatsheet", ignore=package)

    @staticmethod
    def build(root: Path, **extra_env: str) -> subprocess.CompletedProcess[str]:
        """Build the site in ``root`` with noxfile.py's command line (and ``extra_env``).

        The mini site's copy of the helper package shadows the installed one.
        """
        command = sitebuild.sphinx_build_command(ROOT / "noxfile.py")
        env = {**os.environ, "PYTHONPATH": str(root / "src"), "MPLBACKEND": "agg", **extra_env}
        # A limit, so that a build held by something a page left fails the test instead.
        return subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, check=False, timeout=900
        )


@pytest.fixture(scope="session")
def mini_site() -> MiniSite:
    return MiniSite()


# -- The built site in a real Chromium (tests marked ``browser``) ---------------------

CHROMIUM = read("CHEATSHEET_CHROMIUM")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _browser_missing_reason() -> str | None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CHEATSHEET_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (it is in the test dependency group)"
    return None


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def browser():
    reason = _browser_missing_reason()
    if reason:
        if read("CHEATSHEET_REQUIRE_BROWSER"):
            pytest.fail(f"browser tests are required here, but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, base_url):
    context = browser.new_context()
    outside: list[str] = []

    def guard(route):
        if route.request.url.startswith(base_url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.outside_requests = outside
    yield page
    context.close()


@pytest.fixture
def measurement() -> Callable[..., Measurement]:
    """Build a Measurement from keywords; every field has a plain default."""

    def make(**fields: object) -> Measurement:
        defaults: dict[str, object] = {
            "label": "m",
            "times_s": (1e-3,) * 15,
            "calls_per_run": 10,
            "first_call_s": 0.01,
            "threads": 1,
            "device": "cpu",
            "runs_wanted": 15,
        }
        return Measurement(**{**defaults, **fields})

    return make


class FakeClock:
    """A clock that moves only when timed work says how long it took.

    ``work(cost)`` returns a function that advances the clock by ``cost``
    seconds per call; ``cost`` may be a callable for costs that change from
    call to call. ``syncs`` records the device of every synchronize the timer
    asks for, and ``events`` the order of calls ("C") and synchronizes ("S").
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.syncs: list[str] = []
        self.events: list[str] = []

    def __call__(self) -> float:
        return self.now

    def synchronize(self, device: object) -> None:
        self.syncs.append(str(device))
        self.events.append("S")

    def work(self, cost: float | Callable[[], float]) -> Callable[..., None]:
        def fn(*args: object, **kwargs: object) -> None:
            self.events.append("C")
            self.now += cost() if callable(cost) else cost

        return fn


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Replace the timer's clock and device synchronize with fakes that record what happens."""
    clock = FakeClock()
    monkeypatch.setattr(timing, "_clock", clock)
    monkeypatch.setattr(timing, "synchronize", clock.synchronize)
    return clock


@pytest.fixture
def stamp() -> Callable[..., Environment]:
    """Build an Environment from keywords; the defaults hold markup and two GPUs."""

    def make(**fields: object) -> Environment:
        defaults: dict[str, object] = {
            "cpu": "Fast <CPU> & Co",
            "logical_cores": 8,
            "torch_threads": 4,
            "gpus": ("A100 (40 GiB)", "A100 (80 GiB)"),
            "torch_version": "2.13.0",
            "cuda_version": "12.8",
            "python_version": "3.11.7",
            "os": "Linux 6.1",
            "inductor_cpp_compiler": "/usr/bin/g++",
            "date": "2026-11-23",
        }
        return Environment(**{**defaults, **fields})

    return make


@pytest.fixture
def fixed_stamp(monkeypatch: pytest.MonkeyPatch, stamp: Callable[..., Environment]) -> Environment:
    """Make ``python -m cheatsheet info`` print a known stamp and pick the CPU."""
    import cheatsheet.__main__ as cli

    known = stamp()
    monkeypatch.setattr(cli, "environment", lambda: known)
    monkeypatch.setattr(cli, "pick_device", lambda: torch.device("cpu"))
    return known


@pytest.fixture
def fake_children(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[list[tuple[list[str], dict[str, object]]], list[tuple[str, int]]]:
    """Replace the child processes of startup_cost with a record of how they were started.

    Returns ``(started, replies)``: each child started appends its command and options to
    ``started`` and answers with the next ``(stdout, returncode)`` of ``replies``.
    """
    import subprocess

    started: list[tuple[list[str], dict[str, object]]] = []
    replies: list[tuple[str, int]] = []

    def run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        started.append((command, options))
        stdout, returncode = replies.pop(0)
        return subprocess.CompletedProcess(command, returncode, stdout, "the stderr")

    monkeypatch.setattr(timing.subprocess, "run", run)
    return started, replies
