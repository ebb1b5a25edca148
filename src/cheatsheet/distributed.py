"""Run a function on several local processes, the way a distributed job runs, and show its output.

:func:`~cheatsheet.distributed.run` starts one process per rank on this machine with the environment
``torch.distributed`` expects (``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``), captures everything each rank writes to its
stdout and stderr (C++ output of gloo and c10d included), prints it in rank
order as ``[rank N] ...`` lines, and returns every rank's return value.

Processes are started with ``fork`` on Linux, so a function defined in a
script, a notebook or a sphinx-gallery page works as is. Elsewhere (macOS,
Windows) they are started with ``spawn``, which needs ``fn`` to be importable
from a module (defined at the top level of a file other than ``__main__``) and
its arguments picklable.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import importlib
import io
import math
import multiprocessing
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait as _wait_ready
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "DistributedRunError",
    "DistributedTimeoutError",
    "RunResult",
    "free_port",
    "run",
]

#: Seconds :func:`~cheatsheet.distributed.run` waits for all ranks before it kills them.
DEFAULT_TIMEOUT_S = 120.0

# How long a rank that was sent SIGTERM gets before SIGKILL.
_TERM_GRACE_S = 1.0

# How long hung ranks get to write their stacks before they are stopped.
_STACK_DUMP_S = 0.5

# An error message shows this much of each rank's output; the exception's ``lines`` holds
# all of it. The end (a traceback, the stacks of a hung rank) usually matters most.
_HEAD_LINES = 20
_TAIL_LINES = 100
_MAX_LINE_CHARS = 1000

# prctl option (linux/prctl.h): the signal this process gets when its parent ends.
_PR_SET_PDEATHSIG = 1

# How long the watchdog gets to exit once the run is over.
_WATCHDOG_EXIT_S = 10.0

# How often rank exits are checked where the platform cannot signal them (no pidfd).
_POLL_S = 0.05

# Imported once here before fork, so that every rank shares them instead of importing
# them again: DDP, FSDP and DTensor load dynamo lazily, several seconds per process.
_PRELOAD = ("torch.distributed", "torch._dynamo")


@dataclass(frozen=True)
class RunResult:
    """What every rank of a :func:`~cheatsheet.distributed.run` printed and returned.

    Attributes
    ----------
    world_size : int
        Number of ranks that ran.
    lines : tuple of tuple of str
        ``lines[rank]``: the lines that rank wrote to stdout and stderr, in order.
    values : tuple
        ``values[rank]``: what ``fn`` returned on that rank.
    elapsed_s : float
        Wall-clock time from starting the first process to the last one's exit, in seconds.
    start_method : str
        ``"fork"`` or ``"spawn"``.
    pids : tuple of int
        Process id of each rank (all of them have exited).
    """

    world_size: int
    lines: tuple[tuple[str, ...], ...]
    values: tuple[Any, ...]
    elapsed_s: float
    start_method: str
    pids: tuple[int, ...]

    def output(self) -> str:
        """Return every rank's lines, in rank order, each prefixed ``[rank N]``."""
        return _format_lines(self.lines)


class DistributedRunError(RuntimeError):
    """A rank of :func:`~cheatsheet.distributed.run` raised an exception or died.

    Attributes
    ----------
    rank : int
        The first rank seen to fail.
    exitcode : int or None
        Its exit code (negative: killed by that signal).
    lines : tuple of tuple of str
        What each rank printed before the run stopped.
    pids : tuple of int
        Process id of each rank (all of them have been stopped).
    """

    def __init__(
        self,
        message: str,
        *,
        rank: int,
        exitcode: int | None,
        lines: tuple[tuple[str, ...], ...],
        pids: tuple[int, ...],
    ) -> None:
        super().__init__(message)
        self.rank = rank
        self.exitcode = exitcode
        self.lines = lines
        self.pids = pids


class DistributedTimeoutError(TimeoutError):
    """Ranks of :func:`~cheatsheet.distributed.run` were still running after ``timeout_s`` seconds.

    Attributes
    ----------
    running : tuple of int
        The ranks that had not finished (all of them have been killed).
    lines : tuple of tuple of str
        What each rank printed before it was stopped.
    pids : tuple of int
        Process id of each rank.
    """

    def __init__(
        self,
        message: str,
        *,
        running: tuple[int, ...],
        lines: tuple[tuple[str, ...], ...],
        pids: tuple[int, ...],
    ) -> None:
        super().__init__(message)
        self.running = running
        self.lines = lines
        self.pids = pids


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on ``host`` that nothing listens on right now.

    The operating system picks it; another program could take it before it is
    used, which on a build machine is rare enough to ignore.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _format_lines(lines: Sequence[Sequence[str]]) -> str:
    return "\n".join(f"[rank {rank}] {line}" for rank, own in enumerate(lines) for line in own)


def _excerpt(lines: Sequence[str]) -> list[str]:
    """Return the head and tail of ``lines``, long lines cut, saying what was left out."""
    shown = list(lines)
    if len(lines) > _HEAD_LINES + _TAIL_LINES:
        skipped = lines[_HEAD_LINES : len(lines) - _TAIL_LINES]
        size = sum(len(line.encode("utf-8", "replace")) + 1 for line in skipped)
        note = f"... {len(skipped):,} lines ({size:,} bytes) skipped; .lines holds them all ..."
        shown = [*lines[:_HEAD_LINES], note, *lines[len(lines) - _TAIL_LINES :]]
    return [
        f"{line[:_MAX_LINE_CHARS]} ... [{len(line) - _MAX_LINE_CHARS:,} more characters]"
        if len(line) > _MAX_LINE_CHARS
        else line
        for line in shown
    ]


def _start_method() -> str:
    # fork is the only method that runs a function defined in __main__, a notebook or a
    # sphinx-gallery page. It is safe on Linux; on macOS system libraries break after fork.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"


def _check_importable(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    name = getattr(fn, "__qualname__", repr(fn))
    module = getattr(fn, "__module__", None)
    if module == "__main__" or "<locals>" in name:
        raise ValueError(
            f"run() starts processes with 'spawn' on {sys.platform}, and spawn can only run a "
            f"function it can import; {name!r} is defined in {module!r}. Move it to the top "
            "level of a module that is not __main__ (e.g. ranks.py) and import it from there"
        )
    try:
        pickle.dumps((fn, args))
    except Exception as exc:
        raise ValueError(
            f"run() starts processes with 'spawn' on {sys.platform}, which pickles fn and args; "
            f"pickling failed ({exc}). Use a top-level function and picklable arguments"
        ) from exc


def _rebind_std_streams() -> None:
    """Point ``sys.stdout``/``sys.stderr`` at file descriptors 1 and 2.

    After fork the child inherits the parent's Python stream objects, which may
    be in-memory captures (sphinx-gallery, pytest, Jupyter); the output would
    stay in the child's copy of them and be lost.
    """
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = io.TextIOWrapper(
            io.FileIO(fd, "w", closefd=False),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
            write_through=True,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


@dataclass(frozen=True)
class _ChildSetup:
    """What the process of one rank needs: its function, environment and files.

    Attributes
    ----------
    fn, args, rank, world_size
        The call to make: ``fn(rank, world_size, *args)``.
    env : dict
        Variables to set (``RANK``, ``MASTER_PORT``...).
    log_path, result_path : str
        Where the rank's stdout and stderr go, and where its outcome is saved.
    launcher_pid : int
        The process that runs ``run()``; the rank must not outlive it.
    inherited_fds : tuple of int
        The launcher's descriptors that a forked rank must not keep open (the
        rendezvous listener, the watchdog's pipe): closed first.
    """

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    rank: int
    world_size: int
    env: dict[str, str]
    log_path: str
    result_path: str
    launcher_pid: int
    inherited_fds: tuple[int, ...]


def _die_with_launcher(launcher_pid: int) -> None:
    """Make this rank end when the launcher does, even when the launcher is SIGKILLed."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            # Sent when the thread that forked this rank ends. run() stays in that
            # thread until every rank is reaped, so only the launcher's death sends it.
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # The launcher may have died before that took effect; then no signal would come.
    # Elsewhere the watchdog (_Watchdog) is what stops the rank.
    if os.getppid() != launcher_pid:
        os._exit(1)


def _child(setup: _ChildSetup) -> None:
    """Body of one rank: set up its environment and output, call ``fn``, save the outcome."""
    _die_with_launcher(setup.launcher_pid)
    for fd in setup.inherited_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    # Own process group: the parent can then kill the rank together with
    # anything it started (compile workers, data loader workers).
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    # O_APPEND on one shared description keeps stdout and stderr writes in order.
    log_fd = os.open(setup.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    _rebind_std_streams()
    # A crash in C code (SIGSEGV, SIGABRT...) then shows the Python stack that led to it
    # in this rank's output. The parent may have its own handler on, writing elsewhere
    # (pytest writes to its saved stderr); this one replaces it.
    faulthandler.enable(file=sys.stderr, all_threads=True)
    if hasattr(signal, "SIGUSR1"):
        # On a timeout the parent sends SIGUSR1 before killing: every thread's Python
        # stack goes into this rank's output, which shows where it hung.
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    os.environ.update(setup.env)
    try:
        import torch

        # The parent's OpenMP pool does not survive fork, and the ranks share the cores.
        torch.set_num_threads(1)
        outcome, code = _call(setup.fn, setup.rank, setup.world_size, setup.args)
    finally:
        with contextlib.suppress(Exception):
            import torch.distributed as dist

            if dist.is_available() and dist.is_initialized():
                dist.destroy_process_group()
    try:
        import torch

        torch.save(outcome, setup.result_path)
    except Exception:  # noqa: BLE001  # whatever pickling raises, the parent must hear of it
        text = traceback.format_exc()
        sys.stderr.write(
            f"run(): rank {setup.rank} could not send its return value back; return tensors, "
            f"numbers or containers of them.\n{text}"
        )
        with contextlib.suppress(Exception):
            torch.save({"ok": False, "traceback": text}, setup.result_path)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip the parent's atexit handlers and buffered streams inherited through fork.
    os._exit(code)


def _call(
    fn: Callable[..., Any], rank: int, world_size: int, args: tuple[Any, ...]
) -> tuple[dict[str, Any], int]:
    """Call ``fn`` and return the outcome to save and the exit code, as Python would set it.

    ``sys.exit()``, ``sys.exit(0)`` and ``sys.exit(None)`` end a script successfully,
    so here they are a normal return with value None. ``sys.exit(n)`` keeps ``n``;
    ``sys.exit("message")`` prints the message and exits with 1.
    """
    try:
        return {"ok": True, "value": fn(rank, world_size, *args)}, 0
    except SystemExit as exc:
        if exc.code is None or exc.code == 0:
            return {"ok": True, "value": None}, 0
        # Python prints nothing for sys.exit(3); the traceback still goes into the
        # error message, to show where the rank exited.
        text = traceback.format_exc()
        if isinstance(exc.code, int):
            # As the operating system would keep it; 256 would read as success.
            code = exc.code & 0xFF or 1
        else:
            sys.stderr.write(f"{exc.code}\n")
            code = 1
        return {"ok": False, "traceback": text}, code
    except BaseException:  # noqa: BLE001  # any failure of fn is reported
        text = traceback.format_exc()
        sys.stderr.write(text)
        return {"ok": False, "traceback": text}, 1


def _read_lines(path: Path) -> tuple[str, ...]:
    try:
        text = path.read_text(encoding="utf-8", errors="backslashreplace")
    except FileNotFoundError:
        return ()
    return tuple(text.splitlines())


def _load(path: Path) -> dict[str, Any] | None:
    import torch

    try:
        # The file was written moments ago by our own child: full unpickling is safe.
        return torch.load(path, weights_only=False)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001  # a truncated file from a killed rank: no result
        return None


def _exit_description(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# -- Checking arguments --------------------------------------------------------------------


def _check_arguments(fn: object, world_size: object, timeout_s: object, backend: object) -> None:
    """Raise ``TypeError`` or ``ValueError``, naming the fix, for arguments ``run`` cannot use."""
    if not callable(fn):
        raise TypeError(
            f"run() needs a function as its first argument, got {type(fn).__name__}; "
            "pass the function itself, e.g. run(train, 2), not run(train(0, 2), 2)"
        )
    if isinstance(world_size, bool) or not isinstance(world_size, int):
        raise TypeError(f"world_size must be an integer number of processes, got {world_size!r}")
    if world_size < 1:
        raise ValueError(
            f"world_size must be at least 1 process, got {world_size}; use e.g. world_size=2"
        )
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)):
        raise TypeError(f"timeout_s must be a number of seconds, got {timeout_s!r}")
    if not (math.isfinite(timeout_s) and timeout_s > 0):
        raise ValueError(
            f"timeout_s must be a positive, finite number of seconds, got {timeout_s!r}; "
            f"the default is {DEFAULT_TIMEOUT_S:g}"
        )
    if not isinstance(backend, str) or not backend:
        raise TypeError(f"backend must be a backend name such as 'gloo' or 'nccl', got {backend!r}")
    if backend == "nccl":
        import torch

        if torch.cuda.device_count() < world_size:
            raise ValueError(
                f"backend='nccl' needs one CUDA GPU per rank ({world_size}), this machine has "
                f"{torch.cuda.device_count()}; use backend='gloo' to run on CPU"
            )


# -- Starting ranks ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rank:
    """One started rank: its process and the files it writes its output and outcome to."""

    rank: int
    process: multiprocessing.process.BaseProcess
    log_path: Path
    result_path: Path
    #: A pidfd of the process: readable once it has exited (None where unavailable).
    exit_fd: int | None

    @property
    def pid(self) -> int:
        return int(self.process.pid or 0)

    def exitcode(self) -> int | None:
        """Return the exit code once the process has exited (negative: signal), else None.

        The process is not reaped: while it stays a zombie its pid cannot be reused, so
        killing its process group afterwards cannot hit a stranger. Unlike
        ``process.join(timeout)`` this does not read multiprocessing's sentinel pipe,
        which stays open as long as anything the rank forked is alive.
        """
        if hasattr(os, "waitid") and self.pid:
            try:
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # already reaped
                return self.process.exitcode
            if info is None:
                return None
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        return self.process.exitcode

    def lines(self) -> tuple[str, ...]:
        """Return what the rank wrote to its stdout and stderr so far."""
        return _read_lines(self.log_path)

    def outcome(self) -> dict[str, Any] | None:
        """Return what ``_child`` saved (value or traceback), or None if it saved nothing."""
        return _load(self.result_path)


class _Rendezvous:
    """The rendezvous store of one run: hosted by the launcher, reachable on loopback only.

    With ``env://`` rendezvous rank 0 would start the store itself, and its server
    listens on every interface whatever ``MASTER_ADDR`` says (torch 2.13), so anyone
    who can reach the machine could join the job or set keys while it runs. Instead
    the launcher binds the socket to 127.0.0.1, hands it to a ``TCPStore`` through
    ``master_listen_fd``, and makes every rank a client of that store
    (``TORCHELASTIC_USE_AGENT_STORE``), as torchrun's agent does.

    Attributes
    ----------
    port : int
        The port ranks connect to (``MASTER_PORT``).
    hosted : bool
        Whether the store is hosted here; False where torch has no ``torch.distributed``.
    """

    def __init__(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", 0))
            # Listening before the ranks start: a rank that connects before the store
            # serves waits in the backlog instead of being refused and backing off.
            listener.listen()
        except BaseException:
            listener.close()
            raise
        self.port = int(listener.getsockname()[1])
        self._fd: int | None = listener.detach()
        self._store: object | None = None
        import torch.distributed

        self.hosted = torch.distributed.is_available()
        if not self.hosted:
            self.close()

    @property
    def inherited_fds(self) -> tuple[int, ...]:
        """Descriptors a forked rank inherits and must close."""
        return () if self._fd is None else (self._fd,)

    def environment(self) -> dict[str, str]:
        """Variables that point a rank's ``init_process_group`` at this store."""
        env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(self.port)}
        if self.hosted:
            env["TORCHELASTIC_USE_AGENT_STORE"] = "True"
            # torchrun sets this too; torch before 2.5 reads it with the agent store.
            env["TORCHELASTIC_RESTART_COUNT"] = "0"
        interface = _loopback_interface()
        if interface is not None:
            # gloo listens on the address its host name resolves to, which on many
            # machines is a network address; local ranks need loopback only.
            env["GLOO_SOCKET_IFNAME"] = interface
        return env

    def serve(self, world_size: int) -> None:
        """Start the store on the listening socket.

        Called after the ranks are forked, so that they do not inherit its threads
        and connections.
        """
        if not self.hosted or self._fd is None:
            return
        import torch.distributed as dist

        fd, self._fd = self._fd, None  # the store owns the socket from here on

        def store(**legacy: bool) -> dist.TCPStore:
            return dist.TCPStore(
                "127.0.0.1", self.port, world_size, is_master=True,
                wait_for_workers=False, master_listen_fd=fd, **legacy,
            )  # fmt: skip

        try:
            # The default (libuv) store of some releases refuses a listening socket
            # before using it (NotImplementedError, seen under 2.5 and 2.6); the older
            # store takes it.
            try:
                self._store = store()
            except NotImplementedError:
                self._store = store(use_libuv=False)
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise

    def close(self) -> None:
        """Stop the store (it stops when its last reference goes) or close the socket."""
        self._store = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_WATCHDOG_SOURCE = """
import os, shutil, signal, sys

groups, folder = set(), None
for line in sys.stdin:
    command, _, value = line.rstrip("\\n").partition(" ")
    if command == "group":
        groups.add(int(value))
    elif command == "folder":
        folder = value
    elif command == "reaped":
        groups.clear()
    elif command == "done":
        sys.exit(0)
# End of input without "done": the launcher has died.
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except Exception:
        pass
if folder is not None:
    shutil.rmtree(folder, ignore_errors=True)
"""


class _Watchdog:
    """A small process that stops the ranks and removes their folder if the launcher dies.

    On Linux the ranks themselves die with the launcher (``_die_with_launcher``), but
    what they started (a subprocess, compile workers) and the run's temporary folder
    would stay behind. The watchdog is a separate interpreter in its own session, so
    that a kill of the launcher's process group spares it, and it reads commands from
    a pipe only the launcher writes to: end of input without ``done`` means the
    launcher has died. Where no interpreter can be started, runs go on without one.
    """

    def __init__(self, folder: Path) -> None:
        self._fd: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        if not sys.executable:
            return
        read_fd, write_fd = os.pipe()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG_SOURCE],
                stdin=read_fd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            os.close(write_fd)
            return
        finally:
            os.close(read_fd)
        self._fd = write_fd
        self._send(f"folder {folder}")

    @property
    def inherited_fds(self) -> tuple[int, ...]:
        """Descriptors a forked rank inherits and must close, or the watchdog never sees EOF."""
        return () if self._fd is None else (self._fd,)

    def watch(self, pid: int) -> None:
        """Kill process group ``pid`` (a rank and what it started) if the launcher dies."""
        self._send(f"group {pid}")

    def reaped(self) -> None:
        """Forget the groups: their ranks are reaped, and the ids may be reused."""
        self._send("reaped")

    def close(self) -> None:
        """Tell the watchdog the run ended normally, and wait for it to exit."""
        if self._fd is not None:
            self._send("done")
            os.close(self._fd)
            self._fd = None
        if self._process is not None:
            try:
                self._process.wait(_WATCHDOG_EXIT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None

    def _send(self, line: str) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):  # the watchdog is gone: nothing to tell
                os.write(self._fd, f"{line}\n".encode())


def _loopback_interface() -> str | None:
    """Return the name of the loopback network interface, or None if none is found."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except OSError:
        return None
    return next((name for name in ("lo", "lo0") if name in names), None)


def _rank_environment(
    rank: int, world_size: int, rendezvous: _Rendezvous, backend: str
) -> dict[str, str]:
    return {
        **rendezvous.environment(),
        "RANK": str(rank),
        "WORLD_SIZE": str(world_size),
        "LOCAL_RANK": str(rank),
        "LOCAL_WORLD_SIZE": str(world_size),
        "CHEATSHEET_DIST_BACKEND": backend,
    }


def _start_ranks(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    world_size: int,
    *,
    method: str,
    backend: str,
    folder: Path,
    rendezvous: _Rendezvous,
    watchdog: _Watchdog,
) -> list[_Rank]:
    """Start one process per rank; if one fails to start, stop those already running."""
    ctx = multiprocessing.get_context(method)
    # A spawned rank starts a new interpreter, which inherits none of them.
    inherited_fds = (*rendezvous.inherited_fds, *watchdog.inherited_fds) if method == "fork" else ()
    # Flush so the children do not inherit, and later repeat, buffered parent output.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    ranks: list[_Rank] = []
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that forking a multithreaded process can deadlock the
            # child. The ranks only run fn, with one intra-op thread, and start fresh
            # gloo/c10d state, which is the use fork remains supported for.
            warnings.filterwarnings("ignore", message=r".*fork\(\)", category=DeprecationWarning)
            for rank in range(world_size):
                log_path = folder / f"rank{rank}.log"
                result_path = folder / f"rank{rank}.pt"
                setup = _ChildSetup(
                    fn=fn,
                    args=args,
                    rank=rank,
                    world_size=world_size,
                    env=_rank_environment(rank, world_size, rendezvous, backend),
                    log_path=str(log_path),
                    result_path=str(result_path),
                    launcher_pid=os.getpid(),
                    inherited_fds=inherited_fds,
                )
                process = ctx.Process(
                    target=_child, args=(setup,), name=f"cheatsheet-rank{rank}", daemon=False
                )
                process.start()
                # The rank makes itself a group leader too; doing it here as well means
                # the group exists before the watchdog hears of it.
                with contextlib.suppress(OSError, AttributeError):
                    os.setpgid(process.pid, process.pid)  # type: ignore[arg-type]
                watchdog.watch(int(process.pid or 0))
                ranks.append(_Rank(rank, process, log_path, result_path, _exit_fd(process)))
    except BaseException:
        _stop(ranks)
        raise
    return ranks


def _exit_fd(process: multiprocessing.process.BaseProcess) -> int | None:
    """Open a pidfd for ``process`` (Linux 5.3+), or return None."""
    if not hasattr(os, "pidfd_open") or process.pid is None:
        return None
    try:
        return os.pidfd_open(process.pid)
    except OSError:  # older kernel, or a sandbox that forbids it
        return None


# -- Waiting -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Waited:
    """How waiting for the ranks ended.

    Attributes
    ----------
    failed : int or None
        The first rank seen to exit with an error, if any.
    running : tuple of int
        The ranks still running when ``timeout_s`` ran out; empty if none.
    elapsed_s : float
        Seconds from starting the first rank until the wait ended.
    """

    failed: int | None
    running: tuple[int, ...]
    elapsed_s: float


def _wait(ranks: Sequence[_Rank], timeout_s: float, started: float) -> _Waited:
    """Wait until every rank has exited, one has failed, or ``timeout_s`` has passed.

    A rank is done when its process exits; children it leaves behind do not count
    (``_stop`` kills them).
    """
    deadline = time.monotonic() + timeout_s
    pending = list(ranks)
    while pending:
        for r in list(pending):
            code = r.exitcode()
            if code is None:
                continue
            pending.remove(r)
            if code != 0:
                return _Waited(failed=r.rank, running=(), elapsed_s=time.perf_counter() - started)
        remaining = deadline - time.monotonic()
        if not pending or remaining <= 0:
            break
        _sleep_until_an_exit(pending, remaining)
    elapsed_s = time.perf_counter() - started
    running = tuple(r.rank for r in pending)
    if running:
        _dump_stacks(pending)
    return _Waited(failed=None, running=running, elapsed_s=elapsed_s)


def _sleep_until_an_exit(ranks: Sequence[_Rank], timeout_s: float) -> None:
    fds = [r.exit_fd for r in ranks if r.exit_fd is not None]
    if len(fds) == len(ranks):
        _wait_ready(fds, timeout=timeout_s)
    else:
        time.sleep(min(_POLL_S, timeout_s))


def _dump_stacks(ranks: Sequence[_Rank]) -> None:
    """Ask hung ranks to write their Python stacks to their output (see ``_child``)."""
    if not hasattr(signal, "SIGUSR1"):
        return
    for r in ranks:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(r.pid, signal.SIGUSR1)
    time.sleep(_STACK_DUMP_S)


def _kill_group(pid: int, sig: int) -> None:
    """Send ``sig`` to the process group led by rank ``pid`` and to ``pid`` itself."""
    with contextlib.suppress(ProcessLookupError, PermissionError, AttributeError):
        os.killpg(pid, sig)  # type: ignore[attr-defined]  # no killpg on Windows
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.kill(pid, sig)


def _stop(ranks: Sequence[_Rank]) -> None:
    """Terminate every rank and whatever it started, then reap the ranks."""
    hard = getattr(signal, "SIGKILL", signal.SIGTERM)
    running = [r for r in ranks if r.exitcode() is None]
    for r in running:
        _kill_group(r.pid, signal.SIGTERM)
    deadline = time.monotonic() + _TERM_GRACE_S
    while running and time.monotonic() < deadline:
        _sleep_until_an_exit(running, deadline - time.monotonic())
        running = [r for r in running if r.exitcode() is None]
    for r in ranks:
        # Before reaping (join), so the group id is still taken: this also clears
        # children left behind by ranks that exited on their own.
        _kill_group(r.pid, hard)
    for r in ranks:
        r.process.join()
        if r.exit_fd is not None:
            os.close(r.exit_fd)


# -- Building the error --------------------------------------------------------------------


def _timeout_error(
    waited: _Waited, lines: tuple[tuple[str, ...], ...], timeout_s: float, pids: tuple[int, ...]
) -> DistributedTimeoutError:
    names = ", ".join(str(rank) for rank in waited.running)
    return DistributedTimeoutError(
        f"run(): rank(s) {names} of {len(lines)} still running after {timeout_s:g} s and "
        "were killed. A rank that waits in a collective its peers never call hangs; "
        "check that every rank makes the same collective calls, or raise timeout_s. "
        "The output ends with each hung rank's Python stacks, where the platform allows.\n"
        f"Output so far:\n{_format_lines([_excerpt(own) for own in lines])}",
        running=waited.running,
        lines=lines,
        pids=pids,
    )


def _failure_error(
    failed: _Rank, ranks: Sequence[_Rank], lines: tuple[tuple[str, ...], ...]
) -> DistributedRunError:
    code = failed.process.exitcode
    outcome = failed.outcome()
    if outcome is not None and not outcome.get("ok", True):
        detail = "\n".join(_excerpt(outcome["traceback"].splitlines())) + "\n"
    else:
        detail = f"no Python traceback ({_exit_description(code)})\n"
    others = [
        f"rank {r.rank}: {_exit_description(r.process.exitcode)}"
        for r in ranks
        if r.rank != failed.rank
    ]
    return DistributedRunError(
        f"run(): rank {failed.rank} of {len(ranks)} failed ({_exit_description(code)}); "
        f"the other ranks were stopped ({', '.join(others) or 'none'}).\n"
        f"Traceback of rank {failed.rank}:\n{detail}"
        f"Output of rank {failed.rank}:\n"
        f"{_format_lines([[]] * failed.rank + [_excerpt(lines[failed.rank])])}",
        rank=failed.rank,
        exitcode=code,
        lines=lines,
        pids=tuple(r.pid for r in ranks),
    )


# -- Collecting values ---------------------------------------------------------------------


def _collect_values(ranks: Sequence[_Rank], lines: tuple[tuple[str, ...], ...]) -> tuple[Any, ...]:
    """Every rank's return value, in rank order; raise if one is missing."""
    values = []
    for r in ranks:
        outcome = r.outcome()
        if outcome is None or not outcome.get("ok", False):
            raise DistributedRunError(
                f"run(): rank {r.rank} exited cleanly but its result is missing or unreadable; "
                "return tensors, numbers, strings or containers of them",
                rank=r.rank,
                exitcode=r.process.exitcode,
                lines=lines,
                pids=tuple(r.pid for r in ranks),
            )
        values.append(outcome["value"])
    return tuple(values)


def run(
    fn: Callable[..., Any],
    world_size: int = 2,
    *,
    args: Sequence[Any] = (),
    timeout_s: float = DEFAULT_TIMEOUT_S,
    backend: str = "gloo",
    echo: bool = True,
) -> RunResult:
    """Call ``fn(rank, world_size, *args)`` in ``world_size`` local processes.

    Each process gets ``MASTER_ADDR=127.0.0.1``, a free ``MASTER_PORT``,
    ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` in its environment, so
    ``torch.distributed.init_process_group(backend)`` inside ``fn`` needs no
    other argument. ``fn`` sets up its own process group, which keeps the
    code a reader copies complete; one it leaves initialised is destroyed
    when it returns. Every process runs with ``torch.set_num_threads(1)``.

    Nothing the run listens on can be reached from another address: the
    rendezvous store is hosted by this process on 127.0.0.1, the ranks are
    its clients (``TORCHELASTIC_USE_AGENT_STORE=True``, as under torchrun),
    and ``GLOO_SOCKET_IFNAME`` names the loopback interface.
    Before forking, ``torch.distributed`` and ``torch._dynamo`` (which DDP,
    FSDP and DTensor import lazily) are imported here once, so the ranks
    share them instead of each importing them again.

    Everything a rank writes to file descriptors 1 and 2 (``print``,
    warnings, C++ logging) is kept, and printed by this process once all
    ranks are done, grouped by rank as ``[rank 0] ...``, ``[rank 1] ...``.

    A rank is done when its process exits, whatever it started; those
    processes are killed then. ``sys.exit()``, ``sys.exit(0)`` and
    ``sys.exit(None)`` in ``fn`` return None; ``sys.exit(n)`` fails the run
    with exit code ``n``. If this process is killed, the ranks die with it
    (on Linux through ``PR_SET_PDEATHSIG``), and a small watchdog process
    kills what they started and removes the run's temporary folder.

    Parameters
    ----------
    fn : callable
        Called as ``fn(rank, world_size, *args)`` in every process. Its return
        value travels back through ``torch.save``: tensors, numbers, strings
        and containers of them. On Linux processes are forked, so ``fn`` may be
        defined anywhere; on macOS and Windows they are spawned and ``fn``
        must be importable (top level of a module other than ``__main__``).
    world_size : int
        Number of processes (ranks).
    args : sequence
        Extra positional arguments passed to ``fn`` after ``rank, world_size``.
    timeout_s : float
        Seconds to wait for all ranks; then all are killed.
    backend : str
        Set as ``CHEATSHEET_DIST_BACKEND`` in the ranks' environment for ``fn``
        to read; ``"gloo"`` runs on any CPU, ``"nccl"`` needs one GPU per rank.
    echo : bool
        Print the ``[rank N]`` lines here when the run succeeds.

    Returns
    -------
    RunResult

    Raises
    ------
    TypeError
        If ``fn`` is not callable or ``world_size`` is not an integer.
    ValueError
        If ``world_size`` is below 1, ``timeout_s`` is not a positive number,
        ``backend="nccl"`` finds fewer GPUs than ranks, or processes must be
        spawned and ``fn`` cannot be imported.
    DistributedRunError
        If a rank raises or dies; the message holds its traceback (for a
        crash in C code, its Python stack from ``faulthandler``) and its
        output, and the other ranks are killed.
    DistributedTimeoutError
        If ranks are still running after ``timeout_s``; the message names
        them and holds what they printed so far.

    Notes
    -----
    An error message shows the head and tail of a rank's output, with long
    lines cut, and says how much it left out; the exception's ``lines``
    holds every line.
    """
    _check_arguments(fn, world_size, timeout_s, backend)
    args = tuple(args)
    method = _start_method()
    if method == "spawn":
        _check_importable(fn, args)
    else:
        for module in _PRELOAD:
            importlib.import_module(module)

    folder = Path(tempfile.mkdtemp(prefix="cheatsheet-dist-"))
    watchdog = _Watchdog(folder)
    try:
        with contextlib.closing(_Rendezvous()) as rendezvous:
            started = time.perf_counter()
            ranks = _start_ranks(
                fn,
                args,
                world_size,
                method=method,
                backend=backend,
                folder=folder,
                rendezvous=rendezvous,
                watchdog=watchdog,
            )
            try:
                rendezvous.serve(world_size)
                waited = _wait(ranks, timeout_s, started)
            finally:
                _stop(ranks)
                watchdog.reaped()
        lines = tuple(r.lines() for r in ranks)
        pids = tuple(r.pid for r in ranks)
        if waited.running:
            raise _timeout_error(waited, lines, timeout_s, pids)
        if waited.failed is not None:
            raise _failure_error(ranks[waited.failed], ranks, lines)
        values = _collect_values(ranks, lines)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        watchdog.close()

    result = RunResult(
        world_size=world_size,
        lines=lines,
        values=values,
        elapsed_s=waited.elapsed_s,
        start_method=method,
        pids=pids,
    )
    if echo and any(lines):
        print(result.output())
    return result
