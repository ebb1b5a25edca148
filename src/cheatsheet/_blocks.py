"""The site's code blocks, and running each alone in its own process, as a reader pastes it.

A reader copies one block into a fresh file or interpreter and runs it, so a block
must bring its own imports, tensors and seeds. :func:`gallery_blocks` splits an example
page into its code blocks as sphinx-gallery shows them (through
:func:`cheatsheet._entries.page_entries`, the one split of a page this project has);
:func:`run_alone` runs each in a new process whose namespace is empty. The blocks test
(``tests/snippets.py``, which also reads blocks from built HTML) and the version runs
(``tools/torch_versions.py``) both run blocks here.

Starting a Python that imports torch costs about a second, and the site has hundreds
of blocks, so the processes are forked from a server that has imported torch, NumPy
and matplotlib and nothing else (:mod:`cheatsheet._blockserver`): a fork sees the same
empty ``__main__`` as a fresh interpreter (a missing ``import torch`` still fails with
NameError) and no state that another block left, because every block forks from the
same untouched server. A block
that compiles forks from a second server that has also imported Dynamo and Inductor
(3.5 s more), when its source shows that it reaches no module of theirs that a fresh
interpreter would not have imported for it (:func:`fresh_reaches`): with both, the
site's blocks took 293 s (558 CPU-seconds) against 323 s (625) with the plain server
alone, on the 2-core machine (one run each, nothing else running).
``fresh=True`` starts a real new interpreter for each block instead. A block whose
first line is ``# torchrun --nproc-per-node=N name.py`` is a script for torchrun: it is
saved as ``name.py`` and started with that command from a shell that has nothing of this
repository, as a reader starts it (:mod:`cheatsheet._torchrun`).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

if TYPE_CHECKING:
    from cheatsheet import _torchrun as torchrun

__all__ = [
    "BLOCK_TIMEOUT_S",
    "EXCEPTION_LINE",
    "OUTPUT_CHARS",
    "TRANSIENT_RUNS",
    "Block",
    "Outcome",
    "clip_output",
    "gallery_blocks",
    "run_alone",
    "run_script",
    "script_digest",
    "transient",
]

# A hung block is stopped after this long. The slowest block that ends, compile_time's
# regional compilation (cold and warm starts in fresh processes), is most of a page that
# runs 4 to 5 minutes in a build on two cores, and it ran past 300 s beside the tests.
BLOCK_TIMEOUT_S = 600.0
# A run's output is kept up to this many characters, its end (see clip_output).
OUTPUT_CHARS = 20_000
# "RuntimeError: ...", "torch._dynamo.exc.Unsupported: ...", "[rank1]: TypeError: ..."
EXCEPTION_LINE = re.compile(r"^(?:\[rank\s*\d+\]:?\s*)?(?:[a-z_]\w*\.)*[A-Z]\w*: ")


def clip_output(text: str, limit: int = OUTPUT_CHARS) -> str:
    """Keep the last ``limit`` characters of a run's output, and its exception lines.

    An error can print far more than the limit after its exception line (Inductor's
    C++ compile error prints the compiler's whole report, then Dynamo's hint): the
    exception lines of the part cut off go first, so the error still names itself.
    """
    if len(text) <= limit:
        return text
    cut, tail = text[:-limit], text[-limit:]
    lines = [line for line in cut.splitlines() if EXCEPTION_LINE.match(line)][-3:]
    head = "".join(f"{line[:500]}\n" for line in lines)
    return f"{head}[... {len(cut):,} characters of output cut ...]\n{tail}"


@dataclass(frozen=True)
class Block:
    """One code block: where it is (page and line, for messages) and its code."""

    origin: str
    code: str


@dataclass(frozen=True)
class Outcome:
    """What running one block alone did: whether it ended well, what it printed, how long."""

    block: Block
    ok: bool
    output: str
    seconds: float


def gallery_blocks(path: str | os.PathLike[str]) -> list[Block]:
    """Return the code blocks of an example script, as sphinx-gallery splits and shows them."""
    from sphinx_gallery.py_source_parser import remove_config_comments, remove_ignore_blocks

    from cheatsheet._entries import page_entries

    found = []
    for entry in page_entries(Path(path)):
        for block in entry.blocks:
            code = remove_config_comments(remove_ignore_blocks(block.code)).strip()
            if code:
                line = block.origin.rsplit(":", 1)[1]
                found.append(Block(f"{Path(path).as_posix()}:{line}", code + "\n"))
    return found


# -- Running ---------------------------------------------------------------------

# The server itself is a module of its own (_blockserver.py), started by its path.
_SERVER = Path(__file__).with_name("_blockserver.py")


def _write(block: Block, folder: str, n: int) -> str:
    path = os.path.join(folder, f"block_{n}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(block.code)
    return path


def _run_fresh(block: Block, path: str, timeout: float, env: dict[str, str]) -> Outcome:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, path],
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return Outcome(
            block, False, f"timed out after {timeout:.0f} s", time.perf_counter() - start
        )
    output = done.stdout + done.stderr
    if done.returncode < 0:  # no traceback: say what ended it
        output += f"\nkilled by {signal.Signals(-done.returncode).name}"
    return Outcome(block, done.returncode == 0, clip_output(output), time.perf_counter() - start)


# What a compiling block imports, in a process of its own, after torch: Dynamo (which
# brings Inductor's package and config) and Inductor's compiler. The compiler's server
# imports them once; a block forked from it skips about 3.5 s of imports here.
_COMPILER = ("torch._dynamo", "torch._inductor.compile_fx")
_COMPILES = re.compile(r"compile|export|_dynamo|_inductor|flex_attention")


def _dotted(node: ast.expr) -> list[str] | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return [node.id, *reversed(names)] if isinstance(node, ast.Name) else None


def fresh_reaches(code: str, loaded: dict[str, list[str]], lazy: Iterable[str] = ()) -> bool:
    """Whether every module ``code`` reaches by attribute, a fresh interpreter reaches too.

    A block forked from the compiler's server finds the modules its imports ``loaded``
    already in place: ``torch._inductor.compile_fx`` bound to ``torch._inductor``, say.
    A fresh interpreter binds a submodule only when something imports it, so a block
    that reads ``torch._inductor.compile_fx`` after a mere ``import torch`` fails there
    (AttributeError) and would pass here. Read from the source: every dotted name the
    block uses that reaches one of those modules must reach it through the block's own
    imports (a module and its packages; an ``import torch._dynamo`` brings all that the
    server's import of it loaded) or be one of the ``lazy`` modules torch imports on
    first use (``torch._inductor``, say: the module itself, since what importing it
    loads arrives only when the block first reads it). A block that does not is run on
    the plain server, as it always was.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    names: dict[str, str] = {}  # a name the block binds -> the module path it stands for
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                imported.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
                names[alias.asname or parts[0]] = alias.name if alias.asname else parts[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            imported.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
            for alias in node.names:
                imported.add(f"{node.module}.{alias.name}")
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    preloaded = {m for modules in loaded.values() for m in modules}
    reached: set[str] = set()
    for node in ast.walk(tree):
        chain = _dotted(node) if isinstance(node, ast.Attribute) else None
        if chain and chain[0] in names:
            path = names[chain[0]].split(".") + chain[1:]
            reached.update(".".join(path[:n]) for n in range(2, len(path) + 1))
    if "torch._dynamo" in imported:  # imported whole, as the server did
        imported.update(loaded.get("torch._dynamo", ()))
    imported.update(set(lazy) & reached)  # the module itself: what it loads comes later
    return not {m for m in reached if m in preloaded and m not in imported}


class _Server:
    """A process that has imported torch (and ``preload``) and forks one child per block."""

    def __init__(self, env: dict[str, str], preload: tuple[str, ...] = ()) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(_SERVER), *preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        # Both are pipes, as asked: never None.
        self.stdin, self.stdout = (
            cast(IO[str], self.process.stdin),
            cast(IO[str], self.process.stdout),
        )
        line = self.stdout.readline()
        if not line.startswith("{"):
            self.close()
            wanted = ", ".join(("torch", *preload))
            raise RuntimeError(f"the block server did not start (can it import {wanted}?)")
        started = json.loads(line)
        self.loaded: dict[str, list[str]] = started["loaded"]
        self.lazy: list[str] = started["lazy"]
        if started["poisoned"]:  # a compiler's server: the plain one runs its blocks
            self.close()
            raise RuntimeError(
                f"importing {', '.join(('torch', *preload))} leaves forks unable to start "
                "CUDA: a block would raise 'Cannot re-initialize CUDA in forked subprocess' "
                "where a reader's interpreter does not (run the blocks with fresh=True)"
            )

    def run(self, block: Block, path: str, timeout: float) -> Outcome:
        self.stdin.write(json.dumps({"file": path, "timeout": timeout}) + "\n")
        self.stdin.flush()
        result = json.loads(self.stdout.readline())
        ok = result["code"] == 0
        output = clip_output(result["output"])
        if result["code"] == "timeout":
            output += f"\ntimed out after {timeout:.0f} s"
        elif result["code"] < 0:  # no traceback: say what ended it
            output += f"\nkilled by {signal.Signals(-result['code']).name}"
        return Outcome(block, ok, output, result["seconds"])

    def close(self) -> None:
        self.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.stdout.close()


def _serve(
    jobs: Iterator[tuple[Block, str]], timeout: float, env: dict[str, str]
) -> Iterator[Outcome]:
    """Run blocks on a plain server, and compiling ones on a compiler's server when safe."""
    servers: dict[bool, _Server | None] = {}
    try:
        for block, path in jobs:
            compiler = _COMPILES.search(block.code) is not None
            if compiler and True not in servers:
                try:
                    servers[True] = _Server(env, _COMPILER)
                except RuntimeError:  # a torch whose compiler does not import here, or
                    servers[True] = None  # whose import poisons CUDA for forks (_blockserver)
            warm = servers.get(True)
            compiler = (
                compiler and warm is not None and fresh_reaches(block.code, warm.loaded, warm.lazy)
            )
            server = servers.get(compiler)
            if server is None:
                server = servers[compiler] = _Server(env)
            yield server.run(block, path, timeout)
    finally:
        for server in servers.values():
            if server is not None:
                server.close()


# A block that starts gloo processes can lose a connection when the machine is busy
# (a peer slow to answer looks like one that crashed), and a rank that finished its
# script can abort while Python shuts down: C++'s "terminate called without an active
# exception", then faulthandler's report with no Python frame left. That abort is
# torch's (2.14.1; pytorch/pytorch#190489): a gloo worker thread marks a collective
# complete, and only then drops the collective's tensors, which needs the GIL when one
# of them has a Python object. When the main thread has meanwhile reached interpreter
# shutdown, taking the GIL ends the worker thread inside C++ code that cannot be
# unwound, and the process aborts; no reader code can wait for that drop. Seen in the
# core of such a rank; the sharded matmul script aborted in 3 of 72 runs beside two
# CPU-bound processes and in none of 20 alone. A block that starts torchrun itself and
# keeps its ranks' output (errors/distributed_errors) shows only torchrun's exit status,
# which cannot tell such a loss from a bug: once in a full test run beside the browser
# walks it exited 1, and it passed three runs of three alone. The abort is likeliest
# where the last collective ran a Python callback (a DDP communication hook's
# ``then``): the worker thread takes the GIL once more to drop the callback, as a core
# of such a rank showed (``PythonFunctionGuard`` released in ``finishWorkGloo``). The
# DDP no_sync script, which counts all-reduces through such a hook, aborted in 5 of 20
# runs alone on an idle 2-core machine, and a full build needed its third run. Such a
# failure is run again, alone, up to TRANSIENT_RUNS runs in all: at one abort in four,
# three runs lose a page in one build of 64, four in one of 256. A block that fails for
# any other reason fails.
_TRANSIENT = re.compile(
    r"Gloo connectFullMesh failed|Connection (?:closed|reset) by peer"
    r"|terminate called without an active exception"
    r"|'torch\.distributed\.run'.*returned non-zero exit status"
)
#: How many runs in all a block gets whose runs fail only in the ways above.
TRANSIENT_RUNS = 4


def transient(output: str) -> bool:
    """Whether a failed run's ``output`` shows a failure worth one more run (see above)."""
    return _TRANSIENT.search(output) is not None


def run_alone(
    blocks: Iterable[Block],
    *,
    jobs: int | None = None,
    fresh: bool = False,
    timeout: float = BLOCK_TIMEOUT_S,
) -> list[Outcome]:
    """Run every block in a process of its own; ``jobs`` processes at a time."""
    outcomes = _run_all(list(blocks), jobs=jobs, fresh=fresh, timeout=timeout)
    for _ in range(TRANSIENT_RUNS - 1):
        again = [o.block for o in outcomes if not o.ok and transient(o.output)]
        if not again:
            break
        rerun = {id(o.block): o for o in _run_all(again, jobs=1, fresh=fresh, timeout=timeout)}
        outcomes = [rerun.get(id(o.block), o) for o in outcomes]
    return outcomes


def script_digest(code: str) -> str:
    """Return the digest that names a script for torchrun in a page's record."""
    return hashlib.sha256(code.strip().encode("utf-8")).hexdigest()


def run_script(
    code: str, *, timeout_s: float = BLOCK_TIMEOUT_S, rank_prefixes: bool = False
) -> torchrun.Result:
    """Run a block marked ``# torchrun --nproc-per-node=N name.py`` as a reader does.

    The block is saved under the name its first line gives, in a folder of its own, and
    that line's command is typed there, in a shell with nothing of this repository in
    its environment (no ``PYTHONPATH``; only this Python's ``bin`` folder and the
    system's on ``PATH``). With ``rank_prefixes`` each rank's lines come back prefixed
    ``[rankN]:`` (:func:`cheatsheet._torchrun.run`). A failed run is returned too: its
    ``returncode`` says so.

    Raises
    ------
    ValueError
        If the first line is not such a command.
    """
    from cheatsheet import _torchrun as torchrun

    launch = torchrun.marked_launch(code)
    if launch is None:
        raise ValueError("a script for torchrun starts with # torchrun --nproc-per-node=N name.py")
    with tempfile.TemporaryDirectory(prefix="torchrun-block-") as folder:
        Path(folder, launch.script).write_text(code, encoding="utf-8")
        # TMPDIR: torchrun keeps each run's logs in a torchelastic_* folder of the temporary
        # directory and never removes it; in the script's folder they go with it (a build
        # left about 40 in /tmp).
        shell = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
                 "HOME": folder, "TMPDIR": folder, "LANG": "C.UTF-8"}  # fmt: skip
        try:
            return torchrun.run(launch.script, launch.ranks, timeout_s=timeout_s, env=shell,
                                cwd=folder, rank_prefixes=rank_prefixes)  # fmt: skip
        except torchrun.TorchrunError as failed:
            return failed.result


def _run_torchrun(block: Block, timeout: float) -> Outcome:
    done = run_script(block.code, timeout_s=timeout)
    output = done.output + ("\ntimed out" if done.returncode == 124 else "")
    return Outcome(block, done.returncode == 0, clip_output(output), done.elapsed_s)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _block_env(jobs: int) -> dict[str, str]:
    """Return the environment of a block's process when ``jobs`` blocks run at once.

    Each block gets its share of the cores as threads (``OMP_NUM_THREADS``, as torchrun
    gives each rank), unless the caller set a number: with the default, every process
    starts a thread per core, and ``jobs`` of them oversubscribe the cores. On the
    2-core machine the site's blocks took 344 s (665 CPU-seconds) at two threads each,
    two at a time, and 323 s (625) at one (one run each, nothing else running).
    """
    env = {**os.environ, "MPLBACKEND": "Agg"}
    if jobs > 1 and "OMP_NUM_THREADS" not in env:
        env["OMP_NUM_THREADS"] = str(max(1, _cores() // jobs))
    return env


class _Shared:
    """An iterator that several threads take items from, each item once."""

    def __init__(self, items: Iterable[tuple[Block, str]]) -> None:
        self._items = iter(items)
        self._lock = threading.Lock()

    def __iter__(self) -> _Shared:
        return self

    def __next__(self) -> tuple[Block, str]:
        with self._lock:
            return next(self._items)


def _run_all(
    blocks: list[Block], *, jobs: int | None, fresh: bool, timeout: float
) -> list[Outcome]:
    from cheatsheet import _torchrun as torchrun

    jobs = jobs or _cores()
    env = _block_env(jobs)
    scripts = [b for b in blocks if torchrun.marked_launch(b.code)]  # run as a reader runs them
    under_torchrun = {id(b) for b in scripts}
    # A reader's torchrun listens on port 29500: two at once need a network each.
    runs_at_once = jobs if torchrun._namespace() else 1
    with tempfile.TemporaryDirectory(prefix="blocks-") as folder:
        paths = [_write(b, folder, n) for n, b in enumerate(blocks)]
        pairs = [(b, p) for b, p in zip(blocks, paths, strict=True) if id(b) not in under_torchrun]
        with ThreadPoolExecutor(runs_at_once) as pool:
            parts = [list(pool.map(lambda b: _run_torchrun(b, timeout), scripts))]
        with ThreadPoolExecutor(jobs) as pool:
            if fresh:
                parts.append(
                    list(pool.map(lambda bp: _run_fresh(bp[0], bp[1], timeout, env), pairs))
                )
            else:  # each server takes the next block when it is free: one slow block
                queue = _Shared(pairs)  # does not leave the other servers idle at the end
                parts += pool.map(lambda _: list(_serve(queue, timeout, env)), range(jobs))
    order = {id(b): n for n, b in enumerate(blocks)}
    return sorted((o for part in parts for o in part), key=lambda o: order[id(o.block)])
