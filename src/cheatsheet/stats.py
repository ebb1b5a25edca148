"""Distribution-free statistics for timings: quartiles and a confidence interval of a median."""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence

__all__ = ["CONFIDENCE", "median_interval", "quartiles"]

#: Confidence level of every interval this package reports.
CONFIDENCE = 0.95


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """Return the first quartile, the median and the third quartile of ``values``.

    Quartiles interpolate between order statistics (the "inclusive" method), so
    ``quartiles([1, 3])`` is ``(1.5, 2.0, 2.5)``.
    """
    if len(values) < 2:
        raise ValueError(f"quartiles need at least two values, got {len(values)}")
    _check_finite(values)
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def median_interval(
    values: Sequence[float], confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """Return a confidence interval for the median of ``values`` that assumes no distribution.

    The bounds are order statistics: with ``n`` values sorted, the interval
    ``[x(k), x(n+1-k)]`` covers the true median unless at least ``n+1-k`` values
    fall on one side of it, which for independent draws has the probability of
    a fair coin landing the same way that often. ``k`` is the largest rank that
    keeps that probability within ``1 - confidence``. This is the interval the
    sign test inverts; it holds for skewed and heavy-tailed timings alike.

    Parameters
    ----------
    values : sequence of float
        At least six values (fewer cannot reach 95% confidence).
    confidence : float
        Coverage of the interval, between 0 and 1.

    Returns
    -------
    tuple of float
        ``(low, high, coverage)``: the bounds, and the exact coverage they
        reach, at least ``confidence``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie between 0 and 1, got {confidence!r}")
    _check_finite(values)
    ordered = sorted(values)
    n = len(ordered)
    k, coverage = _rank(n, confidence)
    if k == 0:
        raise ValueError(
            f"{n} values cannot give a {confidence:.0%} interval for a median; "
            "time more rounds (a larger budget_s or min_rounds)"
        )
    return ordered[k - 1], ordered[n - k], coverage


def _check_finite(values: Sequence[float]) -> None:
    """Refuse NaN and infinities: sorting puts a NaN anywhere, so every order statistic lies."""
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise ValueError(
            f"{len(bad)} of {len(values)} values are not finite numbers ({bad[0]!r} first): "
            "a timing is a finite number of seconds; drop or re-measure those values"
        )


@functools.cache
def _rank(n: int, confidence: float) -> tuple[int, float]:
    """Return the largest k with P(B <= k - 1) <= (1 - confidence) / 2, B ~ Binomial(n, 1/2).

    Also return the coverage ``1 - 2 P(B <= k - 1)`` that rank reaches. The
    binomial coefficients are exact integers: a float ``2**n`` overflows from
    n = 1024 on, while int / int does not.
    """
    half_alpha = (1 - confidence) / 2
    total = 2**n
    k, below, term = 0, 0, 1  # below = P(B <= k - 1) * 2**n; term = comb(n, k)
    while k < n // 2 and (below + term) / total <= half_alpha:
        below += term
        term = term * (n - k) // (k + 1)
        k += 1
    return k, 1 - 2 * below / total
