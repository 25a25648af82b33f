"""The results table in the terminal: one line per record, grouped by kernel and size, each rate
with its spread, share of roof, speedup and a mark where the record is unstable. Printed on stdout
at the end of `parlab run` and by `parlab report` (plot.py --summary), as a table within the
terminal's width, Markdown (to paste into an issue), CSV or JSON.

The spread is the record's own (time_s, computed by the runner: analysis/spread.py): the median
rate and half the interquartile range of the per-repetition rates, and the coefficient of
variation (stddev / mean) of the times. A record is unstable when the runner or the pooling of its
rounds marked it (`unstable`: its CV over UNSTABLE_CV, or its rounds disagree)."""
from __future__ import annotations

from collections import defaultdict

from analysis.labels import fmt_rate, fmt_rate_spread, fmt_size, interpreter_suffix
from analysis.records import processor_of, ranks_of, rate_of
from analysis.roofs import roof_share
from analysis.share_interval import reads_above, share_cell, share_interval
from analysis.spread import UNSTABLE_CV, rate_band
from analysis.plausible import NOT_MEASURED, OWN_PROCESSES, RULES, UNSTABLE, marks, unmeasured_why
from analysis.terminal import hanging, terminal_width
from analysis.untrusted import markdown_cell, one_line, plain_strings
from analysis.writer import csv_text, json_text

FORMATS = ("table", "markdown", "csv", "json", "none")


def _row(r: dict) -> dict:
    """One record's line as data: the table's every format reads this."""
    rate, unit = rate_of(r) if r.get("status") == "ok" else (None, "")
    s = r.get("time_s") if rate is not None else None
    band = rate_band(r, rate)
    half_iqr = 0.5 * (band[1] - band[0]) if band else None
    share = roof_share(r)
    iv = share_interval(r) if share else None
    return {"id": r.get("id"), "kernel": r["kernel"], "size": r.get("size"), "precision": r.get("precision", ""),
            "study": r.get("study", ""), "backend": r["backend"] + interpreter_suffix(r),
            "threads": r.get("threads"), "ranks": ranks_of(r), "status": r.get("status"),
            "valid": (r.get("validation") or {}).get("pass", r.get("status") == "ok"),
            "rate": rate, "unit": unit, "half_iqr": half_iqr, "cv": s.get("cv") if s else None,
            "n": s.get("n", len(r.get("reps_s") or [])) if s else 0, "roof": share["roof"] if share else None,
            "share": share["fraction"] if share else None,
            "share_low": iv[0] if iv else None, "share_high": iv[1] if iv else None, "above": bool(iv) and reads_above(r),
            "unstable": bool(r.get("unstable")), "reason": r.get("reason", ""),
            "kind": "gpu" if processor_of(r) == "gpu" else r.get("kind", ""), "no_roof": _no_roof(r),
            "record": r}


def _no_roof(r: dict) -> str:
    """Why a measured record's roof cell is blank, in a word the footer explains: "cache" (its
    arrays fit the last-level cache, whose bandwidth no probe measures) or "none" (no roof for it:
    report.html says why). Empty where the record has a share, or no measurement."""
    lim = r.get("limit")
    if r.get("status") != "ok" or not isinstance(lim, dict) or lim.get("roof") is not None:
        return ""
    return "cache" if "cache" in str(lim.get("reason", "")) else "none"


def speedup_base(ok: list, x: dict):
    """The row a row's speedup is over, of its group's valid rows `ok`: the group's serial row,
    else the same backend at 1 thread in one process or one rank; None where neither ran."""
    serial = next((y for y in ok if y["backend"] == "serial"), None)
    return serial or next((y for y in ok if y["backend"] == x["backend"] and y["threads"] == 1
                           and y["ranks"] in (None, 1)), None)


def groups(doc: dict) -> list:
    """[(title, [row])]: the records of a loaded run (records.load_run: rounds already pooled)
    by study, kernel, size and precision, in the run's order, each
    with its speedup over the group's serial record (else over the same backend at 1 thread) and
    the fastest marked; a row keeps its record (`record`) and the row its speedup is over (`base`)."""
    by = defaultdict(list)
    for r in doc.get("records", []):
        if "kernel" in r and "backend" in r:
            row = _row(r)
            by[(row["study"], row["kernel"], row["size"], row["precision"])].append(row)
    out = []
    for (study, kernel, size, precision), rows in by.items():
        ok = [x for x in rows if x["rate"] is not None and x["valid"]]
        for x in ok:
            x["base"] = base = speedup_base(ok, x)  # pop.py takes its reference from here too
            x["speedup"] = x["rate"] / base["rate"] if base and base["rate"] else None
        if len(ok) > 1:
            max(ok, key=lambda x: x["rate"])["fastest"] = True
        for x in rows:
            x["plausible"] = marks(x)
        size_text = fmt_size(size) if isinstance(size, int) else str(size)
        out.append((f"{kernel}  n={size_text}  {precision}" + (f"  ({study})" if study else ""), rows))
    return out


def _rate_text(x: dict) -> str:
    """The rate with its spread, one unit for both, as a measurement is written: "2.67 ± 0.015
    Gsamples/s" (a bare "± 3.63 G" beside it once left the spread's unit to be guessed)."""
    if x["rate"] is None:
        return "FAILED" if x["status"] != "unavailable" else "unavailable"
    if not x["valid"]:
        return "INVALID"
    if x["half_iqr"] is None:
        return fmt_rate(x["rate"], x["unit"])
    return fmt_rate_spread(x["rate"], x["half_iqr"], x["unit"])


def workers_label(x: dict) -> str:
    """A row's workers as every view names them: "4" threads, or "2x4" ranks x threads."""
    return f"{x['ranks']}x{x['threads']}" if x["ranks"] else str(x["threads"])


def _cells(x: dict) -> list:
    mark = ("*" if x.get("fastest") else "") + ("!" if x["unstable"] else "") + x.get("plausible", "")
    return [x["backend"], workers_label(x), _rate_text(x), f"{100 * x['cv']:.1f}%" if x["cv"] is not None else "",
            _share_text(x), f"{x['speedup']:.2f}x" if x.get("speedup") is not None else "", mark]


def _share_text(x: dict) -> str:
    """The roof cell: the share to two places ("<0.01" below that, never a misleading 0.00), with
    its interval where the run measured the roof again at its end ("1.05 (0.98–1.12)",
    share_interval.py), or the word that says why there is none."""
    if x["share"] is None:
        return x.get("no_roof", "")
    iv = (x["share_low"], x["share_high"]) if x.get("share_low") is not None else None
    return share_cell(x["share"], iv)


HEAD = ["backend", "thr", "rate ± IQR/2", "CV", "roof", "speedup", ""]
LEFT = (0, 6)  # the columns set flush left: the backend and the marks


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 1)] + "…"


def render_table(doc: dict, width: int) -> str:
    lines = []
    unstable = intervals = False
    seen_marks, no_roof = set(), set()
    unmeasured = {"before": 0, "own_processes": 0}
    for title, rows in groups(doc):
        for x in rows:
            if why := unmeasured_why(x):
                unmeasured[why] += 1
        cells = [_cells(x) for x in rows]
        unstable = unstable or any(x["unstable"] for x in rows)
        intervals = intervals or any(x["share_low"] is not None for x in rows)
        seen_marks |= {m for x in rows for m in x.get("plausible", "")}
        no_roof |= {x["no_roof"] for x in rows if x["share"] is None and x.get("no_roof")}
        w = [max([len(HEAD[i])] + [len(c[i]) for c in cells]) for i in range(len(HEAD))]
        fixed = sum(w[1:]) + 2 * len(w)
        w[0] = min(w[0], max(width - fixed, 12))  # the backend column gives way first
        lines.append(_shorten(title, width))
        fmt = lambda c: "  " + "  ".join(  # noqa: E731
            (_shorten(v, w[i]).ljust(w[i]) if i in LEFT else v.rjust(w[i])) for i, v in enumerate(c)).rstrip()
        lines.append(_shorten(fmt(HEAD), width))
        for x, c in zip(rows, cells):
            line = fmt(c)
            if x["rate"] is None and x["reason"]:
                line += "  " + x["reason"]
            lines.append(_shorten(line, width))
        lines.append("")
    if lines:
        lines += hanging("* ", "fastest; speedup over serial (else the backend at 1 thread); roof: share of "
                               "the roof that binds it", width)
        if intervals:
            lines += hanging("roof ", "(low–high): its share from its slower quartile against the highest roof "
                                      "measured in the run to its faster against the lowest", width)
        if unstable:
            lines += hanging("! ", UNSTABLE, width)
        # The footer lines wrap, as every other line does: nothing of a rule is cut.
        for m in sorted(seen_marks):
            lines += hanging(f"{m} ", RULES[m], width)
        if unmeasured["before"]:
            lines += hanging("  ", NOT_MEASURED.format(n=unmeasured["before"]), width)
        if unmeasured["own_processes"]:
            lines += hanging("  ", OWN_PROCESSES.format(n=unmeasured["own_processes"]), width)
        if "cache" in no_roof:
            lines += hanging("cache ", "no roof: the arrays fit the last-level cache, whose bandwidth no probe "
                                       "measures", width)
        if "none" in no_roof:
            lines += hanging("none ", "no roof for this record (report.html says why)", width)
    return "\n".join(lines) + ("\n" if lines else "")


def render_markdown(doc: dict) -> str:
    out = []
    for title, rows in groups(doc):
        out += [f"**{one_line(title)}**", "", "| " + " | ".join(h or "mark" for h in HEAD) + " |",
                "|" + "|".join("---" if i in LEFT else "---:" for i in range(len(HEAD))) + "|"]
        out += ["| " + " | ".join(markdown_cell(c) for c in _cells(x)) + " |" for x in rows]
        out.append("")
    return "\n".join(out)


FIELDS = ["kernel", "size", "precision", "study", "backend", "threads", "ranks", "status", "rate", "unit", "half_iqr",
          "cv", "n", "roof", "share", "share_low", "share_high", "above", "no_roof", "speedup", "fastest", "unstable", "plausible"]


def render(doc: dict, fmt: str, width: int | None = None) -> str:
    """The table of doc's records in fmt (FORMATS); width: the terminal's, default
    terminal.terminal_width() ($COLUMNS within its bounds, else the terminal's, else 100)."""
    if fmt == "none":
        return ""
    if fmt != "json":  # JSON escapes every control character itself, and keeps the names as they are
        # Every text fit for a terminal before any width is measured: a name holding ESC[2J or a
        # newline is shown, never obeyed (untrusted.py).
        doc = plain_strings(doc)
    if fmt == "markdown":
        return render_markdown(doc)
    rows = [x for _, g in groups(doc) for x in g]
    if fmt == "json":
        return json_text({"unstable_cv": UNSTABLE_CV, "rows": [{k: x.get(k) for k in FIELDS} for x in rows]})
    if fmt == "csv":
        return csv_text(FIELDS, rows)
    return render_table(doc, terminal_width() if width is None else width)


__all__ = ["FORMATS", "UNSTABLE_CV", "groups", "render", "workers_label"]
