"""The figures' series: what spans a run's records, read from what each record carries (its rate,
its spread, its limit), for the figures to draw and the summary and findings to quote. Nothing here
draws, and nothing here derives a figure a record already holds.
"""
from __future__ import annotations
from analysis.roofs import BANDWIDTH_UNIT
from analysis.roofs import ceilings_of
from collections import defaultdict
from analysis.records import family_of
from analysis.labels import fmt_rate
from analysis.labels import interpreter_suffix
import math
from analysis.records import ok_records
from analysis.records import rate_of
from analysis.spread import ratio_band
from analysis.roofs import roof_share
from analysis.spread import unstable


def gil_series(doc: dict) -> dict:
    """Speedup of each Python variant over its own 1-thread median time: {backend: [(threads, speedup)]}.
    pi only: the library backends that also run triad (NumPy, Numba) would otherwise put a bandwidth-bound
    kernel's points on the same lines."""
    return {backend: [(r["threads"], one["time_s"]["median"] / r["time_s"]["median"]) for r in rs]
            for backend, (one, rs) in _gil_records(doc).items()}


def _gil_records(doc: dict) -> dict:
    """{backend: (its 1-thread record, its records by threads)}: what gil_series divides."""
    by = defaultdict(list)
    for r in doc["records"]:
        if r["status"] == "ok" and r.get("kind") == "python" and r.get("scaling") == "strong" and r["kernel"] == "pi":
            by[r["backend"] + interpreter_suffix(r)].append(r)
    out = {}
    for backend, rs in sorted(by.items()):
        one = [r for r in rs if r["threads"] == 1]
        if one and len(rs) >= 2:
            out[backend] = (one[0], sorted(rs, key=lambda r: r["threads"]))
    return out


def scaling_series(doc: dict) -> dict:
    """What the scaling figures plot, as data (tested on its own).

    Returns {(study, scaling, kernel, base_size, precision): {backend: [(threads, speedup,
    efficiency)]}}. Strong scaling: speedup = median serial time / median time, efficiency =
    speedup / threads; without a serial record the backend's own 1-thread time is the
    baseline and the backend is labelled so. Weak scaling (work grows with threads): scaled
    speedup = T_base * threads / T(n), efficiency = T_base / T(n).
    """
    return _series_and_baselines(doc)[0]


def _series_and_baselines(doc: dict) -> tuple[dict, dict]:
    """scaling_series, and per key {label: (baseline record, the series' records)}: the
    bandwidth roof's bound is over the baseline's rate."""
    groups = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") not in ("strong", "weak"):
            continue
        base = r["size"] // r["threads"] if r["scaling"] == "weak" else r["size"]
        groups[(r.get("study", ""), r["scaling"], r["kernel"], base, r.get("precision", ""))].append(r)
    out, baselines = {}, {}
    for key, recs in sorted(groups.items()):
        scaling = key[1]
        if len({r["threads"] for r in recs}) < 2:
            continue
        serial = [r for r in recs if r["backend"] == "serial"]
        by_backend = defaultdict(list)
        for r in recs:
            # GPU records have no thread axis; Python variants get the GIL figure instead.
            if r["backend"] != "serial" and r.get("kind", "cpu") == "cpu":
                by_backend[r["backend"]].append(r)
        series = {}
        for backend, rs in sorted(by_backend.items()):
            rs = sorted(rs, key=lambda r: r["threads"])
            own = [r for r in rs if r["threads"] == 1]
            baseline = serial[0] if serial else (own[0] if own else None)
            if baseline is None:
                continue
            label = backend if serial else backend + " (vs own 1 thread)"
            t_base = baseline["time_s"]["median"]
            pts = []
            for r in rs:
                t = r["time_s"]["median"]
                if scaling == "strong":
                    speed = t_base / t
                    pts.append((r["threads"], speed, speed / r["threads"]))
                else:
                    pts.append((r["threads"], t_base * r["threads"] / t, t_base / t))
            series[label] = pts
            baselines.setdefault(key, {})[label] = (baseline, rs)
        if series:
            out[key] = series
    return out, baselines


def scaling_bounds(doc: dict) -> dict:
    """Where each memory-bound strong-scaling series must flatten, as data (tested on its own):
    {key of scaling_series: {label: (speedup bound, roof name, roof)}}, the bound being the
    all-cores bandwidth roof over the series' baseline rate (serial, or its own one thread).
    Weak scaling has none (its baseline's bandwidth is per thread's share of the work), nor
    has a run without ceilings."""
    roofs = ceilings_of(doc)
    if not roofs:
        return {}
    out = {}
    for key, by_label in _series_and_baselines(doc)[1].items():
        if key[1] != "strong":
            continue
        for label, (baseline, recs) in by_label.items():
            b = bandwidth_bound(recs + [baseline], roofs, (baseline.get("rate") or {}).get("bytes_per_s"))
            if b:
                out.setdefault(key, {})[label] = b
    return out


def _bandwidth_roofs(ax1, ax2, bounds: dict, tmax: int) -> set:
    """A memory-bound kernel's speedup flattens at the bandwidth roof over the baseline's rate:
    the line the curve meets, beside the ideal one (one line per distinct baseline), labelled;
    on the efficiency panel the same roof over the threads. Returns the bounds drawn."""
    drawn = set()
    for label, (bound, name, roof) in sorted(bounds.items()):
        if round(bound, 6) in drawn:
            continue
        drawn.add(round(bound, 6))
        baseline = "serial" if not label.endswith("(vs own 1 thread)") else label.split(" ")[0] + " 1 thread"
        roof_text = f"{name} {fmt_rate(roof['value'], 'B/s')} ({roof.get('method', '?')}) / {baseline}"
        ax1.plot([1, tmax], [bound, bound], ":", color="firebrick", linewidth=1.5,
                 label=f"bandwidth roof: {bound:.2f}x = {roof_text}")
        ts = [1 + i * (tmax - 1) / 200 for i in range(201)]
        ax2.plot(ts, [bound / t for t in ts], ":", color="firebrick", linewidth=1.5,
                 label=f"bandwidth roof / threads ({bound:.2f}x / t)")
    return drawn


def bandwidth_bound(recs: list, roofs: dict, base_bytes_per_s: float):
    """The speedup a memory-bound series cannot pass: the all-cores bandwidth roof over the
    baseline's (one thread's) bytes/s. recs: the series' records. Returns (bound, roof name,
    roof) or None where the kernel is not memory-bound or the run has no such roof.

    The roof is the one the records' limit names (the all-cores one where they name the one-core
    roof: a thread sweep's bound is where all threads are). A record whose limit names another
    roof, or none (CPU matmul: `no roof`), gets no bandwidth bound. Older records without a limit,
    of a STREAM-like family with bytes to move and fewer flops per byte than the machine's ridge
    (cpu_fma_f64_all over cpu_bw_triad_all, where both were measured), meet the triad roof, whose
    mix of reads and a write is the STREAM set's."""
    if not roofs or not base_bytes_per_s:
        return None
    name = None
    for r in sorted(recs, key=lambda r: -r["threads"]):
        s = roof_share(r)
        if s and s.get("unit") == BANDWIDTH_UNIT:
            name = s["roof"]
            break
    if name is None and any(not r.get("limit") and _memory_bound(r, roofs) for r in recs):
        name = "cpu_bw_triad_all"
    if name is None:
        return None
    if name.endswith("_1") and name[:-2] + "_all" in roofs:
        name = name[:-2] + "_all"
    roof = roofs.get(name)
    if not roof or roof.get("unit") != BANDWIDTH_UNIT or not roof.get("value"):
        return None
    return roof["value"] / base_bytes_per_s, name, roof


def _memory_bound(r: dict, roofs: dict) -> bool:
    """A record of a STREAM-like family that moves bytes, below the machine's ridge point where the
    ceilings give one (matmul, of the basic family, does 2n flops per float it reads)."""
    work = r.get("work") or {}
    if family_of(r) not in ("stream", "basic") or not work.get("bytes"):
        return False
    fma, bw = (roofs.get(n, {}).get("value") for n in ("cpu_fma_f64_all", "cpu_bw_triad_all"))
    return not (fma and bw) or (work.get("flops") or 0) / work["bytes"] < fma / bw


# The task-based Python models (embed/workloads/parlab_tasks.py), by study, and the one-thread
# baseline each study's models are judged against at the same size: pure-Python pi on one
# thread for pure-Python task bodies, parlab.pi on one thread for bodies that call it.
PY_MODEL_STUDIES = {"python-models": "py-pure-threads", "python-models-nogil": "py-parlab-gil-released"}


PY_TASK_MODELS = ("py-thread-pool", "py-processes", "py-dask-delayed", "py-dask-distributed",
                  "py-thread-pool-parlab", "py-dask-delayed-parlab")


def python_models_table(doc: dict, study: str = "python-models") -> list[dict]:
    """A python-models study as data (tested on its own): one row per (backend, threads, size)
    with the median time, the speedup over the study's baseline on one thread at the same size
    with its bar (bars.ratio_band) and unstable mark, and the overhead metrics the task models
    record (None where a backend has none)."""
    base = PY_MODEL_STUDIES[study]
    recs = [r for r in ok_records(doc) if r.get("study") == study and r["kernel"] == "pi"]
    one = {r["size"]: r for r in recs if r["backend"] == base and r["threads"] == 1}
    rows = []
    for r in sorted(recs, key=lambda r: (r["backend"], r["threads"], r["size"])):
        m = r.get("metrics", {})
        t = r["time_s"]["median"]
        speedup = one[r["size"]]["time_s"]["median"] / t if r["size"] in one and t > 0 else None
        rows.append({"study": study, "baseline": base, "backend": r["backend"], "threads": r["threads"],
                     "size": r["size"], "median_s": t, "speedup_vs_one_thread": speedup,
                     "band": ratio_band(r, one[r["size"]], speedup) if speedup else None,
                     "unstable": unstable(r, one.get(r["size"])),
                     "per_task_overhead_s": m.get("per_task_overhead_s"), "roundtrip_s": m.get("roundtrip_s"),
                     "startup_s": m.get("startup_s"), "tasks": m.get("tasks")})
    return rows


def python_models_crossovers(rows: list[dict]) -> dict:
    """{(backend, threads): the smallest size from which the backend beats one thread at every
    larger size measured, or None when it does not beat it at the largest}. Below that size the
    backend loses to one thread."""
    out = {}
    by = defaultdict(list)
    for r in rows:
        if r["speedup_vs_one_thread"] is not None and not (r["backend"] == r["baseline"] and r["threads"] == 1):
            by[(r["backend"], r["threads"])].append(r)
    for key, rs in sorted(by.items()):
        rs.sort(key=lambda r: r["size"])
        cross = None
        for r in reversed(rs):
            if r["speedup_vs_one_thread"] <= 1.0:
                break
            cross = r["size"]
        out[key] = cross
    return out


def python_models_note(doc: dict) -> str:
    """For a run of the GIL study without the python-models one: where the other ways around the
    GIL (processes, Dask, thread pools) are measured, at the same sizes, as HTML."""
    studies = {r.get("study") for r in doc["records"]}
    if "python-models" in studies or not ({"gil", "quick-python"} & studies):
        return ""
    return ("<p>Python's other ways around the GIL - a thread pool, processes, dask.delayed and a "
            "dask.distributed cluster, beside parlab.pi with the GIL released, at the same sizes - are "
            "measured by <code>parlab run python-models</code> (figure <code>plots/python_models.png</code>: "
            "speedup over one thread and per-task overhead vs size).</p>")


MULTI_GPU = {"cuda-multi": "all GPUs at once", "cuda-multi-seq": "one GPU after another"}


def multi_gpu_series(doc: dict) -> list[dict]:
    """All GPUs against one (tested on its own): for every (kernel, precision, size) measured on
    one GPU (`cuda`) and split over every GPU (`cuda-multi`, `cuda-multi-seq`), the speedup over
    one GPU, its bar (bars.ratio_band) and unstable mark, and the GPU count the record's metrics
    name."""
    recs = [r for r in ok_records(doc) if r["backend"] in ("cuda", *MULTI_GPU)]
    one = {(r["kernel"], r.get("precision", ""), r["size"]): r for r in recs if r["backend"] == "cuda"}
    rows = []
    for r in sorted(recs, key=lambda r: (r["kernel"], r.get("precision", ""), r["size"], r["backend"])):
        base = one.get((r["kernel"], r.get("precision", ""), r["size"]))
        if r["backend"] == "cuda" or base is None:
            continue
        speedup = base["time_s"]["median"] / r["time_s"]["median"]
        rows.append({"kernel": r["kernel"], "precision": r.get("precision", ""), "size": r["size"],
                     "backend": r["backend"], "devices": int(r.get("metrics", {}).get("devices", 0)),
                     "speedup": speedup, "band": ratio_band(r, base, speedup), "unstable": unstable(r, base)})
    return rows


# Python library backends that run on a GPU (the rest run on the CPU).
GPU_LIBRARIES = {"py-cupy", "py-torch"}


# The study of the libraries suite; "peers" is its name in records from before the rename.
LIBRARY_STUDIES = ("libraries", "peers")


def libraries_table(doc: dict) -> list[dict]:
    """The libraries table, as data (tested on its own): for every kernel of the `libraries`
    study and every library backend (a python-kind record), at its highest thread count,
    parlab's fastest backend of the same kind of device (CPU backends at that same thread count;
    any GPU backend for a GPU library) and the ratio parlab rate / library rate, with its bar
    (bars.ratio_band) and unstable mark."""
    recs = [r for r in ok_records(doc) if r.get("study") in LIBRARY_STUDIES and rate_of(r)[0]]
    rows = []
    for key in sorted({(r["kernel"], str(r.get("precision")), r["size"]) for r in recs}):
        rs = [r for r in recs if (r["kernel"], str(r.get("precision")), r["size"]) == key]
        libraries = [r for r in rs if r["kind"] == "python"]
        top = {}
        for r in libraries:  # each library at its highest thread count
            if r["backend"] not in top or r["threads"] > top[r["backend"]]["threads"]:
                top[r["backend"]] = r
        for name in sorted(top):
            lib = top[name]
            gpu = name in GPU_LIBRARIES
            own = [r for r in rs if r["kind"] == ("gpu" if gpu else "cpu") and (gpu or r["threads"] == lib["threads"])]
            if not own:
                continue
            best = max(own, key=lambda r: rate_of(r)[0])
            unit = rate_of(best)[1]
            ratio = rate_of(best)[0] / rate_of(lib)[0]
            rows.append({"kernel": key[0], "precision": key[1], "size": key[2], "threads": lib["threads"],
                         "parlab": best["backend"], "parlab_threads": best["threads"], "parlab_rate": rate_of(best)[0],
                         "library": name, "library_rate": rate_of(lib)[0], "unit": unit, "ratio": ratio,
                         "band": ratio_band(best, lib, ratio), "unstable": unstable(best, lib)})
    return rows


# pi/4: the hit probability of one point.
QUARTER_PI = math.pi / 4


def pi_relative_sigma(n: int) -> float:
    """1 sigma of |pi_hat - pi| / pi for N points: hits ~ Binomial(N, pi/4), pi_hat = 4 hits/N."""
    return math.sqrt((1 - QUARTER_PI) / (QUARTER_PI * n))


def convergence_points(doc: dict) -> dict:
    """{backend: [(N, hits, relative error)]} of the convergence study, by size (tested on its own)."""
    out = defaultdict(list)
    for r in ok_records(doc):
        if r.get("study") == "convergence" and r["kernel"] == "pi" and r.get("hits") is not None and r["size"] > 0:
            est = 4.0 * r["hits"] / r["size"]
            out[r["backend"]].append((r["size"], r["hits"], abs(est - math.pi) / math.pi))
    return {b: sorted(v) for b, v in sorted(out.items())}


def convergence_summary(points: dict) -> dict:
    """Whether every backend lies on the same points (one hit count per N measured by more than
    one backend), and how many points lie beyond 1 and 3 sigma."""
    by_n = defaultdict(set)
    for pts in points.values():
        for n, hits, _ in pts:
            by_n[n].add(hits)
    shared = [n for n in by_n if sum(any(q[0] == n for q in pts) for pts in points.values()) > 1]
    allpts = {(n, h, e) for pts in points.values() for n, h, e in pts}
    return {"shared_sizes": len(shared), "differing_sizes": sorted(n for n in shared if len(by_n[n]) > 1),
            "points": len(allpts),
            "beyond_1sigma": sum(e > pi_relative_sigma(n) for n, _, e in allpts),
            "beyond_3sigma": sum(e > 3 * pi_relative_sigma(n) for n, _, e in allpts)}
