"""Speedup and parallel efficiency vs threads (strong and weak scaling): speedup_<study>_...."""
from __future__ import annotations

from collections import defaultdict

from .labels import fmt_rate, fmt_size
from .load import ok_records
from ..writer import Plotter
from .roofline import bandwidth_bound, ceilings_of


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
    from matplotlib.ticker import MaxNLocator

    bounds = scaling_bounds(doc)
    for (study, scaling, kernel, base, precision), series in scaling_series(doc).items():
        fig, (ax1, ax2) = p.plt.subplots(1, 2, figsize=(10, 4))
        tmax = max(t for pts in series.values() for t, _, _ in pts)
        for label, pts in series.items():
            xs = [t for t, _, _ in pts]
            ax1.plot(xs, [s for _, s, _ in pts], marker="o", label=label)
            ax2.plot(xs, [e for _, _, e in pts], marker="o", label=label)
        ideal = list(range(1, tmax + 1))
        ax1.plot(ideal, ideal, "k--", linewidth=1, label="ideal")
        ax2.plot(ideal, [1.0] * len(ideal), "k--", linewidth=1, label="ideal")
        # A memory-bound kernel's speedup flattens at the bandwidth roof over the baseline's
        # rate: the line the curve meets, beside the ideal one (one line per distinct baseline).
        drawn = set()
        for label, (bound, name, roof) in sorted(bounds.get((study, scaling, kernel, base, precision), {}).items()):
            if round(bound, 6) in drawn:
                continue
            drawn.add(round(bound, 6))
            baseline = "serial" if not label.endswith("(vs own 1 thread)") else label.split(" ")[0] + " 1 thread"
            roof_text = f"{name} {fmt_rate(roof['value'], 'B/s')} ({roof.get('method', '?')}) / {baseline}"
            ax1.plot([1, tmax], [bound, bound], ":", color="firebrick", linewidth=1.5,
                     label=f"bandwidth roof: {bound:.2f}x = {roof_text}")
            ax2.plot(ideal, [min(bound / t, 1.2) for t in ideal], ":", color="firebrick", linewidth=1.5,
                     label="bandwidth roof / threads")
        if drawn:  # room above the roof for the legend, which would otherwise sit on it
            ax1.set_ylim(top=max(ax1.get_ylim()[1], 1.3 * max(drawn)))
        for ax in (ax1, ax2):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("threads")
        what = "speedup (median serial time / median time)" if scaling == "strong" else "scaled speedup (weak)"
        ax1.set_ylabel(what)
        ax2.set_ylabel("parallel efficiency")
        ax2.set_ylim(0, 1.2)
        title = f"{kernel} {scaling} scaling, N={fmt_size(base)}{' per thread' if scaling == 'weak' else ''} {precision}"
        ax1.set_title(title)
        ax1.legend(fontsize=7)
        name = f"speedup_{study}_{scaling}_{kernel}_{fmt_size(base)}_{precision}".replace("^", "p")
        p.save(fig, name, title)
