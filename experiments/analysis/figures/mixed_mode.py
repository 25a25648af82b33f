"""EPCC mixed mode: the same cores as R ranks x 1 thread, 1 process x R threads and the hybrids
between (mixed_mode_...)."""
from __future__ import annotations

from collections import defaultdict

from .bars import HATCHED_NOTE, caption_note, errors, time_band, unstable
from .labels import fmt_size, layout_label, log_if_wide, time_scale
from .load import LAB_FAMILIES, family_of, ok_records, per_op_us, ranks_of
from ..writer import Plotter


def mixed_mode_series(doc: dict) -> dict:
    """The EPCC mixed-mode comparison, as data (tested on its own): the same work on the same
    total core count laid out as R ranks x 1 thread, 1 rank (or one process) x R threads, and
    hybrids between.

    Returns {(study, kernel, size, precision): {cores: [row]}} for groups that hold a hybrid
    (ranks > 1 and threads > 1), keeping only core counts measured in two or more layouts; a row
    is {label, backend, ranks (None: one process), threads, value, unit}, value in µs per
    operation for overhead_reduce and the probes (size counts operations), else median seconds,
    rows sorted fastest first.
    """
    groups = defaultdict(list)
    for r in ok_records(doc, lab=True) + ok_records(doc):
        if r.get("kind", "cpu") not in ("cpu", "mpi") or r.get("scaling") == "weak":
            continue
        if family_of(r) in LAB_FAMILIES and r["kernel"] != "overhead_reduce":
            continue
        groups[(r.get("study", ""), r["kernel"], r["size"], r.get("precision", ""))].append(r)
    out = {}
    for key, recs in sorted(groups.items()):
        if not any((ranks_of(r) or 1) > 1 and r["threads"] > 1 for r in recs):
            continue
        per_op = key[1] == "overhead_reduce" or any(family_of(r) == "comm" for r in recs)
        by_cores = defaultdict(list)
        for r in recs:
            by_cores[(ranks_of(r) or 1) * r["threads"]].append(r)
        table = {}
        for cores, rs in sorted(by_cores.items()):
            if len({(ranks_of(r), r["threads"]) for r in rs}) < 2:
                continue
            rows = [{"label": f"{layout_label(ranks_of(r), r['threads'])} ({r['backend']})", "backend": r["backend"],
                     "ranks": ranks_of(r), "threads": r["threads"],
                     "value": per_op_us(r) if per_op else r["time_s"]["median"], "unit": "µs" if per_op else "s",
                     "band": time_band(r, per_op_us(r) if per_op else r["time_s"]["median"]),
                     "unstable": unstable(r)}
                    for r in rs]
            table[cores] = sorted(rows, key=lambda x: (x["value"], x["label"]))
        if table:
            out[key] = table
    return out


def mixed_mode_figures(p: Plotter, doc: dict) -> None:
    for (study, kernel, size, precision), table in mixed_mode_series(doc).items():
        labels, colors, rows_drawn, unit = [], [], [], "s"
        for i, (cores, rows) in enumerate(sorted(table.items(), reverse=True)):
            for row in reversed(rows):  # fastest on top of its block
                labels.append(f"{cores} core{'s' if cores != 1 else ''}: {row['label']}")
                rows_drawn.append(row)
                colors.append(f"C{i % 10}")
                unit = row["unit"]
        scale, shown = time_scale([row["value"] for row in rows_drawn], unit)
        vals = [row["value"] / scale for row in rows_drawn]
        bands = [row["band"] for row in rows_drawn]
        fig, ax = p.plt.subplots(figsize=(9, 1.3 + 0.3 * len(labels)))
        bars = ax.barh(range(len(labels)), vals, color=colors, edgecolor=colors, xerr=errors(vals, bands, scale),
                       error_kw={"elinewidth": 1, "capsize": 3})
        for b, row in zip(bars, rows_drawn):
            if row["unstable"]:
                b.set_facecolor("white")
                b.set_hatch("//")
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        # Times spanning more than labels.WIDE_RANGE go on a log axis.
        log = log_if_wide(ax, "x", vals)
        ends = [max(v, bd[1] / scale if bd else 0.0) for v, bd in zip(vals, bands)]
        for b, v, end in zip(bars, vals, ends):
            ax.text(end, b.get_y() + b.get_height() / 2, f" {v:.3g} {shown}", ha="left", va="center", fontsize=7)
        ax.set_xlim(right=max(ends) * (8 if log else 1.25))
        what = "µs per reduction" if kernel == "overhead_reduce" else (
            "µs per call" if unit == "µs" else f"median time ({shown})")
        ax.set_xlabel(what + (" (log scale)" if log else "") + "; shorter is faster")
        prec = f" {precision}" if kernel not in ("pi", "overhead_reduce") and precision else ""
        title = f"Mixed mode: {kernel} N={fmt_size(size)}{prec}, the same cores as ranks x threads"
        ax.set_title(title, fontsize=9)
        name = f"mixed_mode_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, title + " (EPCC mixed mode: R ranks x 1 thread against 1 process x R threads and the "
                                  "hybrids between, one colour per core count, fastest first)"
               + caption_note(any(bands), [lb for lb, row in zip(labels, rows_drawn) if row["unstable"]],
                              HATCHED_NOTE))
