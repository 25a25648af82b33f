"""parlab against the Python library backends of the same run (NumPy, Numba, CuPy, PyTorch):
rate ratios per kernel (libraries_<kernel>)."""
from __future__ import annotations

from analysis.writer import Plotter
from analysis.figures.bars import caption_note, errors, HATCHED_NOTE
from analysis.labels import fmt_rate, plain_ticks
from analysis.series import libraries_table


def libraries_figures(p: Plotter, doc: dict) -> list[dict]:
    rows = libraries_table(doc)
    for kernel in sorted({r["kernel"] for r in rows}):
        kr = [r for r in rows if r["kernel"] == kernel]
        fig, ax = p.plt.subplots(figsize=(8, 0.5 + 0.45 * len(kr)))
        labels = [f"{r['library']} t={r['threads']} vs {r['parlab']} t={r['parlab_threads']}" for r in kr]
        colours = ["C0" if r["ratio"] >= 1 else "C3" for r in kr]
        bars = ax.barh(range(len(kr)), [r["ratio"] for r in kr], color=colours, edgecolor=colours,
                       xerr=errors([r["ratio"] for r in kr], [r["band"] for r in kr]),
                       error_kw={"elinewidth": 1, "capsize": 3})
        for b, r in zip(bars, kr):
            if r["unstable"]:
                b.set_facecolor("white")
                b.set_hatch("//")
        ax.set_yticks(range(len(kr)), labels, fontsize=7)
        ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        plain_ticks(ax, "x")
        ax.set_xlabel("parlab rate / library rate (right of the dashed line: parlab faster)")
        ax.set_title(f"{kernel}: parlab against the Python libraries, same run")
        p.save(fig, f"libraries_{kernel}", f"{kernel} Python libraries: " + "; ".join(
            f"{r['parlab']} t={r['parlab_threads']} {fmt_rate(r['parlab_rate'], r['unit'])} vs {r['library']} "
            f"t={r['threads']} {fmt_rate(r['library_rate'], r['unit'])} = {r['ratio']:.2f}x" for r in kr)
               + caption_note(any(r["band"] for r in kr), [r["library"] for r in kr if r["unstable"]],
                                            HATCHED_NOTE))
    return rows
