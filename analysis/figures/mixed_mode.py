"""EPCC mixed mode: the same cores as R ranks x 1 thread, 1 process x R threads and the hybrids
between (mixed_mode_...)."""
from __future__ import annotations


from analysis.figures.bars import caption_note, errors, HATCHED_NOTE
from analysis.labels import fmt_size, log_if_wide, time_scale
from analysis.writer import Plotter
from analysis.series_mpi import mixed_mode_series


def mixed_mode_figures(p: Plotter, doc: dict) -> None:
    for (study, kernel, size, precision), table in mixed_mode_series(doc).items():
        labels, colors, rows_drawn, unit = [], [], [], "s"
        for i, (cores, rows) in enumerate(sorted(table.items(), reverse=True)):
            for row in reversed(rows):  # fastest on top of its block
                labels.append(f"{cores} core{'s' if cores != 1 else ''}: {row['label']}")
                rows_drawn.append(row)
                colors.append(f"C{i % 10}")
                unit = row["unit"]
        scale, shown = time_scale([row["value"] for row in rows_drawn], unit)
        vals = [row["value"] / scale for row in rows_drawn]
        bands = [row["band"] for row in rows_drawn]
        fig, ax = p.plt.subplots(figsize=(9, 1.3 + 0.3 * len(labels)))
        bars = ax.barh(range(len(labels)), vals, color=colors, edgecolor=colors, xerr=errors(vals, bands, scale),
                       error_kw={"elinewidth": 1, "capsize": 3})
        for b, row in zip(bars, rows_drawn):
            if row["unstable"]:
                b.set_facecolor("white")
                b.set_hatch("//")
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        # Times spanning more than labels.WIDE_RANGE go on a log axis.
        log = log_if_wide(ax, "x", vals)
        ends = [max(v, bd[1] / scale if bd else 0.0) for v, bd in zip(vals, bands)]
        for b, v, end in zip(bars, vals, ends):
            ax.text(end, b.get_y() + b.get_height() / 2, f" {v:.3g} {shown}", ha="left", va="center", fontsize=7)
        ax.set_xlim(right=max(ends) * (8 if log else 1.25))
        what = "µs per reduction" if kernel == "overhead_reduce" else (
            "µs per call" if unit == "µs" else f"median time ({shown})")
        ax.set_xlabel(what + (" (log scale)" if log else "") + "; shorter is faster")
        prec = f" {precision}" if kernel not in ("pi", "overhead_reduce") and precision else ""
        title = f"Mixed mode: {kernel} N={fmt_size(size)}{prec}, the same cores as ranks x threads"
        ax.set_title(title, fontsize=9)
        name = f"mixed_mode_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, title + " (EPCC mixed mode: R ranks x 1 thread against 1 process x R threads and the "
                                  "hybrids between, one colour per core count, fastest first)"
               + caption_note(any(bands), [lb for lb, row in zip(labels, rows_drawn) if row["unstable"]],
                              HATCHED_NOTE))
