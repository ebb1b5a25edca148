"""Which pages and entries run under the torch of this interpreter.

Every code block runs alone in its own process, as in the site's blocks test, and each
page gets a record (the format of ``cheatsheet.records``) with a ``blocks`` list: the
entry each block belongs to, whether it ran, and whether it only printed a version
guard ("needs torch 2.14") in place of the call.

Under the oldest torch that ``pyproject.toml`` allows (``nox -s oldest-torch``) every
block runs: the records say whether that bound holds. Under a later release
(``nox -s torch-version -- 2.8.0``) only the entries that did not work under the oldest
run again; together the records give the first release from which each entry works
(``since``, on the pages). ::

    python benchmarks/torch_versions.py results [--retry-from FOLDER] [PAGE ...]

writes ``results/<machine-id>-torch-<version>/<folder>/<page>.json``. ``--retry-from``
names the oldest run's folder; pages name ``examples/<folder>/<page>.py`` files to run
again, the others keep their records.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from snippets import Block, run_alone  # the tests' block runner, on the path above

_LABEL = re.compile(r"^\.\. _([\w-]+):$", re.MULTILINE)
# A block that cannot run its call on an older torch prints this in its place.
_GUARD = re.compile(r"needs torch \d+\.\d+[^\n]*")


def page_blocks(path: Path) -> list[tuple[str, Block]]:
    """Each code block of an example with the label of the entry it belongs to."""
    from sphinx_gallery.py_source_parser import remove_config_comments, split_code_and_text_blocks

    entry, found = "(page top)", []
    for label, content, lineno in split_code_and_text_blocks(str(path))[1]:
        if label == "text":
            labels = _LABEL.findall(content)
            entry = labels[-1] if labels else entry
            continue
        code = remove_config_comments(content).strip()
        if code:
            origin = f"{path.relative_to(ROOT).as_posix()}:{lineno}"
            found.append((entry, Block(origin, code + "\n")))
    return found


_PATH = re.compile(r" ?\(?/[^\s()]*/(site-packages|dist-packages)/[^\s()]*\)?")
# "RuntimeError: ...", "torch._dynamo.exc.Unsupported: ...", "[rank1]: TypeError: ..."
# (torchrun's prefix; records before it say "[rank 1] TypeError: ...")
_ERROR = re.compile(r"^(?:\[rank ?\d+\]:? )?(?:[a-z_]\w*\.)*[A-Z]\w*: ")


def _last_line(output: str) -> str:
    """Return the error's line, without this machine's paths.

    That is the last exception line, but not a ``CalledProcessError`` nor torchrun's
    ``ChildFailedError``: a block that runs a child process, or a script under torchrun,
    fails on the child's or the rank's error, printed above it.
    """
    lines = [line for line in output.strip().splitlines() if line.strip()]
    children = ("CalledProcessError", "ChildFailedError")
    errors = [x for x in lines if _ERROR.match(x) and not any(c in x for c in children)]
    line = errors[-1] if errors else lines[-1] if lines else ""
    for folder, name in ((sys.prefix, "<venv>"), (str(ROOT), "<repo>")):
        line = line.replace(folder, name)
    return _PATH.sub("", line)[:300]


def not_working(folder: Path) -> set[tuple[str, str]]:
    """Return the (page, entry) pairs whose blocks failed, or only printed a guard."""
    found = set()
    for path in sorted(folder.glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for block in record.get("blocks", []):
            if not block["ran"] or block.get("guard"):
                found.add((record["page"], block["entry"]))
    return found


def main(out: Path, only: list[str], retry_from: Path | None) -> int:
    import torch

    from cheatsheet import environment, records

    commit = (
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        or "unknown"
    )
    date = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    machine = environment().as_dict()
    out = out / f"{records.machine_id(machine)}-torch-{torch.__version__.split('+')[0]}"
    pages = sorted(ROOT.glob("examples/*/*.py"))
    if only:  # rerun some pages; the others keep their records
        pages = [p for p in pages if p.relative_to(ROOT).as_posix() in only]
    plan = [(p, page_blocks(p)) for p in pages]
    if retry_from is not None:
        wanted = not_working(retry_from)
        plan = [
            (p, [(e, b) for e, b in blocks if (f"{p.parent.name}/{p.stem}", e) in wanted])
            for p, blocks in plan
        ]
        for path, blocks in plan:  # a page all of whose entries work now: no record
            if not blocks:
                (out / path.parent.name / f"{path.stem}.json").unlink(missing_ok=True)
        plan = [(p, blocks) for p, blocks in plan if blocks]
        print(f"{sum(len(b) for _, b in plan)} blocks of {len(wanted)} entries that did not "
              f"work in {retry_from.name}")  # fmt: skip
    outcomes = iter(run_alone([b for _, blocks in plan for _, b in blocks]))
    worked_total = blocks_total = 0
    for path, blocks in plan:
        rows = []
        for entry, _ in blocks:
            o = next(outcomes)
            guard = _GUARD.search(o.output) if o.ok else None
            row = {"entry": entry, "origin": o.block.origin, "ran": o.ok,
                   "error": "" if o.ok else _last_line(o.output)}  # fmt: skip
            if guard:
                row["guard"] = guard.group(0)
            rows.append(row)
        page = f"{path.parent.name}/{path.stem}"
        record = records.page_record(
            page, path.read_text(encoding="utf-8"), [], machine, commit, date
        )
        record["blocks"] = rows
        target = out / path.parent.name / f"{path.stem}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        worked = sum(r["ran"] and not r.get("guard") for r in rows)
        worked_total += worked
        blocks_total += len(rows)
        print(f"{page:45} {worked:3} of {len(rows):3} blocks work")
        for r in rows:
            if not r["ran"] or r.get("guard"):
                print(f"    {r['entry']}: {r['error'] or r['guard']}")
    print(f"torch {torch.__version__}: {worked_total} of {blocks_total} blocks work")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("pages", nargs="*")
    parser.add_argument("--retry-from", type=Path, default=None)
    args = parser.parse_intermixed_args()
    sys.exit(main(args.results, args.pages, args.retry_from))
