"""Each example page runs in a process of its own, so its output never depends on the pages before it.

sphinx-gallery runs every page in the build's interpreter (with its ``parallel`` option,
in worker processes that it reuses). Some of what a page leaves behind cannot be reset
from Python: a warning torch gives once per process from C++, a module whose import had
side effects (the first forward-mode AD call scripts helpers with TorchScript, and warns,
once), Dynamo's caches keyed by module name. A page built after another would then print
something else than the page a reader runs alone. So every page that executes runs in a
child process: on Linux a fork of the build taken after torch is imported and before any
page ran, which starts where a reader's ``python page.py`` is after ``import torch`` (with
Dynamo's modules loaded too: the reset before every page reads their configs, and the
build imports them once, before the forks); on other systems a freshly spawned
interpreter (slower: it imports torch again).

What sphinx-gallery needs back from the page (titles, outcome, timing, backreferences) it
already gets as a return value, since its parallel mode needs the same; the page's files
are written by the child. Sphinx log records the child makes are replayed by the build, so
a warning still fails a strict build.

On Linux, pages that measure nothing run side by side, one per core
(``CHEATSHEET_PAGE_JOBS`` sets how many; 1 runs one page at a time): when sphinx-gallery
asks for such a page, the build forks it and the next pages of its folder that may run
beside it, and hands each its result when sphinx-gallery asks for that page. A page
*runs alone*, with nothing else running, when :func:`runs_alone` says so: it measures
time (the helper package's ``compare``, ``benchmark``, ``startup_cost``; a clock or
profiler), starts ranks (which want ports), or opts out as sphinx-gallery's own parallel
mode lets it (``# sphinx_gallery_parallel = False``). The rule reads the source, before
the page runs; the page's record checks it after: a page that ran beside another and
noted a measurement or ran a script fails the build. sphinx-gallery's own ``parallel``
option is not used: it hands pages to joblib workers that each run one page after another,
where every page here needs a process of its own, forked before any page ran.
"""

from __future__ import annotations

import atexit
import copy
import json
import logging
import os
import pickle
import re
import select
import signal
import struct
import sys
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging as sphinx_logging
from sphinx_gallery import gen_rst

import pagestate  # docs/_ext: what every page starts from, imported before the forks
import shards  # docs/_ext, beside this file: which pages are benchmark pages

_original: Callable[..., Any] = gen_rst.generate_file_rst
# Imported once in the build before the first fork, so that each page's process starts
# with them loaded, as a reader's script does after its imports: the fork costs
# milliseconds, a fresh interpreter importing torch about two seconds.
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
    pattern = os.environ.get(RUN_ONLY)
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
    started = _AHEAD.started((fname, target_dir, src_dir, gallery_conf))
    if not started and not _will_execute(fname, target_dir, src_dir, gallery_conf):
        return _original(fname, target_dir, src_dir, gallery_conf)
    if not (hasattr(os, "fork") and sys.platform == "linux"):
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            result, records = pool.submit(
                _run_page, fname, target_dir, src_dir, gallery_conf
            ).result()
    elif not started and (_jobs() == 1 or runs_alone(Path(src_dir, fname))):
        _AHEAD.finish_all()  # nothing else runs while it does
        result, records = _in_fork(fname, target_dir, src_dir, gallery_conf)
    else:
        upcoming = [
            (name, target_dir, src_dir, conf)
            for name in sorted(gen_rst._collect_gallery_files([src_dir], gallery_conf))
            if name != fname
            for conf in [_run_only(gallery_conf, Path(src_dir, name))]
            if _will_execute(name, target_dir, src_dir, conf)
            and not runs_alone(Path(src_dir, name))
        ]
        result, records = _AHEAD.result((fname, target_dir, src_dir, gallery_conf), upcoming)
        _check_measured_nothing(fname, target_dir)
    for record in records:
        logging.getLogger(record.name).handle(record)
    return result


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
    value = os.environ.get(JOBS, "").strip()
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


def _run_page(*args: Any) -> tuple[Any, list[logging.LogRecord]]:
    """Run one page here and return its result and the Sphinx log records it made."""
    with sphinx_logging.pending_logging() as memory:
        result = _original(*args)
        records = memory.clear()
    for record in records:  # made picklable: the message formatted, its arguments dropped
        record.msg, record.args, record.exc_info = record.getMessage(), None, None
    return result, records


def _preload() -> None:
    import importlib

    os.environ.setdefault("MPLBACKEND", "agg")
    for name in _PRELOAD:
        importlib.import_module(name)
    # What the reset before every page imports (Dynamo, the compiler's configs): once
    # here, not once per page. Each page had them loaded before its code ran already.
    pagestate.preload()


def _in_fork(*args: Any) -> tuple[Any, list[logging.LogRecord]]:
    child = _Child.start(args)
    while not child.poll(None):
        pass
    return child.value()


class _Child:
    """A page running in a fork of the build, and what it has sent back so far."""

    def __init__(self, name: str, pid: int, pipe: int) -> None:
        self.name, self.pid, self.pipe = name, pid, pipe
        self.data = bytearray()
        self.status: int | None = None

    @classmethod
    def start(cls, args: tuple[Any, ...]) -> _Child:
        _preload()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the page's process
            os.close(read_end)
            try:
                payload = pickle.dumps(("done", _run_page(*args)))
            except BaseException:  # noqa: BLE001 - whatever the page raised goes back
                payload = pickle.dumps(("raised", traceback.format_exc()))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(struct.pack("<Q", len(payload)) + payload)
            os._exit(0)  # no atexit handlers, no flushing of the build's own buffers
        os.close(write_end)
        return cls(args[0], pid, read_end)

    def poll(self, timeout: float | None) -> bool:
        """Read what the page sent, waiting up to ``timeout`` s; whether it has ended."""
        if self.status is None and select.select([self.pipe], [], [], timeout)[0]:
            chunk = os.read(self.pipe, 1 << 20)
            if chunk:
                self.data += chunk
            else:  # the page closed its end: it is done, or dead
                os.close(self.pipe)
                self.status = os.waitpid(self.pid, 0)[1]
        return self.status is not None

    def value(self) -> tuple[Any, list[logging.LogRecord]]:
        head = bytes(self.data[:8])
        size = struct.unpack("<Q", head)[0] if len(head) == 8 else 0
        payload = self.data[8 : 8 + size]
        if not size or len(payload) < size:  # nothing, or cut off: the process died
            raise RuntimeError(
                f"the process that ran {self.name} ended ({_describe(self.status)}) before "
                "it returned: the page crashed the interpreter"
            )
        kind, value = pickle.loads(payload)
        if kind == "raised":
            raise RuntimeError(f"running {self.name} in its own process raised:\n{value}")
        return value

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.close(self.pipe)
            self.status = os.waitpid(self.pid, 0)[1]


class _Ahead:
    """Pages started before their turn, at most ``_jobs()`` running at once."""

    def __init__(self) -> None:
        self.running: dict[str, _Child] = {}
        self.ended: dict[str, _Child] = {}

    def result(
        self, args: tuple[Any, ...], upcoming: list[tuple[Any, ...]]
    ) -> tuple[Any, list[logging.LogRecord]]:
        """Run the page ``args`` names, and meanwhile the ``upcoming`` ones, to fill the cores."""
        key = _key(args)
        waiting = [a for a in upcoming if _key(a) not in self.running and _key(a) not in self.ended]
        if key not in self.running and key not in self.ended:
            waiting.insert(0, args)
        while key not in self.ended:
            while waiting and len(self.running) < _jobs():
                nxt = waiting.pop(0)
                self.running[_key(nxt)] = _Child.start(nxt)
            self._wait_any()
        return self.ended.pop(key).value()

    def started(self, args: tuple[Any, ...]) -> bool:
        """Whether the page ``args`` names was started before its turn (and may have ended)."""
        return _key(args) in self.running or _key(args) in self.ended

    def finish_all(self) -> None:
        """Let every page started ahead end; their results wait for their turn."""
        while self.running:
            self._wait_any()

    def _wait_any(self) -> None:
        pipes = {child.pipe: key for key, child in self.running.items()}
        for pipe in select.select(list(pipes), [], [])[0]:
            key = pipes[pipe]
            if self.running[key].poll(0):
                self.ended[key] = self.running.pop(key)

    def kill_all(self) -> None:
        for child in self.running.values():
            child.kill()
        self.running.clear()


def _key(args: tuple[Any, ...]) -> str:
    return os.path.join(args[2], args[0])  # src_dir/fname


_AHEAD = _Ahead()
atexit.register(_AHEAD.kill_all)  # a build that stops early leaves no page running


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        import signal

        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def setup(app: Sphinx) -> dict[str, Any]:
    # sphinx-gallery calls gen_rst.generate_file_rst through its module, serially and from
    # its parallel workers alike: replacing it there is the one way in.
    gen_rst.generate_file_rst = generate_file_rst
    return {"parallel_read_safe": True, "parallel_write_safe": True}
