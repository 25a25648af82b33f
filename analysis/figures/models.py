"""The task-based Python models against one thread, and their per-task overhead
(python_models, python_models_nogil); the report's pointer to them from a GIL run."""
from __future__ import annotations

from collections import defaultdict

from analysis.figures.bars import caption_note, draw_points, legend_notes
from analysis.labels import fmt_size, plain_ticks
from analysis.writer import Plotter
from analysis.series import PY_MODEL_STUDIES
from analysis.series import PY_TASK_MODELS
from analysis.series import python_models_crossovers
from analysis.series import python_models_table


def python_models_figures(p: Plotter, doc: dict) -> list[dict]:
    """One figure per python-models study (pure-Python bodies; parlab.pi bodies)."""
    rows = []
    for study in PY_MODEL_STUDIES:
        rows += python_models_figure(p, doc, study)
    return rows


def python_models_figure(p: Plotter, doc: dict, study: str) -> list[dict]:
    """The talk's figure: left, each model's speedup over one thread against the size (below the
    dashed line it loses); right, the per-task overhead of the task models against the size, with
    each one's empty-task round trip (dotted), both at the largest worker count."""
    rows = python_models_table(doc, study)
    if not rows:
        return rows
    base = PY_MODEL_STUDIES[study]
    crossings = python_models_crossovers(rows)
    top = defaultdict(int)
    for r in rows:
        top[r["backend"]] = max(top[r["backend"]], r["threads"])
    fig, (ax, bx) = p.plt.subplots(1, 2, figsize=(12, 5.6))
    colors = {}
    for backend in sorted(top):
        rs = [r for r in rows if r["backend"] == backend and r["threads"] == top[backend]
              and r["speedup_vs_one_thread"] is not None]
        if not rs or (backend == base and top[backend] == 1):
            continue
        cross = crossings.get((backend, top[backend]))
        label = (f"{backend} ({top[backend]} {'thread' if backend == 'py-parlab-gil-released' else 'worker'}"
                 f"{'s' if top[backend] > 1 else ''}; beats 1 thread from {fmt_size(cross) if cross else 'never'})")
        line = draw_points(ax, [r["size"] for r in rs], [r["speedup_vs_one_thread"] for r in rs],
                           [r["band"] for r in rs], [r["unstable"] for r in rs], label=label)
        colors[backend] = line.get_color()
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_ticks(ax, "y")
    ax.set_xlabel("pi samples N")
    ax.set_ylabel(f"time of {base} on 1 thread / time")
    ax.set_title("Python models against one thread (above the dashed line they win)")
    drawn = [r for r in rows if r["backend"] in colors and r["threads"] == top[r["backend"]]]
    bars, names = any(r["band"] for r in drawn), [f"{r['backend']} {fmt_size(r['size'])}" for r in drawn
                                                   if r["unstable"]]
    # Below the axes: inside, it covered the lines that win by most, at the top.
    legend_notes(ax, bars, bool(names), fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    for backend in PY_TASK_MODELS:
        rs = [r for r in rows if r["backend"] == backend and r["threads"] == top.get(backend)
              and r["per_task_overhead_s"] is not None]
        if not rs:
            continue
        c = colors.get(backend)
        # In µs (floored at 0.1 µs, a log axis's floor): seconds would need 10^-6 ticks.
        bx.plot([r["size"] for r in rs], [max(r["per_task_overhead_s"], 1e-7) * 1e6 for r in rs], marker="o",
                color=c, label=f"{backend} ({top[backend]} workers)")
        trips = sorted(r["roundtrip_s"] for r in rs if r["roundtrip_s"] is not None)
        if trips:
            bx.axhline(trips[len(trips) // 2] * 1e6, color=c, linestyle=":", linewidth=1)
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    plain_ticks(bx, "y")
    bx.set_xlabel("pi samples N")
    bx.set_ylabel("worker time outside task bodies per task (µs)")
    bx.set_title("Per-task overhead (dotted: an empty task's round trip)")
    bx.legend(fontsize=6)
    body = "pure-Python pi" if study == "python-models" else "parlab.pi with the GIL released"
    p.save(fig, study.replace("-", "_"),
           f"Python models ({body} in the same tasks): speedup over {base} on one thread and per-task overhead "
           "vs size; "
           + "; ".join(f"{b} t={t} beats one thread from {fmt_size(c) if c else 'never'}"
                       for (b, t), c in sorted(crossings.items()) if t == top[b]) + caption_note(bars, names))
    return rows


