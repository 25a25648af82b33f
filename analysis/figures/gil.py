"""What the GIL costs: every Python variant's speedup over its own one thread (gil), and pure-Python
pi with shared against private state per interpreter (gil_shared_private)."""
from __future__ import annotations

from collections import defaultdict

from analysis.spread import band, ratio_band, unstable
from analysis.figures.bars import caption_note, draw_points, legend_notes
from analysis.labels import interpreter_suffix, log_if_wide, plain_ticks, unit_scale
from analysis.records import ok_records, rate_of
from analysis.writer import Plotter
from analysis.series import _gil_records


# One marker per variant besides its colour: lines that meet (every variant is 1.0 at one thread,
# and the GIL-bound ones stay near it) stay apart by their markers.
MARKERS = "os^DvP<X>ph*d"


def gil_figures(p: Plotter, doc: dict) -> None:
    """Every Python variant on one figure: speedup vs threads with the ideal line."""
    records = _gil_records(doc)
    if not records:
        return
    fig, ax = p.plt.subplots(figsize=(11, 5.5))
    tmax = max(r["threads"] for _, rs in records.values() for r in rs)
    variants = sorted({label.split(" [")[0] for label in records})
    look = {v: (p.plt.get_cmap("tab10")(i % 10), MARKERS[i % len(MARKERS)]) for i, v in enumerate(variants)}
    ax.axhline(1.0, color="grey", linewidth=0.8, zorder=1)
    speedups, bars, names = [1.0, tmax], False, []
    for backend, (one, rs) in records.items():
        colour, marker = look[backend.split(" [")[0]]
        ys = [one["time_s"]["median"] / r["time_s"]["median"] for r in rs]
        bands = [ratio_band(r, one, y) for r, y in zip(rs, ys)]
        marks = [unstable(r, one) for r in rs]
        # One colour and marker per variant, one line style per interpreter and GIL state. The
        # GIL-bound variants, flat near 1.0, are drawn over the rest, so none hides another.
        style = "-" if not backend.endswith("]") else (":" if backend.endswith(", GIL]") else "-.")
        flat = max(ys) < 1.5
        draw_points(ax, [r["threads"] for r in rs], ys, bands, marks, label=backend, color=colour, marker=marker,
                    linestyle=style, markersize=7 if flat else 5, zorder=4 if flat else 3)
        speedups += ys
        bars = bars or any(bands)
        names += [f"{backend} t={r['threads']}" for r, m in zip(rs, marks) if m]
    ax.plot(range(1, tmax + 1), range(1, tmax + 1), "k--", linewidth=1, label="ideal", zorder=2)
    log = log_if_wide(ax, "y", speedups, base=2)
    if not (log and log_if_wide(ax, "x", [1, tmax], base=2)):
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    plain_ticks(ax)
    ax.set_xlabel("Python threads (or sub-interpreters)")
    ax.set_ylabel("speedup over the same variant on 1 thread" + (", log scale" if log else ""))
    ax.set_title("What the GIL costs: pi from Python")
    # Right of the axes, outside the data: the lines it covered inside were the ones near 1.0.
    legend_notes(ax, bars, bool(names), fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    p.save(fig, "gil", "GIL study: speedup vs threads per Python variant and interpreter (each relative to its own "
                       "1-thread time; solid: the run's own interpreter, dash-dot: free-threaded without a GIL, "
                       "dotted: free-threaded with PYTHON_GIL=1)"
           + caption_note(bars, names))
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
    scale, unit = unit_scale([rate_of(r)[0] for r in recs], "samples/s")
    bars, names = False, []
    for (backend, mode), rs in sorted(by.items()):
        rs = sorted(rs, key=lambda r: r["threads"])
        bands = [band(r, rate_of(r)[0]) for r in rs]
        marks = [unstable(r) for r in rs]
        draw_points(ax, [r["threads"] for r in rs], [rate_of(r)[0] / scale for r in rs], bands, marks, scale,
                    linestyle="-" if backend == "py-pure-private" else "--",
                    label=("private state" if backend == "py-pure-private" else "shared state") + mode)
        bars = bars or any(bands)
        names += [f"{backend}{mode} t={r['threads']}" for r, m in zip(rs, marks) if m]
    log = log_if_wide(ax, "y", [y for line in ax.get_lines() for y in line.get_ydata()])
    p.label(ax, "Python threads", unit + (", log scale" if log else ""),
            "Pure-Python pi: shared vs private state, per interpreter", whole_x=True, legend_size=6)
    legend_notes(ax, bars, bool(names), fontsize=6)
    p.save(fig, "gil_shared_private", "Pure-Python pi: every thread calling one module (shared, dashed) against each "
                                      "thread with its own copy of the module (private, solid), per interpreter and GIL "
                                      "state; the 1-thread points show the free-threaded build's single-thread cost"
           + caption_note(bars, names))
