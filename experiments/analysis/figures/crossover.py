"""Where parallel starts to pay: serial time / backend time vs size (crossover_<kernel>)."""
from __future__ import annotations

from collections import defaultdict

from .labels import fmt_size
from .load import ok_records
from ..writer import Plotter


def crossover_figures(p: Plotter, doc: dict) -> list:
    """Time of serial / time of each backend vs size for the crossover study: above 1 the
    backend wins. Returns [(kernel, backend, threads, crossover size or None)]."""
    found = []
    recs = [r for r in ok_records(doc) if r.get("study") == "crossover"]
    for kernel in sorted({r["kernel"] for r in recs}):
        rs = [r for r in recs if r["kernel"] == kernel]
        serial = {r["size"]: r["time_s"]["median"] for r in rs if r["backend"] == "serial"}
        if not serial:
            continue
        fig, ax = p.plt.subplots(figsize=(8, 4))
        by = defaultdict(list)
        for r in rs:
            if r["backend"] != "serial" and r["size"] in serial:
                by[(r["backend"], r["threads"])].append(r)
        for (backend, threads), brs in sorted(by.items()):
            brs.sort(key=lambda r: r["size"])
            ratio = [serial[r["size"]] / r["time_s"]["median"] for r in brs]
            ax.plot([r["size"] for r in brs], ratio, marker="o", label=f"{backend} t={threads}")
            cross = next((r["size"] for r, x in zip(brs, ratio) if x > 1.0), None)
            found.append((kernel, backend, threads, cross))
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("size (samples or elements)")
        ax.set_ylabel("serial time / backend time")
        ax.set_title(f"{kernel}: where parallel starts to pay (above the dashed line)")
        ax.legend(fontsize=7)
        p.save(fig, f"crossover_{kernel}", f"{kernel} crossover: serial time / backend time vs size; "
               + "; ".join(f"{b} t={t}: {fmt_size(c) if c else 'never'}" for k, b, t, c in found if k == kernel))
    return found
