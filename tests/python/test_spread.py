"""The spread shape (analysis/spread.py, core/spread.cpp): known values, the median's interval and
its coverage, and the C++ and Python computations equal on every committed record's repetitions."""
import glob
import json
import math
import os
import time
from fractions import Fraction

import pytest

from conftest import ROOT, record
from analysis.records import with_spread
from analysis.spread import CI_LEVEL, UNSTABLE_CV, median_interval, rate_band, spread, unstable_reason


def test_known_repetitions():
    s = spread([4.0, 1.0, 3.0, 2.0, 5.0])
    assert (s["n"], s["min"], s["q1"], s["median"], s["q3"], s["max"]) == (5, 1.0, 2.0, 3.0, 4.0, 5.0)
    assert s["cv"] == pytest.approx((2.5 ** 0.5) / 3)
    assert s["median_ci"] == [1.0, 5.0] and s["ci_level"] == pytest.approx(1 - 2 / 32)
    assert spread([]) is None


@pytest.mark.parametrize("n,j,level", [(1, 1, 0.0), (5, 1, 0.9375), (6, 1, 0.96875), (9, 2, 0.9609375),
                                       (20, 6, 0.9586105346679688)])
def test_median_interval_is_the_narrowest_reaching_95_percent(n, j, level):
    assert median_interval(n) == (j, pytest.approx(level))


def test_one_repetition_has_no_spread():
    s = spread([2.0])
    assert s["stddev"] == 0 and s["cv"] == 0 and s["median_ci"] == [2.0, 2.0]


def test_unstable():
    assert unstable_reason({"cv": UNSTABLE_CV}) is None
    assert unstable_reason({"cv": 0.78}) == "CV 78% over 10%"


def test_rate_band_inverts_the_quartiles():
    r = {"time_s": spread([1.0, 2.0, 4.0])}  # q1 1.5, median 2, q3 3
    lo, hi = rate_band(r, 10.0)
    assert (lo, hi) == (pytest.approx(10.0 * 2 / 3), pytest.approx(10.0 * 2 / 1.5))
    # A file's rate of 1e308 (found by test_untrusted_results.py's hypothesis test, which drew it
    # into a run's table as an internal error): no band where its arithmetic overflows.
    assert rate_band(r, 1e308) is None


def committed_records():
    for path in sorted(glob.glob(os.path.join(ROOT, "results", "**", "results.json"), recursive=True)):
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") not in ("parlab-results/3", "parlab-results/4", "parlab-results/5"):  # time_s: the runner's spread
            continue
        for r in doc["records"]:
            if r.get("status") == "ok" and r.get("reps_s"):
                yield path, r


def test_the_runner_and_this_module_agree_on_committed_records():
    """The runner (or `parlab migrate`) wrote each committed record's time_s with core/spread.cpp;
    recomputed here from its repetitions, every field is the same to rounding."""
    seen = 0
    for path, r in committed_records():
        mine = spread(r["reps_s"])
        for k, v in mine.items():  # ci_level: C++ sums in log space, so 0 comes out as 1e-16
            assert r["time_s"][k] == pytest.approx(v, rel=1e-12, abs=1e-12 if k == "ci_level" else 0), \
                (path, r["id"], k)
        assert r.get("unstable") == unstable_reason(mine), (path, r["id"])
        seen += 1
    assert seen > 100


# ---------------------------------------------------------------- many repetitions
def _interval_by_definition(n):
    """median_interval as core/spread.cpp defines it, summed up from 0 in exact fractions: the
    loop over j with P(B <= j) recomputed at every step, as the runner (and this module once)
    wrote it. Quadratic in n: for the small n it is checked over, and as the slow reference."""
    def cdf(k):
        return Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2 ** n)
    j = 1
    while j + 1 <= (n + 1) // 2 and 1 - 2 * cdf(j) >= Fraction(CI_LEVEL):
        j += 1
    return j, float(1 - 2 * cdf(j - 1)) if n > 0 else 0.0


def _interval_cumulative(n):
    """The same definition, with the count summed once from 0 upwards in exact integers: linear
    in n steps, for the n past 1023 where the old float sum overflowed."""
    s, c, j, limit = 0, 1, 1, Fraction(CI_LEVEL)
    cum = []
    for i in range((n + 1) // 2 + 1):
        s += c
        cum.append(s)
        c = c * (n - i) // (i + 1)
    while j + 1 <= (n + 1) // 2 and 1 - Fraction(2 * cum[j], 2 ** n) >= limit:
        j += 1
    return j, float(1 - Fraction(2 * cum[j - 1], 2 ** n))


def _interval_in_log_space(n):
    """core/spread.cpp's float computation: each term exp(lgamma ...) summed in doubles."""
    def cdf(k):
        return sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0))
                   for i in range(min(k, n) + 1))
    j = 1
    while j + 1 <= (n + 1) // 2 and 1 - 2 * cdf(j) >= CI_LEVEL:
        j += 1
    return j, 1 - 2 * cdf(j - 1)


def test_median_interval_is_the_definition_for_every_small_n():
    for n in range(0, 260):
        j, level = median_interval(n)
        ref_j, ref_level = _interval_by_definition(n)
        assert j == ref_j and level == pytest.approx(ref_level, rel=1e-15, abs=1e-300), n


@pytest.mark.parametrize("n", [1023, 1024, 1025, 1026, 2047, 5000, 5001])
def test_median_interval_past_1023_repetitions_is_exact_and_quick(n):
    """A double holds 2^n only up to n = 1023: the old sum / 2.0**n raised OverflowError there,
    and a run of 2 rounds of 520 repetitions made no report."""
    start = time.perf_counter()
    j, level = median_interval(n)
    assert time.perf_counter() - start < 0.5
    assert (j, level) == _interval_cumulative(n)
    assert level >= CI_LEVEL
    ref_j, ref_level = _interval_in_log_space(n)  # the runner's float sums agree to rounding
    assert j == ref_j and level == pytest.approx(ref_level, rel=1e-12)


def test_median_interval_of_10_to_the_5_repetitions():
    n = 10 ** 5
    start = time.perf_counter()
    j, level = median_interval(n)
    assert time.perf_counter() - start < 2.0  # milliseconds alone; the bound leaves room for a busy machine
    # The narrowest: rank j reaches 95%, the next rank does not (coverage summed in doubles, as
    # the runner sums it, from 14 standard deviations below, where the terms are under 1e-40; the
    # margins, 1e-4, are far above lgamma's rounding, 1e-10).
    cdf = lambda k: math.fsum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)  # noqa: E731
                                       - n * math.log(2.0)) for i in range(k - 2000, k + 1))
    assert 1 - 2 * cdf(j - 1) == pytest.approx(level, rel=1e-8)
    assert level >= CI_LEVEL > 1 - 2 * cdf(j)
    # The normal approximation of the rank: n/2 - 1.96 sqrt(n)/2, within a few ranks.
    assert abs(j - (n / 2 - 1.959964 * math.sqrt(n) / 2)) < 3


def test_the_spread_of_many_repetitions_of_an_old_record():
    """A schema /2 record of more than 1023 repetitions read as /3 (records.with_spread) makes a
    spread where it once raised. (Rounds pooled: experiments/run/pool_rounds.cpp, whose test
    pools 2 x 520.)"""
    old = record(1, "pool", 2, 1.0)
    old["reps_s"] = [1.0 + i / 10000 for i in range(1500)]
    del old["time_s"]
    with_spread(old)
    assert old["time_s"]["n"] == 1500 and old["time_s"]["ci_level"] >= CI_LEVEL
