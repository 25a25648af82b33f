"""What analysis/compare.py prints on a terminal: the comparison (compare.compare(),
what --json prints) as text within the terminal's width (terminal.terminal_width: $COLUMNS,
else the terminal's, else 100), as every line parlab prints (experiments/io/terminal.hpp).

The records table keeps one line per record where the width allows. Times are in auto-scaled
units (labels.fmt_time), a share of roof is a number or a word for its absence ("no roof
(cache)"), and a record label too long for its column wraps under it. Where the table would leave
the label column narrower than LABEL_MIN, the p column goes first (the interval decides the same
way), then the repetitions and the shares of roof move to a line under the label. Every other
long text (paths, reasons, context values) wraps under its start; only a word longer than a line
(a path) runs over. --verbose adds each record's full texts under it; --json and --html have them
always.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from analysis.compare_report import (_show, change_words, fmt_ratio, gate_nothing_judged_line, shape_points, shape_title,
                             shares_line)
from analysis.compare_stats import reps_needed
from analysis.labels import fmt_time
from analysis.roofs import share_short
from analysis.spread import UNSTABLE_CV
from analysis.terminal import hanging, terminal_width
from analysis.untrusted import plain_strings

# The narrowest the record column may be before columns give way (module docstring): a label
# wraps at its spaces and hyphens, and 20 columns hold "pi py-numba-prange" or "t=16 2^26 int32".
LABEL_MIN = 20


class Paint:
    CODES = {"red": "31", "green": "32", "yellow": "33", "bold": "1", "dim": "2"}

    def __init__(self, on: bool):
        self.on = on

    def __call__(self, text: str, *styles: str) -> str:
        if not self.on or not styles:
            return text
        return "".join(f"\033[{self.CODES[s]}m" for s in styles) + text + "\033[0m"


VERDICT_STYLE = {"slower": ("red", "bold"), "faster": ("green", "bold"), "same": ("dim",), "undecided": ("yellow",),
                 "failed": ("yellow", "bold")}
# A failed record's statuses in the BASE and NEW columns, shortened; the lines under the table
# give each in full with its detail.
STATUS_SHORT = {"ok": "ok", "unavailable": "n/a", "failed-validation": "invalid", "error": "error"}


def summary_lines(res: dict) -> list[str]:
    s = res["summary"]
    undecided = f", {s['undecided']} undecided (too few repetitions to tell)" if s.get("undecided") else ""
    lines = [f"{s['compared']} compared: {s['faster']} faster, {s['slower']} slower, {s['same']} no difference beyond the "
             f"noise{undecided}; {s['failed']} failed (not compared); {s['only_base'] + s['only_new']} unmatched "
             f"({s['only_base']} only in BASE, {s['only_new']} only in NEW)"
             + (f"; {s['one_side_unavailable']} unavailable on one side" if s["one_side_unavailable"] else "")
             + (f"; {s['not_measured']} measured on neither" if s["not_measured"] else "")]
    if s.get("unstable"):
        lines.append(f"{s['unstable']} unstable on either side (CV over {UNSTABLE_CV:.0%} or rounds that disagree, "
                     "marked !): measure them again with more --reps or --rounds")
    for what, key in (("largest slowdown", "largest_slowdown"), ("largest speedup", "largest_speedup")):
        x = s[key]
        if x:
            lines.append(f"{what}: {x['label']}: {change_words(x)}")
    lines.append(shares_line(res))
    return [x for x in lines if x]


def context_lines(diffs: list, width: int, verbose: bool = False, details: int = 8) -> list[str]:
    """The context differences: the machine and build one per line (a long value under its key);
    backends grouped (only in one run, available in one run only), the first `details` changed
    details (every one, and every reason whole, with verbose)."""
    out, rest = [], [d for d in diffs if not d["key"].startswith("backends.")]
    kw = max((len(d["key"]) for d in rest), default=0)
    for d in rest:
        va, vb = _show(d["base"]), _show(d["new"])
        if kw + len(va) + len(vb) + 10 <= width:
            out.append(f"  {d['key']:<{kw}}  {va}  ->  {vb}")
        else:
            out += [f"  {d['key']}"] + hanging("      BASE: ", va, width) + hanging("      NEW:  ", vb, width)
    bk = [(d["key"][len("backends."):], d["base"], d["new"]) for d in diffs if d["key"].startswith("backends.")]
    down = lambda v: v is not None and v.startswith("unavailable: ")  # noqa: E731
    groups = (("backends only in BASE", [b for b in bk if b[2] is None], None),
              ("backends only in NEW", [b for b in bk if b[1] is None], None),
              ("backends available in BASE only", [b for b in bk if None not in b and down(b[2]) and not down(b[1])], 2),
              ("backends available in NEW only", [b for b in bk if None not in b and down(b[1]) and not down(b[2])], 1))
    grouped = set()
    for title, items, why in groups:
        by_reason = {}
        for b in items:
            by_reason.setdefault(b[why][len("unavailable: "):] if why else "", []).append(b[0])
            grouped.add(b[0])
        for reason, names in by_reason.items():
            reason = reason if verbose or len(reason) <= 90 else reason[:87] + "..."
            shown = names if verbose or len(names) <= 8 else names[:8] + [f"and {len(names) - 8} more"]
            text = ", ".join(shown) + (f" ({'BASE' if why == 1 else 'NEW'}: {reason})" if why else "")
            out += hanging(f"  {title}: ", text, width, indent=4)
    changed = [b for b in bk if b[0] not in grouped]
    shown = changed if verbose else changed[:details]
    for name, va, vb in shown:
        out += [f"  backends.{name}"] + hanging("      BASE: ", _show(va), width) + hanging("      NEW:  ", _show(vb), width)
    if len(changed) > len(shown):
        out += hanging("  ", f"... and {len(changed) - len(shown)} more backend detail(s): "
                       + ", ".join(b[0] for b in changed[len(shown):]) + " (--verbose, --json and --html give them all)",
                       width, indent=4)
    return out


def context_section(res: dict, paint: Paint, width: int, verbose: bool) -> list[str]:
    """The context: only what differs and can change a rate, in words (compare_context
    .context_in_words: "CPU: A (BASE) vs B (NEW)", "cpu_bw_triad_all 61.7 GB/s vs 103 GB/s
    (+67%)"); every entry that differs, by its raw key, only with --verbose (--json and --html
    have them always)."""
    words = res.get("context_in_words") or []
    raw = res["context_differences"]
    title = (f"Context: {len(words)} difference(s) that can change a rate" if words
             else "Context: nothing that can change a rate differs")
    out = ["", paint(title, "bold")]
    out += [x for d in words for x in hanging("  ", d["text"], width, indent=4)]
    if raw and not verbose:
        out += hanging("  ", f"({len(raw)} context entries differ in all: --verbose lists them by key)", width, indent=4)
    if raw and verbose:
        out += ["", paint(f"Context, every entry that differs: {len(raw)}", "bold")]
        out += context_lines(raw, width, verbose)
    return out


def _share_cell(r: dict) -> str:
    """Both shares of roof in a few characters: "0.82->0.91", "0.82->0.91*" where the two runs
    hold the record against different roofs, "no roof (cache)" once where both sides say so."""
    b, n = r["base"].get("limit"), r["new"].get("limit")
    sb, sn = share_short_of(r["base"]), share_short_of(r["new"])
    if sb == sn and not b:
        return sb
    return f"{sb or '-'}->{sn or '-'}" + ("*" if b and n and b["roof"] != n["roof"] else "")


def share_short_of(side: dict) -> str:
    """figures.roofline.share_short of one side as the comparison keeps it (its limit, its share
    text); a share of 10 or more (a record held against another processor's roof) whole."""
    lim = side.get("limit")
    if lim:
        return f"{lim['fraction']:.0f}" if lim["fraction"] >= 10 else share_short({"limit": lim})
    return share_short({"limit": {"roof": None, "reason": side["share"]}}) if side.get("share") else ""


def _reps_cell(r: dict) -> str:
    """"5/5", and for an undecided record the repetitions per side that would decide it: "3/3->5"
    ("?" where the repetitions show no order at all)."""
    text = f"{r['base']['reps']}/{r['new']['reps']}"
    return text + f"->{r.get('reps_to_decide') or '?'}" if r["verdict"] == "undecided" else text


def _cells(r: dict) -> dict:
    if r["kind"] != "compared":
        short = {w: STATUS_SHORT.get(r[w]["status"], r[w]["status"][:8]) for w in ("base", "new")}
        return {"verdict": "failed" if r["kind"] == "failed" else "n/a", "record": r["label"], "base": short["base"],
                "new": short["new"], "ratio": "not compared"}
    ci = "unbounded" if r["ci"] is None else f"{fmt_ratio(r['ci'][0])}-{fmt_ratio(r['ci'][1])}"
    return {"verdict": r["verdict"] + ("!" if r.get("unstable") else "") + (" GATE" if r.get("gate") else ""),
            "record": r["label"], "base": fmt_time(r["base"]["median_s"], "s"), "new": fmt_time(r["new"]["median_s"], "s"),
            "ratio": fmt_ratio(r["time_ratio"]), "ci": ci, "p": f"{r['p_value']:.2g}", "reps": _reps_cell(r),
            "roof": _share_cell(r)}


RIGHT = {"base", "new", "ratio", "ci", "p", "reps", "roof"}
UNDER = ("reps", "roof")  # what moves under the label when the table is narrow


@dataclass
class Layout:
    """How the records table is laid out: the columns on a row's line after the verdict and the
    label (`cols`), those on a line of their own under it (`under`), the label column's width,
    and whether the label has the row's first line to itself (`stacked`: the numbers below it)."""
    cols: list
    under: list
    label_w: int
    stacked: bool
    widths: dict

    @property
    def at(self) -> int:
        """Where the label column starts."""
        return 2 + self.widths["verdict"] + 2


def _layout(head: dict, cells: list, width: int) -> Layout:
    """Of the layouts (module docstring) that fit the width, leaving an inline label LABEL_MIN
    columns, the one that prints the table in the fewest lines, the earlier among equals (more
    columns on the line, the label beside its numbers); the last where none fits."""
    keys = [k for k in head if k not in ("verdict", "record") and any(c.get(k) for c in cells)]
    widths = {k: max(len(c.get(k, "")) for c in [head] + cells) for k in ["verdict", "record"] + keys}
    spans = [(keys, []), ([k for k in keys if k != "p"], []),
             ([k for k in keys if k not in ("p",) + UNDER], [k for k in UNDER if k in keys])]
    best, last = None, None
    for stacked in (False, True):
        for cols, under in spans:
            numbers = sum(widths[k] for k in cols) + 2 * len(cols)
            room = width - 4 - widths["verdict"] - (numbers if not stacked else 0)
            last = Layout(cols, under, max(min(room, widths["record"]), LABEL_MIN // 2), stacked, widths)
            fits = (room >= min(LABEL_MIN, widths["record"]) if not stacked
                    else last.at + numbers - 2 <= width)
            if not fits:
                continue
            lines = sum(len(_row_lines(c, last, width)) for c in cells)
            if best is None or lines < best[0]:
                best = (lines, last)
    return best[1] if best else last


def _row_lines(cells: dict, lay: Layout, width: int) -> list[str]:
    """One row of the table: its line, its label's further lines, and its columns under it."""
    label = textwrap.wrap(cells["record"], lay.label_w, break_on_hyphens=False) or [""]
    numbers = [cells.get(k, "").rjust(lay.widths[k]) if k in RIGHT else cells.get(k, "").ljust(lay.widths[k])
               for k in lay.cols]
    first = [cells["verdict"].ljust(lay.widths["verdict"])]
    if lay.stacked:
        lines = ["  " + "  ".join(first + [label[0]])] + [" " * lay.at + x for x in label[1:]]
        lines.append((" " * lay.at + "  ".join(numbers)).rstrip())
    else:
        lines = ["  " + "  ".join(first + [label[0].ljust(lay.label_w)] + numbers).rstrip()]
        lines += [" " * lay.at + x for x in label[1:]]
    extra = "; ".join(f"{HEAD[k]} {cells[k]}" for k in lay.under if cells.get(k))
    return [x.rstrip() for x in lines] + (hanging(" " * lay.at, extra, width) if extra else [])


HEAD = {"verdict": "verdict", "record": "record", "base": "BASE", "new": "NEW", "ratio": "NEW/BASE", "ci": "CI",
        "p": "p", "reps": "reps", "roof": "roof share"}


def records_lines(res: dict, paint: Paint, width: int, verbose: bool) -> list[str]:
    rows = [r for r in res["records"] if r["kind"] in ("compared", "failed", "one-side-unavailable")]
    if not rows:
        return []
    st = res["settings"]
    head = dict(HEAD, ci=f"{100 - st['alpha'] * 100:g}% CI")
    cells = [_cells(r) for r in rows]
    if not any(r.get("verdict") == "undecided" for r in rows):
        head.pop("reps")  # a column only where it says what would decide, so decided runs print as before
    if not any(c.get("roof") for c in cells):
        head.pop("roof")  # only where a run measured roofs
    lay = _layout(head, cells, width)
    out = ["", paint("Records (failures first, then by the largest change)", "bold")]
    out += [paint(x, "bold") for x in _row_lines(dict(head, **{k: "" for k in lay.under}), lay, width)]
    for r, c in zip(rows, cells):
        style = VERDICT_STYLE.get(c["verdict"].split("!")[0].split(" ")[0], ())
        out += [paint(x, *style) for x in _row_lines(c, lay, width)]
        if verbose:
            out += [paint(x, "dim") for x in _details(r, lay.at, width)]
    for r in rows:
        for s in ("base", "new"):
            if r["kind"] == "failed" and r[s]["status"] != "ok":
                out += [paint(x, "yellow") for x in hanging(f"  {r['label']}: ", f"{s.upper()} {r[s]['status']}: "
                                                            f"{r[s].get('detail', '')}", width, indent=4)]
    return out + _footnotes(res, rows, lay.cols + lay.under, width)


def _details(r: dict, at: int, width: int) -> list[str]:
    """--verbose: a record's full texts, under its label."""
    if r["kind"] != "compared":
        return []
    texts = [f"p {r['p_value']:.3g} ({r['test']} U test), rate ratio {fmt_ratio(r['rate_ratio'])}, "
             f"repetitions {r['base']['reps']} against {r['new']['reps']}"]
    share = [f"{w.upper()} {r[w]['share']}" for w in ("base", "new") if r[w].get("share")]
    if share:
        texts.append("share of roof: " + " -> ".join(share))
    texts += [f"{w.upper()} unstable: {r[w]['unstable']}" for w in ("base", "new") if r[w].get("unstable")]
    if r.get("warning"):
        texts.append(r["warning"])
    return [line for t in texts for line in hanging(" " * at, t, width, indent=at + 2)]


def _footnotes(res: dict, rows: list, shown: list, width: int) -> list[str]:
    alpha = res["settings"]["alpha"]
    notes = []
    if any(r.get("verdict") == "undecided" for r in rows):
        notes.append(f"undecided: too few repetitions (or distinct ones) to tell: the U test needs {reps_needed(alpha)} "
                     f"per side to reach p < {alpha:g} (3 against 3 can give no p below 0.1); reps 3/3->N: about N "
                     "per side would decide at the effect seen (parlab run --reps N), ? where the repetitions show "
                     "no order at all")
    if any(r.get("unstable") for r in rows):
        notes.append(f"! unstable on either side: a CV over {UNSTABLE_CV:.0%} or rounds that disagree (--verbose says "
                     "which); measure again with more --reps or --rounds")
    if "roof" in shown:
        notes.append("roof share: each run's share of its own machine's measured roof"
                     + ("; * against different roofs" if any(c.endswith("*") for c in map(_share_cell, (
                         r for r in rows if r["kind"] == "compared"))) else "") + " (--verbose names them)")
    if "p" not in shown:
        notes.append("p: left out to fit the width; the interval decides as the test does (--verbose gives it)")
    return [line for n in notes for line in hanging("  ", n, width, indent=4)]


def header_lines(res: dict, width: int) -> list[str]:
    out = []
    for name, run in (("BASE", res["base"]), ("NEW ", res["new"])):
        facts = f"(suite {run['suite']}, host {run['host']}, {run['started_utc']}, commit {run['git_commit']})"
        lead = f"  {name} "
        # The path whole on a line of its own where it does not fit beside its name.
        out += ([lead + run["path"]] if len(lead) + len(run["path"]) <= width else [lead.rstrip(), "    " + run["path"]])
        out += hanging("    ", facts, width)
    st = res["settings"]
    return out + hanging("  ", f"verdicts: U test p < {st['alpha']:g} and a change beyond {st['threshold_pct']:g}%; "
                         f"intervals: {st['interval']}", width, indent=4)


def gate_words(g: dict) -> tuple:
    """The gate's verdict in one line, and its colour: FAIL, pass (saying how many records it
    could not judge), or, where it judged none, what would let it judge (exit 5)."""
    pct = f"{g['fail_if_slower_pct']:g}%"
    if g.get("nothing_judged") and not g["failed"]:
        return f"NOTHING JUDGED (exit 5): {gate_nothing_judged_line(g)}", "yellow"
    msg = (f"FAIL: {len(g['records'])} record(s) significantly slower by more than {pct}" if g["failed"]
           else f"pass: no record significantly slower by more than {pct}")
    if g["could_not_judge"]:
        msg += (f" ({g['could_not_judge']} record(s) had too few repetitions to judge, not judged; "
                f"{g['judged']} judged)")
    return msg, "red" if g["failed"] else "green"


def terminal(res: dict, paint: Paint, width: int = 100, verbose: bool = False) -> str:
    # Every text of the runs fit for a terminal before any is laid out or painted: a name holding
    # ESC[2J or an OSC title is shown, never obeyed (untrusted.py); Paint's own codes come after.
    res = plain_strings(res)
    out = [paint("parlab compare", "bold")] + header_lines(res, width) + ["", paint("What changed", "bold")]
    out += [x for line in summary_lines(res) for x in hanging("  ", line, width, indent=4)]
    if res["gate"]:
        msg, style = gate_words(res["gate"])
        out += [paint(x, style, "bold") for x in hanging("  gate --fail-if-slower: ", msg, width, indent=4)]
    out += [x for n in res["notes"] for x in hanging("  note: ", n, width, indent=4)]
    # The answer first (the records and the scaling shapes), then what differs between the runs
    # that could explain it.
    out += records_lines(res, paint, width, verbose)
    if res["scaling"]:
        out += ["", paint("Scaling shape (each side over its own one-worker time)", "bold")]
        for g in res["scaling"]:
            style = {"same scaling": ("dim",), "scales worse": ("red",), "scales better": ("green",)}.get(g["verdict"],
                                                                                                        ("yellow",))
            out += [paint(x, *style) for x in hanging(f"  {g['verdict']:<13} ", f"{shape_title(g)}: {shape_points(g)}",
                                                      width, indent=16)]
    out += context_section(res, paint, width, verbose)
    for side_name, key in (("BASE", "only_base"), ("NEW", "only_new")):
        if res[key]:
            out += ["", paint(f"Only in {side_name}: {len(res[key])} record(s)", "bold")]
            out += [x for s in res[key + "_series"] for x in hanging("  ", s, width, indent=4)]
    gone = [r["label"] for r in res["records"] if r["kind"] == "not-measured"]
    if gone:
        out += ["", paint(f"Measured on neither side (unavailable in both): {len(gone)}", "bold")]
        out += [x for s in gone for x in hanging("  ", s, width, indent=4)]
    return "\n".join(out) + "\n"


__all__ = ["Paint", "context_lines", "context_section", "records_lines", "summary_lines", "terminal", "terminal_width"]
