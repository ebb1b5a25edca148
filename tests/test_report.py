from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from cheatsheet import Comparison, Measurement, compare, environment, speedup_phrase


def _m(label, median_s, iqr_s=None):
    iqr = median_s * 0.02 if iqr_s is None else iqr_s
    return Measurement(label, median_s, iqr, 15, 4, 0.5, 2, "cpu", (median_s,) * 15)


@pytest.fixture
def table() -> Comparison:
    return compare([_m("eager", 2e-3), _m("compiled", 0.5e-3), _m("slow", 4e-3, 1e-3)])


def test_speedups_are_relative_to_the_baseline(table):
    assert table.baseline == "eager"
    assert table.speedup("eager") == 1
    assert table.speedup("compiled") == pytest.approx(4.0)
    assert table.speedup("slow") == pytest.approx(0.5)


def test_baseline_by_label_or_index():
    ms = [_m("a", 1e-3), _m("b", 2e-3)]
    assert compare(ms, baseline="b").speedup("a") == pytest.approx(2.0)
    assert compare(ms, baseline=-1).baseline == "b"


def test_verdict_is_computed_from_the_medians(table):
    assert table.verdict("compiled") == "compiled is 4.0x faster than eager"
    assert table.verdict("slow") == "slow is 2.0x slower than eager"
    same = compare([_m("a", 1e-3), _m("b", 1.01e-3)])
    assert same.verdict("b") == "b is about as fast as a"


def test_speedup_phrase():
    assert speedup_phrase(2.94) == "2.9x faster"
    assert speedup_phrase(0.25) == "4.0x slower"
    assert speedup_phrase(1.02) == "about as fast"
    with pytest.raises(ValueError, match="positive"):
        speedup_phrase(0)


def test_text_table_has_units_spread_speedup_and_runs(table):
    text = repr(table)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["label", "median", "spread"]
    assert "2 ms" in text
    assert "500 µs" in text
    assert "4.00x" in text
    assert "±25.0% noisy" in text  # IQR 1 ms over a 4 ms median
    assert "15×4" in text
    assert "\x1b[" not in text


def test_html_table_escapes_every_value():
    html = compare([_m("<script>alert(1)</script>", 1e-3), _m("a&b", 1e-3)])._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "a&amp;b" in html
    assert html.count("<tr>") == 3


def test_unknown_label_names_the_labels(table):
    with pytest.raises(KeyError, match="'eager', 'compiled', 'slow'"):
        table["missing"]


@pytest.mark.parametrize(
    ("ms", "baseline", "error", "match"),
    [
        ([], None, ValueError, "at least one"),
        (["not a measurement"], None, TypeError, "Measurement"),
        ([_m("a", 1), _m("a", 2)], None, ValueError, "distinct"),
        ([_m("a", 1)], "b", ValueError, "not one of the labels"),
        ([_m("a", 1)], 3, ValueError, "out of range"),
        ([_m("a", 1)], 1.5, TypeError, "label or an index"),
    ],
)
def test_bad_input_is_rejected_with_the_fix(ms, baseline, error, match):
    with pytest.raises(error, match=match):
        compare(ms, baseline=baseline)


def test_plot_returns_a_bar_chart(table):
    fig = table.plot()
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert len(ax.patches) == 3
    assert [t.get_text() for t in ax.get_yticklabels()] == ["eager", "compiled", "slow"]
    assert "µs" in ax.get_xlabel()
    plt.close(fig)


def test_environment_describes_this_machine():
    env = environment()
    assert env.logical_cores >= 1
    assert env.torch_threads >= 1
    assert env.torch_version.startswith("2.")
    assert len(env.date) == 10
    data = env.as_dict()
    assert json.loads(json.dumps(data))["cpu"] == env.cpu
    assert data["can_compile"] == (env.inductor_cpp_compiler != "not found")


def test_environment_text_and_html_forms():
    env = environment()
    assert env.torch_version in repr(env)
    html = env._repr_html_()
    assert html.startswith("<table")
    assert env.torch_version in html


def test_environment_reports_a_missing_compiler(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CXX", raising=False)
    env = environment()
    assert not env.can_compile
    assert "no C++ compiler" in repr(env)
