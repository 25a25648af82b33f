"""What the GIL costs: every Python variant's speedup over its own one thread (gil), and pure-Python
pi with shared against private state per interpreter (gil_shared_private)."""
from __future__ import annotations

from collections import defaultdict

from .labels import interpreter_suffix
from .load import ok_records, rate_of
from ..writer import Plotter


def gil_series(doc: dict) -> dict:
    """Speedup of each Python variant over its own 1-thread median time: {backend: [(threads, speedup)]}.
    pi only: the library backends that also run triad (NumPy, Numba) would otherwise put a bandwidth-bound
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
    p.label(ax, "Python threads (or sub-interpreters)", "speedup over the same variant on 1 thread",
            "What the GIL costs: pi from Python", whole_x=True, legend_size=6)
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
    p.label(ax, "Python threads", "samples/s", "Pure-Python pi: shared vs private state, per interpreter",
            whole_x=True, legend_size=6)
    p.save(fig, "gil_shared_private", "Pure-Python pi: every thread calling one module (shared, dashed) against each "
                                      "thread with its own copy of the module (private, solid), per interpreter and GIL "
                                      "state; the 1-thread points show the free-threaded build's single-thread cost")
