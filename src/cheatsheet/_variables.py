"""Every ``CHEATSHEET_*`` environment variable the project reads, with its default and meaning, and the one way to read them.

The package, the build hooks (``docs/_ext``), ``conf.py``, the noxfile, the benchmarks and
the tests all read their variables through :func:`read`, which refuses a name not listed
here. The table in CONTRIBUTING.md ("Environment variables") is this list as
``python src/cheatsheet/_variables.py`` prints it, and a test holds the two together.
The module needs nothing but the standard library: the noxfile loads it by its path,
in a Python that has neither torch nor this package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    """One variable: its name, its value when unset ("" for none), who reads it, what it does."""

    name: str
    default: str
    read_by: str
    meaning: str


VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable("CHEATSHEET_DEVICE", "", "`cheatsheet.device`",
                 "the device the pages run on (`cuda`, `mps`, `xpu`, `cpu`); unset, the best available"),
        Variable("CHEATSHEET_RUN_ONLY", "", "`docs/_ext/freshpage.py`, `docs/_ext/pageinputs.py`",
                 "a pattern of the pages that run; the others keep their last output "
                 "(`nox -s docs -- <page>.py`, `--shard`, `--benchmarks` set it)"),
        Variable("CHEATSHEET_PAGE_JOBS", "", "`docs/_ext/freshpage.py`",
                 "how many pages that measure nothing run at once (unset: one per core; "
                 "`1` runs one page at a time)"),
        Variable("CHEATSHEET_PAGE_TIMEOUT_S", "1800", "`docs/_ext/freshpage.py`",
                 "the seconds a page may run before it is stopped, with everything it "
                 "started, and fails the build naming itself"),
        Variable("CHEATSHEET_MERGE", "", "`conf.py`, `docs/_ext/shards.py`, `docs/_ext/pageinputs.py`",
                 "build from shard folders, running no page (`nox -s merge` sets it)"),
        Variable("CHEATSHEET_SITE_URL", "", "`docs/_ext/sitebuild.py`",
                 "the published address, for canonical URLs and the sitemap (the workflow sets it)"),
        Variable("CHEATSHEET_TORCH_INDEX", "", "`noxfile.py`",
                 "an index to take the pinned torch from, such as PyTorch's CPU index"),
        Variable("CHEATSHEET_TORCHRUN_ANY_INTERFACE", "", "`docs/_ext/blockexec.py`",
                 "`1` lets a build that cannot make a network namespace run the pages' "
                 "torchrun scripts, whose stores then listen on every interface; unset, "
                 "that build fails, saying how to allow the namespace"),
        Variable("CHEATSHEET_EVERY_BLOCK", "", "`tests/blockcache.py`",
                 "`1` runs every block of the site alone, even those that passed before "
                 "with the same code and inputs"),
        Variable("CHEATSHEET_EVERY_CLOCK", "", "`tests/clockcache.py`",
                 "`1` runs every test marked `clock` again, even those that passed before "
                 "with the same code and inputs"),
        Variable("CHEATSHEET_EVERY_PAGE", "", "`tests/walkcache.py`",
                 "`1` walks every page of the site in the browser again, even those that "
                 "passed before with the same files, browser and walk"),
        Variable("CHEATSHEET_REQUIRE_BROWSER", "", "`tests/conftest.py`",
                 "fail, not skip, the browser tests when Chromium is missing (CI sets it)"),
        Variable("CHEATSHEET_CHROMIUM", "/usr/bin/chromium", "the browser tests, `tools/`, `benchmarks/`",
                 "the Chromium to drive"),
        Variable("CHEATSHEET_COMMIT", "", "`docs/_ext/pagerecords.py`, `docs/_ext/feedback.py`",
                 "the commit a copy of the tree was made from, for its page records (a GPU "
                 "machine the tree was sent to); it wins over a `.git` that travelled with the copy"),
    )
}  # fmt: skip


def read(name: str) -> str:
    """Return the value of the variable ``name``, stripped, or its default when unset or empty.

    Raises
    ------
    KeyError
        If ``name`` is not one of :data:`VARIABLES`: add it there, with its meaning.
    """
    try:
        variable = VARIABLES[name]
    except KeyError:
        raise KeyError(
            f"{name} is not a variable of src/cheatsheet/_variables.py: add it to VARIABLES, "
            "with its default and meaning, and its row to CONTRIBUTING.md"
        ) from None
    return os.environ.get(name, "").strip() or variable.default


def table() -> str:
    """Return the Markdown table of every variable, as CONTRIBUTING.md holds it."""
    rows = ["| variable | default | read by | what it does |", "| --- | --- | --- | --- |"]
    for v in VARIABLES.values():
        default = f"`{v.default}`" if v.default else "unset"
        rows.append(f"| `{v.name}` | {default} | {v.read_by} | {v.meaning} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(table(), end="")
