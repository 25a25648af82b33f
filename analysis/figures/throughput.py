"""The rate of each backend at its most workers (threads, or ranks x threads), as bars:
throughput_<study>_<kernel>_...."""
from __future__ import annotations

from collections import defaultdict

from analysis.figures.bars import BARS_NOTE, caption_note, errors, HATCHED_NOTE
from analysis.spread import band, unstable
from analysis.labels import bar_label, fmt_rate, fmt_size, interpreter_suffix, log_if_wide, unit_scale
from analysis.records import family_of, fastest_bytes_per_s, ok_records, rate_of, workers
from analysis.writer import Plotter


def throughput_figures(p: Plotter, doc: dict) -> None:
    """One bar chart per (study, kernel, precision): each backend at its most workers,
    at the largest size the study measured (a size sweep is the bandwidth figure's job)."""
    groups = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") == "weak" or family_of(r) == "practice":
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
        fig = _bars(p, best)
        title = f"{kernel} throughput per backend at its most workers, N={fmt_size(size)} {precision}"
        # Over the figure, not the axes: long backend labels push the axes right, and a title
        # centred on them ran off the figure's edge.
        fig.suptitle(title, fontsize=9)
        name = f"throughput_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, title + caption_note(any(band(r, rate_of(r)[0]) for r in best.values()),
                                               [f"{k} ({bar_label(r)})" for k, r in best.items() if unstable(r)],
                                               HATCHED_NOTE))


def _bars(p: Plotter, best: dict):
    """The figure of one group: {bar label: record}, slowest at the bottom, each bar with its
    interquartile range and, hatched, an unstable one."""
    names = sorted(best, key=lambda n: (rate_of(best[n])[0] or 0.0, n))
    unit = rate_of(best[names[0]])[1]
    vals = [rate_of(best[n])[0] or 0.0 for n in names]
    scale, shown = unit_scale(vals, unit)
    bands = [band(best[n], v) for n, v in zip(names, vals)]
    marks = [unstable(best[n]) for n in names]
    ys = [v / scale for v in vals]
    # Horizontal bars: backend names sit on the y axis one per row, so labels never overlap
    # however many backends there are.
    fig, ax = p.plt.subplots(figsize=(8, 1.2 + 0.32 * len(names)))
    bars = ax.barh([f"{n} ({bar_label(best[n])})" for n in names], ys, xerr=errors(ys, bands, scale),
                   color=["white" if m else "tab:blue" for m in marks], edgecolor="tab:blue",
                   error_kw={"ecolor": "k", "elinewidth": 1, "capsize": 3})
    for b, m in zip(bars, marks):
        if m:
            b.set_hatch("//")
    # Rates spanning more than WIDE_RANGE (pure Python next to a GPU) go on a log axis, where the
    # smallest bar stays visible.
    log = log_if_wide(ax, "x", ys)
    # Beside an external peer that reports its own statistic (BabelStream: the bandwidth of
    # its fastest iteration), every bar gets that statistic too, as a marker.
    peer_figure = unit == "B/s" and any((best[n].get("metrics") or {}).get("peer_bytes_per_s") for n in names)
    fastest = [fastest_bytes_per_s(best[n]) if peer_figure else None for n in names]
    if peer_figure:
        ax.plot([f / scale if f else float("nan") for f in fastest], [b.get_y() + b.get_height() / 2 for b in bars],
                linestyle="none", marker="D", markersize=4, color="tab:orange")
    ends = [max(y, (bd[1] / scale) if bd else 0.0) for y, bd in zip(ys, bands)]
    for b, v, f, end, m in zip(bars, vals, fastest, ends, marks):
        # The bar's value, right of the bar, its error bar and its marker.
        text = fmt_rate(v, unit) + (f", fastest {fmt_rate(f, unit)}" if f else "") + (" (unstable)" if m else "")
        ax.text(max(end, (f or 0) / scale), b.get_y() + b.get_height() / 2, " " + text, ha="left", va="center",
                fontsize=7)
    top = max(ends + [f / scale for f in fastest if f], default=0.0)
    ax.set_xlim(right=(top * (8 if log else 1.4 if peer_figure else 1.3)) if top > 0 else None)
    # What the bars and marks are, under the axis: a legend inside covered the text of the
    # bottom bars when there were only a few.
    unit_line = shown + (" (log scale)" if log else "") + (
        "; bar: median repetition; diamond: fastest iteration (BabelStream's figure)" if peer_figure else "")
    notes = (["error " + BARS_NOTE] if any(bands) else []) + ([HATCHED_NOTE] if any(marks) else [])
    ax.set_xlabel("\n".join([unit_line] + notes))
    return fig
