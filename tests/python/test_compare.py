"""analysis/compare.py on synthetic runs: statistics, matching, verdicts, scaling shape, output, exit codes."""
import copy
import json
import math
import os
import random
import subprocess
import sys
import time
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from analysis import compare  # analysis/compare.py, via conftest's sys.path
from analysis import compare_stats
from analysis.spread import spread
from conftest import BASE_DOC, FIXTURES, ROOT, record, write_doc

COMPARE = os.path.join(ROOT, "analysis", "compare.py")


def run_compare(*args, env=None):
    return subprocess.run([sys.executable, COMPARE, *map(str, args)], capture_output=True, text=True, env=env)


def noisy(rng, median, n=5, sd=0.02):
    """n repetition times around median with lognormal noise of relative spread sd."""
    return [median * math.exp(rng.gauss(0, sd)) for _ in range(n)]


def rec(i, backend, threads, reps, **kw):
    """A conftest record whose repetitions are `reps` (time_s, the runner's whole spread, and rate
    follow from them)."""
    r = record(i, backend, threads, 1.0, **kw)
    if r["status"] == "ok":
        med = compare_stats.median(reps)
        r.update({"reps": len(reps), "reps_s": list(reps), "time_s": spread(list(reps)),
                  "rate": {"samples_per_s": r["size"] / med}})
    return r


# Times of a strong-scaling run: serial and two backends over 1..8 threads, one triad record.
PLAN = [("serial", 1, 8.0), ("pool", 1, 8.1), ("pool", 2, 4.2), ("pool", 4, 2.3), ("pool", 8, 1.4),
        ("tbb", 1, 8.2), ("tbb", 2, 4.3), ("tbb", 4, 2.2), ("tbb", 8, 1.3)]


def make_run(seed, factor=1.0, shift=None, plan=PLAN, n=5, sd=0.02, host="fixture-host", **ctx):
    """A run of PLAN with fresh noise; every median times `factor`; `shift` = {(backend, threads): x}."""
    rng = random.Random(seed)
    doc = copy.deepcopy(BASE_DOC)
    doc["context"]["host"] = host
    for k, v in ctx.items():
        doc["context"]["cpu"][k] = v
    recs = []
    for i, (backend, threads, t) in enumerate(plan):
        x = factor * (shift or {}).get((backend, threads), 1.0)
        recs.append(rec(i, backend, threads, noisy(rng, t * x, n, sd)))
    recs.append(rec(len(plan), "pool", 4, noisy(rng, 0.02 * factor, n, sd), kernel="triad", size=1 << 24,
                    scaling="none", precision="double"))
    doc["records"] = recs
    return doc


def json_of(res):
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def by_label(out):
    return {r["label"]: r for r in out["records"]}


# ---------------------------------------------------------------- statistics
def test_exact_u_distribution_and_smallest_p():
    for n, m in ((1, 1), (3, 3), (4, 6), (5, 5), (8, 3)):
        c = compare_stats.u_counts(n, m)
        assert sum(c) == math.comb(n + m, n) and list(c) == list(c[::-1]) and len(c) == n * m + 1
    # Every NEW repetition above every BASE one: the smallest p there is.
    assert compare_stats.mann_whitney([1, 2, 3], [4, 5, 6])["p"] == pytest.approx(0.1)
    assert compare_stats.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])["p"] == pytest.approx(2 / 252)
    assert compare_stats.min_p(3, 3) == pytest.approx(0.1)
    assert compare_stats.reps_needed(0.01) == 5 and compare_stats.reps_needed(0.05) == 4


def test_u_test_gives_scipys_p_values():
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(7)
    for trial in range(300):
        n, m = rng.randint(1, 14), rng.randint(1, 14)
        a = [rng.lognormvariate(0, 0.1) for _ in range(n)]
        b = [rng.lognormvariate(0.05, 0.1) for _ in range(m)]
        if trial % 3 == 0:  # ties: the normal approximation with tie correction
            a, b = [round(x, 1) for x in a], [round(x, 1) for x in b]
        mine = compare_stats.mann_whitney(a, b)
        ref = stats.mannwhitneyu(b, a, alternative="two-sided",
                                 method="exact" if mine["method"] == "exact" else "asymptotic")
        assert mine["u"] == pytest.approx(ref.statistic)
        assert mine["p"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)


def test_interval_excludes_one_exactly_when_the_test_rejects():
    rng = random.Random(3)
    seen = {True: 0, False: 0}
    for _ in range(400):
        n, m = rng.randint(2, 12), rng.randint(2, 12)
        a = [rng.lognormvariate(0, 0.05) for _ in range(n)]
        b = [rng.lognormvariate(rng.choice((0, 0.03, 0.08)), 0.05) for _ in range(m)]
        for alpha in (0.01, 0.05):
            ci = compare_stats.ratio_interval(a, b, alpha)
            rejects = compare_stats.mann_whitney(a, b)["p"] < alpha
            if ci is None:
                assert compare_stats.min_p(n, m) >= alpha and not rejects
                continue
            assert ci[0] <= ci[1]
            assert (not ci[0] <= 1 <= ci[1]) == rejects
            seen[rejects] += 1
    assert seen[True] > 20 and seen[False] > 20  # both cases were exercised


def test_same_distribution_1000_times_gives_a_verdict_at_most_1_percent():
    rng = random.Random(2026)
    alpha, threshold = compare.DEFAULTS["alpha"], compare.DEFAULTS["threshold"]
    for n, sd in ((5, 0.05), (10, 0.05), (20, 0.08)):
        verdicts = rejections = 0
        for _ in range(1000):
            # Right-skewed timing noise with an occasional slow outlier, both sides alike.
            a = [math.exp(rng.gauss(0, sd)) * (1.3 if rng.random() < 0.05 else 1) for _ in range(n)]
            b = [math.exp(rng.gauss(0, sd)) * (1.3 if rng.random() < 0.05 else 1) for _ in range(n)]
            res = compare_stats.compare_samples(a, b, alpha, threshold)
            verdicts += res["verdict"] != "same"
            rejections += res["p_value"] < alpha
        assert verdicts <= 10, (n, verdicts)
        # The test alone (no minimum effect) keeps its level too: about alpha, never far above.
        assert rejections <= 20, (n, rejections)


def test_a_real_shift_is_found_by_the_same_rule():
    rng = random.Random(11)
    found = sum(compare_stats.compare_samples(noisy(rng, 1.0), noisy(rng, 1.10), 0.01, 0.05)["verdict"] == "slower"
                for _ in range(200))
    assert found >= 190


# ---------------------------------------------------------------- on runs
def test_known_10_percent_shift_in_one_record_is_slower_and_the_others_unchanged(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, shift={("tbb", 4): 1.10}), "new")
    out = json_of(run_compare(base, new, "--json"))
    rows = by_label(out)
    shifted = rows["s pi tbb t=4 2^20 int32"]
    assert shifted["verdict"] == "slower" and shifted["p_value"] < 0.01
    assert shifted["time_ratio"] == pytest.approx(1.10, rel=0.03)
    assert shifted["ci"][0] > 1 and shifted["rate_ratio"] == pytest.approx(1 / shifted["time_ratio"])
    others = [r for label, r in rows.items() if label != shifted["label"]]
    assert len(others) == len(PLAN) and all(r["verdict"] == "same" for r in others)
    assert out["summary"]["slower"] == 1 and out["summary"]["same"] == len(PLAN)
    assert out["records"][0]["label"] == shifted["label"]  # sorted by the largest change
    assert out["summary"]["largest_slowdown"]["label"] == shifted["label"]
    text = run_compare(base, new).stdout
    assert "1 slower" in text and "largest slowdown: s pi tbb t=4" in text
    assert "\033[" not in text  # no colour when stdout is not a terminal
    assert "\033[31" in run_compare(base, new, "--color", "always").stdout


def test_too_few_repetitions_give_the_warning(tmp_path):
    base = write_doc(tmp_path, make_run(1, n=3), "base")
    new = write_doc(tmp_path, make_run(2, n=3, shift={("tbb", 4): 1.5}), "new")
    out = json_of(run_compare(base, new, "--json"))
    row = by_label(out)["s pi tbb t=4 2^20 int32"]
    # A change the test cannot judge is "undecided", never "same", and says what would decide it.
    assert row["time_ratio"] > 1.4 and row["verdict"] == "undecided" and row["too_few_reps"]
    assert "too few repetitions" in row["warning"] and "0.1" in row["warning"] and row["ci"] is None
    assert row["reps_to_decide"] == 5 and "about 5 per side needed" in row["warning"]  # every NEW beyond every BASE
    assert out["summary"]["too_few_reps"] == out["summary"]["undecided"] == len(PLAN) + 1
    assert out["summary"]["same"] == 0
    text = run_compare(base, new).stdout
    assert "too few repetitions" in text and "no p below 0.1" in text and "same*" not in text
    table = text.split("Records (")[1].split("\n\n")[0]
    rows = [line.split() for line in table.splitlines() if line.startswith("  ") and "2^20" in line]
    assert len(rows) == len(PLAN) and all(r[0] == "undecided" for r in rows), text
    assert "3/3->5" in text and "--reps N" in text


def test_a_90_percent_drop_with_few_repetitions_is_undecided_with_a_count():
    """x0.098 (-90%) on 3 repetitions against 3: the test cannot judge it, so it is never "same",
    and every NEW repetition below every BASE one needs the fewest repetitions there are."""
    out = compare_stats.compare_samples([1.00, 1.01, 1.02], [0.098, 0.099, 0.100], 0.01, 0.05)
    assert out["time_ratio"] == pytest.approx(0.098, rel=0.01) and out["verdict"] == "undecided"
    assert out["reps_to_decide"] == compare_stats.reps_needed(0.01) == 5
    # Overlapping repetitions show a smaller effect, which takes more repetitions to decide.
    out = compare_stats.compare_samples([1.0, 1.1, 1.2], [1.05, 1.15, 1.25], 0.01, 0.05)
    assert out["verdict"] == "undecided" and out["reps_to_decide"] > 5
    # No order at all: no count of repetitions decides it at this effect.
    assert compare_stats.reps_to_decide(4.5, 3, 3, 0.01) is None


@pytest.mark.parametrize("u,n,m,alpha", [(0, 3, 3, 0.01), (1, 3, 3, 0.01), (3, 3, 3, 0.01), (12, 4, 4, 0.01),
                                          (2, 3, 3, 0.05), (5, 4, 3, 0.01)])
def test_reps_to_decide_is_where_the_observed_effect_reaches_alpha(u, n, m, alpha):
    """The estimate is the fewest repetitions per side at which a sample with the observed share
    of pairs (U / (n m)) gives p < alpha, and one fewer does not: checked against the U test
    itself on samples made to have that share."""
    k = compare_stats.reps_to_decide(u, n, m, alpha)
    share = u / (n * m)

    def p_at(k):
        # k BASE times 0..k-1 and k NEW times placed so that about share * k^2 pairs have NEW
        # above BASE, rounded towards no effect: U = floor(share k^2) or ceil for a share below 1/2.
        target = math.floor(share * k * k) if share > 0.5 else math.ceil(share * k * k)
        base = list(range(k))
        new, left = [], target
        for j in range(k):
            above = min(k, left)
            new.append(above - 0.5 + j / (4 * k))  # above `above` BASE times, no two alike (no ties)
            left -= above
        assert compare_stats.mann_whitney(base, new)["u"] == target
        return compare_stats.mann_whitney(base, new)["p"]
    assert p_at(k) < alpha
    assert k == compare_stats.reps_needed(alpha) or p_at(k - 1) >= alpha


def test_a_machine_slower_by_a_constant_factor_scales_the_same(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, factor=1.7, host="slow-host", model="Slow CPU"), "new")
    out = json_of(run_compare(base, new, "--json"))
    assert out["summary"]["slower"] == len(PLAN) + 1  # every record is slower ...
    shapes = {s["line"]: s for s in out["scaling"]}
    assert set(shapes) == {"pool", "tbb"}
    for s in shapes.values():  # ... and every series scales the same
        assert s["verdict"] == "same scaling" and s["common"]
        assert [p["base_workers"] for p in s["points"]] == [2, 4, 8]
        assert all(p["efficiency_ratio"] == pytest.approx(1, abs=0.06) for p in s["points"])
    pool = {p["workers"]: p for p in shapes["pool"]["base"]}
    assert pool[8]["speedup"] == pytest.approx(8.1 / 1.4, rel=0.05)  # over its own 1-thread time, not serial's
    assert pool[8]["efficiency"] == pytest.approx(8.1 / 1.4 / 8, rel=0.05)
    diffs = {d["key"]: d for d in out["context_differences"]}
    assert diffs["cpu.model"] == {"key": "cpu.model", "base": "Fixture CPU", "new": "Slow CPU"}
    assert "host" in diffs
    text = run_compare(base, new).stdout
    # The answer first: the records come before the context, which names the CPUs in words.
    assert text.index("Records") < text.index("Context") and "CPU: Fixture CPU (BASE) vs Slow CPU (NEW)" in text
    assert "Fixture CPU  ->  Slow CPU" in run_compare(base, new, "--verbose").stdout  # the raw keys, verbose only
    assert "same scaling  s pi pool strong" in text


def test_a_series_that_stops_scaling_scales_worse(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, factor=1.7, shift={("pool", 4): 1.4, ("pool", 8): 1.8}), "new")
    shapes = {s["line"]: s for s in json_of(run_compare(base, new, "--json"))["scaling"]}
    assert shapes["pool"]["verdict"] == "scales worse" and shapes["tbb"]["verdict"] == "same scaling"
    worse = {p["base_workers"]: p["verdict"] for p in shapes["pool"]["points"]}
    assert worse == {2: "same", 4: "worse", 8: "worse"}
    # The other way round, the same pair scales better.
    shapes = {s["line"]: s for s in json_of(run_compare(new, base, "--json"))["scaling"]}
    assert shapes["pool"]["verdict"] == "scales better" and shapes["tbb"]["verdict"] == "same scaling"


def test_fewer_cores_compare_the_shape_where_both_measured_and_list_the_rest(tmp_path):
    small = [p for p in PLAN if p[1] <= 2]
    base = write_doc(tmp_path, make_run(1, plan=small, factor=1.3, logical_cpus=2, physical_cores=2), "base")
    new = write_doc(tmp_path, make_run(2), "new")
    out = json_of(run_compare(base, new, "--json"))
    for s in out["scaling"]:
        assert [p["base_workers"] for p in s["points"]] == [2] and s["verdict"] == "same scaling"
        assert max(p["workers"] for p in s["new"]) == 8
    assert out["summary"]["only_new"] == 4 and out["summary"]["only_base"] == 0
    assert sorted(out["only_new_series"]) == ["s pi pool 2^20 int32: t=4,8", "s pi tbb 2^20 int32: t=4,8"]
    text = run_compare(base, new).stdout
    assert "Only in NEW: 4 record(s)" in text and "s pi pool 2^20 int32: t=4,8" in text


def test_validation_failures_are_shown_and_never_compared(tmp_path):
    doc = make_run(2, shift={("pool", 2): 3.0})
    bad = next(r for r in doc["records"] if (r["backend"], r["threads"]) == ("pool", 2))
    bad["status"] = "failed-validation"
    bad["validation"] = {"pass": False, "detail": "hits 12 of 1048576"}
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, doc, "new")
    res = run_compare(base, new, "--json", "--fail-if-slower", "5")
    assert res.returncode == 0, res.stderr  # a failed record is not compared, so it cannot trip the gate
    out = json.loads(res.stdout)
    row = by_label(out)["s pi pool t=2 2^20 int32"]
    assert row["kind"] == "failed" and "time_ratio" not in row and "verdict" not in row
    assert row["new"]["status"] == "failed-validation" and row["new"]["detail"] == "hits 12 of 1048576"
    assert out["summary"]["failed"] == 1 and out["summary"]["compared"] == len(PLAN)
    assert out["records"][0] is not None and out["records"][0]["kind"] == "failed"  # failures first
    text = run_compare(base, new).stdout
    assert "failed   s pi pool t=2" in text and "NEW failed-validation: hits 12 of 1048576" in text


def test_unmatched_and_unavailable_records_are_listed(tmp_path):
    b, n = make_run(1), make_run(2)
    b["records"].append(rec(50, "threads", 2, [1.0] * 5))  # only in BASE
    n["records"].append(rec(51, "openmp", 2, [1.0] * 5, kernel="dot", precision="double"))  # only in NEW
    for doc in (b, n):  # unavailable on both sides: not measured, not unmatched
        doc["records"].append(rec(60, "cuda", 1, [], kind="gpu", status="unavailable"))
    n["records"].append(rec(61, "openmp-dynamic", 2, [1.0] * 5))
    b["records"].append(rec(61, "openmp-dynamic", 2, [], status="unavailable"))
    out = json_of(run_compare(write_doc(tmp_path, b, "base"), write_doc(tmp_path, n, "new"), "--json"))
    assert [x["label"] for x in out["only_base"]] == ["s pi threads t=2 2^20 int32"]
    assert [x["label"] for x in out["only_new"]] == ["s dot openmp t=2 2^20 double"]
    rows = by_label(out)
    assert rows["s pi cuda t=1 2^20 int32"]["kind"] == "not-measured"
    assert rows["s pi openmp-dynamic t=2 2^20 int32"]["kind"] == "one-side-unavailable"
    s = out["summary"]
    assert (s["only_base"], s["only_new"], s["not_measured"], s["one_side_unavailable"]) == (1, 1, 1, 1)
    text = run_compare(tmp_path / "base", tmp_path / "new").stdout
    assert "Only in BASE: 1 record(s)" in text and "Only in NEW: 1 record(s)" in text
    assert "Measured on neither side" in text and "s pi cuda t=1" in text


def test_fail_if_slower_gate(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, shift={("tbb", 4): 1.10}), "new")
    tripped = run_compare(base, new, "--fail-if-slower", "5")
    assert tripped.returncode == 1 and "FAIL: 1 record(s) significantly slower by more than 5%" in tripped.stdout
    assert run_compare(base, new, "--fail-if-slower", "20").returncode == 0
    assert run_compare(base, new).returncode == 0
    # Independent of --threshold: a significant 10% slowdown trips a 5% gate even where the verdict needs 15%.
    res = run_compare(base, new, "--fail-if-slower", "5", "--threshold", "15", "--json")
    assert res.returncode == 1 and json.loads(res.stdout)["gate"]["records"] == ["s pi tbb t=4 2^20 int32"]
    # Faster is never a failure; the same run against itself passes.
    assert run_compare(new, base, "--fail-if-slower", "5").returncode == 0
    assert run_compare(base, base, "--fail-if-slower", "0").returncode == 0
    # With too few repetitions nothing can be significant: the gate cannot pass a run it could not
    # judge at all, and says so with the repetitions that would decide (test_gate_that_judged_nothing...).
    few_b = write_doc(tmp_path, make_run(1, n=3), "few_b")
    few_n = write_doc(tmp_path, make_run(2, n=3, factor=2.0), "few_n")
    res = run_compare(few_b, few_n, "--fail-if-slower", "5")
    assert res.returncode == 5 and "too few repetitions" in " ".join(res.stdout.split())  # wrapped


def test_gate_that_judged_nothing_exits_5_with_the_fix(tmp_path):
    """Every record too few repetitions to judge: not 0 (a pass of nothing), not 1 (slower): 5,
    with one line on stderr naming the fix, the repetitions per side that would decide."""
    few_b = write_doc(tmp_path, make_run(1, n=3), "few_b")
    few_n = write_doc(tmp_path, make_run(2, n=3, factor=2.0), "few_n")
    res = run_compare(few_b, few_n, "--fail-if-slower", "5")
    assert res.returncode == 5, res.stderr
    (line,) = res.stderr.splitlines()
    gate = json.loads(run_compare(few_b, few_n, "--fail-if-slower", "5", "--json").stdout)["gate"]
    need = gate["reps_to_decide"]
    assert line == (f"parlab compare: gate --fail-if-slower 5%: judged nothing: all {len(PLAN) + 1} compared "
                    f"record(s) had too few repetitions (or distinct ones) to judge; measure both runs again with "
                    f"more repetitions: parlab run -r {need} (about {need} per side would decide every one at the "
                    f"effect it shows)")
    assert gate == {"fail_if_slower_pct": 5, "failed": False, "records": [], "judged": 0,
                    "could_not_judge": len(PLAN) + 1, "nothing_judged": True, "not_compared": 0,
                    "reps_to_decide": need, "no_order": 0, "too_few_distinct": 0}
    # A doubling seen in 3 against 3: 5 a side (the fewest for any verdict at alpha 0.01) decide it.
    assert need == compare_stats.reps_needed(0.01) == 5
    flat = " ".join(run_compare(few_b, few_n, "--fail-if-slower", "5").stdout.split())
    assert "gate --fail-if-slower: NOTHING JUDGED (exit 5): judged nothing: all 10 compared record(s)" in flat
    assert f"parlab run -r {need}" in flat
    # Without the gate the same comparison is a report, exit 0.
    assert run_compare(few_b, few_n).returncode == 0


def test_gate_needs_the_most_repetitions_any_record_needs(tmp_path):
    """A small effect needs more repetitions than a doubling: the fix names the most any record
    needs; a record whose sides show no order at all is counted as such."""
    b, n = copy.deepcopy(BASE_DOC), copy.deepcopy(BASE_DOC)
    b["records"] = [rec(0, "tbb", 2, [1.0, 1.1, 1.2]), rec(1, "pool", 2, [1.0, 2.0, 3.0]),
                    rec(2, "serial", 1, [1.0, 1.1, 1.2])]
    n["records"] = [rec(0, "tbb", 2, [1.05, 1.15, 1.25]),  # U = 6 of 9: a weak order
                    rec(1, "pool", 2, [1.0, 2.0, 3.0]),  # U = 4.5 of 9: no order
                    rec(2, "serial", 1, [2.0, 2.1, 2.2])]  # U = 9 of 9: a clear one
    base, new = write_doc(tmp_path, b, "base"), write_doc(tmp_path, n, "new")
    out = json.loads(run_compare(base, new, "--fail-if-slower", "5", "--json").stdout)
    rows = by_label(out)
    weak = rows["s pi tbb t=2 2^20 int32"]["reps_to_decide"]
    assert weak > rows["s pi serial t=1 2^20 int32"]["reps_to_decide"] == compare_stats.reps_needed(0.01)
    assert rows["s pi pool t=2 2^20 int32"]["reps_to_decide"] is None
    g = out["gate"]
    assert g["nothing_judged"] and g["no_order"] == 1 and g["could_not_judge"] == 3 and g["reps_to_decide"] == weak
    res = run_compare(base, new, "--fail-if-slower", "5")
    assert res.returncode == 5 and f"parlab run -r {weak} (about {weak} per side" in res.stderr
    assert "; 1 show no order at all and may need more)" in res.stderr


def test_gate_judges_what_it_can_and_counts_the_rest(tmp_path):
    """Some records judged, some not: the gate decides on those judged (0 or 1) and says how many
    it could not judge."""
    b, n = make_run(1), make_run(2, shift={("tbb", 4): 1.10})
    for d in (b, n):  # two records of 3 repetitions a side: not judged
        for r in d["records"]:
            if (r["backend"], r["threads"]) in (("pool", 2), ("serial", 1)):
                r.update(rec(r["id"], r["backend"], r["threads"], r["reps_s"][:3]))
    base, new = write_doc(tmp_path, b, "base"), write_doc(tmp_path, n, "new")
    tripped = run_compare(base, new, "--fail-if-slower", "5")
    flat = " ".join(tripped.stdout.split())
    assert tripped.returncode == 1
    assert ("FAIL: 1 record(s) significantly slower by more than 5% (2 record(s) had too few repetitions to "
            f"judge, not judged; {len(PLAN) - 1} judged)") in flat
    passed = run_compare(base, new, "--fail-if-slower", "20")
    flat = " ".join(passed.stdout.split())
    assert passed.returncode == 0 and not passed.stderr
    assert ("pass: no record significantly slower by more than 20% (2 record(s) had too few repetitions to "
            f"judge, not judged; {len(PLAN) - 1} judged)") in flat
    gate = json.loads(run_compare(base, new, "--fail-if-slower", "20", "--json").stdout)["gate"]
    assert (gate["judged"], gate["could_not_judge"], gate["nothing_judged"], gate["failed"]) == (len(PLAN) - 1, 2,
                                                                                                 False, False)
    run_compare(base, new, "--fail-if-slower", "20", "--html", tmp_path / "cmp")
    page = (tmp_path / "cmp" / "report.html").read_text()
    assert "2 record(s) had too few repetitions to judge, not judged" in page


def test_gate_with_no_record_compared_judged_nothing(tmp_path):
    """Every matched record failed on a side: nothing compared, nothing judged: 5, not a pass."""
    b, n = make_run(1), make_run(2)
    for r in n["records"]:
        r["status"] = "failed-validation"
        r["validation"] = {"pass": False, "detail": "wrong"}
    base, new = write_doc(tmp_path, b, "base"), write_doc(tmp_path, n, "new")
    res = run_compare(base, new, "--fail-if-slower", "5")
    assert res.returncode == 5
    assert "judged nothing: no record could be compared" in res.stderr
    assert run_compare(base, new).returncode == 0
    out_dir = tmp_path / "cmp"
    assert run_compare(base, new, "--fail-if-slower", "5", "--html", out_dir).returncode == 5
    assert "nothing judged" in (out_dir / "report.html").read_text()


@pytest.mark.parametrize("args,message", [
    (["--fail-if-slowr", "5"], "unknown option '--fail-if-slowr'; did you mean '--fail-if-slower'?"),
    (["--fail-if-slowr=5"], "unknown option '--fail-if-slowr'; did you mean '--fail-if-slower'?"),
    (["--trheshold", "5"], "unknown option '--trheshold'; did you mean '--threshold'?"),
    (["--jsn"], "unknown option '--jsn'; did you mean '--json'?"),
    (["--verbsoe"], "unknown option '--verbsoe'; did you mean '--verbose'?"),
    (["--zzzzzz"], "unknown option '--zzzzzz'"),
])
def test_an_unknown_option_is_named_with_the_nearest(tmp_path, args, message):
    """As `parlab run` words it (experiments/plan/suggest.cpp): exit 2, one line, nothing on stdout."""
    good = write_doc(tmp_path, make_run(1), "good")
    res = run_compare(good, good, *args)
    assert res.returncode == 2 and not res.stdout
    assert res.stderr == f"parlab compare: {message} (`parlab compare --help` lists them)\n"
    assert run_compare(*args, good, good).stderr == res.stderr  # before the paths too


def test_options_argparse_knows_keep_their_own_messages(tmp_path):
    """A value that is a negative number, an ambiguous abbreviation and a unique one are not
    unknown options."""
    good = write_doc(tmp_path, make_run(1), "good")
    neg = run_compare(good, good, "--threshold", "-5")
    assert neg.returncode == 2 and "must be a percentage >= 0: '-5'" in neg.stderr
    assert "unknown option" not in neg.stderr
    ambiguous = run_compare(good, good, "--h")
    assert ambiguous.returncode == 2 and "ambiguous option: --h could match --help, --html" in ambiguous.stderr
    assert run_compare(good, good, "--fail", "50").returncode == 0  # --fail-if-slower, abbreviated
    assert run_compare(good, good, "--", "--fail-if-slowr").returncode == 2  # after --: a path, so three of them


def test_json_has_every_figure(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, shift={("pool", 8): 0.8}), "new")
    out = json_of(run_compare(base, new, "--json", "--threshold", "3", "--alpha", "0.05"))
    assert out["schema"] == "parlab-compare/1"
    assert out["settings"]["alpha"] == 0.05 and out["settings"]["threshold_pct"] == 3
    assert out["base"]["path"].endswith(os.path.join("base", "results.json")) and out["new"]["records"] == len(PLAN) + 1
    for row in out["records"]:
        for k in ("label", "dims", "time_ratio", "change_pct", "ci", "p_value", "verdict", "rate_ratio", "min_p"):
            assert k in row
        assert row["base"]["reps_s"] and row["new"]["median_s"] > 0 and row["base"]["rate_unit"] == "samples/s"
        assert row["time_ratio"] == pytest.approx(row["new"]["median_s"] / row["base"]["median_s"])
        assert {"study", "kernel", "backend", "threads", "size", "precision", "device"} <= set(row["dims"])
    faster = by_label(out)["s pi pool t=8 2^20 int32"]
    assert faster["verdict"] == "faster" and faster["ci"][1] < 1
    assert out["summary"]["largest_speedup"]["label"] == faster["label"]
    assert {"context_differences", "scaling", "only_base", "only_new", "gate", "notes"} <= set(out)


def test_html_report_with_figures(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, factor=1.2, model="Other CPU"), "new")
    out_dir = tmp_path / "cmp"
    res = run_compare(base, new, "--html", out_dir)
    assert res.returncode == 0, res.stderr
    page = (out_dir / "report.html").read_text()
    assert page.count("data:image/png;base64,") >= 2  # the change bars and a scaling figure, embedded
    assert (out_dir / "plots" / "change.png").stat().st_size > 0
    assert any(p.name.startswith("scaling_") for p in (out_dir / "plots").iterdir())
    assert json.loads((out_dir / "compare.json").read_text())["summary"]["slower"] == len(PLAN) + 1
    # The first screen says what changed, before any figure.
    first = page.index("What changed")
    assert first < page.index("<img") and "Other CPU" in page[first:page.index("<img")]
    assert "same scaling" in page and "Largest slowdown" in page


def test_html_refuses_to_overwrite_a_run_directory(tmp_path):
    base = write_doc(tmp_path, make_run(1), "base")
    res = run_compare(base, base, "--html", base)
    assert res.returncode == 2 and "holds a parlab run" in res.stderr
    assert not (base / "report.html").exists()


@pytest.mark.parametrize("case", ["missing", "empty-dir", "not-json", "other-schema", "nothing-in-common",
                                  "bad-threshold", "bad-alpha"])
def test_bad_arguments_exit_2(tmp_path, case):
    good = write_doc(tmp_path, make_run(1), "good")
    (tmp_path / "empty").mkdir()  # no results.json, no run below it (a folder of runs is read: resolve_run)
    args = {"missing": [tmp_path / "nope", good], "empty-dir": [tmp_path / "empty", good]}.get(case)
    if case == "not-json":
        (tmp_path / "x.json").write_bytes(b"\x89PNG not json")
        args = [good, tmp_path / "x.json"]
    elif case == "other-schema":
        (tmp_path / "o.json").write_text(json.dumps({"schema": "something-else/1", "records": []}))
        args = [tmp_path / "o.json", good]
    elif case == "nothing-in-common":
        other = make_run(2)
        for r in other["records"]:
            r["study"] = "elsewhere"
        args = [good, write_doc(tmp_path, other, "other")]
    elif case == "bad-threshold":
        args = [good, good, "--threshold", "-5"]
    elif case == "bad-alpha":
        args = [good, good, "--alpha", "1.5"]
    res = run_compare(*args)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert res.stderr.strip() and not res.stdout


def test_python_records_of_the_runs_own_interpreter_match_across_versions(tmp_path):
    """A run from before the interpreter fields (CPython 3.11) against one with them (3.12 and a 3.13t child)."""
    rng = random.Random(5)
    old, new = copy.deepcopy(BASE_DOC), copy.deepcopy(BASE_DOC)
    old["context"]["python"] = "CPython 3.11.2, GIL mode gil, per-interpreter GIL: no"
    new["context"]["python"] = "CPython 3.12.3, GIL mode gil, per-interpreter GIL: yes"
    old["records"] = [rec(0, "py-pure-threads", 2, noisy(rng, 1.0), kind="python")]
    mine = rec(0, "py-pure-threads", 2, noisy(rng, 1.0), kind="python")
    mine.update({"interpreter": "3.12.3", "python_build": "gil", "gil_enabled": True})
    child = rec(1, "py-pure-threads", 2, noisy(rng, 0.5), kind="python")
    child.update({"interpreter": "3.13.5 free-threaded", "python_build": "free-threaded", "gil_enabled": False,
                  "python_gil": "0"})
    new["records"] = [mine, child]
    out = json_of(run_compare(write_doc(tmp_path, old, "old"), write_doc(tmp_path, new, "new"), "--json"))
    (row,) = out["records"]
    assert row["dims"]["interpreter"] == compare.OWN and row["new"]["interpreter"] == "3.12.3"
    assert [x["label"] for x in out["only_new"]] == ["s pi py-pure-threads t=2 2^20 int32 [3.13.5 free-threaded, no GIL]"]
    assert any(d["key"] == "python" for d in out["context_differences"])


def test_help_states_the_defaults():
    text = run_compare("--help").stdout
    for needle in ("default: 5%", "default: 0.01", "default: 10%", "--fail-if-slower", "--json", "--html",
                   "Exit codes", "3 against 3"):
        assert needle in text


def test_parlab_compare_passes_the_scripts_command_line_and_exit_code(tmp_path, parlab_bin):
    """`parlab compare` is the script's command line: its --help, its verdicts and its exit codes."""
    base = write_doc(tmp_path, make_run(1), "base")
    new = write_doc(tmp_path, make_run(2, shift={("tbb", 4): 1.10}), "new")
    run = lambda *a: subprocess.run([parlab_bin, "compare", *map(str, a)], capture_output=True, text=True, timeout=120)
    helped = run("--help")
    assert helped.returncode == 0 and "--fail-if-slower" in helped.stdout
    assert run(base, new).returncode == 0
    tripped = run(base, new, "--fail-if-slower", "5")
    assert tripped.returncode == 1 and "significantly slower" in tripped.stdout
    missing = run(tmp_path / "nothing", new)
    assert missing.returncode == 2 and "nothing" in missing.stderr
    typo = run(base, new, "--fail-if-slowr", "5")  # the script's did-you-mean, through parlab
    assert typo.returncode == 2 and "did you mean '--fail-if-slower'?" in typo.stderr
    few_b = write_doc(tmp_path, make_run(1, n=3), "few_b")
    few_n = write_doc(tmp_path, make_run(2, n=3, factor=2.0), "few_n")
    nothing = run(few_b, few_n, "--fail-if-slower", "5")  # the gate that judged nothing keeps its own code
    assert nothing.returncode == 5 and "judged nothing" in nothing.stderr, nothing.stderr


def test_the_committed_fixture_pair_reaches_every_kind_of_record():
    """tests/fixtures/compare-base against compare-new: one record slower, one faster, the rest
    the same; one failed, one unavailable on one side, one measured on neither, one only in NEW;
    one scaling line worse and one better."""
    out = json_of(run_compare(os.path.join(FIXTURES, "compare-base"), os.path.join(FIXTURES, "compare-new"), "--json"))
    s = out["summary"]
    assert (s["compared"], s["slower"], s["faster"], s["same"], s["failed"]) == (6, 1, 1, 4, 1)
    assert (s["one_side_unavailable"], s["not_measured"], s["only_base"], s["only_new"]) == (1, 1, 0, 1)
    rows = by_label(out)
    slower, faster = rows["s pi pool t=4 2^20 int32"], rows["s pi tbb t=4 2^20 int32"]
    assert slower["verdict"] == "slower" and slower["time_ratio"] == pytest.approx(1.3)
    assert faster["verdict"] == "faster" and faster["time_ratio"] == pytest.approx(0.7)
    # Five repetitions a side, every NEW one beyond every BASE one: the smallest p of 5 against 5.
    assert slower["p_value"] == pytest.approx(2 / 252) and not slower["too_few_reps"]
    assert rows["s pi pool t=2 2^20 int32"]["kind"] == "failed"
    assert rows["s pi openmp t=2 2^20 int32"]["kind"] == "one-side-unavailable"
    assert rows["s pi cuda t=1 2^20 int32"]["kind"] == "not-measured"
    assert out["only_new_series"] == ["s triad pool 2^24 double: t=4"]
    assert sorted((g["line"], g["verdict"]) for g in out["scaling"]) == [("pool", "scales worse"),
                                                                         ("tbb", "scales better")]


# ---------------------------------------------------------------- many repetitions
def _ratio_interval_by_sorting(base, new, alpha):
    """ratio_interval as it was written first: every one of the n*m log-ratios made and sorted.
    The reference the selection must equal, float for float."""
    n, m = len(base), len(new)
    top = n * m
    if top == 0:
        return None
    if top <= compare_stats.EXACT_MAX:
        c = compare_stats.u_counts(n, m)
        total, cum, k = sum(c), 0, 0
        while k < top and (cum + c[k]) / total < alpha / 2:
            cum += c[k]
            k += 1
    else:
        k = math.floor(top / 2 - compare_stats._norm_quantile(1 - alpha / 2) * math.sqrt(top * (n + m + 1) / 12))
    if k < 1:
        return None
    d = sorted(math.log(b) - math.log(a) for a in base for b in new)
    return math.exp(d[k - 1]), math.exp(d[top - k])


_times = st.one_of(
    st.floats(min_value=1e-9, max_value=1e4, allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 1.5, 2.0, 0.001, 1e-9]),  # ties within a side and across the sides
)


@settings(max_examples=400, deadline=None, database=None)
@given(base=st.lists(_times, min_size=1, max_size=40), new=st.lists(_times, min_size=1, max_size=40),
       alpha=st.sampled_from([0.01, 0.05, 0.2, 0.5]))
def test_the_interval_selected_is_the_interval_sorted(base, new, alpha):
    assert compare_stats.ratio_interval(base, new, alpha) == _ratio_interval_by_sorting(base, new, alpha)


@settings(max_examples=300, deadline=None, database=None)
@given(la=st.lists(st.sampled_from([-1.0, -1e-300, -0.0, 0.0, 5e-324, 1e-300, 0.5, 1.0]) | st.floats(-50, 50),
                   min_size=1, max_size=25),
       lb=st.lists(st.sampled_from([-1.0, -0.0, 0.0, 1e-300, 0.5]) | st.floats(-50, 50), min_size=1, max_size=25),
       data=st.data())
def test_every_kth_difference_is_the_sorted_ones_even_without_gathering(la, lb, data):
    """With GATHER_PER_REP 0 the bisection runs down to adjacent doubles: ties at 0, -0.0 and
    the subnormals included."""
    la, lb = sorted(la), sorted(lb)
    d = sorted(b - a for a in la for b in lb)
    k = data.draw(st.integers(1, len(d)))
    kept = compare_stats.GATHER_PER_REP
    try:
        for gather in (0, kept):
            compare_stats.GATHER_PER_REP = gather
            assert compare_stats._kth_difference(la, lb, k) == d[k - 1]
    finally:
        compare_stats.GATHER_PER_REP = kept


def test_the_normal_approximations_interval_is_the_sorted_one_too():
    """n*m over EXACT_MAX: k from the normal approximation; large enough that the bisection runs."""
    rng = random.Random(9)
    for n, m in ((60, 50), (300, 200), (120, 400)):
        a = [rng.lognormvariate(0, 0.05) for _ in range(n)]
        b = [round(rng.lognormvariate(0.01, 0.05), 3) for _ in range(m)]  # ties in NEW
        for alpha in (0.01, 0.05):
            assert compare_stats.ratio_interval(a, b, alpha) == _ratio_interval_by_sorting(a, b, alpha)


def test_the_smallest_p_of_many_repetitions_is_the_exact_one():
    """min_p skips the exact binomial where 2 / C(n+m, n) is 0 in a double: the same number."""
    for n, m in [(k, k) for k in range(500, 620, 3)] + [(1, 5000), (3, 900), (40, 400), (2000, 2000)]:
        assert compare_stats.min_p(n, m) == min(1.0, 2 / math.comb(n + m, n)), (n, m)
    assert compare_stats.min_p(540, 540) > 0 == compare_stats.min_p(541, 541)  # the underflow is crossed
    start = time.perf_counter()
    assert compare_stats.min_p(10 ** 5, 10 ** 5) == 0.0
    assert time.perf_counter() - start < 0.05


def test_ten_thousand_repetitions_a_side_stay_small_and_quick():
    """All n*m log-ratios of 10^4 against 10^4 repetitions were 10^8 floats, 3.9 GB; the
    selection keeps O(n + m) and each pass is O(n + m)."""
    rng = random.Random(4)
    a = [rng.lognormvariate(0, 0.05) for _ in range(10_000)]
    b = [rng.lognormvariate(0.02, 0.05) for _ in range(10_000)]
    start = time.perf_counter()
    tracemalloc.start()
    try:
        row = compare_stats.compare_samples(a, b, 0.01, 0.05)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2 ** 20, peak
    assert time.perf_counter() - start < 30  # about 1 s under tracemalloc on a shared core
    assert row["verdict"] == "same" and row["significant"] and row["ci"][0] > 1
    ties = [1.0] * 10_000  # every log-ratio 0: the worst case for a bisection on values
    start = time.perf_counter()
    assert compare_stats.ratio_interval(ties, ties, 0.01) == (1.0, 1.0)
    assert time.perf_counter() - start < 5


# ---------------------------------------------------------------- a person's kernel file
def _file_kernel_run(tmp_path, name, sha, seed):
    """A run of a kernel file's records (py-pure-threads at 1 and 2 threads), its file's hash sha."""
    rng = random.Random(seed)
    doc = copy.deepcopy(BASE_DOC)
    doc["records"] = []
    for i, t in enumerate((1, 2)):
        r = rec(i, "py-pure-threads", t, noisy(rng, 2.0 / t), kind="python")
        r.update(kernel="…/k.py", family="own", kernel_file=f"../{name}/k.py", kernel_sha256=sha)
        doc["records"].append(r)
    (tmp_path / name).mkdir()
    return write_doc(tmp_path / name, doc)


@pytest.mark.parametrize("edited", [True, False])
def test_a_kernel_file_pairs_by_its_name_and_an_edit_is_said(tmp_path, edited):
    """Two runs of `…/k.py` from different directories pair by the kernel's name; where the file's
    sha256 differs, compare still compares them, each row holds both hashes, and one note says the
    file changed (a change may be the file's, not the machine's); where it is the same file, no note."""
    base = _file_kernel_run(tmp_path, "a", "1" * 64, 1)
    new = _file_kernel_run(tmp_path, "b", ("2" if edited else "1") * 64, 2)
    out = json_of(run_compare(base, new, "--json"))
    assert out["summary"]["compared"] == 2 and not out["only_base"] and not out["only_new"]
    notes = [n for n in out["notes"] if "its file differs" in n]
    rows = [r for r in out["records"] if "kernel_sha256" in r]
    if edited:
        assert len(notes) == 1 and "…/k.py" in notes[0] and "111111111111… in BASE" in notes[0] and "2 record(s)" in notes[0]
        assert len(rows) == 2 and rows[0]["kernel_sha256"] == {"base": "1" * 64, "new": "2" * 64}
        text = run_compare(base, new)
        assert text.returncode == 0 and "its file differs between the runs" in text.stdout
    else:
        assert notes == [] and rows == []
