"""What a run measured, kept as plain data that another build can show.

Every :func:`cheatsheet.compare` and :func:`cheatsheet.benchmark` call notes its result
here. The site's build takes the notes after each page and writes them, with the
machine stamp, the commit and the date, as one JSON record per page (the format is
``record.schema.json`` beside this module). Records collected from other machines in
the repository's ``results/`` folder are shown on the page beside the live result.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2

_notes: list[dict[str, Any]] = []


def note(kind: str, data: dict[str, Any]) -> None:
    """Keep one result for the record.

    ``kind`` is ``"comparison"``, ``"measurement"`` or ``"script"`` (a script for torchrun
    that ran as a reader runs it).
    """
    _notes.append({"kind": kind, **data})


def take() -> list[dict[str, Any]]:
    """Return the results noted since the last call, and forget them."""
    taken = list(_notes)
    _notes.clear()
    return taken


def comparison_key(labels: list[str], seen: dict[str, int]) -> str:
    """Name a comparison by its candidates, numbered when a page repeats them.

    ``seen`` counts the keys given so far on the page, so the second comparison of
    the same candidates is ``"eager vs compiled #2"``.
    """
    base = " vs ".join(labels)
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base} #{seen[base]}"


def machine_id(machine: dict[str, Any]) -> str:
    """Return a short, stable, file-name-safe name for a machine stamp.

    Built from the CPU model, the core count and the GPUs, e.g.
    ``amd-epyc-9454-2c`` or ``intel-xeon-8480-16c-nvidia-h100-80gb``. A stamp that
    carries the CPU's signature or the memory (``cheatsheet.environment`` writes both)
    adds six hex digits of them: two VMs that both show "AMD EPYC" with two cores, on
    other CPU generations or with other memory, get different ids
    (``amd-epyc-2c-3f9a1c``) and their records do not hide each other.
    """
    parts = [machine["cpu"], f"{machine['logical_cores']}c", *machine.get("gpus", [])]
    text = "-".join(parts).lower()
    text = re.sub(r"\(r\)|\(tm\)|processor|cpu @ [\d.]+ghz|\d+-core", "", text)
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:80].rstrip("-") or "unknown-machine"
    signature, memory = machine.get("cpu_signature", ""), machine.get("memory_gib", 0)
    if not (signature or memory):
        return slug  # a stamp from before they were recorded
    told = f"{machine['cpu']}|{signature}|{memory}|{'|'.join(machine.get('gpus', []))}"
    return f"{slug}-{hashlib.sha256(told.encode()).hexdigest()[:6]}"


def page_record(
    page: str,
    source: str,
    notes: list[dict[str, Any]],
    machine: dict[str, Any],
    commit: str,
    date: str,
) -> dict[str, Any]:
    """Assemble the record of one page from the results it noted.

    Parameters
    ----------
    page : str
        The page's path in the gallery without suffix, e.g. ``"pytorch2/sdpa"``.
    source : str
        The example's source text; its digest tells a later build whether the
        benchmark it shows is still the one recorded.
    notes : list of dict
        What :func:`take` returned after the page ran.
    machine : dict
        :meth:`cheatsheet.Environment.as_dict` of the machine that ran it.
    commit, date : str
        The repository commit and the UTC date (ISO) of the run.
    """
    seen: dict[str, int] = {}
    comparisons, measurements, scripts = [], [], []
    for n in notes:
        data = {k: v for k, v in n.items() if k != "kind"}
        if n["kind"] == "comparison":
            labels = [m["label"] for m in data["measurements"]]
            comparisons.append({"key": comparison_key(labels, seen), **data})
        elif n["kind"] == "script":
            scripts.append(data)
        else:
            measurements.append(data)
    return {
        "schema": SCHEMA_VERSION,
        "page": page,
        "source_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        "machine_id": machine_id(machine),
        "machine": machine,
        "commit": commit,
        "date": date,
        "comparisons": comparisons,
        "measurements": measurements,
        **({"scripts": scripts} if scripts else {}),
    }


def schema() -> dict[str, Any]:
    """Return the JSON schema every page record follows."""
    text = resources.files(__package__).joinpath("record.schema.json").read_text("utf-8")
    return json.loads(text)


class RecordError(ValueError):
    """A record file that is not a valid record; the message names the file and the field."""


def read_record(path: str | Path) -> dict[str, Any]:
    """Read one record file and check it against the schema.

    Raises
    ------
    RecordError
        Naming the file, the field and what is wrong: malformed JSON, a missing or
        mistyped field, a torch version that is not one. A record that is not
        checked would be misread: a string ``"false"`` is true.
    """
    import jsonschema

    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RecordError(f"{path}: not a readable JSON record: {err}") from err
    error = jsonschema.exceptions.best_match(_validator().iter_errors(record))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(the record itself)"
        raise RecordError(f"{path}: field {where}: {error.message}")
    return record


@functools.cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema())
