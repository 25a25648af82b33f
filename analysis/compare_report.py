"""What analysis/compare.py draws: the HTML report, and the wording the terminal's text
(compare_text.py) shares with it.

Both render the comparison's data (compare.compare(), what --json prints) and nothing else.
The report (compare.py --html DIR) is one self-contained DIR/report.html with its figures
embedded, the PNGs also in DIR/plots/, and DIR/compare.json. Its first screen says what changed:
counts of records faster, slower, unchanged and unmatched, the largest change either way, the
gate, and the machine differences. Then: the change of every compared record as a horizontal bar
(NEW/BASE median time on a log axis, whiskers: the interval, the band: the threshold), the
overlaid scaling curves of both runs per (kernel, size, precision) (BASE dashed with open
markers, NEW solid), the records table, the unmatched series, and every context difference.
"""
from __future__ import annotations

import json
import math
import os
from collections import defaultdict

from analysis.compare_stats import reps_needed
from analysis.labels import fmt_size
from analysis.untrusted import html_number, html_text
from analysis.writer import Plotter, figure_html, json_text, page_head, write_page


def fmt_ratio(x) -> str:
    return "-" if x is None else f"{x:.3f}" if 0.001 <= x < 1000 else f"{x:.3g}"


def verdict_words(r: dict) -> str:
    if r["verdict"] == "undecided":
        k = r.get("reps_to_decide")
        return "undecided: too few repetitions to tell" + (f", about {k} per side would decide" if k else "")
    if r["verdict"] != "same":
        return f"{r['verdict']}, p = {r['p_value']:.2g}"
    return "within the noise" if not r["significant"] else f"significant (p = {r['p_value']:.2g}) but below the threshold"


def change_words(x: dict) -> str:
    """A record's change with its reference named: "2.82x over BASE (time x0.354, -64.6%, faster, ...)"
    where NEW is faster, else "time x2.617 (+161.7%, slower, ...)" (NEW's time over BASE's)."""
    tail = f"{x['change_pct']:+.1f}%, {verdict_words(x)}"
    if x["time_ratio"] < 1:
        return f"{1 / x['time_ratio']:.2f}x over BASE (time x{fmt_ratio(x['time_ratio'])}, {tail})"
    return f"time x{fmt_ratio(x['time_ratio'])} over BASE ({tail})"


def gate_nothing_judged_line(g: dict) -> str:
    """The one line that says the gate judged nothing, and what would let it judge."""
    if not g["could_not_judge"]:
        return (f"judged nothing: no record could be compared ({g['not_compared']} failed or unavailable on a "
                "side); the gate judges only records measured on both sides")
    parts = [f"judged nothing: all {g['could_not_judge']} compared record(s) had too few repetitions (or distinct "
             "ones) to judge"]
    need = g.get("reps_to_decide")
    if need:
        no_order = f"; {g['no_order']} show no order at all and may need more" if g.get("no_order") else ""
        which = "those short of repetitions" if g.get("too_few_distinct") else "every one"
        parts.append(f"measure both runs again with more repetitions: parlab run -r {need} (about {need} per side "
                     f"would decide {which} at the effect it shows{no_order})")
    if g.get("too_few_distinct"):
        parts.append(f"{g['too_few_distinct']} record(s) have repetitions enough but too few distinct times "
                     "(repeated values are ties, not evidence: a timer too coarse for them), which more of the "
                     "same times do not decide")
    return "; ".join(parts)


def share_pair(r: dict) -> str:
    """"0.82 -> 0.91 of cpu_bw_triad_all" (one roof), "0.82 of A -> 0.91 of B" (two), one side's
    share alone, or "" where neither run has roofs."""
    b, n = r["base"].get("limit"), r["new"].get("limit")
    if b and n and b["roof"] == n["roof"]:
        return f"{b['fraction']:.2f} -> {n['fraction']:.2f} of {b['roof']}"
    if b or n or r["base"].get("share") or r["new"].get("share"):
        return f"{r['base'].get('share') or '-'} -> {r['new'].get('share') or '-'}"
    return ""


def shares_line(res: dict) -> str:
    """What the shares of roofs say, or "" where neither run measured roofs."""
    n = res["summary"].get("with_shares", 0)
    if not n:
        sides = [w for w, key in (("BASE", "base"), ("NEW", "new"))
                 if any(r[key].get("limit") for r in res["records"])]
        return f"Shares of roofs: only {sides[0]} measured roofs; no record compared by share" if len(sides) == 1 else ""
    ratios = sorted(r["share_ratio"] for r in res["records"] if r.get("share_ratio") is not None)
    mid = ratios[len(ratios) // 2] if len(ratios) % 2 else (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
    return (f"Shares of roofs (each run against its own machine's measured roofs): {n} record(s) with both; "
            f"NEW share / BASE share median {fmt_ratio(mid)}, from {fmt_ratio(ratios[0])} to {fmt_ratio(ratios[-1])}")


def _show(v) -> str:
    return "-" if v is None else v if isinstance(v, str) else json.dumps(v)


def shape_title(g: dict) -> str:
    return (f"{g['study']} {g['kernel']} {g['line']} {g['scaling']} {fmt_size(g['size'])}"
            f"{' per worker' if g['scaling'] == 'weak' else ''} {g['precision']}")


def speedup_words(g: dict, p: dict) -> str:
    """"speedup 5.79x -> 5.61x over 1 thread": a shape point's speedups, each side's, with the
    reference they are over (compare.speedup_reference), as every speedup parlab prints names its
    reference; "scaled speedup" for weak scaling."""
    what = "scaled speedup" if g["scaling"] == "weak" else "speedup"
    sb, sn = p["base_efficiency"] * p["base_workers"], p["new_efficiency"] * p["new_workers"]
    return f"{what} {sb:.2f}x -> {sn:.2f}x {g.get('reference') or 'over its own one worker'}"


def shape_points(g: dict) -> str:
    """"eff at 2 threads 0.49 -> 0.42 (BASE 1-2, NEW 1-16 threads)": the widest compared point and the
    one that differs most."""
    def one(p):
        at = p["base_workers"] if p["base_workers"] == p["new_workers"] else f"{p['base_workers']}/{p['new_workers']}"
        return f"efficiency at {at} {g['axis']} {p['base_efficiency']:.2f} -> {p['new_efficiency']:.2f}"
    pts = g["points"]
    text = one(pts[-1]) + f" ({speedup_words(g, pts[-1])})"
    worst = max(pts, key=lambda p: abs(math.log(p["efficiency_ratio"])))
    if worst is not pts[-1]:
        text += f", most apart at {one(worst).split(' at ', 1)[1]}"
    text += (f" (BASE 1-{max(x['workers'] for x in g['base'])}, NEW 1-{max(x['workers'] for x in g['new'])} {g['axis']}"
             + ("" if g["common"] else "; no common width above 1: each side's widest") + ")")
    return text + (" [too few repetitions to tell]" if g["verdict"] == "undecided" else "")


# ---------------------------------------------------------------- HTML
COLOURS = {"slower": "#c62828", "faster": "#2e7d32", "same": "#9e9e9e", "undecided": "#f9a825"}
# The stylesheet's class of a verdict's cell (style.py has one class per meaning): undecided is a warning.
VERDICT_CLASS = {"undecided": "warn"}


def _pct_text(x: float) -> str:
    return f"{(x - 1) * 100:+.1f}%" if 0.5 <= x <= 2 else f"x{x:.3g}"


def log_ticks(left: float, right: float) -> list:
    """Round ratios between left and right for a log axis, 1 always, none closer than a tenth of the span."""
    span = right / left
    mantissas = (1, 2, 5) if span > 20 else (1, 1.25, 1.5, 2, 3, 5, 8) if span > 3 else (1, 1.05, 1.1, 1.25, 1.5, 2,
                                                                                              3, 5, 8, 9, 9.5)
    cands = sorted({round(v * 10 ** k, 12) for k in range(-6, 7) for v in mantissas if left <= v * 10 ** k <= right})
    gap = (math.log(right) - math.log(left)) / 10
    up, down = [1.0], [1.0]
    for v in cands:
        if v > 1 and math.log(v) - math.log(up[-1]) >= gap:
            up.append(v)
    for v in reversed(cands):
        if v < 1 and math.log(down[-1]) - math.log(v) >= gap:
            down.append(v)
    return sorted(set(up) | set(down))


def change_figure(p: Plotter, res: dict, most: int = 60):
    """Horizontal bars: NEW/BASE median time per compared record, the largest changes on top."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    rows = [r for r in res["records"] if r["kind"] == "compared"][:most]
    if not rows:
        return None
    rows = rows[::-1]
    thr = res["settings"]["threshold_pct"] / 100
    fig, ax = p.plt.subplots(figsize=(10, 1.4 + 0.24 * len(rows)))
    ys = range(len(rows))
    for y, r in zip(ys, rows):
        x = r["time_ratio"]
        few = r["too_few_reps"]
        ax.barh(y, x - 1, left=1, height=0.7, color=COLOURS[r["verdict"]], alpha=0.45 if few else 0.9,
                hatch="///" if few else None, edgecolor="white" if not few else COLOURS[r["verdict"]], linewidth=0.5)
        if r["ci"]:
            lo, hi = r["ci"]
            ax.errorbar(x, y, xerr=[[max(x - lo, 0)], [max(hi - x, 0)]], fmt="none", ecolor="black", elinewidth=1, capsize=2)
        ax.text(max(x, r["ci"][1] if r["ci"] else x) * 1.02, y, " " + _pct_text(x) + (" undecided" if few else ""),
                va="center", fontsize=7)
    xs = [v for r in rows for v in [r["time_ratio"]] + (r["ci"] or [])] + [1 - thr, 1 + thr]
    lo, hi = min(xs), max(xs)
    ax.set_xscale("log")
    ax.set_xlim(lo / 1.15, hi * (1.35 if hi / lo < 4 else 1.8))
    ax.set_xticks(log_ticks(*ax.get_xlim()))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.axvspan(1 - thr, 1 + thr, color="#bbb", alpha=0.3, linewidth=0)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([r["label"] for r in rows], fontsize=7)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("NEW / BASE median time (log scale): right of 1 NEW is slower, left faster")
    n = sum(1 for r in res["records"] if r["kind"] == "compared")
    shown = f"the {len(rows)} largest changes of {n}" if n > len(rows) else f"all {n} compared records"
    ax.set_title(f"Change per record, {shown}\nwhiskers: {res['settings']['interval']}; grey band: the "
                 f"±{thr * 100:g}% threshold; hatched: undecided, too few repetitions to tell", fontsize=8)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    caption = (f"Change per record ({shown}): red slower, green faster, grey no difference beyond the noise, "
               "hatched yellow undecided. "
               "Records without a whisker have too few repetitions for any interval.")
    return p.save(fig, "change", caption), caption


def shape_figures(p: Plotter, res: dict) -> list:
    """One figure per (study, scaling, kernel, size, precision, axis): every shape-compared line of
    both runs, speedup and efficiency over each side's own one-worker time."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    groups = defaultdict(list)
    for g in res["scaling"]:
        groups[(g["study"], g["scaling"], g["kernel"], g["size"], g["precision"], g["axis"])].append(g)
    out = []
    for n, ((study, scaling, kernel, size, precision, axis), lines) in enumerate(sorted(groups.items(), key=str)):
        fig, (ax1, ax2) = p.plt.subplots(1, 2, figsize=(11, 4.2))
        cmap = p.plt.get_cmap("tab10")
        top = 1
        for i, g in enumerate(lines):
            c = cmap(i % 10)
            for which, style, face in (("base", "--", "white"), ("new", "-", c)):
                pts = g[which]
                xs = [p["workers"] for p in pts]
                top = max(top, max(xs))
                kw = dict(color=c, linestyle=style, marker="o", markersize=4, markerfacecolor=face, linewidth=1.3)
                ax1.plot(xs, [p["speedup"] for p in pts], label=f"{g['line']}" if which == "new" else None, **kw)
                ax2.plot(xs, [p["efficiency"] for p in pts], **kw)
        ideal = list(range(1, top + 1))
        ax1.plot(ideal, ideal, "k:", linewidth=1, label="ideal")
        ax2.axhline(1.0, color="k", linestyle=":", linewidth=1)
        for ax in (ax1, ax2):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(axis)
            ax.grid(True, alpha=0.3)
        refs = sorted({g.get("reference") or "over own 1-worker time" for g in lines})
        ax1.set_ylabel(("scaled speedup " if scaling == "weak" else "speedup ") + (refs[0] if len(refs) == 1 else
                                                                                    f"over 1 {axis[:-1]}"))
        ax2.set_ylabel("parallel efficiency")
        ax2.set_ylim(0, max(1.2, max(p["efficiency"] for g in lines for w in ("base", "new") for p in g[w]) * 1.05))
        handles, labels = ax1.get_legend_handles_labels()
        handles += [Line2D([], [], color="grey", linestyle="--", marker="o", markerfacecolor="white"),
                    Line2D([], [], color="grey", linestyle="-", marker="o")]
        labels += ["BASE (dashed, open)", "NEW (solid)"]
        ax1.legend(handles, labels, fontsize=7)
        title = (f"{kernel} {scaling} scaling, N={fmt_size(size)}{' per worker' if scaling == 'weak' else ''} "
                 f"{precision} ({study})")
        fig.suptitle(title, fontsize=10)
        caption = title + ": " + "; ".join(f"{g['line']}: {g['verdict']}" for g in lines)
        out.append((p.save(fig, f"scaling_{n:02d}", caption), caption))
    return out


KEY_CONTEXT = ("cpu.model", "cpu.physical_cores", "cpu.logical_cpus", "cpu.smt", "gpu", "build.build_type",
               "build.compiler", "python", "build.git_commit")


def first_screen(res: dict) -> str:
    e = html_text
    s = res["summary"]
    tiles = [("slower", s["slower"], "slower"), ("faster", s["faster"], "faster"),
             ("same", s["same"], "no difference beyond the noise"),
             ("warn", s["undecided"], "undecided: too few repetitions to tell"),
             ("", s["failed"], "failed, not compared"),
             ("", s["only_base"] + s["only_new"], f"unmatched ({s['only_base']} only in BASE, {s['only_new']} only in NEW)")]
    parts = ["<h2 id='summary'>What changed</h2><div class='tiles'>"]
    parts += [f"<div class='tile {cls}'><b>{n}</b>{e(text)}</div>" for cls, n, text in tiles]
    parts.append("</div>")
    notes = []
    if s["too_few_reps"]:
        notes.append(f"{s['too_few_reps']} of the {s['compared']} compared records are undecided, too few repetitions "
                     f"to tell (the U test needs {reps_needed(res['settings']['alpha'])} per side to reach "
                     f"p &lt; {res['settings']['alpha']:g}; each row says how many would decide at the effect seen).")
    if s["unstable"]:
        notes.append(f"{s['unstable']} unstable on either side (a CV over 10% or rounds that disagree): measure them "
                     "again with more --reps or --rounds.")
    if s["one_side_unavailable"] or s["not_measured"]:
        notes.append(f"{s['one_side_unavailable']} unavailable on one side, {s['not_measured']} measured on neither.")
    for what, key in (("Largest slowdown", "largest_slowdown"), ("Largest speedup", "largest_speedup")):
        x = s[key]
        if x:
            notes.append(f"{what}: <b>{e(x['label'])}</b>, {e(change_words(x))}.")
    g = res["gate"]
    if g:
        if g.get("nothing_judged") and not g["failed"]:
            verdict = f"<span class='warn'>nothing judged</span> (exit 5): {e(gate_nothing_judged_line(g))}"
        else:
            verdict = (f"<span class='slower'>FAIL</span>: {len(g['records'])} record(s) significantly slower by more "
                       f"than {g['fail_if_slower_pct']:g}%" if g["failed"] else
                       f"<span class='faster'>pass</span>: none significantly slower by more than "
                       f"{g['fail_if_slower_pct']:g}%")
            if g["could_not_judge"]:
                verdict += (f" ({g['could_not_judge']} record(s) had too few repetitions to judge, not judged; "
                            f"{g['judged']} judged)")
        notes.append(f"Gate --fail-if-slower: {verdict}.")
    shapes = defaultdict(int)
    for sh in res["scaling"]:
        shapes[sh["verdict"]] += 1
    if shares_line(res):
        notes.append(e(shares_line(res)) + ".")
    if shapes:
        notes.append("Scaling shapes: " + ", ".join(f"{n} {v}" for v, n in sorted(shapes.items())) + ".")
    parts.append("<p>" + "<br>".join(notes) + "</p>")
    keyed = {d["key"]: d for d in res["context_differences"]}
    machine = [keyed[k] for k in KEY_CONTEXT if k in keyed]
    if machine:
        parts.append("<table class='runs'><tr><th class='l'>differs</th><th class='l'>BASE</th><th class='l'>NEW</th></tr>")
        parts += [f"<tr><th class='l'>{e(d['key'])}</th><td>{e(_show(d['base']))}</td><td>{e(_show(d['new']))}</td></tr>"
                  for d in machine]
        parts.append("</table>")
    else:
        parts.append("<p>Same CPU, core count, GPU, build type, compiler and interpreter.</p>")
    return "".join(parts)


def records_table(res: dict) -> str:
    e, n = html_text, html_number  # every value from the runs, text or number (untrusted.py)
    alpha = res["settings"]["alpha"]
    shares = any(share_pair(r) for r in res["records"] if r["kind"] == "compared")
    parts = ["<table><tr><th class='l'>verdict</th><th class='l'>record</th><th>BASE median (s)</th><th>NEW median (s)</th>"
             f"<th>NEW/BASE time</th><th>{100 - alpha * 100:g}% interval</th><th>p</th><th>reps</th><th>rate ratio</th>"
             + ("<th class='l'>share of roof BASE &rarr; NEW</th>" if shares else "") + "<th class='l'>note</th></tr>"]
    for r in res["records"]:
        if r["kind"] == "compared":
            ci = "unbounded" if r["ci"] is None else f"{fmt_ratio(r['ci'][0])} – {fmt_ratio(r['ci'][1])}"
            notes = [r["warning"]] if r.get("warning") else []
            notes = (["trips --fail-if-slower"] if r.get("gate") else []) + notes
            notes += [f"{w.upper()} unstable: {r[w]['unstable']}; measure again with more --reps or --rounds"
                      for w in ("base", "new") if r[w].get("unstable")]
            note = "; ".join(notes)
            cls = VERDICT_CLASS.get(r["verdict"], r["verdict"])
            parts.append(f"<tr><td class='l {e(cls)}'>{e(r['verdict'])}</td><td class='l rec'>{e(r['label'])}</td>"
                         f"<td>{n(r['base']['median_s'], '.4g')}</td><td>{n(r['new']['median_s'], '.4g')}</td>"
                         f"<td>{fmt_ratio(r['time_ratio'])}</td><td>{e(ci)}</td><td>{n(r['p_value'], '.2g')}</td>"
                         f"<td>{n(r['base']['reps'])}/{n(r['new']['reps'])}</td><td>{fmt_ratio(r['rate_ratio'])}</td>"
                         + (f"<td class='l'>{e(share_pair(r))}</td>" if shares else "")
                         + f"<td class='l warn'>{e(note)}</td></tr>")
        else:
            cls = " class='failed'" if r["kind"] == "failed" else ""
            detail = "; ".join(f"{w.upper()} {r[w]['status']}: {r[w].get('detail', '')}" for w in ("base", "new")
                               if r[w]["status"] != "ok")
            what = {"failed": "failed", "one-side-unavailable": "n/a", "not-measured": "not measured"}[r["kind"]]
            parts.append(f"<tr{cls}><td class='l'>{what}</td><td class='l rec'>{e(r['label'])}</td><td>{e(r['base']['status'])}</td>"
                         f"<td>{e(r['new']['status'])}</td><td colspan='{6 if shares else 5}'>not compared</td>"
                         f"<td class='l'>{e(detail)}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


def write(res: dict, out_dir: str) -> str:
    """DIR/report.html (self-contained), DIR/plots/*.png and DIR/compare.json; returns the report's path."""
    p = Plotter(os.path.join(out_dir, "plots"), svg=False, grid=False)
    e = html_text
    b, n = res["base"], res["new"]
    parts = [page_head("parlab compare"), "<h1>parlab compare</h1><table class='runs'>"]
    for name, run in (("BASE", b), ("NEW", n)):
        parts.append(f"<tr><th class='l'>{name}</th><td>{e(run['path'])}</td><td>suite {e(run['suite'])}</td>"
                     f"<td>{e(run['started_utc'])}</td><td>commit {e(run['git_commit'])}</td></tr>")
    st = res["settings"]
    parts.append(f"</table><p class='small'>Verdict: two-sided Mann-Whitney U p &lt; {st['alpha']:g} on the repetition "
                 f"times and a change of the median time beyond {st['threshold_pct']:g}%; intervals: {e(st['interval'])}. "
                 f"Scaling shapes: efficiency over each side's own one-worker time, within "
                 f"{st['shape_threshold_pct']:g}% or the noise = same scaling.</p>")
    parts.append(first_screen(res))
    change = change_figure(p, res)
    if change:
        parts.append("<h2>Change per record</h2>" + figure_html(*change))
    if res["scaling"]:
        parts.append("<h2>Scaling shape</h2><table><tr><th class='l'>verdict</th><th class='l'>series</th>"
                     "<th class='l'>efficiency</th></tr>")
        for g in res["scaling"]:
            cls = {"scales worse": "slower", "scales better": "faster", "same scaling": "same"}.get(g["verdict"], "warn")
            parts.append(f"<tr><td class='l {cls}'>{e(g['verdict'])}</td><td class='l'>{e(shape_title(g))}</td>"
                         f"<td class='l'>{e(shape_points(g))}</td></tr>")
        parts.append("</table>")
        parts += [figure_html(path, caption) for path, caption in shape_figures(p, res)]
    parts.append("<h2>Records</h2>" + records_table(res))
    for name, key in (("BASE", "only_base"), ("NEW", "only_new")):
        if res[key]:
            parts.append(f"<h2>Only in {name}: {len(res[key])} record(s)</h2><ul>"
                         + "".join(f"<li>{e(x)}</li>" for x in res[key + "_series"]) + "</ul>")
    parts.append("<h2>Context differences</h2>")
    if res["context_differences"]:
        parts.append("<table><tr><th class='l'>key</th><th class='l'>BASE</th><th class='l'>NEW</th></tr>")
        parts += [f"<tr><th class='l'>{e(d['key'])}</th><td class='l'>{e(_show(d['base']))}</td>"
                  f"<td class='l'>{e(_show(d['new']))}</td></tr>" for d in res["context_differences"]]
        parts.append("</table>")
    else:
        parts.append("<p>None.</p>")
    if res["notes"]:
        parts.append("<ul>" + "".join(f"<li class='warn'>{e(x)}</li>" for x in res["notes"]) + "</ul>")
    parts.append("</body></html>\n")
    write_page(os.path.join(out_dir, "compare.json"), json_text(res))  # strict JSON: no NaN or Infinity
    return write_page(os.path.join(out_dir, "report.html"), "".join(parts))
