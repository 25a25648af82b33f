"""Bytes/s vs array footprint per backend, cache sizes marked: bandwidth_<kernel>_<precision>."""
from __future__ import annotations

from collections import defaultdict

from .load import arithmetic_intensity, family_of, footprint_bytes, ok_records
from ..writer import Plotter


def bandwidth_figures(p: Plotter, doc: dict) -> None:
    groups = defaultdict(lambda: defaultdict(list))
    for r in ok_records(doc):
        # Bandwidth-bound kernels only: at a flop per byte or more (a matrix product) a kernel is bound by
        # its arithmetic, and its bytes are compulsory traffic, not what the caches serve.
        if "bytes_per_s" not in r.get("rate", {}) or arithmetic_intensity(r) >= 1 or family_of(r) == "practice":
            continue
        if footprint_bytes(r) is None:  # allocated no arrays: nothing to place against the caches
            continue
        groups[(r["kernel"], r.get("precision", ""))][(r["backend"], r["threads"])].append(r)
    caches = doc["context"].get("cpu", {}).get("caches", []) or []
    for (kernel, precision), lines in sorted(groups.items()):
        if max(len({r["size"] for r in rs}) for rs in lines.values()) < 3:
            continue
        fig, ax = p.plt.subplots(figsize=(8, 4.5))
        for (backend, threads), rs in sorted(lines.items()):
            rs = sorted(rs, key=lambda r: r["size"])
            xs = [footprint_bytes(r) for r in rs]
            ys = [r["rate"]["bytes_per_s"] / 1e9 for r in rs]
            ax.plot(xs, ys, marker="o", label=f"{backend} t={threads}")
        for c in caches:
            ax.axvline(c["bytes"], color="grey", linestyle=":", linewidth=1)
            ax.text(c["bytes"], ax.get_ylim()[1] * 0.95, f" L{c['level']}", fontsize=7, color="grey")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("array footprint (bytes of all arrays)")
        ax.set_ylabel("bandwidth (GB/s)")
        title = f"{kernel} bandwidth vs size ({precision}); dotted: cache sizes of one core's hierarchy"
        ax.set_title(title)
        ax.legend(fontsize=7, ncol=2)
        p.save(fig, f"bandwidth_{kernel}_{precision}", title)
