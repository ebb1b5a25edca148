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
import math
import re
from importlib import resources
from pathlib import Path
from typing import Any

from cheatsheet.hardware import machine_id  # the id a record is filed under

SCHEMA_VERSION = 2
RECORD_SUFFIX = ".record.json"  # a build's record, beside its page in the gallery

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
    base = " vs ".join(_key_part(label) for label in labels)
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base} #{seen[base]}"


# A label that could be read as more than one, or as a repeat's number, is quoted, so that
# no two lists of labels share a key: ["a vs b", "c"] is '"a vs b" vs c', ["a", "b vs c"]
# is 'a vs "b vs c"', and a label "x #2" is not the second comparison of "x".
_AMBIGUOUS = re.compile(r' vs |^"| #\d+$')


def _key_part(label: str) -> str:
    return json.dumps(label, ensure_ascii=False) if _AMBIGUOUS.search(label) else label


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
    """Read one record file and check it: against the schema, then against itself.

    Beyond the schema, a record must agree with what it claims: its ``machine_id`` is
    the one its machine stamp gives, its ``page`` is the path it lies at
    (``<folder>/<page>.json`` or ``<folder>/<page>.record.json``), every comparison's
    key is the one its labels give, every measurement's median and spread are those of
    its times, and every verdict ("faster", "slower", "same") and sentence is the one
    its interval and quartiles give (:class:`cheatsheet.Ratio`). A record edited by
    hand, merged wrongly or written by a buggy build is refused, not shown.

    Raises
    ------
    RecordError
        Naming the file, the field and what is wrong: malformed JSON (NaN and Infinity
        included, which JSON does not have), JSON nested too deep, a missing or mistyped
        field, a torch version that is not one, a figure that contradicts another. A
        record that is not checked would be misread: a string ``"false"`` is true.
    """
    import jsonschema

    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise RecordError(f"{path}: not a readable JSON record: {err}") from err
    except RecursionError as err:
        raise RecordError(f"{path}: not a readable JSON record: nested too deep") from err
    error = jsonschema.exceptions.best_match(_validator().iter_errors(record))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(the record itself)"
        raise RecordError(f"{path}: field {where}: {error.message}")
    for where, problem in _contradictions(record, path):
        raise RecordError(f"{path}: field {where}: {problem}")
    return record


def check_filed(record: dict[str, Any], path: str | Path) -> None:
    """Refuse a record of ``results/`` that lies in another machine's folder.

    ``results/<machine_id>/<folder>/<page>.json`` holds a build's records;
    ``results/<machine_id>-torch-<version>/...`` a run under one torch release, whose
    records must be of that release.
    """
    path = Path(path)
    folder, mid = path.parent.parent.name, record["machine_id"]
    version = record["machine"]["torch_version"].split("+")[0]
    allowed = {mid, f"{mid}-torch-{version}"} if "entries" in record else {mid}
    if folder not in allowed:
        raise RecordError(
            f"{path}: field machine_id: the record is of {mid} under torch {version}, but lies "
            f"in {folder}/: file it under results/{max(allowed)}/"
        )


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a measurement can give (JSON has no {name})")


def _contradictions(record: dict[str, Any], path: Path) -> list[tuple[str, str]]:
    """Where the record disagrees with itself or with its path, and how."""
    from cheatsheet.report import Ratio
    from cheatsheet.timing import Measurement

    found = []
    mid = machine_id(record["machine"])
    if record["machine_id"] != mid:
        found.append(
            ("machine_id", f"{record['machine_id']!r}, but its machine stamp gives {mid!r}")
        )
    name = path.name.removesuffix(RECORD_SUFFIX).removesuffix(".json")
    if record["page"] != f"{path.parent.name}/{name}":
        found.append(
            ("page", f"{record['page']!r}, but the file is {path.parent.name}/{path.name}")
        )
    seen: dict[str, int] = {}
    for i, comparison in enumerate(record["comparisons"]):
        labels = [m["label"] for m in comparison["measurements"]]
        if comparison["key"] != comparison_key(labels, seen):
            found.append(
                (f"comparisons/{i}/key", f"{comparison['key']!r} is not what its labels give")
            )
        for j, m in enumerate(comparison["measurements"]):
            found += _measurement_contradictions(
                m, f"comparisons/{i}/measurements/{j}", Measurement
            )
        for j, fields in enumerate(comparison["ratios"]):
            where = f"comparisons/{i}/ratios/{j}"
            given = {k: v for k, v in fields.items() if k not in ("kind", "sentence")}
            try:
                ratio = Ratio(**given)
            except (TypeError, ValueError) as err:
                found.append((where, str(err)))
                continue
            if fields["kind"] != ratio.kind:
                told = f"{ratio.low:.3g}–{ratio.high:.3g}x gives {ratio.kind!r}"
                found.append((f"{where}/kind", f"{fields['kind']!r}, but its interval {told}"))
            elif fields["sentence"] != ratio.sentence():
                told = f"its figures say {ratio.sentence()!r}"
                found.append((f"{where}/sentence", f"{fields['sentence']!r}, but {told}"))
    for i, m in enumerate(record["measurements"]):
        found += _measurement_contradictions(m, f"measurements/{i}", Measurement)
    return found


def _measurement_contradictions(
    fields: dict[str, Any], where: str, measurement: type
) -> list[tuple[str, str]]:
    given = {k: v for k, v in fields.items() if k not in ("median_s", "iqr_s")}
    given["times_s"] = tuple(given["times_s"])
    given["session_sizes"] = tuple(given.get("session_sizes", ()))
    try:
        m = measurement(**given)
    except (TypeError, ValueError) as err:
        return [(where, str(err))]
    return [
        (f"{where}/{name}", f"{fields[name]!r}, but its times give {value!r}")
        for name, value in (("median_s", m.median_s), ("iqr_s", m.iqr_s))
        if not math.isclose(fields[name], value, rel_tol=1e-9, abs_tol=1e-15)
    ]


@functools.cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def file_records(built: str | Path, results: str | Path) -> dict[str, int]:
    """File each record of a build (``<built>/<folder>/<page>.json``) under its machine.

    Each goes to ``<results>/<machine_id>/<folder>/<page>.json``, the machine its own
    stamp names (every record is checked first: one that fails stops the filing before
    anything is written), so a site merged from several machines' shards keeps each
    machine's records apart. A machine's record files that the build no longer has (a
    page removed) are removed; nothing else is, never a folder. Returns the count per
    machine.
    """
    built, results = Path(built), Path(results)
    by_machine: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
    for path in sorted(built.glob("*/*.json")):
        record = read_record(path)
        by_machine.setdefault(record["machine_id"], []).append((path, record))
    for mid, filed in by_machine.items():
        target = results / mid
        kept = {target / path.parent.name / path.name for path, _ in filed}
        for old in target.glob("*/*.json"):
            if old not in kept:
                old.unlink()
        for path, _ in filed:
            (target / path.parent.name).mkdir(parents=True, exist_ok=True)
            (target / path.parent.name / path.name).write_bytes(path.read_bytes())
    return {mid: len(filed) for mid, filed in by_machine.items()}


if __name__ == "__main__":  # nox -s records: python -m cheatsheet._records BUILT RESULTS
    import sys

    for mid, count in file_records(*sys.argv[1:3]).items():
        print(f"{count} records of {mid} in {Path(sys.argv[2], mid)}")
