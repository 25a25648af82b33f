"""The race lab: how often and by how much each race kernel's result differs (races)."""
from __future__ import annotations

from analysis.labels import interpreter_suffix, interpreter_tag
from analysis.records import family_of, kernels_in_order, ok_records
from analysis.writer import Plotter


def race_figures(p: Plotter, doc: dict) -> None:
    """Per race kernel: the share of trials whose result differed from the exact answer, and
    the largest relative deviation, per backend and thread count."""
    recs = [r for r in ok_records(doc, lab=True) if family_of(r) == "race" and "metrics" in r]
    if not recs:
        return
    kernels = kernels_in_order(recs)
    fig, axes = p.plt.subplots(len(kernels), 2, figsize=(11, 2.4 * len(kernels)), squeeze=False)
    for row, kernel in enumerate(kernels):
        rs = sorted((r for r in recs if r["kernel"] == kernel),
                    key=lambda r: (r["backend"], interpreter_suffix(r), r["threads"]))
        one_backend = len({r["backend"] for r in rs}) == 1  # then the title's kernel says it
        labels = [("" if one_backend else r["backend"] + "\n") + interpreter_tag(r) + f"\nt={r['threads']}" for r in rs]
        share = [r["metrics"]["deviating_share"] for r in rs]
        dev = [r["metrics"]["max_rel_deviation"] for r in rs]
        ax1, ax2 = axes[row]
        ax1.bar(range(len(rs)), share, color=["tab:red" if x > 0 else "tab:green" for x in share])
        ax1.set_ylim(0, 1.05)
        ax1.set_ylabel("share of trials\nthat differ")
        ax1.set_title(f"{kernel}: {int(rs[0]['metrics']['trials'])} trials per point", fontsize=8)
        ax2.bar(range(len(rs)), [max(d, 1e-18) for d in dev], color="tab:orange")
        ax2.set_yscale("log")
        ax2.set_ylabel("largest relative\ndeviation")
        for ax in (ax1, ax2):
            ax.set_xticks(range(len(rs)))
            ax.set_xticklabels(labels, fontsize=6)
    p.save(fig, "races", "Race lab: how often and by how much each kernel's result differs from the exact answer, "
                         "per backend, interpreter and GIL state (3.13.5t: the free-threaded build) "
                         "(red: some trials differ; racy kernels are racy by design, their counterparts must stay at 0)")
