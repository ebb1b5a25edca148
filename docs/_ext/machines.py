"""Results from other machines, shown beside the live ones, and the list of those machines.

Each benchmark page shows, after its live result, the same benchmarks as recorded
elsewhere; the landing page lists the machines.

Records are the JSON files a build writes into ``_build/html/_records/`` (see
``cheatsheet._records``); ``nox -s records`` copies them into the repository's
``results/<machine-id>/``. A record is shown only for a benchmark the page still runs
(same comparison key); a column is marked when the page's source or the torch version
differs from this build's.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from packaging.version import Version
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from pagerecords import RECORD_SUFFIX  # the live record, beside the generated page
from shards import times_something  # which pages read a clock or a profiler

RESULTS_DIR = "results"


# Each record file checked once per version of it: a build asks for the records on
# every benchmark page, and checking ~400 of them against the schema took about a second
# each time (80 s of a 15-minute build). Keyed by path, with the file's size and change
# time, so a record edited between two builds of one process (docs-live) is read again.
_CHECKED: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}


def load_records(results: Path, *, page: str | None = None) -> list[dict[str, Any]]:
    """Every record under ``results/<machine-id>/<folder>/<page>.json``, each checked.

    A record that does not follow ``record.schema.json`` stops the build with its file
    and field (:func:`cheatsheet._records.read_record`), and so does one filed under another
    machine's folder (:func:`cheatsheet._records.check_filed`). Each call returns its own copies:
    a caller may change them. With ``page`` (``"pytorch2/sdpa"``), only that page's
    records are returned, and only they are copied: a build asks once per page, and
    copying all 784 records for each of 69 pages took 7.7 s.
    """
    from cheatsheet._records import check_filed, read_record

    found = []
    for path in sorted(results.glob("*/*/*.json")):
        stat = path.stat()
        version = (stat.st_mtime_ns, stat.st_size)
        checked = _CHECKED.get(path.resolve())
        if checked is None or checked[0] != version:
            record = read_record(path)
            check_filed(record, path)
            checked = (version, record)
            _CHECKED[path.resolve()] = checked
        if page is not None and checked[1]["page"] != page:
            continue
        record = copy.deepcopy(checked[1])
        record["_path"] = path.relative_to(results.parent).as_posix()
        found.append(record)
    return found


def names_its_model(cpu: str) -> bool:
    """Whether a CPU's name says which chip it is ("AMD EPYC 9454", "Apple M3").

    A hypervisor often shows only the brand: "Intel(R) Xeon(R) Processor", "AMD EPYC",
    "Intel(R) Xeon(R) CPU @ 2.50GHz". A core count or a clock is not a model number.
    """
    rest = re.sub(
        r"@\s*[\d.]+\s*[GM]Hz|\d+-Core|x86_64|aarch64|arm64", "", cpu, flags=re.IGNORECASE
    )
    return bool(re.search(r"\d", rest))


def cpu_words(machine: dict[str, Any], *more: str) -> str:
    """Name a machine's CPU so that two different ones never read alike.

    Where the name does not say the model, its signature follows (family, model and
    stepping), then ``more`` (the cores, say), then the vector instructions torch's
    kernels use where the stamp has them:
    "Intel(R) Xeon(R) Processor (family 6 model 207 stepping 2, AVX512 kernels)".
    """
    told = []
    if machine.get("cpu_signature") and not names_its_model(machine["cpu"]):
        told.append(machine["cpu_signature"])
    told += more
    if machine.get("cpu_capability"):
        told.append(f"{machine['cpu_capability']} kernels")
    return machine["cpu"] + (f" ({', '.join(told)})" if told else "")


def _stamp(record: dict[str, Any], live: dict[str, Any] | None) -> str:
    machine = record["machine"]
    what = cpu_words(machine) + (" + " + "; ".join(machine["gpus"]) if machine["gpus"] else "")
    lines = [
        html.escape(what),
        f"torch {html.escape(machine['torch_version'])}",
        f"{html.escape(record['date'][:10])}, commit {html.escape(record['commit'][:10])}",
    ]
    if live is None:
        lines.insert(0, "<strong>this build</strong>")
    else:
        if record["source_sha256"] != live["source_sha256"]:
            lines.append(
                '<span class="record-stale">recorded with an older version of this page</span>'
            )
        if machine["torch_version"] != live["machine"]["torch_version"]:
            lines.append('<span class="record-stale">another torch than this build\'s</span>')
    return "<br>".join(lines)


def _cell(comparison: dict[str, Any] | None, label: str) -> str:
    if comparison is None:
        return "not recorded"
    from cheatsheet import format_seconds
    from cheatsheet.report import format_ratio, verdict_word

    if label == comparison["baseline"]:
        median = next(m["median_s"] for m in comparison["measurements"] if m["label"] == label)
        return f"baseline ({format_seconds(median)})"
    for r in comparison["ratios"]:
        if r["label"] == label:
            return (
                f"{format_ratio(r['speedup'])}x ({format_ratio(r['low'])}–"
                f"{format_ratio(r['high'])}x), {verdict_word(r['kind'])}"
            )
    return "not recorded"


def comparison_table(
    key: str, live: dict[str, Any], others: list[dict[str, Any]], *, here: bool = True
) -> str:
    """One HTML table of one comparison: the live result and each other machine's.

    With ``here=False`` this build did not run the comparison (a GPU's, say): the table
    holds the other machines' columns alone, and its caption says so.
    """

    def of(record: dict[str, Any]) -> dict[str, Any] | None:
        return {c["key"]: c for c in record["comparisons"]}.get(key)

    columns: list[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]]
    columns = [(o, of(o), live) for o in others]
    if here:
        columns.insert(0, (live, of(live), None))
    current = columns[0][1]
    if current is None:
        raise ValueError(f"{key!r} is not a comparison of the record it is shown from")
    labels = [m["label"] for m in current["measurements"]]
    head = "".join(f'<th scope="col">{_stamp(r, ref)}</th>' for r, _, ref in columns)
    rows = "".join(
        f'<tr><th scope="row"><code>{html.escape(label)}</code></th>'
        + "".join(f"<td>{html.escape(_cell(c, label))}</td>" for _, c, _ in columns)
        + "</tr>"
        for label in labels
    )
    caption = f"{html.escape(key)}: speedup over {html.escape(current['baseline'])}, 95% interval"
    caption += "" if here else " (not run by this build)"
    return (
        f'<div class="pst-scrollable-table-container"><table class="table records-table">'
        f'<caption>{caption}</caption><thead><tr><th scope="col">candidate</th>{head}'
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def still_made(key: str, source: str) -> bool:
    """Whether the page's ``source`` still names every candidate of comparison ``key``.

    A key is its labels joined by " vs " (and " #2" for a repeat); each label must
    appear as a string literal of the page. A label built at run time (an f-string)
    does not, and the comparison is then not claimed.
    """
    labels = re.sub(r" #\d+$", "", key).split(" vs ")
    return all(f'"{label}"' in source or f"'{label}'" in source for label in labels)


def keys_only_elsewhere(
    live: dict[str, Any], others: list[dict[str, Any]], source: str
) -> dict[str, list[dict[str, Any]]]:
    """Return the comparisons other machines ran from this page and this build did not.

    Each key maps to the records that hold it. A record of the page's current source
    counts: the comparison is in the code the page has now, on a path this machine did
    not take (a block that needs a GPU). A record of an older version counts only where
    the page still names the comparison's candidates (:func:`still_made`): it may hold
    comparisons the page no longer makes.
    """
    mine = {c["key"] for c in live["comparisons"]}
    found: dict[str, list[dict[str, Any]]] = {}
    for other in others:
        same = other["source_sha256"] == live["source_sha256"]
        for c in other["comparisons"]:
            if c["key"] not in mine and (same or still_made(c["key"], source)):
                found.setdefault(c["key"], []).append(other)
    return found


def _live_record(app: Sphinx, docname: str) -> dict[str, Any] | None:
    # gallery/<folder>/<page> -> docs/gallery/<folder>/<page>.record.json
    parts = docname.split("/")
    if len(parts) != 3 or parts[0] != "gallery":
        return None
    path = Path(app.srcdir, *parts[:-1], parts[-1] + RECORD_SUFFIX)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def describe_machine(machine: dict[str, Any]) -> str:
    """Name a machine in words: CPU, cores and GPUs, as a stamp names it."""
    gpus = "; ".join(machine["gpus"])
    threads = machine.get("torch_threads")
    cores = f"{machine['logical_cores']} logical cores" + (
        f", {threads} torch threads" if threads else ""
    )
    return cpu_words(machine, cores) + (f" with {gpus}" if gpus else ", no GPU")


def _stamp_measured_page(app: Sphinx, doctree: nodes.document) -> None:
    """Under the title of a page that measured something, name the machine that measured it.

    With the pages built on several machines (shards), one footer line cannot be true
    for every page: each page that times something says where it ran, whether through
    the helper package (its record holds the numbers) or a clock or profiler of its own
    (its code reads one: :func:`shards.times_something`).
    """
    live = _live_record(app, app.env.docname)
    if not live:
        return
    # sphinx-gallery's copy of the page's source, beside its record
    source = Path(app.srcdir, app.env.docname + ".py")
    measured = live["comparisons"] or live["measurements"]
    if not measured and not (source.exists() and times_something(source)):
        return
    machine = live["machine"]
    text = (
        f"Measured on {describe_machine(machine)}, torch {machine['torch_version']}, "
        f"Python {machine['python_version']}, {live['date'][:10]}."
    )
    # Raw HTML, not a paragraph: a page's description (og:description and the meta
    # description, which sphinxext-opengraph takes from the first text it meets) is
    # then the page's own first words, not its machine. The search index leaves it out
    # by its class (tasksearch.NOT_OWN).
    stamp = nodes.raw(
        "", f'<p class="page-stamp">{html.escape(text)}</p>', format="html", classes=["page-stamp"]
    )
    for section in doctree.findall(nodes.section):
        if section.children and isinstance(section[0], nodes.title):
            section.insert(1, stamp)
            return


def _add_other_machines(app: Sphinx, doctree: nodes.document) -> None:
    live = _live_record(app, app.env.docname)
    if not live:
        return
    others = [
        r
        for r in load_records(Path(app.confdir, RESULTS_DIR), page=live["page"])
        if r["machine_id"] != live["machine_id"]
    ]
    keys = [c["key"] for c in live["comparisons"]]
    shown = [o for o in others if any(c["key"] in keys for c in o["comparisons"])]
    source = Path(app.confdir, "examples", f"{live['page']}.py")
    text = source.read_text(encoding="utf-8") if source.exists() else ""
    elsewhere = keys_only_elsewhere(live, others, text)
    if not (shown or elsewhere):
        return
    section = nodes.section(ids=["on-other-machines"], names=["on other machines"])
    section += nodes.title(text="On other machines")
    section += nodes.paragraph(
        text=(
            "The same benchmarks as recorded on other machines (from the repository's "
            "results/ folder), beside this build's live result."
        )
    )
    for key in keys:
        if any(key in {c["key"] for c in o["comparisons"]} for o in shown):
            section += nodes.raw("", comparison_table(key, live, shown), format="html")
    if elsewhere:
        section += nodes.paragraph(
            text=(
                "Measured only on other machines: this build did not run these comparisons "
                "(their code takes a path that needs hardware this machine lacks, such as a "
                "GPU)."
            )
        )
    for key, ran in elsewhere.items():
        section += nodes.raw("", comparison_table(key, live, ran, here=False), format="html")
    doctree += section


def live_records(gallery: Path) -> list[dict[str, Any]]:
    """Return the records this build's pages left beside them (``docs/gallery/<folder>/*.record.json``)."""
    from cheatsheet._records import read_record

    return [read_record(p) for p in sorted(gallery.glob(f"*/*{RECORD_SUFFIX}"))]


class BuildMachinesDirective(SphinxDirective):
    """``.. build-machines::`` lists every machine that ran a page of this build."""

    def run(self) -> list[nodes.Node]:
        found: dict[str, dict[str, Any]] = {}
        for r in live_records(Path(self.env.srcdir, "gallery")):
            seen = found.setdefault(r["machine_id"], {"machine": r["machine"], "pages": 0,
                                                      "dates": set()})  # fmt: skip
            seen["pages"] += 1
            seen["dates"].add(r["date"][:10])
        if not found:
            return [nodes.paragraph(text="No page of this build has run yet.")]
        rows = "".join(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                html.escape(describe_machine(m["machine"])),
                html.escape(m["machine"]["torch_version"]),
                m["pages"],
                html.escape(" to ".join(sorted(m["dates"])[:: max(1, len(m["dates"]) - 1)])),
            )
            for _, m in sorted(found.items())
        )
        table = (
            '<div class="pst-scrollable-table-container"><table class="table build-machines">'
            "<caption>Machines that ran the pages of this build</caption><thead><tr>"
            '<th scope="col">machine</th><th scope="col">torch</th><th scope="col">pages</th>'
            f'<th scope="col">run</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
        return [nodes.raw("", table, format="html")]


class RecordedMachinesDirective(SphinxDirective):
    """``.. recorded-machines::`` lists the machines the repository has records from."""

    def run(self) -> list[nodes.Node]:
        records = load_records(Path(self.env.app.confdir, RESULTS_DIR))
        machines: dict[str, dict[str, Any]] = {}
        for r in records:
            seen = machines.setdefault(r["machine_id"], {"record": r, "pages": 0, "torch": set()})
            seen["pages"] += 1
            seen["torch"].add(r["machine"]["torch_version"])
            if r["date"] > seen["record"]["date"]:
                seen["record"] = r
        if not machines:
            return [nodes.paragraph(text="No records from other machines yet.")]
        rows = "".join(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                html.escape(cpu_words(m["record"]["machine"])),
                html.escape("; ".join(m["record"]["machine"]["gpus"]) or "none"),
                html.escape(", ".join(sorted(m["torch"], key=Version))),
                f"{m['pages']} page records, latest {html.escape(m['record']['date'][:10])}",
            )
            for _, m in sorted(machines.items())
        )
        table = (
            '<div class="pst-scrollable-table-container"><table class="table records-machines">'
            "<caption>Machines with recorded results</caption><thead><tr>"
            '<th scope="col">CPU</th><th scope="col">GPU</th><th scope="col">torch</th>'
            f'<th scope="col">records</th></tr></thead><tbody>{rows}</tbody></table></div>'
        )
        return [nodes.raw("", table, format="html")]


# The code that turns records into what pages show (tables here, since notes and the
# index in since.py): a change to it must show on the pages too, like a new record.
RENDERERS = (Path(__file__), Path(__file__).with_name("since.py"))


def _results_digest(results: Path) -> str:
    digest = hashlib.sha256()
    for path in RENDERERS:
        digest.update(path.read_bytes())
    for path in sorted(results.glob("*/*/*.json")):
        digest.update(path.as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _reread_when_results_change(
    app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # Sphinx rereads a page when its own source changes; a new or changed record
    # under results/, or a change to the code that renders them, changes what the
    # gallery pages and the landing page show.
    digest = _results_digest(Path(app.confdir, RESULTS_DIR))
    if getattr(env, "cheatsheet_results_digest", None) == digest:
        return []
    env.cheatsheet_results_digest = digest
    listing = {app.config.root_doc, "guides/run-locally"}
    return sorted(d for d in env.found_docs if d.startswith("gallery/") or d in listing)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("recorded-machines", RecordedMachinesDirective)
    app.add_directive("build-machines", BuildMachinesDirective)
    app.connect("doctree-read", _stamp_measured_page)
    app.connect("doctree-read", _add_other_machines)
    app.connect("env-get-outdated", _reread_when_results_change)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
