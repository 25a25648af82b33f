"""Where parallel starts to pay: serial time / backend time vs size (crossover_<kernel>)."""
from __future__ import annotations

from collections import defaultdict

from analysis.figures.bars import caption_note, draw_points, legend_notes
from analysis.spread import ratio_band, unstable
from analysis.labels import fmt_size, plain_ticks
from analysis.records import ok_records
from analysis.writer import Plotter


def crossover_figures(p: Plotter, doc: dict) -> list:
    """Time of serial / time of each backend vs size for the crossover study: above 1 the
    backend wins. Returns [(kernel, backend, threads, crossover size or None)]."""
    found = []
    recs = [r for r in ok_records(doc) if r.get("study") == "crossover"]
    for kernel in sorted({r["kernel"] for r in recs}):
        rs = [r for r in recs if r["kernel"] == kernel]
        serial = {r["size"]: r for r in rs if r["backend"] == "serial"}
        if not serial:
            continue
        fig, ax = p.plt.subplots(figsize=(8, 4))
        by = defaultdict(list)
        for r in rs:
            if r["backend"] != "serial" and r["size"] in serial:
                by[(r["backend"], r["threads"])].append(r)
        bars, names = False, []
        for (backend, threads), brs in sorted(by.items()):
            brs.sort(key=lambda r: r["size"])
            ratio = [serial[r["size"]]["time_s"]["median"] / r["time_s"]["median"] for r in brs]
            # serial time / backend time is the backend's rate over serial's: bars from both.
            bands = [ratio_band(r, serial[r["size"]], x) for r, x in zip(brs, ratio)]
            marks = [unstable(r, serial[r["size"]]) for r in brs]
            draw_points(ax, [r["size"] for r in brs], ratio, bands, marks, label=f"{backend} t={threads}")
            bars = bars or any(bands)
            names += [f"{backend} t={threads} {fmt_size(r['size'])}" for r, m in zip(brs, marks) if m]
            cross = next((r["size"] for r, x in zip(brs, ratio) if x > 1.0), None)
            found.append((kernel, backend, threads, cross))
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        plain_ticks(ax, "y")
        ax.set_xlabel("size (samples or elements)")
        ax.set_ylabel("serial time / backend time")
        ax.set_title(f"{kernel}: where parallel starts to pay (above the dashed line)")
        legend_notes(ax, bars, bool(names), fontsize=7)
        p.save(fig, f"crossover_{kernel}", f"{kernel} crossover: serial time / backend time vs size; "
               + "; ".join(f"{b} t={t}: {fmt_size(c) if c else 'never'}" for k, b, t, c in found if k == kernel)
               + caption_note(bars, names))
    return found
