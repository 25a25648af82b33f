"""The efficiency hierarchy in the terminal (`parlab report RUN --summary pop`): per kernel group
and backend, the factors as rows and the thread counts as columns (pop.pop_tables), within the
terminal's width: columns that do not fit go to a second block below, and the reason for every
blank cell follows its table, wrapped, never cut."""
from __future__ import annotations

from analysis.labels import fmt_fraction, fmt_speedup
from analysis.pop import DISTURBANCE, absent_notes, disturbance_text, pop_tables, shown_factors, spread_notes, where_it_went
from analysis.terminal import hanging, terminal_width
from analysis.untrusted import plain_strings

BLANK = "-"  # a cell without a value: the lines under the table say why
CELL = 6  # the widest cell: "11.74x", "100.0%"
IDENTITY = "workers x GE / PE_ref"


def _rows(table: dict) -> list:
    """[(label, [cell text per column])] of one table: the speedup and what the hierarchy accounts
    for, the factors, then the disturbance."""
    cols = table["columns"]
    rows = [("speedup", [fmt_speedup(c["speedup"]) if c["speedup"] is not None else BLANK for c in cols]),
            (IDENTITY, [fmt_speedup(c["predicted"]) if c["predicted"] is not None else BLANK for c in cols])]
    for k, label in shown_factors(table):
        rows.append((label, [fmt_fraction(c["hierarchy"]["values"][k]) if k in c["hierarchy"]["values"] else BLANK
                             for c in cols]))
    for k, label in DISTURBANCE:
        rows.append((label, [disturbance_text(k, c["hierarchy"]["disturbance"][k])
                             if k in c["hierarchy"]["disturbance"] else BLANK for c in cols]))
    return rows


def _block(rows: list, head: str, threads: list, lo: int, hi: int, label_w: int) -> list:
    """The lines of columns lo..hi of one table."""
    # A space before every cell, so a cell wider than CELL pushes the row out but never runs into
    # its neighbour.
    lines = ["  " + head.ljust(label_w) + "".join(" " + str(t).rjust(CELL) for t in threads[lo:hi])]
    for label, cells in rows:
        lines.append("  " + label.ljust(label_w) + "".join(" " + c.rjust(CELL) for c in cells[lo:hi]))
    return lines


def render_table(table: dict, width: int) -> list:
    """The lines of one table within `width`: its title, its blocks of columns, its notes."""
    rows = _rows(table)
    threads = [c["label"] for c in table["columns"]]
    head = "ranks x threads" if any(c.get("ranks") for c in table["columns"]) else "threads"
    label_w = min(max(len(label) for label, _ in rows), width // 2)
    rows = [(label[:label_w], cells) for label, cells in rows]
    per_block = max((width - 2 - label_w) // (CELL + 1), 1)
    title = f"{table['title']}  {table['backend']}"
    lines = [title if len(title) <= width else title[: width - 1] + "…"]
    if sentence := where_it_went(table):
        lines += hanging("  ", sentence, width)
    recorded = any(c["hierarchy"]["count"] is not None for c in table["columns"])
    for lo in range(0, len(threads) if recorded else 0, per_block):  # nothing recorded: the note alone
        lines += _block(rows, head, threads, lo, lo + per_block, label_w)
    for note in absent_notes(table):
        lines += hanging(f"  {BLANK} ", note, width)
    for note in spread_notes(table):
        lines += hanging("  ~ ", note, width)
    return lines + [""]


FOOTER = ("GE = PE x CS (x one worker vs reference, where shown); PE (parallel) = load balance x "
          "communication, POP's figures per execution: those of the repetition whose time is the median; useful "
          "time: a worker's running time in the body; CS: the backend's own one-worker useful time over the workers' "
          "summed, where the group has that record (else the speedup's reference's); one worker vs reference: "
          "the reference's useful time over the backend's one worker's, the runtime's cost at one worker; one "
          "worker: every factor 1 by construction. POP reads 0.8 and over as good, below 0.6 as poor. "
          "Disturbance: the share of busy time runnable but not running, the most of one CPU's window stolen, the "
          "CPUs' worth of time other processes used.")


def render_pop(doc: dict, width: int | None = None) -> str:
    """The hierarchy of every group and backend of doc, within width (terminal_width() if None)."""
    width = terminal_width() if width is None else width
    tables = pop_tables(plain_strings(doc))  # every text fit for a terminal before it is measured
    if not tables:
        return "\n".join(hanging("", "No record of 2 or more CPU workers: the efficiency hierarchy has nothing "
                                     "to explain.", width)) + "\n"
    lines = [x for t in tables for x in render_table(t, width)]
    return "\n".join(lines + hanging("", FOOTER, width)) + "\n"


__all__ = ["render_pop"]
