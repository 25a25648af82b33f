#!/usr/bin/env python3
"""Compare two parlab runs: two commits on one machine, or one suite on two machines.

    python3 analysis/compare.py BASE NEW [--threshold PCT] [--alpha A] [--json] [--html DIR]
                                            [--fail-if-slower PCT]          # or: parlab compare BASE NEW ...

BASE and NEW are run directories or their results.json (BASE may be a committed reference run
under results/), or folders of runs (the --out of `parlab run`: the newest run in it, said on
stderr; records.resolve_run). Everything printed or drawn comes from those two files only.

Matching. Records pair up on every dimension they carry (DIMENSIONS below: study, scaling,
kernel, backend, threads, ranks, size, size_y, precision, device, the interpreter and its GIL
state, and "gpus", the GPU count a multi-GPU record split over, from metrics.devices). Two
rules make runs of different machines and versions line up:
  - A Python record from before the interpreter fields (or any record of the run's own
    interpreter) is of the run's own CPython, which context.python names: it is matched as
    "the run's own interpreter" with its build (gil / free-threaded) and GIL state, so
    CPython 3.11 on one machine meets CPython 3.12 on the other (the context difference says
    so), while a 3.13t child interpreter meets only a 3.13t child.
  - hosts and ranks_per_node are not dimensions (they say where ranks ran, not what ran).
  - A person's kernel file pairs by its name (the path as given, "…/file.py[:name]" for an
    absolute one); where the two records' kernel_sha256 differ, the file was edited between the
    runs: the pair is compared, its row carries both hashes, and a note says a change may be the
    file's.
A record found on one side only is listed ("only in BASE/NEW", grouped over threads). Both sides
"unavailable": listed as not measured. Any other status than "ok" on either side (a failed
validation, an error, a backend unavailable on one side): a row of its own, never compared.

Statistics (compare_stats.py, no SciPy). For a pair, the repetition times reps_s of each side give:
  - ratio = median(NEW) / median(BASE) of the time (above 1: NEW is slower), and NEW/BASE of the
    record's rate where it has one;
  - each side's share of its own machine's roof, where the run measured roofs (the record's
    limit: "0.82 of cpu_bw_triad_all"), and share_ratio = NEW share / BASE share: between two
    machines the comparable quantity, since each is against its own machine's measured roof;
  - p: two-sided Mann-Whitney U test of the two sets of repetition times; exact distribution
    (no ties, n*m <= 2500), else the normal approximation with tie and continuity correction
    (the figures scipy.stats.mannwhitneyu gives);
  - a (1 - alpha) confidence interval of the time ratio: the Hodges-Lehmann/Moses interval
    inverted from the same U distribution, on log times (the k-th smallest and largest of the
    n*m pairwise ratios NEW_j/BASE_i). It excludes 1 exactly when the test rejects (without
    ties), so the bars and the verdicts agree; it is deterministic (no bootstrap, no seed).
Verdict: "slower" when p < alpha, the interval lies above 1, the U statistic says NEW is slower,
and ratio > 1 + threshold; "faster" likewise with the interval below 1 and ratio < 1 - threshold;
"undecided" where the test cannot judge at all: too few repetitions for p to reach alpha, or too
few distinct ones (repeated values are ties, not evidence; compare_stats.compare_samples); else
"same" (the test could judge, and found no difference beyond the noise). An undecided record is
never "same", whatever its ratio (a x0.098 change of 3 repetitions against 3 is undecided), and
says how many repetitions per side would decide it: the number at which the U test, at the
effect size the record shows (the share of pairs in which NEW is slower, U / (n m)), would reach
alpha (compare_stats.reps_to_decide, which states the method); about even odds of a verdict there.
Defaults: alpha = 0.01, threshold = 5%. alpha 0.01 because a comparison tests hundreds of
records at once and a CI gate must not cry wolf: two samples of one distribution give a
verdict in under 1% of comparisons (tested over 1000 trials). The 5% floor because repetitions
within one run do not see run-to-run noise (another VM instance, another boot, thermal state):
a difference smaller than that is rarely the code. The smallest p the U test can give for n and m
repetitions is 2 / C(n+m, n): 0.1 for 3 against 3, 0.029 for 4 against 4, 0.0079 for 5 against 5
(the suites' default). Where it is not below alpha the record is "undecided", with the warning
"too few repetitions to tell" (as google/benchmark's compare.py warns). With 5 against 5 a verdict
needs every NEW repetition beyond every BASE one.
Unstable: a record may carry `unstable`, why its repetitions cannot be quoted by their median
alone (its CV over 10%, or its rounds disagree: analysis/spread.py; the loader marks older runs'
records the same way). A pair whose either side is unstable keeps its verdict and is marked, with
the advice to measure again with more --reps or --rounds.

Scaling shape. For every strong or weak scaling series (a backend over threads, or over ranks at
fixed threads per rank, or a multi-GPU backend over GPUs against the one-GPU "cuda" record of
the same study, kernel, size and precision, as strong scaling) each side's speedup and parallel
efficiency are taken over its own one-worker time (not over serial, as plot.py does). Strong:
speedup S(p) = T(1)/T(p), efficiency S(p)/p; weak (size grows with the workers): efficiency
T(1)/T(p), scaled speedup p T(1)/T(p). Efficiencies are compared at the worker counts both sides
measured (or, where they share none above 1, at each side's widest point): "same scaling" when
NEW's efficiency is within --shape-threshold (default 10%) of BASE's, or when the difference
is within the noise (the conservative interval made of the two time-ratio intervals at p and
at 1 contains 1); else "scales better" / "scales worse" (both across points: "mixed");
"undecided" where a difference beyond the threshold meets too few repetitions for any interval.
A machine that is slower by a constant factor at every thread count scales the same.

Output: a terminal table (compare_text.py: colour on a TTY unless NO_COLOR or --color never; rows
sorted by the largest change, |log ratio|, failures first; every line within $COLUMNS, else the
terminal's width, else 100, with times in auto-scaled units and a word for a roof's absence, long
texts wrapped; --verbose adds each record's full texts), or --json (every figure and every full
text, on stdout), and --html DIR (report.html with figures, plus compare.json; compare_report.py
draws both; DIR must not be a run directory, whose report.html is plot.py's).
Exit codes: 0 done, nothing slower beyond the gate; 1 --fail-if-slower PCT and some matched
record significantly slower (p < alpha, the interval above 1) by more than PCT, whatever
--threshold, and nothing else; 5 --fail-if-slower PCT judged nothing: no compared record had the
repetitions (or distinct ones) for the test to judge it, or none was compared (one line on stderr
says so, with the repetitions per side that would decide: parlab run -r N); where some records
are judged and some not, the gate decides on those judged (0 or 1) and says how many it could
not judge; 2 bad input, naming the argument, path or record: a missing path,
a path that is not a regular file, a file that is not a parlab result, a context that is not an
object, a non-finite or non-positive time, time_s.median not the median of reps_s, two runs with
no record in common, an --html DIR that cannot hold the report (nothing is left there then);
130 interrupted; 3 internal error (a bug: one line, please report it).
"""
from __future__ import annotations

import argparse
import difflib
import math
import os
import shutil
import stat
import sys
import tempfile
import textwrap
from collections import defaultdict

if __package__ in (None, ""):  # run as a script (parlab compare): the package is in the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analysis import compare_report, compare_text  # noqa: E402
from analysis.exit_codes import NOTHING_JUDGED, run_command, say  # noqa: E402
from analysis.compare_stats import compare_samples, median, ratio_interval, reps_needed  # noqa: E402
from analysis.labels import fmt_size  # noqa: E402
from analysis.read import InputError  # noqa: E402
from analysis.records import load_run, rate_of, resolve_run  # noqa: E402
from analysis.compare_context import context_differences, context_in_words, own_interpreter  # noqa: E402
from analysis.writer import json_text  # noqa: E402
from analysis.roofs import roof_share, share_text  # noqa: E402

SCHEMA = "parlab-compare/1"
DIMENSIONS = ("study", "scaling", "kernel", "backend", "threads", "ranks", "size", "size_y", "precision", "device",
              "gpus", "interpreter", "python_build", "gil_enabled", "python_gil")
OWN = "(run's own)"
DEFAULTS = {"alpha": 0.01, "threshold": 0.05, "shape_threshold": 0.10}

# ---------------------------------------------------------------- loading and matching
# time_s.median must be the median of reps_s to this relative tolerance: the runner computes one
# from the other in double precision and writes both with 17 significant digits, and pooled
# rounds are recomputed on loading, so any real disagreement is a record edited by hand or cut
# short, whose two halves cannot both be compared.
MEDIAN_RTOL = 1e-9


def _positive_finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def load(path: str) -> dict:
    """A run, refused (InputError, exit 2) where it cannot be compared: a path that is not a
    regular file (a FIFO or a device would block the read; checked with stat before opening), a
    context that is not an object, an ok record whose repetition times are not all finite and
    positive, or whose time_s.median is not the median of its reps_s (MEDIAN_RTOL)."""
    path = resolve_run(path)
    try:
        st = os.stat(path)
        file = path
        if stat.S_ISDIR(st.st_mode):
            file = os.path.join(path, "results.json")
            st = os.stat(file)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file or directory") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{file}: not a regular file (a results.json or a run directory holding one)")
    try:
        doc = load_run(file)
    except (UnicodeDecodeError, OSError) as e:
        raise InputError(f"{file}: not a parlab results.json ({e})") from None
    if not isinstance(doc["context"], dict):
        raise InputError(f"{doc['_path']}: 'context' must be an object, not {type(doc['context']).__name__}")
    for i, r in enumerate(doc["records"]):
        if r["status"] != "ok":
            continue
        what = f"{doc['_path']}: record {i} ({r['kernel']} {r['backend']} t={r['threads']})"
        reps = r.get("reps_s")
        if not (isinstance(reps, list) and reps and all(_positive_finite(x) for x in reps)):
            raise InputError(f"{what}: reps_s must be a non-empty list of finite positive times")
        t = r.get("time_s")
        if not (isinstance(t, dict) and _positive_finite(t.get("median"))):
            raise InputError(f"{what}: time_s.median must be a finite positive time")
        m = median(reps)
        if abs(t["median"] - m) > MEDIAN_RTOL * m:
            raise InputError(f"{what}: time_s.median {t['median']!r} is not the median of its reps_s ({m!r}, "
                             f"relative tolerance {MEDIAN_RTOL:g})")
    return doc


def dims_of(r: dict, own) -> dict:
    """The record's matching dimensions (module docstring, "Matching")."""
    r = dict(r)
    if isinstance(r.get("metrics"), dict) and "devices" in r["metrics"]:
        r["gpus"] = int(r["metrics"]["devices"])
    if own and r.get("kind") == "python" and "interpreter" not in r:
        r.update(own)
    if own and r.get("interpreter") == own["interpreter"]:
        r["interpreter"] = OWN
    return {d: r[d] for d in DIMENSIONS if d in r and r[d] is not None}


def key_of(dims: dict) -> tuple:
    return tuple((d, dims[d]) for d in DIMENSIONS if d in dims)


def interpreter_tag(dims: dict) -> str:
    """" [3.13.5 free-threaded, no GIL]" for a Python record of another interpreter than the run's
    own, " [no GIL]" for the run's own without its GIL, else ""."""
    if dims.get("interpreter") not in (None, OWN):
        return f" [{dims['interpreter']}, {'GIL' if dims.get('gil_enabled', True) else 'no GIL'}]"
    return " [no GIL]" if dims.get("gil_enabled") is False else ""


def label(dims: dict) -> str:
    """"strong pi pool t=4 2^28 int32", with the interpreter where interpreter_tag names one."""
    parts = [str(dims.get("study", "")), dims["kernel"], dims["backend"]]
    if "ranks" in dims:
        parts.append(f"r={dims['ranks']}")
    parts.append(f"t={dims['threads']}")
    if "gpus" in dims:
        parts.append(f"gpus={dims['gpus']}")
    parts.append(fmt_size(dims["size"]) + (f"x{dims['size_y']}" if dims.get("size_y") else ""))
    parts.append(str(dims.get("precision", "")))
    return " ".join(p for p in parts if p) + interpreter_tag(dims)


def side(r: dict) -> dict:
    """One side of a pair as the JSON gives it."""
    out = {"status": r["status"], "id": r.get("id"), "interpreter": r.get("interpreter")}
    if r["status"] == "ok" and r.get("unstable"):
        out["unstable"] = str(r["unstable"])  # why its median cannot be quoted alone (analysis/spread.py)
    if r["status"] == "ok":
        rate, unit = rate_of(r)
        out.update({"median_s": r["time_s"]["median"], "reps": len(r["reps_s"]), "reps_s": r["reps_s"],
                    "rate": rate, "rate_unit": unit})
        # Its share of its own machine's roof (the record's limit), where the run measured roofs:
        # between machines, the comparable quantity.
        lim = roof_share(r)
        if lim:
            out["limit"] = {k: lim.get(k) for k in ("roof", "value", "unit", "attained", "fraction")}
        if share_text(r):
            out["share"] = share_text(r)
    detail = (r.get("validation") or {}).get("detail") or r.get("reason")
    if detail:
        out["detail"] = detail
    return out


def match(base: dict, new: dict) -> tuple[list, list, list, list]:
    """(pairs [(dims, base record, new record)], only in BASE, only in NEW, notes)."""
    notes = []
    sides = []
    for doc in (base, new):
        own = own_interpreter(doc["context"])
        by = defaultdict(list)
        for r in doc["records"]:
            d = dims_of(r, own)
            by[key_of(d)].append((d, r))
        dup = sum(len(v) - 1 for v in by.values() if len(v) > 1)
        if dup:
            notes.append(f"{doc['_path']}: {dup} record(s) repeat another's dimensions; paired in order")
        sides.append(by)
    pairs, only_base, only_new = [], [], []
    for k in list(sides[0]) + [k for k in sides[1] if k not in sides[0]]:
        a, b = sides[0].get(k, []), sides[1].get(k, [])
        for i in range(max(len(a), len(b))):
            if i < len(a) and i < len(b):
                pairs.append((a[i][0], a[i][1], b[i][1]))
            elif i < len(a):
                only_base.append(a[i])
            else:
                only_new.append(b[i])
    return pairs, only_base, only_new, notes + edited_kernel_notes(pairs)


def kernel_files(rb: dict, rn: dict):
    """(BASE's, NEW's) sha256 of a pair's kernel file where both records name one and the two
    differ (a person's kernel file edited between the runs), else None."""
    a, b = rb.get("kernel_sha256"), rn.get("kernel_sha256")
    return (a, b) if isinstance(a, str) and isinstance(b, str) and a != b else None


def edited_kernel_notes(pairs: list) -> list:
    """One note per kernel whose file differs between the two runs (records pair on the kernel's
    name; its hash says whether it is the same file): what changed may be the kernel, not the
    machine."""
    edited: dict = {}
    for dims, rb, rn in pairs:
        hashes = kernel_files(rb, rn)
        if hashes:
            edited.setdefault((dims["kernel"], hashes), []).append(dims)
    return [f"kernel {kernel}: its file differs between the runs (sha256 {a[:12]}… in BASE, {b[:12]}… in NEW; "
            f"{len(ds)} record(s) paired by its name): a change there may be the file's, not the machine's"
            for (kernel, (a, b)), ds in edited.items()]


# ---------------------------------------------------------------- scaling shape
def scaling_groups(doc: dict) -> dict:
    """{(study, scaling, kernel, base size, precision, line label, axis): {workers: record}} for
    every series with a one-worker record and at least one wider point (module docstring)."""
    own = own_interpreter(doc["context"])
    ok = [r for r in doc["records"] if r["status"] == "ok"]
    one_gpu = {(r.get("study"), r["kernel"], r["size"], r.get("precision")): r for r in ok if r["backend"] == "cuda"}
    groups = defaultdict(dict)
    for r in ok:
        d = dims_of(r, own)
        # A multi-GPU record splits the one-GPU record's work over its GPUs: strong scaling.
        scaling = r.get("scaling") if r.get("scaling") == "weak" or "gpus" not in d else "strong"
        if scaling not in ("strong", "weak"):
            continue
        if "gpus" in d:
            axis, workers, line = "GPUs", d["gpus"], r["backend"]
        elif "ranks" in d:
            axis, workers, line = "ranks", d["ranks"], f"{r['backend']} x{r['threads']}t"
        else:
            axis, workers, line = "threads", r["threads"], r["backend"]
        per = (r["threads"] * d.get("ranks", 1) * d.get("gpus", 1)) if scaling == "weak" else 1
        key = (r.get("study", ""), scaling, r["kernel"], r["size"] // per, r.get("precision", ""),
               line + interpreter_tag(d), axis)
        groups[key][workers] = r
        if axis == "GPUs":
            ref = one_gpu.get((r.get("study"), r["kernel"], r["size"], r.get("precision")))
            if ref is not None:
                groups[key].setdefault(1, ref)
    return {k: v for k, v in groups.items() if 1 in v and len(v) >= 2}


def speedup_reference(axis: str, line: str) -> str:
    """What a series' speedups are over, in the words of the results table (table.speedup_base:
    "over serial", else "over 1 thread" of the same backend): here always the series' own one
    worker, "over 1 thread", "over 1 rank" (of as many threads per rank as the line's) or "over
    1 GPU", so that every speedup compare prints names its reference."""
    if axis == "ranks":
        per = line.split(" x", 1)[1].split("t", 1)[0] if " x" in line else ""
        return "over 1 rank" + (f" of {per} threads" if per and per != "1" else "")
    return {"GPUs": "over 1 GPU"}.get(axis, "over 1 thread")


def _efficiency(series: dict, scaling: str) -> dict:
    t1 = series[1]["time_s"]["median"]
    out = {}
    for p, r in sorted(series.items()):
        e = t1 / r["time_s"]["median"] / (p if scaling == "strong" else 1)
        out[p] = {"workers": p, "median_s": r["time_s"]["median"], "speedup": e * p, "efficiency": e}
    return out


def scaling_shapes(base: dict, new: dict, alpha: float, shape_threshold: float) -> list[dict]:
    sb, sn = scaling_groups(base), scaling_groups(new)
    out = []
    for key in sorted(set(sb) & set(sn), key=str):
        study, scaling, kernel, size, precision, line, axis = key
        eb, en = _efficiency(sb[key], scaling), _efficiency(sn[key], scaling)
        common = sorted(p for p in set(eb) & set(en) if p > 1)
        at = [(p, p) for p in common] or [(max(eb), max(en))]
        r1 = ratio_interval(sb[key][1]["reps_s"], sn[key][1]["reps_s"], alpha)
        points = []
        for pb, pn in at:
            ratio = en[pn]["efficiency"] / eb[pb]["efficiency"]
            rp = ratio_interval(sb[key][pb]["reps_s"], sn[key][pn]["reps_s"], alpha)
            scale = pb / pn if scaling == "strong" else 1.0
            ci = [scale * r1[0] / rp[1], scale * r1[1] / rp[0]] if r1 and rp else None
            verdict = "same"
            if ratio > 1 + shape_threshold and ci and ci[0] > 1:
                verdict = "better"
            elif ratio < 1 - shape_threshold and ci and ci[1] < 1:
                verdict = "worse"
            points.append({"base_workers": pb, "new_workers": pn, "base_efficiency": eb[pb]["efficiency"],
                           "new_efficiency": en[pn]["efficiency"], "efficiency_ratio": ratio, "ci": ci,
                           "verdict": "undecided" if ci is None and abs(ratio - 1) > shape_threshold else verdict})
        kinds = {p["verdict"] for p in points} - {"same", "undecided"}
        verdict = "same scaling" if not kinds else ("mixed" if len(kinds) > 1 else f"scales {kinds.pop()}")
        if verdict == "same scaling" and any(p["verdict"] == "undecided" for p in points):
            verdict = "undecided"  # beyond the threshold, but too few repetitions for an interval
        out.append({"study": study, "scaling": scaling, "kernel": kernel, "size": size, "precision": precision,
                    "line": line, "axis": axis, "reference": speedup_reference(axis, line),
                    "verdict": verdict, "common": bool(common),
                    "base": list(eb.values()), "new": list(en.values()), "points": points})
    return out


# ---------------------------------------------------------------- the comparison
def run_info(doc: dict) -> dict:
    ctx = doc["context"]
    return {"path": doc["_path"], "suite": doc.get("suite"), "status": doc.get("status"), "host": ctx.get("host"),
            "started_utc": ctx.get("started_utc"), "git_commit": ctx.get("build", {}).get("git_commit"),
            "records": len(doc["records"])}


def compare(base: dict, new: dict, alpha=DEFAULTS["alpha"], threshold=DEFAULTS["threshold"],
            shape_threshold=DEFAULTS["shape_threshold"], fail_if_slower=None) -> dict:
    """The whole comparison as data (what --json prints)."""
    pairs, only_base, only_new, notes = match(base, new)
    rows = []
    for dims, rb, rn in pairs:
        row = {"label": label(dims), "dims": dims, "base": side(rb), "new": side(rn)}
        if hashes := kernel_files(rb, rn):
            row["kernel_sha256"] = {"base": hashes[0], "new": hashes[1]}
        if rb["status"] == "ok" and rn["status"] == "ok":
            row["kind"] = "compared"
            row.update(compare_samples(rb["reps_s"], rn["reps_s"], alpha, threshold))
            vb, vn = row["base"]["rate"], row["new"]["rate"]
            row["rate_ratio"] = vn / vb if vb and vn and row["base"]["rate_unit"] == row["new"]["rate_unit"] else None
            lb, ln = row["base"].get("limit"), row["new"].get("limit")
            # NEW's share over BASE's: above 1, NEW gets more of its machine's roof than BASE of its.
            row["share_ratio"] = ln["fraction"] / lb["fraction"] if lb and ln and lb["fraction"] > 0 else None
            row["gate"] = (fail_if_slower is not None and row["significant"] and row["direction"] > 0
                           and row["change_pct"] > fail_if_slower)
            row["unstable"] = [w for w in ("base", "new") if row[w].get("unstable")]
        elif rb["status"] == "unavailable" and rn["status"] == "unavailable":
            row["kind"] = "not-measured"
        elif "unavailable" in (rb["status"], rn["status"]) and "ok" in (rb["status"], rn["status"]):
            row["kind"] = "one-side-unavailable"
        else:
            row["kind"] = "failed"
        rows.append(row)
    # Failures first, then the compared records by the largest change either way, then the rest.
    order = {"failed": 0, "compared": 1, "one-side-unavailable": 2, "not-measured": 3}
    rows.sort(key=lambda r: (order[r["kind"]], -abs(math.log(r["time_ratio"])) if r["kind"] == "compared" else 0))
    compared = [r for r in rows if r["kind"] == "compared"]
    count = lambda kind, v=None: sum(1 for r in rows if r["kind"] == kind and (v is None or r.get("verdict") == v))  # noqa: E731
    slow = max(compared, key=lambda r: r["time_ratio"], default=None)
    fast = min(compared, key=lambda r: r["time_ratio"], default=None)
    summary = {"matched": len(rows), "compared": len(compared), "faster": count("compared", "faster"),
               "slower": count("compared", "slower"), "same": count("compared", "same"),
               "undecided": count("compared", "undecided"),
               "unstable": sum(1 for r in compared if r["unstable"]),
               "too_few_reps": sum(1 for r in compared if r["too_few_reps"]),
               "failed": count("failed"), "one_side_unavailable": count("one-side-unavailable"),
               "not_measured": count("not-measured"), "only_base": len(only_base), "only_new": len(only_new),
               "with_shares": sum(1 for r in compared if r.get("share_ratio") is not None),
               "largest_slowdown": _brief(slow) if slow and slow["time_ratio"] > 1 else None,
               "largest_speedup": _brief(fast) if fast and fast["time_ratio"] < 1 else None}
    gate = None if fail_if_slower is None else gate_of(rows, compared, fail_if_slower, alpha)
    return {"schema": SCHEMA, "base": run_info(base), "new": run_info(new),
            "settings": {"alpha": alpha, "threshold_pct": threshold * 100, "shape_threshold_pct": shape_threshold * 100,
                         "test": "two-sided Mann-Whitney U on repetition times",
                         "interval": f"{(1 - alpha) * 100:g}% Moses interval of the time ratio"},
            "context_differences": context_differences(base["context"], new["context"]),
            "context_in_words": context_in_words(base["context"], new["context"]),
            "summary": summary, "gate": gate, "notes": notes, "records": rows,
            "only_base": [{"label": label(d), "dims": d, "status": r["status"]} for d, r in only_base],
            "only_new": [{"label": label(d), "dims": d, "status": r["status"]} for d, r in only_new],
            "only_base_series": group_unmatched(only_base), "only_new_series": group_unmatched(only_new),
            "scaling": scaling_shapes(base, new, alpha, shape_threshold)}


def gate_of(rows: list, compared: list, fail_if_slower: float, alpha: float) -> dict:
    """What --fail-if-slower decides. It judges the compared records the U test can judge; one
    with too few repetitions (or distinct ones) to tell is counted, not judged, and never passes
    as "not slower". Where nothing at all could be judged the gate neither fails nor passes:
    `nothing_judged`, exit NOTHING_JUDGED, with the repetitions per side that would decide the
    records short of repetitions (`reps_to_decide`: the most any of them needs at the effect it
    shows, at least the fewest with which the test can reach alpha). A record with repetitions
    enough but too few distinct times (`too_few_distinct`) is not decided by more of the same."""
    tripped = [r["label"] for r in compared if r["gate"]]
    unjudged = [r for r in compared if r["too_few_reps"]]
    short = [r for r in unjudged if r["min_p"] >= alpha]
    need = None
    if short:
        need = max([reps_needed(alpha)] + [r["reps_to_decide"] for r in short if r.get("reps_to_decide")])
    return {"fail_if_slower_pct": fail_if_slower, "failed": bool(tripped), "records": tripped,
            "judged": len(compared) - len(unjudged), "could_not_judge": len(unjudged),
            "nothing_judged": len(unjudged) == len(compared), "not_compared": len(rows) - len(compared),
            "reps_to_decide": need, "no_order": sum(1 for r in short if not r.get("reps_to_decide")),
            "too_few_distinct": len(unjudged) - len(short)}


def _brief(r: dict) -> dict:
    return {k: r[k] for k in ("label", "time_ratio", "change_pct", "verdict", "p_value", "significant", "too_few_reps",
                              "reps_to_decide")}


def group_unmatched(items: list) -> list[str]:
    """One line per series: "strong pi pool 2^28 int32: t=3-16" (threads, ranks and GPUs collapsed;
    a weak series by its size per worker)."""
    groups = defaultdict(list)
    for dims, r in items:
        d = dict(dims)
        workers = (d.pop("ranks", None), d.pop("gpus", None), d.pop("threads"))
        weak = d.get("scaling") == "weak"
        if weak:
            d["size"] //= workers[2] * (workers[0] or 1) * (workers[1] or 1)
        d["threads"] = 0
        name = label(d).replace(" t=0", "") + (" per worker" if weak else "")
        groups[(name, r["status"])].append(workers)
    out = []
    for (name, status), ws in sorted(groups.items()):
        if all(w[:2] == (None, None) for w in ws):
            desc = _ranges(sorted(w[2] for w in ws), "t=")
        else:
            desc = ", ".join(("" if r is None else f"r={r} ") + ("" if g is None else f"gpus={g} ") + f"t={t}"
                             for r, g, t in sorted(ws, key=lambda w: (w[0] or 0, w[1] or 0, w[2])))
        out.append(f"{name}: {desc}" + ("" if status == "ok" else f" ({status})"))
    return out


def _ranges(xs: list, prefix: str) -> str:
    parts, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        parts.append(f"{xs[i]}" if i == j else f"{xs[i]}-{xs[j]}" if j > i + 1 else f"{xs[i]},{xs[j]}")
        i = j + 1
    return prefix + ",".join(parts)


# ---------------------------------------------------------------- command line
def _pct(text: str) -> float:
    try:
        v = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a percentage >= 0: {text!r}")
    return v


def _alpha(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 1: {text!r}")
    return v


def unknown_option(ap: argparse.ArgumentParser, words: list) -> str | None:
    """The message for the first word of `words` that looks like an option `ap` does not have
    (argparse would call it an unrecognized argument), with the nearest option's name where one
    is near: "unknown option '--fail-if-slowr'; did you mean '--fail-if-slower'?", worded as
    parlab's own command line words it (experiments/plan/suggest.cpp). None where every option is
    known; a unique abbreviation argparse accepts, an ambiguous one (argparse names the
    candidates) and a negative number (a value) are not unknown."""
    names = sorted(ap._option_string_actions)
    for word in words:
        if word == "--":
            break
        name = word.split("=", 1)[0]
        if (not name.startswith("-") or name == "-" or name in names or ap._negative_number_matcher.match(name)
                or (name.startswith("--") and any(n.startswith(name) for n in names))):
            continue
        close = difflib.get_close_matches(name, names, n=1)
        return f"unknown option '{name}'" + (f"; did you mean '{close[0]}'?" if close else "")
    return None


class _Parser(argparse.ArgumentParser):
    """argparse, except that an unknown option is named with the nearest known one (as `parlab run`
    names it) instead of the generic "unrecognized arguments"; exit 2 as before."""

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message):
        unknown = unknown_option(self, getattr(self, "_words", []))
        if unknown:
            say(f"{self.prog}: {unknown} (`{self.prog} --help` lists them)")
            self.exit(2)
        super().error(message)


def parser() -> argparse.ArgumentParser:
    epilog = ("Verdict: 'slower'/'faster' needs a two-sided Mann-Whitney U p < --alpha on the repetition "
              "times, a (1 - alpha) interval of the ratio without 1, and a change of the median time beyond "
              "--threshold; 'undecided' where the test cannot judge: too few repetitions (or distinct ones) "
              "for p to reach --alpha (3 against 3: p >= 0.1; the default alpha needs "
              f"{reps_needed(DEFAULTS['alpha'])} per side), whatever the ratio, with the repetitions per side "
              "that would decide at the effect seen; else 'same' (no difference beyond the noise). A record "
              "unstable on either side (CV over 10%, or rounds that disagree) is marked '!': measure it again "
              "with more --reps or --rounds.",
              "Scaling shape: speedup and efficiency over each run's own one-thread (one-rank, one-GPU) time, "
              "compared at the worker counts both measured.",
              "Exit codes: 0 compared, nothing slower beyond the gate; 1 --fail-if-slower tripped (and only "
              "then); 5 --fail-if-slower judged nothing (every record too few repetitions to judge, or none "
              "compared: stderr names the repetitions per side that would decide, parlab run -r N; a gate "
              "that judged some records decides on those and says how many it could not judge); 2 bad input, "
              "naming the argument, path or record (a missing path or one that is not a "
              "regular file, a file that is not a parlab result, a non-finite time, time_s not the median of "
              "reps_s, a context that is not an object, no record in common, an --html DIR that cannot hold "
              "the report: nothing is written then); 130 interrupted; 3 internal error (please report).")
    ap = _Parser(
        prog="parlab compare", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill("Compare two parlab runs (two commits, or two machines): per record NEW/BASE "
                                  "median time with an interval, a U-test p-value and a verdict; context "
                                  "differences; scaling shapes.", 79),
        epilog="\n\n".join(textwrap.fill(x, 79) for x in epilog))
    ap.add_argument("base", metavar="BASE", help="run directory or results.json (e.g. a committed reference run)")
    ap.add_argument("new", metavar="NEW", help="run directory or results.json")
    ap.add_argument("--threshold", type=_pct, default=DEFAULTS["threshold"] * 100, metavar="PCT",
                    help="smallest change of the median time that counts (default: %(default)g%%)")
    ap.add_argument("--alpha", type=_alpha, default=DEFAULTS["alpha"],
                    help="significance level of the two-sided U test; the intervals are 1 - alpha (default: %(default)g)")
    ap.add_argument("--shape-threshold", type=_pct, default=DEFAULTS["shape_threshold"] * 100, metavar="PCT",
                    help="smallest relative change of parallel efficiency that makes a scaling shape differ "
                         "(default: %(default)g%%)")
    ap.add_argument("--fail-if-slower", type=_pct, metavar="PCT",
                    help="exit 1 when a matched record is significantly slower (p < alpha) by more than PCT, "
                         "whatever --threshold (failed validations are parlab run's own exit code); exit 5 "
                         "when no record could be judged (too few repetitions)")
    ap.add_argument("--json", action="store_true", help="print every figure as JSON on stdout instead of the table")
    ap.add_argument("--html", metavar="DIR", help="also write DIR/report.html (figures embedded), DIR/plots/ and "
                                                  "DIR/compare.json")
    ap.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                    help="colour the table: auto = on a terminal unless NO_COLOR is set (default: auto)")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="under each record of the table its full texts: p and rate ratio, repetitions, both "
                         "shares of roof with the roofs' names or why there is none, why a side is unstable, "
                         "and the warning of an undecided record (--json and --html always have them)")
    return ap


def write_html(res: dict, out_dir: str) -> str:
    """DIR/report.html, DIR/plots/ and DIR/compare.json, all or nothing: everything is drawn into a
    staging directory inside DIR first, then renamed into place, so a failure (a full disk, a
    figure that cannot be drawn, report.html being a directory) leaves DIR as it was, without
    plots/change.png, compare.json or report.html.tmp. A directory created here is removed again
    on failure. Raises InputError for an out_dir that cannot hold the report."""
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(f"--html {out_dir}: exists and is not a directory")
    if os.path.exists(os.path.join(out_dir, "results.json")):
        raise InputError(f"--html {out_dir} holds a parlab run, whose report.html is plot.py's: name another directory")
    for name in ("report.html", "compare.json"):
        target = os.path.join(out_dir, name)
        if os.path.lexists(target) and not os.path.isfile(target):
            raise InputError(f"--html {out_dir}: {target} exists and is not a regular file")
    created = not os.path.exists(out_dir)
    try:
        os.makedirs(out_dir, exist_ok=True)
        stage = tempfile.mkdtemp(prefix=".compare-", dir=out_dir)
    except OSError as e:
        raise InputError(f"--html {out_dir}: cannot write there ({e.strerror})") from None
    try:
        compare_report.write(res, stage)
        staged = [os.path.join("plots", f) for f in sorted(os.listdir(os.path.join(stage, "plots")))]
        for rel in staged:
            target = os.path.join(out_dir, rel)
            if os.path.lexists(target) and not os.path.isfile(target):
                raise InputError(f"--html {out_dir}: {target} exists and is not a regular file")
        os.makedirs(os.path.join(out_dir, "plots"), exist_ok=True)
        # The report last: a report.html in place always has its figures and compare.json beside it.
        for rel in staged + ["compare.json", "report.html"]:
            os.replace(os.path.join(stage, rel), os.path.join(out_dir, rel))
    except BaseException as e:  # any failure, an interrupt included: leave DIR as it was
        shutil.rmtree(stage, ignore_errors=True)
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        if isinstance(e, OSError):
            raise InputError(f"--html {out_dir}: cannot write the report ({e.strerror}: {e.filename})") from None
        raise
    shutil.rmtree(stage, ignore_errors=True)
    return os.path.join(out_dir, "report.html")


def run(args) -> int:
    base, new = load(args.base), load(args.new)
    res = compare(base, new, alpha=args.alpha, threshold=args.threshold / 100,
                  shape_threshold=args.shape_threshold / 100, fail_if_slower=args.fail_if_slower)
    if not res["records"]:
        raise InputError(f"{base['_path']} and {new['_path']} have no record in common (no study, kernel, "
                         f"backend, threads, size and precision measured in both)")
    if args.html:
        path = write_html(res, args.html)
        say(f"parlab compare: report {path}")
    try:
        if args.json:
            sys.stdout.write(json_text(res))  # strict JSON: no NaN or Infinity
        else:
            color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty()
                                               and not os.environ.get("NO_COLOR"))
            sys.stdout.write(compare_text.terminal(res, compare_text.Paint(color), compare_text.terminal_width(),
                                                   verbose=args.verbose))
        sys.stdout.flush()
    except BrokenPipeError:  # `parlab compare A B | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    gate = res["gate"]
    if gate and gate["failed"]:
        return 1
    if gate and gate["nothing_judged"]:
        say(f"parlab compare: gate --fail-if-slower {gate['fail_if_slower_pct']:g}%: "
            f"{compare_report.gate_nothing_judged_line(gate)}")
        return NOTHING_JUDGED
    return 0


def main(argv=None) -> int:
    """The exit-code contract (README, "Exit codes"): 0 compared, nothing slower beyond the gate;
    1 the gate tripped, and nothing else, so `git bisect run` and CI can trust it; 5 the gate
    judged nothing (NOTHING_JUDGED: a pass of nothing is no pass); 2 bad input
    (argparse's own errors included), naming the argument, path or record; 130 interrupted;
    3 an internal error, one line naming it and no traceback (a traceback would exit 1, the
    "slower" code)."""
    args = parser().parse_args(argv)
    return run_command("parlab compare", lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
