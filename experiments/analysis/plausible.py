"""Results that cannot be right, marked where they are shown: the table's mark column,
a footer line for each rule met, and the report's first screen. The rules, each checked against
the record's own row (table.groups: its speedup over the group's serial record, else the same
backend's 1-worker record) and the run's context:

* `?` a speedup above the logical CPUs the record used (more than 1.1x its workers, so rounding
  and a noisy baseline alone do not trip it): superlinear, from a slowed baseline, or from arrays
  that fit the caches of many cores and not of one. A 1-worker record over 1.2x serial is one too.
* `~` more workers than the CPUs free when the run started (its logical CPUs less the 1-minute
  load average, rounded): the record shared its CPUs with other work, whatever its spread says.
* `^` above its roof: the whole interval of its share over 1 (share_interval.py), where the run
  measured the roof again at its end; its limit's above_roof says by how much. A record of a run
  without that interval is not marked (its limit says so, as it always did).

A mark says "look again", not "wrong": the record keeps its numbers."""
from __future__ import annotations

SUPERLINEAR = 1.1  # a speedup over this many times the workers is marked
ONE_WORKER = 1.2   # a 1-worker record over this many times serial is marked

RULES = {
    "?": "implausible: a speedup above the CPUs used (over {sl:.1f}x the workers, or a 1-worker record over "
         "{ow:.1f}x serial); measure again, or read it as cache effects".format(sl=SUPERLINEAR, ow=ONE_WORKER),
    "~": "more workers than CPUs free at the start (logical CPUs less the load average): the record shared its CPUs",
    "^": "above its roof: the whole interval of its share (its quartiles against the lowest and highest roof "
         "measured in the run) over 1",
}


def free_cpus(doc: dict) -> int | None:
    """The CPUs free when the run started, or None where its context does not say."""
    ctx = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    cpu = ctx.get("cpu") if isinstance(ctx.get("cpu"), dict) else {}
    cpus, load = cpu.get("logical_cpus"), ctx.get("load_average_1min")
    if not isinstance(cpus, int) or not isinstance(load, (int, float)):
        return None
    return max(0, int(cpus - load + 0.5))


def marks(row: dict, free: int | None) -> str:
    """The plausibility marks of one table row (table._row plus its speedup)."""
    out = ""
    workers = (row.get("threads") or 1) * (row.get("ranks") or 1)
    speedup = row.get("speedup")
    if speedup is not None and row.get("backend") != "serial":
        if speedup > (ONE_WORKER if workers == 1 else SUPERLINEAR * workers):
            out += "?"
    if free is not None and row.get("rate") is not None and workers > free and row.get("kind") != "gpu":
        out += "~"
    if row.get("above"):
        out += "^"
    return out


def implausible(doc: dict, rows: list) -> list[dict]:
    """Every marked row as {what, marks, why}: the report's list."""
    out = []
    for x in rows:
        m = x.get("plausible", "")
        if m:
            out.append({"what": f"{x['backend']} {x['kernel']} t={x['threads']}" +
                                (f" ranks={x['ranks']}" if x.get("ranks") else "") +
                                (f" speedup {x['speedup']:.2f}x" if x.get("speedup") is not None else ""),
                        "marks": m, "why": "; ".join(RULES[c] for c in m)})
    return out
