"""cheatsheet._torchrun: scripts run under torchrun for real, and nothing of a run outlives it."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from cheatsheet import _torchrun as torchrun
from cheatsheet._torchrun import Launch, Result, TorchrunError, marked_launch, run

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="the checks read processes from /proc"
)

# The ranks of these scripts import no torch: a run costs torchrun's own start.
HELLO = """
import os, sys
rank = int(os.environ["RANK"])
print(f"hello from rank {rank} of {os.environ['WORLD_SIZE']}")
print(f"rank {rank} on stderr", file=sys.stderr)
"""

# Writes the pids of this rank and of a grandchild in a session of its own, then
# ``then`` decides how the rank ends.
LEAVES_A_GRANDCHILD = """
import os, subprocess, sys, time
from pathlib import Path

def wait_forever():
    time.sleep(300)

rank = int(os.environ["RANK"])
grandchild = subprocess.Popen(["sleep", "300"], start_new_session=True)
Path(__file__).with_name(f"pids{rank}").write_text(f"{os.getpid()} {grandchild.pid}")
print(f"rank {rank} started", flush=True)
THEN
"""


def _script(folder: Path, name: str, code: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return path


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _reported_pids(folder: Path) -> list[int]:
    return [int(pid) for f in sorted(folder.glob("pids*")) for pid in f.read_text().split()]


def _children_of_this_process() -> set[int]:
    return set(torchrun._below(os.getpid()))


@pytest.fixture(autouse=True)
def _nothing_left_behind():
    before = _children_of_this_process()
    yield
    assert _children_of_this_process() <= before, "a run left a process behind"


@pytest.fixture(autouse=True)
def _torchrun_logs_in_the_test_s_folder(tmp_path, monkeypatch):
    # torchrun leaves a torchelastic_* folder of logs in the temporary directory per run.
    monkeypatch.setenv("TMPDIR", str(tmp_path))


@pytest.fixture(params=["namespace", "no namespace"])
def isolation(request, monkeypatch) -> str:
    """Run under both setups: with a network namespace, and as where none is allowed."""
    if request.param == "namespace" and not torchrun._namespace():
        pytest.skip("this machine refuses unshare --map-root-user --net --mount")
    if request.param == "no namespace":
        monkeypatch.setattr(torchrun, "_namespace", lambda: ())
    return request.param


# -- Running ----------------------------------------------------------------------------


def test_each_rank_s_lines_come_back_prefixed_with_its_rank(tmp_path):
    result = run(_script(tmp_path, "hello.py", HELLO), 2, cwd=tmp_path)
    assert result.returncode == 0
    lines = result.by_rank().splitlines()
    # torchrun tees stdout and stderr from two files: their order within a rank is lost.
    assert sorted(lines[:2]) == ["[rank0]: hello from rank 0 of 2", "[rank0]: rank 0 on stderr"]
    assert sorted(lines[2:]) == ["[rank1]: hello from rank 1 of 2", "[rank1]: rank 1 on stderr"]
    # The reader's command: --tee 3 comes from torchrun's environment variable PET_TEE.
    assert result.command[-2:] == ("--nproc-per-node=2", str(tmp_path / "hello.py"))


def test_a_raising_rank_fails_the_run_with_its_traceback_and_stops_the_others(tmp_path):
    # Rank one raises only once rank zero's line is written: on a busy machine rank zero
    # may otherwise start after torchrun has already stopped it, and print nothing.
    raises = """
    import os, time
    from pathlib import Path
    rank = int(os.environ["RANK"])
    printed = Path(__file__).with_name("rank0-printed")
    print(f"rank {rank} before the error", flush=True)
    if rank == 0:
        printed.touch()
    else:
        while not printed.exists():
            time.sleep(0.01)
        raise ValueError("deliberate failure on rank one")
    time.sleep(300)  # waits for a peer that is gone: torchrun must stop it
    """
    started = time.monotonic()
    with pytest.raises(TorchrunError) as info:
        run(_script(tmp_path, "raises.py", raises), 2, cwd=tmp_path)
    assert time.monotonic() - started < 120, "the waiting rank was not stopped"
    message = str(info.value)
    assert "failed (exit status 1)" in message
    assert "[rank1]: Traceback (most recent call last):" in message
    assert "[rank1]: ValueError: deliberate failure on rank one" in message
    assert "[rank0]: rank 0 before the error" in message
    assert info.value.result.returncode == 1


@pytest.mark.parametrize(
    ("ending", "says"),
    [
        ("sys.exit(3)", "exitcode  : 3"),
        ("import ctypes; ctypes.string_at(0)", "[rank1]: Fatal Python error: Segmentation fault"),
    ],
    ids=["exits", "crashes"],
)
def test_a_rank_that_exits_or_crashes_fails_the_run(tmp_path, ending, says):
    code = f"""
    import os, sys, time
    def main():
        if os.environ["RANK"] == "1":
            {ending}
        time.sleep(300)
    main()
    """
    with pytest.raises(TorchrunError) as info:
        run(_script(tmp_path, "ends.py", code), 2, cwd=tmp_path)
    assert says in str(info.value)
    if "Segmentation" in says:  # the crashed rank's Python stack, from faulthandler
        assert "[rank1]:   File " in str(info.value)
        assert "line 5 in main" in str(info.value)


@pytest.mark.slow
def test_a_hung_rank_times_out_showing_its_stack_and_nothing_outlives_it(tmp_path, isolation):
    code = LEAVES_A_GRANDCHILD.replace("THEN", "if rank == 0:\n    wait_forever()")
    with pytest.raises(TorchrunError) as info:
        # Five times what torchrun takes to start ranks that import no torch (about 3 s
        # on a busy two-core machine): every second here is waited in full, twice.
        run(_script(tmp_path, "hangs.py", code), 2, timeout_s=15, cwd=tmp_path)
    message = str(info.value)
    assert "timed out" in message
    assert info.value.result.returncode == 124
    assert "[rank0]: rank 0 started" in message
    assert "[rank0]: Fatal Python error: Aborted" in message
    assert "line 6 in wait_forever" in message  # where it hung
    pids = _reported_pids(tmp_path)
    assert len(pids) == 4
    assert not [pid for pid in pids if _alive(pid)]


def test_a_grandchild_in_a_session_of_its_own_does_not_outlive_the_run(tmp_path, isolation):
    code = LEAVES_A_GRANDCHILD.replace("THEN", "")  # every rank returns at once
    result = run(_script(tmp_path, "leaves.py", code), 2, cwd=tmp_path)
    assert result.loopback_only is (isolation == "namespace")
    pids = _reported_pids(tmp_path)
    assert len(pids) == 4
    assert not [pid for pid in pids if _alive(pid)], "a rank or its grandchild outlived the run"


_CALLER = """
import sys
from cheatsheet._torchrun import run
run(sys.argv[1], 2, cwd=sys.argv[2])
"""


@pytest.mark.slow
def test_a_killed_caller_takes_the_run_with_it(tmp_path):
    code = LEAVES_A_GRANDCHILD.replace("THEN", "wait_forever()")
    script = _script(tmp_path, "sleeps.py", code)
    caller = subprocess.Popen(
        [sys.executable, "-c", _CALLER, str(script), str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    try:
        deadline = time.monotonic() + 120
        while len(_reported_pids(tmp_path)) < 4 and time.monotonic() < deadline:
            time.sleep(0.2)
        pids = _reported_pids(tmp_path)
        assert len(pids) == 4, "the ranks did not start"
        caller.kill()  # no cleanup of its own: the supervisor hears of it (PR_SET_PDEATHSIG)
        caller.wait()
        deadline = time.monotonic() + 30
        while [pid for pid in pids if _alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in pids if _alive(pid)], "the run outlived its caller"
    finally:
        for pid in _reported_pids(tmp_path):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        caller.kill()
        caller.wait()


# -- Listeners stay on loopback ---------------------------------------------------------------

# Each rank joins a gloo group (so the stores and gloo listen), reports what it
# sees, and waits until the test has looked from outside.
REPORTS_LISTENERS = """
import json, os, socket, time
from pathlib import Path
import torch.distributed as dist

def listening():
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A":  # LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)

dist.init_process_group("gloo")
here = Path(__file__).parent
seen = {"pid": os.getpid(), "agent": os.getppid(), "listening": listening(),
        "interfaces": [name for _, name in socket.if_nameindex()],
        "master_port": int(os.environ["MASTER_PORT"])}
(here / f"rank{dist.get_rank()}.json").write_text(json.dumps(seen))
deadline = time.monotonic() + 120
while not (here / "looked").exists() and time.monotonic() < deadline:
    time.sleep(0.1)
dist.barrier()
dist.destroy_process_group()
"""


def _other_local_address() -> str | None:
    """A non-loopback IPv4 address of this machine, or None if it has none."""
    candidates = []
    with contextlib.suppress(OSError):
        candidates.append(socket.gethostbyname(socket.gethostname()))
    # Connecting a UDP socket sends nothing: it asks the routing table for a source address.
    for destination in ("192.0.2.1", "10.255.255.255"):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.connect((destination, 9))
            candidates.append(udp.getsockname()[0])
    for address in candidates:
        if not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0":
            return address
    return None


def _sockets_of(pids: set[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[len("socket:[") : -1])
    return inodes


def _listening_here(inodes: set[str]) -> set[int]:
    """Ports that sockets ``inodes`` listen on in this process's network namespace."""
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


@pytest.mark.slow
def test_a_run_s_listeners_are_on_its_own_loopback_and_refuse_other_addresses(tmp_path):
    if not torchrun._namespace():
        pytest.skip("no network namespace here: torchrun's stores listen on every interface")
    script = _script(tmp_path, "listeners.py", REPORTS_LISTENERS)
    outcome: list[Result | BaseException] = []
    worker = threading.Thread(target=lambda: outcome.append(run(script, 2, cwd=tmp_path)))
    worker.start()
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("rank*.json"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        seen = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("rank*.json"))]
        assert len(seen) == 2, "the ranks did not report"
        for rank in seen:
            assert rank["interfaces"] == ["lo"]
            assert rank["master_port"] in rank["listening"], "the store was not seen listening"
        # Seen from this machine's own network, the run listens nowhere, and its ports
        # refuse connections from another address of this machine.
        pids = {rank["pid"] for rank in seen} | {rank["agent"] for rank in seen}
        assert _listening_here(_sockets_of(pids)) == set()
        address = _other_local_address()
        ports = {port for rank in seen for port in rank["listening"]}
        for port in sorted(ports) if address else ():
            refused = (ConnectionRefusedError, TimeoutError)
            with pytest.raises(refused), socket.create_connection((address, port), timeout=5):
                pass
    finally:
        (tmp_path / "looked").write_text("")
        worker.join()
    assert isinstance(outcome[0], Result)


# -- Pieces that need no process ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "launch"),
    [
        ("# torchrun --nproc-per-node=2 hello.py\nimport torch\n", Launch(2, "hello.py")),
        ("\n# torchrun --nproc-per-node=4 mesh_2d.py\n", Launch(4, "mesh_2d.py")),
        ("import torch\n# torchrun --nproc-per-node=2 hello.py\n", None),  # not the first line
        ("# torchrun --nproc_per_node=2 hello.py\n", None),  # one spelling
        ("# torchrun --nproc-per-node=2 hello.py --epochs 3\n", None),  # no arguments
        ("# torchrun --nproc-per-node=2\n", None),  # no script name
    ],
)
def test_the_marker_is_the_reader_s_command_on_the_first_line(code, launch):
    assert marked_launch(code) == launch


def test_by_rank_keeps_each_rank_s_order_and_torchrun_s_own_lines_first():
    output = "[rank1]: b1\n[rank0]: a1\ntorchrun says\n[rank10]: z\n[rank0]: a2\n[rank1]: b2\n"
    result = Result(("torchrun",), 0, output, 1.0, loopback_only=True)
    assert result.by_rank().splitlines() == [
        "torchrun says", "[rank0]: a1", "[rank0]: a2", "[rank1]: b1", "[rank1]: b2", "[rank10]: z",
    ]  # fmt: skip


def test_an_error_says_how_the_run_ended_and_ends_with_its_output():
    timed_out = TorchrunError(Result(("torchrun", "x.py"), 124, "[rank0]: stack\n", 9.0, True))
    assert str(timed_out).startswith("torchrun x.py failed (timed out;")
    assert str(timed_out).endswith("[rank0]: stack\n")
    flood = "x" * 30_000 + "[rank1]: ValueError: last\n"
    failed = TorchrunError(Result(("torchrun",), 1, flood, 1.0, True))
    assert "failed (exit status 1):\n...\n" in str(failed)
    assert str(failed).endswith("[rank1]: ValueError: last\n")
    assert len(str(failed)) < 21_000
    assert failed.result.output == flood


def test_a_rank_s_line_that_tee_passed_on_in_two_pieces_is_joined():
    from cheatsheet._torchrun import join_split_lines

    split = "[rank0]: rank 0 of 2\n[rank1]: rank 1 of 2[rank1]: \n[rank1]: next\n"
    assert join_split_lines(split) == "[rank0]: rank 0 of 2\n[rank1]: rank 1 of 2\n[rank1]: next\n"
    three = "[rank1]: a[rank1]: b[rank1]: \n"
    assert join_split_lines(three) == "[rank1]: ab\n"
    other = "[rank1]: says [rank0]: as text\n"  # another rank's prefix is not a continuation
    assert join_split_lines(other) == other


def test_a_script_s_run_leaves_no_torchrun_logs_behind():
    # torchrun keeps a run's logs in a torchelastic_* folder of the temporary directory and
    # never removes it: the build's runs put it in the script's own folder, which goes.
    from cheatsheet._blocks import run_script

    code = textwrap.dedent("""\
        # torchrun --nproc-per-node=1 where.py
        import os
        print("logs", os.environ["TORCHELASTIC_ERROR_FILE"])
        print("folder", os.getcwd())
    """)
    result = run_script(code)
    assert result.returncode == 0, result.output
    said = dict(line.split(" ", 1) for line in result.output.splitlines() if " " in line)
    logs, folder = Path(said["logs"]), Path(said["folder"])
    assert logs.is_relative_to(folder), (logs, folder)
    assert not folder.exists()
