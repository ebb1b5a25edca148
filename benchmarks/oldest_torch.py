"""Which pages and entries run under the torch of this interpreter (nox -s oldest-torch).

Every code block of every example runs alone in its own process, as in the site's
blocks test, and each page gets a record (the format of ``cheatsheet.records``) with a
``blocks`` list: the entry each block belongs to and whether it ran. Run under the
oldest torch that ``pyproject.toml`` allows, the records say whether that bound is
true, and from which release each entry needs a newer torch.

    python benchmarks/oldest_torch.py results [examples/<folder>/<page>.py ...]

writes ``results/<machine-id>-torch-<version>/<folder>/<page>.json``.
"""

from __future__ import annotations

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


def _last_line(output: str) -> str:
    """Return the error's last line, without this machine's paths."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return _PATH.sub("", lines[-1])[:300] if lines else ""


def main(out: Path, only: list[str]) -> int:
    import torch

    from cheatsheet import environment, records

    commit = (
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        or "unknown"
    )
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    machine = environment().as_dict()
    out = out / f"{records.machine_id(machine)}-torch-{torch.__version__.split('+')[0]}"
    pages = sorted(ROOT.glob("examples/*/*.py"))
    if only:  # rerun some pages; the others keep their records
        pages = [p for p in pages if p.relative_to(ROOT).as_posix() in only]
    plan = [(p, page_blocks(p)) for p in pages]
    outcomes = iter(run_alone([b for _, blocks in plan for _, b in blocks]))
    failed_total = ran_total = 0
    for path, blocks in plan:
        rows = []
        for entry, _ in blocks:
            o = next(outcomes)
            rows.append({"entry": entry, "origin": o.block.origin, "ran": o.ok,
                         "error": "" if o.ok else _last_line(o.output)})  # fmt: skip
        page = f"{path.parent.name}/{path.stem}"
        record = records.page_record(
            page, path.read_text(encoding="utf-8"), [], machine, commit, date
        )
        record["blocks"] = rows
        target = out / path.parent.name / f"{path.stem}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        ran = sum(r["ran"] for r in rows)
        ran_total += ran
        failed_total += len(rows) - ran
        print(f"{page:45} {ran:3} of {len(rows):3} blocks run")
        for r in rows:
            if not r["ran"]:
                print(f"    {r['entry']}: {r['error']}")
    print(f"torch {torch.__version__}: {ran_total} of {ran_total + failed_total} blocks run")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
