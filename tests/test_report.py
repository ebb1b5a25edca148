from __future__ import annotations

import json
import math
import random

import matplotlib.pyplot as plt
import pytest
import torch
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


def test_a_comparison_collects_garbage_once_not_once_per_session(fake_clock, monkeypatch):
    import gc

    from cheatsheet import timing

    collections = []
    monkeypatch.setattr(timing.gc, "collect", lambda *args: collections.append(args) or 0)
    _compare(fake_clock, {"a": 1e-3, "b": 2e-3}, budget_s=0.2)
    assert len(collections) == 1
    assert gc.isenabled()


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


@pytest.mark.slow
@pytest.mark.clock
def test_identical_functions_are_about_as_fast_at_least_19_times_in_20():
    kinds = _kinds(lambda: {"a": lambda: _spin(5000), "b": lambda: _spin(5000)})
    assert kinds.count("same") >= 19, kinds


@pytest.mark.slow
@pytest.mark.clock
def test_a_twofold_difference_is_never_called_the_wrong_way_and_nearly_always_right():
    # On a busy machine a round may be slowed at random; then "about as fast" is the
    # verdict's honest answer, never "faster". nox -s tests runs this on quiet cores.
    kinds = _kinds(lambda: {"a": lambda: _spin(5000), "b": lambda: _spin(10000)})
    assert "faster" not in kinds, kinds
    assert kinds.count("slower") >= 19, kinds


@pytest.mark.slow
@pytest.mark.clock
def test_a_function_with_injected_noise_is_about_as_fast_at_least_19_times_in_20():
    # The same bar as identical functions: a 95% interval may miss once in 20.
    rng = random.Random(0)

    def noisy():
        # Each call costs between a fifth and nine fifths of the clean one.
        _spin(int(40000 * rng.uniform(0.2, 1.8)))

    kinds = _kinds(lambda: {"clean": lambda: _spin(40000), "noisy": noisy})
    assert kinds.count("same") >= 19, kinds


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
    assert '<th scope="col"></th>' not in html  # every column has a name, for screen readers


def test_environment_reports_a_missing_compiler(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CXX", raising=False)
    env = environment()
    assert not env.can_compile
    assert "no C++ compiler" in repr(env)


# -- Verdict rules at their boundaries, and the words of each verdict ---------------


def _ratio(speedup=1.0, low=1.0, high=1.0, q1=1.0, q3=1.0, label="b", baseline="a"):
    return Ratio(label, baseline, speedup, low, high, 0.96, q1, q3, 30)


def test_same_band_is_five_percent_either_way():
    from cheatsheet import SAME_BAND

    assert SAME_BAND == 0.05


@pytest.mark.parametrize(
    ("low", "q1", "kind"),
    [
        (1.05, 1.5, "same"),  # the interval touches the band: no verdict
        (1.0500001, 1.5, "faster"),
        (1.2, 1.0, "same"),  # only half the rounds were faster
        (1.2, 1.0000001, "faster"),
    ],
)
def test_faster_needs_the_whole_interval_above_the_band_and_three_rounds_in_four(low, q1, kind):
    assert _ratio(speedup=2.0, low=low, high=3.0, q1=q1, q3=3.0).kind == kind


@pytest.mark.parametrize(
    ("high", "q3", "kind"),
    [
        (1 / 1.05, 0.5, "same"),
        (1 / 1.05 - 1e-7, 0.5, "slower"),
        (0.8, 1.0, "same"),
        (0.8, 0.9999999, "slower"),
    ],
)
def test_slower_needs_the_whole_interval_below_the_band_and_three_rounds_in_four(high, q3, kind):
    assert _ratio(speedup=0.5, low=0.25, high=high, q1=0.3, q3=q3).kind == kind


def test_each_verdict_reads_as_a_sentence_with_its_interval():
    faster = _ratio(speedup=1.83, low=1.5, high=2.25, q1=1.6, q3=2.0, label="new", baseline="old")
    assert faster.sentence() == "new is 1.83x faster than old (1.50–2.25x)"
    slower = _ratio(speedup=0.5, low=0.25, high=0.8, q1=0.3, q3=0.6, label="new", baseline="old")
    assert slower.sentence() == "new is 2.00x slower than old (1.25–4.00x)"
    same = _ratio(speedup=1.01, low=0.9, high=1.2, q1=0.95, q3=1.1, label="new", baseline="old")
    assert same.sentence() == (
        "new is about as fast as old (0.900–1.20x): the difference is within this machine's noise"
    )


def test_a_ratio_is_refused_for_each_figure_that_is_not_finite_and_positive():
    fields = ("speedup", "low", "high", "q1", "q3")
    for field in fields:
        for bad in (0.0, -1.0, math.inf, math.nan):
            figures = {name: 1.0 for name in fields} | {field: bad}
            with pytest.raises(ValueError, match=r"^a Ratio needs positive, finite figures, got "):
                _ratio(**figures)
    with pytest.raises(ValueError, match=r"^speedup 3.0 lies outside its interval 1.0–2.0$"):
        _ratio(speedup=3.0, low=1.0, high=2.0)
    with pytest.raises(ValueError, match=r"^speedup 0.5 lies outside its interval 1.0–2.0$"):
        _ratio(speedup=0.5, low=1.0, high=2.0)
    # The bounds themselves are inside.
    assert _ratio(speedup=1.0, low=1.0, high=2.0).speedup == 1.0
    assert _ratio(speedup=2.0, low=1.0, high=2.0).speedup == 2.0


def test_spread_is_the_iqr_of_the_ratios_over_their_median():
    assert _ratio(speedup=2.0, low=1.0, high=3.0, q1=1.5, q3=2.5).spread == 0.5


def test_ratio_as_dict_holds_every_field_the_verdict_and_its_sentence():
    ratio = _ratio(speedup=2.0, low=1.5, high=3.0, q1=1.8, q3=2.2)
    assert ratio.as_dict() == {
        "label": "b",
        "baseline": "a",
        "speedup": 2.0,
        "low": 1.5,
        "high": 3.0,
        "coverage": 0.96,
        "q1": 1.8,
        "q3": 2.2,
        "rounds": 30,
        "sessions": 1,
        "within_low": 1.5,
        "within_high": 3.0,
        "kind": "faster",
        "sentence": "b is 2.00x faster than a (1.50–3.00x)",
    }


@pytest.mark.parametrize(
    ("ratio", "text"),
    [(2.0, "2.00"), (12.3, "12.3"), (100.0, "100"), (0.934, "0.934"), (1234.0, "1.23e+03")],
)
def test_ratios_show_three_significant_digits(ratio, text):
    from cheatsheet.report import format_ratio

    assert format_ratio(ratio) == text


# -- Paired ratios from known blocks ------------------------------------------------


def test_paired_ratios_divide_round_by_round(measurement):
    from cheatsheet.report import _paired_ratio

    base = measurement(label="base", times_s=(2.0, 4.0, 6.0, 8.0, 10.0, 12.0))
    other = measurement(label="other", times_s=(1.0, 1.0, 2.0, 2.0, 5.0, 12.0))
    ratio = _paired_ratio(base, other)
    # ratios 2, 4, 3, 4, 2, 1: sorted 1, 2, 2, 3, 4, 4; six values give the extremes at 96.9%
    assert (ratio.label, ratio.baseline, ratio.rounds) == ("other", "base", 6)
    assert ratio.speedup == 2.5
    assert (ratio.low, ratio.high) == (1.0, 4.0)
    assert ratio.coverage == pytest.approx(0.96875)
    assert (ratio.q1, ratio.q3) == (2.0, 3.75)


def test_paired_ratios_need_the_same_rounds_and_time_that_passed(measurement):
    from cheatsheet.report import _paired_ratio

    six = measurement(label="six", times_s=(1.0,) * 6)
    seven = measurement(label="seven", times_s=(1.0,) * 7)
    with pytest.raises(
        ValueError,
        match=r"^'six' and 'seven' were not timed in the same rounds \(6 and 7 blocks\); "
        r"measure them together with compare\(\)$",
    ):
        _paired_ratio(six, seven)
    still = measurement(label="still", times_s=(1.0, 1.0, 0.0, 1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match=r"^a block of 'still' or 'six' took no measurable time"):
        _paired_ratio(six, still)
    with pytest.raises(
        ValueError, match=r"^a block of 'six' or 'still' took no measurable time"
    ) as e:
        _paired_ratio(still, six)
    assert str(e.value) == (
        "a block of 'six' or 'still' took no measurable time; "
        "the clock did not advance, so no ratio can be formed"
    )


# -- Comparison tables, from a fake clock ----------------------------------------


def _fixed_comparison(measurement, *, threads=(1, 1), device="cpu"):
    from cheatsheet.report import Comparison, _paired_ratio

    base = measurement(
        label="eager", times_s=(2e-3,) * 6, threads=threads[0], device=device, runs_wanted=6
    )
    fast = measurement(
        label="<b>c&d</b>", times_s=(1e-3,) * 6, threads=threads[1], device=device, runs_wanted=6
    )
    return Comparison((base, fast), "eager", (_paired_ratio(base, fast),))


def test_text_table_lays_out_aligned_columns(measurement):
    table = _fixed_comparison(measurement)
    assert repr(table) == (
        "label       median  spread (IQR)  speedup vs eager (95% interval)  verdict\n"
        "----------  ------  ------------  -------------------------------  --------\n"
        "eager       2 ms    ±0.0%         1 (baseline)                     baseline\n"
        "<b>c&d</b>  1 ms    ±0.0%         2.00x (2.00–2.00)                faster"
    )


def test_html_table_is_escaped_cell_by_cell_with_its_caption(measurement):
    table = _fixed_comparison(measurement)
    assert table._repr_html_() == (
        '<table class="cheatsheet-table"><caption>Median time per call on cpu (1 thread), '
        "timed in 6 alternating rounds in 1 session; speedup is the median of the per-round "
        "ratios, its interval covers the spread between sessions too, and within ±5% of 1 "
        "counts as about as fast</caption>"
        '<thead><tr><th scope="col">label</th><th scope="col">median</th>'
        '<th scope="col">spread (IQR)</th><th scope="col">speedup vs eager (95% interval)</th>'
        '<th scope="col">verdict</th></tr></thead><tbody>'
        "<tr><td>eager</td><td>2 ms</td><td>±0.0%</td><td>1 (baseline)</td><td>baseline</td></tr>"
        "<tr><td>&lt;b&gt;c&amp;d&lt;/b&gt;</td><td>1 ms</td><td>±0.0%</td>"
        "<td>2.00x (2.00–2.00)</td><td>faster</td></tr></tbody></table>"
    )


def test_caption_escapes_the_device_and_counts_every_thread_setting(measurement):
    table = _fixed_comparison(measurement, threads=(4, 2), device="<dev>")
    caption = table._repr_html_().split("<caption>")[1].split("</caption>")[0]
    assert caption.startswith("Median time per call on &lt;dev&gt; (2, 4 threads), timed in 6 ")
    one = _fixed_comparison(measurement, threads=(2, 2))
    assert "(2 threads)" in one._repr_html_()


def test_rows_say_about_as_fast_for_a_same_verdict(measurement):
    from cheatsheet.report import Comparison, _paired_ratio

    a = measurement(label="a", times_s=(1e-3, 1.1e-3) * 3)
    b = measurement(label="b", times_s=(1.1e-3, 1e-3) * 3)
    table = Comparison((a, b), "a", (_paired_ratio(a, b),))
    assert repr(table).splitlines()[3].endswith("about as fast")


def test_a_comparison_looks_up_candidates_and_ratios_by_label(measurement):
    table = _fixed_comparison(measurement)
    assert table["eager"] is table.measurements[0]
    assert table["<b>c&d</b>"] is table.measurements[1]
    assert table.ratio("<b>c&d</b>") is table.ratios[0]
    assert table.speedup("eager") == 1.0
    assert table.speedup("<b>c&d</b>") == 2.0
    assert table.verdicts() == ["<b>c&d</b> is 2.00x faster than eager (2.00–2.00x)"]
    with pytest.raises(KeyError, match=r"no candidate labelled 'x'; labels here: 'eager', '<b>"):
        table["x"]
    with pytest.raises(KeyError, match=r"no candidate labelled 'x'; labels here: 'eager', '<b>"):
        table.ratio("x")
    with pytest.raises(KeyError, match=r"'eager' is the baseline; ask for another candidate"):
        table.verdict("eager")


def test_comparison_as_dict_holds_medians_spreads_and_ratios(measurement):
    data = _fixed_comparison(measurement).as_dict()
    assert data["baseline"] == "eager"
    assert [m["label"] for m in data["measurements"]] == ["eager", "<b>c&d</b>"]
    assert data["measurements"][0]["median_s"] == 2e-3
    assert data["measurements"][0]["iqr_s"] == 0.0
    assert data["measurements"][0]["times_s"] == (2e-3,) * 6
    assert data["ratios"] == [_fixed_comparison(measurement).ratios[0].as_dict()]


def test_compare_measures_against_the_baseline_it_is_given(fake_clock):
    table = _compare(
        fake_clock, {"fast": 2**-7, "slow": 2**-6}, baseline="slow", budget_s=0.5, min_rounds=7
    )
    assert table.baseline == "slow"
    assert [r.label for r in table.ratios] == ["fast"]
    assert table.speedup("fast") == 2.0
    assert {m.runs_wanted for m in table.measurements} == {7}
    # First calls 3/128 s; then six sessions, each calibrating (three calls of fast and
    # two more, one of slow: 7/128) and running its three rounds at least (4/128 each),
    # though that outlasts its share of the budget (1/12 s).
    assert table["fast"].session_sizes == (3,) * 6
    assert fake_clock.now == pytest.approx(3 / 128 + 6 * (7 / 128 + 3 * 4 / 128))


def test_compare_passes_arguments_and_device_on(fake_clock):
    seen = []

    def candidate(x, *, y):
        seen.append((x, y))
        fake_clock.now += 2**-6

    table = compare({"a": candidate, "b": candidate}, 1, y=2, device="cpu", budget_s=0.2)
    assert set(seen) == {(1, 2)}
    assert table["a"].device == "cpu"


def test_compare_defaults_to_two_seconds_in_six_sessions(fake_clock):
    from cheatsheet import SESSIONS

    table = _compare(fake_clock, {"a": 2**-6, "b": 2**-6})
    assert SESSIONS == 6
    assert table["a"].runs_wanted == 20
    # First calls 2/64 s, then six sessions of a third of a second, each calibrating
    # (2/64), warming up to a thirtieth of a second (two rounds) and running rounds until
    # it is spent: 2/64 + 6 * (22/64) in all (a session's deadline falls between rounds).
    assert fake_clock.now == pytest.approx(2 / 64 + 2.0, abs=6 * 2 / 64)
    assert len(table["a"].session_sizes) == 6
    assert sum(table["a"].session_sizes) == table["a"].runs >= 6 * 8


def test_an_unknown_baseline_lists_the_labels():
    with pytest.raises(ValueError, match=r"^baseline 'c' is not one of the labels \['a', 'b'\]$"):
        compare({"a": lambda: None, "b": lambda: None}, baseline="c")
    with pytest.raises(ValueError, match=r"^baseline 'c' is not one of the labels \[1, 2\]$"):
        compare([1, 2], baseline="c")
    with pytest.raises(ValueError, match=r"^baseline 'c' is not one of the labels \(1, 2\)$"):
        compare((1, 2), baseline="c")


def test_plot_marks_the_band_the_baseline_and_each_interval(measurement):
    from cheatsheet.report import Comparison, _paired_ratio

    base = measurement(label="base", times_s=(4.0,) * 6)
    others = [
        measurement(label="half", times_s=(8.0, 8.0, 8.0, 8.0, 8.0, 8.0)),
        measurement(label="twice", times_s=(1.0, 2.0, 2.0, 2.0, 2.0, 4.0)),
    ]
    table = Comparison((base, *others), "base", tuple(_paired_ratio(base, o) for o in others))
    fig = table.plot()
    (ax,) = fig.axes
    assert fig.get_size_inches() == pytest.approx((6.4, 0.5 * 2 + 1.6))
    band = next(p for p in ax.patches if p.get_height() >= 1)  # the shaded band spans the axes
    assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((1 / 1.05, 1.05))
    assert band.get_alpha() == 0.25
    bars = [p for p in ax.patches if p.get_height() < 1]
    assert [b.get_x() for b in bars] == [0, 0]
    assert [b.get_width() for b in bars] == [0.5, 2.0]
    assert [b.get_y() + b.get_height() / 2 for b in bars] == [1, 0]  # first candidate on top
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert dict(zip(ax.get_yticks(), labels, strict=True)) == {1: "half", 0: "twice"}
    assert [line.get_xdata()[0] for line in ax.lines if len(line.get_xdata()) == 2][:1] == [1.0]
    assert [t.get_text() for t in ax.texts] == [" 0.500x", " 2.00x"]
    assert [t.xy for t in ax.texts] == [(0.5, 1), (4.0, 0)]
    assert ax.get_xlabel() == ("speedup over base (x, 95% interval); shaded: about as fast")
    assert ax.get_title() == "Speedup over base (higher is faster)"
    plt.close(fig)


# -- The machine stamp, from sources the test controls ------------------------------


def test_environment_text_form_lists_every_field_in_aligned_rows(stamp):
    assert repr(stamp()) == (
        "CPU:                  Fast <CPU> & Co (8 logical cores)\n"
        "PyTorch threads:      4\n"
        "GPU:                  A100 (40 GiB); A100 (80 GiB)\n"
        "PyTorch:              2.13.0\n"
        "CUDA:                 12.8\n"
        "Python:               3.11.7\n"
        "OS:                   Linux 6.1\n"
        "torch.compile on CPU: yes (C++ compiler /usr/bin/g++)\n"
        "date:                 2026-11-23"
    )
    assert "GPU:                  none" in repr(stamp(gpus=()))


def test_environment_html_form_escapes_every_value(stamp):
    html = stamp(inductor_cpp_compiler="not found")._repr_html_()
    assert html == (
        '<table class="cheatsheet-table"><caption>Hardware and software stamp</caption>'
        '<thead><tr><th scope="col">what</th><th scope="col">this build machine</th></tr></thead>'
        "<tbody><tr><td>CPU</td><td>Fast &lt;CPU&gt; &amp; Co (8 logical cores)</td></tr>"
        "<tr><td>PyTorch threads</td><td>4</td></tr>"
        "<tr><td>GPU</td><td>A100 (40 GiB); A100 (80 GiB)</td></tr>"
        "<tr><td>PyTorch</td><td>2.13.0</td></tr><tr><td>CUDA</td><td>12.8</td></tr>"
        "<tr><td>Python</td><td>3.11.7</td></tr><tr><td>OS</td><td>Linux 6.1</td></tr>"
        "<tr><td>torch.compile on CPU</td><td>no C++ compiler found</td></tr>"
        "<tr><td>date</td><td>2026-11-23</td></tr></tbody></table>"
    )


def test_environment_as_dict_is_json_ready(stamp):
    data = stamp().as_dict()
    assert data["gpus"] == ["A100 (40 GiB)", "A100 (80 GiB)"]
    assert data["can_compile"] is True
    assert data["cpu"] == "Fast <CPU> & Co"
    assert stamp(inductor_cpp_compiler="not found").as_dict()["can_compile"] is False


def test_environment_reads_each_field_from_its_source(monkeypatch, stamp):
    import datetime
    import platform
    from types import SimpleNamespace

    from cheatsheet import report

    class Clock(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            assert tz is datetime.UTC
            return datetime.datetime(2030, 1, 2, 23, 59, tzinfo=tz)

    monkeypatch.setattr(report, "_dt", SimpleNamespace(datetime=Clock, UTC=datetime.UTC))
    monkeypatch.setattr(report.hardware, "cpu_model", lambda: "cpu model")
    monkeypatch.setattr(report.hardware, "cpu_signature", lambda: "family 1 model 2")
    monkeypatch.setattr(report.hardware, "memory_gib", lambda: 24)
    monkeypatch.setattr(report.torch.backends.cpu, "get_cpu_capability", lambda: "AVX9")
    monkeypatch.setattr(report, "_gpus", lambda: ("gpu",))
    monkeypatch.setattr(report, "_cpp_compiler", lambda: "/bin/cc")
    monkeypatch.setattr(report.os, "cpu_count", lambda: None)
    monkeypatch.setattr(report.torch, "get_num_threads", lambda: 3)
    monkeypatch.setattr(report.torch, "__version__", "2.99")
    monkeypatch.setattr(report.torch.version, "cuda", None)
    monkeypatch.setattr(platform, "python_version", lambda: "3.99")
    monkeypatch.setattr(platform, "system", lambda: "Plan9")
    monkeypatch.setattr(platform, "release", lambda: "4e")
    assert report.environment() == stamp(
        cpu="cpu model",
        logical_cores=1,
        torch_threads=3,
        gpus=("gpu",),
        torch_version="2.99",
        cuda_version="none",
        python_version="3.99",
        os="Plan9 4e",
        inductor_cpp_compiler="/bin/cc",
        date="2030-01-02",
        cpu_signature="family 1 model 2",
        memory_gib=24,
        cpu_capability="AVX9",
    )
    assert "CPU kernels:          AVX9" in repr(report.environment())
    monkeypatch.setattr(report.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(report.torch.version, "cuda", "12.8")
    env = report.environment()
    assert (env.logical_cores, env.cuda_version) == (64, "12.8")


def _cpuinfo(monkeypatch, text):
    import io

    from cheatsheet import hardware

    def fake_open(path, encoding=None):
        assert (path, encoding) == ("/proc/cpuinfo", "utf-8")
        if text is None:
            raise FileNotFoundError(path)
        return io.StringIO(text)

    monkeypatch.setattr(hardware, "open", fake_open, raising=False)


def test_cpu_model_comes_from_proc_cpuinfo(monkeypatch):
    from cheatsheet import hardware

    _cpuinfo(monkeypatch, "processor\t: 0\nmodel name\t: Ryzen: 9 7950X \nflags\t: x\n")
    assert hardware.cpu_model() == "Ryzen: 9 7950X"


def test_cpu_model_asks_sysctl_on_macos(monkeypatch):
    import subprocess
    from types import SimpleNamespace

    from cheatsheet import hardware

    _cpuinfo(monkeypatch, None)
    monkeypatch.setattr(hardware, "sys", SimpleNamespace(platform="darwin"))
    calls = []

    def fake_run(command, **options):
        calls.append((command, options))
        return SimpleNamespace(returncode=0, stdout=" Apple M3 Max\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert hardware.cpu_model() == "Apple M3 Max"
    assert calls == [
        (
            ["sysctl", "-n", "machdep.cpu.brand_string"],
            {"capture_output": True, "text": True, "check": False},
        )
    ]


@pytest.mark.parametrize(
    ("returncode", "stdout", "processor", "machine", "expected"),
    [
        (1, "Apple M3", "arm", "arm64", "arm"),  # sysctl failed
        (0, "  \n", "arm", "arm64", "arm"),  # sysctl said nothing
        (0, "", "", "arm64", "arm64"),
        (0, "", "", "", "unknown"),
    ],
)
def test_cpu_model_falls_back_to_platform(
    monkeypatch, returncode, stdout, processor, machine, expected
):
    import platform
    import subprocess
    from types import SimpleNamespace

    from cheatsheet import hardware

    _cpuinfo(monkeypatch, None)
    monkeypatch.setattr(hardware, "sys", SimpleNamespace(platform="darwin"))
    monkeypatch.setattr(
        subprocess, "run", lambda *a, **k: SimpleNamespace(returncode=returncode, stdout=stdout)
    )
    monkeypatch.setattr(platform, "processor", lambda: processor)
    monkeypatch.setattr(platform, "machine", lambda: machine)
    assert hardware.cpu_model() == expected


def test_cpu_model_without_model_name_on_linux_uses_platform(monkeypatch):
    import platform
    import subprocess
    from types import SimpleNamespace

    from cheatsheet import hardware

    _cpuinfo(monkeypatch, "processor\t: 0\nCPU part\t: 0xd0c\n")
    monkeypatch.setattr(hardware, "sys", SimpleNamespace(platform="linux"))
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("no sysctl on Linux"))
    monkeypatch.setattr(platform, "processor", lambda: "aarch64")
    assert hardware.cpu_model() == "aarch64"


def test_gpus_name_each_accelerator_with_its_memory(fake_devices, monkeypatch):
    from types import SimpleNamespace

    from cheatsheet import report

    fake_devices(cuda=2, mps=True, xpu=1)
    cuda = {0: ("H100", 80 * 2**30), 1: ("L4", 23.6 * 2**30)}
    monkeypatch.setattr(
        torch.cuda,
        "get_device_properties",
        lambda i: SimpleNamespace(name=cuda[i][0], total_memory=cuda[i][1]),
    )
    monkeypatch.setattr(
        torch.xpu,
        "get_device_properties",
        lambda i: SimpleNamespace(name=f"Arc {i}", total_memory=16 * 2**30),
        raising=False,
    )
    assert report._gpus() == (
        "H100 (80 GiB)",
        "L4 (24 GiB)",
        "Apple MPS (unified memory)",
        "Arc 0 (16 GiB)",
    )
    fake_devices()
    assert report._gpus() == ()


def test_gpus_skip_a_torch_without_xpu(fake_devices, monkeypatch):
    from cheatsheet import report

    fake_devices(mps=True)
    monkeypatch.delattr(torch, "xpu")
    assert report._gpus() == ("Apple MPS (unified memory)",)


def test_cpp_compiler_honours_cxx_then_searches_the_usual_names(monkeypatch):
    import shutil

    from cheatsheet import report

    found = {"g++": "/usr/bin/g++", "clang++": "/usr/bin/clang++", "mycc": "/opt/mycc"}
    asked = []

    def which(name):
        asked.append(name)
        return found.get(name)

    monkeypatch.setattr(shutil, "which", which)
    monkeypatch.setenv("CXX", "mycc")
    assert report._cpp_compiler() == "/opt/mycc"
    monkeypatch.delenv("CXX")
    asked.clear()
    assert report._cpp_compiler() == "/usr/bin/g++"
    assert asked == ["c++", "g++"]
    found.clear()
    asked.clear()
    assert report._cpp_compiler() == "not found"
    assert asked == ["c++", "g++", "clang++"]


def test_compare_passes_its_device_on(fake_clock, fake_devices, monkeypatch):
    fake_devices(cuda=1)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    table = _compare(fake_clock, {"a": 2**-6, "b": 2**-6}, device="cpu", budget_s=0.1)
    assert table["a"].device == "cpu"


def test_caption_describes_the_first_candidates_device_and_rounds(measurement):
    from cheatsheet.report import Comparison, _paired_ratio

    base = measurement(label="a", times_s=(2.0,) * 6, device="cuda:0")
    other = measurement(label="b", times_s=(1.0,) * 6, device="cuda:1")
    table = Comparison((base, other), "a", (_paired_ratio(base, other),))
    assert "<caption>Median time per call on cuda:0 (1 thread), timed in 6 " in table._repr_html_()


def test_plot_draws_each_interval_as_a_whisker_in_the_house_colours(measurement):
    from matplotlib.colors import to_rgba
    from matplotlib.container import BarContainer
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from cheatsheet.report import Comparison, _paired_ratio

    base = measurement(label="base", times_s=(4.0,) * 6)
    other = measurement(label="other", times_s=(1.0, 2.0, 2.0, 2.0, 2.0, 8.0))
    table = Comparison((base, other), "base", (_paired_ratio(base, other),))
    ratio = table.ratios[0]
    assert (ratio.low, ratio.speedup, ratio.high) == (0.5, 2.0, 4.0)
    fig = table.plot()
    (ax,) = fig.axes
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    bars = next(c for c in ax.containers if isinstance(c, BarContainer))
    bar = bars.patches[0]
    assert bar.get_facecolor() == to_rgba("#4c72b0")
    assert (bar.get_x(), bar.get_width()) == (0, 2.0)
    (whisker,) = bars.errorbar.lines[2][0].get_segments()
    assert [tuple(point) for point in whisker] == [(0.5, 0.0), (4.0, 0.0)]
    caps = bars.errorbar.lines[1]
    assert [cap.get_markersize() for cap in caps] == [6.0, 6.0]  # capsize 3 points each side
    band = next(p for p in ax.patches if p is not bar)
    assert band.get_facecolor() == to_rgba("0.5", 0.25)
    assert band.get_linewidth() == 0
    baseline = next(line for line in ax.lines if list(line.get_xdata()) == [1.0, 1.0])
    assert (baseline.get_color(), baseline.get_linewidth()) == ("0.5", 1)
    (note,) = ax.texts
    assert (note.get_text(), note.get_fontsize(), note.get_va()) == (" 2.00x", 9, "center")
    assert ax.margins()[0] == 0.2
    plt.close(fig)


# -- Sessions: an interval that covers what differs between runs ----------------------


def test_the_interval_covers_the_spread_between_sessions(measurement):
    from cheatsheet.report import _paired_ratio

    # Two sessions of six rounds: inside each the ratio barely moves, between them it does.
    base = measurement(label="base", times_s=(2.0,) * 12, session_sizes=(6, 6))
    other = measurement(label="other", times_s=(1.0,) * 6 + (2.0 / 1.3,) * 6, session_sizes=(6, 6))
    ratio = _paired_ratio(base, other)
    assert ratio.sessions == 2
    assert (ratio.within_low, ratio.within_high) == (pytest.approx(1.3), 2.0)
    assert (ratio.low, ratio.high) == (pytest.approx(1.3), 2.0)


def test_a_verdict_held_back_by_disagreeing_sessions_says_so():
    ratio = Ratio("b", "a", 1.3, 1.02, 1.6, 0.97, 1.2, 1.4, 36, 6, 1.2, 1.4)
    assert ratio.kind == "same"
    assert ratio.limited_by_sessions
    assert ratio.sentence().endswith(
        "its 6 sessions disagree: the spread between runs, not the noise within one, keeps it "
        "from a verdict"
    )
    assert not _ratio(speedup=1.0, low=0.9, high=1.1, q1=0.95, q3=1.05).limited_by_sessions


def test_each_session_times_fresh_copies_of_the_arguments(fake_clock):
    seen = []

    def remember(x):
        seen.append(x.data_ptr())
        fake_clock.now += 1e-3

    compare({"a": remember, "b": remember}, torch.ones(4), budget_s=0.1)
    assert len(set(seen)) == 6  # one allocation per session


def test_a_candidate_that_raises_is_named(fake_clock):
    def broken():
        raise ZeroDivisionError("division by zero")

    with pytest.raises(ZeroDivisionError) as caught:
        compare({"fine": fake_clock.work(1e-3), "broken": broken})
    assert "(raised by the candidate 'broken')" in caught.value.__notes__


def test_a_dollar_in_a_label_is_text_not_math(measurement):
    from cheatsheet.report import _paired_ratio

    base = measurement(label="$a$", times_s=(2.0,) * 6)
    other = measurement(label="cost $5", times_s=(1.0,) * 6)
    table = compare.__globals__["Comparison"]((base, other), "$a$", (_paired_ratio(base, other),))
    fig = table.plot()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [r"cost \$5"]
    assert r"\$a\$" in fig.axes[0].get_title()
    fig.canvas.draw()  # renders without a math parse error
    plt.close(fig)


def test_a_line_break_in_a_label_keeps_the_text_table_whole(measurement):
    from cheatsheet.report import _paired_ratio

    base = measurement(label="a\nb", times_s=(2.0,) * 6)
    other = measurement(label="c", times_s=(1.0,) * 6)
    table = compare.__globals__["Comparison"]((base, other), "a\nb", (_paired_ratio(base, other),))
    lines = repr(table).splitlines()
    assert len(lines) == 4
    assert lines[2].startswith("a\\nb ")


def test_cpu_signature_tells_cpus_of_one_model_name_apart(monkeypatch):
    from cheatsheet import hardware

    _cpuinfo(monkeypatch, "processor\t: 0\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\n"
                          "stepping\t: 1\n\nprocessor\t: 1\ncpu family\t: 99\n")  # fmt: skip
    assert hardware.cpu_signature() == "family 25 model 1 stepping 1"
    _cpuinfo(monkeypatch, None)
    assert hardware.cpu_signature() == ""


def test_machines_with_one_model_name_but_other_cpus_or_memory_get_other_ids():
    from cheatsheet import machine_id

    vm = {"cpu": "AMD EPYC", "logical_cores": 2, "gpus": []}
    milan = machine_id({**vm, "cpu_signature": "family 25 model 1 stepping 1", "memory_gib": 24})
    genoa = machine_id({**vm, "cpu_signature": "family 25 model 17 stepping 1", "memory_gib": 24})
    bigger = machine_id({**vm, "cpu_signature": "family 25 model 1 stepping 1", "memory_gib": 64})
    assert milan.startswith("amd-epyc-2c-")
    assert len({milan, genoa, bigger}) == 3
    # The same machine keeps its id; a stamp from before signatures keeps its old one.
    assert milan == machine_id({**vm, "cpu_signature": "family 25 model 1 stepping 1",
                                "memory_gib": 24})  # fmt: skip
    assert machine_id(vm) == "amd-epyc-2c"


def test_verdicts_that_say_faster_and_slower_flip_and_a_move_into_the_band_is_an_edge():
    from cheatsheet.report import verdict_change

    assert verdict_change({"faster", "slower"}) == "flip"
    assert verdict_change({"faster", "slower", "same"}) == "flip"
    assert verdict_change({"slower", "same"}) == "edge"
    assert verdict_change({"same"}) == ""
