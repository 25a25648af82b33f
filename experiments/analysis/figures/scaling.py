"""Speedup and parallel efficiency vs threads (strong and weak scaling): speedup_<study>_...."""
from __future__ import annotations

from collections import defaultdict

from .bars import caption_note, draw_points, legend_notes, ratio_band, unstable, with_legend_row
from .labels import fmt_rate, fmt_size, log_if_wide, plain_ticks
from .load import family_of, ok_records
from ..writer import Plotter
from .roofline import BANDWIDTH_UNIT, ceilings_of, roof_share


def scaling_series(doc: dict) -> dict:
    """What the scaling figures plot, as data (tested on its own).

    Returns {(study, scaling, kernel, base_size, precision): {backend: [(threads, speedup,
    efficiency)]}}. Strong scaling: speedup = median serial time / median time, efficiency =
    speedup / threads; without a serial record the backend's own 1-thread time is the
    baseline and the backend is labelled so. Weak scaling (work grows with threads): scaled
    speedup = T_base * threads / T(n), efficiency = T_base / T(n).
    """
    return _series_and_baselines(doc)[0]


def _series_and_baselines(doc: dict) -> tuple[dict, dict]:
    """scaling_series, and per key {label: (baseline record, the series' records)}: the
    bandwidth roof's bound is over the baseline's rate."""
    groups = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") not in ("strong", "weak"):
            continue
        base = r["size"] // r["threads"] if r["scaling"] == "weak" else r["size"]
        groups[(r.get("study", ""), r["scaling"], r["kernel"], base, r.get("precision", ""))].append(r)
    out, baselines = {}, {}
    for key, recs in sorted(groups.items()):
        scaling = key[1]
        if len({r["threads"] for r in recs}) < 2:
            continue
        serial = [r for r in recs if r["backend"] == "serial"]
        by_backend = defaultdict(list)
        for r in recs:
            # GPU records have no thread axis; Python variants get the GIL figure instead.
            if r["backend"] != "serial" and r.get("kind", "cpu") == "cpu":
                by_backend[r["backend"]].append(r)
        series = {}
        for backend, rs in sorted(by_backend.items()):
            rs = sorted(rs, key=lambda r: r["threads"])
            own = [r for r in rs if r["threads"] == 1]
            baseline = serial[0] if serial else (own[0] if own else None)
            if baseline is None:
                continue
            label = backend if serial else backend + " (vs own 1 thread)"
            t_base = baseline["time_s"]["median"]
            pts = []
            for r in rs:
                t = r["time_s"]["median"]
                if scaling == "strong":
                    speed = t_base / t
                    pts.append((r["threads"], speed, speed / r["threads"]))
                else:
                    pts.append((r["threads"], t_base * r["threads"] / t, t_base / t))
            series[label] = pts
            baselines.setdefault(key, {})[label] = (baseline, rs)
        if series:
            out[key] = series
    return out, baselines


def scaling_bounds(doc: dict) -> dict:
    """Where each memory-bound strong-scaling series must flatten, as data (tested on its own):
    {key of scaling_series: {label: (speedup bound, roof name, roof)}}, the bound being the
    all-cores bandwidth roof over the series' baseline rate (serial, or its own one thread).
    Weak scaling has none (its baseline's bandwidth is per thread's share of the work), nor
    has a run without ceilings."""
    roofs = ceilings_of(doc)
    if not roofs:
        return {}
    out = {}
    for key, by_label in _series_and_baselines(doc)[1].items():
        if key[1] != "strong":
            continue
        for label, (baseline, recs) in by_label.items():
            b = bandwidth_bound(recs + [baseline], roofs, (baseline.get("rate") or {}).get("bytes_per_s"))
            if b:
                out.setdefault(key, {})[label] = b
    return out


def scaling_figures(p: Plotter, doc: dict) -> None:
    bounds = scaling_bounds(doc)
    series_of, baselines = _series_and_baselines(doc)
    for key, series in series_of.items():
        study, scaling, kernel, base, precision = key
        fig, (ax1, ax2), lax = with_legend_row(p, 2, (11, 5.2), 0.9)
        tmax = max(t for pts in series.values() for t, _, _ in pts)
        tops, notes = [1.2], {"bars": False, "unstable": []}
        for label, pts in series.items():
            baseline, recs = baselines[key][label]
            # A speedup's bar spans both records' interquartile ranges (figures/bars.py says why);
            # an efficiency is the speedup over the threads, and so is its bar.
            bands = [ratio_band(r, baseline, s) for r, (_, s, _) in zip(recs, pts)]
            marks = [unstable(r, baseline) for r in recs]
            xs = [t for t, _, _ in pts]
            line = draw_points(ax1, xs, [s for _, s, _ in pts], bands, marks, label=label)
            eff_bands = [(b[0] / t, b[1] / t) if b else None for t, b in zip(xs, bands)]
            draw_points(ax2, xs, [e for _, _, e in pts], eff_bands, marks, color=line.get_color(), label=label)
            tops += [b[1] for b in eff_bands if b] + [e for _, _, e in pts]
            notes["bars"] = notes["bars"] or any(bands)
            notes["unstable"] += [f"{label} t={r['threads']}" for r, m in zip(recs, marks) if m]
        ideal = list(range(1, tmax + 1))
        ax1.plot(ideal, ideal, "k--", linewidth=1, label="ideal")
        ax2.plot(ideal, [1.0] * len(ideal), "k--", linewidth=1, label="ideal (1.0)")
        drawn = _bandwidth_roofs(ax1, ax2, bounds.get(key, {}), tmax)
        # Every efficiency is on the axis, above 1 too (a super-linear point, or a bar reaching
        # over 1): the axis grows to show it, never clips it. The roof / threads curve, which
        # starts far above, is the one line the axis cuts.
        ax2.set_ylim(0, 1.1 * max(tops))
        _axes(ax1, ax2, scaling, tmax, [s for pts in series.values() for _, s, _ in pts] + ideal + list(drawn))
        title = f"{kernel} {scaling} scaling, N={fmt_size(base)}{' per thread' if scaling == 'weak' else ''} {precision}"
        ax1.set_title(title)
        # Below the axes: inside, it covered the roof line and the points of many threads.
        legend_notes(ax1, notes["bars"], bool(notes["unstable"]), into=lax, fontsize=7, loc="upper center", ncol=3)
        # The efficiency panel's legend names its reference lines only (the backends' colours
        # are the speedup panel's), below the points of few threads, which sit near 1.
        refs = [(h, t) for h, t in zip(*ax2.get_legend_handles_labels()) if t.startswith(("ideal", "bandwidth"))]
        ax2.legend([h for h, _ in refs], [t for _, t in refs], fontsize=7, loc="lower left")
        name = f"speedup_{study}_{scaling}_{kernel}_{fmt_size(base)}_{precision}".replace("^", "p")
        p.save(fig, name, title + caption_note(notes["bars"], notes["unstable"]))


def _bandwidth_roofs(ax1, ax2, bounds: dict, tmax: int) -> set:
    """A memory-bound kernel's speedup flattens at the bandwidth roof over the baseline's rate:
    the line the curve meets, beside the ideal one (one line per distinct baseline), labelled;
    on the efficiency panel the same roof over the threads. Returns the bounds drawn."""
    drawn = set()
    for label, (bound, name, roof) in sorted(bounds.items()):
        if round(bound, 6) in drawn:
            continue
        drawn.add(round(bound, 6))
        baseline = "serial" if not label.endswith("(vs own 1 thread)") else label.split(" ")[0] + " 1 thread"
        roof_text = f"{name} {fmt_rate(roof['value'], 'B/s')} ({roof.get('method', '?')}) / {baseline}"
        ax1.plot([1, tmax], [bound, bound], ":", color="firebrick", linewidth=1.5,
                 label=f"bandwidth roof: {bound:.2f}x = {roof_text}")
        ts = [1 + i * (tmax - 1) / 200 for i in range(201)]
        ax2.plot(ts, [bound / t for t in ts], ":", color="firebrick", linewidth=1.5,
                 label=f"bandwidth roof / threads ({bound:.2f}x / t)")
    return drawn


def _axes(ax1, ax2, scaling: str, tmax: int, speedups: list) -> None:
    """Labels and scales: the speedup and the threads on log 2 axes where they span more than
    labels.WIDE_RANGE (the ideal line stays a diagonal), plain numbers on every axis."""
    from matplotlib.ticker import MaxNLocator

    log = log_if_wide(ax1, "y", speedups, base=2)
    ax1.set_ylim(min(speedups) / 1.4 if log else 0, max(speedups) * 1.3)
    for ax in (ax1, ax2):
        if not (log and log_if_wide(ax, "x", [1, tmax], base=2)):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        plain_ticks(ax)
        ax.set_xlabel("threads")
    what = "speedup (median serial time / median time)" if scaling == "strong" else "scaled speedup (weak)"
    ax1.set_ylabel(what + (", log scale" if log else ""))
    ax2.set_ylabel("parallel efficiency (speedup / threads)")


def bandwidth_bound(recs: list, roofs: dict, base_bytes_per_s: float):
    """The speedup a memory-bound series cannot pass: the all-cores bandwidth roof over the
    baseline's (one thread's) bytes/s. recs: the series' records. Returns (bound, roof name,
    roof) or None where the kernel is not memory-bound or the run has no such roof.

    The roof is the one the records' limit names (the all-cores one where they name the one-core
    roof: a thread sweep's bound is where all threads are). A record whose limit names another
    roof, or none (CPU matmul: `no roof`), gets no bandwidth bound. Older records without a limit,
    of a STREAM-like family with bytes to move and fewer flops per byte than the machine's ridge
    (cpu_fma_f64_all over cpu_bw_triad_all, where both were measured), meet the triad roof, whose
    mix of reads and a write is the STREAM set's."""
    if not roofs or not base_bytes_per_s:
        return None
    name = None
    for r in sorted(recs, key=lambda r: -r["threads"]):
        s = roof_share(r)
        if s and s.get("unit") == BANDWIDTH_UNIT:
            name = s["roof"]
            break
    if name is None and any(not r.get("limit") and _memory_bound(r, roofs) for r in recs):
        name = "cpu_bw_triad_all"
    if name is None:
        return None
    if name.endswith("_1") and name[:-2] + "_all" in roofs:
        name = name[:-2] + "_all"
    roof = roofs.get(name)
    if not roof or roof.get("unit") != BANDWIDTH_UNIT or not roof.get("value"):
        return None
    return roof["value"] / base_bytes_per_s, name, roof


def _memory_bound(r: dict, roofs: dict) -> bool:
    """A record of a STREAM-like family that moves bytes, below the machine's ridge point where the
    ceilings give one (matmul, of the basic family, does 2n flops per float it reads)."""
    work = r.get("work") or {}
    if family_of(r) not in ("stream", "basic") or not work.get("bytes"):
        return False
    fma, bw = (roofs.get(n, {}).get("value") for n in ("cpu_fma_f64_all", "cpu_bw_triad_all"))
    return not (fma and bw) or (work.get("flops") or 0) / work["bytes"] < fma / bw


