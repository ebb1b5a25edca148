"""Which entries work under the torch of this interpreter: their probes and their code.

Each entry of a page (a labelled section, ``cheatsheet._entries``) is measured two ways:

- its **probe** (``docs/probes.toml``), the smallest code that makes the call the entry
  documents, run alone in a fresh interpreter (under torchrun when it needs ranks), and
  its API checked against this release: each name imports, each keyword argument is in
  the call's signature;
- each of its **code blocks**, run alone as the site's blocks test runs them.

Code that fails is run twice more: a failure counts only when it reproduces, and code
that fails once and works otherwise is "flaky". Code that prints a line starting with
"skipped" took a branch that leaves its call out, and is "skipped", not "works"; a probe
whose optional packages are missing is "skipped" without running. One record per page,
``results/<machine-id>-torch-<version>/<folder>/<page>.json``, carries per entry the
digest of the code it measured (``Entry.digest``), so the build can tell a record of
older code (stale) from one of the code it shows.

Under the oldest torch ``pyproject.toml`` allows (``nox -s oldest-torch``) every entry
runs. Under a later release (``nox -s torch-version -- 2.8.0``) every probe runs, and the
code of the entries that did not all work under the oldest, and the code of every entry
of ``examples/errors/``: each release's record keeps the messages it printed, and the
page shows the wordings that differ from its own (``docs/_ext/wordings.py``). ::

    python tools/torch_versions.py results [PAGE ...] [--retry-from FOLDER ...]

``--retry-from`` names the oldest release's folders (one per machine); pages name ``examples/<folder>/<page>.py``
files to run again, the others keep their records. docs/_ext/since.py reads the records.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import importlib.util
import inspect
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBES = ROOT / "docs" / "probes.toml"

from cheatsheet import _torchrun as torchrun
from cheatsheet._blocks import EXCEPTION_LINE, Block, clip_output, run_alone
from cheatsheet._entries import (
    FAILS,
    SKIPPED,
    WORKS,
    Entry,
    Probe,
    block_status,
    load_probes,
    page_entries,
    repeated_status,
    skip_reason,
)

# Code that fails is run this many times in all before its failure counts.
RUNS_OF_A_FAILURE = 3
# What a record keeps of a part's first run: its last characters and its exception lines.
OUTPUT_KEPT = 1500
PROBE_TIMEOUT_S = 300.0
# Ranks of tiny tensors that have not finished by then are hung, not slow.
RANKS_TIMEOUT_S = 150.0

# torchrun's failure summary for a rank that died of a signal: "Signal 6 (SIGABRT) received".
_RANK_SIGNAL = re.compile(r"Signal \d+ \((SIG[A-Z]+)\) received")
_PATH = re.compile(r" ?\(?/[^\s()]*/(site-packages|dist-packages)/[^\s()]*\)?")


def _last_line(output: str) -> str:
    """Return the error's line, without this machine's paths.

    That is the last exception line, but not a ``CalledProcessError`` or torchrun's
    ``ChildFailedError``: code that runs child processes fails on a child's error,
    printed above it. A run killed by a signal or a timeout says so on its last line.
    """
    lines = [line for line in output.strip().splitlines() if line.strip()]
    wrappers = ("CalledProcessError", "ChildFailedError")
    errors = [x for x in lines if EXCEPTION_LINE.match(x) and not any(w in x for w in wrappers)]
    signal = [m for x in lines if (m := _RANK_SIGNAL.search(x))]
    if signal:  # a rank died of a signal: that is the first failure, the others' errors follow
        line = f"a rank was killed by {signal[-1].group(1)} (torchrun's summary)"
    elif errors:
        line = errors[-1]
    else:  # the last line that says something: not a banner of ===== or -----
        words = [x for x in lines if any(c.isalnum() for c in x)]
        line = words[-1] if words else ""
    if lines and lines[-1].startswith(("killed by SIG", "timed out after")) and line != lines[-1]:
        line = f"{line} ({lines[-1]})"
    line = _PATH.sub("", line)  # before the folders are named, or "(<venv>" would stay
    return _without_paths(line)[:300]


def _without_paths(text: str) -> str:
    """Name this machine's environment and checkout as ``<venv>`` and ``<repo>``."""
    for folder, name in ((sys.prefix, "<venv>"), (str(ROOT), "<repo>")):
        text = text.replace(folder, name)
    return text


# -- Probes ---------------------------------------------------------------------


def api_missing(specs: Iterable[str]) -> list[str]:
    """Return what this torch lacks of ``specs``: names that do not import, arguments not taken.

    A spec is a dotted name (``torch.nn.attention.SDPBackend.FLASH_ATTENTION``) or a call
    with the keyword arguments it passes (``torch.onnx.export(dynamo=)``). A callable
    whose signature takes ``**kwargs`` counts as taking any keyword.
    """
    missing = []
    for spec in specs:
        name, _, args = spec.partition("(")
        keywords = [a.strip().rstrip("=") for a in args.rstrip(")").split(",") if a.strip()]
        found = _resolve(name)
        if found is None:
            missing.append(name)
            continue
        try:
            params = inspect.signature(found).parameters
        except (TypeError, ValueError):
            continue  # a builtin without a signature: its names are all we can check
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        missing += [f"{name}({k}=)" for k in keywords if k not in params and not takes_any]
    return missing


def _resolve(dotted: str) -> object | None:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute, None)
            if found is None:
                return None
        return found
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_probe_once(code: str, ranks: int, timeout_s: float = PROBE_TIMEOUT_S) -> tuple[bool, str]:
    """Run code alone in a fresh interpreter, under torchrun when it needs ``ranks``."""
    with tempfile.TemporaryDirectory(prefix="probe-") as folder:
        script = Path(folder, "probe.py")
        script.write_text(code, encoding="utf-8")
        env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
        if ranks:
            command = [
                sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={ranks}",
                "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{_free_port()}",
                "--max-restarts=0", str(script),
            ]  # fmt: skip
            # Under cheatsheet._torchrun's supervisor, which kills whatever the run leaves
            # on a timeout: torchrun starts each rank in a session of its own, so
            # killing the agent's session left hung ranks holding the output pipe, and
            # the version run waited on them for good.
            done = torchrun.run_command(command, timeout_s=timeout_s, env=env, cwd=folder)
            timed_out = f"\ntimed out after {timeout_s:.0f} s" if done.returncode == 124 else ""
            return done.returncode == 0, clip_output(done.output + timed_out)
        command = [sys.executable, str(script)]
        # A session of its own, killed whole on a timeout.
        process = subprocess.Popen(
            command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            output, _ = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            return False, clip_output(f"{output}\ntimed out after {timeout_s:.0f} s")
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        done = subprocess.CompletedProcess(command, process.returncode, output, "")
    output = done.stdout
    if done.returncode < 0:
        output += f"\nkilled by {signal.Signals(-done.returncode).name}"
    return done.returncode == 0, clip_output(output)


def _missing_packages(probe: Probe) -> list[str]:
    return [name for name in probe.needs if importlib.util.find_spec(name) is None]


# -- Running code until its outcome is sure ----------------------------------------------


@dataclass
class _Part:
    """One probe or code block to run, and what its runs showed."""

    origin: str
    code: str
    ranks: int = 0
    statuses: list[str] = field(default_factory=list)
    error: str = ""
    output: str = ""

    def row(self) -> dict:
        row = {"status": repeated_status(self.statuses) if self.statuses else SKIPPED,
               "runs": len(self.statuses), "failures": self.statuses.count(FAILS),
               "error": self.error}  # fmt: skip
        if self.statuses:  # what the first run printed: a page shows it beside its own
            row["output"] = self.output
        return row


def _run(parts: list[_Part]) -> None:
    """Run every part alone; run a failing one again until it has failed three times.

    Plain code runs in the site's block runner (a fresh namespace forked from a process
    that imported torch, two at a time); code that needs ranks runs under torchrun.
    """
    todo = list(parts)
    # Code that writes files where it runs (an exporter's report) writes them in a folder
    # of its own, not in the repository.
    os.chdir(tempfile.mkdtemp(prefix="torch-versions-"))
    while todo:
        plain = [p for p in todo if not p.ranks]
        outcomes = run_alone([Block(p.origin, p.code) for p in plain])
        results = [(p, o.ok, o.output) for p, o in zip(plain, outcomes, strict=True)]
        for p in (p for p in todo if p.ranks):
            results.append((p, *run_probe_once(p.code, p.ranks, RANKS_TIMEOUT_S)))
        for p, ok, output in results:
            if not p.statuses:
                p.output = _without_paths(clip_output(output, OUTPUT_KEPT))
            p.statuses.append(block_status(ok, output))
            if p.statuses[-1] == FAILS and not p.error:
                p.error = _last_line(output)
            elif p.statuses[-1] == SKIPPED and not p.error:
                p.error = skip_reason(output)
        todo = [p for p in todo if p.statuses[-1] == FAILS and len(p.statuses) < RUNS_OF_A_FAILURE]


# -- A page's record -------------------------------------------------------------------


def entry_works(row: dict) -> bool:
    """Whether an entry's record shows its probe and all its code working."""
    parts = [b["status"] for b in row["blocks"]]
    if row.get("probe"):
        parts.append(row["probe"]["status"])
    return all(p == WORKS for p in parts)


def not_working(*folders: Path) -> set[tuple[str, str]]:
    """Return the (page, entry) pairs whose record shows anything but "works".

    The oldest release's records may come from several machines (one folder each), a
    page's latest run in one of them.
    """
    found = set()
    for path in sorted(p for folder in folders for p in folder.glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for row in record.get("entries", []):
            if not entry_works(row):
                found.add((record["page"], row["entry"]))
    return found


@dataclass
class _Plan:
    """What one entry of one page runs under this release."""

    entry: Entry
    probe: Probe | None
    probe_part: _Part | None
    skipped_probe: str
    blocks: list[_Part]

    def row(self) -> dict:
        probe = None
        if self.probe is not None:
            missing = api_missing(self.probe.api)
            if self.probe_part is None:
                probe = {"status": SKIPPED, "runs": 0, "failures": 0, "error": self.skipped_probe}
            else:
                probe = self.probe_part.row()
            probe = {"api_missing": missing, **probe}
        return {"entry": self.entry.label,
                "source_sha256": self.entry.digest(self.probe.code if self.probe else ""),
                "probe": probe, "blocks": [{"origin": b.origin, **b.row()} for b in self.blocks]}  # fmt: skip


def plan_page(
    entries: list[Entry], probes: dict[str, Probe], with_code: set[str] | None
) -> list[_Plan]:
    """Choose what runs: every probe, and the code of the entries ``with_code`` names (all if None)."""
    plans = []
    for entry in entries:
        probe = probes.get(entry.label)
        measured = with_code is None or entry.label in with_code
        if probe is None and not measured:
            continue
        part, skipped = None, ""
        if probe is not None:
            missing = _missing_packages(probe)
            if missing:
                skipped = f"not installed under this release: {', '.join(missing)}"
            else:
                part = _Part(f"docs/probes.toml [{probe.label}]", probe.code, probe.ranks)
        blocks = [_Part(b.origin, b.code) for b in entry.blocks] if measured else []
        plans.append(_Plan(entry, probe, part, skipped, blocks))
    return plans


def _packages() -> dict[str, str]:
    """Return the versions of the optional packages some entries need, as installed here."""
    from importlib import metadata

    found = {}
    for name in ("torchao", "onnx", "onnxscript", "onnxruntime", "protobuf", "onnx-ir"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def main(out: Path, only: list[str], retry_from: list[Path] | None) -> int:
    import torch

    from cheatsheet import _records as records
    from cheatsheet import environment

    commit = (
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        or "unknown"
    )
    date = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    machine = environment().as_dict()
    # Absolute: the parts run in a folder of their own (_run), and the records go here.
    out = out.resolve() / f"{records.machine_id(machine)}-torch-{torch.__version__.split('+')[0]}"
    probes = load_probes(PROBES)
    pages = sorted(ROOT.glob("examples/*/*.py"))
    if only:  # rerun some pages; the others keep their records
        pages = [p for p in pages if p.relative_to(ROOT).as_posix() in only]
    wanted = not_working(*retry_from) if retry_from else None
    plans = {}
    for path in pages:
        page = f"{path.parent.name}/{path.stem}"
        # An errors entry's code runs under every release: its record keeps the message
        # that release printed, which the page shows where the wording differs.
        every = wanted is None or path.parent.name == "errors"
        with_code = None if every else {e for p, e in wanted if p == page}
        plans[path] = plan_page(page_entries(path, ROOT), probes, with_code)
    parts = [
        part for page_plans in plans.values() for plan in page_plans
        for part in ([plan.probe_part] if plan.probe_part else []) + plan.blocks
    ]  # fmt: skip
    started = time.perf_counter()
    print(f"torch {torch.__version__}: {len(parts)} probes and code blocks to run")
    _run(parts)
    packages = _packages()
    works = total = 0
    for path, page_plans in plans.items():
        page = f"{path.parent.name}/{path.stem}"
        target = out / path.parent.name / f"{path.stem}.json"
        if not page_plans:  # nothing of this page needs measuring under this release
            target.unlink(missing_ok=True)
            continue
        record = records.page_record(
            page, path.read_text(encoding="utf-8"), [], machine, commit, date
        )
        record["packages"] = packages
        record["entries"] = rows = [plan.row() for plan in page_plans]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        ok = sum(entry_works(r) for r in rows)
        works, total = works + ok, total + len(rows)
        print(f"{page:45} {ok:3} of {len(rows):3} entries work")
        for row in rows:
            named = ([("probe", row["probe"])] if row["probe"] else []) + [
                (b["origin"].rsplit(":", 1)[-1], b) for b in row["blocks"]
            ]
            for name, part in named:
                if part["status"] != WORKS:
                    print(f"    {row['entry']} {name}: {part['status']} {part['error']}")
    print(f"torch {torch.__version__}: {works} of {total} entries work "
          f"({time.perf_counter() - started:.0f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("pages", nargs="*")
    parser.add_argument("--retry-from", type=Path, nargs="+", default=None)
    args = parser.parse_intermixed_args()
    sys.exit(main(args.results, args.pages, args.retry_from))
