"""Each example page runs in a process of its own, with a time limit, so its output never depends on the pages before it.

sphinx-gallery runs every page in the build's interpreter (with its ``parallel`` option,
in worker processes that it reuses). Some of what a page leaves behind cannot be reset
from Python: a warning torch gives once per process from C++, a module whose import had
side effects (the first forward-mode AD call scripts helpers with TorchScript, and warns,
once), Dynamo's caches keyed by module name. A page built after another would then print
something else than the page a reader runs alone. So every page that executes runs in a
process of its own, from the standard library's pieces: a ``ProcessPoolExecutor`` of one
worker, a fork of the build taken after torch is imported and before any page ran, so
the page starts where a reader's ``python page.py`` is after ``import torch``. On other
systems, a freshly spawned interpreter (slower: it imports torch again). A fork server
would start each page from less of the build, but the build's hooks decide per build
what a page's blocks do (torchrun scripts, the blocks an older torch holds back), and a
fork carries that over where a fresh process would not.

Every page has a time limit (``CHEATSHEET_PAGE_TIMEOUT_S``, 30 minutes by default): a
page past it fails the build, naming itself and the limit. The page's worker leads a
process group of its own, and the group is killed when the page ends or runs out of
time, so a ``multiprocessing`` worker or a ``Popen`` child it left cannot hold the build.

What sphinx-gallery needs back from the page (titles, outcome, timing, backreferences) it
already gets as a return value, since its parallel mode needs the same; the page's files
are written by the child. Sphinx log records the child makes are replayed by the build, so
a warning still fails a strict build.

Pages that measure nothing run side by side, one per core (``CHEATSHEET_PAGE_JOBS`` sets
how many; 1 runs one page at a time): when sphinx-gallery asks for such a page, the build
starts it and the next pages of its folder that may run beside it, and hands each its
result when sphinx-gallery asks for that page. A page *runs alone*, with nothing else
running, when :func:`runs_alone` says so: it measures time (the helper package's
``compare``, ``benchmark``, ``startup_cost``; a clock or profiler), starts ranks (which
want ports), or opts out as sphinx-gallery's own parallel mode lets it
(``# sphinx_gallery_parallel = False``). The rule reads the source, before the page runs;
the page's record checks it after: a page that ran beside another and noted a measurement
or ran a script fails the build. sphinx-gallery's own ``parallel`` option is not used: it
hands pages to joblib workers that each run one page after another, where every page here
needs a process of its own, and it has no time limit.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import functools
import importlib
import inspect
import json
import logging
import multiprocessing
import os
import re
import signal
import sys
import time
import traceback
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures import TimeoutError as FuturesTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging as sphinx_logging
from sphinx_gallery import gen_rst

import shards  # docs/_ext, beside this file: which pages are benchmark pages
from cheatsheet._variables import read

_original: Callable[..., Any] = gen_rst.generate_file_rst
# Imported once in the build before the first page, so that each page's process starts
# with them loaded, as a reader's script does after its imports.
_PRELOAD = ("torch", "numpy", "matplotlib.pyplot")


# CHEATSHEET_RUN_ONLY=<regex of paths> runs only the pages it matches (`nox -s docs --
# <page>.py`, a shard, the benchmark pages). It is applied here, page by page, and not as
# sphinx-gallery's filename_pattern: a change of that setting is a change of Sphinx's
# configuration, which reads and writes every document again. A page it leaves out keeps
# what its last run left when that run is of its current source (its .md5 matches); one
# that never ran, or changed since, shows without output and gets no .md5, so the next
# build runs it. Each page runs in a process of its own, so which pages ran beside it
# does not change what it prints, and a page kept from an earlier build is what it would
# print now.
RUN_ONLY = "CHEATSHEET_RUN_ONLY"


def _run_only(gallery_conf: dict[str, Any], source: Path) -> dict[str, Any]:
    """``gallery_conf``, or a copy that does not run ``source`` when CHEATSHEET_RUN_ONLY leaves it out."""
    pattern = read(RUN_ONLY)
    if not pattern or re.search(pattern, str(source)):
        return gallery_conf
    left_out = copy.copy(gallery_conf)
    left_out["filename_pattern"] = r"(?!)"
    return left_out


def _will_execute(fname: str, target_dir: str, src_dir: str, gallery_conf: dict[str, Any]) -> bool:
    """Whether sphinx-gallery is about to run the page (its md5 record is missing or old)."""
    source = Path(src_dir, fname)
    if not gallery_conf["plot_gallery"] or not gen_rst.executable_script(source, gallery_conf):
        return False
    record = Path(target_dir, fname + ".md5")
    try:
        return record.read_text().strip() != gen_rst.get_md5sum(source, mode="t")
    except OSError:
        return True


def generate_file_rst(
    fname: str, target_dir: str, src_dir: str, gallery_conf: dict[str, Any]
) -> tuple[Any, ...]:
    """sphinx-gallery's ``generate_file_rst``, in a process of its own when the page runs."""
    gallery_conf = _run_only(gallery_conf, Path(src_dir, fname))
    args = (fname, target_dir, src_dir, gallery_conf)
    started = _AHEAD.started(args)
    if not started and not _will_execute(fname, target_dir, src_dir, gallery_conf):
        return _original(*args)
    if not started and (_jobs() == 1 or runs_alone(Path(src_dir, fname))):
        _AHEAD.finish_all()  # nothing else runs while it does
        result, records = _AHEAD.result(args, [])
    else:
        upcoming = [
            (name, target_dir, src_dir, conf)
            for name in _gallery_files(src_dir, gallery_conf)
            if name != fname
            for conf in [_run_only(gallery_conf, Path(src_dir, name))]
            if _will_execute(name, target_dir, src_dir, conf)
            and not runs_alone(Path(src_dir, name))
        ]
        result, records = _AHEAD.result(args, upcoming)
        _check_measured_nothing(fname, target_dir)
    for record in records:
        logging.getLogger(record.name).handle(record)
    return result


def _gallery_files(src_dir: str, gallery_conf: dict[str, Any]) -> list[str]:
    """Return the pages of ``src_dir`` that sphinx-gallery will ask for, to start them ahead.

    sphinx-gallery has no public list of them; without its private helper (a later
    release may rename it) no page is started ahead, and pages run one at a time.
    """
    collect = getattr(gen_rst, "_collect_gallery_files", None)
    return sorted(collect([src_dir], gallery_conf)) if collect else []


# -- Which pages run alone -------------------------------------------------------------

JOBS = "CHEATSHEET_PAGE_JOBS"
# What a page calls that makes its output depend on the machine being otherwise idle, or
# that holds what another page would want at the same time (a rank's port). A page that
# starts a plain Python process (to show an error as a script prints it) may run beside
# others: what it prints does not depend on how fast it runs.
_ALONE = re.compile(
    rf"{shards.MEASURES.pattern}"  # the helper package measures: a benchmark page
    rf"|{shards.CLOCKS.pattern}"  # a clock or a profiler: its table is times
    r"|torchrun|torch\.distributed\.run|init_process_group|\bspawn\("  # ranks and ports
)


def runs_alone(source: Path) -> bool:
    """Whether the page at ``source`` must run with no other page beside it (see above)."""
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    text = source.read_text(encoding="utf-8")
    file_conf = split_code_and_text_blocks(str(source))[0]
    return file_conf.get("parallel", True) is False or _ALONE.search(text) is not None


def _jobs() -> int:
    value = read(JOBS)
    if not value:
        return len(os.sched_getaffinity(0))
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{JOBS}={value!r}: give the number of pages to run at once, 1 or more")
    return int(value)


def _check_measured_nothing(fname: str, target_dir: str) -> None:
    """Fail a page that ran beside others and still measured something, or ran a script."""
    record = Path(target_dir, Path(fname).stem + ".record.json")
    if not record.exists():
        return
    data = json.loads(record.read_text(encoding="utf-8"))
    noted = [k for k in ("comparisons", "measurements", "scripts") if data.get(k)]
    if noted:
        raise RuntimeError(
            f"{fname} ran beside other pages, yet its record holds {' and '.join(noted)}: "
            "its figures are not of an idle machine. Name what it calls in freshpage._ALONE, "
            "or add the line `# sphinx_gallery_parallel = False` to the page."
        )


# What the build's hooks change in sphinx-gallery's modules (blockexec wraps how a block
# runs, notebooks how a notebook is written), by name: a fork of the build has them, and
# a spawned interpreter (no fork on its system) makes them again before the page.
_IN_EACH_PAGE: list[str] = []


def in_each_page(installer: Callable[[], None]) -> None:
    """Run ``installer`` now, in the build, and in each page's process before the page.

    ``installer`` is a module-level function of a build hook that changes a function of
    sphinx-gallery's; it must do nothing the second time it runs.
    """
    installer()
    name = f"{installer.__module__}:{installer.__qualname__}"
    if name not in _IN_EACH_PAGE:
        _IN_EACH_PAGE.append(name)


def _run_page(installers: tuple[str, ...], *args: Any) -> tuple[str, Any]:
    """Run one page here; return ``("done", (result, log records))`` or ``("raised", traceback)``."""
    logging.getLogger("sphinx").setLevel(logging.DEBUG)  # as the build's own logger is set
    for name in installers:
        module, _, function = name.partition(":")
        getattr(importlib.import_module(module), function)()
    # A reader's `python page.py` starts its processes (a DataLoader's workers) by the
    # platform's default; a spawned or forked worker may have been told another.
    multiprocessing.set_start_method(None, force=True)
    try:
        with sphinx_logging.pending_logging() as memory:
            result = _original(*args)
            records = memory.clear()
    except BaseException:  # noqa: BLE001 - whatever the page raised goes back, as text
        return "raised", traceback.format_exc()
    for record in records:  # made picklable: the message formatted, its arguments dropped
        record.msg, record.args, record.exc_info = record.getMessage(), None, None
    return "done", (result, records)


# -- One page, one process -------------------------------------------------------------

TIMEOUT = "CHEATSHEET_PAGE_TIMEOUT_S"  # 1800 s unset: the slowest page takes 4 to 5 minutes here


def _timeout_s() -> float:
    value = read(TIMEOUT)
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not (seconds > 0 and seconds < float("inf")):
        raise ValueError(f"{TIMEOUT}={value!r}: give the seconds a page may run, such as 1800")
    return seconds


@functools.cache
def _context() -> BaseContext:
    """Where each page's process comes from: a fork of the build, once torch is imported.

    The build imports torch, NumPy and matplotlib once, before the first page; each
    page's worker is a fork of the build taken when the page starts, so it starts with
    them loaded, as a reader's script is after its imports
    (a fork costs milliseconds, a fresh interpreter importing torch about two seconds),
    and with what the build's hooks changed in sphinx-gallery (``in_each_page``) and
    decided for this torch (``since.py``'s policy for an older one). No page ran in the
    build itself, so no page's state reaches another. Where there is no fork (Windows,
    macOS's default), each page spawns a fresh interpreter, slower by the imports.
    """
    os.environ.setdefault("MPLBACKEND", "agg")
    if "fork" not in multiprocessing.get_all_start_methods() or sys.platform != "linux":
        return multiprocessing.get_context("spawn")
    for name in _PRELOAD:
        importlib.import_module(name)
    return multiprocessing.get_context("fork")


class _Page:
    """A page running in a process of its own, in a process group of its own.

    A pool of one worker (the standard library's, which sends the result back and
    notices a worker that died) runs the page; the worker leads a new process group, so
    that when the page ends, or runs past its limit, everything it started (a
    ``multiprocessing`` worker, a ``Popen`` child) is killed with it, and nothing the
    page left can hold the build.
    """

    def __init__(self, args: tuple[Any, ...], limit_s: float) -> None:
        self.name, self.limit_s = args[0], limit_s
        self.pool = ProcessPoolExecutor(1, mp_context=_context(), initializer=os.setpgrp)
        self.group = self.pool.submit(os.getpid).result()  # the worker: its group's leader
        # Its exit status, to name a crash, is only on the pool's private process table;
        # without one (another Python) the message names no status.
        self.worker = next(iter((getattr(self.pool, "_processes", None) or {}).values()), None)
        self.deadline = time.monotonic() + limit_s
        self.future = self.pool.submit(_run_page, tuple(_IN_EACH_PAGE), *args)

    def overdue(self) -> bool:
        return not self.future.done() and time.monotonic() > self.deadline

    def value(self) -> tuple[Any, list[logging.LogRecord]]:
        """Return the page's result once it has ended; its process group is killed first."""
        try:
            kind, value = self.future.result(timeout=max(0.0, self.deadline - time.monotonic()))
        except FuturesTimeout:
            self.stop()
            raise self.past_its_limit() from None
        except BrokenProcessPool:
            self.stop()  # the pool has reaped its worker once it has shut down
            raise RuntimeError(
                f"the process that ran {self.name} ended ({self._status()}) before it "
                "returned: the page crashed the interpreter"
            ) from None
        finally:
            self.stop()
        if kind == "raised":
            raise RuntimeError(f"running {self.name} in its own process raised:\n{value}")
        return value

    def past_its_limit(self) -> RuntimeError:
        return RuntimeError(
            f"{self.name} ran past its limit of {self.limit_s:.0f} s and was stopped, with "
            f"every process it started. Find what it waits for, or raise the limit "
            f"({TIMEOUT}=seconds)"
        )

    def _status(self) -> str:
        code = getattr(self.worker, "exitcode", None)
        if code is not None and code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exit status {code}"

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):  # the group is gone already
            os.killpg(self.group, signal.SIGKILL)
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Ahead:
    """Pages started before their turn, at most ``_jobs()`` running at once."""

    def __init__(self) -> None:
        self.running: dict[str, _Page] = {}

    def result(
        self, args: tuple[Any, ...], upcoming: list[tuple[Any, ...]]
    ) -> tuple[Any, list[logging.LogRecord]]:
        """Run the page ``args`` names, and meanwhile the ``upcoming`` ones, to fill the cores."""
        key = _key(args)
        waiting = [a for a in upcoming if _key(a) not in self.running]
        if key not in self.running:
            waiting.insert(0, args)
        while key not in self.running or not self.running[key].future.done():
            while waiting and self._busy() < _jobs():
                nxt = waiting.pop(0)
                self.running[_key(nxt)] = _Page(nxt, _timeout_s())
            self._wait_any()
        return self.running.pop(key).value()

    def _busy(self) -> int:
        return sum(not page.future.done() for page in self.running.values())

    def started(self, args: tuple[Any, ...]) -> bool:
        """Whether the page ``args`` names was started before its turn (and may have ended)."""
        return _key(args) in self.running

    def finish_all(self) -> None:
        """Let every page started ahead end; their results wait for their turn."""
        while any(not page.future.done() for page in self.running.values()):
            self._wait_any()

    def _wait_any(self) -> None:
        """Wait until a running page ends, or one runs past its limit (which fails the build)."""
        pending = {page.future: page for page in self.running.values() if not page.future.done()}
        if not pending:
            return
        soonest = min(page.deadline for page in pending.values())
        wait(pending, timeout=max(0.0, soonest - time.monotonic()), return_when=FIRST_COMPLETED)
        for page in pending.values():
            if page.future.done():
                page.stop()  # what it left running goes now, not when its turn comes
            elif page.overdue():
                self.kill_all()
                raise page.past_its_limit()

    def kill_all(self) -> None:
        for page in self.running.values():
            page.stop()


def _key(args: tuple[Any, ...]) -> str:
    return os.path.join(args[2], args[0])  # src_dir/fname


_AHEAD = _Ahead()
atexit.register(_AHEAD.kill_all)  # a build that stops early leaves no page running


def setup(app: Sphinx) -> dict[str, Any]:
    # sphinx-gallery calls gen_rst.generate_file_rst through its module, serially and from
    # its parallel workers alike: replacing it there is the one way in. A release that
    # changed the function's arguments would be called wrongly, so that stops the build.
    wanted = ["fname", "target_dir", "src_dir", "gallery_conf"]
    if list(inspect.signature(_original).parameters) != wanted:
        raise RuntimeError(
            "sphinx_gallery.gen_rst.generate_file_rst no longer takes "
            f"({', '.join(wanted)}): docs/_ext/freshpage.py needs updating for this "
            "sphinx-gallery"
        )
    gen_rst.generate_file_rst = generate_file_rst
    return {"parallel_read_safe": True, "parallel_write_safe": True}
