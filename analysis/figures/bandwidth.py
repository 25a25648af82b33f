"""Bytes/s vs array footprint per backend, cache sizes marked: bandwidth_<kernel>_<precision>."""
from __future__ import annotations

from collections import defaultdict

from analysis.spread import band, unstable
from analysis.figures.bars import caption_note, draw_points, legend_notes
from analysis.labels import fmt_bytes, fmt_size, log_if_wide, unit_scale
from analysis.records import arithmetic_intensity, family_of, footprint_bytes, ok_records
from analysis.writer import Plotter


def bandwidth_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import FuncFormatter

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
        fig, ax = p.plt.subplots(figsize=(10, 4.8))
        scale, unit = unit_scale([r["rate"]["bytes_per_s"] for rs in lines.values() for r in rs], "B/s")
        names, shown = [], []
        for (backend, threads), rs in sorted(lines.items()):
            rs = sorted(rs, key=lambda r: r["size"])
            ys = [r["rate"]["bytes_per_s"] / scale for r in rs]
            marks = [unstable(r) for r in rs]
            draw_points(ax, [footprint_bytes(r) for r in rs], ys, [band(r, r["rate"]["bytes_per_s"]) for r in rs],
                        marks, scale, label=f"{backend} t={threads}")
            names += [f"{backend} t={threads} {fmt_size(r['size'])}" for r, m in zip(rs, marks) if m]
            shown += [band(r, r["rate"]["bytes_per_s"]) for r in rs]
        ax.set_xscale("log", base=2)
        # Caches serve several times DRAM's bandwidth: over WIDE_RANGE the rates go on a log axis.
        log = log_if_wide(ax, "y", [y for line in ax.get_lines() for y in line.get_ydata()])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_bytes(v)))
        for c in caches:
            ax.axvline(c["bytes"], color="grey", linestyle=":", linewidth=1)
            # At the top of the axes whatever the rates' range (a fraction of the axes' height, not
            # of its top value, which put the label far below a narrow range's axis).
            ax.text(c["bytes"], 0.98, f" L{c['level']}", fontsize=7, color="grey", va="top",
                    transform=ax.get_xaxis_transform())
        ax.set_xlabel("array footprint (bytes of all arrays)")
        ax.set_ylabel(f"bandwidth ({unit}{', log scale' if log else ''})")
        title = f"{kernel} bandwidth vs size ({precision}); dotted: cache sizes of one core's hierarchy"
        ax.set_title(title)
        # Right of the axes: a sweep of many backends and thread counts has a legend as tall as
        # the axes, which inside covered the points and the cache labels.
        legend_notes(ax, any(shown), bool(names), fontsize=7, ncol=1 + len(lines) // 26, loc="upper left",
                     bbox_to_anchor=(1.01, 1.0))
        p.save(fig, f"bandwidth_{kernel}_{precision}", title + caption_note(any(shown), names))
