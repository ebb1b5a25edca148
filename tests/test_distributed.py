import contextlib
import ipaddress
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from cheatsheet.distributed import (
    DistributedRunError,
    DistributedTimeoutError,
    RunResult,
    free_port,
    run,
)


def _children_of(pid: int) -> set[int]:
    """Pids whose parent is ``pid`` (zombies included: they were not reaped)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the command name, which sits in parentheses and may hold spaces.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _group_members(pgid: int) -> set[int]:
    """Live (non-zombie) pids in process group ``pgid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.add(int(entry.name))
    return found


def _assert_all_gone(pids: tuple[int, ...]) -> None:
    assert pids
    assert all(pid > 0 for pid in pids)
    # Orphaned grandchildren are reaped by init, which may take a moment after SIGKILL.
    deadline = time.monotonic() + 5.0
    while any(_group_members(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in pids:
        assert not _group_members(pid), f"processes of rank pid {pid} left behind"
        assert not Path(f"/proc/{pid}").exists(), f"rank process {pid} left behind"
    assert not (_children_of(os.getpid()) & set(pids))


@pytest.fixture
def no_leftover_children():
    """Fail if a test leaves a child of the test process behind."""
    before = _children_of(os.getpid())
    yield
    assert _children_of(os.getpid()) <= before


@pytest.fixture(scope="module", autouse=True)
def _preloaded():
    """Import what run() preloads, so the time limits below measure runs, not imports."""
    import torch._dynamo  # noqa: F401


pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process checks read /proc"),
    pytest.mark.usefixtures("no_leftover_children"),
]


def _collectives(rank: int, world_size: int, scale: float) -> torch.Tensor:
    import torch.distributed as dist

    dist.init_process_group("gloo")
    print(f"first line of rank {rank}")
    t = torch.tensor([float(rank + 1)]) * scale
    dist.all_reduce(t)
    print(f"second line of rank {rank}")
    return t


def test_output_in_rank_order_and_values_come_back(capsys):
    result = run(_collectives, 2, args=(10.0,), timeout_s=60)
    assert isinstance(result, RunResult)
    assert result.world_size == 2
    assert result.start_method == "fork"
    assert result.lines == (
        ("first line of rank 0", "second line of rank 0"),
        ("first line of rank 1", "second line of rank 1"),
    )
    for value in result.values:
        torch.testing.assert_close(value, torch.tensor([30.0]))
    assert capsys.readouterr().out.splitlines() == [
        "[rank 0] first line of rank 0",
        "[rank 0] second line of rank 0",
        "[rank 1] first line of rank 1",
        "[rank 1] second line of rank 1",
    ]
    _assert_all_gone(result.pids)


def _environment(rank: int, world_size: int) -> dict[str, str]:
    import torch.distributed as dist

    names = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK")
    env = {name: os.environ[name] for name in names}
    # The helper destroys a process group that fn leaves behind.
    dist.init_process_group("gloo")
    env["threads"] = str(torch.get_num_threads())
    return env


def test_environment_and_single_thread(capsys):
    result = run(_environment, 3, timeout_s=60)
    assert [v["RANK"] for v in result.values] == ["0", "1", "2"]
    assert [v["LOCAL_RANK"] for v in result.values] == ["0", "1", "2"]
    assert {v["WORLD_SIZE"] for v in result.values} == {"3"}
    assert {v["MASTER_ADDR"] for v in result.values} == {"127.0.0.1"}
    assert len({v["MASTER_PORT"] for v in result.values}) == 1
    assert {v["threads"] for v in result.values} == {"1"}
    assert (
        "MASTER_PORT" not in os.environ
        or os.environ["MASTER_PORT"] != result.values[0]["MASTER_PORT"]
    )
    # Nothing printed: nothing echoed.
    assert capsys.readouterr().out == ""
    _assert_all_gone(result.pids)


def _c_level_output(rank: int, world_size: int) -> None:
    import sys

    os.write(1, f"fd1 of rank {rank}\n".encode())
    os.write(2, f"fd2 of rank {rank}\n".encode())
    print(f"stderr via sys of rank {rank}", file=sys.stderr)


def test_file_descriptor_output_is_captured(capsys):
    result = run(_c_level_output, 2, timeout_s=60, echo=False)
    assert result.lines[1] == ("fd1 of rank 1", "fd2 of rank 1", "stderr via sys of rank 1")
    assert capsys.readouterr().out == ""
    assert result.output().splitlines()[0] == "[rank 0] fd1 of rank 0"


def _one_rank_raises(rank: int, world_size: int) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo")
    print(f"rank {rank} before the error")
    if rank == 1:
        raise ValueError("deliberate failure on rank one")
    # Rank 0 waits for a peer that is gone: only the helper can end it.
    time.sleep(300)


def test_raising_rank_fails_the_run_with_its_traceback():
    started = time.monotonic()
    with pytest.raises(DistributedRunError) as info:
        run(_one_rank_raises, 2, timeout_s=200)
    assert time.monotonic() - started < 100, "the waiting rank was not stopped"
    err = info.value
    assert isinstance(err, RuntimeError)
    assert err.rank == 1
    assert err.exitcode == 1
    message = str(err)
    assert "Traceback (most recent call last)" in message
    assert "ValueError: deliberate failure on rank one" in message
    assert "_one_rank_raises" in message
    assert "[rank 1] rank 1 before the error" in message
    assert err.lines[0] == ("rank 0 before the error",)
    _assert_all_gone(err.pids)


def _rank_hangs(rank: int, world_size: int) -> None:
    print(f"rank {rank} started")
    if rank == 0:
        # A grandchild in the rank's process group must be cleaned up too.
        import subprocess

        subprocess.Popen(["sleep", "300"])
        time.sleep(300)


@pytest.mark.slow
def test_hanging_rank_times_out_and_everything_is_killed():
    started = time.monotonic()
    with pytest.raises(DistributedTimeoutError) as info:
        run(_rank_hangs, 2, timeout_s=3)
    assert time.monotonic() - started < 60
    err = info.value
    assert isinstance(err, TimeoutError)
    assert err.running == (0,)
    message = str(err)
    assert "rank(s) 0 of 2 still running after 3 s" in message
    assert "[rank 0] rank 0 started" in message
    assert "[rank 1] rank 1 started" in message
    if hasattr(signal, "SIGUSR1"):
        # the hung rank's Python stack shows where it waited
        assert re.search(r"\[rank 0\] .*line \d+ in _rank_hangs", message), message
    _assert_all_gone(err.pids)


def _dies_hard(rank: int, world_size: int) -> None:
    print("about to vanish", flush=True)
    os._exit(3)


def test_rank_that_dies_without_traceback():
    with pytest.raises(DistributedRunError, match=r"exit code 3") as info:
        run(_dies_hard, 1, timeout_s=30)
    assert "no Python traceback" in str(info.value)
    _assert_all_gone(info.value.pids)


def _unpicklable(rank: int, world_size: int):
    return lambda: rank


def test_unreturnable_value_is_an_error():
    with pytest.raises(DistributedRunError, match="could not send its return value back"):
        run(_unpicklable, 1, timeout_s=30)


def test_free_port_is_a_port():
    assert 0 < free_port() < 65536


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"fn": "not a function"}, TypeError, r"pass the function itself"),
        ({"world_size": 0}, ValueError, r"at least 1 process"),
        ({"world_size": 1.5}, TypeError, r"integer number of processes"),
        ({"world_size": True}, TypeError, r"integer number of processes"),
        ({"timeout_s": 0}, ValueError, r"positive, finite number of seconds"),
        ({"timeout_s": -1.0}, ValueError, r"positive, finite number of seconds"),
        ({"timeout_s": float("inf")}, ValueError, r"positive, finite number of seconds"),
        ({"timeout_s": "10"}, TypeError, r"number of seconds"),
    ],
)
def test_bad_input(kwargs, error, match):
    call = {"fn": _collectives, "world_size": 2, "timeout_s": 10, **kwargs}
    with pytest.raises(error, match=match):
        run(call.pop("fn"), call.pop("world_size"), **call)


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="this machine could run nccl")
def test_nccl_without_gpus_names_the_fix():
    with pytest.raises(ValueError, match="use backend='gloo'"):
        run(_collectives, 2, backend="nccl")


def test_spawn_needs_an_importable_function(monkeypatch):
    import cheatsheet.distributed as module

    monkeypatch.setattr(module, "_start_method", lambda: "spawn")

    def local_fn(rank, world_size):
        return rank

    with pytest.raises(ValueError, match="Move it to the top level of a module"):
        run(local_fn, 2)
    with pytest.raises(ValueError, match="picklable arguments"):
        run(_collectives, 2, args=(lambda: 1,))


def _leaves_forked_child(rank: int, world_size: int) -> int:
    if os.fork() == 0:
        # The grandchild inherits every descriptor of the rank, pipes to the launcher included.
        time.sleep(300)
        os._exit(0)
    return rank


@pytest.mark.parametrize("exits_seen_by", ["pidfd", "polling"])
def test_forked_child_of_a_rank_does_not_hold_the_run_hostage(exits_seen_by, monkeypatch):
    import cheatsheet.distributed as module

    if exits_seen_by == "polling":  # as on kernels and platforms without pidfds
        monkeypatch.setattr(module, "_exit_fd", lambda process: None)
    started = time.monotonic()
    result = run(_leaves_forked_child, 2, timeout_s=20)
    assert time.monotonic() - started < 15
    assert result.values == (0, 1)
    _assert_all_gone(result.pids)


def _exits(rank: int, world_size: int, code: object) -> str:
    if rank == 1:
        sys.exit(code)
    return "returned"


@pytest.mark.parametrize("code", [0, None])
def test_sys_exit_zero_or_none_in_a_rank_is_a_normal_return(code):
    result = run(_exits, 2, args=(code,), timeout_s=60)
    assert result.values == ("returned", None)
    _assert_all_gone(result.pids)


def test_sys_exit_code_of_a_rank_is_its_exit_code():
    with pytest.raises(DistributedRunError, match=r"rank 1 of 2 failed \(exit code 3\)") as info:
        run(_exits, 2, args=(3,), timeout_s=60)
    assert info.value.exitcode == 3
    # Python itself prints nothing; the message's traceback shows where the rank exited.
    assert "SystemExit: 3" in str(info.value)
    assert info.value.lines[1] == ()
    _assert_all_gone(info.value.pids)


def test_sys_exit_with_a_message_prints_it_and_exits_1_as_python_does():
    with pytest.raises(DistributedRunError, match=r"exit code 1") as info:
        run(_exits, 2, args=("cannot go on",), timeout_s=60)
    assert info.value.exitcode == 1
    assert info.value.lines[1] == ("cannot go on",)


def _segfaults(rank: int, world_size: int) -> int:
    import ctypes

    if rank == 1:
        ctypes.string_at(0)  # reads address 0: SIGSEGV
    return rank


def test_segfaulting_rank_shows_its_python_stack():
    with pytest.raises(DistributedRunError, match=r"killed by SIGSEGV") as info:
        run(_segfaults, 2, timeout_s=60)
    message = str(info.value)
    assert "Fatal Python error: Segmentation fault" in message
    assert re.search(r"\[rank 1\] .*line \d+ in _segfaults", message), message
    _assert_all_gone(info.value.pids)


_FLOOD_LINES = 100_000


def _floods(rank: int, world_size: int, then: str) -> None:
    # 100 bytes a line: 10 MB per rank.
    sys.stdout.write(
        f"first line of rank {rank}\n"
        + ("x" * 99 + "\n") * _FLOOD_LINES
        + f"last line of rank {rank}\n"
    )
    sys.stdout.flush()
    if rank == 1 and then == "raise":
        raise ValueError("after the flood")
    if rank == 1 and then == "hang":
        time.sleep(300)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("then", "error", "timeout_s"),
    [("raise", DistributedRunError, 60), ("hang", DistributedTimeoutError, 5)],
)
def test_error_message_shows_head_and_tail_of_a_flood_of_output(then, error, timeout_s):
    with pytest.raises(error) as info:
        run(_floods, 2, args=(then,), timeout_s=timeout_s)
    message = str(info.value)
    assert len(message) < 100_000
    assert "[rank 1] first line of rank 1" in message
    assert "[rank 1] last line of rank 1" in message
    skipped = re.search(r"\[rank 1\] \.\.\. ([\d,]+) lines \(([\d,]+) bytes\) skipped", message)
    assert skipped, message[:3000]
    lines, size = (int(group.replace(",", "")) for group in skipped.groups())
    assert _FLOOD_LINES - 200 < lines <= _FLOOD_LINES
    assert size == lines * 100
    if then == "raise":
        assert "ValueError: after the flood" in message
    # The exception keeps every line.
    assert info.value.lines[1][0] == "first line of rank 1"
    assert info.value.lines[1][_FLOOD_LINES + 1] == "last line of rank 1"
    _assert_all_gone(info.value.pids)


def _says_one_long_line(rank: int, world_size: int) -> None:
    raise ValueError("y" * 1_000_000)


def test_error_message_cuts_a_long_line():
    with pytest.raises(DistributedRunError) as info:
        run(_says_one_long_line, 1, timeout_s=60)
    message = str(info.value)
    assert len(message) < 100_000
    assert re.search(r"ValueError: y+ \.\.\. \[[\d,]+ more characters\]", message)
    assert info.value.lines[0][-1] == "ValueError: " + "y" * 1_000_000


def _other_local_address() -> str | None:
    """A non-loopback IPv4 address of this machine, or None if it has none."""
    candidates = []
    with contextlib.suppress(OSError):
        candidates.append(socket.gethostbyname(socket.gethostname()))
    # Connecting a UDP socket sends nothing: it only asks the routing table which
    # local address would reach the destination.
    for destination in ("192.0.2.1", "10.255.255.255", "8.8.8.8"):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.connect((destination, 9))
            candidates.append(udp.getsockname()[0])
    for address in candidates:
        if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0":
            continue
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET) as probe:
            probe.bind((address, 0))  # fails for an address that is not this machine's
            return address
    return None


def _listening_ports(pids: set[int]) -> set[int]:
    """TCP ports on which any of ``pids`` listens, on any address."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                fields = row.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _connect_from_other_address(
    rank: int, world_size: int, address: str
) -> tuple[set[int], list[int], int]:
    import torch.distributed as dist

    dist.init_process_group("gloo")
    pids: list[int | None] = [None] * world_size
    dist.all_gather_object(pids, os.getpid())
    # The launcher (this rank's parent) and every rank, with the rendezvous store and
    # gloo's listeners up while the group exists.
    listening = _listening_ports({os.getppid(), *pids})
    master_port = int(os.environ["MASTER_PORT"])
    accepted = []
    for port in sorted(listening | {master_port}):
        try:
            with socket.create_connection((address, port), timeout=5):
                accepted.append(port)
        except OSError:
            pass
    dist.barrier()  # keep every rank's sockets open until all have tried
    return listening, accepted, master_port


def test_rendezvous_and_gloo_refuse_connections_from_other_addresses():
    address = _other_local_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to connect from")
    result = run(_connect_from_other_address, 2, args=(address,), timeout_s=60, echo=False)
    for listening, accepted, master_port in result.values:
        assert master_port in listening, "the rendezvous store was not found listening"
        assert accepted == [], f"ports reachable through {address}: {accepted}"


_PARENT_THAT_GETS_KILLED = """
import os, subprocess, sys, time

from cheatsheet.distributed import run


def sleeper(rank, world_size, ready):
    grandchild = subprocess.Popen(["sleep", "300"])
    folder = os.path.dirname(os.readlink("/proc/self/fd/1"))
    with open(ready, "a") as file:
        file.write(f"{os.getpid()} {grandchild.pid} {folder}\\n")
    time.sleep(300)


run(sleeper, 2, args=(sys.argv[1],), timeout_s=200)
"""


def _alive_pid(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's reaping is missing


@dataclass(frozen=True)
class _DoomedRun:
    """A process that runs two sleeping ranks, each with a ``sleep`` child, for a test to kill."""

    parent: subprocess.Popen[bytes]
    ranks: frozenset[int]
    grandchildren: frozenset[int]
    folder: Path


@pytest.fixture
def doomed_run(tmp_path):
    ready = tmp_path / "ready"
    parent = subprocess.Popen([sys.executable, "-c", _PARENT_THAT_GETS_KILLED, str(ready)])
    reported: list[list[str]] = []
    try:
        deadline = time.monotonic() + 60
        while len(reported) < 2 and parent.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            with contextlib.suppress(FileNotFoundError):
                lines = ready.read_text().splitlines(keepends=True)
                # Only whole lines: a rank may be writing its own as we read.
                reported = [line.split() for line in lines if line.endswith("\n")]
        assert len(reported) == 2, "the ranks did not start"
        yield _DoomedRun(
            parent=parent,
            ranks=frozenset(int(row[0]) for row in reported),
            grandchildren=frozenset(int(row[1]) for row in reported),
            folder=Path(reported[0][2]),
        )
    finally:
        # Whatever the test left: a failing run must not leave sleepers behind.
        for row in reported:
            for pid in row[:2]:
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
        parent.kill()
        parent.wait()
        if reported:
            shutil.rmtree(reported[0][2], ignore_errors=True)


def _gone_within(seconds: float, pids: frozenset[int], folder: Path | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (
        (folder is not None and folder.exists()) or any(_alive_pid(pid) for pid in pids)
    ):
        time.sleep(0.05)
    assert not [pid for pid in pids if _alive_pid(pid)], "processes outlived the launcher"
    assert folder is None or not folder.exists(), "the temporary folder outlived the launcher"


@pytest.mark.slow
def test_ranks_their_children_and_folder_go_when_the_parent_is_killed(doomed_run):
    doomed_run.parent.kill()
    doomed_run.parent.wait()
    _gone_within(10, doomed_run.ranks | doomed_run.grandchildren, doomed_run.folder)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_ranks_die_with_the_parent_even_when_its_watchdog_is_killed_first(doomed_run):
    watchdogs = _children_of(doomed_run.parent.pid) - doomed_run.ranks
    assert len(watchdogs) == 1
    for pid in (*watchdogs, doomed_run.parent.pid):
        os.kill(pid, signal.SIGKILL)
    doomed_run.parent.wait()
    _gone_within(10, doomed_run.ranks)


# -- Pieces of run() that need no process: messages, excerpts, exit codes ------------


def test_output_lines_are_prefixed_with_their_rank():
    from cheatsheet.distributed import _format_lines

    assert _format_lines([("a", "b"), (), ("c",)]) == "[rank 0] a\n[rank 0] b\n[rank 2] c"
    assert RunResult(1, (("x",),), (None,), 0.0, "fork", (1,)).output() == "[rank 0] x"


def test_an_excerpt_keeps_head_and_tail_and_says_what_it_skipped():
    from cheatsheet.distributed import _excerpt

    short = [f"line {i}" for i in range(120)]
    assert _excerpt(short) == short
    lines = [f"line {i}" for i in range(121)]
    shown = _excerpt(lines)
    assert shown[:20] == lines[:20]
    assert (
        shown[20] == "... 1 lines (8 bytes) skipped; .lines holds them all ..."
    )  # "line 20" and its newline
    assert shown[21:] == lines[21:]
    assert _excerpt(["é" * 1000]) == ["é" * 1000]
    assert _excerpt(["y" * 2500]) == ["y" * 1000 + " ... [1,500 more characters]"]


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (None, "still running"),
        (0, "exit code 0"),
        (3, "exit code 3"),
        (-signal.SIGKILL, "killed by SIGKILL"),
        (-200, "killed by signal 200"),
    ],
)
def test_exit_codes_are_described_in_words(code, text):
    from cheatsheet.distributed import _exit_description

    assert _exit_description(code) == text


def _returns(rank, world_size, *args):
    return (rank, world_size, args)


def _exits_with(rank, world_size, code):
    sys.exit(code)


def _raises(rank, world_size):
    raise KeyError("missing")


def test_call_returns_the_outcome_and_the_exit_code_python_would_set(capsys):
    from cheatsheet.distributed import _call

    assert _call(_returns, 1, 2, ("x",)) == ({"ok": True, "value": (1, 2, ("x",))}, 0)
    assert _call(_exits_with, 0, 1, (None,)) == ({"ok": True, "value": None}, 0)
    assert _call(_exits_with, 0, 1, (0,)) == ({"ok": True, "value": None}, 0)
    outcome, code = _call(_exits_with, 0, 1, (3,))
    assert (outcome["ok"], code) == (False, 3)
    assert "SystemExit: 3" in outcome["traceback"]
    assert _call(_exits_with, 0, 1, (256,))[1] == 1  # 256 would read as success
    assert _call(_exits_with, 0, 1, (257,))[1] == 1
    assert capsys.readouterr().err == ""
    outcome, code = _call(_exits_with, 0, 1, ("cannot go on",))
    assert (outcome["ok"], code) == (False, 1)
    assert capsys.readouterr().err == "cannot go on\n"
    outcome, code = _call(_raises, 0, 1, ())
    assert (outcome["ok"], code) == (False, 1)
    assert outcome["traceback"].endswith("KeyError: 'missing'\n")
    assert capsys.readouterr().err == outcome["traceback"]


def test_argument_errors_name_the_value_and_the_fix():
    from cheatsheet.distributed import _check_arguments

    def message(*args):
        with pytest.raises((TypeError, ValueError)) as caught:
            _check_arguments(*args)
        return str(caught.value)

    assert message(3, 2, 10, "gloo") == (
        "run() needs a function as its first argument, got int; "
        "pass the function itself, e.g. run(train, 2), not run(train(0, 2), 2)"
    )
    assert message(_returns, "2", 10, "gloo") == (
        "world_size must be an integer number of processes, got '2'"
    )
    assert message(_returns, 0, 10, "gloo") == (
        "world_size must be at least 1 process, got 0; use e.g. world_size=2"
    )
    assert message(_returns, 1, True, "gloo") == "timeout_s must be a number of seconds, got True"
    assert message(_returns, 1, math.nan, "gloo") == (
        "timeout_s must be a positive, finite number of seconds, got nan; the default is 120"
    )
    assert message(_returns, 1, 10, "") == (
        "backend must be a backend name such as 'gloo' or 'nccl', got ''"
    )
    assert message(_returns, 1, 10, None).startswith("backend must be a backend name")
    _check_arguments(_returns, 1, 0.001, "mpi")  # the smallest valid values pass


def test_nccl_needs_one_gpu_per_rank(monkeypatch):
    from cheatsheet.distributed import _check_arguments

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    _check_arguments(_returns, 2, 10, "nccl")
    with pytest.raises(ValueError, match="one CUDA GPU per rank") as caught:
        _check_arguments(_returns, 3, 10, "nccl")
    assert str(caught.value) == (
        "backend='nccl' needs one CUDA GPU per rank (3), this machine has 2; "
        "use backend='gloo' to run on CPU"
    )


def test_the_start_method_is_fork_on_linux_and_spawn_elsewhere(monkeypatch):
    import cheatsheet.distributed as module

    monkeypatch.setattr(module.sys, "platform", "linux")
    assert module._start_method() == "fork"
    monkeypatch.setattr(module.sys, "platform", "darwin")
    assert module._start_method() == "spawn"


def test_rank_environment_points_at_the_store(monkeypatch):
    import cheatsheet.distributed as module

    class Store:
        def environment(self):
            return {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1234"}

    assert module._rank_environment(1, 3, Store(), "gloo") == {
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": "1234",
        "RANK": "1",
        "WORLD_SIZE": "3",
        "LOCAL_RANK": "1",
        "LOCAL_WORLD_SIZE": "3",
        "CHEATSHEET_DIST_BACKEND": "gloo",
    }


def test_the_store_falls_back_where_libuv_refuses_a_listening_socket(monkeypatch):
    """torch 2.5 and 2.6: the libuv store raises NotImplementedError on master_listen_fd."""
    import torch.distributed as dist

    import cheatsheet.distributed as module

    calls = []

    def store(*args, **kwargs):
        calls.append(kwargs)
        if kwargs.get("use_libuv", True):
            raise NotImplementedError("The libuv TCPStore backend does not support it")
        return "legacy store"

    monkeypatch.setattr(dist, "TCPStore", store)
    rendezvous = module._Rendezvous()
    fd = rendezvous.inherited_fds[0]
    try:
        rendezvous.serve(2)
        assert rendezvous._store == "legacy store"
        assert [c.get("use_libuv") for c in calls] == [None, False]
        assert all(c["master_listen_fd"] == fd for c in calls)
    finally:
        rendezvous._store = None
        os.close(fd)
