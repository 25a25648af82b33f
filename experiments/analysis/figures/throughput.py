"""The rate of each backend at its most workers (threads, or ranks x threads), as bars:
throughput_<study>_<kernel>_...."""
from __future__ import annotations

from collections import defaultdict

from .labels import bar_label, fmt_rate, fmt_size, interpreter_suffix
from .load import family_of, fastest_bytes_per_s, ok_records, rate_of, workers
from ..writer import Plotter


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
        # Beside an external peer that reports its own statistic (BabelStream: the bandwidth of
        # its fastest iteration), every bar gets that statistic too, as a marker.
        peer_figure = unit == "B/s" and any((best[n].get("metrics") or {}).get("peer_bytes_per_s") for n in names)
        fastest = [fastest_bytes_per_s(best[n]) if peer_figure else None for n in names]
        if peer_figure:
            ax.plot([f if f else float("nan") for f in fastest], [b.get_y() + b.get_height() / 2 for b in bars],
                    linestyle="none", marker="D", markersize=4, color="tab:orange")
        for b, v, f in zip(bars, vals, fastest):
            # The bar's value, right of the bar (and of its marker, with the marker's value).
            text = fmt_rate(v, unit) + (f", fastest {fmt_rate(f, unit)}" if f else "")
            ax.text(max(b.get_width(), f or 0), b.get_y() + b.get_height() / 2, " " + text, ha="left", va="center",
                    fontsize=7)
        vals = vals + [f for f in fastest if f]
        ax.set_xlim(right=(max(vals) * (8 if log else 1.4 if peer_figure else 1.25)) if vals and max(vals) > 0 else None)
        ax.set_xlabel(unit + (" (log scale)" if log else "")
                      + ("; bar: median repetition; diamond: fastest iteration (BabelStream's figure)"
                         if peer_figure else ""))
        title = f"{kernel} throughput per backend at its most workers, N={fmt_size(size)} {precision}"
        # Over the figure, not the axes: long backend labels push the axes right, and a title
        # centred on them ran off the figure's edge.
        fig.suptitle(title, fontsize=9)
        name = f"throughput_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, title)
