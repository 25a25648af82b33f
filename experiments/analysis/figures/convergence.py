"""Accuracy: pi's relative error vs N against the binomial 1 and 3 sigma bounds (convergence)."""
from __future__ import annotations

import math
from collections import defaultdict

from .labels import fmt_size
from .load import ok_records
from ..writer import Plotter


# pi/4: the hit probability of one point.
QUARTER_PI = math.pi / 4


def pi_relative_sigma(n: int) -> float:
    """1 sigma of |pi_hat - pi| / pi for N points: hits ~ Binomial(N, pi/4), pi_hat = 4 hits/N."""
    return math.sqrt((1 - QUARTER_PI) / (QUARTER_PI * n))


def convergence_points(doc: dict) -> dict:
    """{backend: [(N, hits, relative error)]} of the convergence study, by size (tested on its own)."""
    out = defaultdict(list)
    for r in ok_records(doc):
        if r.get("study") == "convergence" and r["kernel"] == "pi" and r.get("hits") is not None and r["size"] > 0:
            est = 4.0 * r["hits"] / r["size"]
            out[r["backend"]].append((r["size"], r["hits"], abs(est - math.pi) / math.pi))
    return {b: sorted(v) for b, v in sorted(out.items())}


def convergence_summary(points: dict) -> dict:
    """Whether every backend lies on the same points (one hit count per N measured by more than
    one backend), and how many points lie beyond 1 and 3 sigma."""
    by_n = defaultdict(set)
    for pts in points.values():
        for n, hits, _ in pts:
            by_n[n].add(hits)
    shared = [n for n in by_n if sum(any(q[0] == n for q in pts) for pts in points.values()) > 1]
    allpts = {(n, h, e) for pts in points.values() for n, h, e in pts}
    return {"shared_sizes": len(shared), "differing_sizes": sorted(n for n in shared if len(by_n[n]) > 1),
            "points": len(allpts),
            "beyond_1sigma": sum(e > pi_relative_sigma(n) for n, _, e in allpts),
            "beyond_3sigma": sum(e > 3 * pi_relative_sigma(n) for n, _, e in allpts)}


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
