"""Accuracy: pi's relative error vs N against the binomial 1 and 3 sigma bounds (convergence)."""
from __future__ import annotations

import math

from analysis.labels import fmt_size
from analysis.writer import Plotter
from analysis.series import convergence_points
from analysis.series import convergence_summary
from analysis.series import pi_relative_sigma


def convergence_figures(p: Plotter, doc: dict) -> dict | None:
    import textwrap

    points = convergence_points(doc)
    if not points:
        return None
    s = convergence_summary(points)
    fig, ax = p.plt.subplots(figsize=(8, 5))
    ns = sorted({n for pts in points.values() for n, _, _ in pts})
    grid = [2 ** (k / 4) for k in range(int(4 * math.log2(ns[0])), int(4 * math.log2(ns[-1])) + 1)]
    ax.fill_between(grid, [1e-30] * len(grid), [3 * pi_relative_sigma(n) for n in grid], color="0.9",
                    label="within 3 sigma (binomial bound)")
    ax.plot(grid, [pi_relative_sigma(n) for n in grid], "k--", linewidth=1, label="1 sigma")
    ax.plot(grid, [3 * pi_relative_sigma(n) for n in grid], "k-", linewidth=1, label="3 sigma")
    # Decreasing marker sizes, hollow, so points that coincide stay visible as rings.
    sizes = [11, 8, 5, 3]
    for i, (backend, pts) in enumerate(points.items()):
        ax.plot([n for n, _, _ in pts], [max(e, 1e-30) for _, _, e in pts], linestyle="none", marker="o",
                markersize=sizes[min(i, len(sizes) - 1)], markerfacecolor="none", label=f"{backend} ({len(pts)} N)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lows = [e for pts in points.values() for _, _, e in pts if e > 0]
    ax.set_ylim(min(lows + [pi_relative_sigma(ns[-1])]) / 10, 3 * pi_relative_sigma(ns[0]) * 3)
    ax.set_xlabel("pi samples N")
    ax.set_ylabel("|pi_hat - pi| / pi")
    same = ("every backend lies on the same points: identical hit counts at all "
            f"{s['shared_sizes']} N measured by more than one backend (the stream is canonical)"
            if not s["differing_sizes"] else
            f"hit counts DIFFER between backends at N = {', '.join(fmt_size(n) for n in s['differing_sizes'])}")
    missing = sorted({f"{r['backend']} ({r.get('reason', '')[:60]})" for r in doc["records"]
                      if r.get("study") == "convergence" and r["status"] == "unavailable"})
    lines = [f"pi's relative error vs N (seed {doc['records'][0].get('seed')})", same + ";",
             f"{s['beyond_3sigma']} of {s['points']} distinct points beyond 3 sigma, {s['beyond_1sigma']} beyond 1 sigma"]
    if missing:
        lines.append("not measured here: " + "; ".join(missing))
    ax.set_title("\n".join(textwrap.fill(x, 120) for x in lines), fontsize=7)
    ax.legend(fontsize=7, loc="lower left")
    p.save(fig, "convergence", f"Accuracy: relative error of pi vs N with the binomial 1 and 3 sigma bounds; {same}; "
           f"{s['beyond_1sigma']} of {s['points']} points beyond 1 sigma, {s['beyond_3sigma']} beyond 3 sigma")
    return s
