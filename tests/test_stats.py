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
