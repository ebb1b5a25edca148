"""Run a script under ``torchrun`` on this machine, as a reader does, for the build and the tests.

A code block whose first line is ``# torchrun --nproc-per-node=N script.py`` is such a
script (:func:`marked_launch`). :func:`run` types that command for real and returns
what torchrun printed, each rank's lines prefixed ``[rankN]:``. torchrun starts,
watches and stops the ranks; this module adds only:

- a network namespace with nothing but loopback, where Linux allows one: torchrun's
  stores listen on every interface, whatever address they are given (torch 2.14.1);
- a supervisor around torchrun (this file, run as a script) that kills what the ranks
  leave behind, even in sessions of their own, and, on a timeout, asks each hung rank
  for its Python stack;
- the run's output through a pipe, so that a caller whose ``sys.stdout`` has no file
  descriptor (sphinx-gallery, pytest) gets it as text.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Launch",
    "Result",
    "TorchrunError",
    "join_split_lines",
    "loopback_only_here",
    "marked_launch",
    "run",
    "run_command",
]

#: Seconds a run may take before its hung ranks are stopped.
DEFAULT_TIMEOUT_S = 300.0

# After the ranks were asked for their stacks, how long torchrun gets to report and exit.
_REPORT_S = 15.0
# An error message ends with this much of the output; the exception keeps all of it.
_TAIL_CHARS = 20_000
# Exit status of the supervisor when the run timed out, as coreutils' timeout uses.
_TIMED_OUT = 124
# prctl options (linux/prctl.h).
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36

_MARKER = re.compile(r"\A# torchrun --nproc-per-node=(\d+) ([\w.-]+\.py)[ \t]*$", re.MULTILINE)
_RANK_LINE = re.compile(r"^\[rank(\d+)\]: ")


@dataclass(frozen=True)
class Launch:
    """How a marked code block is started: ``torchrun --nproc-per-node=<ranks> <script>``.

    Attributes
    ----------
    ranks : int
        Number of processes, ``--nproc-per-node``.
    script : str
        The file name the block is saved as.
    """

    ranks: int
    script: str


def marked_launch(code: str) -> Launch | None:
    """Return how ``code`` is launched if its first line says so, else None.

    The marker is the command a reader runs, as a comment on the block's first line:
    ``# torchrun --nproc-per-node=2 hello.py``.
    """
    found = _MARKER.match(code.lstrip())
    return Launch(int(found.group(1)), found.group(2)) if found else None


@dataclass(frozen=True)
class Result:
    """What one torchrun run printed, and how it ended.

    Attributes
    ----------
    command : tuple of str
        The command that ran, torchrun's options included.
    returncode : int
        Its exit status; 124 when it was stopped after ``timeout_s``.
    output : str
        Everything torchrun printed: each rank's lines prefixed ``[rankN]:``, and its own.
    elapsed_s : float
        Wall-clock seconds from start to exit.
    loopback_only : bool
        Whether it ran in a network namespace of its own, with loopback only.
    """

    command: tuple[str, ...]
    returncode: int
    output: str
    elapsed_s: float
    loopback_only: bool

    def by_rank(self) -> str:
        """Return the output with each rank's lines together, in rank order.

        torchrun prints lines as they come, so the ranks' lines interleave differently
        on every run; torchrun's own lines come first.
        """
        lines = self.output.splitlines()

        def rank(line: str) -> int:
            found = _RANK_LINE.match(line)
            return int(found.group(1)) if found else -1

        return "\n".join(sorted(lines, key=rank))


class TorchrunError(RuntimeError):
    """A run failed: a rank raised, crashed or exited with an error, or it timed out.

    Attributes
    ----------
    result : Result
        The run, with all of its output.
    """

    def __init__(self, result: Result) -> None:
        if result.returncode == _TIMED_OUT:
            why = "timed out; the ranks still running were sent SIGABRT, which prints their stacks"
        else:
            why = f"exit status {result.returncode}"
        tail = result.output[-_TAIL_CHARS:]
        cut = "...\n" if len(result.output) > _TAIL_CHARS else ""
        super().__init__(f"{' '.join(result.command)} failed ({why}):\n{cut}{tail}")
        self.result = result


# torchrun starts each rank as `python -u`, so print() writes its text and its newline
# separately, and --tee, reading the rank's file by line, can take the text before the
# newline arrives: "[rank1]: rank 1 of 2[rank1]: " then. Seen once in a full test run on
# a busy machine. The rank's own prefix inside its line marks where it continues.
_CONTINUED = re.compile(r"^(\[rank(\d+)\]: )(.*?)\[rank\2\]: ?", re.MULTILINE)


def join_split_lines(output: str) -> str:
    """Join the pieces of a rank's line that ``--tee`` passed on as it was being written."""
    while True:
        joined = _CONTINUED.sub(r"\1\3", output)
        if joined == output:
            return output
        output = joined


def run(
    script: str | os.PathLike[str],
    ranks: int,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    rank_prefixes: bool = True,
) -> Result:
    """Run ``torchrun --nproc-per-node=<ranks> <script>``, a reader's command, and return its output.

    Parameters
    ----------
    script : str
        The script, as a reader saved it (a path, or a name in ``cwd``).
    ranks : int
        ``--nproc-per-node``.
    timeout_s : float
        Seconds before ranks still running are sent SIGABRT and the run fails.
    env, cwd : optional
        The environment to start from and the working directory (default: this process's).
    rank_prefixes : bool
        Each rank's lines prefixed ``[rankN]:``: torchrun's ``--tee 3``, given as its
        environment variable ``PET_TEE`` so that the command stays the reader's.

    Returns
    -------
    Result

    Raises
    ------
    TorchrunError
        If torchrun exits with an error or the run times out; the message ends with the
        output, where the failing rank's traceback (or a hung rank's stack) is.
    """
    torchrun = Path(sys.executable).with_name("torchrun")
    command = (
        [str(torchrun)] if torchrun.exists() else [sys.executable, "-m", "torch.distributed.run"]
    )
    command += [f"--nproc-per-node={ranks}", os.fspath(script)]
    tee = {"PET_TEE": "3"} if rank_prefixes else {}
    result = run_command(command, timeout_s=timeout_s, env={**(env or os.environ), **tee}, cwd=cwd)
    if rank_prefixes:
        result = dataclasses.replace(result, output=join_split_lines(result.output))
    if result.returncode != 0:
        raise TorchrunError(result)
    return result


def run_command(
    command: Sequence[str],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Result:
    """Run ``command`` (torchrun, or a shell that starts it) under the supervisor.

    Returns the :class:`Result` whatever the exit status; :func:`run` raises instead.
    """
    environment = {
        **(os.environ if env is None else env),
        "PYTHONFAULTHANDLER": "1",  # a crashed or aborted rank prints its Python stack
        "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": "[rank${rank}]: ",  # default: [default0]:
        # gloo would listen on the address the host name resolves to.
        "GLOO_SOCKET_IFNAME": "lo" if sys.platform.startswith("linux") else "lo0",
    }
    # torchrun sets it to 1 too, but prints a banner about it on every run.
    environment.setdefault("OMP_NUM_THREADS", "1")
    # No PYTHONUNBUFFERED from us; torchrun starts every rank with `python -u` all the same
    # (see join_split_lines).
    namespace = _namespace()
    supervisor = [sys.executable, "-I", __file__, str(timeout_s), str(bool(namespace))]
    started = time.perf_counter()
    with subprocess.Popen(
        [*namespace, *supervisor, *command],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=environment, cwd=cwd, start_new_session=True,
    ) as process:  # fmt: skip
        try:
            output, _ = process.communicate(timeout=timeout_s + 2 * _REPORT_S)
            returncode = process.returncode
        except BaseException as stop:  # interrupted, or the supervisor itself is stuck
            process.terminate()  # it stops everything it started, then exits
            try:
                output, _ = process.communicate(timeout=_REPORT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                output, _ = process.communicate()
            if not isinstance(stop, subprocess.TimeoutExpired):
                raise
            returncode = _TIMED_OUT
    return Result(
        command=tuple(command),
        returncode=returncode,
        output=output.decode("utf-8", "backslashreplace"),
        elapsed_s=time.perf_counter() - started,
        loopback_only=bool(namespace),
    )


def loopback_only_here() -> bool:
    """Whether a run here gets a network namespace of its own, with loopback only.

    Where Linux refuses ``unshare --map-root-user --net`` (Ubuntu 24.04 by default,
    many containers, every other system), torchrun's stores listen on every interface
    of the machine for as long as a run lasts.
    """
    return bool(_namespace())


@functools.cache
def _namespace() -> tuple[str, ...]:
    """Return the ``unshare`` prefix of a run, or ``()`` where namespaces are refused."""
    command = ("unshare", "--map-root-user", "--net", "--mount")
    try:
        subprocess.run([*command, "true"], check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ()  # torchrun's listeners are then on every interface: Result.loopback_only
    return command


# -- The supervisor: run as a script, between the caller and torchrun -------------------


def _supervise(timeout_s: float, loopback: bool, command: list[str]) -> int:
    """Run ``command``; on a timeout abort its ranks; in any case kill what is left."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)  # the caller died: stop the run
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # what the ranks leave behind becomes ours to kill
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # to run the cleanup below
    if loopback:
        _loopback_only()
    try:
        torchrun = subprocess.Popen(command)
        try:
            return torchrun.wait(timeout_s)
        except subprocess.TimeoutExpired:
            # PYTHONFAULTHANDLER makes a rank print every thread's stack on SIGABRT;
            # torchrun then reports the failure and stops the others.
            below = _below(torchrun.pid)
            print(f"still running after {timeout_s:g} s: SIGABRT to the ranks", flush=True)
            for pid in below:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                torchrun.wait(_REPORT_S)
            return _TIMED_OUT
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a late SIGTERM must not cut this short
        _kill_all_descendants()


def _prctl(option: int, value: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(option, value, 0, 0, 0)


def _loopback_only() -> None:
    """Bring up loopback, the only interface of a new network namespace, and resolve from files.

    A namespace starts with ``lo`` down. Without a network, DNS lookups fail with
    "try again", and c10d warns on every connection that it cannot name the peer
    ``::ffff:127.0.0.1``; ``/etc/hosts`` answers all a loopback-only run asks.
    """
    import ctypes
    import fcntl
    import socket
    import struct
    import tempfile

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket() as sock:
        request = fcntl.ioctl(sock, siocgifflags, struct.pack("16s24x", b"lo"))
        flags = struct.unpack_from("H", request, 16)[0]
        fcntl.ioctl(sock, siocsifflags, struct.pack("16sH22x", b"lo", flags | iff_up))
    nsswitch = Path("/etc/nsswitch.conf")
    if nsswitch.exists():
        text = re.sub(r"^hosts:.*$", "hosts: files", nsswitch.read_text(), flags=re.MULTILINE)
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as replacement:
            replacement.write(text)
            replacement.flush()
            # A bind mount in this mount namespace only (unshare --mount makes it private).
            ms_bind = 4096
            ctypes.CDLL(None).mount(
                replacement.name.encode(), b"/etc/nsswitch.conf", None, ms_bind, None
            )


def _below(pid: int) -> list[int]:
    """Every process below ``pid``, read from /proc (none where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        with contextlib.suppress(OSError, ValueError, IndexError):
            # The command name, in parentheses, may hold spaces: split after it.
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, pending = [], [pid]
    while pending:
        below = children.get(pending.pop(), [])
        found += below
        pending += below
    return found


def _kill_all_descendants() -> None:
    """Kill and reap every process below this one, until none is left."""
    while found := _below(os.getpid()):
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):  # none left to reap
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(_supervise(float(sys.argv[1]), sys.argv[2] == "True", sys.argv[3:]))
