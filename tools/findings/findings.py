"""The findings' numbers, each computed from the committed records under results/.

results/README.md is rendered from README.md.j2 beside this file (render.py): the template holds
every sentence, and each number in it is an expression over what this module returns. Nothing
here holds a measured figure: a function reads the runs it names and derives its values through
analysis/'s own helpers (the ones the figures and report.html use), so the findings,
the figures and the reports cannot disagree.

Each finding is one function returning a dict; the template reaches it as `f.<name>()`. Runs are
named by their folder under results/ (RUNS), and the template names them through the same
table, so a finding's command and its numbers come from the same run.
"""
from __future__ import annotations

import functools
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from analysis.compare_stats import compare_samples  # noqa: E402
from analysis.index import cited_runs, read_index  # noqa: E402
from analysis.series import gil_series  # noqa: E402
from analysis.series import multi_gpu_series  # noqa: E402
from analysis.share_interval import reads_above  # noqa: E402
from analysis.series import libraries_table  # noqa: E402
from analysis.records import READABLE_SCHEMAS, per_op_us, pool_rounds, rate_of  # noqa: E402
from analysis.series import python_models_crossovers, python_models_table  # noqa: E402
from analysis.series_mpi import mpi_latency_series  # noqa: E402
from analysis.series import scaling_series  # noqa: E402
from analysis.pop import FACTORS, GOOD, LOSSES, hierarchy, pop_tables, where_it_went  # noqa: E402
from analysis.read import InputError, read_json, read_text  # noqa: E402
from analysis.validate import check_results  # noqa: E402

RESULTS = os.path.join(ROOT, "results")

# The runs the findings cite, by name: results/runs.json, the one index of the committed runs,
# names them (its `cited`), read through its one reader.
RUNS = cited_runs(read_index(os.path.join(RESULTS, "runs.json")))

# A verdict as `parlab compare` reaches it: 1% level, 5% threshold (compare.py's defaults).
ALPHA, THRESHOLD = 0.01, 0.05


class FindingError(Exception):
    """A finding's data is not what the template expects (a run lost a record, say)."""


def read_run(path: str) -> dict:
    """A cited run's results.json as it is on disk (rounds not pooled), through the guarded reader
    and validated against the results schema: a FIFO in its place is refused, never waited on, and
    a record that is not an object or a median that is not a number is InputError naming the file,
    the record and the field, rather than a TypeError deep in a finding."""
    d = read_json(path)
    if not isinstance(d, dict):
        raise InputError(f"{path}: expected a JSON object (a parlab results.json), not {type(d).__name__}")
    if d.get("schema") not in READABLE_SCHEMAS:
        raise InputError(f"{path}: 'schema' is {d.get('schema')!r}, expected one of {', '.join(READABLE_SCHEMAS)}")
    check_results(d, path, d["schema"])
    return d


@functools.cache
def doc(name: str) -> dict:
    """A cited run's results.json, a run made in rounds pooled as the figures pool it."""
    path = os.path.join(RESULTS, RUNS[name], "results.json")
    d = read_run(path)
    d["records"] = pool_rounds(d["records"], d.get("pooled"), path)
    return d


def ok(name: str, **fields) -> list:
    """The valid records of a run whose fields equal the given ones."""
    return [r for r in doc(name)["records"]
            if r["status"] == "ok" and all(r.get(k) == v for k, v in fields.items())]


def one(name: str, **fields) -> dict:
    rs = ok(name, **fields)
    if len(rs) != 1:
        raise FindingError(f"{RUNS[name]}: {len(rs)} records match {fields}, expected 1")
    return rs[0]


def rate(r: dict) -> float:
    return rate_of(r)[0]


def median(r: dict) -> float:
    return r["time_s"]["median"]


def command(name: str) -> str:
    """The command that made a run, from its own `invocation` (argv after the binary)."""
    inv = doc(name).get("invocation") or {}
    argv = inv.get("argv") if isinstance(inv, dict) else inv
    if not argv:
        raise FindingError(f"{RUNS[name]} records no invocation")
    words = ["parlab"] + [a for a in argv[1:]]
    # The output folder and quiet flags say where it went, not what was measured.
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w in ("--out", "-o"):
            skip = True
            continue
        if w.startswith("--out=") or w in ("-q", "--quiet", "--no-report"):
            continue
        out.append(w)
    return " ".join(out)


def commit(name: str) -> str:
    """The commit a run was made at, as its context declares it (else git's own view)."""
    build = doc(name)["context"].get("build", {})
    c = build.get("git_commit_declared") or build.get("git_commit") or "unknown"
    return c[:7]


def verdict(base: dict, new: dict) -> str:
    """`parlab compare`'s verdict of new against base by their repetitions' times."""
    return compare_samples(base["reps_s"], new["reps_s"], ALPHA, THRESHOLD)["verdict"]


# --- findings, in the order of the template ----------------------------------------------------
def scaling() -> dict:
    """Strong scaling at the most threads: π (compute-bound) and triad (bandwidth-bound)."""
    out = {}
    for (_, scaling_kind, kernel, size, _prec), series in scaling_series(doc("scaling")).items():
        if scaling_kind != "strong":
            continue
        at = {b: pts[-1] for b, pts in series.items()}
        out[kernel] = {b: {"threads": t, "speedup": s} for b, (t, s, _) in at.items()}
        out[kernel + "_size"] = size
    out["threads"] = max(v["threads"] for v in out["pi"].values())
    out["triad_best_rate"] = max(rate(one("scaling", study="strong", kernel="triad", backend=b, threads=out["threads"]))
                                 for b in out["triad"])
    serial = rate(one("scaling", study="strong", kernel="pi", backend="serial", threads=1))
    pool = rate(one("scaling", study="strong", kernel="pi", backend="pool", threads=out["threads"]))
    out["pi_per_core"] = {"alone": serial, "busy": pool / out["threads"], "share": pool / out["threads"] / serial}
    out["dynamic"] = min(out["pi"]["pool"]["speedup"], out["pi"]["tbb"]["speedup"])
    out["static"] = max(out["pi"]["openmp"]["speedup"], out["pi"]["threads"]["speedup"])
    # "The dynamic backends beat the static splits" holds only where compare says so for every pair.
    at = {b: one("scaling", study="strong", kernel="pi", backend=b, threads=out["threads"])
          for b in ("pool", "tbb", "openmp", "threads")}
    out["dynamic_beats_static"] = all(verdict(at[st], at[dy]) == "faster"
                                      for dy in ("pool", "tbb") for st in ("openmp", "threads"))
    out["pool_tbb_verdict"] = verdict(at["pool"], at["tbb"])
    return out


def overhead() -> dict:
    """EPCC-style cost per construct at the most threads, minus the serial reference (µs)."""
    threads = max(r["threads"] for r in ok("overhead"))
    out = {"threads": threads}
    for construct in ("overhead_empty", "overhead_for", "overhead_reduce"):
        ref = per_op_us(one("overhead", kernel=construct, backend="serial"))
        out[construct] = {r["backend"]: per_op_us(r) - ref for r in ok("overhead", kernel=construct, threads=threads)}
    red = out["overhead_reduce"]
    out["reduce_verdict"] = verdict(one("overhead", kernel="overhead_reduce", backend="pool", threads=threads),
                                    one("overhead", kernel="overhead_reduce", backend="tbb", threads=threads))
    out["reduce_pool_minus_tbb"] = red["pool"] - red["tbb"]
    return out


def races() -> dict:
    """The share of trials in which each race kernel's result deviated, at 2 threads or more."""
    def shares(kernel, python):
        rs = [r for r in ok("races", kernel=kernel) if r["threads"] >= 2]
        if python is not None:
            rs = [r for r in rs if (r.get("gil_enabled") is False) == python]
        return [r["metrics"]["deviating_share"] for r in rs]
    out = {}
    for k in ("count_racy", "rng_shared", "count_atomic", "count_local", "rng_counter", "sum_canonical"):
        s = shares(k, None)
        out[k] = {"low": min(s), "high": max(s), "points": len(s)}
    for k in ("py_count_racy", "py_count_racy_call", "py_count_locked", "py_numpy_add_racy"):
        for gil_free in (False, True):
            s = shares(k, gil_free)
            out[f"{k}_{'nogil' if gil_free else 'gil'}"] = {"low": min(s), "high": max(s), "points": len(s)} if s else None
    one_thread = [r["metrics"]["deviating_share"] for r in ok("races", kernel="count_racy", threads=1)]
    out["count_racy_one_thread"] = max(one_thread)
    sums = [r for r in ok("races", kernel="sum_order") if r.get("kind") != "python"]
    out["sum_order_distinct"] = len({r["metrics"].get("result", r["metrics"].get("max_abs_deviation")) for r in sums})
    out["sum_order_points"] = len(sums)
    out["sum_canonical_distinct"] = max(r["metrics"]["distinct_results"] for r in ok("races", kernel="sum_canonical"))
    return out


def gil() -> dict:
    """Every Python variant's speedup over its own one thread at the most threads."""
    series = gil_series(doc("gil"))
    threads = max(t for pts in series.values() for t, _ in pts)
    out = {"threads": threads, "speedup": {b: dict(pts)[threads] for b, pts in series.items()}}
    out["wait"] = {b: one("gil", backend=b, threads=threads)["metrics"]["gil_wait_share"]
                   for b in ("py-parlab-gil-released", "py-parlab-gil-held", "py-numpy-threads")}
    best_cpp = max(s["speedup"] for s in scaling()["pi"].values())
    out["released_of_best_cpp"] = out["speedup"]["py-parlab-gil-released"] / best_cpp
    out["best_cpp"] = best_cpp
    return out


FT_MODES = {"gil": ("3.12", None), "ft_gil": ("3.13", "1"), "ft_nogil": ("3.13", "0")}


def _ft(backend, mode, threads):
    version, python_gil = FT_MODES[mode]
    rs = [r for r in ok("free_threaded", backend=backend, threads=threads)
          if r.get("interpreter", "").startswith(version) and r.get("python_gil") == python_gil]
    if len(rs) != 1:
        raise FindingError(f"free-threaded run: {len(rs)} records of {backend} {mode} at {threads}")
    return rs[0]


def free_threaded() -> dict:
    """The gil suite on 3.12 and on 3.13t with and without its GIL: speedups at 16 threads."""
    out = {}
    for b in ("py-pure-private", "py-pure-threads", "py-subinterp", "py-parlab-gil-held", "py-parlab-gil-released"):
        out[b] = {m: median(_ft(b, m, 1)) / median(_ft(b, m, 16)) for m in FT_MODES}
    one_ft, one_gil = median(_ft("py-pure-private", "ft_nogil", 1)), median(_ft("py-pure-private", "gil", 1))
    out["one_thread_cost"] = one_ft / one_gil
    out["interpreter"] = _ft("py-pure-private", "ft_nogil", 1)["interpreter"]
    raw = read_run(os.path.join(RESULTS, RUNS["free_threaded"], "results.json"))["records"]
    out["rounds"] = max(r.get("round", 1) for r in raw)  # pooled by doc(), as the figures pool them
    return out


def models() -> dict:
    """Python's task-based ways around the GIL at 2^20 points of pure-Python π."""
    table = python_models_table(doc("models"), "python-models")
    row = {(r["backend"], r["threads"], r["size"]): r for r in table}
    size = 1 << 20
    out = {b: {t: row[(b, t, size)]["speedup_vs_one_thread"] for t in (1, 2, 16) if (b, t, size) in row}
           for b in ("py-processes", "py-dask-distributed", "py-thread-pool", "py-dask-delayed")}
    cross = python_models_crossovers(table)
    out["cross_processes"] = cross[("py-processes", 16)]
    out["cross_distributed"] = cross[("py-dask-distributed", 16)]
    out["threads"] = thread_models(table)
    out["process_verdicts"] = _verdicts(table, ("py-processes", "py-dask-distributed"))
    out["per_task"] = {b: row[(b, 1, size)]["per_task_overhead_s"] for b in
                       ("py-processes", "py-dask-distributed", "py-thread-pool", "py-dask-delayed")}
    out["size"] = size
    return out


THREAD_MODELS = ("py-thread-pool", "py-dask-delayed")


def _verdicts(table: list, backends) -> dict:
    """compare's verdict of every point of these backends at 2 or more workers against the
    baseline's one thread at the same size, counted by verdict."""
    base = {r["size"]: r for r in ok("models", backend=table[0]["baseline"], threads=1, study="python-models")}
    out: dict = {}
    for r in table:
        if r["backend"] in backends and r["threads"] >= 2 and r["size"] in base:
            rec = one("models", backend=r["backend"], threads=r["threads"], size=r["size"], study="python-models")
            v = verdict(base[r["size"]], rec)
            out[v] = out.get(v, 0) + 1
    return out


def thread_models(table: list) -> dict:
    """Every thread-based model's point at 2 or more workers, at every size, against one thread:
    how many read faster by the median, the fastest of them, the largest size where one does, and
    compare's verdicts over all of them (1% level, 5% threshold)."""
    pts = [r for r in table if r["backend"] in THREAD_MODELS and r["threads"] >= 2
           and r["speedup_vs_one_thread"] is not None]
    if not pts:
        raise FindingError(f"{RUNS['models']}: no thread-model point at 2 or more workers")
    faster = [r for r in pts if r["speedup_vs_one_thread"] > 1.0]
    best = max(pts, key=lambda r: r["speedup_vs_one_thread"])
    return {"points": len(pts), "faster": len(faster),
            "best": {"backend": best["backend"], "threads": best["threads"], "size": best["size"],
                     "speedup": best["speedup_vs_one_thread"]},
            "largest_faster": max((r["size"] for r in faster), default=None),
            "sizes_low": min(r["size"] for r in pts), "sizes_high": max(r["size"] for r in pts),
            "reps": min(len(one("models", backend=r["backend"], threads=r["threads"], size=r["size"],
                                study="python-models")["reps_s"]) for r in pts),
            "verdicts": _verdicts(table, THREAD_MODELS)}


def peers() -> dict:
    """parlab against the Python libraries, same run, same sizes."""
    rows = libraries_table(doc("peers"))
    def row(kernel, threads, library):
        (r,) = [r for r in rows if (r["kernel"], r["threads"], r["library"]) == (kernel, threads, library)]
        return r
    return {"pi_prange": row("pi", 16, "py-numba-prange"), "pi_numpy": row("pi", 1, "py-numpy"),
            "triad_prange": row("triad", 16, "py-numba-prange"), "triad_numpy": row("triad", 1, "py-numpy")}


def gpu() -> dict:
    """CPU against GPU, and what moving the data costs."""
    s = scaling()
    threads = s["threads"]
    gpu_pi = rate(one("gpu", study="gpu-pi", kernel="pi", backend="cuda", size=1 << 36))
    cpu_pi = rate(one("scaling", study="strong", kernel="pi", backend="tbb", threads=threads))
    triad = one("gpu", study="gpu-stream", kernel="triad", precision="double", size=1 << 28)
    cpu_triad = rate(one("scaling", study="strong", kernel="triad", backend="tbb", threads=threads))
    pinned, pageable = (rate(one("gpu", kernel=k, size=1 << 30)) for k in ("transfer_pinned", "transfer_pageable"))
    inputs = 2 * triad["size"] * 8  # b and c, doubles
    many, large = (rate(one("gpu", kernel=k, size=1 << 20)) for k in ("transfer_many_small", "transfer_one_large"))
    # The GPU pi kernel of today at 2^36, graded against its bound (the record's own limit).
    now = one("gpu_pi", kernel="pi", backend="cuda", size=1 << 36)
    return {"pi": gpu_pi, "cpu_pi": cpu_pi, "triad": rate(triad), "cpu_triad": cpu_triad, "threads": threads,
            "pi_now": rate(now), "pi_now_bound": now["limit"]["roof"], "pi_now_share": now["limit"]["fraction"],
            "pinned": pinned, "pageable": pageable, "copy_in_s": inputs / pinned,
            "cpu_triad_s": 3 * triad["size"] * 8 / cpu_triad, "gpu_triad_s": median(triad),
            "many_small": many, "one_large": large,
            # The CPU triad and the copies are timed at other sizes than the GPU triad: the times
            # below are extrapolated from their rates, and the template says so.
            "cpu_triad_size": s["triad_size"], "triad_size": triad["size"], "copy_in_bytes": inputs,
            "transfer_bytes": 1 << 30}


STREAM_KERNELS = ("copy", "mul", "add", "triad", "dot")


def stream() -> dict:
    """parlab against BabelStream in one run, by the same statistic (work / median time)."""
    out = {"gpu": {}, "cpu": {}}
    for k in STREAM_KERNELS:
        for device, peer_backend in (("gpu", "babelstream-cuda"), ("cpu", "babelstream-omp")):
            rs = ok("stream", study=f"stream-peers-{device}", kernel=k)
            (peer,) = [r for r in rs if r["backend"] == peer_backend]
            own = [r for r in rs if r["kind"] == device and r["threads"] == peer["threads"]]
            best = max(own, key=rate)
            out[device][k] = {"backend": best["backend"], "ratio": rate(best) / rate(peer), "rate": rate(best),
                              "threads": peer["threads"], "verdict": verdict(peer, best)}
            if device == "gpu":
                peak = best.get("limit", {}).get("peak")
                out[device][k]["peak"] = peak["fraction"] if peak else None
    for device in ("gpu", "cpu"):
        ratios = [v["ratio"] for v in out[device].values()]
        out[device + "_low"], out[device + "_high"] = min(ratios), max(ratios)
    out["gpu_verdicts"] = sorted({v["verdict"] for v in out["gpu"].values()})
    out["size_gpu"] = ok("stream", study="stream-peers-gpu", kernel="copy")[0]["size"]
    out["size_cpu"] = ok("stream", study="stream-peers-cpu", kernel="copy")[0]["size"]
    # The GPU set at 0313b00: each kernel's share of the H200's theoretical peak.
    out["peak"] = {r["kernel"]: r["limit"]["peak"]["fraction"] for r in ok("gpu_stream")}
    # The CPU set at 0313b00 beside likwid-bench's streaming-store kernels.
    cpu = {}
    for k in ("copy", "triad"):
        rs = ok("stream_cpu", kernel=k)
        (lk,) = [r for r in rs if r["backend"] == "likwid-bench-nt"]
        own = [r for r in rs if r["kind"] == "cpu" and r["threads"] == lk["threads"]]
        best = max(own, key=rate)
        cpu[k] = {"backend": best["backend"], "ratio": rate(best) / rate(lk), "threads": lk["threads"],
                  "share": best["limit"].get("fraction"), "roof": best["limit"].get("roof"),
                  "above": best["limit"].get("above_roof")}
    out["likwid"] = cpu
    return out


def gpu_tuned(name: str = "gpu_tuned") -> dict:
    """The tuned GPU STREAM kernels at 2^27 and 2^28 doubles in one run: each kernel's share of
    the H200's theoretical peak by the fastest repetition and by the median, over BabelStream's
    cuda-stream (by BabelStream's own fastest iteration against parlab's fastest, and by the
    medians) and, for copy and mul, over the driver's cudaMemcpyAsync by the same statistics;
    and the STREAM goals (shares of the card's peak), each met or not by the fastest, BabelStream's statistic."""
    goals = {"copy": 0.885, "mul": 0.885, "add": 0.915, "triad": 0.915, "dot": 0.95}
    out = {"goals": goals}
    for size in (1 << 27, 1 << 28):
        row = {}
        driver = one(name, kernel="copy", backend="cuda-memcpy", size=size)
        drv_fast = driver["work"]["bytes"] / min(driver["reps_s"])
        for k in STREAM_KERNELS:
            mine = one(name, kernel=k, backend="cuda", size=size)
            peer = one(name, kernel=k, backend="babelstream-cuda", size=size)
            fast = mine["work"]["bytes"] / min(mine["reps_s"])
            peak = rate(mine) / mine["limit"]["peak"]["fraction"]
            row[k] = {"peak": mine["limit"]["peak"]["fraction"], "peak_fastest": fast / peak,
                      "over_babelstream": rate(mine) / rate(peer),
                      "over_babelstream_fastest": fast / peer["metrics"]["peer_bytes_per_s"],
                      "over_driver": rate(mine) / rate(driver), "over_driver_fastest": fast / drv_fast}
            row[k]["met"] = row[k]["peak_fastest"] >= goals[k]
        row["driver_peak"] = driver["limit"]["peak"]["fraction"]
        row["driver_peak_fastest"] = drv_fast / (rate(driver) / driver["limit"]["peak"]["fraction"])
        out[size] = row
    return out


def gpu_probe() -> dict:
    """The launch-shape probe of the same call as gpu_tuned_before (tools/node/gpu/stream-probe.cu, its
    table kept beside the run as stream-probe.txt): per kernel at 2^28 doubles, the fastest
    share of any shape; for dot, the best layout that keeps the deterministic order, against the
    best that lets it go (each block's sum added atomically)."""
    path = os.path.join(RESULTS, RUNS["gpu_tuned_before"], "stream-probe.txt")
    best: dict = {}
    for line in read_text(path).splitlines():
        m = re.match(r"(\w+)\s+(.+?)\s+n=2\^28 .* fastest\s+[\d.]+ us ([\d.]+)", line)
        if not m:
            continue
        kernel, shape, share = m.group(1), m.group(2), float(m.group(3))
        keys = [kernel + ("_any_order" if "any order" in shape else "")]
        for hint in ("plain", "cs"):  # the best shape without a cache hint, and with .cs
            if shape.endswith(" " + hint):
                keys.append(kernel + "_" + hint)
        for key in keys:
            if share > best.get(key, (0.0, ""))[0]:
                best[key] = (share, shape)
    if "dot" not in best or "dot_any_order" not in best:
        raise FindingError(f"{path}: no dot rows at 2^28")
    return {k: {"share": v[0], "shape": v[1]} for k, v in best.items()}


def stream_memory() -> dict:
    """The CPU STREAM set at 2^27 doubles beside omp-stream: per kernel the best parlab backend
    by the median, its share of the highest roof with its interval, and its rate over BabelStream's
    (median over median); and how many records read above their roof by the whole interval."""
    out = {}
    rs = ok("stream_memory")
    for k in STREAM_KERNELS:
        mine = [r for r in rs if r["kernel"] == k and r["backend"] != "babelstream-omp"]
        best = max(mine, key=rate)
        peer = one("stream_memory", kernel=k, backend="babelstream-omp")
        out[k] = {"backend": best["backend"], "rate": rate(best), "unit": "B/s", "share": best["limit"]["fraction"],
                  "low": best["limit"]["interval"]["low"], "high": best["limit"]["interval"]["high"],
                  "over_babelstream": rate(best) / rate(peer)}
    graded = [r for r in rs if (r.get("limit") or {}).get("interval")]
    out["records"], out["above"] = len(graded), sum(1 for r in graded if reads_above(r))
    out["size"], out["threads"] = rs[0]["size"], max(r["threads"] for r in rs)
    ratios = [out[k]["over_babelstream"] for k in STREAM_KERNELS]
    out["low"], out["high"] = min(ratios), max(ratios)
    return out


def roofs() -> dict:
    """The quick run at 0313b00: each record's share of the roof that binds it, and CPU π and
    matmul against the in-core bound of their compiled loops."""
    quick = [r for r in ok("quick") if isinstance(r.get("limit"), dict) and r["limit"].get("fraction") is not None]
    best = {}
    for r in quick:
        key = (r["kernel"], "gpu" if r.get("processor") == "gpu" else "cpu")
        if key not in best or rate(r) > rate(best[key]):
            best[key] = r
    out = {"best": {f"{k}_{p}": {"backend": r["backend"], "threads": r["threads"], "share": r["limit"]["fraction"],
                                 "roof": r["limit"]["roof"]} for (k, p), r in best.items()}}
    cpu_pi = [r for r in ok("quick", kernel="pi") if r.get("own_kernels") and r.get("processor") == "cpu"]
    one_t = [r["limit"]["incore"]["fraction"] for r in cpu_pi if r["threads"] == 1]
    most = max(r["threads"] for r in cpu_pi)
    many = {r["backend"]: r["limit"]["incore"]["fraction"] for r in cpu_pi if r["threads"] == most}
    out["pi_incore"] = {"one_low": min(one_t), "one_high": max(one_t), "most": most, "at_most": many}
    mm = [r for r in ok("matmul") if r.get("limit", {}).get("incore")]
    shares = [r["limit"]["incore"]["fraction"] for r in mm]
    out["matmul"] = {"records": len(mm), "low": min(shares), "high": max(shares), "median": statistics.median(shares),
                     "below": sum(1 for s in shares if s < 0.8)}
    above = [r for r in quick if reads_above(r)]  # its whole interval over 1, where it has one
    out["above"] = len(above)
    out["above_noted"] = sum(1 for r in above if r["limit"].get("above_roof"))
    out["records"] = len(quick)
    return out


def _no_cause(records: list) -> tuple[int, int]:
    """Of the records of 2 or more threads below 0.8 of their in-core bound: how many, and how many
    of them name no cause."""
    below = [r for r in records if r["threads"] >= 2 and (r.get("limit") or {}).get("incore", {}).get("fraction", 1) < 0.8]
    return len(below), sum(1 for r in below if r["limit"]["incore"].get("below", "").startswith("no cause measured"))


def speedup_went() -> dict:
    """The speedup suite: each CPU backend's efficiency hierarchy at the most threads, per kernel,
    against serial (the table's reference), from the records' own workers; and the records below
    0.8 of their in-core bound that name no cause, here and in the runs made before accounting."""
    out = {}
    for kernel in ("pi", "triad", "matmul"):
        rs = ok("speedup_run", kernel=kernel)
        serial = next(r for r in rs if r["backend"] == "serial")
        most = max(r["threads"] for r in rs)
        out[kernel] = {}
        for r in (r for r in rs if r["threads"] == most):
            h = hierarchy(r, serial)
            out[kernel][r["backend"]] = dict(h["values"], speedup=median(serial) / median(r), runtime=median(r))
        out[kernel + "_size"] = rs[0]["size"]
        if kernel == "pi":  # the static split's traced run: workers done before 3/4 of the region
            trace = next(r for r in rs if r["backend"] == "threads" and r["threads"] == most)["workers"]["trace"]
            ends: dict = {}
            for w, _, end, _ in trace["events"]:
                ends[w] = max(ends.get(w, 0.0), end)
            out["early"] = sum(1 for e in ends.values() if e < 0.75 * trace["runtime_s"])
    out["threads"] = most
    at = {r["backend"]: r for r in ok("speedup_run", kernel="pi", threads=most)}
    out["pi_order"] = sorted(("threads", "pool", "tbb", "openmp"), key=lambda b: -out["pi"][b]["speedup"])
    out["openmp_vs_pool"] = verdict(at["pool"], at["openmp"])
    out["pool_tbb_verdict"] = verdict(at["pool"], at["tbb"])
    dynamic = ("pool", "tbb", "openmp")  # the backends that hand out chunks as they go
    for kernel in ("pi", "triad"):
        lbs = [out[kernel][b]["load_balance"] for b in dynamic]
        out[kernel + "_lb_dynamic"] = (min(lbs), max(lbs))
    cs = [out["pi"][b]["computation"] for b in ("threads",) + dynamic]
    # "All four lose most to computation scaling": computation the lowest factor of every one.
    pi = out["pi"]
    out["pi_cs_largest"] = all(pi[b]["computation"] <= min(pi[b]["load_balance"], pi[b]["communication"])
                               for b in ("threads",) + dynamic)
    out["pi_cs"] = (min(cs), max(cs))
    out["below"], out["no_cause"] = _no_cause(ok("speedup_run"))
    before = ok("matmul") + [r for r in ok("quick") if r.get("processor") == "cpu"]
    out["before_below"], out["before_no_cause"] = _no_cause(before)
    out["quick_below"], out["quick_no_cause"] = _no_cause([r for r in ok("quick_accounted") if r.get("kind") == "cpu"])
    return out


def speedup_jobs() -> dict:
    """The hierarchy beyond one process's executors, each at its most workers: mpi+pool's pi and
    triad over ranks of one thread against serial; the Python thread backends' pi (GIL held,
    released, the parlab thread pool) against serial, with the GIL-held communication efficiency
    at every thread count; pure-Python threads against their own one thread, with the share of
    their busy time they were runnable but not running."""
    out = {}
    for name in ("ranks_pi", "ranks_triad"):
        serial = one(name, backend="serial")
        most = max(r.get("ranks") or 1 for r in ok(name, backend="mpi+pool"))
        r = one(name, backend="mpi+pool", ranks=most)
        out[name] = dict(hierarchy(r, serial)["values"], speedup=median(serial) / median(r), ranks=most,
                         size=r["size"], workers=r["workers"]["count"])
    serial = one("py_threads", backend="serial")
    most = max(r["threads"] for r in ok("py_threads"))
    for b in ("py-parlab-gil-held", "py-parlab-gil-released", "py-thread-pool-parlab"):
        r = one("py_threads", backend=b, threads=most)
        out[b] = dict(hierarchy(r, serial)["values"], speedup=median(serial) / median(r))
    out["py_threads"], out["py_size"] = most, serial["size"]
    held = one("py_threads", backend="py-parlab-gil-held", threads=most)["workers"]
    events = sorted(held["trace"]["events"], key=lambda e: e[1])
    out["held_idle"] = held["count"] - len({e[0] for e in events})  # no chunk in the traced run
    # Chunks that start before an earlier one (of any thread) has ended: two calls at once.
    out["held_overlaps"] = sum(1 for i in range(1, len(events)) if events[i][1] < max(e[2] for e in events[:i]))
    out["held_ce"] = [(r["threads"], r["workers"]["pop"]["communication"], r["workers"]["pop"]["load_balance"])
                      for r in sorted(ok("py_threads", backend="py-parlab-gil-held"), key=lambda r: r["threads"])
                      if r["threads"] >= 2]
    one_thread = one("py_pure", backend="py-pure-threads", threads=1)
    most = max(r["threads"] for r in ok("py_pure"))
    r = one("py_pure", backend="py-pure-threads", threads=most)
    out["pure"] = dict(hierarchy(r, one_thread)["values"], speedup=median(one_thread) / median(r), threads=most,
                       size=r["size"], runnable=r["workers"]["disturbance"]["runnable_share"])
    return out


def per_execution() -> dict:
    """The runs made again under POP's per-execution figures: for each, every table of the
    efficiency hierarchy (kernel and backend) at its most workers, with the sentence that opens it
    in `parlab report --summary pop`; and pi and triad at 16 threads quiet and beside two busy
    loops: per run, the multi-worker records whose own cause names other processes' time, and the
    range of that time."""
    rows = []
    for name in ("exec_speedup", "exec_ranks_pi", "exec_ranks_triad", "exec_py_threads", "exec_py_pure"):
        for t in pop_tables(doc(name)):
            sentence = where_it_went(t)
            if sentence:
                rows.append({"run": RUNS[name], "title": t["title"].split("  (")[0], "backend": t["backend"],
                             "sentence": sentence, "loss": _largest_loss(t)})
    # The tables told as a tally of their largest losses (the sentences themselves are what
    # `parlab report RUN --summary pop` prints): factor name -> how many tables.
    tally: dict = {}
    for r in rows:
        tally[r["loss"]] = tally.get(r["loss"], 0) + 1
    out = {"rows": rows, "tally": tally, "with_cause": sum(1 for r in rows if "its record says" in r["sentence"])}
    for name in ("pop_quiet", "pop_disturbed"):
        rs = [r for r in ok(name) if (r.get("workers") or {}).get("accounting") == "on" and r["workers"]["count"] > 1]
        named = [r for r in rs if str(r["workers"].get("cause", "")).startswith("disturbed: other processes used")]
        others = [r["workers"]["disturbance"]["others"] for r in rs]
        off = [r for r in ok(name) if (r.get("workers") or {}).get("accounting") == "off"]
        out[name] = {"records": len(rs), "named": len(named), "others": (min(others), max(others)), "off": len(off)}
    return out


def _largest_loss(table: dict) -> str:
    """The factor where_it_went names as a table's largest loss at its most workers, by the same
    rule (the lowest of POP's losses, where it is below good), or "none below 0.8"."""
    cols = [c for c in table["columns"] if (c["hierarchy"]["count"] or 0) > 1 and c["hierarchy"]["values"]]
    v = max(cols, key=lambda c: c["hierarchy"]["count"])["hierarchy"]["values"]
    losses = [(v[k], k) for k in LOSSES if k in v]
    if not losses or min(losses)[0] >= GOOD:
        return "none below 0.8"
    return dict(FACTORS)[min(losses)[1]]


def roofs_end() -> dict:
    """copy and triad at 2^27 doubles in 5 rounds with the bandwidth roofs measured again at the
    run's end: each roof's drift, the records' shares (of the highest roof) with their intervals,
    and how many read above 1 by the whole interval, or against the start's roof alone."""
    d = read_run(os.path.join(RESULTS, RUNS["roofs_end"], "results.json"))  # every round's record, not pooled
    end = d["context"]["ceilings_end"]
    rs = [r for r in d["records"] if r["status"] == "ok" and (r.get("limit") or {}).get("interval")]
    if not rs:
        raise FindingError(f"{RUNS['roofs_end']}: no record with an interval")
    start = {r["limit"]["roof"]: end["roofs"][r["limit"]["roof"]]["start"] for r in rs}
    shares = [r["limit"]["fraction"] for r in rs]
    return {"records": len(rs), "rounds": max(r.get("round", 1) for r in rs), "size": rs[0]["size"],
            "seconds": end["seconds"], "drift": {k: v["drift"] for k, v in end["roofs"].items()},
            "low": min(r["limit"]["interval"]["low"] for r in rs), "high": max(r["limit"]["interval"]["high"] for r in rs),
            "share_low": min(shares), "share_high": max(shares),
            "above": sum(1 for r in rs if reads_above(r)),
            "above_start": sum(1 for r in rs if r["limit"]["attained"] / start[r["limit"]["roof"]] > 1),
            "backends": sorted({r["backend"] for r in rs})}


def distributed() -> dict:
    """Ranks against threads on one node: π 2^30 strong scaling, and the latency probes."""
    d = doc("distributed")
    pi = [r for r in ok("distributed", study="strong", kernel="pi", size=1 << 30)]
    out = {}
    for ranks in (4, 16):
        mpi = one("distributed", study="strong", kernel="pi", size=1 << 30, backend="mpi+serial", ranks=ranks)
        best = min((r for r in pi if r.get("ranks") is None and r["threads"] == ranks), key=median)
        out[ranks] = {"ranks_s": median(mpi), "best": best["backend"], "best_s": median(best),
                      "ratio": median(best) / median(mpi), "verdict": verdict(best, mpi)}
    r = one("distributed", study="strong", kernel="pi", size=1 << 30, backend="mpi+serial", ranks=16)
    out["chunks_min"], out["chunks_max"] = r["metrics"]["rank_chunks_min"], r["metrics"]["rank_chunks_max"]
    out["cpus"] = d["context"]["cpu"]["logical_cpus"]
    return out


def multi_gpu() -> dict:
    """A kernel split over every GPU of a node, against one GPU of the same node."""
    out = {}
    for name in ("x2_multi", "x4_multi"):
        series = multi_gpu_series(doc(name))
        conc = [r for r in series if r["backend"] == "cuda-multi"]
        seq = [r for r in series if r["backend"] == "cuda-multi-seq"]
        out[name] = {"devices": conc[0]["devices"],
                     "pi": max(r["speedup"] for r in conc if r["kernel"] == "pi"),
                     "triad": max(r["speedup"] for r in conc if r["kernel"] == "triad"),
                     "seq_low": min(r["speedup"] for r in seq), "seq_high": max(r["speedup"] for r in seq)}
    # The same GPUs through MPI, one rank a GPU (mpi+cuda): the most ranks against one rank.
    for kernel, name in (("pi", "x4_mpi_pi"), ("triad", "x4_mpi_triad")):
        ranked = sorted(ok(name, kernel=kernel, backend="mpi+cuda"), key=lambda r: r["ranks"])
        one_rank, most = ranked[0], ranked[-1]
        if one_rank["ranks"] != 1:
            raise FindingError(f"{RUNS[name]}: no mpi+cuda record at 1 rank")
        out[f"mpi_{kernel}"] = {"ranks": most["ranks"], "speedup": median(one_rank) / median(most),
                                "verdict": verdict(one_rank, most)}
    return out


def hosts() -> dict:
    """MPI latency probes within one simulated host and across two."""
    def probes(name):
        series = mpi_latency_series(doc(name))["probes"]
        return {label.split(" (")[0]: dict(pts) for label, pts in series.items()}
    def link_us(name):
        """The one-way latency each job measured of its own link as it started (link_latency_s),
        median over the run's records, in µs: the delay scripts/sim-cluster.sh set is no record's."""
        lats = [r["link_latency_s"] for r in ok(name) if isinstance(r.get("link_latency_s"), float)]
        if not lats:
            raise FindingError(f"{RUNS[name]}: no record measured its link (link_latency_s)")
        return statistics.median(lats) * 1e6
    plain, delayed = probes("sim_plain"), probes("sim_delayed")
    added = {k: delayed[k][2] - plain[k][2] for k in plain}
    return {"plain": plain, "delayed": delayed, "added": added,
            "link": {"plain": link_us("sim_plain"), "delayed": link_us("sim_delayed")},
            "allreduce_verdict": verdict(one("sim_plain", kernel="mpi_allreduce"),
                                         one("sim_delayed", kernel="mpi_allreduce")),
            "hosts": one("sim_plain", kernel="mpi_allreduce").get("host_names")}


def references() -> dict:
    """Each reference run's fastest backend per kernel and its share of the roof that binds it."""
    out = {}
    for name in ("ref_dev", "ref_h100"):
        best = {}
        for r in ok(name):
            lim = r.get("limit")
            if r.get("study") != "quick" or not isinstance(lim, dict) or lim.get("fraction") is None:
                continue
            key = (r["kernel"], r.get("processor", "cpu"))
            if key not in best or rate(r) > rate(best[key]):
                best[key] = r
        out[name] = {f"{k} ({p})": {"backend": r["backend"], "threads": r["threads"], "share": r["limit"]["fraction"],
                                    "roof": r["limit"]["roof"]} for (k, p), r in sorted(best.items())}
        out[name + "_cpu"] = doc(name)["context"]["cpu"].get("model", "unknown")
    return out


def machine(name: str) -> dict:
    """What a run's context says of its machine."""
    c = doc(name)["context"]
    cpu = c.get("cpu", {})
    gpus = [g.get("name", "?") for g in c.get("gpus", c.get("gpu", []) or [])] if isinstance(c.get("gpus", c.get("gpu")), list) else []
    return {"cpu": cpu.get("model", "unknown"), "cpus": cpu.get("logical_cpus"), "gpus": gpus,
            "compiler": c.get("build", {}).get("compiler", "unknown")}
