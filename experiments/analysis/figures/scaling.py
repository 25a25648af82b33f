"""Speedup and parallel efficiency vs threads (strong and weak scaling): speedup_<study>_...."""
from __future__ import annotations

from collections import defaultdict

from .labels import fmt_size
from .load import ok_records
from ..writer import Plotter


def scaling_series(doc: dict) -> dict:
    """What the scaling figures plot, as data (tested on its own).

    Returns {(study, scaling, kernel, base_size, precision): {backend: [(threads, speedup,
    efficiency)]}}. Strong scaling: speedup = median serial time / median time, efficiency =
    speedup / threads; without a serial record the backend's own 1-thread time is the
    reference and the backend is labelled so. Weak scaling (work grows with threads): scaled
    speedup = T_ref * threads / T(n), efficiency = T_ref / T(n).
    """
    groups = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") not in ("strong", "weak"):
            continue
        base = r["size"] // r["threads"] if r["scaling"] == "weak" else r["size"]
        groups[(r.get("study", ""), r["scaling"], r["kernel"], base, r.get("precision", ""))].append(r)
    out = {}
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
            ref = serial[0] if serial else (own[0] if own else None)
            if ref is None:
                continue
            label = backend if serial else backend + " (vs own 1 thread)"
            t_ref = ref["time_s"]["median"]
            pts = []
            for r in rs:
                t = r["time_s"]["median"]
                if scaling == "strong":
                    speed = t_ref / t
                    pts.append((r["threads"], speed, speed / r["threads"]))
                else:
                    pts.append((r["threads"], t_ref * r["threads"] / t, t_ref / t))
            series[label] = pts
        if series:
            out[key] = series
    return out


def scaling_figures(p: Plotter, doc: dict) -> None:
    from matplotlib.ticker import MaxNLocator

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
