#!/usr/bin/env python3
"""Plots and a self-contained report.html from parlab result files.

Reads RUN_DIR/results.json only (never console text) and writes RUN_DIR/plots/*.png and *.svg
and RUN_DIR/report.html. Output is deterministic: the same results.json gives byte-identical
files (fixed SVG hash salt, no dates in metadata, sorted groups).

    python3 experiments/plot.py results/<host>/<run>        # or: parlab report <run>

Figures:
  speedup_<study>_<kernel>...   speedup = median serial time / median time, and parallel
                                efficiency, vs threads per backend, with the ideal line
                                (strong scaling); weak-scaling efficiency T(1)/T(n)
  bandwidth_<kernel>...         bytes/s vs array footprint per backend, cache sizes marked
  throughput_<study>_<kernel>...  rate of each backend at its most workers (threads, or ranks x threads)
Exit codes: 0 done, 2 the input is missing or malformed (the message says what and where).
"""
from __future__ import annotations

import argparse
import base64
import html
import json
import math
import os
import sys
from collections import defaultdict

SCHEMA = "parlab-results/1"
# The race lab and the overhead probes get figures of their own, never speed figures.
RACE_KERNELS = ("count_racy", "count_atomic", "count_local", "rng_shared", "rng_counter", "sum_order", "sum_canonical",
                "py_count_racy", "py_count_racy_call", "py_count_locked", "py_numpy_add_racy")
OVERHEAD_KERNELS = ("overhead_empty", "overhead_for", "overhead_reduce")
LAB_KERNELS = RACE_KERNELS + OVERHEAD_KERNELS
# GPU studies (gpu/): figures of their own too.
TRANSFER_KERNELS = ("transfer_pageable", "transfer_pinned", "transfer_many_small", "transfer_one_large")
LOGGING_KERNELS = ("logging_every_step", "logging_on_device")
STUDY_KERNELS = TRANSFER_KERNELS + LOGGING_KERNELS


class InputError(Exception):
    """A results file that is missing or malformed."""


def load_run(run_dir: str) -> dict:
    path = os.path.join(run_dir, "results.json") if os.path.isdir(run_dir) else run_dir
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (expected a parlab run directory)") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a JSON object")
    if doc.get("schema") != SCHEMA:
        raise InputError(f"{path}: schema is {doc.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("context", "records", "status"):
        if key not in doc:
            raise InputError(f"{path}: missing key {key!r}")
    if not isinstance(doc["records"], list):
        raise InputError(f"{path}: 'records' must be a list")
    for i, r in enumerate(doc["records"]):
        for key in ("kernel", "backend", "threads", "size", "status"):
            if key not in r:
                raise InputError(f"{path}: record {i} lacks {key!r}")
        if r["status"] == "ok":
            t = r.get("time_s", {})
            if not isinstance(t.get("median"), (int, float)) or t["median"] <= 0:
                raise InputError(f"{path}: record {i} ({r['kernel']} {r['backend']}) has no positive median time")
    doc["_path"] = path
    return doc


def fmt_size(n: int) -> str:
    if n >= 1024 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def fmt_rate(x: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}{unit}"
    return f"{x:.3g} {unit}"


def rate_of(r: dict):
    """The headline rate of a record and its unit."""
    rate = r.get("rate", {})
    if "samples_per_s" in rate:
        return rate["samples_per_s"], "samples/s"
    if r["kernel"] == "matmul" and "flops_per_s" in rate:
        return rate["flops_per_s"], "flop/s"
    if "bytes_per_s" in rate:
        return rate["bytes_per_s"], "B/s"
    return None, ""


def element_bytes(r: dict) -> int:
    return {"double": 8, "float": 4, "int32": 4}.get(r.get("precision"), 8)


class Plotter:
    def __init__(self, out_dir: str):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        matplotlib.rcParams.update({"svg.hashsalt": "parlab", "figure.dpi": 100, "savefig.dpi": 100,
                                    "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
        self.plt = plt
        self.out_dir = out_dir
        self.figures: list[tuple[str, str]] = []  # (name, caption)
        os.makedirs(out_dir, exist_ok=True)

    def save(self, fig, name: str, caption: str) -> None:
        fig.tight_layout()
        fig.savefig(os.path.join(self.out_dir, name + ".png"), metadata={"Software": None})
        fig.savefig(os.path.join(self.out_dir, name + ".svg"), metadata={"Date": None, "Creator": None})
        self.plt.close(fig)
        self.figures.append((name, caption))


def ok_records(doc: dict, lab: bool = False):
    """Valid records of the canonical kernels (lab=False) or of the lab (lab=True)."""
    return [r for r in doc["records"] if r["status"] == "ok" and (r["kernel"] in LAB_KERNELS) == lab]


def scaling_series(doc: dict) -> dict:
    """What the scaling figures plot, as data (tested on its own).

    Returns {(study, scaling, kernel, base_size, precision): {backend: [(threads, speedup,
    efficiency)]}}. Strong scaling: speedup = median serial time / median time, efficiency =
    speedup / threads; without a serial record the backend's own 1-thread time is the
    reference and the backend is labelled so. Weak scaling (work grows with threads): scaled
    speedup = T_ref * threads / T(n), efficiency = T_ref / T(n).
    """
    groups = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") not in ("strong", "weak"):
            continue
        base = r["size"] // r["threads"] if r["scaling"] == "weak" else r["size"]
        groups[(r.get("study", ""), r["scaling"], r["kernel"], base, r.get("precision", ""))].append(r)
    out = {}
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
            ref = serial[0] if serial else (own[0] if own else None)
            if ref is None:
                continue
            label = backend if serial else backend + " (vs own 1 thread)"
            t_ref = ref["time_s"]["median"]
            pts = []
            for r in rs:
                t = r["time_s"]["median"]
                if scaling == "strong":
                    speed = t_ref / t
                    pts.append((r["threads"], speed, speed / r["threads"]))
                else:
                    pts.append((r["threads"], t_ref * r["threads"] / t, t_ref / t))
            series[label] = pts
        if series:
            out[key] = series
    return out


def scaling_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    for (study, scaling, kernel, base, precision), series in scaling_series(doc).items():
        fig, (ax1, ax2) = p.plt.subplots(1, 2, figsize=(10, 4))
        tmax = max(t for pts in series.values() for t, _, _ in pts)
        for label, pts in series.items():
            xs = [t for t, _, _ in pts]
            ax1.plot(xs, [s for _, s, _ in pts], marker="o", label=label)
            ax2.plot(xs, [e for _, _, e in pts], marker="o", label=label)
        ideal = list(range(1, tmax + 1))
        ax1.plot(ideal, ideal, "k--", linewidth=1, label="ideal")
        ax2.plot(ideal, [1.0] * len(ideal), "k--", linewidth=1, label="ideal")
        for ax in (ax1, ax2):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("threads")
        what = "speedup (median serial time / median time)" if scaling == "strong" else "scaled speedup (weak)"
        ax1.set_ylabel(what)
        ax2.set_ylabel("parallel efficiency")
        ax2.set_ylim(0, 1.2)
        title = f"{kernel} {scaling} scaling, N={fmt_size(base)}{' per thread' if scaling == 'weak' else ''} {precision}"
        ax1.set_title(title)
        ax1.legend(fontsize=7)
        name = f"speedup_{study}_{scaling}_{kernel}_{fmt_size(base)}_{precision}".replace("^", "p")
        p.save(fig, name, title)


def bandwidth_figures(p: Plotter, doc: dict) -> None:
    groups = defaultdict(lambda: defaultdict(list))
    for r in ok_records(doc):
        if "bytes_per_s" not in r.get("rate", {}) or r["kernel"] in ("matmul",) + STUDY_KERNELS:
            continue
        groups[(r["kernel"], r.get("precision", ""))][(r["backend"], r["threads"])].append(r)
    caches = doc["context"].get("cpu", {}).get("caches", []) or []
    for (kernel, precision), lines in sorted(groups.items()):
        if max(len({r["size"] for r in rs}) for rs in lines.values()) < 3:
            continue
        fig, ax = p.plt.subplots(figsize=(8, 4.5))
        # Footprint of every array the kernel's workload allocates (STREAM keeps a, b and c).
        words = {"plus_one": 2}.get(kernel, 3)
        for (backend, threads), rs in sorted(lines.items()):
            rs = sorted(rs, key=lambda r: r["size"])
            xs = [r["size"] * element_bytes(r) * words for r in rs]
            ys = [r["rate"]["bytes_per_s"] / 1e9 for r in rs]
            ax.plot(xs, ys, marker="o", label=f"{backend} t={threads}")
        for c in caches:
            ax.axvline(c["bytes"], color="grey", linestyle=":", linewidth=1)
            ax.text(c["bytes"], ax.get_ylim()[1] * 0.95, f" L{c['level']}", fontsize=7, color="grey")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("array footprint (bytes of all arrays)")
        ax.set_ylabel("bandwidth (GB/s)")
        title = f"{kernel} bandwidth vs size ({precision}); dotted: cache sizes of one core's hierarchy"
        ax.set_title(title)
        ax.legend(fontsize=7, ncol=2)
        p.save(fig, f"bandwidth_{kernel}_{precision}", title)


def throughput_figures(p: Plotter, doc: dict) -> None:
    """One bar chart per (study, kernel, precision): each backend at its most workers,
    at the largest size the study measured (a size sweep is the bandwidth figure's job)."""
    groups = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") == "weak" or r["kernel"] in STUDY_KERNELS:
            continue
        groups[(r.get("study", ""), r["kernel"], r.get("precision", ""))].append(r)
    for (study, kernel, precision), recs in sorted(groups.items()):
        size = max(r["size"] for r in recs)
        best = {}
        for r in recs:
            # One bar per backend and interpreter mode: a run over several interpreters has a
            # record of each backend from each, and they must not replace one another.
            # An MPI record's workers are its ranks x threads: its bar is the widest job.
            key = r["backend"] + interpreter_suffix(r)
            if r["size"] == size and (key not in best or workers(r) > workers(best[key])):
                best[key] = r
        if len(best) < 2:
            continue
        names = sorted(best)
        vals, unit = [], ""
        for n in names:
            v, unit = rate_of(best[n])
            vals.append(v or 0.0)
        # Horizontal bars: backend names sit on the y axis one per row, so labels never overlap
        # however many backends there are. Rates spanning more than two orders of magnitude
        # (pure Python next to a GPU) go on a log axis, where the smallest bar stays visible.
        order = sorted(range(len(names)), key=lambda i: vals[i])
        names, vals = [names[i] for i in order], [vals[i] for i in order]
        fig, ax = p.plt.subplots(figsize=(8, 1.2 + 0.32 * len(names)))
        bars = ax.barh([f"{n} ({bar_label(best[n])})" for n in names], vals, color="tab:blue")
        positive = [v for v in vals if v > 0]
        log = bool(positive) and max(positive) / min(positive) > 100
        if log:
            ax.set_xscale("log")
        for b, v in zip(bars, vals):
            ax.text(b.get_width(), b.get_y() + b.get_height() / 2, " " + fmt_rate(v, unit), ha="left", va="center",
                    fontsize=7)
        ax.set_xlim(right=(max(vals) * (8 if log else 1.25)) if vals and max(vals) > 0 else None)
        ax.set_xlabel(unit + (" (log scale)" if log else ""))
        title = f"{kernel} throughput per backend at its most workers, N={fmt_size(size)} {precision}"
        # Over the figure, not the axes: long backend labels push the axes right, and a title
        # centred on them ran off the figure's edge.
        fig.suptitle(title, fontsize=9)
        name = f"throughput_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, title)


def workers(r: dict) -> int:
    """Threads the record ran on in all: ranks x threads for an MPI job, threads otherwise."""
    return (ranks_of(r) or 1) * int(r["threads"])


def bar_label(r: dict) -> str:
    """"t=16" for one process, "16 ranks x 1 thread" for an MPI job (its fields, not its name)."""
    return f"t={r['threads']}" if ranks_of(r) is None else layout_label(ranks_of(r), r["threads"])


def interpreter_suffix(r: dict) -> str:
    """"" for a record of the run's own GIL interpreter (and for runs from before the interpreter
    fields), else " [3.13.5 free-threaded, no GIL]": the fields, never the backend name, say
    which interpreter and GIL state a Python record had (docs/design.md, "Dimensions that compose")."""
    if "python_gil" not in r and r.get("python_build", "gil") == "gil":
        return ""
    return f" [{r.get('interpreter', '?')}, {'GIL' if r.get('gil_enabled', True) else 'no GIL'}]"


def interpreter_tag(r: dict) -> str:
    """A short name of a Python record's interpreter and GIL state for crowded axes ("3.11.2",
    "3.13.5t no GIL"); empty for records without the fields (non-Python, or older runs)."""
    if "interpreter" not in r:
        return ""
    if r.get("python_build") == "free-threaded":
        return f"{r['interpreter'].split()[0]}t {'GIL' if r.get('gil_enabled', True) else 'no GIL'}"
    return r["interpreter"]


def gil_series(doc: dict) -> dict:
    """Speedup of each Python variant over its own 1-thread median time: {backend: [(threads, speedup)]}.
    pi only: the peers that also run triad (NumPy, Numba) would otherwise put a bandwidth-bound
    kernel's points on the same lines."""
    by = defaultdict(list)
    for r in doc["records"]:
        if r["status"] == "ok" and r.get("kind") == "python" and r.get("scaling") == "strong" and r["kernel"] == "pi":
            by[r["backend"] + interpreter_suffix(r)].append(r)
    out = {}
    for backend, rs in sorted(by.items()):
        one = [r for r in rs if r["threads"] == 1]
        if not one or len(rs) < 2:
            continue
        t1 = one[0]["time_s"]["median"]
        out[backend] = [(r["threads"], t1 / r["time_s"]["median"]) for r in sorted(rs, key=lambda r: r["threads"])]
    return out


def gil_figures(p: Plotter, doc: dict) -> None:
    """Every Python variant on one figure: speedup vs threads with the ideal line."""
    from matplotlib.ticker import MaxNLocator

    series = gil_series(doc)
    if not series:
        return
    fig, ax = p.plt.subplots(figsize=(9, 5.5))
    tmax = max(t for pts in series.values() for t, _ in pts)
    variants = sorted({label.split(" [")[0] for label in series})
    colours = {v: p.plt.get_cmap("tab20")(i % 20) for i, v in enumerate(variants)}
    for backend, pts in series.items():
        # One colour per variant, one line style per interpreter and GIL state.
        style = "-" if not backend.endswith("]") else (":" if backend.endswith(", GIL]") else "-.")
        ax.plot([t for t, _ in pts], [s for _, s in pts], marker="o", linestyle=style, label=backend,
                color=colours[backend.split(" [")[0]])
    ax.plot(range(1, tmax + 1), range(1, tmax + 1), "k--", linewidth=1, label="ideal")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("Python threads (or sub-interpreters)")
    ax.set_ylabel("speedup over the same variant on 1 thread")
    ax.set_title("What the GIL costs: pi from Python")
    ax.legend(fontsize=6)
    p.save(fig, "gil", "GIL study: speedup vs threads per Python variant and interpreter (each relative to its own "
                       "1-thread time; solid: the run's own interpreter, dash-dot: free-threaded without a GIL, "
                       "dotted: free-threaded with PYTHON_GIL=1)")
    shared_private_figure(p, doc)


def shared_private_figure(p: Plotter, doc: dict) -> None:
    """Pure-Python pi with shared state (every thread calls one module) against private state
    (each thread its own copy of the module), per interpreter and GIL state, as samples/s: the
    free-threaded build's shared-state limit is reference-count contention, not the GIL. The
    1-thread points give the free-threaded build's single-thread cost against the default one."""
    recs = [r for r in ok_records(doc) if r.get("kind") == "python" and r["kernel"] == "pi"
            and r["backend"] in ("py-pure-threads", "py-pure-private") and r.get("scaling") == "strong"]
    if not any(r.get("python_build") == "free-threaded" for r in recs):
        return
    by = defaultdict(list)
    for r in recs:
        by[(r["backend"], interpreter_suffix(r) or f" [{r.get('interpreter', 'default')}, GIL]")].append(r)
    fig, ax = p.plt.subplots(figsize=(9, 5.5))
    for (backend, mode), rs in sorted(by.items()):
        rs = sorted(rs, key=lambda r: r["threads"])
        ax.plot([r["threads"] for r in rs], [rate_of(r)[0] for r in rs], marker="o",
                linestyle="-" if backend == "py-pure-private" else "--",
                label=("private state" if backend == "py-pure-private" else "shared state") + mode)
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("Python threads")
    ax.set_ylabel("samples/s")
    ax.set_title("Pure-Python pi: shared vs private state, per interpreter")
    ax.legend(fontsize=6)
    p.save(fig, "gil_shared_private", "Pure-Python pi: every thread calling one module (shared, dashed) against each "
                                      "thread with its own copy of the module (private, solid), per interpreter and GIL "
                                      "state; the 1-thread points show the free-threaded build's single-thread cost")


def gpu_study_figures(p: Plotter, doc: dict) -> None:
    """The GPU studies: transfer bandwidth vs size (pageable vs pinned, many small copies vs
    one large), and the logging study's time split into kernel and transfer time."""
    recs = [r for r in doc["records"] if r["status"] == "ok" and r["kernel"] in STUDY_KERNELS]
    transfers = [r for r in recs if r["kernel"] in TRANSFER_KERNELS and "bytes_per_s" in r.get("rate", {})]
    if transfers:
        fig, ax = p.plt.subplots(figsize=(8, 4.5))
        for kernel in TRANSFER_KERNELS:
            rs = sorted((r for r in transfers if r["kernel"] == kernel), key=lambda r: r["size"])
            if rs:
                ax.plot([r["size"] for r in rs], [r["rate"]["bytes_per_s"] / 1e9 for r in rs], marker="o",
                        label=kernel.replace("transfer_", ""))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes per transfer study point")
        ax.set_ylabel("host<->device bandwidth (GB/s)")
        ax.set_title("Transfers: pageable vs pinned; many small copies vs one large")
        ax.legend(fontsize=7)
        p.save(fig, "gpu_transfers", "Host-device transfer bandwidth vs size (time from CUDA events, transfers only)")
    logging = [r for r in recs if r["kernel"] in LOGGING_KERNELS]
    if logging:
        logging.sort(key=lambda r: r["kernel"])
        fig, ax = p.plt.subplots(figsize=(6, 4))
        names = [r["kernel"].replace("logging_", "") for r in logging]
        kern = [r.get("kernel_s") or 0.0 for r in logging]
        xfer = [r.get("transfer_s") or 0.0 for r in logging]
        ax.bar(names, kern, label="kernel time", color="tab:blue")
        ax.bar(names, xfer, bottom=kern, label="transfer time", color="tab:orange")
        ax.set_ylabel("seconds per run (median)")
        ax.set_title(f"Logging {logging[0]['size']} steps: read back every step vs once")
        ax.legend(fontsize=7)
        p.save(fig, "gpu_logging", "Logging study: kernel and transfer time, norm read back every step vs kept on the device")


MULTI_GPU = {"cuda-multi": "all GPUs at once", "cuda-multi-seq": "one GPU after another"}


def multi_gpu_series(doc: dict) -> list[dict]:
    """All GPUs against one (tested on its own): for every (kernel, precision, size) measured on
    one GPU (`cuda`) and split over every GPU (`cuda-multi`, `cuda-multi-seq`), the speedup over
    one GPU and the GPU count the record's metrics name."""
    recs = [r for r in ok_records(doc) if r["backend"] in ("cuda", *MULTI_GPU)]
    one = {(r["kernel"], r.get("precision", ""), r["size"]): r for r in recs if r["backend"] == "cuda"}
    rows = []
    for r in sorted(recs, key=lambda r: (r["kernel"], r.get("precision", ""), r["size"], r["backend"])):
        ref = one.get((r["kernel"], r.get("precision", ""), r["size"]))
        if r["backend"] == "cuda" or ref is None:
            continue
        rows.append({"kernel": r["kernel"], "precision": r.get("precision", ""), "size": r["size"],
                     "backend": r["backend"], "devices": int(r.get("metrics", {}).get("devices", 0)),
                     "speedup": ref["time_s"]["median"] / r["time_s"]["median"]})
    return rows


def multi_gpu_figures(p: Plotter, doc: dict) -> None:
    rows = multi_gpu_series(doc)
    if not rows:
        return
    keys = sorted({(r["kernel"], r["precision"], r["size"]) for r in rows})
    fig, ax = p.plt.subplots(figsize=(max(6, 1.6 * len(keys)), 4.6))
    width = 0.38
    for k, (backend, label) in enumerate(MULTI_GPU.items()):
        xs, ys = [], []
        for i, key in enumerate(keys):
            hit = [r for r in rows if (r["kernel"], r["precision"], r["size"]) == key and r["backend"] == backend]
            if hit:
                xs.append(i + (k - 0.5) * width)
                ys.append(hit[0]["speedup"])
        bars = ax.bar(xs, ys, width, label=f"{backend} ({label})")
        for b, y in zip(bars, ys):
            ax.text(b.get_x() + b.get_width() / 2, y, f"{y:.2f}x", ha="center", va="bottom", fontsize=7)
    devices = max(r["devices"] for r in rows)
    if devices > 0:
        ax.axhline(devices, color="k", linestyle="--", linewidth=1, label=f"ideal ({devices} GPUs)")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{kern} {fmt_size(n)}" + (f"\n{prec}" if kern != "pi" else "") for kern, prec, n in keys])
    ax.set_ylabel("speedup over one GPU (median times)")
    ax.set_ylim(0, max(devices, max(r["speedup"] for r in rows)) * 1.15)
    ax.set_title(f"All {devices} GPUs against one: concurrent vs one after another")
    # Below the axes: inside, it covered the tallest bars' labels.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3)
    p.save(fig, "multi_gpu", "Multi-GPU: speedup over one GPU of the same kernel split over every GPU, launched "
                             "concurrently or one GPU after another")


def race_figures(p: Plotter, doc: dict) -> None:
    """Per race kernel: the share of trials whose result differed from the exact answer, and
    the largest relative deviation, per backend and thread count."""
    recs = [r for r in ok_records(doc, lab=True) if r["kernel"] in RACE_KERNELS and "metrics" in r]
    if not recs:
        return
    kernels = [k for k in RACE_KERNELS if any(r["kernel"] == k for r in recs)]
    fig, axes = p.plt.subplots(len(kernels), 2, figsize=(11, 2.4 * len(kernels)), squeeze=False)
    for row, kernel in enumerate(kernels):
        rs = sorted((r for r in recs if r["kernel"] == kernel),
                    key=lambda r: (r["backend"], interpreter_suffix(r), r["threads"]))
        one_backend = len({r["backend"] for r in rs}) == 1  # then the title's kernel says it
        labels = [("" if one_backend else r["backend"] + "\n") + interpreter_tag(r) + f"\nt={r['threads']}" for r in rs]
        share = [r["metrics"]["deviating_share"] for r in rs]
        dev = [r["metrics"]["max_rel_deviation"] for r in rs]
        ax1, ax2 = axes[row]
        ax1.bar(range(len(rs)), share, color=["tab:red" if x > 0 else "tab:green" for x in share])
        ax1.set_ylim(0, 1.05)
        ax1.set_ylabel("share of trials\nthat differ")
        ax1.set_title(f"{kernel}: {int(rs[0]['metrics']['trials'])} trials per point", fontsize=8)
        ax2.bar(range(len(rs)), [max(d, 1e-18) for d in dev], color="tab:orange")
        ax2.set_yscale("log")
        ax2.set_ylabel("largest relative\ndeviation")
        for ax in (ax1, ax2):
            ax.set_xticks(range(len(rs)))
            ax.set_xticklabels(labels, fontsize=6)
    p.save(fig, "races", "Race lab: how often and by how much each kernel's result differs from the exact answer, "
                         "per backend, interpreter and GIL state (3.13.5t: the free-threaded build) "
                         "(red: some trials differ; racy kernels are racy by design, their counterparts must stay at 0)")


def overhead_figures(p: Plotter, doc: dict) -> None:
    """EPCC-style overhead: time per construct minus the serial reference doing the same work
    per thread, vs threads, per backend."""
    from matplotlib.ticker import MaxNLocator

    recs = [r for r in ok_records(doc, lab=True) if r["kernel"] in OVERHEAD_KERNELS and ranks_of(r) is None]
    if not recs:
        return
    kernels = [k for k in OVERHEAD_KERNELS if any(r["kernel"] == k for r in recs)]
    fig, axes = p.plt.subplots(1, len(kernels), figsize=(4.2 * len(kernels), 3.8), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        rs = [r for r in recs if r["kernel"] == kernel]
        ref = [r for r in rs if r["backend"] == "serial"]
        ref_us = ref[0]["time_s"]["median"] / ref[0]["size"] * 1e6 if ref else 0.0
        by_backend = defaultdict(list)
        for r in rs:
            if r["backend"] != "serial":
                by_backend[r["backend"]].append(r)
        for backend, brs in sorted(by_backend.items()):
            brs.sort(key=lambda r: r["threads"])
            ax.plot([r["threads"] for r in brs], [r["time_s"]["median"] / r["size"] * 1e6 - ref_us for r in brs],
                    marker="o", label=backend)
        ax.set_yscale("symlog", linthresh=0.1)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("threads")
        ax.set_ylabel("overhead per construct (µs)")
        ax.set_title(kernel.replace("overhead_", ""), fontsize=9)
        ax.legend(fontsize=7)
    p.save(fig, "overhead", "Scheduling overhead per construct (µs), minus the serial reference with the same work per "
                            "thread: empty fork-join, parallel for of 64 trivial iterations per thread, reduction")


def crossover_figures(p: Plotter, doc: dict) -> list:
    """Time of serial / time of each backend vs size for the crossover study: above 1 the
    backend wins. Returns [(kernel, backend, threads, crossover size or None)]."""
    found = []
    recs = [r for r in ok_records(doc) if r.get("study") == "crossover"]
    for kernel in sorted({r["kernel"] for r in recs}):
        rs = [r for r in recs if r["kernel"] == kernel]
        serial = {r["size"]: r["time_s"]["median"] for r in rs if r["backend"] == "serial"}
        if not serial:
            continue
        fig, ax = p.plt.subplots(figsize=(8, 4))
        by = defaultdict(list)
        for r in rs:
            if r["backend"] != "serial" and r["size"] in serial:
                by[(r["backend"], r["threads"])].append(r)
        for (backend, threads), brs in sorted(by.items()):
            brs.sort(key=lambda r: r["size"])
            ratio = [serial[r["size"]] / r["time_s"]["median"] for r in brs]
            ax.plot([r["size"] for r in brs], ratio, marker="o", label=f"{backend} t={threads}")
            cross = next((r["size"] for r, x in zip(brs, ratio) if x > 1.0), None)
            found.append((kernel, backend, threads, cross))
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("size (samples or elements)")
        ax.set_ylabel("serial time / backend time")
        ax.set_title(f"{kernel}: where parallel starts to pay (above the dashed line)")
        ax.legend(fontsize=7)
        p.save(fig, f"crossover_{kernel}", f"{kernel} crossover: serial time / backend time vs size; "
               + "; ".join(f"{b} t={t}: {fmt_size(c) if c else 'never'}" for k, b, t, c in found if k == kernel))
    return found


# ---------------------------------------------------------------- Python models and accuracy
# The task-based Python models (embed/workloads/parlab_tasks.py), by study, and the one-thread
# reference each study's models are judged against at the same size: pure-Python pi on one
# thread for pure-Python task bodies, parlab.pi on one thread for bodies that call it.
PY_MODEL_STUDIES = {"python-models": "py-pure-threads", "python-models-nogil": "py-parlab-gil-released"}
PY_TASK_MODELS = ("py-thread-pool", "py-processes", "py-dask-delayed", "py-dask-distributed",
                  "py-thread-pool-parlab", "py-dask-delayed-parlab")


def python_models_table(doc: dict, study: str = "python-models") -> list[dict]:
    """A python-models study as data (tested on its own): one row per (backend, threads, size)
    with the median time, the speedup over the study's reference on one thread at the same size,
    and the overhead metrics the task models record (None where a backend has none)."""
    ref = PY_MODEL_STUDIES[study]
    recs = [r for r in ok_records(doc) if r.get("study") == study and r["kernel"] == "pi"]
    one = {r["size"]: r["time_s"]["median"] for r in recs if r["backend"] == ref and r["threads"] == 1}
    rows = []
    for r in sorted(recs, key=lambda r: (r["backend"], r["threads"], r["size"])):
        m = r.get("metrics", {})
        t = r["time_s"]["median"]
        rows.append({"study": study, "reference": ref, "backend": r["backend"], "threads": r["threads"],
                     "size": r["size"], "median_s": t,
                     "speedup_vs_one_thread": one[r["size"]] / t if r["size"] in one and t > 0 else None,
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
        if r["speedup_vs_one_thread"] is not None and not (r["backend"] == r["reference"] and r["threads"] == 1):
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


def python_models_figures(p: Plotter, doc: dict) -> list[dict]:
    """One figure per python-models study (pure-Python bodies; parlab.pi bodies)."""
    rows = []
    for study in PY_MODEL_STUDIES:
        rows += python_models_figure(p, doc, study)
    return rows


def python_models_figure(p: Plotter, doc: dict, study: str) -> list[dict]:
    """The talk's figure: left, each model's speedup over one thread against the size (below the
    dashed line it loses); right, the per-task overhead of the task models against the size, with
    each one's empty-task round trip (dotted), both at the largest worker count."""
    rows = python_models_table(doc, study)
    if not rows:
        return rows
    ref = PY_MODEL_STUDIES[study]
    crossings = python_models_crossovers(rows)
    top = defaultdict(int)
    for r in rows:
        top[r["backend"]] = max(top[r["backend"]], r["threads"])
    fig, (ax, bx) = p.plt.subplots(1, 2, figsize=(12, 4.8))
    colors = {}
    for backend in sorted(top):
        rs = [r for r in rows if r["backend"] == backend and r["threads"] == top[backend]
              and r["speedup_vs_one_thread"] is not None]
        if not rs or (backend == ref and top[backend] == 1):
            continue
        cross = crossings.get((backend, top[backend]))
        label = (f"{backend} ({top[backend]} {'thread' if backend == 'py-parlab-gil-released' else 'worker'}"
                 f"{'s' if top[backend] > 1 else ''}; beats 1 thread from {fmt_size(cross) if cross else 'never'})")
        line, = ax.plot([r["size"] for r in rs], [r["speedup_vs_one_thread"] for r in rs], marker="o", label=label)
        colors[backend] = line.get_color()
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("pi samples N")
    ax.set_ylabel(f"time of {ref} on 1 thread / time")
    ax.set_title("Python models against one thread (above the dashed line they win)")
    ax.legend(fontsize=6)
    for backend in PY_TASK_MODELS:
        rs = [r for r in rows if r["backend"] == backend and r["threads"] == top.get(backend)
              and r["per_task_overhead_s"] is not None]
        if not rs:
            continue
        c = colors.get(backend)
        bx.plot([r["size"] for r in rs], [max(r["per_task_overhead_s"], 1e-7) for r in rs], marker="o", color=c,
                label=f"{backend} ({top[backend]} workers)")
        trips = sorted(r["roundtrip_s"] for r in rs if r["roundtrip_s"] is not None)
        if trips:
            bx.axhline(trips[len(trips) // 2], color=c, linestyle=":", linewidth=1)
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.set_xlabel("pi samples N")
    bx.set_ylabel("worker time outside task bodies per task (s)")
    bx.set_title("Per-task overhead (dotted: an empty task's round trip)")
    bx.legend(fontsize=6)
    body = "pure-Python pi" if study == "python-models" else "parlab.pi with the GIL released"
    p.save(fig, study.replace("-", "_"),
           f"Python models ({body} in the same tasks): speedup over {ref} on one thread and per-task overhead "
           "vs size; "
           + "; ".join(f"{b} t={t} beats one thread from {fmt_size(c) if c else 'never'}"
                       for (b, t), c in sorted(crossings.items()) if t == top[b]))
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


def convergence_figures(p: Plotter, doc: dict) -> dict | None:
    import textwrap

    points = convergence_points(doc)
    if not points:
        return None
    s = convergence_summary(points)
    fig, ax = p.plt.subplots(figsize=(8, 5))
    ns = sorted({n for pts in points.values() for n, _, _ in pts})
    grid = [2 ** (k / 4) for k in range(int(4 * math.log2(ns[0])), int(4 * math.log2(ns[-1])) + 1)]
    ax.fill_between(grid, [1e-30] * len(grid), [3 * pi_relative_sigma(n) for n in grid], color="0.9",
                    label="within 3 sigma (binomial bound)")
    ax.plot(grid, [pi_relative_sigma(n) for n in grid], "k--", linewidth=1, label="1 sigma")
    ax.plot(grid, [3 * pi_relative_sigma(n) for n in grid], "k-", linewidth=1, label="3 sigma")
    # Decreasing marker sizes, hollow, so points that coincide stay visible as rings.
    sizes = [11, 8, 5, 3]
    for i, (backend, pts) in enumerate(points.items()):
        ax.plot([n for n, _, _ in pts], [max(e, 1e-30) for _, _, e in pts], linestyle="none", marker="o",
                markersize=sizes[min(i, len(sizes) - 1)], markerfacecolor="none", label=f"{backend} ({len(pts)} N)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lows = [e for pts in points.values() for _, _, e in pts if e > 0]
    ax.set_ylim(min(lows + [pi_relative_sigma(ns[-1])]) / 10, 3 * pi_relative_sigma(ns[0]) * 3)
    ax.set_xlabel("pi samples N")
    ax.set_ylabel("|pi_hat - pi| / pi")
    same = ("every backend lies on the same points: identical hit counts at all "
            f"{s['shared_sizes']} N measured by more than one backend (the stream is canonical)"
            if not s["differing_sizes"] else
            f"hit counts DIFFER between backends at N = {', '.join(fmt_size(n) for n in s['differing_sizes'])}")
    missing = sorted({f"{r['backend']} ({r.get('reason', '')[:60]})" for r in doc["records"]
                      if r.get("study") == "convergence" and r["status"] == "unavailable"})
    lines = [f"pi's relative error vs N (seed {doc['records'][0].get('seed')})", same + ";",
             f"{s['beyond_3sigma']} of {s['points']} distinct points beyond 3 sigma, {s['beyond_1sigma']} beyond 1 sigma"]
    if missing:
        lines.append("not measured here: " + "; ".join(missing))
    ax.set_title("\n".join(textwrap.fill(x, 120) for x in lines), fontsize=7)
    ax.legend(fontsize=7, loc="lower left")
    p.save(fig, "convergence", f"Accuracy: relative error of pi vs N with the binomial 1 and 3 sigma bounds; {same}; "
           f"{s['beyond_1sigma']} of {s['points']} points beyond 1 sigma, {s['beyond_3sigma']} beyond 3 sigma")
    return s


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


# Python peers that run on a GPU (the rest are CPU peers).
GPU_PEERS = {"py-cupy", "py-torch"}


def peers_table(doc: dict) -> list[dict]:
    """The peers table, as data (tested on its own): for every kernel of the `peers` study and
    every peer (a python-kind record), at the peer's highest thread count, parlab's fastest
    backend of the same kind of device (CPU backends at that same thread count; any GPU backend
    for a GPU peer) and the ratio parlab rate / peer rate."""
    recs = [r for r in ok_records(doc) if r.get("study") == "peers" and rate_of(r)[0]]
    rows = []
    for key in sorted({(r["kernel"], str(r.get("precision")), r["size"]) for r in recs}):
        rs = [r for r in recs if (r["kernel"], str(r.get("precision")), r["size"]) == key]
        peers = [r for r in rs if r["kind"] == "python"]
        top = {}
        for r in peers:  # each peer at its highest thread count
            if r["backend"] not in top or r["threads"] > top[r["backend"]]["threads"]:
                top[r["backend"]] = r
        for name in sorted(top):
            peer = top[name]
            gpu = name in GPU_PEERS
            own = [r for r in rs if r["kind"] == ("gpu" if gpu else "cpu") and (gpu or r["threads"] == peer["threads"])]
            if not own:
                continue
            best = max(own, key=lambda r: rate_of(r)[0])
            unit = rate_of(best)[1]
            rows.append({"kernel": key[0], "precision": key[1], "size": key[2], "threads": peer["threads"],
                         "parlab": best["backend"], "parlab_threads": best["threads"], "parlab_rate": rate_of(best)[0],
                         "peer": name, "peer_rate": rate_of(peer)[0], "unit": unit,
                         "ratio": rate_of(best)[0] / rate_of(peer)[0]})
    return rows


def peers_figures(p: Plotter, doc: dict) -> list[dict]:
    rows = peers_table(doc)
    for kernel in sorted({r["kernel"] for r in rows}):
        kr = [r for r in rows if r["kernel"] == kernel]
        fig, ax = p.plt.subplots(figsize=(8, 0.5 + 0.45 * len(kr)))
        labels = [f"{r['peer']} t={r['threads']} vs {r['parlab']} t={r['parlab_threads']}" for r in kr]
        ax.barh(range(len(kr)), [r["ratio"] for r in kr], color=["C0" if r["ratio"] >= 1 else "C3" for r in kr])
        ax.set_yticks(range(len(kr)), labels, fontsize=7)
        ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlabel("parlab rate / peer rate (right of the dashed line: parlab faster)")
        ax.set_title(f"{kernel}: parlab against the peers, same run")
        p.save(fig, f"peers_{kernel}", f"{kernel} peers: " + "; ".join(
            f"{r['parlab']} t={r['parlab_threads']} {fmt_rate(r['parlab_rate'], r['unit'])} vs {r['peer']} "
            f"t={r['threads']} {fmt_rate(r['peer_rate'], r['unit'])} = {r['ratio']:.2f}x" for r in kr))
    return rows


def run_summary(doc: dict, peers: list | None = None) -> dict:
    """What the run found, as data for the report's first screen (tested on its own).

    findings: one row per (study, kernel, precision, size): the fastest backend and its rate,
    the best CPU speedup at the largest thread count, and for pi from Python every variant's
    speedup at its largest thread count with GIL-released against GIL-held; then one row per
    peer comparison. problems: every failed record, then every unavailable backend with its
    reason (one row per backend and reason)."""
    findings = []
    ok = ok_records(doc)
    speedups = scaling_series(doc)
    gil = gil_series(doc)
    groups = defaultdict(list)
    for r in ok:
        # The latency probes have no "fastest": one rank is trivially quickest; mpi_summary says
        # what they measured (latency per rank count).
        if r["kernel"] not in STUDY_KERNELS and r["kernel"] not in MPI_PROBE_KERNELS and rate_of(r)[0] is not None:
            groups[(r.get("study", ""), r["kernel"], r.get("precision", ""))].append(r)
    for (study, kernel, precision), recs in sorted(groups.items()):
        size = max(r["size"] for r in recs if r.get("scaling") != "weak") if any(
            r.get("scaling") != "weak" for r in recs) else max(r["size"] for r in recs)
        at = [r for r in recs if r["size"] == size]
        best = max(at, key=lambda r: rate_of(r)[0])
        v, unit = rate_of(best)
        job = "" if ranks_of(best) is None else f", {ranks_of(best)} rank{'s' if ranks_of(best) != 1 else ''}"
        parts = [f"fastest: {best['backend']}{interpreter_suffix(best)} (t={best['threads']}{job}) {fmt_rate(v, unit)}"]
        for (s_study, scaling, s_kernel, base, s_prec), series in speedups.items():
            if (s_study, scaling, s_kernel, base, s_prec) == (study, "strong", kernel, size, precision):
                tmax = max(t for pts in series.values() for t, _, _ in pts)
                top = max(((label, sp) for label, pts in series.items() for t, sp, _ in pts if t == tmax),
                          key=lambda x: x[1], default=None)
                if top:
                    parts.append(f"best CPU speedup at {tmax} threads: {top[0]} {top[1]:.2f}x (ideal {tmax}x)")
        # Every Python variant of the study, whatever its size (pure Python runs smaller).
        py = [r for r in recs if r.get("kind") == "python" and kernel == "pi"]
        if py:
            variants = []
            # gil_series keys carry the interpreter and GIL state of records from other interpreters.
            for backend in sorted({r["backend"] + interpreter_suffix(r) for r in py}):
                pts = gil.get(backend)
                if pts and len(pts) > 1:
                    t, sp = pts[-1]
                    variants.append((backend, t, sp))
            if variants:
                parts.append("Python threads: " + ", ".join(f"{b} {sp:.2f}x at {t}" for b, t, sp in variants))
            rel = {b: dict(gil[b]) for b in ("py-parlab-gil-released", "py-parlab-gil-held") if b in gil}
            if len(rel) == 2:
                tmax = max(set(rel["py-parlab-gil-released"]) & set(rel["py-parlab-gil-held"]), default=None)
                # The run's own interpreter (no suffix): released vs held is a property of one GIL.
                times = {r["backend"]: r["time_s"]["median"] for r in py
                         if r["threads"] == tmax and not interpreter_suffix(r)}
                if tmax and len(times) >= 2 and "py-parlab-gil-released" in times and "py-parlab-gil-held" in times:
                    parts.append(f"GIL released vs held at {tmax} threads: "
                                 f"{times['py-parlab-gil-held'] / times['py-parlab-gil-released']:.2f}x faster")
        findings.append({"study": study, "kernel": kernel, "precision": precision, "size": size, "finding": parts})
    for row in mpi_summary(doc):
        same = next((f for f in findings if (f["study"], f["kernel"], f["precision"]) ==
                     (row["study"], row["kernel"], row["precision"])), None)
        if same is None:
            findings.append(row)
        else:
            same["finding"].extend(row["finding"])
    for r in peers or []:
        findings.append({"study": "peers", "kernel": r["kernel"], "precision": r["precision"], "size": r["size"],
                         "finding": [f"parlab {r['parlab']} (t={r['parlab_threads']}) / {r['peer']} "
                                     f"(t={r['threads']}): {r['ratio']:.2f}x"]})
    problems = []
    for r in doc["records"]:
        if r["status"] not in ("ok", "unavailable"):
            detail = r.get("validation", {}).get("detail") or r.get("reason", "")
            problems.append({"what": f"{r['backend']} {r['kernel']} t={r['threads']} N={fmt_size(r['size'])}",
                             "status": r["status"], "reason": str(detail)})
    seen = set()
    for r in doc["records"]:
        if r["status"] == "unavailable" and (r["backend"], r.get("reason", "")) not in seen:
            seen.add((r["backend"], r.get("reason", "")))
            problems.append({"what": r["backend"], "status": "unavailable", "reason": r.get("reason", "")})
    return {"findings": findings, "problems": problems}


def summary_html(summary: dict) -> str:
    e = html.escape
    parts = ["<h2 id='summary'>What this run found</h2>"]
    if summary["findings"]:
        parts.append("<table class='summary'><tr><th class='l'>study</th><th class='l'>kernel</th><th>size</th>"
                     "<th class='l'>finding</th></tr>")
        for f in summary["findings"]:
            what = "<br>".join(e(x) for x in f["finding"])
            kernel = f["kernel"] + (f" ({f['precision']})" if f["precision"] and f["kernel"] != "pi" else "")
            parts.append(f"<tr><td class='l'>{e(f['study'])}</td><td class='l'>{e(kernel)}</td>"
                         f"<td>{e(fmt_size(f['size']))}</td><td class='l'>{what}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p>No valid measurement.</p>")
    failed = [p for p in summary["problems"] if p["status"] != "unavailable"]
    unavailable = [p for p in summary["problems"] if p["status"] == "unavailable"]
    if failed:
        parts.append(f"<h3 class='fail'>{len(failed)} measurement(s) failed</h3><table>"
                     + "".join(f"<tr class='fail'><td class='l'>{e(p['what'])}</td><td class='l'>{e(p['status'])}</td>"
                               f"<td class='l'>{e(p['reason'])}</td></tr>" for p in failed) + "</table>")
    else:
        parts.append("<p>Every measured result passed its validation.</p>")
    if unavailable:
        parts.append(f"<details><summary>{len(unavailable)} backend(s) unavailable here, with the reason</summary><table>"
                     + "".join(f"<tr><td class='l'>{e(p['what'])}</td><td class='l'>{e(p['reason'])}</td></tr>"
                               for p in unavailable) + "</table></details>")
    return "".join(parts)


def report_html(doc: dict, out_dir: str, figures: list[tuple[str, str]], peers: list | None = None) -> str:
    ctx = doc["context"]
    e = html.escape
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>parlab report</title><style>",
             "body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;font-size:12px}",
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}",
             "td.l,th.l{text-align:left}.fail{background:#fdd;color:#900}.warn{color:#a60}img{max-width:100%}",
             "table.summary td{vertical-align:top}table.summary{font-size:13px;margin-bottom:1em}</style></head><body>",
             f"<h1>parlab report: {e(str(doc.get('suite', '')))}</h1>",
             f"<p>Status: <b>{e(doc['status'])}</b>. Host {e(str(ctx.get('host')))}, started {e(str(ctx.get('started_utc')))}.</p>"]
    failed = [r for r in doc["records"] if r["status"] not in ("ok", "unavailable")]
    if failed:
        parts.append(f"<p class='fail'><b>{len(failed)} measurement(s) failed validation or errored</b> (rows in red below).</p>")
    parts.append(summary_html(run_summary(doc, peers)))
    if ctx.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li class='warn'>{e(w)}</li>" for w in ctx["warnings"]) + "</ul>")
    parts.append("<h2>Figures</h2>")
    for name, caption in figures:
        with open(os.path.join(out_dir, name + ".png"), "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        parts.append(f"<figure><img alt='{e(caption)}' src='data:image/png;base64,{data}'><figcaption>{e(caption)}"
                     f" (<a href='plots/{e(name)}.svg'>SVG</a>)</figcaption></figure>")
    if not figures:
        parts.append("<p>No figure: these results have no thread sweep, size sweep or backend comparison.</p>")
    parts.append(python_models_note(doc))
    if peers:
        parts.append("<h2>Peers</h2><table><tr><th class='l'>kernel</th><th class='l'>precision</th><th>size</th>"
                     "<th class='l'>parlab</th><th>threads</th><th>rate</th><th class='l'>peer</th><th>threads</th>"
                     "<th>rate</th><th>parlab / peer</th></tr>")
        for r in peers:
            parts.append(f"<tr><td class='l'>{e(r['kernel'])}</td><td class='l'>{e(r['precision'])}</td>"
                         f"<td>{e(fmt_size(r['size']))}</td><td class='l'>{e(r['parlab'])}</td><td>{r['parlab_threads']}</td>"
                         f"<td>{e(fmt_rate(r['parlab_rate'], r['unit']))}</td><td class='l'>{e(r['peer'])}</td>"
                         f"<td>{r['threads']}</td><td>{e(fmt_rate(r['peer_rate'], r['unit']))}</td><td>{r['ratio']:.2f}</td></tr>")
        parts.append("</table>")
    parts.append("<h2>Context</h2><table>")

    def rows(prefix, obj):
        if isinstance(obj, dict):
            for k in sorted(obj):
                yield from rows(f"{prefix}.{k}" if prefix else k, obj[k])
        elif isinstance(obj, list) and obj and isinstance(obj[0], dict):
            for i, x in enumerate(obj):
                yield from rows(f"{prefix}[{i}]", x)
        else:
            yield prefix, obj

    for k, v in rows("", ctx):
        parts.append(f"<tr><th class='l'>{e(k)}</th><td class='l'>{e(json.dumps(v) if not isinstance(v, str) else v)}</td></tr>")
    parts.append("</table>")
    if doc.get("consistency"):
        parts.append("<h2>Cross-backend consistency</h2><table><tr><th>kernel</th><th>seed</th><th>N</th><th>records</th><th>distinct hits</th><th>verdict</th></tr>")
        for c in doc["consistency"]:
            cls = "" if c["pass"] else " class='fail'"
            parts.append(f"<tr{cls}><td>{e(c['kernel'])}</td><td>{c['seed']}</td><td>{c['size']}</td><td>{c['records']}</td>"
                         f"<td>{c['distinct_hits']}</td><td>{'pass' if c['pass'] else 'FAIL'}</td></tr>")
        parts.append("</table>")
    parts.append("<h2>Records</h2><table><tr><th class='l'>study</th><th class='l'>kernel</th><th class='l'>backend</th>"
                 "<th>threads</th><th>size</th><th class='l'>precision</th><th>median (s)</th><th>rate</th>"
                 "<th class='l'>status</th><th class='l'>validation / reason</th></tr>")
    for r in doc["records"]:
        cls = " class='fail'" if r["status"] not in ("ok", "unavailable") else ""
        med = r.get("time_s", {}).get("median")
        v, unit = rate_of(r)
        detail = r.get("validation", {}).get("detail") or r.get("reason", "")
        parts.append(f"<tr{cls}><td class='l'>{e(str(r.get('study', '')))}</td><td class='l'>{e(r['kernel'])}</td>"
                     f"<td class='l'>{e(r['backend'])}</td><td>{r['threads']}</td><td>{e(fmt_size(r['size']))}</td>"
                     f"<td class='l'>{e(str(r.get('precision', '')))}</td><td>{'' if med is None else f'{med:.6g}'}</td>"
                     f"<td>{'' if v is None else e(fmt_rate(v, unit))}</td><td class='l'>{e(r['status'])}</td>"
                     f"<td class='l'>{e(str(detail))}</td></tr>")
    parts.append("</table></body></html>\n")
    return "".join(parts)


# ---------------------------------------------------------------- MPI: ranks x threads
# A record measured by an MPI job carries `ranks` (with `ranks_per_node` and `hosts`); a record
# of one process has none. Everything below groups by those fields and by `threads` (per rank),
# never by backend names, which are labels for people (docs/design.md, "Dimensions that compose").
MPI_PROBE_KERNELS = ("mpi_barrier", "mpi_allreduce", "mpi_bcast")
MPI_PROBE_NAMES = {"mpi_barrier": "barrier", "mpi_allreduce": "8-byte allreduce", "mpi_bcast": "8-byte broadcast"}


def ranks_of(r: dict):
    """The MPI job size of a record, None for one process."""
    n = r.get("ranks")
    return int(n) if isinstance(n, (int, float)) and n >= 1 else None


def layout_label(ranks, threads: int) -> str:
    """"4 ranks x 2 threads" for an MPI record, "1 process x 2 threads" for one process."""
    where = "1 process" if ranks is None else f"{ranks} rank{'s' if ranks != 1 else ''}"
    return f"{where} x {threads} thread{'s' if threads != 1 else ''}"


def hosts_note(recs) -> str:
    """" over 2 hosts" when a series spans several hosts, else ""."""
    hosts = max((int(r.get("hosts") or 1) for r in recs), default=1)
    return f" over up to {hosts} hosts" if hosts > 1 else ""


def mpi_scaling_series(doc: dict) -> dict:
    """Speedup over ranks, as data (tested on its own).

    Returns {(study, scaling, kernel, base_size, precision, threads_per_rank): {label: [point]}},
    one entry per group with at least two rank counts; a point is a dict of ranks, cores (ranks x
    threads per rank), speedup, efficiency and vs_single. Strong scaling: speedup = the same
    backend's median time at 1 rank / its median time at R ranks, efficiency = speedup / R.
    Without a 1-rank record the reference is the fastest single-process CPU record of the group at
    threads_per_rank threads, and the label says so. Weak scaling (the size grows with ranks x
    threads; base_size is the share of one thread): scaled speedup = T_ref x R / T(R),
    efficiency = T_ref / T(R). vs_single = the fastest single-process CPU time at the same total
    core count (same study, kernel, base size and precision) / the MPI time: above 1 the ranks
    win; None where no process was measured at that many threads.
    """
    mpi = defaultdict(list)
    single = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") not in ("strong", "weak"):
            continue
        rk = ranks_of(r)
        per = r["threads"] * (rk or 1) if r["scaling"] == "weak" else 1
        key = (r.get("study", ""), r["scaling"], r["kernel"], r["size"] // per, r.get("precision", ""))
        if rk is not None:
            mpi[key + (r["threads"],)].append(r)
        elif r.get("kind", "cpu") == "cpu":
            single[key].append(r)
    out = {}
    for key, recs in sorted(mpi.items()):
        if len({ranks_of(r) for r in recs}) < 2:
            continue
        scaling, t = key[1], key[5]
        best_single = {}
        for r in single.get(key[:5], []):
            if r["threads"] not in best_single or r["time_s"]["median"] < best_single[r["threads"]]["time_s"]["median"]:
                best_single[r["threads"]] = r
        by_backend = defaultdict(dict)
        for r in recs:
            # One point per rank count: a repeated measurement keeps the faster median.
            old = by_backend[r["backend"]].get(ranks_of(r))
            if old is None or r["time_s"]["median"] < old["time_s"]["median"]:
                by_backend[r["backend"]][ranks_of(r)] = r
        series = {}
        for backend, at in sorted(by_backend.items()):
            if len(at) < 2:
                continue
            if 1 in at:
                ref, label = at[1], backend
            elif t in best_single:
                ref = best_single[t]
                label = f"{backend} (vs best single process: {ref['backend']} t={t})"
            else:
                continue
            t_ref = ref["time_s"]["median"]
            pts = []
            for rk in sorted(at):
                tm = at[rk]["time_s"]["median"]
                speed = t_ref / tm * (rk if scaling == "weak" else 1)
                single_rec = best_single.get(rk * t)
                pts.append({"ranks": rk, "cores": rk * t, "speedup": speed, "efficiency": speed / rk,
                            "vs_single": single_rec["time_s"]["median"] / tm if single_rec else None,
                            "single_backend": single_rec["backend"] if single_rec else None})
            series[label + hosts_note(at.values())] = pts
        if series:
            out[key] = series
    return out


def mpi_scaling_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    for (study, scaling, kernel, base, precision, t), series in mpi_scaling_series(doc).items():
        vs = any(pt["vs_single"] is not None for pts in series.values() for pt in pts)
        fig, axes = p.plt.subplots(1, 3 if vs else 2, figsize=(14 if vs else 10, 4.2), sharex=True)
        ax1, ax2 = axes[0], axes[1]
        rmax = max(pt["ranks"] for pts in series.values() for pt in pts)
        for label, pts in series.items():
            xs = [pt["ranks"] for pt in pts]
            ax1.plot(xs, [pt["speedup"] for pt in pts], marker="o", label=label)
            ax2.plot(xs, [pt["efficiency"] for pt in pts], marker="o", label=label)
            if vs:
                got = [pt for pt in pts if pt["vs_single"] is not None]
                axes[2].plot([pt["ranks"] for pt in got], [pt["vs_single"] for pt in got], marker="o", label=label)
        ideal = list(range(1, rmax + 1))
        ax1.plot(ideal, ideal, "k--", linewidth=1, label="ideal")
        ax2.axhline(1.0, color="k", linestyle="--", linewidth=1, label="ideal")
        ax2.set_ylim(0, max(1.2, max(pt["efficiency"] for pts in series.values() for pt in pts) * 1.1))
        per = f" x {t} threads each" if t > 1 else " (1 thread each)"
        for ax in axes:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(f"MPI ranks{per}")
        ax1.set_ylabel("speedup over 1 rank" if scaling == "strong" else "scaled speedup over 1 rank (weak)")
        ax2.set_ylabel("parallel efficiency (speedup / ranks)" if scaling == "strong" else
                       "weak efficiency: time at 1 rank / time at R ranks")
        if vs:
            ax3 = axes[2]
            ax3.axhline(1.0, color="k", linestyle="--", linewidth=1)
            ax3.set_ylabel("time of the fastest single process on as many\nthreads as ranks x threads / MPI time")
            ax3.set_ylim(0, max(1.2, max(pt["vs_single"] or 0 for pts in series.values() for pt in pts) * 1.1))
            ax3.set_title("above 1: the ranks beat one process's threads", fontsize=8)
        ax1.legend(fontsize=7)
        size = f"N={fmt_size(base)} per thread" if scaling == "weak" else f"N={fmt_size(base)}"
        title = f"{kernel} {scaling} scaling over MPI ranks, {size} {precision}, {t} thread{'s' if t > 1 else ''} per rank"
        fig.suptitle(title, fontsize=10)
        name = f"mpi_speedup_{study}_{scaling}_{kernel}_{fmt_size(base)}_{precision}_t{t}".replace("^", "p")
        p.save(fig, name, title + ("; right: the fastest single process at the same core count / MPI time" if vs else ""))


def per_op_us(r: dict) -> float:
    """Microseconds per operation of a probe or an overhead construct: size counts the calls."""
    return r["time_s"]["median"] / max(r["size"], 1) * 1e6


def mpi_latency_series(doc: dict) -> dict:
    """Latency of the OSU-style probes over ranks, as data (tested on its own).

    Returns {"probes": {label: [(ranks, us per call)]}, "reduce": {label: [(x, us per
    reduction)]}}. probes: one line per (kernel, backend, threads per rank) of the MPI records
    of mpi_barrier, mpi_allreduce and mpi_bcast; at a rank count measured at several sizes, the
    most calls. reduce: the EPCC reduction (overhead_reduce) for comparison, where the run has
    it: one process's reduction over x threads, and the MPI reduction over x ranks of one thread
    each (raw time per reduction, no reference subtracted).
    """
    probes, reduce = defaultdict(dict), defaultdict(dict)

    def keep(line: dict, x: int, r: dict) -> None:
        if x not in line or r["size"] > line[x]["size"]:
            line[x] = r

    for r in ok_records(doc, lab=True) + ok_records(doc):
        rk = ranks_of(r)
        if r["kernel"] in MPI_PROBE_KERNELS and rk is not None:
            per = f", t={r['threads']}" if r["threads"] > 1 else ""
            name = f"{MPI_PROBE_NAMES[r['kernel']]} ({r['backend']}{per})"
            keep(probes[name], rk, r)
        elif r["kernel"] == "overhead_reduce" and rk is None:
            keep(reduce[f"{r['backend']} reduction over threads (1 process)"], r["threads"], r)
        elif r["kernel"] == "overhead_reduce" and r["threads"] == 1:
            keep(reduce[f"{r['backend']} reduction over ranks (1 thread each)"], rk, r)
    return {"probes": {k: [(x, per_op_us(v[x])) for x in sorted(v)] for k, v in sorted(probes.items())},
            "reduce": {k: [(x, per_op_us(v[x])) for x in sorted(v)] for k, v in sorted(reduce.items()) if probes}}


def mpi_latency_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    s = mpi_latency_series(doc)
    if not s["probes"]:
        return
    fig, ax = p.plt.subplots(figsize=(9, 5))
    for label, pts in s["probes"].items():
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=label)
    for label, pts in s["reduce"].items():
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="s", linestyle="--", linewidth=1, label=label)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("MPI ranks (dashed: threads, for one process's reduction)" if s["reduce"] else "MPI ranks")
    ax.set_ylabel("time per operation (µs, median; log scale)")
    title = "What distribution costs: MPI latency vs ranks" + (
        ", beside the EPCC reduction overhead" if s["reduce"] else "")
    ax.set_title(title)
    ax.legend(fontsize=7)
    p.save(fig, "mpi_latency", "OSU-style probes (barrier, 8-byte allreduce, 8-byte broadcast): µs per call vs ranks"
           + ("; dashed: the EPCC reduction (overhead_reduce) in one process over threads and over MPI ranks, "
              "raw µs per reduction" if s["reduce"] else ""))


def mixed_mode_series(doc: dict) -> dict:
    """The EPCC mixed-mode comparison, as data (tested on its own): the same work on the same
    total core count laid out as R ranks x 1 thread, 1 rank (or one process) x R threads, and
    hybrids between.

    Returns {(study, kernel, size, precision): {cores: [row]}} for groups that hold a hybrid
    (ranks > 1 and threads > 1), keeping only core counts measured in two or more layouts; a row
    is {label, backend, ranks (None: one process), threads, value, unit}, value in µs per
    operation for overhead_reduce and the probes (size counts operations), else median seconds,
    rows sorted fastest first.
    """
    groups = defaultdict(list)
    for r in ok_records(doc, lab=True) + ok_records(doc):
        if r.get("kind", "cpu") not in ("cpu", "mpi") or r.get("scaling") == "weak":
            continue
        if r["kernel"] in LAB_KERNELS and r["kernel"] != "overhead_reduce":
            continue
        groups[(r.get("study", ""), r["kernel"], r["size"], r.get("precision", ""))].append(r)
    out = {}
    for key, recs in sorted(groups.items()):
        if not any((ranks_of(r) or 1) > 1 and r["threads"] > 1 for r in recs):
            continue
        per_op = key[1] == "overhead_reduce" or key[1] in MPI_PROBE_KERNELS
        by_cores = defaultdict(list)
        for r in recs:
            by_cores[(ranks_of(r) or 1) * r["threads"]].append(r)
        table = {}
        for cores, rs in sorted(by_cores.items()):
            if len({(ranks_of(r), r["threads"]) for r in rs}) < 2:
                continue
            rows = [{"label": f"{layout_label(ranks_of(r), r['threads'])} ({r['backend']})", "backend": r["backend"],
                     "ranks": ranks_of(r), "threads": r["threads"],
                     "value": per_op_us(r) if per_op else r["time_s"]["median"], "unit": "µs" if per_op else "s"}
                    for r in rs]
            table[cores] = sorted(rows, key=lambda x: (x["value"], x["label"]))
        if table:
            out[key] = table
    return out


def time_scale(vals: list, unit: str) -> tuple[float, str]:
    """(divisor, unit) that shows seconds in s, ms or µs by the largest value; µs stay µs."""
    if unit == "µs":
        return 1.0, "µs"
    top = max(vals, default=0.0)
    return next(((scale, name) for scale, name in ((1.0, "s"), (1e-3, "ms")) if top >= scale), (1e-6, "µs"))


def fmt_time(v: float, unit: str) -> str:
    scale, name = time_scale([v], unit)
    return f"{v / scale:.3g} {name}"


def mixed_mode_figures(p: Plotter, doc: dict) -> None:
    for (study, kernel, size, precision), table in mixed_mode_series(doc).items():
        labels, vals, colors, unit = [], [], [], "s"
        for i, (cores, rows) in enumerate(sorted(table.items(), reverse=True)):
            for row in reversed(rows):  # fastest on top of its block
                labels.append(f"{cores} core{'s' if cores != 1 else ''}: {row['label']}")
                vals.append(row["value"])
                colors.append(f"C{i % 10}")
                unit = row["unit"]
        scale, shown = time_scale(vals, unit)
        vals = [v / scale for v in vals]
        fig, ax = p.plt.subplots(figsize=(9, 1.3 + 0.3 * len(labels)))
        bars = ax.barh(range(len(labels)), vals, color=colors)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        log = max(vals) / min(vals) > 100
        if log:
            ax.set_xscale("log")
        for b, v in zip(bars, vals):
            ax.text(b.get_width(), b.get_y() + b.get_height() / 2, f" {v:.3g} {shown}", ha="left", va="center",
                    fontsize=7)
        ax.set_xlim(right=max(vals) * (8 if log else 1.25))
        what = "µs per reduction" if kernel == "overhead_reduce" else (
            "µs per call" if unit == "µs" else f"median time ({shown})")
        ax.set_xlabel(what + (" (log scale)" if log else "") + "; shorter is faster")
        prec = f" {precision}" if kernel not in ("pi", "overhead_reduce") and precision else ""
        title = f"Mixed mode: {kernel} N={fmt_size(size)}{prec}, the same cores as ranks x threads"
        ax.set_title(title, fontsize=9)
        name = f"mixed_mode_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, title + " (EPCC mixed mode: R ranks x 1 thread against 1 process x R threads and the "
                                  "hybrids between, one colour per core count, fastest first)")


def mpi_figures(p: Plotter, doc: dict) -> None:
    """Every MPI figure: speedup over ranks, latency vs ranks, the mixed-mode bars."""
    mpi_scaling_figures(p, doc)
    mpi_latency_figures(p, doc)
    mixed_mode_figures(p, doc)


def mpi_summary(doc: dict) -> list[dict]:
    """Lines for the report's summary, one per MPI figure (tested on its own): rows like
    run_summary's findings, {study, kernel, precision, size, finding: [text]}."""
    rows = []
    for (study, scaling, kernel, base, precision, t), series in mpi_scaling_series(doc).items():
        rmax = max(pt["ranks"] for pts in series.values() for pt in pts)
        top = max(((label, pt) for label, pts in series.items() for pt in pts if pt["ranks"] == rmax),
                  key=lambda x: x[1]["speedup"])
        label, pt = top
        what = "over 1 rank" if scaling == "strong" else "scaled (weak) over 1 rank"
        text = (f"{label} at {rmax} ranks x {t} thread{'s' if t > 1 else ''}: {pt['speedup']:.2f}x {what} "
                f"(ideal {rmax}x)")
        if pt["vs_single"] is not None:
            text += f"; {pt['vs_single']:.2f}x the best single process at {pt['cores']} threads ({pt['single_backend']})"
        rows.append({"study": study, "kernel": kernel, "precision": precision, "size": base, "finding": [text]})
    lat = mpi_latency_series(doc)
    for kernel in MPI_PROBE_KERNELS:
        recs = [r for r in ok_records(doc) if r["kernel"] == kernel and ranks_of(r) is not None]
        lines = [(label, pts) for label, pts in lat["probes"].items() if label.startswith(MPI_PROBE_NAMES[kernel] + " (")]
        if not recs or not lines:
            continue
        parts = []
        for label, pts in lines:
            x, us = pts[-1]
            parts.append(f"{label}: {us:.3g} µs per call at {x} ranks" + (f" ({pts[0][1]:.3g} µs at {pts[0][0]})"
                                                                            if len(pts) > 1 else ""))
        if kernel == "mpi_allreduce":
            for label, pts in lat["reduce"].items():
                x, us = pts[-1]
                parts.append(f"beside it, {label}: {us:.3g} µs at {x}")
        first = recs[0]
        rows.append({"study": first.get("study", ""), "kernel": kernel, "precision": first.get("precision", ""),
                     "size": max(r["size"] for r in recs), "finding": parts})
    for (study, kernel, size, precision), table in mixed_mode_series(doc).items():
        cores = max(table)
        rows_at = table[cores]
        fast, slow = rows_at[0], rows_at[-1]
        rows.append({"study": study, "kernel": kernel, "precision": precision, "size": size,
                     "finding": [f"mixed mode at {cores} cores: fastest {fast['label']} "
                                 f"{fmt_time(fast['value'], fast['unit'])}, slowest {slow['label']} "
                                 f"{fmt_time(slow['value'], slow['unit'])}"]})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Plots and report.html from a parlab run directory")
    ap.add_argument("run_dir", help="a directory holding results.json (or the file itself)")
    ap.add_argument("--out", help="where to write plots/ and report.html (default: the run directory)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    try:
        doc = load_run(args.run_dir)
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    out = args.out or os.path.dirname(doc["_path"]) or "."
    plot_dir = os.path.join(out, "plots")
    p = Plotter(plot_dir)
    scaling_figures(p, doc)
    bandwidth_figures(p, doc)
    throughput_figures(p, doc)
    gil_figures(p, doc)
    gpu_study_figures(p, doc)
    multi_gpu_figures(p, doc)
    race_figures(p, doc)
    overhead_figures(p, doc)
    crossover_figures(p, doc)
    python_models_figures(p, doc)
    convergence_figures(p, doc)
    mpi_figures(p, doc)
    peers = peers_figures(p, doc)
    report = os.path.join(out, "report.html")
    tmp = report + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(report_html(doc, plot_dir, p.figures, peers))
    os.replace(tmp, report)
    if not args.quiet:
        print(f"plot.py: {len(p.figures)} figures in {plot_dir}, report {report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
