"""The roofline figures roofline_cpu and roofline_gpu: each record against its machine's roofs,
as analysis/roofs.py reads them. Runs from before ceilings carry none, and no roofline is drawn.
"""
from __future__ import annotations

from collections import defaultdict

from analysis.spread import band, unstable
from analysis.figures.bars import caption_note, errors, legend_notes
from analysis.labels import fmt_rate, plain_ticks, unit_scale
from analysis.records import family_of, ok_records, ranks_of
from analysis.roofs import BANDWIDTH_UNIT, UNIT_LABELS, ceilings_of, device_of, graded_roofs, roof_label, roof_share
from analysis.writer import Plotter

# Roof units as the figures and captions write them.
def roofline_points(doc: dict) -> dict:
    """What the roofline figures plot, as data (tested on its own).

    {device: [point]}, one point per (kernel, precision, backend) of the records with a roof: at
    the largest size that kernel was measured at (smaller sizes may fit a cache, whose bandwidth
    no DRAM roof bounds), its fastest thread count (the highest attained rate). A point is
    {kernel, precision, backend, threads, size, roof, unit, attained, value, fraction,
    intensity (flops per byte, None without both), flops_per_s (None without flops), fraction_band
    (the fraction at the record's quartile times, None without them), unstable}.
    MPI jobs are left out: the roofs are one machine's, a job may span several."""
    roofs = ceilings_of(doc)
    if not roofs:
        return {}
    groups = defaultdict(list)
    for r in ok_records(doc):
        if roof_share(r) is None or ranks_of(r) is not None or family_of(r) == "study":
            continue
        groups[(r["kernel"], str(r.get("precision", "")))].append(r)
    out = defaultdict(list)
    for (kernel, precision), recs in sorted(groups.items()):
        size = max(r["size"] for r in recs)
        best = {}
        for r in recs:
            if r["size"] != size:
                continue
            if r["backend"] not in best or roof_share(r)["attained"] > roof_share(best[r["backend"]])["attained"]:
                best[r["backend"]] = r
        for backend, r in sorted(best.items()):
            s = roof_share(r)
            work = r.get("work", {})
            flops, moved = work.get("flops") or 0, work.get("bytes") or 0
            out[device_of(r)].append({
                "kernel": kernel, "precision": precision, "backend": backend, "threads": r["threads"],
                "size": size, "roof": s["roof"], "unit": s.get("unit", ""), "attained": s["attained"],
                "value": s["value"], "fraction": s["fraction"],
                "intensity": flops / moved if flops and moved else None,
                "flops_per_s": r.get("rate", {}).get("flops_per_s") if flops else None,
                # The interquartile range of its repetitions as a share of the roof (bars.py).
                "fraction_band": band(r, s["fraction"]), "unstable": unstable(r)})
    return dict(out)


def _draw_roofs(ax, roofs: dict, xlim: tuple, scale: float) -> list:
    """Bandwidth roofs as slanted lines (rate = bandwidth x intensity), flop roofs as flat lines,
    each in the legend; a slanted line stops where it meets the highest flop roof, which bounds it
    there, and a flat one starts where it meets the highest bandwidth roof. Rates are drawn
    divided by scale (the axis's unit). Returns the flat roofs [(name, y)] for label_flat_roofs."""
    bw = sorted(((n, r) for n, r in roofs.items() if r.get("unit") == BANDWIDTH_UNIT), key=lambda x: (-x[1]["value"], x[0]))
    fl = sorted(((n, r) for n, r in roofs.items() if r.get("unit") == "flops/s"), key=lambda x: (-x[1]["value"], x[0]))
    top_flops = fl[0][1]["value"] if fl else None
    top_bw = bw[0][1]["value"] if bw else None
    lo, hi = xlim
    for i, (name, r) in enumerate(bw):
        right = min(hi, top_flops / r["value"]) if top_flops else hi
        style = "-" if r.get("method") == "measured" else "--"
        ax.plot([lo, right], [r["value"] * lo / scale, r["value"] * right / scale], style, color=f"C{i % 10}",
                linewidth=1.2, alpha=0.8, label=roof_label(name, r))
    flat = []
    for j, (name, r) in enumerate(fl):
        left = max(lo, r["value"] / top_bw) if top_bw else lo
        style = "-" if r.get("method") == "measured" else "--"
        ax.plot([left, hi], [r["value"] / scale, r["value"] / scale], style, color="k",
                linewidth=1.6 - 0.3 * min(j, 3), alpha=0.9 - 0.15 * min(j, 3), label=roof_label(name, r))
        flat.append((name, r["value"] / scale))
    return flat


# Roof names on the flat lines are ROOF_FONT points high; two closer than ROOF_GAP points are
# stacked, the lower one below the one above it (text about 1.2 times its size high, and a margin).
ROOF_FONT = 6.5
ROOF_GAP = 1.45 * ROOF_FONT


def label_flat_roofs(ax, flat: list, hi: float) -> list:
    """Each flat roof's name on its line, at the right end where no slanted roof crosses it, just
    above the line; where roofs lie within a few percent of each other (cpu_fma_f64_1 and
    cpu_fma_f64_all on a machine whose one core reaches nearly all of the FMA rate) their names
    are stacked downwards, never printed over each other. Call once the axes' limits are final;
    returns the annotations."""
    fig = ax.figure
    ax.set_ylim(ax.get_ylim())  # final: the positions are measured against it
    to_pt = 72.0 / fig.dpi
    placed, out = None, []
    for name, y in sorted(flat, key=lambda f: -f[1]):
        at = ax.transData.transform((hi, y))[1] * to_pt  # the line, in points from the figure's bottom
        bottom = at + 2
        if placed is not None and bottom > placed - ROOF_GAP:
            bottom = placed - ROOF_GAP
        placed = bottom
        out.append(ax.annotate(name, (hi, y), xytext=(-3, bottom - at), textcoords="offset points", ha="right",
                               va="bottom", fontsize=ROOF_FONT))
    return out


def roofline_figures(p: Plotter, doc: dict) -> None:
    """roofline_cpu and roofline_gpu, where the run has ceilings and records with a roof.

    Left panel: attained flop/s against arithmetic intensity (flops per byte of the work model),
    log-log, with the device's bandwidth and flop roofs. A kernel without flops (copy) or without
    bytes (pi, bound by integer multiplies) has no place on it; the right panel therefore gives
    every point as its share of its own roof, whatever the roof's unit (pi against the
    integer-multiply roof), so every (kernel, backend) is shown once against its limit."""
    roofs = graded_roofs(doc)  # the values the records' shares are of, in the lines and the legend
    points = roofline_points(doc)
    for device in ("cpu", "gpu"):
        pts = points.get(device, [])
        dev_roofs = {n: r for n, r in roofs.items() if isinstance(r.get("value"), (int, float)) and r["value"] > 0
                     and str(r.get("device", "cpu")).startswith(device) and r.get("unit") in (BANDWIDTH_UNIT, "flops/s")}
        if not pts:
            continue
        fig, (ax1, ax2) = p.plt.subplots(1, 2, figsize=(13, 0.8 + max(4.5, 0.32 * len(pts))),
                                         gridspec_kw={"width_ratios": [1.3, 1]})
        placed = [q for q in pts if q["intensity"] and q["flops_per_s"]]
        xs = [q["intensity"] for q in placed]
        lo = min(xs + [1 / 64]) / 2
        hi = max(xs + [16.0]) * 2
        # The highest bandwidth and flop roofs cross at the ridge; keep it on the axis.
        bws = [r["value"] for r in dev_roofs.values() if r["unit"] == BANDWIDTH_UNIT]
        fls = [r["value"] for r in dev_roofs.values() if r["unit"] == "flops/s"]
        if bws and fls:
            hi = max(hi, 4 * max(fls) / max(bws))
        scale, unit = unit_scale([q["flops_per_s"] for q in placed] + fls, "flop/s")
        flat = _draw_roofs(ax1, dev_roofs, (lo, hi), scale)
        # One marker and colour per backend (a legend of its own), one label per kernel, at its
        # fastest point: every point's number is on the right, so the left stays legible however
        # many backends a run has.
        markers = "osD^v<>ph*P"
        backends = sorted({q["backend"] for q in placed})
        style = {b: (markers[i % len(markers)], f"C{i % 10}") for i, b in enumerate(backends)}
        handles = {}
        for q in placed:
            m, c = style[q["backend"]]
            point, = ax1.plot([q["intensity"]], [q["flops_per_s"] / scale], m, markersize=6,
                              color="white" if q["unstable"] else c, markeredgecolor="k", markeredgewidth=0.5,
                              linestyle="none")
            if not q["unstable"] or q["backend"] not in handles:  # the legend shows a filled one
                handles[q["backend"]] = point
        for kernel in sorted({(q["kernel"], q["precision"]) for q in placed}):
            top = max((q for q in placed if (q["kernel"], q["precision"]) == kernel), key=lambda q: q["flops_per_s"])
            ax1.annotate(f"{kernel[0]}", (top["intensity"], top["flops_per_s"] / scale), textcoords="offset points",
                         xytext=(0, 7), ha="center", fontsize=7, fontweight="bold")
        ax1.set_xscale("log", base=2)
        ax1.set_yscale("log")
        ax1.set_xlim(lo, hi)
        ax1.set_xlabel("arithmetic intensity (flops per byte of the work model)")
        plain_ticks(ax1, "y")
        ax1.set_ylabel(f"attained {unit}")
        ax1.set_title(f"{device.upper()} roofline: solid roofs measured, dashed theoretical")
        if ax1.get_legend_handles_labels()[0]:
            # Roofs bottom right; backends top left (the roofs' legend is drawn from the labelled
            # lines, the backends' from one marker each).
            roofs_legend = ax1.legend(fontsize=6.5, loc="lower right")
            if handles:
                ax1.add_artist(roofs_legend)
                ax1.legend([handles[b] for b in backends], backends, fontsize=6.5, loc="upper left", title="backend",
                           title_fontsize=7)
        order = _share_panel(ax2, pts)
        # The layout first (save lays it out the same way again): the names' spacing is in points.
        fig.tight_layout()
        label_flat_roofs(ax1, flat, hi)
        left_out = [q for q in pts if q not in placed]
        caption = (f"{device.upper()} roofline: each (kernel, backend) at its largest size and its fastest thread "
                   f"count; roofs from context.ceilings" +
                   (f"; not on the left (no flops, or no bytes): {', '.join(sorted({q['kernel'] for q in left_out}))}, "
                    "shown on the right against their own roofs" if left_out else ""))
        p.save(fig, f"roofline_{device}", caption + caption_note(
            any(q["fraction_band"] for q in order),
            [f"{q['kernel']} {q['backend']} t={q['threads']}" for q in order if q["unstable"]]))


def _share_panel(ax2, pts: list) -> list:
    """The roofline's right panel: every point's share of its own roof, with its bar and its
    unstable mark; returns the points in the panel's order."""
    order = sorted(pts, key=lambda q: (q["kernel"], q["precision"], -q["fraction"]))
    ys = range(len(order))
    units = sorted({q["unit"] for q in order})
    colors = {u: f"C{i}" for i, u in enumerate(units)}
    fractions = [q["fraction"] for q in order]
    ax2.barh(ys, fractions, color=["white" if q["unstable"] else colors[q["unit"]] for q in order],
             edgecolor=[colors[q["unit"]] for q in order],
             xerr=errors(fractions, [q["fraction_band"] for q in order]),
             error_kw={"ecolor": "k", "elinewidth": 1, "capsize": 2.5})
    for bar, q in zip(ax2.patches, order):
        if q["unstable"]:
            bar.set_hatch("//")
    ax2.set_yticks(list(ys), [f"{q['kernel']} {q['backend']} t={q['threads']}" for q in order], fontsize=7)
    ax2.invert_yaxis()
    for y, q in zip(ys, order):
        unit = UNIT_LABELS.get(q["unit"], q["unit"])
        ax2.text(max(q["fraction"], (q["fraction_band"] or (0, 0))[1]), y,
                 f" {q['fraction']:.2f} of {q['roof']} ({fmt_rate(q['attained'], unit)})", va="center", fontsize=6.5)
    ax2.axvline(1.0, color="k", linestyle="--", linewidth=1)
    ax2.annotate("the roof (1.0)", (1.0, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -3),
                 textcoords="offset points", ha="left", va="top", fontsize=7)
    # Wide enough for the highest share and its bar (a share over 1 is shown, never clipped),
    # and for the text right of each bar.
    ends = fractions + [q["fraction_band"][1] for q in order if q["fraction_band"]]
    ax2.set_xlim(0, max(1.6, max(ends) * 1.6))
    ax2.set_xlabel("attained / roof (1: at the roof)")
    ax2.set_title("share of the roof that binds each kernel (colour: roof unit)")
    ax2.grid(axis="y", visible=False)
    for u in units:
        ax2.barh([0], [0], color=colors[u], label=UNIT_LABELS.get(u, u) + " roof")
    # Below the axes: inside, it covered the text of the bottom bars.
    legend_notes(ax2, any(q["fraction_band"] for q in order), any(q["unstable"] for q in order), fontsize=7,
                 loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=2)
    return order
