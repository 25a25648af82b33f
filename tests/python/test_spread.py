"""The spread shape (analysis/spread.py, core/spread.cpp): known values, the median's interval and
its coverage, and the C++ and Python computations equal on every committed record's repetitions."""
import glob
import json
import os

import pytest

from conftest import ROOT
from analysis.spread import UNSTABLE_CV, median_interval, rate_band, rounds_disagree, spread, unstable_reason


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


def test_unstable_and_rounds():
    assert unstable_reason({"cv": UNSTABLE_CV}) is None
    assert unstable_reason({"cv": 0.78}) == "CV 78% over 10%"
    assert rounds_disagree([1.0, 1.05]) is None
    assert rounds_disagree([1.0, 1.5]) == "rounds differ by 50%, over 10%"


def test_rate_band_inverts_the_quartiles():
    r = {"time_s": spread([1.0, 2.0, 4.0])}  # q1 1.5, median 2, q3 3
    lo, hi = rate_band(r, 10.0)
    assert (lo, hi) == (pytest.approx(10.0 * 2 / 3), pytest.approx(10.0 * 2 / 1.5))


def committed_records():
    for path in sorted(glob.glob(os.path.join(ROOT, "results", "**", "results.json"), recursive=True)):
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") not in ("parlab-results/3", "parlab-results/4"):  # time_s: the runner's spread
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
