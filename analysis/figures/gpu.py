"""The GPU studies (gpu_transfers, gpu_logging) and all GPUs against one (multi_gpu)."""
from __future__ import annotations

from analysis.figures.bars import caption_note, draw_points, errors, HATCHED_NOTE, legend_notes
from analysis.spread import band, unstable
from analysis.labels import fmt_size, log_if_wide, unit_scale
from analysis.records import family_of, kernels_in_order
from analysis.writer import Plotter
from analysis.series import MULTI_GPU
from analysis.series import multi_gpu_series


def gpu_study_figures(p: Plotter, doc: dict) -> None:
    """The GPU studies: transfer bandwidth vs size (pageable vs pinned, many small copies vs
    one large), and the logging study's time split into kernel and transfer time."""
    recs = [r for r in doc["records"] if r["status"] == "ok" and family_of(r) == "practice"]
    transfers = [r for r in recs if r["kernel"].startswith("transfer_") and "bytes_per_s" in r.get("rate", {})]
    if transfers:
        fig, ax = p.plt.subplots(figsize=(8, 4.5))
        scale, unit = unit_scale([r["rate"]["bytes_per_s"] for r in transfers], "B/s")
        bars, names = False, []
        for kernel in kernels_in_order(transfers):
            rs = sorted((r for r in transfers if r["kernel"] == kernel), key=lambda r: r["size"])
            bands = [band(r, r["rate"]["bytes_per_s"]) for r in rs]
            draw_points(ax, [r["size"] for r in rs], [r["rate"]["bytes_per_s"] / scale for r in rs], bands,
                        [unstable(r) for r in rs], scale, label=kernel.replace("transfer_", ""))
            bars = bars or any(bands)
            names += [f"{kernel} {fmt_size(r['size'])}" for r in rs if unstable(r)]
        ax.set_xscale("log", base=2)
        # Many small copies and one large one differ by orders of magnitude: a log axis over 10x.
        log = log_if_wide(ax, "y", [r["rate"]["bytes_per_s"] / scale for r in transfers])
        ax.set_xlabel("bytes per transfer study point")
        ax.set_ylabel(f"host<->device bandwidth ({unit}{', log scale' if log else ''})")
        ax.set_title("Transfers: pageable vs pinned; many small copies vs one large")
        legend_notes(ax, bars, bool(names), fontsize=7)
        p.save(fig, "gpu_transfers", "Host-device transfer bandwidth vs size (time from CUDA events, transfers only)"
               + caption_note(bars, names))
    logging = [r for r in recs if r["kernel"].startswith("logging_")]
    if logging:
        logging.sort(key=lambda r: r["kernel"])
        fig, ax = p.plt.subplots(figsize=(6, 4))
        names = [r["kernel"].replace("logging_", "") for r in logging]
        kern = [r.get("kernel_s") or 0.0 for r in logging]
        xfer = [r.get("transfer_s") or 0.0 for r in logging]
        ax.bar(names, kern, label="kernel time", color="tab:blue")
        ax.bar(names, xfer, bottom=kern, label="transfer time", color="tab:orange")
        ax.set_ylabel("seconds per run (median)")
        ax.set_title(f"Logging {logging[0]['size']} steps: read back every step vs once")
        ax.legend(fontsize=7)
        p.save(fig, "gpu_logging", "Logging study: kernel and transfer time, norm read back every step vs kept on the device")


def multi_gpu_figures(p: Plotter, doc: dict) -> None:
    rows = multi_gpu_series(doc)
    if not rows:
        return
    keys = sorted({(r["kernel"], r["precision"], r["size"]) for r in rows})
    fig, ax = p.plt.subplots(figsize=(max(6, 1.6 * len(keys)), 4.6))
    width = 0.38
    for k, (backend, label) in enumerate(MULTI_GPU.items()):
        xs, hits = [], []
        for i, key in enumerate(keys):
            hit = [r for r in rows if (r["kernel"], r["precision"], r["size"]) == key and r["backend"] == backend]
            if hit:
                xs.append(i + (k - 0.5) * width)
                hits.append(hit[0])
        ys = [h["speedup"] for h in hits]
        bars = ax.bar(xs, ys, width, label=f"{backend} ({label})", color=f"C{k}", edgecolor=f"C{k}",
                      yerr=errors(ys, [h["band"] for h in hits]), error_kw={"elinewidth": 1, "capsize": 3})
        for b, h in zip(bars, hits):
            if h["unstable"]:
                b.set_facecolor("white")
                b.set_hatch("//")
            top = max(h["speedup"], (h["band"] or (0, 0))[1])
            ax.text(b.get_x() + b.get_width() / 2, top, f"{h['speedup']:.2f}x", ha="center", va="bottom", fontsize=7)
    devices = max(r["devices"] for r in rows)
    if devices > 0:
        ax.axhline(devices, color="k", linestyle="--", linewidth=1, label=f"ideal ({devices} GPUs)")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{kern} {fmt_size(n)}" + (f"\n{prec}" if kern != "pi" else "") for kern, prec, n in keys])
    ax.set_ylabel("speedup over one GPU (median times)")
    ax.set_ylim(0, max([devices] + [r["speedup"] for r in rows] + [r["band"][1] for r in rows if r["band"]]) * 1.15)
    ax.set_title(f"All {devices} GPUs against one: concurrent vs one after another")
    # Below the axes: inside, it covered the tallest bars' labels.
    bars, names = any(r["band"] for r in rows), [f"{r['backend']} {r['kernel']}" for r in rows if r["unstable"]]
    legend_notes(ax, bars, bool(names), hatched=True, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22),
                 ncol=2)
    p.save(fig, "multi_gpu", "Multi-GPU: speedup over one GPU of the same kernel split over every GPU, launched "
                             "concurrently or one GPU after another" + caption_note(bars, names, HATCHED_NOTE))
