"""The task-based Python models against one thread, and their per-task overhead
(python_models, python_models_nogil); the report's pointer to them from a GIL run."""
from __future__ import annotations

from collections import defaultdict

from .bars import caption_note, draw_points, legend_notes, ratio_band, unstable
from .labels import fmt_size, plain_ticks
from .load import ok_records
from ..writer import Plotter


# The task-based Python models (embed/workloads/parlab_tasks.py), by study, and the one-thread
# baseline each study's models are judged against at the same size: pure-Python pi on one
# thread for pure-Python task bodies, parlab.pi on one thread for bodies that call it.
PY_MODEL_STUDIES = {"python-models": "py-pure-threads", "python-models-nogil": "py-parlab-gil-released"}
PY_TASK_MODELS = ("py-thread-pool", "py-processes", "py-dask-delayed", "py-dask-distributed",
                  "py-thread-pool-parlab", "py-dask-delayed-parlab")


def python_models_table(doc: dict, study: str = "python-models") -> list[dict]:
    """A python-models study as data (tested on its own): one row per (backend, threads, size)
    with the median time, the speedup over the study's baseline on one thread at the same size
    with its bar (bars.ratio_band) and unstable mark, and the overhead metrics the task models
    record (None where a backend has none)."""
    base = PY_MODEL_STUDIES[study]
    recs = [r for r in ok_records(doc) if r.get("study") == study and r["kernel"] == "pi"]
    one = {r["size"]: r for r in recs if r["backend"] == base and r["threads"] == 1}
    rows = []
    for r in sorted(recs, key=lambda r: (r["backend"], r["threads"], r["size"])):
        m = r.get("metrics", {})
        t = r["time_s"]["median"]
        speedup = one[r["size"]]["time_s"]["median"] / t if r["size"] in one and t > 0 else None
        rows.append({"study": study, "baseline": base, "backend": r["backend"], "threads": r["threads"],
                     "size": r["size"], "median_s": t, "speedup_vs_one_thread": speedup,
                     "band": ratio_band(r, one[r["size"]], speedup) if speedup else None,
                     "unstable": unstable(r, one.get(r["size"])),
                     "per_task_overhead_s": m.get("per_task_overhead_s"), "roundtrip_s": m.get("roundtrip_s"),
                     "startup_s": m.get("startup_s"), "tasks": m.get("tasks")})
    return rows


def python_models_crossovers(rows: list[dict]) -> dict:
    """{(backend, threads): the smallest size from which the backend beats one thread at every
    larger size measured, or None when it does not beat it at the largest}. Below that size the
    backend loses to one thread."""
    out = {}
    by = defaultdict(list)
    for r in rows:
        if r["speedup_vs_one_thread"] is not None and not (r["backend"] == r["baseline"] and r["threads"] == 1):
            by[(r["backend"], r["threads"])].append(r)
    for key, rs in sorted(by.items()):
        rs.sort(key=lambda r: r["size"])
        cross = None
        for r in reversed(rs):
            if r["speedup_vs_one_thread"] <= 1.0:
                break
            cross = r["size"]
        out[key] = cross
    return out


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


def python_models_note(doc: dict) -> str:
    """For a run of the GIL study without the python-models one: where the other ways around the
    GIL (processes, Dask, thread pools) are measured, at the same sizes, as HTML."""
    studies = {r.get("study") for r in doc["records"]}
    if "python-models" in studies or not ({"gil", "quick-python"} & studies):
        return ""
    return ("<p>Python's other ways around the GIL - a thread pool, processes, dask.delayed and a "
            "dask.distributed cluster, beside parlab.pi with the GIL released, at the same sizes - are "
            "measured by <code>parlab run python-models</code> (figure <code>plots/python_models.png</code>: "
            "speedup over one thread and per-task overhead vs size).</p>")
