"""Where the speedup went, drawn: POP's efficiency hierarchy (analysis/pop.py) of each kernel group,
efficiency_<study>_<kernel>_<N>_<precision>: one panel per backend of 2 or more workers, its
workers (threads, or ranks x threads) on x, each factor a line on y (global efficiency, parallel
efficiency, load balance, communication efficiency, computation scaling, and one worker against
the reference where the backend's one worker is not the speedup's reference), the range over the
repetitions drawn as a bar where the record holds one, POP's good (0.8) and fair (0.6) levels
shaded. The values are the hierarchy the `--summary pop` table and the report's section show: a
factor a column cannot have is left out of it, and the table beside the figure says why."""
from __future__ import annotations

from collections import defaultdict

from analysis.labels import fmt_size
from analysis.pop import FAIR, GOOD, pop_tables
from analysis.writer import Plotter

# The factors drawn, top down as every view names them, with their line styles.
DRAWN = (("global", "global efficiency", "k", "-", "o"), ("parallel", "parallel efficiency", "tab:blue", "-", "s"),
         ("load_balance", "load balance", "tab:green", "--", "^"),
         ("communication", "communication efficiency", "tab:purple", "--", "v"),
         ("computation", "computation scaling", "tab:orange", ":", "D"),
         # Where the backend's one worker is not the speedup's reference: GE = PE x CS x this.
         ("one_worker", "one worker vs reference", "tab:brown", "-.", "x"))
PANEL_W_IN, PANEL_H_IN = 4.2, 3.0
MAX_COLUMNS = 3  # panels a row


def _panel(ax, table: dict) -> None:
    """One backend's factors against its workers on ax."""
    cols = [c for c in table["columns"] if c["hierarchy"]["count"] is not None]
    x = list(range(len(cols)))
    top = 1.05
    for key, label, colour, style, marker in DRAWN:
        pts = [(i, c["hierarchy"]["values"][key], c["hierarchy"]["ranges"].get(key))
               for i, c in zip(x, cols) if key in c["hierarchy"]["values"]]
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        ax.plot(xs, ys, linestyle=style, marker=marker, color=colour, label=label, linewidth=1.2, markersize=4)
        for i, y, span in pts:
            if span is not None:
                ax.vlines(i, span[0], span[1], color=colour, linewidth=3, alpha=0.35)
        top = max(top, max(ys) * 1.05, max((p[2][1] for p in pts if p[2] is not None), default=0) * 1.05)
    ax.axhspan(GOOD, max(top, 1.05), color="tab:green", alpha=0.06, linewidth=0)
    ax.axhspan(FAIR, GOOD, color="tab:orange", alpha=0.06, linewidth=0)
    ax.axhspan(0, FAIR, color="tab:red", alpha=0.06, linewidth=0)
    ax.set_ylim(0, top)
    ax.set_xticks(x)
    ax.set_xticklabels([c["label"] for c in cols], fontsize=8)
    ax.set_xlim(-0.4, max(len(cols) - 0.6, 0.4))
    what = "ranks x threads" if any(c.get("ranks") for c in cols) else "threads"
    ax.set_xlabel(what)
    ax.set_ylabel("efficiency")
    ax.set_title(f"backend {table['backend']}", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)


def efficiency_figures(p: Plotter, doc: dict) -> None:
    """One figure per kernel group with a backend of 2 or more accounted workers."""
    by_group: dict = defaultdict(list)
    for t in pop_tables(doc):
        if any((c["hierarchy"]["count"] or 0) >= 2 for c in t["columns"]):
            by_group[t["title"]].append(t)
    for title, tables in by_group.items():
        n = len(tables)
        ncols = n if n <= MAX_COLUMNS else 2 if n == 4 else MAX_COLUMNS
        nrows = (n + ncols - 1) // ncols
        fig, axes = p.plt.subplots(nrows, ncols, figsize=(PANEL_W_IN * ncols, PANEL_H_IN * nrows + 0.7),
                                   squeeze=False, sharey=True)
        for ax, t in zip(axes.flat, tables):
            _panel(ax, t)
        for ax in list(axes.flat)[n:]:
            ax.set_visible(False)
        handles, labels = [], []
        for ax in list(axes.flat)[:n]:  # every factor any panel drew, once
            for h, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(h)
                    labels.append(label)
        # Under the last panel, below its axis label, where the layout leaves room for it.
        axes.flat[n - 1].legend(handles, labels, loc="upper center", ncol=2 if ncols == 1 else 3, fontsize=7,
                                frameon=False, bbox_to_anchor=(0.5, -0.22))
        study, kernel, size, precision = _key(tables[0])
        fig.suptitle(f"{title}: where the speedup went, per backend", fontsize=10)
        name = f"efficiency_{study}_{kernel}_{fmt_size(size)}_{precision}".replace("^", "p")
        p.save(fig, name, f"{title}: POP's efficiency hierarchy per backend against its workers, the factors of "
                          "the record's median repetition (per execution), bars their range over the repetitions, "
                          "shading POP's good (0.8 and over), fair and poor; the \"Where the speedup went\" table "
                          "holds the same values and says why any is missing.")


def _key(table: dict) -> tuple:
    """The group of a pop table's records: (study, kernel, size, precision) of its first column."""
    r = table["columns"][0]["record"]  # pop_tables keeps each column's record
    return r.get("study", ""), r["kernel"], r["size"], r.get("precision", "")


__all__ = ["efficiency_figures"]
