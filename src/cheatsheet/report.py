"""Compare and show results: verdicts with intervals, tables, charts, and the machine stamp."""

from __future__ import annotations

import copy
import datetime as _dt
import html
import math
import os
import platform
import shutil
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, cast

import torch

from cheatsheet import _records as records
from cheatsheet import hardware
from cheatsheet.stats import CONFIDENCE, median_interval, quartiles
from cheatsheet.timing import (
    FEWEST_ROUNDS,
    Measurement,
    Rounds,
    check_candidates,
    check_options,
    format_seconds,
    gc_paused,
    resolve_device,
    rounds_of,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "SAME_BAND",
    "SESSIONS",
    "Comparison",
    "Environment",
    "Ratio",
    "compare",
    "environment",
    "format_ratio",
    "verdict_word",
]

#: Ratios within this fraction of 1 count as "about as fast": a difference of
#: under 5% is below what a shared machine can promise to reproduce.
SAME_BAND = 0.05

#: :func:`compare` measures in this many sessions, each with fresh copies of the
#: arguments (new allocations) and its own calibration, so that its interval covers what
#: changes from one run to the next, not only the noise inside one run.
SESSIONS = 6
# Fewest rounds a session runs. A session's median is one draw of what a run measures;
# from three rounds it is the middle one, so one round the machine slowed (a preempted
# block) cannot move it, and with it the range of the six sessions.
_SESSION_ROUNDS = 3


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], caption: str) -> str:
    """Render an escaped HTML table; nothing in ``rows`` can inject markup."""
    esc = html.escape
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return (
        f'<table class="cheatsheet-table"><caption>{esc(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    # A line break inside a cell would break the table's rows: show it as the escape.
    header, rows = [_one_line(c) for c in header], [[_one_line(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


def format_ratio(ratio: float) -> str:
    """Format a ratio with three significant digits: 1.83, 0.934, 2.00, 12.3.

    The one format of every ratio the site shows: pages, tables, records, benchmarks.
    """
    return f"{ratio:#.3g}".rstrip(".")


def verdict_word(kind: str) -> str:
    """Return the words for a :attr:`Ratio.kind`: "faster", "slower" or "about as fast"."""
    words = {"faster": "faster", "slower": "slower", "same": "about as fast"}
    if kind not in words:
        raise ValueError(f"a verdict is one of {sorted(words)}, got {kind!r}")
    return words[kind]


def verdict_change(kinds: set[str]) -> str:
    """Say how one candidate's verdicts differ across builds: "flip", "edge" or "" (they agree).

    A flip (faster in one build, slower in another) is what the verdict rule exists to
    prevent; an edge (one build says "about as fast") is a ratio near the band's edge.
    """
    if {"faster", "slower"} <= kinds:
        return "flip"
    return "edge" if len(kinds) > 1 else ""


def _kind(low: float, high: float, q1: float, q3: float) -> str:
    fast, slow = 1 + SAME_BAND, 1 / (1 + SAME_BAND)
    if low > fast and q1 > 1:
        return "faster"
    if high < slow and q3 < 1:
        return "slower"
    return "same"


@dataclass(frozen=True)
class Ratio:
    """How fast one candidate ran against the baseline, with the uncertainty of that figure.

    The estimate is the median over rounds of the paired ratio (baseline time
    of the round divided by the candidate's time of the same round), so that a
    slow spell of the machine, which hits both alike, cancels. The interval is
    the distribution-free confidence interval of that median
    (:func:`cheatsheet.median_interval`).

    Attributes
    ----------
    label, baseline : str
        The candidate and what it is compared with.
    speedup : float
        Median paired ratio; above 1 the candidate is faster.
    low, high : float
        Bounds of the confidence interval of ``speedup``.
    coverage : float
        Confidence the interval reaches, at least 95%.
    q1, q3 : float
        First and third quartiles of the paired ratios: half the rounds fall between.
    rounds : int
        Number of paired rounds.
    sessions : int
        Independent sessions the rounds came from (:data:`~cheatsheet.SESSIONS` for ``compare``).
    within_low, within_high : float
        The interval from the rounds alone, pooled over sessions; ``low`` and ``high``
        also cover the spread between the sessions' medians, and differ from these
        when that spread is the wider.
    """

    label: str
    baseline: str
    speedup: float
    low: float
    high: float
    coverage: float
    q1: float
    q3: float
    rounds: int
    sessions: int = 1
    within_low: float | None = None
    within_high: float | None = None

    def __post_init__(self) -> None:
        if self.within_low is None:
            object.__setattr__(self, "within_low", self.low)
        if self.within_high is None:
            object.__setattr__(self, "within_high", self.high)
        figures = (self.speedup, self.low, self.high, self.q1, self.q3)
        if not all(math.isfinite(f) and f > 0 for f in figures):
            raise ValueError(f"a Ratio needs positive, finite figures, got {figures}")
        if not self.low <= self.speedup <= self.high:
            raise ValueError(
                f"speedup {self.speedup} lies outside its interval {self.low}–{self.high}"
            )

    @property
    def spread(self) -> float:
        """Interquartile range of the paired ratios as a fraction of their median."""
        return (self.q3 - self.q1) / self.speedup

    @property
    def kind(self) -> str:
        """``"faster"``, ``"slower"`` or ``"same"``: what the measurement can support.

        "faster" needs the whole confidence interval above ``1 + SAME_BAND``
        and three rounds in four to agree that the candidate was faster (the
        first quartile of the paired ratios above 1), so that neither chance
        nor noise that splits the rounds makes the call; "slower" mirrors it.
        Anything else is "same".
        """
        return _kind(self.low, self.high, self.q1, self.q3)

    @property
    def limited_by_sessions(self) -> bool:
        """Whether only the spread between sessions keeps this from a faster or slower verdict."""
        return self.kind == "same" and (
            _kind(self.within_low or self.low, self.within_high or self.high, self.q1, self.q3)
            != "same"
        )

    def sentence(self) -> str:
        """Say the verdict in words, with its interval: what a page prints."""
        if self.kind == "faster":
            return (
                f"{self.label} is {format_ratio(self.speedup)}x faster than {self.baseline} "
                f"({format_ratio(self.low)}–{format_ratio(self.high)}x)"
            )
        if self.kind == "slower":
            return (
                f"{self.label} is {format_ratio(1 / self.speedup)}x slower than {self.baseline} "
                f"({format_ratio(1 / self.high)}–{format_ratio(1 / self.low)}x)"
            )
        why = (
            f"its {self.sessions} sessions disagree: the spread between runs, not the noise "
            "within one, keeps it from a verdict"
            if self.limited_by_sessions
            else "the difference is within this machine's noise"
        )
        return (
            f"{self.label} is about as fast as {self.baseline} "
            f"({format_ratio(self.low)}–{format_ratio(self.high)}x): {why}"
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain fields and the verdict, ready for ``json.dumps``."""
        return {**asdict(self), "kind": self.kind, "sentence": self.sentence()}


def _paired_ratio(base: Measurement, other: Measurement) -> Ratio:
    if base.runs != other.runs:
        raise ValueError(
            f"{base.label!r} and {other.label!r} were not timed in the same rounds "
            f"({base.runs} and {other.runs} blocks); measure them together with compare()"
        )
    ratios = [
        b / o if o > 0 else math.inf for b, o in zip(base.times_s, other.times_s, strict=True)
    ]
    if not all(math.isfinite(r) and r > 0 for r in ratios):
        raise ValueError(
            f"a block of {other.label!r} or {base.label!r} took no measurable time; "
            "the clock did not advance, so no ratio can be formed"
        )
    within_low, within_high, coverage = median_interval(ratios)
    q1, median, q3 = quartiles(ratios)
    low, high = within_low, within_high
    sizes = base.session_sizes or (len(ratios),)
    if len(sizes) >= 2:
        # Each session's median ratio is one draw of what a run measures. With six, the
        # true median lies outside their range only if all six fall on one side of it
        # (2 / 64 = 3.1%): that range covers the spread between runs, and the verdict
        # takes whichever interval is wider.
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        medians = [statistics.median(ratios[a : a + n]) for a, n in zip(starts, sizes, strict=True)]
        low, high = min(low, *medians), max(high, *medians)
    return Ratio(
        label=other.label,
        baseline=base.label,
        speedup=median,
        low=low,
        high=high,
        coverage=coverage,
        q1=q1,
        q3=q3,
        rounds=len(ratios),
        sessions=len(sizes),
        within_low=within_low,
        within_high=within_high,
    )


@dataclass(frozen=True)
class Comparison:
    """Candidates timed in alternation, each against one baseline, with verdicts that hold.

    Attributes
    ----------
    measurements : tuple of Measurement
        The candidates' timings, in the order given; ``times_s`` entries with
        the same index come from the same round.
    baseline : str
        Label of the candidate every ratio is relative to.
    ratios : tuple of Ratio
        One per candidate other than the baseline, in order.
    """

    measurements: tuple[Measurement, ...]
    baseline: str
    ratios: tuple[Ratio, ...]

    def __getitem__(self, label: str) -> Measurement:
        for m in self.measurements:
            if m.label == label:
                return m
        raise KeyError(f"no candidate labelled {label!r}; labels here: {self._labels()}")

    def _labels(self) -> str:
        return ", ".join(repr(m.label) for m in self.measurements)

    def ratio(self, label: str) -> Ratio:
        """Return the :class:`~cheatsheet.Ratio` of ``label`` against the baseline."""
        for r in self.ratios:
            if r.label == label:
                return r
        if label == self.baseline:
            raise KeyError(f"{label!r} is the baseline; ask for another candidate's ratio")
        raise KeyError(f"no candidate labelled {label!r}; labels here: {self._labels()}")

    def speedup(self, label: str) -> float:
        """Median paired ratio of ``label`` against the baseline (above 1: faster)."""
        if label == self.baseline:
            return 1.0
        return self.ratio(label).speedup

    def verdict(self, label: str) -> str:
        """One sentence comparing ``label`` with the baseline, interval included."""
        return self.ratio(label).sentence()

    def verdicts(self) -> list[str]:
        """Return the verdict of every candidate against the baseline."""
        return [r.sentence() for r in self.ratios]

    def as_dict(self) -> dict[str, Any]:
        """Every timing and ratio as plain data, ready for ``json.dumps``."""
        return {
            "baseline": self.baseline,
            "measurements": [m.as_dict() for m in self.measurements],
            "ratios": [r.as_dict() for r in self.ratios],
        }

    def _rows(self) -> tuple[list[str], list[list[str]]]:
        header = [
            "label",
            "median",
            "spread (IQR)",
            f"speedup vs {self.baseline} ({CONFIDENCE:.0%} interval)",
            "verdict",
        ]
        rows = []
        for m in self.measurements:
            spread = f"±{m.iqr_fraction:.1%}"
            if m.label == self.baseline:
                ratio_text, kind = "1 (baseline)", "baseline"
            else:
                r = self.ratio(m.label)
                ratio_text = (
                    f"{format_ratio(r.speedup)}x ({format_ratio(r.low)}–{format_ratio(r.high)})"
                )
                kind = verdict_word(r.kind) + (
                    " (sessions disagree)" if r.limited_by_sessions else ""
                )
            rows.append([m.label, format_seconds(m.median_s), spread, ratio_text, kind])
        return header, rows

    def _caption(self) -> str:
        m = self.measurements[0]
        threads = sorted({m.threads for m in self.measurements})
        plural = "" if threads == [1] else "s"
        sessions = len(m.session_sizes) or 1
        return (
            f"Median time per call on {m.device} ({', '.join(map(str, threads))} "
            f"thread{plural}), timed in {m.runs} alternating rounds in {sessions} "
            f"session{'' if sessions == 1 else 's'}; speedup is the median of the per-round "
            f"ratios, its interval covers the spread between sessions too, and within "
            f"±{SAME_BAND:.0%} of 1 counts as about as fast"
        )

    def __repr__(self) -> str:
        header, rows = self._rows()
        return _text_table(header, rows)

    def _repr_html_(self) -> str:
        header, rows = self._rows()
        return _html_table(header, rows, self._caption())

    def plot(self, ax: Axes | None = None, *, title: str | None = None) -> Figure:
        """Draw each candidate's speedup over the baseline with its confidence interval.

        The shaded band is "about as fast" (±5%); a bar whose whisker reaches
        into it has no faster/slower verdict.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw into; by default a new figure is made with pyplot, so
            notebooks and sphinx-gallery show it like any other.
        title : str, optional
            Defaults to "Speedup over <baseline>".

        Returns
        -------
        matplotlib.figure.Figure
        """
        if ax is None:
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(
                figsize=(6.4, 0.5 * len(self.ratios) + 1.6), layout="constrained"
            )
        else:
            fig = cast("Figure", ax.figure)  # an Axes of a subfigure is drawn with its figure
        ratios = self.ratios
        y = list(range(len(ratios)))[::-1]
        speedups = [r.speedup for r in ratios]
        whiskers = [
            [r.speedup - r.low for r in ratios],
            [r.high - r.speedup for r in ratios],
        ]
        ax.axvspan(1 / (1 + SAME_BAND), 1 + SAME_BAND, color="0.5", alpha=0.25, lw=0)
        ax.axvline(1.0, color="0.5", lw=1)
        ax.barh(y, speedups, xerr=whiskers, color="#4c72b0", capsize=3, left=0)
        ax.set_yticks(y, [_literal(r.label) for r in ratios])
        ax.set_xlabel(
            f"speedup over {_literal(self.baseline)} (x, {CONFIDENCE:.0%} interval); "
            "shaded: about as fast"
        )
        for yi, r in zip(y, ratios, strict=True):
            ax.annotate(f" {format_ratio(r.speedup)}x", (r.high, yi), va="center", fontsize=9)
        ax.margins(x=0.2)
        # A long title wraps inside the figure instead of running off its edge.
        ax.set_title(
            title or f"Speedup over {_literal(self.baseline)} (higher is faster)", wrap=True
        )
        return fig


def _literal(label: str) -> str:
    # matplotlib reads text between two "$" as math: a label's dollar signs are just text.
    return label.replace("$", r"\$")


def compare(
    candidates: Mapping[str, Callable[..., Any]],
    *args: Any,
    baseline: str | None = None,
    device: str | torch.device | None = None,
    budget_s: float = 2.0,
    min_rounds: int = 20,
    **kwargs: Any,
) -> Comparison:
    """Time candidates in alternation and say which is faster, and how sure that is.

    The candidates run in rounds, each round one block of each in a shuffled
    order (:func:`cheatsheet.interleave`), so a slow spell of the
    machine falls on all of them alike. The rounds come in :data:`~cheatsheet.SESSIONS`
    independent sessions, each with new copies of the arguments and its own
    calibration: what changes from one run to the next (where the inputs land in
    memory, the block sizes) changes between sessions too. Each candidate's speed
    against the baseline is the median over rounds of the paired ratio; its 95%
    interval is the wider of a distribution-free interval over all rounds and the
    range of the six sessions' medians, so it covers the spread between runs, not
    only the noise inside one. The verdict follows from the interval:
    "faster" or "slower" only when all of it lies more than 5% from 1 and three
    rounds in four agree on the direction; otherwise "about as fast", however
    large a noisy ratio looks, and the sentence says when the disagreement of
    the sessions is what stood in the way.

    Parameters
    ----------
    candidates : dict
        Label and function of each candidate, e.g.
        ``{"eager": model, "compiled": torch.compile(model)}``.
    *args, **kwargs
        Passed to every candidate on every call.
    baseline : str, optional
        Label every ratio is relative to; defaults to the first candidate.
    device, budget_s, min_rounds
        As in :func:`cheatsheet.interleave`, for all sessions together (at least
        three rounds run in each session, eighteen in all).

    Returns
    -------
    Comparison
    """
    if baseline is not None and (not isinstance(candidates, Mapping) or baseline not in candidates):
        labels = list(candidates) if isinstance(candidates, Mapping) else candidates
        raise ValueError(f"baseline {baseline!r} is not one of the labels {labels}")
    check_candidates(candidates)
    check_options(budget_s, min_rounds, "min_rounds", FEWEST_ROUNDS)
    dev = resolve_device(device, tuple(candidates.values()), args, kwargs)
    # All copies live until the end, so that each session's inputs sit at other addresses.
    copies = [_fresh_copies(args, kwargs) for _ in range(SESSIONS)]
    sessions: list[dict[str, Rounds]] = []
    with gc_paused():  # one collection for all sessions, not one each
        for n, copy_n in enumerate(copies):
            sessions.append(rounds_of(candidates, *copy_n, dev, budget_s / SESSIONS,
                                      _SESSION_ROUNDS, seed=n, first_calls=n == 0,
                                      settle=device is None and n == 0))  # fmt: skip
            dev = next(iter(sessions[0].values())).device  # what the first calls started
    threads = torch.get_num_threads()
    measurements = tuple(
        Measurement(
            label=name,
            times_s=tuple(t for session in sessions for t in session[name].times_s),
            calls_per_run=sessions[0][name].calls_per_run,
            first_call_s=sessions[0][name].first_call_s,
            threads=threads,
            device=str(dev),
            runs_wanted=min_rounds,
            session_sizes=tuple(len(session[name].times_s) for session in sessions),
        )
        for name in candidates
    )
    base = baseline if baseline is not None else measurements[0].label
    base_m = next(m for m in measurements if m.label == base)
    ratios = tuple(_paired_ratio(base_m, m) for m in measurements if m.label != base)
    result = Comparison(measurements, base, ratios)
    records.note("comparison", result.as_dict())
    return result


def _fresh_copies(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple, dict]:
    """Return new copies of the arguments, so each session allocates its own.

    The originals when they cannot be copied.
    """
    try:
        return copy.deepcopy(args), copy.deepcopy(kwargs)
    except Exception:  # noqa: BLE001 - an argument that refuses deepcopy: measure with the original
        return args, kwargs


@dataclass(frozen=True)
class Environment:
    """The hardware and software that ran the code.

    Attributes
    ----------
    cpu : str
        CPU model name.
    logical_cores : int
        Logical CPU cores the OS reports.
    torch_threads : int
        Threads PyTorch uses for intra-op parallelism.
    gpus : tuple of str
        Each accelerator's name and memory, empty when there is none.
    torch_version, cuda_version, python_version : str
        Versions; ``cuda_version`` is ``"none"`` on a CPU-only build.
    os : str
        Operating system and release.
    inductor_cpp_compiler : str
        Path of the C++ compiler TorchInductor would use on the CPU, or
        ``"not found"`` (then ``torch.compile`` cannot generate CPU code).
    date : str
        UTC date of the run, ISO format.
    cpu_signature : str
        What tells CPUs of one model name apart ("family 25 model 1 stepping 1"), empty
        where the OS does not say; with ``memory_gib`` it keeps two machines that show
        the same model name apart in :func:`cheatsheet.machine_id`.
    memory_gib : int
        The machine's memory, GiB; 0 where the OS does not say.
    cpu_capability : str
        The vector instructions PyTorch's CPU kernels use here
        (``torch.backends.cpu.get_cpu_capability()``: "AVX512", "AVX2", "DEFAULT", ...):
        two CPUs of one model name can differ in it, and so can one CPU under
        ``ATEN_CPU_CAPABILITY``.
    """

    cpu: str
    logical_cores: int
    torch_threads: int
    gpus: tuple[str, ...]
    torch_version: str
    cuda_version: str
    python_version: str
    os: str
    inductor_cpp_compiler: str
    date: str
    cpu_signature: str = ""
    memory_gib: int = 0
    cpu_capability: str = ""

    @property
    def can_compile(self) -> bool:
        """Whether TorchInductor finds a C++ compiler for CPU code."""
        return self.inductor_cpp_compiler != "not found"

    def as_dict(self) -> dict[str, Any]:
        """Plain fields, ready for ``json.dumps``."""
        return {**asdict(self), "gpus": list(self.gpus), "can_compile": self.can_compile}

    def _rows(self) -> list[list[str]]:
        kernels = [["CPU kernels", self.cpu_capability]] if self.cpu_capability else []
        return [
            ["CPU", f"{self.cpu} ({self.logical_cores} logical cores{self._memory_text()})"],
            *kernels,
            ["PyTorch threads", str(self.torch_threads)],
            ["GPU", "; ".join(self.gpus) or "none"],
            ["PyTorch", self.torch_version],
            ["CUDA", self.cuda_version],
            ["Python", self.python_version],
            ["OS", self.os],
            ["torch.compile on CPU", self._compile_text()],
            ["date", self.date],
        ]

    def _memory_text(self) -> str:
        return f", {self.memory_gib} GiB memory" if self.memory_gib else ""

    def _compile_text(self) -> str:
        if self.can_compile:
            return f"yes (C++ compiler {self.inductor_cpp_compiler})"
        return "no C++ compiler found"

    def __repr__(self) -> str:
        return "\n".join(f"{k + ':':<22}{v}" for k, v in self._rows())

    def _repr_html_(self) -> str:
        return _html_table(
            ["what", "this build machine"], self._rows(), "Hardware and software stamp"
        )


def _gpus() -> tuple[str, ...]:
    found = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            found.append(f"{props.name} ({props.total_memory / 2**30:.0f} GiB)")
    if torch.backends.mps.is_available():
        found.append("Apple MPS (unified memory)")
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        for i in range(xpu.device_count()):
            props = xpu.get_device_properties(i)
            found.append(f"{props.name} ({props.total_memory / 2**30:.0f} GiB)")
    return tuple(found)


def _cpp_compiler() -> str:
    # Inductor honours $CXX first, then looks for these names on PATH.
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and (path := shutil.which(name)):
            return path
    return "not found"


def environment() -> Environment:
    """Read the stamp of this machine: CPU, GPUs, versions, compiler, date.

    Returns
    -------
    Environment
    """
    return Environment(
        cpu=hardware.cpu_model(),
        logical_cores=os.cpu_count() or 1,
        torch_threads=torch.get_num_threads(),
        gpus=_gpus(),
        torch_version=torch.__version__,
        cuda_version=torch.version.cuda or "none",
        python_version=platform.python_version(),
        os=f"{platform.system()} {platform.release()}",
        inductor_cpp_compiler=_cpp_compiler(),
        date=_dt.datetime.now(_dt.UTC).date().isoformat(),
        cpu_signature=hardware.cpu_signature(),
        memory_gib=hardware.memory_gib(),
        cpu_capability=torch.backends.cpu.get_cpu_capability(),
    )
