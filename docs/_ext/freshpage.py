"""Each example page runs in a process of its own, so its output never depends on the pages before it.

sphinx-gallery runs every page in the build's interpreter (with its ``parallel`` option,
in worker processes that it reuses). Some of what a page leaves behind cannot be reset
from Python: a warning torch gives once per process from C++, a module whose import had
side effects (the first forward-mode AD call scripts helpers with TorchScript, and warns,
once), Dynamo's caches keyed by module name. A page built after another would then print
something else than the page a reader runs alone. So every page that executes runs in a
child process: on Linux a fork of the build taken after torch is imported and before any
page ran, which starts where a reader's ``python page.py`` is after ``import torch``; on
other systems a freshly spawned interpreter (slower: it imports torch again).

What sphinx-gallery needs back from the page (titles, outcome, timing, backreferences) it
already gets as a return value, since its parallel mode needs the same; the page's files
are written by the child. Sphinx log records the child makes are replayed by the build, so
a warning still fails a strict build.
"""

from __future__ import annotations

import copy
import logging
import os
import pickle
import re
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
    if not _will_execute(fname, target_dir, src_dir, gallery_conf):
        return _original(fname, target_dir, src_dir, gallery_conf)
    if hasattr(os, "fork") and sys.platform == "linux":
        result, records = _in_fork(fname, target_dir, src_dir, gallery_conf)
    else:
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            result, records = pool.submit(
                _run_page, fname, target_dir, src_dir, gallery_conf
            ).result()
    for record in records:
        logging.getLogger(record.name).handle(record)
    return result


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


def _in_fork(*args: Any) -> tuple[Any, list[logging.LogRecord]]:
    _preload()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the page's process
        os.close(read_end)
        try:
            payload = pickle.dumps(("done", _run_page(*args)))
        except BaseException:  # noqa: BLE001 - whatever the page raised goes back to the build
            payload = pickle.dumps(("raised", traceback.format_exc()))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(struct.pack("<Q", len(payload)) + payload)
        os._exit(0)  # no atexit handlers, no flushing of the build's own buffers
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        head = pipe.read(8)
        payload = pipe.read(struct.unpack("<Q", head)[0]) if len(head) == 8 else b""
    _, status = os.waitpid(pid, 0)
    if not payload:
        raise RuntimeError(
            f"the process that ran {args[0]} ended ({_describe(status)}) before it "
            "returned: the page crashed the interpreter"
        )
    kind, value = pickle.loads(payload)
    if kind == "raised":
        raise RuntimeError(f"running {args[0]} in its own process raised:\n{value}")
    return value


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
