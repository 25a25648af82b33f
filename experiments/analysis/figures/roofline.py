"""The run against its machine's roofs: each record's share of its roof (context.ceilings, the
record's `limit`), and the roofline figures roofline_cpu and roofline_gpu.

`parlab run` measures the machine's roofs (context.ceilings: roofs by name, each with value,
unit, method measured or theoretical, threads and device) and gives every valid record a `limit`:
the roof that binds its kernel, the rate it attained in that roof's unit and the fraction
attained / roof, or {"roof": null, "reason": "no roof: ..."}. Which roof binds a kernel is decided
there, by one function; here it is only read. Runs from before ceilings carry neither: every
function below then gives None or nothing, and no roofline is drawn.
"""
from __future__ import annotations

from collections import defaultdict

from .bars import band, caption_note, errors, legend_notes, unstable
from .labels import fmt_rate, plain_ticks, three_digits, unit_scale
from .load import family_of, ok_records, processor_of, ranks_of
from ..share_interval import interval_text, share_interval
from ..writer import Plotter

# Roof units as the figures and captions write them.
UNIT_LABELS = {"bytes/s": "B/s", "flops/s": "flop/s", "muls/s": "mul/s", "bytes": "B", "count": "", "hz": "Hz"}
BANDWIDTH_UNIT = "bytes/s"
COMPUTE_UNITS = ("flops/s", "muls/s")


def ceilings_of(doc: dict) -> dict:
    """The run's measured roofs, {name: roof}; {} for a run without context.ceilings."""
    c = doc.get("context", {}).get("ceilings")
    return dict(c.get("roofs") or {}) if isinstance(c, dict) else {}


def roof_share(r: dict):
    """A record's share of its roof, {roof, value, unit, attained, fraction}, or None where the
    record has no limit (an older run) or its limit names no roof."""
    lim = r.get("limit")
    if not isinstance(lim, dict) or not lim.get("roof") or not isinstance(lim.get("fraction"), (int, float)):
        return None
    return lim


def share_text(r: dict) -> str:
    """"0.82 of cpu_bw_triad_all" for a record with a roof ("1.05 (0.98–1.12) of ..." where the run
    measured the roof again at its end: share_interval.py), its limit's reason ("no roof: ...")
    for one whose kernel has none, "" for a record without a limit (a run from before ceilings):
    the one wording of a record's share of its roof (the report's first screen and `parlab
    compare` both use it)."""
    s = roof_share(r)
    if s:
        return f"{s['fraction']:.2f}{interval_text(share_interval(r))} of {s['roof']}"
    lim = r.get("limit")
    return str(lim.get("reason") or "no roof") if isinstance(lim, dict) and not lim.get("roof") else ""


# Why a record has no roof, in a word for a table cell: the reasons record_limit gives
# (experiments/machine/limit.cpp) run to 130 characters, the last-level cache one with two byte
# counts. A phrase of the reason, the short label; the first that occurs wins.
NO_ROOF_SHORT = (("fit the last-level cache", "cache"), ("not in the catalogue", "no model"),
                 ("names no bound resource", "unbound"), ("several hosts", "hosts"),
                 ("FMA roof", "precision"), ("no rate", "no rate"), ("not measured", "not measured"),
                 ("unavailable", "not measured"), ("not among the ceilings", "not measured"),
                 ("there is no gpu_imul_peak", "no peak"))


def limit_notes(r: dict) -> list:
    """What else a record's limit says of its roof, one phrase each: its share of the in-core bound
    of the loop it ran and what binds that loop ("0.81 of the in-core bound (vector ports: ...)"),
    and why it falls short; its share of the GPU's theoretical peak ("0.89 of gpu_bw_peak"); how
    its work was counted (issued by the compiled loop); a partly cache-resident working set; and by
    how much it is above its roof and whether within the roof's spread (experiments/machine/limit.cpp)."""
    lim = r.get("limit")
    if not isinstance(lim, dict) or not lim.get("roof"):
        return []
    notes = []
    incore = lim.get("incore")
    if isinstance(incore, dict) and isinstance(incore.get("fraction"), (int, float)):
        notes.append(f"{incore['fraction']:.2f} of the in-core bound ({incore.get('binds', '?')}; "
                     f"{incore.get('model', '?')})")
        if incore.get("below"):
            notes.append(f"below 0.8 of it: {incore['below']}")
    peak = lim.get("peak")
    if isinstance(peak, dict) and isinstance(peak.get("fraction"), (int, float)):
        notes.append(f"{peak['fraction']:.2f} of {peak.get('roof', 'the peak')}")
    if lim.get("residency"):
        notes.append(str(lim["residency"]))
    if lim.get("above_roof"):
        notes.append(str(lim["above_roof"]))
    if lim.get("counted"):
        notes.append(str(lim["counted"]))
    if lim.get("basis"):
        notes.append(f"roof: {lim['basis']}")
    return notes


def share_short(r: dict) -> str:
    """share_text for a table cell: "0.82" for a record with a roof, "no roof (cache)" (a word for
    the reason: NO_ROOF_SHORT) for one without, "" for a record without a limit."""
    s = roof_share(r)
    if s:
        return f"{s['fraction']:.2f}"
    text = share_text(r)
    if not text:
        return ""
    word = next((short for phrase, short in NO_ROOF_SHORT if phrase in text), None)
    return f"no roof ({word})" if word else "no roof"


def roof_text(roof: dict) -> str:
    """"20.1 GB/s (measured, 2 threads)": a roof's value, how it was had, and on how many CPU
    threads (the figures' labels and `parlab compare`'s context both)."""
    unit = UNIT_LABELS.get(roof.get("unit"), roof.get("unit", ""))
    threads = roof.get("threads")
    where = f", {threads} thread{'s' if threads != 1 else ''}" if isinstance(threads, int) and roof.get(
        "device", "cpu") == "cpu" else ""
    value = roof.get("value")
    shown = fmt_rate(value, unit) if isinstance(value, (int, float)) else str(value)
    return f"{shown} ({roof.get('method', '?')}{where})"


def roof_label(name: str, roof: dict) -> str:
    """"cpu_bw_triad_all 20.1 GB/s (measured, 2 threads)": a roof's line label; "cpu_bw_triad_all
    103 GB/s (start 61.7, end 103; measured, 16 threads)" where the run measured it at its start
    and again at its end (roof["start"] and roof["end"], graded_roofs)."""
    text = roof_text(roof)
    if isinstance(roof.get("start"), (int, float)) and isinstance(roof.get("end"), (int, float)):
        # Both in the value's own prefix: "103 GB/s (start 61.7, end 103; ...)".
        scale = next((s for s in (1e15, 1e12, 1e9, 1e6, 1e3) if abs(roof["value"]) >= s * 0.9995), 1.0)
        both = f"start {three_digits(roof['start'] / scale)}, end {three_digits(roof['end'] / scale)}"
        value, _, how = text.partition(" (")
        text = f"{value} ({both}; {how}"
    return f"{name} {text}"


def graded_roofs(doc: dict) -> dict:
    """The run's roofs as its records are graded against them, {name: roof}: each roof of
    context.ceilings with `value` the one the records' limits hold (limit.value of the records
    bound by that roof alone, without a `basis` that scales it), so that a roof drawn or named in a
    legend is the roof the shares are of; and where the run measured the roof again at its end
    (context.ceilings_end), `start` and `end`. A roof no record is graded against keeps its
    start value."""
    roofs = {n: dict(r) for n, r in ceilings_of(doc).items() if isinstance(r, dict)}
    end = (doc.get("context", {}).get("ceilings_end") or {}) if isinstance(doc.get("context"), dict) else {}
    end_roofs = end.get("roofs") if isinstance(end, dict) and isinstance(end.get("roofs"), dict) else {}
    held = defaultdict(list)
    for r in ok_records(doc):
        lim = r.get("limit")
        if (isinstance(lim, dict) and lim.get("roof") in roofs and not lim.get("basis")
                and isinstance(lim.get("value"), (int, float)) and lim["value"] > 0):
            held[lim["roof"]].append(lim["value"])
    for name, roof in roofs.items():
        e = end_roofs.get(name)
        if isinstance(e, dict) and isinstance(e.get("value"), (int, float)) and isinstance(roof.get("value"), (int, float)):
            roof["start"], roof["end"] = roof["value"], e["value"]
        if held.get(name):
            values = held[name]
            roof["value"] = max(set(values), key=lambda v: (values.count(v), v))  # the most common, then the highest
    return roofs


def device_of(r: dict) -> str:
    """"gpu" or "cpu": which figure shows the record, where it ran (its `processor`; load.py's
    processor_of holds the fallback for older records). record_limit chose its roof from the
    same field, so a record and its roof are on one figure."""
    return processor_of(r)


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
