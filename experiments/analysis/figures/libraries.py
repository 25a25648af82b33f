"""parlab against the Python library backends of the same run (NumPy, Numba, CuPy, PyTorch):
rate ratios per kernel (libraries_<kernel>)."""
from __future__ import annotations

from ..writer import Plotter
from .bars import HATCHED_NOTE, caption_note, errors, ratio_band, unstable
from .labels import fmt_rate, plain_ticks
from .load import ok_records, rate_of


# Python library backends that run on a GPU (the rest run on the CPU).
GPU_LIBRARIES = {"py-cupy", "py-torch"}
# The study of the libraries suite; "peers" is its name in records from before the rename.
LIBRARY_STUDIES = ("libraries", "peers")


def libraries_table(doc: dict) -> list[dict]:
    """The libraries table, as data (tested on its own): for every kernel of the `libraries`
    study and every library backend (a python-kind record), at its highest thread count,
    parlab's fastest backend of the same kind of device (CPU backends at that same thread count;
    any GPU backend for a GPU library) and the ratio parlab rate / library rate, with its bar
    (bars.ratio_band) and unstable mark."""
    recs = [r for r in ok_records(doc) if r.get("study") in LIBRARY_STUDIES and rate_of(r)[0]]
    rows = []
    for key in sorted({(r["kernel"], str(r.get("precision")), r["size"]) for r in recs}):
        rs = [r for r in recs if (r["kernel"], str(r.get("precision")), r["size"]) == key]
        libraries = [r for r in rs if r["kind"] == "python"]
        top = {}
        for r in libraries:  # each library at its highest thread count
            if r["backend"] not in top or r["threads"] > top[r["backend"]]["threads"]:
                top[r["backend"]] = r
        for name in sorted(top):
            lib = top[name]
            gpu = name in GPU_LIBRARIES
            own = [r for r in rs if r["kind"] == ("gpu" if gpu else "cpu") and (gpu or r["threads"] == lib["threads"])]
            if not own:
                continue
            best = max(own, key=lambda r: rate_of(r)[0])
            unit = rate_of(best)[1]
            ratio = rate_of(best)[0] / rate_of(lib)[0]
            rows.append({"kernel": key[0], "precision": key[1], "size": key[2], "threads": lib["threads"],
                         "parlab": best["backend"], "parlab_threads": best["threads"], "parlab_rate": rate_of(best)[0],
                         "library": name, "library_rate": rate_of(lib)[0], "unit": unit, "ratio": ratio,
                         "band": ratio_band(best, lib, ratio), "unstable": unstable(best, lib)})
    return rows


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
