from __future__ import annotations

import json
import math
import random

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from cheatsheet import Ratio, compare, environment


def _compare(clock, costs, **options):
    """Compare fake candidates: label -> seconds per call (or a callable giving them)."""
    return compare({label: clock.work(cost) for label, cost in costs.items()}, **options)


# -- Verdicts from paired rounds, against a fake clock ---------------------------


def test_a_clear_difference_gets_a_verdict_with_its_interval(fake_clock):
    table = _compare(fake_clock, {"eager": 2e-3, "compiled": 1e-3, "slow": 4e-3}, budget_s=0.5)
    assert table.baseline == "eager"
    assert table.speedup("eager") == 1
    assert table.speedup("compiled") == pytest.approx(2.0)
    assert table.verdict("compiled") == "compiled is 2.00x faster than eager (2.00–2.00x)"
    assert table.verdict("slow") == "slow is 2.00x slower than eager (2.00–2.00x)"
    assert [r.kind for r in table.ratios] == ["faster", "slower"]


def test_a_difference_inside_the_band_is_about_as_fast(fake_clock):
    table = _compare(fake_clock, {"a": 1e-3, "b": 1.03e-3}, budget_s=0.5)
    assert table.ratio("b").kind == "same"
    assert table.verdict("b") == (
        "b is about as fast as a (0.971–0.971x): the difference is within this machine's noise"
    )


def test_drift_of_the_machine_cancels_in_paired_rounds(fake_clock):
    # The machine slows down threefold over the run; b always costs twice a's time.
    def drifting(base):
        return lambda: base * (1 + 2 * min(fake_clock.now / 2.0, 1))

    table = _compare(fake_clock, {"a": drifting(1e-3), "b": drifting(2e-3)}, budget_s=1.0)
    assert table["a"].noisy  # each timing on its own spreads widely...
    ratio = table.ratio("b")
    assert ratio.speedup == pytest.approx(0.5, rel=0.05)  # ...their paired ratio does not
    assert ratio.kind == "slower"


@pytest.mark.parametrize("seed", range(10))
def test_injected_noise_never_gets_a_faster_or_slower_verdict(fake_clock, seed):
    rng = random.Random(seed)
    table = _compare(
        fake_clock, {"clean": 1e-2, "noisy": lambda: 1e-2 * rng.uniform(0.2, 1.8)}, budget_s=0.5
    )
    assert table.ratio("noisy").kind == "same"
    assert "about as fast" in table.verdict("noisy")


@pytest.mark.parametrize(
    ("low", "high", "q1", "q3", "kind"),
    [
        (1.06, 1.2, 1.08, 1.15, "faster"),
        (1.04, 1.2, 1.08, 1.15, "same"),  # the interval reaches into the band
        (0.8, 0.94, 0.85, 0.9, "slower"),
        (0.8, 0.96, 0.85, 0.9, "same"),
        (1.06, 1.2, 1.02, 1.15, "faster"),  # three rounds in four were faster, if not by 5%
        (2.5, 3.5, 0.9, 4.0, "same"),  # a quarter of the rounds point the other way: noisy
        (0.2, 0.4, 0.1, 1.01, "same"),
    ],
)
def test_the_verdict_follows_the_interval_and_the_rounds(low, high, q1, q3, kind):
    ratio = Ratio("b", "a", (low + high) / 2, low, high, 0.96, q1, q3, 30)
    assert ratio.kind == kind
    assert ("about as fast" in ratio.sentence()) == (kind == "same")


@pytest.mark.parametrize(
    "figures", [(0.0, 0.0, 0.0), (math.nan, 1.0, 2.0), (math.inf, 1.0, math.inf), (3.0, 1.0, 2.0)]
)
def test_a_ratio_without_finite_positive_figures_is_refused(figures):
    speedup, low, high = figures
    with pytest.raises(ValueError, match=r"Ratio needs|outside its interval"):
        Ratio("b", "a", speedup, low, high, 0.96, 1.0, 1.0, 10)


def test_work_that_takes_no_time_is_refused_not_looped_on(fake_clock):
    with pytest.raises(RuntimeError, match="no measurable time"):
        _compare(fake_clock, {"a": 0.0, "b": 0.0}, budget_s=0.1)


def test_text_table_has_units_spread_interval_and_verdict(fake_clock):
    text = repr(_compare(fake_clock, {"eager": 2e-3, "compiled": 0.5e-3}, budget_s=0.3))
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["label", "median", "spread"]
    assert "2 ms" in lines[2]
    assert "1 (baseline)" in lines[2]
    assert "500 µs" in lines[3]
    assert "4.00x (4.00–4.00)" in lines[3]
    assert "faster" in lines[3]
    assert "\x1b[" not in text


def test_html_table_escapes_every_value_and_names_every_column(fake_clock):
    table = _compare(fake_clock, {"<script>alert(1)</script>": 1e-3, "a&b": 1e-3}, budget_s=0.2)
    html = table._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "a&amp;b" in html
    assert html.count("<tr>") == 3
    assert "speedup vs &lt;script&gt;" in html  # the baseline's label in the header, escaped
    assert '<th scope="col"></th>' not in html
    assert "alternating rounds" in html


def test_unknown_label_names_the_labels(fake_clock):
    table = _compare(fake_clock, {"eager": 1e-3, "compiled": 1e-3}, budget_s=0.1)
    with pytest.raises(KeyError, match="'eager', 'compiled'"):
        table["missing"]
    with pytest.raises(KeyError, match="is the baseline"):
        table.ratio("eager")


@pytest.mark.parametrize(
    ("candidates", "baseline", "error", "match"),
    [
        ({}, None, TypeError, "at least two"),
        ({"a": lambda: None}, None, TypeError, "at least two"),
        ({"a": lambda: None, "b": lambda: None}, "c", ValueError, "not one of the labels"),
        ({"a": lambda: None, 5: lambda: None}, None, TypeError, "label must be a str"),
    ],
)
def test_bad_input_is_rejected_with_the_fix(candidates, baseline, error, match):
    with pytest.raises(error, match=match):
        compare(candidates, baseline=baseline, budget_s=0.01)


def test_plot_draws_speedups_with_intervals_into_given_axes(fake_clock):
    table = _compare(fake_clock, {"eager": 2e-3, "compiled": 1e-3, "slow": 4e-3}, budget_s=0.3)
    fig = table.plot()
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["compiled", "slow"]
    widths = sorted(p.get_width() for p in ax.patches if p.get_height() < 1)
    assert widths == pytest.approx([0.5, 2.0])
    assert "Speedup" in ax.get_title()
    plt.close(fig)
    fig, own = plt.subplots()
    assert table.plot(own, title="mine") is fig
    assert own.get_title() == "mine"
    plt.close(fig)


def test_as_dict_is_plain_data(fake_clock):
    table = _compare(fake_clock, {"a": 2e-3, "b": 1e-3}, budget_s=0.2)
    data = json.loads(json.dumps(table.as_dict()))
    assert data["baseline"] == "a"
    assert data["ratios"][0]["kind"] == "faster"
    assert data["measurements"][1]["median_s"] == pytest.approx(1e-3)


# -- Verdicts that hold: real work on this machine --------------------------------


def _spin(n):
    total = 0
    for i in range(n):
        total += i
    return total


def _kinds(make, times=20):
    return [compare(make(), budget_s=0.4).ratios[0].kind for _ in range(times)]


def test_identical_functions_are_about_as_fast_at_least_19_times_in_20():
    kinds = _kinds(lambda: {"a": lambda: _spin(5000), "b": lambda: _spin(5000)})
    assert kinds.count("same") >= 19, kinds


def test_a_twofold_difference_is_called_right_every_time():
    kinds = _kinds(lambda: {"a": lambda: _spin(5000), "b": lambda: _spin(10000)})
    assert kinds == ["slower"] * 20


def test_a_function_with_injected_noise_never_gets_a_verdict():
    rng = random.Random(0)

    def noisy():
        # Each call costs between a fifth and nine fifths of the clean one.
        _spin(int(40000 * rng.uniform(0.2, 1.8)))

    kinds = _kinds(lambda: {"clean": lambda: _spin(40000), "noisy": noisy})
    assert set(kinds) == {"same"}, kinds


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
