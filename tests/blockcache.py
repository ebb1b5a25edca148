"""Which blocks of the site passed alone, and under what: a pass holds until that changes.

Running every block of the site alone costs about 450 CPU-seconds, most of it in a few
blocks that compile or time cold starts in fresh processes. After a contributor changes
one page and builds again, nearly all blocks are the ones that passed last time, on
the same machine, with the same packages. This file remembers each pass by the block's
code and everything else a block's run depends on, the way sphinx-gallery remembers a
page by its ``.md5``: the inputs every page depends on (``pageinputs.page_inputs``:
the helper package's source, the build hooks, Python, the CPU, the environment
variables that change what torch does) and the version of every installed
distribution (a block may import any of them). A block whose code or any input
changed runs again; a failure is never remembered.

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
from collections.abc import Iterable
from pathlib import Path

from snippets import Block, Outcome

EVERY_BLOCK = "CHEATSHEET_EVERY_BLOCK"


def inputs() -> dict[str, str]:
    """What a block's run depends on besides its code (see the module's docstring)."""
    from pageinputs import page_inputs

    installed = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in importlib.metadata.distributions()
        if d.metadata["Name"]
    )
    return {**page_inputs(), "installed": hashlib.sha256("\n".join(installed).encode()).hexdigest()}


def key(block: Block, depends_on: dict[str, str]) -> str:
    """Name one block's run: its code and what it depends on, digested."""
    digest = hashlib.sha256(json.dumps(depends_on, sort_keys=True).encode())
    digest.update(b"\0" + block.code.encode("utf-8"))
    return digest.hexdigest()


class PassRecord:
    """The blocks that passed alone, each under the inputs of its run.

    Parameters
    ----------
    path : Path
        The record's file; it need not exist yet.
    depends_on : dict of str to str
        This run's inputs (:func:`inputs`).
    """

    def __init__(self, path: Path, depends_on: dict[str, str]) -> None:
        self.path = path
        self.depends_on = depends_on
        try:
            self._passed: dict[str, dict] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._passed = {}

    def passed(self, block: Block) -> bool:
        """Whether ``block`` passed alone before, with this code and these inputs."""
        return key(block, self.depends_on) in self._passed

    def split(self, blocks: Iterable[Block]) -> tuple[list[Block], list[Block]]:
        """Return the blocks to run now and the blocks that passed under these inputs.

        With ``CHEATSHEET_EVERY_BLOCK=1`` in the environment every block runs.
        """
        blocks = list(blocks)
        if os.environ.get(EVERY_BLOCK) == "1":
            return blocks, []
        return [b for b in blocks if not self.passed(b)], [b for b in blocks if self.passed(b)]

    def save(self, outcomes: Iterable[Outcome], still_shown: Iterable[Block]) -> None:
        """Remember the blocks that passed now; keep only passes of blocks ``still_shown``."""
        kept = {key(b, self.depends_on) for b in still_shown}
        passed = {k: v for k, v in self._passed.items() if k in kept}
        today = datetime.date.today().isoformat()
        for outcome in outcomes:
            if not outcome.ok:  # a pass remembered from before no longer holds
                passed.pop(key(outcome.block, self.depends_on), None)
            else:
                passed[key(outcome.block, self.depends_on)] = {
                    "origin": outcome.block.origin,
                    "seconds": round(outcome.seconds, 2),
                    "on": today,
                }
        self._passed = passed
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(passed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
