"""EPCC-style scheduling overhead per construct vs threads (overhead)."""
from __future__ import annotations

from collections import defaultdict

from analysis.labels import plain_ticks
from analysis.records import family_of, kernels_in_order, ok_records, ranks_of
from analysis.writer import Plotter


def overhead_figures(p: Plotter, doc: dict) -> None:
    """EPCC-style overhead: time per construct minus the serial baseline doing the same work
    per thread, vs threads, per backend."""
    from matplotlib.ticker import MaxNLocator

    recs = [r for r in ok_records(doc, lab=True) if family_of(r) == "overhead" and ranks_of(r) is None]
    if not recs:
        return
    kernels = kernels_in_order(recs)
    fig, axes = p.plt.subplots(1, len(kernels), figsize=(4.2 * len(kernels), 3.8), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        rs = [r for r in recs if r["kernel"] == kernel]
        base = [r for r in rs if r["backend"] == "serial"]
        base_us = base[0]["time_s"]["median"] / base[0]["size"] * 1e6 if base else 0.0
        by_backend = defaultdict(list)
        for r in rs:
            if r["backend"] != "serial":
                by_backend[r["backend"]].append(r)
        for backend, brs in sorted(by_backend.items()):
            brs.sort(key=lambda r: r["threads"])
            ax.plot([r["threads"] for r in brs], [r["time_s"]["median"] / r["size"] * 1e6 - base_us for r in brs],
                    marker="o", label=backend)
        ax.set_yscale("symlog", linthresh=0.1)
        plain_ticks(ax, "y")  # the label says µs; ticks 0.1, 1, 10 rather than 10^k
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("threads")
        ax.set_ylabel("overhead per construct (µs)")
        ax.set_title(kernel.replace("overhead_", ""), fontsize=9)
        ax.legend(fontsize=7)
    p.save(fig, "overhead", "Scheduling overhead per construct (µs), minus the serial baseline with the same work per "
                            "thread: empty fork-join, parallel for of 64 trivial iterations per thread, reduction")
