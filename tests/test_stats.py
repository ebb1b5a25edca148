from __future__ import annotations

import math
import random

import pytest

from cheatsheet.stats import median_interval, quartiles


def test_quartiles_interpolate_between_order_statistics():
    assert quartiles([1, 2, 3, 4, 100]) == (2, 3, 4)
    assert quartiles([4, 1, 3, 2]) == (1.75, 2.5, 3.25)
    with pytest.raises(ValueError, match="at least two"):
        quartiles([1.0])


def test_median_interval_uses_the_binomial_ranks():
    # n = 20: the 6th and 15th smallest values, with 95.9% coverage (tables of the sign test).
    low, high, coverage = median_interval(list(range(1, 21)))
    assert (low, high) == (6, 15)
    assert coverage == pytest.approx(0.9586, abs=1e-4)
    # n = 6 is the smallest sample that reaches 95%: its extremes, 96.9%.
    assert median_interval([3, 1, 2, 6, 5, 4])[:2] == (1, 6)


def test_too_few_values_ask_for_more_rounds():
    with pytest.raises(ValueError, match="more rounds"):
        median_interval([1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="between 0 and 1"):
        median_interval(list(range(10)), confidence=1.5)


def test_median_interval_covers_the_median_of_a_skewed_distribution():
    # Timings are skewed: draw from an exponential, whose median is ln 2 / rate.
    rng = random.Random(0)
    true_median = math.log(2)
    trials = 2000
    hits = sum(
        low <= true_median <= high
        for low, high, _ in (
            median_interval([rng.expovariate(1.0) for _ in range(25)]) for _ in range(trials)
        )
    )
    assert 0.94 <= hits / trials <= 0.99


def test_large_samples_do_not_overflow():
    low, high, coverage = median_interval(list(range(3000)))
    assert low < 1500 < high
    assert 0.95 <= coverage < 0.96


def test_quartiles_of_two_values_interpolate_around_their_mean():
    assert quartiles([3.0, 1.0]) == (1.5, 2.0, 2.5)
    with pytest.raises(ValueError, match=r"^quartiles need at least two values, got 0$"):
        quartiles([])


@pytest.mark.parametrize(
    ("n", "ranks", "coverage"),
    [
        (6, (1, 6), 1 - 2 / 64),
        (8, (1, 8), 1 - 2 / 256),
        (9, (2, 8), 1 - 2 * 10 / 512),
        (20, (6, 15), 1 - 2 * 21700 / 2**20),
    ],
)
def test_median_interval_ranks_and_coverage_are_exact(n, ranks, coverage):
    low, high, reached = median_interval([float(v) for v in range(1, n + 1)])
    assert (low, high) == ranks
    assert reached == pytest.approx(coverage, rel=1e-12)


def test_a_lower_confidence_narrows_the_interval_down_to_the_middle():
    assert median_interval(list(range(1, 21)), confidence=0.5)[:2] == (8, 13)
    # However low the confidence, the bounds never cross the middle.
    low, high, _ = median_interval(list(range(1, 7)), confidence=0.01)
    assert (low, high) == (3, 4)


def test_confidence_must_lie_strictly_between_0_and_1():
    for bad in (0, 1, -0.5, 1.5):
        with pytest.raises(
            ValueError, match=rf"^confidence must lie between 0 and 1, got {bad!r}$"
        ):
            median_interval(list(range(10)), confidence=bad)


def test_too_few_values_say_how_many_and_what_to_do():
    with pytest.raises(ValueError, match="cannot give") as caught:
        median_interval([1, 2, 3, 4, 5])
    assert str(caught.value) == (
        "5 values cannot give a 95% interval for a median; "
        "time more rounds (a larger budget_s or min_rounds)"
    )
    from cheatsheet.stats import CONFIDENCE

    assert CONFIDENCE == 0.95


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_statistics_refuse_values_that_are_not_finite(bad):
    # Sorted, a NaN lands anywhere: quartiles([nan, 1, 2]) used to say the median is 1.0.
    with pytest.raises(ValueError, match="not finite"):
        quartiles([bad, 1.0, 2.0])
    with pytest.raises(ValueError, match="not finite"):
        median_interval([1.0, 2.0, 3.0, bad, 5.0, 6.0, 7.0])
