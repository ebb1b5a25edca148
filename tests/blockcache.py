"""Which blocks of the site passed alone, and under what: a pass holds until that changes.

Running every block of the site alone took about 450 CPU-seconds on the 2-core machine
(one run, nothing else running), most of it in a few blocks that compile or time cold
starts in fresh processes. After a contributor changes one page and builds again,
nearly all blocks are the ones that passed last time, on the same machine, with the
same packages. This file remembers each pass by the block's
code and everything else a block's run depends on, the way sphinx-gallery remembers a
page by its ``.md5``: the inputs every page depends on (``pageinputs.page_inputs``:
the helper package's source, the build hooks, Python, the CPU, the environment
variables that change what torch does) and the version of every installed
distribution (a block may import any of them), as a new interpreter sees them, since
that is where a block runs. When an input changes every block runs again, and the test
names the inputs that changed; a block whose code changed runs again; a failure is
never remembered.

The record lives beside the built site (``_build/blocks-alone.json``), so a clean
build forgets it, and a fresh clone (CI) runs every block. ``CHEATSHEET_EVERY_BLOCK=1``
runs every block even when the record holds it.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from cheatsheet._variables import read
from snippets import Block, Outcome

EVERY_BLOCK = "CHEATSHEET_EVERY_BLOCK"
_EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext"


def inputs() -> dict[str, str]:
    """What a block's run depends on besides its code (see the module's docstring)."""
    sys.path.insert(0, str(_EXT))
    try:
        from pageinputs import page_inputs
    finally:
        sys.path.remove(str(_EXT))
    installed = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in importlib.metadata.distributions()
        if d.metadata["Name"]
    )
    return {**page_inputs(), "installed": hashlib.sha256("\n".join(installed).encode()).hexdigest()}


def fresh_inputs() -> dict[str, str]:
    """:func:`inputs` as a new interpreter of this Python sees them, as a block does.

    A test run's own process is no guide: torch writes Inductor's default cache folder
    into the environment the first time any test compiles (so a worker's inputs changed
    with the order of its tests, and no full run found its own record), and pytest puts
    folders of its own on ``sys.path``, where packages are looked up.
    """
    done = subprocess.run(
        [sys.executable, __file__], capture_output=True, text=True, check=True, env=os.environ
    )
    return json.loads(done.stdout)


def key(block: Block) -> str:
    """Name one block by its code."""
    return hashlib.sha256(block.code.encode("utf-8")).hexdigest()


def read_passes(path: Path, depends_on: dict[str, str]) -> tuple[dict[str, dict], list[str]]:
    """Return the passes a record holds under ``depends_on``, and the inputs that changed.

    A missing or damaged record holds none and names no change; a record made under
    other inputs holds none and names the inputs that differ. The site walk's record
    (walkcache.py) is kept the same way.
    """
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        stored_inputs, passed = dict(stored["inputs"]), dict(stored["passed"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}, []
    every = stored_inputs.keys() | depends_on.keys()
    changed = sorted(k for k in every if stored_inputs.get(k) != depends_on.get(k))
    return (passed if not changed else {}), changed


def write_passes(path: Path, depends_on: dict[str, str], passed: dict, last_run: dict) -> None:
    """Write a record: the inputs, the passes under them, and what the last run did."""
    record = {"inputs": depends_on, "passed": passed, "last run": last_run}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


class PassRecord:
    """The blocks that passed alone under one set of inputs.

    Parameters
    ----------
    path : Path
        The record's file; it need not exist yet.
    depends_on : dict of str to str
        This run's inputs (:func:`fresh_inputs`). Passes recorded under other inputs
        do not count, and :attr:`changed` names the inputs that differ.
    """

    def __init__(self, path: Path, depends_on: dict[str, str]) -> None:
        self.path = path
        self.depends_on = depends_on
        self._passed, self.changed = read_passes(path, depends_on)

    def passed(self, block: Block) -> bool:
        """Whether ``block`` passed alone before, with this code and these inputs."""
        return key(block) in self._passed

    def split(self, blocks: Iterable[Block]) -> tuple[list[Block], list[Block]]:
        """Return the blocks to run now and the blocks that passed under these inputs.

        With ``CHEATSHEET_EVERY_BLOCK=1`` in the environment every block runs.
        """
        blocks = list(blocks)
        if read(EVERY_BLOCK) == "1":
            return blocks, []
        return [b for b in blocks if not self.passed(b)], [b for b in blocks if self.passed(b)]

    def save(self, outcomes: Iterable[Outcome], still_shown: Iterable[Block]) -> None:
        """Remember the blocks that passed now; keep only passes of blocks ``still_shown``."""
        outcomes = list(outcomes)
        kept = {key(b) for b in still_shown}
        passed = {k: v for k, v in self._passed.items() if k in kept}
        today = datetime.date.today().isoformat()
        for outcome in outcomes:
            if not outcome.ok:  # a pass remembered from before no longer holds
                passed.pop(key(outcome.block), None)
            else:
                passed[key(outcome.block)] = {
                    "origin": outcome.block.origin,
                    "seconds": round(outcome.seconds, 2),
                    "on": today,
                }
        last_run = {
            "at": time.time(),
            "ran": len(outcomes),
            "passed before": len(kept - {key(o.block) for o in outcomes}),
            "inputs changed": self.changed,
        }
        self._passed, self.changed = passed, []
        write_passes(self.path, self.depends_on, passed, last_run)


def last_run_line(
    path: Path, since: float, what: str = "blocks alone", every: str = EVERY_BLOCK
) -> str | None:
    """Say how a test used the record at ``path`` (``what`` it holds), if after ``since``.

    ``every`` names the variable that makes the test run everything the record holds.
    """
    try:
        last = json.loads(path.read_text(encoding="utf-8"))["last run"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if last["at"] < since:
        return None
    changed = f" (inputs changed: {', '.join(last['inputs changed'])})"
    return (
        f"{what}: {last['ran']} ran now{changed if last['inputs changed'] else ''}, "
        f"{last['passed before']} passed before with the same code and inputs ({path}; "
        f"{every}=1 runs them all)"
    )


if __name__ == "__main__":  # fresh_inputs() runs this file in a new interpreter
    # Inductor writes its default cache folder into the environment the first time it
    # asks for it, so a test process that compiled something has TORCHINDUCTOR_CACHE_DIR
    # set and one that did not has not. The default set and unset are the same input.
    try:
        from torch._inductor.runtime.cache_dir_utils import default_cache_dir
    except ImportError:  # a torch without it: the variable counts as it stands
        pass
    else:
        if os.environ.get("TORCHINDUCTOR_CACHE_DIR") == default_cache_dir():
            del os.environ["TORCHINDUCTOR_CACHE_DIR"]
    print(json.dumps(inputs()))
