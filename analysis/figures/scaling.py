"""Speedup and parallel efficiency vs threads (strong and weak scaling): speedup_<study>_...."""
from __future__ import annotations


from analysis.figures.bars import caption_note, draw_points, legend_notes, with_legend_row
from analysis.spread import ratio_band, unstable
from analysis.labels import fmt_size, log_if_wide, plain_ticks
from analysis.writer import Plotter
from analysis.series import _bandwidth_roofs
from analysis.series import _series_and_baselines
from analysis.series import scaling_bounds


def scaling_figures(p: Plotter, doc: dict) -> None:
    bounds = scaling_bounds(doc)
    series_of, baselines = _series_and_baselines(doc)
    for key, series in series_of.items():
        study, scaling, kernel, base, precision = key
        fig, (ax1, ax2), lax = with_legend_row(p, 2, (11, 5.2), 0.9)
        tmax = max(t for pts in series.values() for t, _, _ in pts)
        tops, notes = [1.2], {"bars": False, "unstable": []}
        for label, pts in series.items():
            baseline, recs = baselines[key][label]
            # A speedup's bar spans both records' interquartile ranges (figures/bars.py says why);
            # an efficiency is the speedup over the threads, and so is its bar.
            bands = [ratio_band(r, baseline, s) for r, (_, s, _) in zip(recs, pts)]
            marks = [unstable(r, baseline) for r in recs]
            xs = [t for t, _, _ in pts]
            line = draw_points(ax1, xs, [s for _, s, _ in pts], bands, marks, label=label)
            eff_bands = [(b[0] / t, b[1] / t) if b else None for t, b in zip(xs, bands)]
            draw_points(ax2, xs, [e for _, _, e in pts], eff_bands, marks, color=line.get_color(), label=label)
            tops += [b[1] for b in eff_bands if b] + [e for _, _, e in pts]
            notes["bars"] = notes["bars"] or any(bands)
            notes["unstable"] += [f"{label} t={r['threads']}" for r, m in zip(recs, marks) if m]
        ideal = list(range(1, tmax + 1))
        ax1.plot(ideal, ideal, "k--", linewidth=1, label="ideal")
        ax2.plot(ideal, [1.0] * len(ideal), "k--", linewidth=1, label="ideal (1.0)")
        drawn = _bandwidth_roofs(ax1, ax2, bounds.get(key, {}), tmax)
        # Every efficiency is on the axis, above 1 too (a super-linear point, or a bar reaching
        # over 1): the axis grows to show it, never clips it. The roof / threads curve, which
        # starts far above, is the one line the axis cuts.
        ax2.set_ylim(0, 1.1 * max(tops))
        _axes(ax1, ax2, scaling, tmax, [s for pts in series.values() for _, s, _ in pts] + ideal + list(drawn))
        title = f"{kernel} {scaling} scaling, N={fmt_size(base)}{' per thread' if scaling == 'weak' else ''} {precision}"
        ax1.set_title(title)
        # Below the axes: inside, it covered the roof line and the points of many threads.
        legend_notes(ax1, notes["bars"], bool(notes["unstable"]), into=lax, fontsize=7, loc="upper center", ncol=3)
        # The efficiency panel's legend names its reference lines only (the backends' colours
        # are the speedup panel's), below the points of few threads, which sit near 1.
        refs = [(h, t) for h, t in zip(*ax2.get_legend_handles_labels()) if t.startswith(("ideal", "bandwidth"))]
        ax2.legend([h for h, _ in refs], [t for _, t in refs], fontsize=7, loc="lower left")
        name = f"speedup_{study}_{scaling}_{kernel}_{fmt_size(base)}_{precision}".replace("^", "p")
        p.save(fig, name, title + caption_note(notes["bars"], notes["unstable"]))


def _axes(ax1, ax2, scaling: str, tmax: int, speedups: list) -> None:
    """Labels and scales: the speedup and the threads on log 2 axes where they span more than
    labels.WIDE_RANGE (the ideal line stays a diagonal), plain numbers on every axis."""
    from matplotlib.ticker import MaxNLocator

    log = log_if_wide(ax1, "y", speedups, base=2)
    ax1.set_ylim(min(speedups) / 1.4 if log else 0, max(speedups) * 1.3)
    for ax in (ax1, ax2):
        if not (log and log_if_wide(ax, "x", [1, tmax], base=2)):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        plain_ticks(ax)
        ax.set_xlabel("threads")
    what = "speedup (median serial time / median time)" if scaling == "strong" else "scaled speedup (weak)"
    ax1.set_ylabel(what + (", log scale" if log else ""))
    ax2.set_ylabel("parallel efficiency (speedup / threads)")


