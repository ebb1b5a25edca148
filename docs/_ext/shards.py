"""Run the gallery's pages on several machines, and build one site from what each ran.

A page is the unit: every comparison is inside one page, so a page never splits. The
verbs (``noxfile.py``) and the workflow's jobs use this module:

- ``nox -s shard-plan -- N`` (:func:`plan`): the pages split into ``N`` shards, longest
  first onto the shard with the least work so far, from the seconds each page took in
  the last build (sphinx-gallery's ``<page>.cost.json``); a page never run yet counts
  as its source's length in lines, a tenth of a second each. The workflow reads the
  printed matrix.
- ``nox -s docs -- --shard K/N``: this machine runs shard ``K``'s pages only and
  :func:`collect` copies what sphinx-gallery left of each (the page's ``.rst``, ``.py``,
  ``.py.md5``, ``.ipynb``, ``.zip``, ``.codeobj.json``, ``.cost.json``, its record and
  its images) into ``_build/shards/K/``.
- ``nox -s docs -- --benchmarks`` runs only the pages that time something
  (:func:`benchmark_pages`), for another machine's records (``nox -s records``) that
  the merged site shows beside its own numbers.
- ``nox -s merge -- FOLDER ...`` (:func:`merge`): the shards' folders go into
  ``docs/gallery/``, each page from exactly one shard, and the site is built with
  ``CHEATSHEET_MERGE=1``: no page may run (conf.py's pattern matches none) and a page
  whose output is missing or older than its source fails the build
  (:func:`_every_page_has_its_output`) instead of rendering empty.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import order  # docs/_ext: where each hook runs among the libraries' handlers

if TYPE_CHECKING:  # noxfile.py imports this module where neither Sphinx nor cheatsheet is
    from sphinx.application import Sphinx

MERGE_ENV = "CHEATSHEET_MERGE"
# What sphinx-gallery writes beside a page it ran, by suffix after the page's stem.
PAGE_FILES = (".rst", ".py", ".py.md5", ".ipynb", ".zip", ".codeobj.json", ".cost.json")
RECORD_SUFFIX = ".record.json"  # pagerecords.py's record of what the page measured
UNRUN_SECONDS_PER_LINE = 0.1


def pages(examples: Path) -> list[str]:
    """Every page of the gallery, as ``<topic>/<stem>``."""
    return sorted(f"{p.parent.name}/{p.stem}" for p in examples.glob("*/*.py"))


def source_md5(source: Path) -> str:
    """Return the digest sphinx-gallery writes to a page's ``.py.md5`` when it runs ``source``.

    As ``sphinx_gallery.utils.get_md5sum(source, mode="t")``, which noxfile.py cannot
    import: the text with universal newlines, as UTF-8.
    """
    text = source.read_text(errors="surrogateescape", encoding="utf-8")
    return hashlib.md5(text.encode(errors="surrogateescape", encoding="utf-8")).hexdigest()


def without_output(examples: Path, gallery: Path) -> list[str]:
    """Return the pages whose output in ``gallery`` is not from their current source.

    A page a build left out (``CHEATSHEET_RUN_ONLY``) that changed since its last run, or
    never ran, or whose inputs changed (``pageinputs.py`` then removes every ``.py.md5``),
    shows without output.
    """
    stale = []
    for page in pages(examples):
        md5 = gallery / f"{page}.py.md5"
        try:
            current = md5.read_text(encoding="utf-8") == source_md5(examples / f"{page}.py")
        except OSError:
            current = False
        if not current:
            stale.append(page)
    return stale


def costs(examples: Path, gallery: Path) -> dict[str, float]:
    """Seconds each page took in the last build; a page with no record, its lines / 10."""
    found = {}
    for page in pages(examples):
        cost = gallery / f"{page}.cost.json"
        try:
            found[page] = float(json.loads(cost.read_text(encoding="utf-8"))["time"])
        except (OSError, ValueError, KeyError, TypeError):
            lines = (examples / f"{page}.py").read_text(encoding="utf-8").count("\n")
            found[page] = lines * UNRUN_SECONDS_PER_LINE
    return found


def plan(seconds: Mapping[str, float], shards: int) -> list[list[str]]:
    """Split pages into ``shards`` lists: longest first, each onto the least-loaded shard.

    Ties go to the lower shard and pages of equal cost keep their name order, so every
    machine that plans from the same costs gets the same split.
    """
    if shards < 1:
        raise ValueError(f"a build needs at least one shard, got {shards}")
    loads = [0.0] * shards
    split: list[list[str]] = [[] for _ in range(shards)]
    for page in sorted(seconds, key=lambda p: (-seconds[p], p)):
        k = min(range(shards), key=lambda i: (loads[i], i))
        split[k].append(page)
        loads[k] += seconds[page]
    return [sorted(s) for s in split]


# A page that measures time: its numbers are what other machines' records show beside it
# (and it runs alone in a build, docs/_ext/freshpage.py).
MEASURES = re.compile(r"\b(?:compare|benchmark|interleave|startup_cost)\(")
# A page that reads a clock or a profiler prints times too, though no other machine's
# records stand beside them: it runs alone as well, and names its machine under its
# title (docs/_ext/machines.py).
CLOCKS = re.compile(
    r"perf_counter|process_time|monotonic|\btimeit\b|torch\.utils\.benchmark"  # clocks
    r"|torch\.profiler|\bprofile\("  # a profiler's table is times
)


def times_something(source: Path) -> bool:
    """Whether the code of the page at ``source`` (not its prose) measures or reads a clock."""
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    blocks = split_code_and_text_blocks(str(source))[1]
    code = "\n".join(block[1] for block in blocks if block[0] == "code")
    return MEASURES.search(code) is not None or CLOCKS.search(code) is not None


def benchmark_pages(examples: Path) -> list[str]:
    """Return the pages that time something with the helper package (``compare``, ...)."""
    return [
        page
        for page in pages(examples)
        if MEASURES.search((examples / f"{page}.py").read_text(encoding="utf-8"))
    ]


def parse_shard(text: str) -> tuple[int, int]:
    """Read ``"2/3"`` as shard 2 of 3, or fail saying what is expected."""
    found = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not found or not 1 <= int(found.group(1)) <= int(found.group(2)):
        raise ValueError(f"--shard takes K/N with 1 <= K <= N, such as 2/3; got {text!r}")
    return int(found.group(1)), int(found.group(2))


def run_only_pattern(shard_pages: Iterable[str]) -> str:
    """Return the ``CHEATSHEET_RUN_ONLY`` expression that runs exactly these pages."""
    names = "|".join(re.escape(f"{p}.py") for p in sorted(shard_pages))
    return rf"({names})$" if names else r"(?!)"


def _files_of(gallery: Path, page: str) -> list[Path]:
    topic, stem = page.split("/")
    folder = gallery / topic
    found = [folder / f"{stem}{s}" for s in (*PAGE_FILES, RECORD_SUFFIX)]
    found += sorted((folder / "images").glob(f"sphx_glr_{stem}_[0-9]*.*"))
    found += sorted((folder / "images" / "thumb").glob(f"sphx_glr_{stem}_thumb.*"))
    return [f for f in found if f.exists()]


def collect(gallery: Path, shard_pages: Iterable[str], out: Path) -> list[str]:
    """Copy what the build left of each page into ``out``; return the pages copied.

    Raises
    ------
    RuntimeError
        If a page has no output (``.py.md5``): its run failed, or it did not run.
    """
    missing = [p for p in shard_pages if not (gallery / f"{p}.py.md5").exists()]
    if missing:
        raise RuntimeError(f"these pages of the shard have no output: {', '.join(missing)}")
    if out.exists():
        shutil.rmtree(out)
    copied = []
    for page in shard_pages:
        for f in _files_of(gallery, page):
            target = out / f.relative_to(gallery)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
        copied.append(page)
    (out / "pages.json").write_text(json.dumps(sorted(copied), indent=1) + "\n", encoding="utf-8")
    return copied


def merge(folders: Iterable[Path], examples: Path, gallery: Path) -> dict[str, Path]:
    """Put the shards' outputs into ``gallery``; return which folder gave each page.

    Raises
    ------
    RuntimeError
        If a page comes from no shard or from two, or a shard holds a page that is
        not in ``examples``.
    """
    origin: dict[str, Path] = {}
    twice = []
    for folder in folders:
        listed = json.loads((folder / "pages.json").read_text(encoding="utf-8"))
        for page in listed:
            if page in origin:
                twice.append(f"{page} ({origin[page]} and {folder})")
            origin[page] = folder
    wanted = set(pages(examples))
    problems = []
    if twice:
        problems.append("from two shards: " + "; ".join(twice))
    if wanted - set(origin):
        problems.append("from no shard: " + ", ".join(sorted(wanted - set(origin))))
    if set(origin) - wanted:
        problems.append("not a page of examples/: " + ", ".join(sorted(set(origin) - wanted)))
    if problems:
        raise RuntimeError("the shards do not make one site: " + " | ".join(problems))
    for page, folder in origin.items():
        for f in _files_of(folder, page):
            target = gallery / f.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            # A new modification time: Sphinx reads a page again only when its source is
            # newer than its last read, and an earlier build here may have read it empty.
            shutil.copy(f, target)
    return origin


def _every_page_has_its_output(app: Sphinx) -> None:
    """In a merge build, fail before anything renders when a page has no current output."""
    from cheatsheet._variables import read  # here: the noxfile's Python has no cheatsheet

    if not read(MERGE_ENV):
        return
    from sphinx.errors import ConfigError

    stale = without_output(Path(app.confdir, "examples"), Path(app.srcdir, "gallery"))
    if stale:
        raise ConfigError(
            f"{MERGE_ENV} is set and these pages have no output from a shard for their "
            f"current source: {', '.join(stale)}; run their shard again (nox -s docs -- "
            "--shard K/N) and merge its folder"
        )


def setup(app: Sphinx) -> dict[str, Any]:
    order.connect(app, "builder-inited", _every_page_has_its_output)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
