"""The block server: a Python that has imported torch and runs each block sent to it in a fork of itself.

:mod:`cheatsheet._blocks` starts it as ``python _blockserver.py [module ...]``, by path and
not with ``-m``, so that nothing of the ``cheatsheet`` package (which imports parts of
torch) is loaded into what a block starts from. It imports torch, NumPy, matplotlib and
the modules named, writes one JSON line saying what each named module's import loaded
(and whether the imports left its forks unable to start CUDA: :func:`forks_poisoned`),
then reads one job per line on stdin, ``{"file": path, "timeout": seconds}``, and
answers each with ``{"code": exit status or "timeout", "output": text, "seconds": float}``.

Each block runs in a child made by ``multiprocessing``'s fork context: a fork sees the
server's modules already imported, an empty ``__main__`` (``runpy`` makes a new one) and
no state another block left, since every block forks from the same untouched server. The
child leads a session of its own, and the whole session is killed when the block ends or
runs past its time, so nothing it started outlives it. What ``multiprocessing`` adds that
a reader's interpreter lacks is undone first (:func:`_as_a_main_process`).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.process
import os
import runpy
import signal
import sys
import tempfile
import time
import traceback

POLL_S = 0.01
# The class of the process that runs this server, multiprocessing's "MainProcess" (the
# module deletes its name): a block's child becomes one again (_as_a_main_process).
_MAIN_PROCESS = type(multiprocessing.current_process())


def preload(names: list[str]) -> dict[str, list[str]]:
    """Import each module of ``names``; return, for each, the modules its import brought in."""
    loaded = {}
    for name in names:
        before = set(sys.modules)
        __import__(name)
        loaded[name] = sorted(set(sys.modules) - before)
    return loaded


def _exit_bad_fork() -> None:
    import torch

    os._exit(1 if torch.cuda._is_in_bad_fork() else 0)


def forks_poisoned() -> bool:
    """Whether a fork of this process finds CUDA poisoned, as a reader's interpreter never does.

    torch marks a process's future forks as unable to start CUDA once it has asked the
    driver for its devices; a child then raises "Cannot re-initialize CUDA in forked
    subprocess" where the reader's fresh interpreter raises what the block is about. An
    ``import torch`` does not ask, but under torch 2.7 to 2.12 importing Inductor does
    on a machine with CUDA's libraries and no GPU (2.15 does not): the version records
    then dated an entry by this server, not by torch.
    """
    child = multiprocessing.get_context("fork").Process(target=_exit_bad_fork)
    child.start()
    child.join()
    return child.exitcode != 0


def _as_a_main_process() -> None:
    # A child of multiprocessing believes it is "Process-1" with a parent, where a
    # reader's `python block.py` is "MainProcess" with none; a block that names its
    # process, or starts workers of its own (named from their parent's), would print
    # otherwise than it does for the reader.
    multiprocessing.process._current_process = _MAIN_PROCESS()  # type: ignore[attr-defined]
    multiprocessing.process._parent_process = None  # type: ignore[attr-defined]


def _run_block(file: str, out: str) -> None:
    """Run the script ``file`` as ``__main__``, its output to the file ``out``; never returns."""
    os.setsid()
    fd = os.open(out, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    sys.stderr = os.fdopen(2, "w", buffering=1)
    _as_a_main_process()
    sys.argv = [file]
    sys.path.insert(0, os.path.dirname(file))  # as `python file` puts it first
    code = 0
    try:
        runpy.run_path(file, run_name="__main__")
    except SystemExit as stopped:  # sys.exit(3), sys.exit("why"), sys.exit()
        if isinstance(stopped.code, int):
            code = stopped.code
        elif stopped.code is not None:
            print(stopped.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - printed as the interpreter prints it
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # no atexit of the server's, as the fork's own exit would run


def run(file: str, timeout: float) -> dict[str, object]:
    """Run the block ``file`` in a fork of this process; return what it did, as the answer line holds."""
    fd, out = tempfile.mkstemp(suffix=".out")
    os.close(fd)
    start = time.perf_counter()
    child = multiprocessing.get_context("fork").Process(target=_run_block, args=(file, out))
    child.start()
    code: int | str | None = None
    # Polled, not joined: a join waits until every process holding the child's end of
    # its pipe has exited, and a worker the block left running holds it.
    while (code := child.exitcode) is None:
        if time.perf_counter() - start > timeout:
            code = "timeout"
            break
        time.sleep(POLL_S)
    if child.pid is not None:
        with contextlib.suppress(ProcessLookupError):  # the session is empty already
            os.killpg(child.pid, signal.SIGKILL)  # the block's session: whatever it left
    if child.exitcode is None:  # stopped before it made its session: the child alone
        child.kill()
    while child.exitcode is None:  # reaped, not joined, as above
        time.sleep(POLL_S)
    seconds = time.perf_counter() - start
    with open(out, errors="replace") as f:
        text = f.read()
    os.unlink(out)
    return {"code": code, "output": text, "seconds": seconds}


def main(argv: list[str]) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib  # noqa: F401 - what nearly every block imports first
    import numpy  # noqa: F401
    import torch

    lazy = sorted(f"torch.{m}" for m in getattr(torch, "_lazy_modules", ()))  # imported on use
    loaded = preload(argv)
    print(json.dumps({"loaded": loaded, "lazy": lazy, "poisoned": forks_poisoned()}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        print(json.dumps(run(job["file"], job["timeout"])), flush=True)


if __name__ == "__main__":
    del sys.path[0]  # this file's folder: the package's modules are no block's to import
    main(sys.argv[1:])
