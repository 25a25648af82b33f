"""The spread of a set of repetitions, in the one shape records and roofs share (docs/records.md,
"Spread"): n, min, q1, median, q3, max, mean, stddev, cv, and a distribution-free interval for the
median with its coverage.

The runner computes it where a record is made (core/spread.cpp) and every reader takes it from
the record. This module mirrors that computation for the two places a spread is made after the
run: the repetitions of a measurement's rounds pooled (figures.load.pool_rounds), and a record of
schema parlab-results/2, which lacked the quartiles and the interval, read as /3. A test
(tests/python/test_spread.py) holds the two implementations equal on committed records."""
from __future__ import annotations

import math

# Over this coefficient of variation (stddev / mean of the repetition times) a record is unstable:
# pyperf warns at a standard deviation of 10% of the mean too. Rounds of one measurement whose
# medians differ by more than this fraction disagree, and the pooled record is unstable as well.
UNSTABLE_CV = 0.10
# The interval for the median is the narrowest pair of order statistics symmetric in rank whose
# coverage is at least this; with fewer than 6 repetitions none reaches it, and the interval is
# [min, max] with its lower coverage stated in ci_level.
CI_LEVEL = 0.95


def _quantile(v: list, q: float) -> float:
    """Linear interpolation between the closest ranks (NumPy's default) of sorted v."""
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def _binomial_cdf_half(n: int, k: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2.0 ** n


def median_interval(n: int) -> tuple:
    """(j, coverage): the 1-based rank j such that [x_(j), x_(n+1-j)] covers the median with
    `coverage` >= CI_LEVEL where any pair can, else j = 1."""
    j = 1
    while j + 1 <= (n + 1) // 2 and 1 - 2 * _binomial_cdf_half(n, j) >= CI_LEVEL:
        j += 1
    return j, 1 - 2 * _binomial_cdf_half(n, j - 1) if n > 0 else 0.0


def spread(values) -> dict | None:
    """The spread shape of values (seconds, or a roof's rates); None for none."""
    v = sorted(float(x) for x in values)
    n = len(v)
    if n == 0:
        return None
    median = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    mean = sum(v) / n
    stddev = (sum((x - mean) ** 2 for x in v) / (n - 1)) ** 0.5 if n > 1 else 0.0
    j, level = median_interval(n)
    return {"n": n, "min": v[0], "q1": _quantile(v, 0.25), "median": median, "q3": _quantile(v, 0.75),
            "max": v[-1], "mean": mean, "stddev": stddev, "cv": stddev / mean if mean > 0 else 0.0,
            "median_ci": [v[j - 1], v[n - j]], "ci_level": level}


def unstable_reason(time_s: dict | None) -> str | None:
    """Why a record's repetitions are unstable (its CV over UNSTABLE_CV), None when they are not."""
    if not time_s or not isinstance(time_s.get("cv"), (int, float)) or time_s["cv"] <= UNSTABLE_CV:
        return None
    return f"CV {time_s['cv']:.0%} over {UNSTABLE_CV:.0%}"


def rounds_disagree(medians: list) -> str | None:
    """Why rounds with these median times disagree (the slowest over the fastest by more than
    UNSTABLE_CV), None when they agree."""
    m = [x for x in medians if isinstance(x, (int, float)) and x > 0]
    if len(m) < 2 or max(m) / min(m) - 1 <= UNSTABLE_CV:
        return None
    return f"rounds differ by {max(m) / min(m) - 1:.0%}, over {UNSTABLE_CV:.0%}"


def rate_band(r: dict, rate: float | None) -> tuple | None:
    """(low, high): the rate at the record's quartile times (a time's third quartile is the rate's
    first), the interquartile range an error bar draws; None without quartiles."""
    t = r.get("time_s") or {}
    if rate is None or not all(isinstance(t.get(k), (int, float)) and t[k] > 0 for k in ("q1", "median", "q3")):
        return None
    return rate * t["median"] / t["q3"], rate * t["median"] / t["q1"]


__all__ = ["CI_LEVEL", "UNSTABLE_CV", "median_interval", "rate_band", "rounds_disagree", "spread",
           "unstable_reason"]
