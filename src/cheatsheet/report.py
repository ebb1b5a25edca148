"""Show results: comparison tables, bar charts, and the stamp of the machine that ran them."""

from __future__ import annotations

import datetime as _dt
import html
import os
import platform
import shutil
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import torch

from cheatsheet.timing import Measurement, _unit_for, format_seconds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "Comparison",
    "Environment",
    "compare",
    "environment",
    "speedup_phrase",
]


def speedup_phrase(speedup: float) -> str:
    """Describe a speedup ratio in words.

    >>> speedup_phrase(2.94)
    '2.9x faster'
    >>> speedup_phrase(0.5)
    '2.0x slower'
    """
    if not speedup > 0:
        raise ValueError(f"a speedup is a positive ratio, got {speedup!r}")
    if round(speedup, 1) == 1.0 and round(1 / speedup, 1) == 1.0:
        return "about as fast"
    if speedup >= 1:
        return f"{speedup:.1f}x faster"
    return f"{1 / speedup:.1f}x slower"


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], caption: str) -> str:
    """Render an escaped HTML table; nothing in ``rows`` can inject markup."""
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return (
        f'<table class="cheatsheet-table"><caption>{esc(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


@dataclass(frozen=True)
class Comparison:
    """Several measurements side by side, each against one baseline.

    Attributes
    ----------
    measurements : tuple of Measurement
        The rows, in the order given.
    baseline : str
        Label of the row every speedup is relative to.
    """

    measurements: tuple[Measurement, ...]
    baseline: str

    def __getitem__(self, label: str) -> Measurement:
        for m in self.measurements:
            if m.label == label:
                return m
        labels = ", ".join(repr(m.label) for m in self.measurements)
        raise KeyError(f"no measurement labelled {label!r}; labels here: {labels}")

    def speedup(self, label: str) -> float:
        """Baseline median divided by the median of ``label`` (above 1: faster)."""
        return self[self.baseline].median_s / self[label].median_s

    def verdict(self, label: str) -> str:
        """One sentence comparing ``label`` with the baseline, from the measured medians."""
        phrase = speedup_phrase(self.speedup(label))
        joiner = "as" if phrase == "about as fast" else "than"
        return f"{label} is {phrase} {joiner} {self.baseline}"

    def _rows(self) -> tuple[list[str], list[list[str]]]:
        header = ["label", "median", "spread (±IQR)", f"speedup vs {self.baseline}", "runs"]
        rows = []
        for m in self.measurements:
            spread = f"±{m.iqr_fraction:.1%}" + (" noisy" if m.noisy else "")
            rows.append(
                [
                    m.label,
                    format_seconds(m.median_s),
                    spread,
                    f"{self.speedup(m.label):.2f}x",
                    f"{m.runs}×{m.calls_per_run}",
                ]
            )
        return header, rows

    def __repr__(self) -> str:
        header, rows = self._rows()
        return _text_table(header, rows)

    def _repr_html_(self) -> str:
        header, rows = self._rows()
        threads = sorted({m.threads for m in self.measurements})
        devices = sorted({m.device for m in self.measurements})
        plural = "" if threads == [1] else "s"
        caption = (
            f"Median time per call on {', '.join(devices)} "
            f"({', '.join(map(str, threads))} thread{plural}); runs are blocks × calls per block"
        )
        return _html_table(header, rows, caption)

    def plot(self, title: str | None = None) -> Figure:
        """Draw the medians as horizontal bars with interquartile whiskers.

        The figure is made with pyplot, so notebooks and sphinx-gallery show it
        like any other; close it with ``plt.close(fig)`` in a long loop.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib.pyplot as plt

        ms = self.measurements
        unit, scale = _unit_for(min(m.median_s for m in ms))
        fig, ax = plt.subplots(figsize=(7, 0.6 * len(ms) + 1.4), layout="constrained")
        y = list(range(len(ms)))[::-1]
        medians = [m.median_s / scale for m in ms]
        ax.barh(y, medians, xerr=[m.iqr_s / 2 / scale for m in ms], color="#4c72b0", capsize=3)
        ax.set_yticks(y, [m.label for m in ms])
        ax.set_xlabel(f"median time per call ({unit}); whiskers: IQR")
        for yi, med, m in zip(y, medians, ms, strict=True):
            ax.annotate(f" {self.speedup(m.label):.2f}x", (med, yi), va="center", fontsize=9)
        ax.margins(x=0.18)
        ax.set_title(title or f"Speedup against {self.baseline} (higher is better)")
        return fig


def compare(measurements: Sequence[Measurement], baseline: str | int | None = None) -> Comparison:
    """Tabulate measurements against a baseline.

    Parameters
    ----------
    measurements : sequence of Measurement
        At least one, with distinct labels.
    baseline : str or int, optional
        Label or position of the baseline row; defaults to the first.

    Returns
    -------
    Comparison
    """
    ms = tuple(measurements)
    if not ms:
        raise ValueError("compare() needs at least one Measurement; pass benchmark() results")
    for m in ms:
        if not isinstance(m, Measurement):
            raise TypeError(
                f"compare() takes Measurement objects from benchmark(), got {type(m).__name__}"
            )
    labels = [m.label for m in ms]
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels must be distinct to be compared, got {labels}; pass label=")
    if baseline is None:
        base = labels[0]
    elif isinstance(baseline, int) and not isinstance(baseline, bool):
        if not -len(ms) <= baseline < len(ms):
            raise ValueError(f"baseline index {baseline} out of range for {len(ms)} rows")
        base = labels[baseline]
    elif isinstance(baseline, str):
        if baseline not in labels:
            raise ValueError(f"baseline {baseline!r} is not one of the labels {labels}")
        base = baseline
    else:
        raise TypeError(f"baseline must be a label or an index, got {type(baseline).__name__}")
    return Comparison(ms, base)


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

    @property
    def can_compile(self) -> bool:
        """Whether TorchInductor finds a C++ compiler for CPU code."""
        return self.inductor_cpp_compiler != "not found"

    def as_dict(self) -> dict[str, Any]:
        """Plain fields, ready for ``json.dumps``."""
        return {**asdict(self), "gpus": list(self.gpus), "can_compile": self.can_compile}

    def _rows(self) -> list[list[str]]:
        return [
            ["CPU", f"{self.cpu} ({self.logical_cores} logical cores)"],
            ["PyTorch threads", str(self.torch_threads)],
            ["GPU", "; ".join(self.gpus) or "none"],
            ["PyTorch", self.torch_version],
            ["CUDA", self.cuda_version],
            ["Python", self.python_version],
            ["OS", self.os],
            ["torch.compile on CPU", self._compile_text()],
            ["date", self.date],
        ]

    def _compile_text(self) -> str:
        if self.can_compile:
            return f"yes (C++ compiler {self.inductor_cpp_compiler})"
        return "no C++ compiler found"

    def __repr__(self) -> str:
        return "\n".join(f"{k + ':':<22}{v}" for k, v in self._rows())

    def _repr_html_(self) -> str:
        return _html_table(["", "this build machine"], self._rows(), "Hardware and software stamp")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess

        out = subprocess.run(
            ["sysctl", "-n", "machdep.cpu.brand_string"],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return platform.processor() or platform.machine() or "unknown"


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
        cpu=_cpu_model(),
        logical_cores=os.cpu_count() or 1,
        torch_threads=torch.get_num_threads(),
        gpus=_gpus(),
        torch_version=torch.__version__,
        cuda_version=torch.version.cuda or "none",
        python_version=platform.python_version(),
        os=f"{platform.system()} {platform.release()}",
        inductor_cpp_compiler=_cpp_compiler(),
        date=_dt.datetime.now(_dt.timezone.utc).date().isoformat(),
    )
