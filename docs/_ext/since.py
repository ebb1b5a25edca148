"""From which torch release each entry works, read from records of the call it names.

``nox -s oldest-torch`` and ``nox -s torch-version -- <release>`` leave one record per
page in ``results/<machine-id>-torch-<version>/`` (``tools/torch_versions.py``): for
each entry, what its probe (``docs/probes.toml``: the smallest code making the call the
entry documents) and each of its code blocks did under that release, and the API check
of the probe's names. The rules, in one place:

- A part works under a release when it ran to its end without taking a "skipped"
  branch. A failure counts only when it reproduced in every run; one that did not is
  *flaky* there. A skipped run measured nothing (*not measured*), never "works".
- An entry is dated by its probe: its *since* is the first release of the last stretch
  of releases under which the probe works, where a single failing release between two
  working ones is a regression, named on the page, that does not move the date. It is
  "≤ 2.4" when that is the oldest release recorded for the entry, and "≤ 2.9" when a
  release of ``since_releases`` between the last failing one and 2.9 has no record: an
  unmeasured release is never counted as failing.
- The entry's own code blocks are dated the same way; one that needs a later release
  than the probe (an optional argument, a diagnostic) gets a note of its own.
- Records of several machines count together, except where two of them disagree under
  one release (the probe works on one and fails on the other, each reproduced): then
  the since depends on the machine, and ``:since:`` writes each machine's ("≤ 2.6 or
  2.9, by machine") and the note says under which releases which machine fails.
- The API check is a second measurement: where the names exist from another release
  than the one the call works from, the note says both.
- Every record is checked against ``record.schema.json`` when it is read, and against
  the page: a record made from other code than the entry now has is stale and fails the
  build (``stale_records = "warn"`` only warns, for ``nox -s docs-live``).

``:since:`label``` writes an entry's since ("2.6", "≤ 2.4", "2.9 (API 2.6)"); each gallery
entry with something to say gets a note under its title; ``.. torch-coverage::``
tabulates the releases and the entries that need more than the oldest; ``..
torch-outputs:: label`` shows what an entry's code printed under the releases it names.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes
from packaging.version import Version
from sphinx.application import Sphinx
from sphinx.config import ENUM
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

import order  # docs/_ext: where each hook runs among the libraries' handlers
from cheatsheet._entries import (
    FAILS,
    FLAKY,
    SKIPPED,
    WORKS,
    Entry,
    Probe,
    load_probes,
    page_entries,
)
from machines import RESULTS_DIR, cpu_words, load_records

logger = logging.getLogger(__name__)

# -- Dating one part from its outcomes -----------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one part (a probe, a block, an API check) did under one release."""

    status: str
    error: str = ""
    runs: int = 1
    failures: int = 0
    output: str = ""  # what its first run printed, where the record kept it
    record: str = ""  # the record's path, for a page that quotes the output


@dataclass(frozen=True)
class Dating:
    """When a part works, and what the releases around that showed.

    Attributes
    ----------
    first : Version or None
        The first release of the last working stretch; None when it does not work
        under the newest release measured, or nothing was measured.
    oldest : Version or None
        The oldest release with an outcome for this part.
    last_failing : tuple or None
        ``(release, error)`` of the failure just before ``first``.
    regressions, flaky, unmeasured : tuple of (Version, str)
        Releases where it failed between two working ones, failed only sometimes, or
        skipped its call; each with what it printed.
    gap : tuple of Version
        Releases between ``last_failing`` and ``first`` that have no record of this part:
        it may work from one of them, so ``first`` is an upper bound.
    """

    first: Version | None
    oldest: Version | None
    last_failing: tuple[Version, str] | None = None
    regressions: tuple[tuple[Version, str], ...] = ()
    flaky: tuple[tuple[Version, str], ...] = ()
    unmeasured: tuple[tuple[Version, str], ...] = ()
    gap: tuple[Version, ...] = ()

    @property
    def at_oldest(self) -> bool:
        return self.first is not None and self.first == self.oldest

    @property
    def bounded(self) -> bool:
        """Whether ``first`` is only an upper bound: the oldest recorded, or after a gap."""
        return self.at_oldest or bool(self.gap)

    def since(self) -> str:
        """``"2.6"``, or ``"≤ 2.6"`` when it may work under an earlier release too."""
        assert self.first is not None
        return f"≤ {minor(self.first)}" if self.bounded else minor(self.first)


def date(outcomes: dict[Version, Outcome], releases: Iterable[Version] = ()) -> Dating:
    """Date a part from its outcome under each release (the rules in the module docstring).

    ``releases`` are the ones the records should cover (``since_releases``): one with no
    outcome between the last failing release and the first working one is a gap.
    """
    unmeasured = tuple((v, o.error) for v, o in sorted(outcomes.items()) if o.status == SKIPPED)
    flaky = tuple(
        (v, f"failed {o.failures} of {o.runs} runs: {o.error}")
        for v, o in sorted(outcomes.items())
        if o.status == FLAKY
    )
    measured = [(v, o) for v, o in sorted(outcomes.items()) if o.status != SKIPPED]
    oldest = min(outcomes) if outcomes else None
    if not measured or measured[-1][1].status == FAILS:
        return Dating(None, oldest, None, (), flaky, unmeasured)

    def works(i: int) -> bool:
        return measured[i][1].status in (WORKS, FLAKY)

    i, regressions = len(measured) - 1, []
    while i > 0:
        if works(i - 1):
            i -= 1
        elif i > 1 and works(i - 2):  # one failing release between two working ones
            regressions.append((measured[i - 1][0], measured[i - 1][1].error))
            i -= 2
        else:
            break
    last = (measured[i - 1][0], measured[i - 1][1].error) if i > 0 else None
    first = measured[i][0]
    gap = tuple(v for v in sorted(releases) if last and last[0] < v < first and v not in outcomes)
    return Dating(first, oldest, last, tuple(sorted(regressions)), flaky, unmeasured, gap)


# -- An entry's history, from the records ------------------------------------------------


def release_of(record: dict[str, Any]) -> Version:
    """Return the release a record was made under: ``2.4.1+cu121`` -> ``2.4.1``."""
    return Version(Version(record["machine"]["torch_version"]).base_version)


def minor(version: Version) -> str:
    return f"{version.major}.{version.minor}"


@dataclass
class History:
    """Everything the records say about one entry, by release."""

    page: str
    entry: str
    probe: dict[Version, Outcome] = field(default_factory=dict)
    api: dict[Version, Outcome] = field(default_factory=dict)
    blocks: dict[int, dict[Version, Outcome]] = field(default_factory=dict)
    # The probe's outcomes by machine (its id), and each machine's CPU in words: where
    # two machines' records disagree under one release, the since depends on the machine.
    by_machine: dict[str, dict[Version, Outcome]] = field(default_factory=dict)
    machine_words: dict[str, str] = field(default_factory=dict)


def _outcome(part: dict[str, Any], record: str = "") -> Outcome:
    return Outcome(
        part["status"], part["error"], part["runs"], part["failures"], part.get("output", ""),
        record,
    )  # fmt: skip


class StaleRecord(ValueError):
    """A record made from other code than the page now has, naming the command that refreshes it."""


def refresh_command(record: dict[str, Any], oldest: Version | None) -> str:
    page = f"examples/{record['page']}.py"
    release = release_of(record)
    if release == oldest:
        return f"nox -s oldest-torch -- {page}"
    return f"nox -s torch-version -- {release} {page}"


def histories(
    records: list[dict[str, Any]], current: dict[tuple[str, str], str]
) -> tuple[dict[tuple[str, str], History], list[str]]:
    """Gather each entry's outcomes from the version records, leaving out stale ones.

    Parameters
    ----------
    records : list of dict
        Records as :func:`machines.load_records` returns them (``_path`` included).
    current : dict
        ``(page, entry) -> digest`` of the code each entry has now (with its probe's).

    Returns
    -------
    dict, list of str
        The histories, and one message per stale record: the file, the entry, and the
        command that measures it again.
    """
    versioned = [r for r in records if "entries" in r]
    oldest = min((release_of(r) for r in versioned), default=None)
    found: dict[tuple[str, str], History] = {}
    stale: list[str] = []
    for record in versioned:
        release = release_of(record)
        for row in record["entries"]:
            key = (record["page"], row["entry"])
            if current.get(key) != row["source_sha256"]:
                what = "is no longer on the page" if key not in current else (
                    "was measured from other code than the page has now"
                )  # fmt: skip
                stale.append(
                    f"{record['_path']}: the record of {row['entry']!r} {what}; measure it "
                    f"again with `{refresh_command(record, oldest)}`"
                )
                continue
            history = found.setdefault(key, History(*key))
            if row["probe"] is not None:
                history.probe[release] = _outcome(row["probe"])
                machine = record["machine_id"]
                history.by_machine.setdefault(machine, {})[release] = history.probe[release]
                history.machine_words[machine] = cpu_words(record["machine"])
                missing = row["probe"]["api_missing"]
                history.api[release] = Outcome(
                    FAILS if missing else WORKS, "missing: " + ", ".join(missing) if missing else ""
                )
            for n, block in enumerate(row["blocks"]):
                history.blocks.setdefault(n, {})[release] = _outcome(block, record["_path"])
    return found, stale


def _combined(blocks: dict[int, dict[Version, Outcome]]) -> dict[Version, Outcome]:
    """Combine an entry's blocks into one outcome per release, for an entry with no probe."""
    releases = sorted({v for per in blocks.values() for v in per})
    combined = {}
    for v in releases:
        parts = [per[v] for per in blocks.values() if v in per]
        failing = [p for p in parts if p.status == FAILS]
        flaky = [p for p in parts if p.status == FLAKY]
        if failing:
            combined[v] = failing[0]
        elif flaky:
            combined[v] = flaky[0]
        elif all(p.status == SKIPPED for p in parts):
            combined[v] = parts[0]
        else:
            combined[v] = Outcome(WORKS)
    return combined


# -- What the page says ------------------------------------------------------------------

# What an error says is missing: "unexpected keyword argument 'x'" -> "`x=`".
_MISSING = (
    (re.compile(r"unexpected keyword argument '(\w+)'"), "`{}=`"),
    (re.compile(r"cannot import name '(\w+)'"), "`{}`"),
    (re.compile(r"has no attribute '(\w+)'"), "`{}`"),
    (re.compile(r"No module named '([\w.]+)'"), "`{}`"),
    (re.compile(r"(torch[\w.]+) does not exist"), "`{}`"),
)


def what_is_missing(error: str) -> str:
    """Name what an error says a release lacks, or "" when it does not say."""
    for pattern, shape in _MISSING:
        found = pattern.search(error)
        if found:
            return shape.format(found.group(1))
    return ""


# What records made before torch_versions removed the whole path kept of it: " (<venv>".
_CUT_PATH = re.compile(r" ?\(<(?:venv|repo)>[^()]*\)?$")


def _short(error: str, limit: int = 160) -> str:
    error = _CUT_PATH.sub("", error)
    return error if len(error) <= limit else error[: limit - 1] + "…"


def _release_list(versions: Iterable[Version]) -> str:
    names = [str(v) for v in versions]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class EntrySince:
    """The since of one entry, with everything its note says.

    Attributes
    ----------
    page, entry : str
    probe : Probe or None
        What dates it; None for an entry dated by its code blocks alone.
    call : Dating
        The probe's dating (or the blocks', together, without a probe).
    api : Dating or None
        The API check's dating, with a probe.
    extras : tuple of (int, Dating)
        Code blocks (by position in the entry) that need a later release than the call.
    earlier : tuple of (Version, str)
        Releases that had the names but where the call failed, before the last failing
        one, each with its error: a reader of those releases meets them too.
    """

    page: str
    entry: str
    probe: Probe | None
    call: Dating
    api: Dating | None = None
    extras: tuple[tuple[int, Dating], ...] = ()
    earlier: tuple[tuple[Version, str], ...] = ()
    # Where machines' records disagree: each machine's CPU in words, dating and outcomes.
    machines: tuple[tuple[str, Dating, dict[Version, Outcome]], ...] = ()
    disputed: tuple[Version, ...] = ()  # the releases under which the machines disagree

    @property
    def release(self) -> str:
        """Return ``"2.6"``, or ``"≤ 2.6"`` when the call may work under an earlier release.

        That is when 2.6 is the oldest recorded, or releases before it are not measured.
        """
        return self.call.since()

    @property
    def api_first(self) -> Version | None:
        """The first release whose names the probe's API check found, if it has one."""
        return self.api.first if self.api is not None else None

    @property
    def api_differs(self) -> bool:
        return (
            self.api is not None
            and self.api.first is not None
            and self.call.first is not None
            and minor(self.api.first) != minor(self.call.first)
            and not (self.api.at_oldest and self.call.at_oldest)
        )

    def role_text(self) -> str:
        """Return what ``:since:`` writes: the release, and the API check's where it differs.

        Where the machines' records disagree, each machine's since, and "by machine".
        """
        if self.machines:
            sinces = dict.fromkeys(
                d.since() if d.first else "none yet" for _, d, _ in self.machines
            )
            return " or ".join(sinces) + ", by machine"
        api, first = self.api, self.call.first
        if self.api_differs and api and api.first and first and api.first < first:
            return f"{self.release} (API {api.since()})"
        return self.release

    def needs_note(self) -> bool:
        c = self.call
        return bool(
            self.machines or not c.at_oldest or self.extras or c.regressions or c.flaky
            or c.unmeasured or self.api_differs
        )  # fmt: skip

    def note(self) -> str:
        """Write the note under the entry's title: measured, in the reader's words."""
        call = f"`{self.probe.call}`" if self.probe else "this entry's code"
        c, parts, earlier = self.call, [], list(self.earlier)
        if c.at_oldest:
            parts.append(f"Works with torch {c.first} and newer: measured, {call} runs under it.")
        elif c.last_failing is not None and c.gap:
            v, error = c.last_failing
            parts.append(
                f"Works with torch {c.first} and newer: measured, {call} did not work under "
                f"{v} ({_short(self._explain(v, error))}) and works under {c.first}; "
                f"{_release_list(c.gap)} between them are not measured yet, so it may work "
                "from one of those."
            )
        elif c.last_failing is not None and c.first is not None:
            v, error = c.last_failing
            same = [e for e, err in earlier if self._explain(e, err) == self._explain(v, error)]
            earlier = [(e, err) for e, err in earlier if e not in same]
            parts.append(
                f"Needs torch {minor(c.first)} or newer: measured, {call} did not work under "
                f"{_release_list([*same, v])} ({_short(self._explain(v, error))}) and works "
                f"from {c.first} on."
            )
        else:
            parts.append(f"Works from torch {c.first} on: measured; not measured before that.")
        if self.machines:  # the merged records' story is no machine's: each says its own
            parts, earlier, c = [self._by_machine(call)], [], Dating(c.first, c.oldest)
        if self.api_differs and not self.machines:
            parts.append(
                f"The names it needs exist from {self.api_first} (checked against each "
                f"release); the call works from {c.first}."
            )
        if earlier:
            said: dict[str, list[Version]] = {}
            for v, error in earlier:
                said.setdefault(_short(self._explain(v, error), 120), []).append(v)
            failed = "; ".join(f"under {_release_list(vs)}: {what}" for what, vs in said.items())
            parts.append(f"It also failed {failed}.")
        for v, error in c.regressions:
            parts.append(f"It fails under {v} only ({_short(self._explain(v, error))}).")
        for v, error in c.flaky:
            parts.append(f"Under {v} it is flaky ({_short(error)}).")
        if c.unmeasured:
            parts.append(
                f"Not measured under {_release_list(v for v, _ in c.unmeasured)}: "
                f"{_short(c.unmeasured[0][1] or 'the code skipped its call there')}."
            )
        for n, dating in self.extras:
            under, error = dating.last_failing or (None, "")
            what = what_is_missing(error) or f"code block {n + 1}"
            parts.append(
                f"This entry's own code also uses {what}, which needs {dating.since()}"
                + (f" (under {under}: {_short(error, 120)})." if under else ".")
            )
        return " ".join(parts)

    def _by_machine(self, call: str) -> str:
        """Say where the machines' records disagree, and each machine's since."""
        told: dict[tuple[str, str, str], list[Version]] = {}
        for v in self.disputed:
            works = [w for w, _, outs in self.machines if v in outs and outs[v].status == WORKS]
            fails = [(w, outs[v].error) for w, _, outs in self.machines
                     if v in outs and outs[v].status == FAILS]  # fmt: skip
            error = _short(self._explain(v, fails[0][1]), 120)
            key = (" and ".join(works), " and ".join(w for w, _ in fails), error)
            told.setdefault(key, []).append(v)
        disputes = "; ".join(
            f"under {_release_list(vs)} it works on {works} and fails on {fails} ({error})"
            for (works, fails, error), vs in told.items()
        )
        sinces = "; ".join(
            f"on {words}, {d.since() if d.first else 'not under the newest release measured'}"
            for words, d, _ in self.machines
        )
        return (
            f"Which release {call} first works under depends on the machine: {disputes}. "
            f"Each machine's records date it: {sinces}."
        )

    def _explain(self, release: Version, error: str) -> str:
        for known in self.probe.known if self.probe else ():
            if minor(release) in known.releases:
                return f"{known.says}: {known.link}"
        return error


def entry_since(
    history: History, probe: Probe | None, releases: Iterable[Version] = ()
) -> EntrySince | None:
    """Date one entry from its history; None when nothing dates it (no working release)."""
    releases = tuple(releases)
    call = date(history.probe if probe else _combined(history.blocks), releases)
    if call.first is None:
        return None
    # An API check of no names says nothing: only a probe that names its API gets one.
    api = date(history.api, releases) if probe and probe.api and history.api else None
    extras = []
    for n, outcomes in sorted(history.blocks.items()):
        block = date(outcomes, releases)
        if block.first is not None and block.first > call.first:
            extras.append((n, block))
    earlier: tuple[tuple[Version, str], ...] = ()
    if api is not None and api.first is not None and call.last_failing is not None:
        outcomes = history.probe if probe else _combined(history.blocks)
        earlier = tuple(
            (v, o.error) for v, o in sorted(outcomes.items())
            if api.first <= v < call.last_failing[0] and o.status == FAILS
        )  # fmt: skip
    machines, disputed = _machine_datings(history, releases) if probe else ((), ())
    return EntrySince(
        history.page, history.entry, probe, call, api, tuple(extras), earlier, machines, disputed
    )


def _machine_datings(
    history: History, releases: tuple[Version, ...]
) -> tuple[tuple[tuple[str, Dating, dict[Version, Outcome]], ...], tuple[Version, ...]]:
    """Each machine's dating of the probe, where two machines disagree under one release.

    A release under which one machine's probe works and another's fails (each reproduced)
    is disputed; with none, the machines agree and one since holds for all (empty result).
    """
    per = history.by_machine
    disputed = tuple(
        v for v in sorted({v for outcomes in per.values() for v in outcomes})
        if {o[v].status for o in per.values() if v in o} >= {WORKS, FAILS}
    )  # fmt: skip
    if not disputed:
        return (), ()
    datings = [(history.machine_words[m], date(per[m], releases), per[m]) for m in sorted(per)]
    datings.sort(key=lambda wdo: (wdo[1].first or Version("999"), wdo[0]))
    return tuple(datings), disputed


def known_contradictions(history: History, probe: Probe) -> list[str]:
    """Known upstream bugs that the records do not show: a release said to fail that works."""
    found = []
    for known in probe.known:
        for v, outcome in history.probe.items():
            if minor(v) in known.releases and outcome.status == WORKS:
                found.append(
                    f"probe of {probe.label!r} says {minor(v)} {known.says}, but its record "
                    f"under {v} shows it working"
                )
    return found


# -- The build -------------------------------------------------------------------------


@dataclass
class _State:
    """What the records say, computed once per build."""

    since: dict[str, EntrySince]  # by entry label
    probes: dict[str, Probe]
    releases: dict[Version, tuple[int, int, str]]  # release -> (works, entries, date)
    problems: list[str]
    stale: list[str]
    # Each entry's code blocks dated alone, by label and position: what an older torch
    # can run when the entry has no since (its probe never ran here: a GPU's call).
    blocks: dict[str, dict[int, Dating]] = field(default_factory=dict)
    # And what each block did under each release: an older torch does not run a block
    # that failed under the newest release measured at or before it.
    outcomes: dict[str, dict[int, dict[Version, Outcome]]] = field(default_factory=dict)


def _examples(app: Sphinx) -> Path:
    return Path(app.confdir, "examples")


def current_entries(examples: Path) -> dict[tuple[str, str], Entry]:
    """Every entry of every example page, by ``(page, label)``."""
    found = {}
    for path in sorted(examples.glob("*/*.py")):
        for entry in page_entries(path, examples.parent):
            found[(entry.page, entry.label)] = entry
    return found


def compute(
    records: list[dict[str, Any]],
    entries: dict[tuple[str, str], Entry],
    probes: dict[str, Probe],
    chain: Iterable[Version] = (),
) -> _State:
    """Date every entry the records know, and list what is wrong with the records.

    ``chain`` holds the releases the records should cover: a gap in it makes a since an
    upper bound ("≤ 2.9"), never a claim that the releases before it fail.
    """
    chain = tuple(chain)
    current = {
        key: e.digest(probes[e.label].code if e.label in probes else "")
        for key, e in entries.items()
    }
    found, stale = histories(records, current)
    problems, since = [], {}
    raw: dict[str, dict[int, dict[Version, Outcome]]] = {}
    labels = {label for _, label in entries}
    for label in sorted(set(probes) - labels):
        close = difflib.get_close_matches(label, labels, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        problems.append(f"docs/probes.toml: [{label}] is no entry of any page{hint}")
    blocks: dict[str, dict[int, Dating]] = {}
    for (page, label), history in sorted(found.items()):
        probe = probes.get(label)
        blocks[label] = {n: date(outcomes, chain) for n, outcomes in history.blocks.items()}
        raw[label] = history.blocks
        dated = entry_since(history, probe, chain)
        if probe is not None:
            problems += known_contradictions(history, probe)
        if dated is None:
            continue
        # Only an exact date is a claim about the call: an upper bound ("≤ 2.14", releases
        # between not measured yet) says no more than the code's own outcome does.
        if probe is None and not dated.call.bounded:
            problems.append(
                f"{label!r} ({page}) needs torch {dated.release} by its code, but the call it "
                "documents is not measured: give it a probe in docs/probes.toml"
            )
        api_first, call_first = dated.api_first, dated.call.first
        if dated.api_differs and api_first and call_first and api_first > call_first:
            problems.append(
                f"docs/probes.toml: [{label}] works from {call_first} but its `api` names "
                f"are missing until {api_first}: the probe does not use what `api` names"
            )
        since[label] = dated
    releases: dict[Version, tuple[int, int, str]] = {}
    for record in (r for r in records if "entries" in r):
        v = release_of(record)
        works, total, when = releases.get(v, (0, 0, record["date"][:10]))
        rows = record["entries"]
        ok = sum(all(p["status"] == WORKS for p in _parts(row)) for row in rows)
        releases[v] = (works + ok, total + len(rows), min(when, record["date"][:10]))
    return _State(since, probes, releases, problems, stale, blocks, raw)


def _parts(row: dict[str, Any]) -> list[dict[str, Any]]:
    return ([row["probe"]] if row["probe"] else []) + row["blocks"]


def _state(app: Sphinx) -> _State:
    state = getattr(app, "_cheatsheet_since", None)
    if state is None:
        records = load_records(Path(app.confdir, RESULTS_DIR))
        probes = load_probes(Path(app.confdir, app.config.since_probes))
        chain = [Version(v) for v in app.config.since_releases]
        state = compute(records, current_entries(_examples(app)), probes, chain)
        app._cheatsheet_since = state  # type: ignore[attr-defined]
    return state


def _report(app: Sphinx) -> None:
    """Say what is wrong with the records and probes, once per build, before pages are read."""
    state = _state(app)
    for problem in state.problems:
        logger.warning(problem, type="since", subtype="probe")
    for message in state.stale:
        if app.config.stale_records == "warn":
            logger.info("stale record: %s", message)
        else:
            logger.warning(message, type="since", subtype="stale")


_CODE_OR_LINK = re.compile(r"`([^`]+)`|(https://\S+[^\s.,;:)])")


def _inline(text: str) -> list[nodes.Node]:
    """Text with ``code`` in backticks and bare links, as docutils nodes."""
    found: list[nodes.Node] = []
    at = 0
    for match in _CODE_OR_LINK.finditer(text):
        found.append(nodes.Text(text[at : match.start()]))
        if match.group(1):
            found.append(nodes.literal(text=match.group(1)))
        else:
            found.append(nodes.reference(match.group(2), match.group(2), refuri=match.group(2)))
        at = match.end()
    found.append(nodes.Text(text[at:]))
    return found


class SinceRole(SphinxRole):
    """``:since:`label``` writes the release from which the entry's call works."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        state = _state(self.env.app)
        since = state.since.get(self.text)
        if since is None or since.probe is None:
            if since is None and self.text in state.probes:
                text = (
                    f"the version records show no release under which {self.text!r} works: "
                    "measure a later one (nox -s torch-version -- <release>)"
                )
            elif since is None:
                close = difflib.get_close_matches(self.text, [*state.since, *state.probes], n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                text = (
                    f"no version record dates the entry {self.text!r}{hint} "
                    "(run `nox -s oldest-torch`; records in results/) or fix the label"
                )
            else:
                text = f"{self.text!r} has no probe in docs/probes.toml: a since needs one"
            msg = self.inliner.reporter.error(text, line=self.lineno)
            return [self.inliner.problematic(self.rawtext, self.rawtext, msg)], [msg]
        return [nodes.inline(self.rawtext, since.role_text(), classes=["since"])], []


def _mark_entries(app: Sphinx, doctree: nodes.document) -> None:
    """Under the title of each entry with something measured to say, say it."""
    if not app.env.docname.startswith("gallery/"):
        return
    since = _state(app).since
    for section in doctree.findall(nodes.section):
        found = [since[i] for i in section["ids"] if i in since and since[i].needs_note()]
        if found and isinstance(section[0], nodes.title):
            note = nodes.paragraph("", "", *_inline(found[0].note()), classes=["since-note"])
            section.insert(1, note)


class TorchCoverageDirective(SphinxDirective):
    """``.. torch-coverage::`` lists the releases tried and the entries that need a newer one."""

    def run(self) -> list[nodes.Node]:
        state = _state(self.env.app)
        if not state.releases:
            return [nodes.paragraph(text="No run under an older torch is recorded yet.")]
        oldest = min(state.releases)
        lines = [
            f"torch {v} ({when}): {'every entry' if v == oldest else 'every probe, and the entries that did not all work under the oldest'}; "
            f"{works} of {total} work."
            for v, (works, total, when) in sorted(state.releases.items())
        ]
        found: list[nodes.Node] = [
            nodes.bullet_list("", *(nodes.list_item("", nodes.paragraph(text=t)) for t in lines))
        ]
        needs = sorted(
            (s for s in state.since.values() if not s.call.at_oldest or s.extras),
            key=lambda s: (s.call.first, s.page, s.entry),
        )
        found.append(self._table(needs))
        return found

    def _table(self, needs: list[EntrySince]) -> nodes.table:
        from sphinx import addnodes

        table = nodes.table(classes=["torch-coverage"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (2, 4, 4, 8):
            group += nodes.colspec(colwidth=width)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body
        titles = ("since", "entry", "call", "what the releases before showed")
        head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=t)) for t in titles))
        for since in needs:
            ref = addnodes.pending_xref(
                "", nodes.literal(text=since.entry), refdomain="std", reftype="entry",
                reftarget=since.entry, refexplicit=True, refdoc=self.env.docname,
            )  # fmt: skip
            cells = (
                nodes.paragraph(text=since.role_text()),
                nodes.paragraph("", "", ref),
                nodes.paragraph(
                    "", "", *_inline(f"`{since.probe.call}`" if since.probe else "its code")
                ),
                nodes.paragraph("", "", *_inline(since.note())),
            )
            body += nodes.row("", *(nodes.entry("", c) for c in cells))
        return table


class TorchOutputsDirective(SphinxDirective):
    """``.. torch-outputs:: label`` shows what an entry's code printed under other releases.

    ``:releases: 2.14.1`` names them; each must have a version record of the entry's
    current code that kept its output (``nox -s torch-version -- <release> <page>``),
    or the build says which command makes one. ``:blocks: 1`` shows only the entry's
    first block (counted from 1), all of them without it. The build's own output is on
    the page.
    """

    required_arguments = 1
    option_spec = {"releases": str, "blocks": str}  # noqa: RUF012 (docutils reads the class's)

    def run(self) -> list[nodes.Node]:
        label = self.arguments[0]
        state = _state(self.env.app)
        blocks = state.outcomes.get(label)
        if blocks is None:
            raise self.error(f"torch-outputs: no version record of the entry {label!r}")
        found: list[nodes.Node] = []
        wanted = {int(n) - 1 for n in self.options.get("blocks", "").split()} or set(blocks)
        for release in (Version(v) for v in self.options.get("releases", "").split()):
            shown = [(n, per[release]) for n, per in sorted(blocks.items())
                     if n in wanted and release in per and per[release].output]  # fmt: skip
            if not shown:
                raise self.error(
                    f"torch-outputs: no record of {label!r} under torch {release} kept its "
                    f"output: run `nox -s torch-version -- {release} <its page>`"
                )
            record = shown[0][1].record
            words = f"Under torch {release} the same code printed (version record `{record}`):"
            found.append(nodes.paragraph("", "", *_inline(words), classes=["torch-outputs"]))
            for _, outcome in shown:
                text = outcome.output.rstrip() or "(nothing)"
                block = nodes.literal_block(text, text, classes=["torch-outputs"])
                block["language"] = "none"  # output, not code to highlight
                found.append(block)
        return found


# -- A build with an older torch ---------------------------------------------------------


def needs_newer(since: EntrySince, block: int, installed: Version) -> Version | None:
    """Return the release block ``block`` of an entry needs beyond ``installed``, or None.

    The call's since covers every block; a block with a later since of its own (an
    optional argument, a diagnostic) needs that one. Releases compare by minor version:
    an entry that works from 2.6.0 runs under any 2.6.x.
    """
    needed = since.call.first
    for n, dating in since.extras:
        if n == block and dating.first is not None:
            needed = dating.first if needed is None else max(needed, dating.first)
    if needed is None or (needed.major, needed.minor) <= (installed.major, installed.minor):
        return None
    return needed


def older_torch_policy(app: Sphinx) -> Any:
    """Return a ``blockexec`` policy that leaves out what the build's torch cannot run.

    A block whose entry needs a newer torch than the build's does not run; it prints
    why, and where the hosted site shows its output.
    """
    installed = older_torch(app)
    entries: dict[Path, list[Entry]] = {}

    def policy(block: Any, script_vars: dict[str, Any]) -> str | None:
        if installed is None:
            return None  # the releases the records cover all run what this torch runs
        source = Path(script_vars["src_file"])
        if source not in entries:
            entries[source] = page_entries(source, Path(app.confdir))
        state = _state(app)
        for entry in entries[source]:
            for n, code in enumerate(entry.blocks):
                if not code.origin.endswith(f":{block.lineno}"):
                    continue
                since = state.since.get(entry.label)
                needed = needs_newer(since, n, installed) if since else None
                seen = "see the note above"
                alone = state.blocks.get(entry.label, {}).get(n)
                # No since (its probe never ran here): the block's own runs decide.
                if (
                    since is None
                    and alone is not None
                    and alone.first is not None
                    and (alone.first.major, alone.first.minor) > (installed.major, installed.minor)
                ):
                    needed, failed = alone.first, alone.last_failing
                    seen = f"it failed under {failed[0]}" if failed else seen
                if needed is not None:
                    why = f"needs torch {minor(needed)} or newer (measured, {seen})"
                else:
                    # The entry is dated no later than this torch (or not at all), yet this
                    # block failed under the newest release measured at or before it (a
                    # later block of the entry, an optional package's older API): it would
                    # fail here too, so it is left out the same way.
                    runs = state.outcomes.get(entry.label, {}).get(n, {})
                    under = [
                        v for v in runs if (v.major, v.minor) <= (installed.major, installed.minor)
                    ]
                    nearest = max(under, default=None)
                    if nearest is None or runs[nearest].status != FAILS:
                        return None
                    why = f"failed under torch {nearest} (measured: {runs[nearest].error})"
                logger.info("not run under torch %s: %s %s", installed, code.origin, why)
                url = f"{app.config.html_baseurl}gallery/{entry.page}.html#{entry.label}"
                said = (
                    f"not run: this code {why} and this build has torch {installed}. The hosted "
                    f"site shows its output under the torch it was built with: {url}"
                )
                return f"print({said!r})\n"
        return None

    return policy


def older_torch(app: Sphinx) -> Version | None:
    """Return the build's torch release when it is older than the records' newest, else None."""
    import torch

    installed = Version(Version(torch.__version__).base_version)
    newest = max((Version(v) for v in app.config.since_releases), default=None)
    return installed if newest is not None and installed < newest else None


def _add_policy(app: Sphinx) -> None:
    import blockexec
    import pagestate

    blockexec.POLICIES.insert(0, older_torch_policy(app))  # before torchrun's: it decides first
    older = older_torch(app)
    if older is not None:
        pagestate.warnings_fail_pages = False
        logger.info(
            "torch %s is older than the releases the records cover: what needs a newer one "
            "does not run, and its own warnings are printed, not errors",
            older,
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("since_probes", "docs/probes.toml", "env", types=[str])
    # "error": a stale record fails the build; "warn": it is left out and said (docs-live).
    app.add_config_value("stale_records", "error", "env", types=ENUM("error", "warn"))
    # The releases the version records should cover, oldest first; one missing from the
    # records between a failing and a working release keeps a since an upper bound.
    app.add_config_value("since_releases", (), "env", types=[tuple, list])
    app.add_role("since", SinceRole())
    order.connect(app, "builder-inited", _add_policy)
    app.add_directive("torch-coverage", TorchCoverageDirective)
    app.add_directive("torch-outputs", TorchOutputsDirective)
    app.connect("builder-inited", _report)
    app.connect("doctree-read", _mark_entries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
