"""MPI: speedup over ranks (mpi_speedup_...) and the OSU-style latency probes vs ranks
(mpi_latency); mpi_figures draws these and the mixed-mode bars."""
from __future__ import annotations


from analysis.figures.bars import caption_note, draw_points, legend_notes
from analysis.labels import fmt_size, log_if_wide, plain_ticks
from analysis.figures.mixed_mode import mixed_mode_figures
from analysis.writer import Plotter
from analysis.series_mpi import mpi_latency_series
from analysis.series_mpi import mpi_scaling_series


def mpi_scaling_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    for (study, scaling, kernel, base, precision, t), series in mpi_scaling_series(doc).items():
        vs = any(pt["vs_single"] is not None for pts in series.values() for pt in pts)
        fig, axes = p.plt.subplots(1, 3 if vs else 2, figsize=(14 if vs else 10, 4.2), sharex=True)
        ax1, ax2 = axes[0], axes[1]
        rmax = max(pt["ranks"] for pts in series.values() for pt in pts)
        names = []
        for label, pts in series.items():
            xs = [pt["ranks"] for pt in pts]
            marks = [pt["unstable"] for pt in pts]
            line = draw_points(ax1, xs, [pt["speedup"] for pt in pts], [pt["band"] for pt in pts], marks, label=label)
            eff = [(pt["band"][0] / pt["ranks"], pt["band"][1] / pt["ranks"]) if pt["band"] else None for pt in pts]
            draw_points(ax2, xs, [pt["efficiency"] for pt in pts], eff, marks, color=line.get_color(), label=label)
            if vs:
                got = [pt for pt in pts if pt["vs_single"] is not None]
                draw_points(axes[2], [pt["ranks"] for pt in got], [pt["vs_single"] for pt in got],
                            [pt["vs_band"] for pt in got], [pt["unstable"] for pt in got], color=line.get_color(),
                            label=label)
            names += [f"{label} {pt['ranks']} ranks" for pt in pts if pt["unstable"]]
        bars = any(pt["band"] for pts in series.values() for pt in pts)
        ideal = list(range(1, rmax + 1))
        ax1.plot(ideal, ideal, "k--", linewidth=1, label="ideal")
        ax2.axhline(1.0, color="k", linestyle="--", linewidth=1, label="ideal")
        # Every efficiency and its bar on the axis, above 1 too: the axis grows, never clips.
        ax2.set_ylim(0, 1.1 * max([1.1] + [pt["efficiency"] for pts in series.values() for pt in pts]
                                  + [pt["band"][1] / pt["ranks"] for pts in series.values() for pt in pts
                                     if pt["band"]]))
        per = f" x {t} threads each" if t > 1 else " (1 thread each)"
        # Speedups over labels.WIDE_RANGE on log 2 axes, where the ideal line stays a diagonal
        # (the panels share their rank axis).
        log = log_if_wide(ax1, "y", ideal + [pt["speedup"] for pts in series.values() for pt in pts], base=2)
        if not (log and log_if_wide(ax1, "x", ideal, base=2)):
            ax1.xaxis.set_major_locator(MaxNLocator(integer=True))
        for ax in axes:
            ax.set_xlabel(f"MPI ranks{per}")
        ax1.set_ylabel(("speedup over 1 rank" if scaling == "strong" else "scaled speedup over 1 rank (weak)")
                       + (", log scale" if log else ""))
        ax2.set_ylabel("parallel efficiency (speedup / ranks)" if scaling == "strong" else
                       "weak efficiency: time at 1 rank / time at R ranks")
        if vs:
            ax3 = axes[2]
            ax3.axhline(1.0, color="k", linestyle="--", linewidth=1)
            ax3.set_ylabel("time of the fastest single process on as many\nthreads as ranks x threads / MPI time")
            ax3.set_ylim(0, 1.1 * max([1.1] + [pt["vs_single"] or 0 for pts in series.values() for pt in pts]
                                      + [pt["vs_band"][1] for pts in series.values() for pt in pts if pt["vs_band"]]))
            ax3.set_title("above 1: the ranks beat one process's threads", fontsize=8)
        for ax in axes:
            plain_ticks(ax)
        legend_notes(ax1, bars, bool(names), fontsize=7)
        size = f"N={fmt_size(base)} per thread" if scaling == "weak" else f"N={fmt_size(base)}"
        title = f"{kernel} {scaling} scaling over MPI ranks, {size} {precision}, {t} thread{'s' if t > 1 else ''} per rank"
        fig.suptitle(title, fontsize=10)
        name = f"mpi_speedup_{study}_{scaling}_{kernel}_{fmt_size(base)}_{precision}_t{t}".replace("^", "p")
        right = "; right: the fastest single process at the same core count / MPI time" if vs else ""
        p.save(fig, name, title + right + caption_note(bars, names))


def mpi_latency_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    s = mpi_latency_series(doc)
    if not s["probes"]:
        return
    fig, ax = p.plt.subplots(figsize=(9, 5))
    for label, pts in s["probes"].items():
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="^" if "across" in label else "o",
                linestyle=":" if "across" in label else "-", label=label)
    for label, pts in s["reduce"].items():
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="s", linestyle="--", linewidth=1, label=label)
    ax.set_yscale("log")
    plain_ticks(ax, "y")  # the label says µs; ticks 1, 10, 100 rather than 10^k
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    xs = {x for pts in list(s["probes"].values()) + list(s["reduce"].values()) for x, _ in pts}
    if len(xs) == 1:
        # One rank count (a probe run at 2 ranks across hosts): whole ranks around it, not a 0.2-wide
        # axis, and each point's value written beside it, since there is no line to read it from.
        (x0,) = xs
        ax.set_xlim(x0 - 1, x0 + 1)
        for line in ax.get_lines():
            for x, y in zip(line.get_xdata(), line.get_ydata()):
                ax.annotate(f"{y:.3g} µs", (x, y), xytext=(6, 0), textcoords="offset points", va="center",
                            fontsize=8, color=line.get_color())
    ax.set_xlabel("MPI ranks (dashed: threads, for one process's reduction)" if s["reduce"] else "MPI ranks")
    ax.set_ylabel("time per operation (µs, median; log scale)")
    title = "What distribution costs: MPI latency vs ranks" + (
        ", beside the EPCC reduction overhead" if s["reduce"] else "")
    ax.set_title(title)
    ax.legend(fontsize=7)
    p.save(fig, "mpi_latency", "OSU-style probes (barrier, 8-byte allreduce, 8-byte broadcast): µs per call vs ranks"
           + ("; dashed: the EPCC reduction (overhead_reduce) in one process over threads and over MPI ranks, "
              "raw µs per reduction" if s["reduce"] else ""))


def mpi_figures(p: Plotter, doc: dict) -> None:
    """Every MPI figure: speedup over ranks, latency vs ranks, the mixed-mode bars."""
    mpi_scaling_figures(p, doc)
    mpi_latency_figures(p, doc)
    mixed_mode_figures(p, doc)
