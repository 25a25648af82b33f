"""Where each worker's time went in one run: the per-worker timeline (Gantt) of the traced run of a
record (docs/records.md, "Workers": workers.trace), timeline_<study>_<kernel>_<N>_<precision>: one
panel per backend at its most workers, workers on y, time from the region's start on x,
each chunk a bar coloured by the CPU it ran on (a legend under the panels says which colour is
which CPU), the region's end marked, every panel of a figure in one time unit. A worker that
finishes early and waits shows as white space before the mark (load balance); a gap before every
worker's first chunk or after the last one's end is the fork and the join (communication
efficiency). The group's backends with no trace (accounting off, or a record that keeps none) are
named in the caption, each with its reason."""
from __future__ import annotations

from collections import defaultdict

from analysis.workers import accounted, why_absent
from analysis.labels import fmt_fraction, fmt_size, time_scale
from analysis.records import ok_records, workers
from analysis.writer import Plotter
from analysis.pop import hierarchy

MAX_TICKED = 32  # workers labelled one by one on y; more are counted by the axis alone
PANEL_MAX_IN = 6.0  # a panel's height in inches, however many workers
# A figure's height in inches, its panels' and the title's: past it the panels go on to another
# figure (a part). 120 backends of 32 workers in one figure was 720 inches, over the 2**16 pixels
# a side matplotlib can draw; a part stays a page long at any dpi the report uses.
FIGURE_MAX_IN = 48.0
TITLE_IN = 0.8  # the figure's title and the region-end labels above the first panel


def _group(r: dict) -> tuple:
    return r.get("study", ""), r["kernel"], r["size"], r.get("precision", "")


def _traced(r: dict) -> bool:
    w = accounted(r)
    return w is not None and bool(w.get("trace", {}).get("events"))


def timeline_records(doc: dict) -> dict:
    """{(study, kernel, size, precision): {backend: record}}: per group, each backend's record of
    the most workers (threads, or an MPI job's ranks x threads) whose workers were accounted with a
    trace of at least one chunk."""
    out: dict = defaultdict(dict)
    for r in filter(_traced, ok_records(doc)):
        group = out[_group(r)]
        if r["backend"] not in group or r["workers"]["count"] > group[r["backend"]]["workers"]["count"]:
            group[r["backend"]] = r
    return out


def untraced_backends(doc: dict) -> dict:
    """{group: {backend: why}}: per group, each backend of 2 or more workers none of whose records
    has a trace, and why its record of the most workers has none (workers.why_absent, or a trace
    of no chunk)."""
    out: dict = defaultdict(dict)
    traced = {(_group(r), r["backend"]) for r in filter(_traced, ok_records(doc))}
    best: dict = {}
    for r in ok_records(doc):
        key = (_group(r), r["backend"])
        if key not in traced and workers(r) >= 2 and (key not in best or workers(r) > workers(best[key])):
            best[key] = r
    for (group, backend), r in best.items():
        out[group][backend] = why_absent(r) if accounted(r) is None else "no chunk traced"
    return out


def _worker_labels(events: list, count: int, ranks=None) -> list:
    """"w3 (CPU 5)", "w4 (CPUs 5, 6)": each worker and the CPUs its traced chunks ran on; in an MPI
    job's record (workers.ranks), "r1 w3 (CPU 5)": the rank whose thread it is."""
    cpus = defaultdict(set)
    for worker, _start, _end, cpu in events:
        cpus[worker].add(cpu)
    out = []
    for w in range(count):
        seen = sorted(cpus.get(w, ()))
        where = f"CPU {seen[0]}" if len(seen) == 1 else f"CPUs {', '.join(map(str, seen))}" if seen else "no chunk"
        rank = f"r{ranks[w]} " if ranks is not None and w < len(ranks) else ""
        out.append(f"{rank}w{w} ({where})")
    return out


def _cpu_colour(cpu: int):
    """A CPU's colour, the same in every panel and figure: tab20's, so CPUs 20 apart share one."""
    import matplotlib

    return matplotlib.colormaps["tab20"](cpu % 20)


def _panel(ax, backend: str, r: dict, scale: float, unit: str) -> None:
    """One backend's traced run on ax, its times divided by scale (the figure's one unit)."""
    w = r["workers"]
    trace = w["trace"]
    bars = defaultdict(list)
    for worker, start, end, cpu in trace["events"]:
        bars[worker].append(((start / scale, (end - start) / scale), _cpu_colour(cpu)))
    for worker, chunks in bars.items():
        ax.broken_barh([x for x, _ in chunks], (worker - 0.4, 0.8), facecolors=[c for _, c in chunks],
                       edgecolor="white", linewidth=0.3)
    end = trace["runtime_s"] / scale
    ax.axvline(end, color="k", linestyle="--", linewidth=1)
    # Named above the axes, where no worker's bar can be under it (a legend inside covered one).
    ax.annotate("region end", (end, 1.0), xycoords=("data", "axes fraction"), xytext=(0, 2),
                textcoords="offset points", ha="center", va="bottom", fontsize=7)
    ax.set_ylim(w["count"] - 0.5, -0.5)  # worker 0 on top
    if w["count"] <= MAX_TICKED:
        ax.set_yticks(range(w["count"]))
        ax.set_yticklabels(_worker_labels(trace["events"], w["count"], w.get("ranks")), fontsize=7)
    ax.set_xlim(left=0)
    ax.set_xlabel(f"time from the region's start ({unit})")
    ax.set_ylabel("worker")

    values = hierarchy(r, None)["values"]
    factors = ", ".join(f"{name} {fmt_fraction(values[k])}" for k, name in
                        (("load_balance", "load balance"), ("communication", "communication")) if k in values)
    cut = "; trace truncated" if trace.get("truncated") else ""
    threads = f"{w['count']} thread" + ("s" if w["count"] != 1 else "")
    if w.get("ranks"):  # an MPI job's: its ranks x threads per rank
        ranks = len(set(w["ranks"]))
        threads = f"{ranks} rank{'s' if ranks != 1 else ''} x {w['count'] // ranks} thread{'s' if w['count'] // ranks != 1 else ''}"
    ax.set_title(f"{backend}, {threads}, repetition {trace['rep']}: {factors}{cut}", fontsize=9, pad=12)


def _panel_height(r: dict) -> float:
    """A panel's height in inches: room for its workers, at most PANEL_MAX_IN."""
    return min(1.0 + 0.2 * r["workers"]["count"], PANEL_MAX_IN)


def figure_parts(by_backend: dict) -> list[dict]:
    """by_backend ({backend: record}, in the run's order) cut into parts of consecutive panels,
    each part's height (TITLE_IN and its panels') at most FIGURE_MAX_IN; one part where all fit."""
    parts: list[dict] = [{}]
    height = TITLE_IN
    for backend, r in by_backend.items():
        h = _panel_height(r)
        if parts[-1] and height + h > FIGURE_MAX_IN:
            parts.append({})
            height = TITLE_IN
        parts[-1][backend] = r
        height += h
    return parts


def _cpu_legend(ax, part: dict, height_in: float) -> None:
    """Under the panels: which colour is which CPU, for the CPUs the part's traced chunks ran on."""
    from matplotlib.patches import Patch

    cpus = sorted({e[3] for r in part.values() for e in r["workers"]["trace"]["events"]})
    shown = cpus[:20]  # tab20 has 20 colours: past them a colour names CPUs 20 apart
    handles = [Patch(facecolor=_cpu_colour(c), label=f"CPU {c}") for c in shown]
    title = "colour: the CPU a chunk ran on" + (" (CPUs 20 apart share a colour)" if len(cpus) > 20 else "")
    # On the last panel (height_in tall), half an inch under its axis, below the axis label: the
    # layout then leaves room for it.
    ax.legend(handles=handles, title=title, loc="upper center", ncol=min(len(handles), 10), fontsize=7,
              title_fontsize=7, frameon=False, bbox_to_anchor=(0.5, -0.5 / height_in))


def timeline_figures(p: Plotter, doc: dict) -> None:
    """One figure per group with a traced record: a panel per backend, in the run's order, all in
    the figure's one time unit, each panel's axis its own run's length (serial's run is many times
    a parallel one's); a group of more panels than one figure holds (FIGURE_MAX_IN) is drawn in
    parts, _partKofN. The caption names the group's backends without a trace and why."""
    untraced = untraced_backends(doc)
    for group, by_backend in sorted(timeline_records(doc).items()):
        study, kernel, size, precision = group
        parts = figure_parts(by_backend)
        missing = "".join(f" Not shown: {b} ({why})." for b, why in sorted(untraced.get(group, {}).items()))
        for k, part in enumerate(parts, 1):
            heights = [_panel_height(r) for r in part.values()]
            legend_in = 0.8  # the CPU legend's room under the panels
            fig, axes = p.plt.subplots(len(part), 1, figsize=(9, sum(heights) + TITLE_IN + legend_in), squeeze=False,
                                       gridspec_kw={"height_ratios": heights})
            scale, unit = time_scale([r["workers"]["trace"]["runtime_s"] for r in part.values()], "s")
            for ax, (backend, r) in zip(axes[:, 0], part.items()):
                _panel(ax, backend, r, scale, unit)
            _cpu_legend(axes[-1, 0], part, heights[-1])
            title = f"{kernel} N={fmt_size(size)} {precision}: each worker's chunks in one traced run"
            suffix = ""
            if len(parts) > 1:
                title += f", part {k} of {len(parts)} ({len(part)} of {len(by_backend)} backends)"
                suffix = f"_part{k}of{len(parts)}"
            top = axes[0, 0]  # the figure's title over the first panel's: a suptitle overlapped it
            top.set_title(title + "\n" + top.get_title(), fontsize=9, pad=12)
            name = f"timeline_{study}_{kernel}_{fmt_size(size)}_{precision}{suffix}".replace("^", "p")
            p.save(fig, name, title + " per backend at its most workers; a bar is a chunk, coloured by the CPU it ran "
                                      "on; dashed: the parallel region's end. White space before it is waiting." + missing)


__all__ = ["figure_parts", "timeline_figures", "timeline_records", "untraced_backends"]
