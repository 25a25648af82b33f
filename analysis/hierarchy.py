"""The report's "Where the speedup went" section: per kernel group and backend, the efficiency
hierarchy (analysis/pop.py) with the factors as rows and the thread counts as columns, each
factor's cell coloured as POP colours it (at least pop.GOOD green, from pop.FAIR orange, below
red), the disturbance below it, and why each blank cell is blank. Every value from the data is
escaped (untrusted.py)."""
from __future__ import annotations

from analysis.pop import DISTURBANCE, FAIR, GOOD, absent_notes, disturbance_text, grade, pop_tables, shown_factors, spread_notes, where_it_went
from analysis.untrusted import html_text
from analysis.labels import fmt_fraction, fmt_speedup

INTRO = ("<h2 id='pop'>Where the speedup went</h2><p class='small'>The POP efficiency hierarchy of each record "
         "whose workers were accounted (docs/records.md, The efficiency hierarchy). A worker's useful time is its "
         "CPU time inside the kernel body. Global efficiency = parallel efficiency x computation scaling; parallel "
         "efficiency = load balance (mean / max useful time) x communication efficiency (max useful time / the "
         "run's time), POP's figures per execution: those of the repetition whose time is the median, their range "
         "over the repetitions under the table; computation scaling = the backend's own one-worker useful time (else that of the record the "
         "speedup is over) / the workers' summed useful time (instruction x IPC x frequency scaling where both have "
         "counters), and where the backend's one worker is not the reference, one worker vs reference = the "
         "reference's useful time / the backend's one worker's, the runtime's cost at one worker, a factor of "
         "global efficiency. speedup = workers x global efficiency / PE<sub>ref</sub>. One worker: every factor 1 by construction. Colours: at least "
         "{good} <span class='pop-good'>good</span>, from {fair} <span class='pop-fair'>fair</span>, below "
         "<span class='pop-poor'>poor</span>. Disturbance: the share of busy time runnable but not running, the most "
         "of one CPU's window stolen, the CPUs' worth of time other processes used over the window, involuntary "
         "context switches per run.</p>")


def _cell(value, fmt, coloured: bool = False) -> str:
    if value is None:
        return "<td class='muted'>–</td>"
    cls = f" class='pop-{grade(value)}'" if coloured else ""
    return f"<td{cls}>{html_text(fmt(value))}</td>"


def _rows(table: dict) -> list:
    """The table's rows as HTML: speedup and the identity, the factors coloured, the disturbance."""
    cols = table["columns"]
    out = [("speedup", [_cell(c["speedup"], fmt_speedup) for c in cols]),
           ("workers x GE / PE<sub>ref</sub>", [_cell(c["predicted"], fmt_speedup) for c in cols])]
    for k, label in shown_factors(table):
        out.append((html_text(label), [_cell(c["hierarchy"]["values"].get(k), fmt_fraction, True) for c in cols]))
    rows = [f"<tr><td class='l'>{label}</td>{''.join(cells)}</tr>" for label, cells in out]
    rows.append(f"<tr><th class='l' colspan='{len(cols) + 1}'>disturbance (not a factor)</th></tr>")
    for k, label in DISTURBANCE:
        cells = "".join(_cell(c["hierarchy"]["disturbance"].get(k), lambda v: disturbance_text(k, v)) for c in cols)
        rows.append(f"<tr><td class='l'>{html_text(label)}</td>{cells}</tr>")
    return rows


def table_html(table: dict) -> str:
    """One group and backend: its heading, its table (when a column was recorded) and its notes."""
    e = html_text
    parts = [f"<h3>{e(table['title'])}: {e(table['backend'])}</h3>"]
    if sentence := where_it_went(table):
        parts.append(f"<p>{e(sentence)}</p>")
    if any(c["hierarchy"]["count"] is not None for c in table["columns"]):
        head = "".join(f"<th>{e(c['label'])}</th>" for c in table["columns"])
        what = "ranks x threads" if any(c.get("ranks") for c in table["columns"]) else "threads"
        parts.append(f"<table class='pop'><tr><th class='l'>{what}</th>{head}</tr>{''.join(_rows(table))}</table>")
    notes = absent_notes(table) + spread_notes(table)
    if notes:
        parts.append("<ul class='small'>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    return "".join(parts)


def hierarchy_html(doc: dict) -> str:
    """The section; empty where no group has a CPU backend at 2 or more threads."""
    tables = pop_tables(doc)
    if not tables:
        return ""
    return INTRO.format(good=GOOD, fair=FAIR) + "".join(table_html(t) for t in tables)


__all__ = ["hierarchy_html", "table_html"]
