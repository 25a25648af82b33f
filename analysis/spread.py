"""The spread of a set of repetitions, in the one shape records and roofs share (docs/records.md,
"Spread"): n, min, q1, median, q3, max, mean, stddev, cv, and a distribution-free interval for the
median with its coverage.

The runner computes it where a record is made (core/spread.cpp) and every reader takes it from
the record, and a run's rounds are pooled where it is made too (experiments/run/pool_rounds.cpp).
This module mirrors that computation for the one place a spread is made after the run: a record
of schema parlab-results/2, which lacked the quartiles and the interval, read as /3. A test
(tests/python/test_spread.py) holds the two implementations equal on committed records."""
from __future__ import annotations

import math

# Over this coefficient of variation (stddev / mean of the repetition times) a record is unstable:
# pyperf warns at a standard deviation of 10% of the mean too (core/spread.hpp, kUnstableCv).
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


def _primes_to(n: int) -> list:
    sieve = bytearray([1]) * (n + 1)
    sieve[:2] = b"\0\0"
    for p in range(2, math.isqrt(n) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytes(len(range(p * p, n + 1, p)))
    return [p for p in range(n + 1) if sieve[p]]


def _product(xs: list, lo: int, hi: int) -> int:
    """xs[lo] * ... * xs[hi - 1], halves first: factors of like size keep Karatsuba busy."""
    if hi - lo <= 8:
        return math.prod(xs[lo:hi])
    mid = (lo + hi) // 2
    return _product(xs, lo, mid) * _product(xs, mid, hi)


def _comb(n: int, k: int) -> int:
    """C(n, k) from its prime factorisation (Legendre's formula). math.comb of Python 3.11
    multiplies one factor at a time, about 6 s for C(10^6, 5 10^5); this takes a tenth of one."""
    powers = []
    for p in _primes_to(n):
        e, q = 0, p
        while q <= n:
            e += n // q - k // q - (n - k) // q
            q *= p
        if e:
            powers.append(p ** e)
    return _product(powers, 0, len(powers))


def median_interval(n: int) -> tuple:
    """(j, coverage): the 1-based rank j such that [x_(j), x_(n+1-j)] covers the median with
    `coverage` >= CI_LEVEL where any pair can, else j = 1.

    The definition is core/spread.cpp's: j is 1 plus the number of ranks i from 1 to
    (n+1)//2 - 1 whose pair covers, 1 - 2 P(B <= i) >= CI_LEVEL with B ~ Binomial(n, 1/2), and
    the coverage is 1 - 2 P(B <= j - 1). Here it is computed exactly, in integers, so no sum
    overflows a double or loses its small terms, whatever n; and in about sqrt(n) steps: by
    symmetry the count S(i) = C(n, 0) + ... + C(n, i) is known at the middle rank,
    (2^n - C(n, n/2)) / 2 for even n and 2^(n-1) for odd n, and the coverage falls to CI_LEVEL
    within about sqrt(n) ranks of it, so S is walked down from there rather than summed up from
    0 (10^5 repetitions: milliseconds)."""
    if n <= 0:
        return 1, 0.0
    top = (n - 1) // 2  # the highest rank the runner's loop tests
    # With CI_LEVEL = num / den (the double's exact value), rank i reaches CI_LEVEL iff
    # 1 - 2 S(i) / 2^n >= num / den, that is iff 2 S(i) den <= (den - num) 2^n: integers only.
    num, den = CI_LEVEL.as_integer_ratio()
    bound = (den - num) << n
    if n % 2:
        s, c = 1 << (n - 1), _comb(n, top)
    else:
        middle = _comb(n, top + 1)  # C(n, n/2), split half and half by symmetry
        s, c = ((1 << n) - middle) >> 1, middle * (top + 1) // (n - top)
    i = top  # s = S(i), c = C(n, i)
    while i >= 1 and 2 * s * den > bound:  # rank i does not reach CI_LEVEL: the next wider pair
        s -= c
        c = c * i // (n - i + 1)
        i -= 1
    if i < 1:  # no pair reaches CI_LEVEL: [min, max], whose coverage 1 - 2 / 2^n is stated
        i, s = 0, 1
    return i + 1, ((1 << n) - 2 * s) / (1 << n)


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


def rate_band(r: dict, rate: float | None) -> tuple | None:
    """(low, high): the rate at the record's quartile times (a time's third quartile is the rate's
    first), the interquartile range an error bar draws; None without quartiles."""
    t = r.get("time_s") or {}
    if rate is None or not all(isinstance(t.get(k), (int, float)) and t[k] > 0 for k in ("q1", "median", "q3")):
        return None
    low, high = rate * t["median"] / t["q3"], rate * t["median"] / t["q1"]
    # A file's rate near the largest float (1e308) overflows here: no band, rather than an infinite one.
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None


__all__ = ["CI_LEVEL", "UNSTABLE_CV", "median_interval", "rate_band", "spread",
           "unstable_reason"]


# A ratio of two records (a speedup: baseline time / time, a rate over a library's rate) has no
# quartiles of its own: the two records' repetitions are not paired, so there is no sample of the
# ratio. Its band is the interval arithmetic of the two records' bands instead: lowest where the
# numerator is at the slow end of its interquartile range and the denominator at the fast end of
# its own, highest the other way round.


def band(r: dict, value: float | None) -> tuple | None:
    """(low, high) of value, a quantity proportional to 1 / the record's time, over the
    interquartile range of its repetitions; None without quartiles."""
    return rate_band(r, value)


def time_band(r: dict, value: float | None) -> tuple | None:
    """(low, high) of value, a quantity proportional to the record's time (µs per call), over
    the interquartile range of its repetitions; None without quartiles."""
    t = r.get("time_s") or {}
    if value is None or not all(isinstance(t.get(k), (int, float)) and t[k] > 0 for k in ("q1", "median", "q3")):
        return None
    return value * t["q1"] / t["median"], value * t["q3"] / t["median"]


def ratio_band(num: dict, den: dict, value: float | None) -> tuple | None:
    """(low, high) of value = rate(num) / rate(den) (= time(den) / time(num)) from both records'
    interquartile ranges by interval arithmetic (the module's docstring says why); None where
    either lacks quartiles. The same record on both sides is a ratio of 1 with no spread."""
    if value is None:
        return None
    if num is den:
        return value, value
    a, b = rate_band(num, 1.0), rate_band(den, 1.0)
    if not a or not b:
        return None
    return value * a[0] / b[1], value * a[1] / b[0]


def unstable(*recs) -> bool:
    """Whether any of the records (a point, or a ratio's two sides) is marked unstable."""
    return any(bool(r and r.get("unstable")) for r in recs)
