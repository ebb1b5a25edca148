"""A record of what each page measured, kept beside the page and published with the site.

:func:`keep_record` runs after each page (``pagestate.reset_state``) and writes the
comparisons and measurements the page noted (``cheatsheet._records``) next to the page
sphinx-gallery generated; at the end of the build every record of a page that still
exists is copied into the site's ``_records/`` (``nox -s records`` copies them on into
``results/``).
"""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from cheatsheet._records import RECORD_SUFFIX  # the record beside its page
from cheatsheet._variables import read

# -- A record of what each page measured -----------------------------------------

RECORDS_DIR = "_records"  # in the built site
COMMIT_ENV = "CHEATSHEET_COMMIT"


def keep_record(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    # Everything compare() and benchmark() noted while the page ran, written next
    # to the page sphinx-gallery generates, so a page that is not run again keeps
    # the record of the run whose outputs it still shows.
    from cheatsheet import _records as records
    from cheatsheet import environment

    notes = records.take()
    if when != "after" or fname is None:
        return
    source = _example_path(gallery_conf, fname)
    if source is None:
        return
    page = f"{source.parent.name}/{source.stem}"
    record = records.page_record(
        page=page,
        source=source.read_text(encoding="utf-8"),
        notes=notes,
        machine=environment().as_dict(),
        commit=_commit(source),
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    target = _gallery_root(gallery_conf) / page
    target.parent.mkdir(parents=True, exist_ok=True)
    target.with_name(source.stem + RECORD_SUFFIX).write_text(
        json.dumps(record, indent=1) + "\n", encoding="utf-8"
    )


def _examples_root(gallery_conf: dict[str, Any]) -> Path:
    dirs = gallery_conf["examples_dirs"]
    return Path(gallery_conf["src_dir"], dirs if isinstance(dirs, str) else dirs[0]).resolve()


def _gallery_root(gallery_conf: dict[str, Any]) -> Path:
    dirs = gallery_conf["gallery_dirs"]
    return Path(gallery_conf["src_dir"], dirs if isinstance(dirs, str) else dirs[0]).resolve()


def _example_path(gallery_conf: dict[str, Any], fname: str) -> Path | None:
    # sphinx-gallery passes the file name within its folder; names are unique.
    found = sorted(_examples_root(gallery_conf).glob(f"*/{Path(fname).name}"))
    return found[0] if found else None


def _commit(path: Path) -> str:
    """Return ``CHEATSHEET_COMMIT`` if set, else the commit, ``-dirty`` when ``path`` has changes."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=path.parent, capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    told = read(COMMIT_ENV)
    if told:
        # Whoever copied the tree (a source archive, a GPU machine it was sent to) names
        # its commit: a .git travelling with the copy may be older than the files.
        return told
    commit = git("rev-parse", "HEAD")
    if not commit:
        return "unknown"
    return commit + ("-dirty" if git("status", "--porcelain", "--", path.name) else "")


def _publish_records(app: Sphinx, exception: BaseException | None) -> None:
    """Copy the record of every page that still exists into the built site's ``_records/``."""
    if exception is not None or app.builder.format != "html":
        return
    gallery_conf = app.config.sphinx_gallery_conf
    examples, gallery = _examples_root(gallery_conf), _gallery_root(gallery_conf)
    out = Path(app.outdir, RECORDS_DIR)
    if out.exists():
        import shutil

        shutil.rmtree(out)
    for record in sorted(gallery.glob(f"*/*{RECORD_SUFFIX}")):
        stem = record.name[: -len(RECORD_SUFFIX)]
        if (examples / record.parent.name / f"{stem}.py").exists():
            (out / record.parent.name).mkdir(parents=True, exist_ok=True)
            (out / record.parent.name / f"{stem}.json").write_bytes(record.read_bytes())


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", _publish_records)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
