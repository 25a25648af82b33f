"""Results that cannot be right, marked where they are shown: the table's mark column,
a footer line for each rule met, and the report's first screen. The rules, each checked against
the record's own row (table.groups: its speedup over the group's serial record, else the same
backend's 1-worker record) and the run's context:

* `?` a speedup above the logical CPUs the record used (more than 1.1x its workers, so rounding
  and a noisy baseline alone do not trip it): superlinear, from a slowed baseline, or from arrays
  that fit the caches of many cores and not of one. A 1-worker record over 1.2x serial is one too.
* `~` the record shared its CPUs, by its own measurement over its timed repetitions (its `machine`
  block, made by the runner: more workers than CPUs, other processes' time that did not fit beside
  its workers, or its accounted workers runnable but not running 5% of their time), whatever its
  spread says. A record made before it measured this gets no `~`, and the footer says so; so does
  one whose work ran where the runner accounts no workers (an MPI job's ranks without accounted
  workers, a peer's program, a process pool's or Dask's workers, a library's threads), whose CPU
  time it cannot tell from other processes': its `machine.unmeasured` says so (older records of
  an MPI job or a peer are told by their kind).
* `^` above its roof: the whole interval of its share over 1 (share_interval.py), where the run
  measured the roof again at its end; its limit's above_roof says by how much. A record of a run
  without that interval is not marked (its limit says so, as it always did).

A mark says "look again", not "wrong": the record keeps its numbers."""
from __future__ import annotations

from analysis.spread import UNSTABLE_CV

SUPERLINEAR = 1.1  # a speedup over this many times the workers is marked
ONE_WORKER = 1.2   # a 1-worker record over this many times serial is marked

# The table's `!`: a record whose repetitions (or rounds) disagree, its `unstable`.
UNSTABLE = f"unstable: CV over {UNSTABLE_CV:.0%}; measure again with more --reps or --rounds"

RULES = {
    "?": "implausible: a speedup above the CPUs used (over {sl:.1f}x the workers, or a 1-worker record over "
         "{ow:.1f}x serial); measure again, or read it as cache effects".format(sl=SUPERLINEAR, ow=ONE_WORKER),
    "~": "the record shared its CPUs, by its own measurement over its repetitions (its workers beside other "
         "processes' time, or more workers than CPUs): see each record's reason in report.html",
    "^": "above its roof: the whole interval of its share (its quartiles against the lowest and highest roof "
         "measured in the run) over 1",
}


# The footer's lines where some record could not be judged for `~`: one made before the runner
# measured other processes' time, or one whose work ran where the runner accounts no workers,
# whose CPU time it cannot tell from another program's and which it does not measure.
NOT_MEASURED = "no `~` judged for {n} record(s) made before parlab measured other processes' time per record"
OWN_PROCESSES = ("no `~` judged for {n} record(s) whose work ran where parlab accounts no workers (processes of "
                 "their own: an MPI job's ranks, a peer's program, a process pool or Dask; or a library's "
                 "threads): other processes' time is not told from theirs")
# Kinds whose records made before `machine.unmeasured` existed ran in processes of their own.
OWN_PROCESS_KINDS = ("mpi", "peer")


def shared(row: dict) -> str | None:
    """Why the record shared its CPUs, as its runner measured it (`machine.shared`), else None."""
    m = row.get("record", {}).get("machine")
    return m.get("shared") if isinstance(m, dict) and isinstance(m.get("shared"), str) else None


def unmeasured_why(row: dict) -> str | None:
    """Which footer line a shown record without its own measure of the machine counts under:
    "own_processes" or "before"; None where it measured it, or where `~` does not apply (a record
    whose work ran on a GPU, or one with no rate)."""
    record = row.get("record", {})
    if row["rate"] is None or row["kind"] == "gpu" or record.get("processor") == "gpu" or measured_machine(row):
        return None
    machine = record.get("machine")
    if isinstance(machine, dict) and isinstance(machine.get("unmeasured"), str):
        return "own_processes"
    return "own_processes" if row["kind"] in OWN_PROCESS_KINDS else "before"


def measured_machine(row: dict) -> bool:
    """Whether the record measured the machine's other work over its repetitions."""
    machine = row.get("record", {}).get("machine")
    return isinstance(machine, dict) and "unmeasured" not in machine


def marks(row: dict) -> str:
    """The plausibility marks of one table row (table._row plus its speedup)."""
    out = ""
    workers = (row.get("threads") or 1) * (row.get("ranks") or 1)
    speedup = row.get("speedup")
    # A GPU's speedup over a CPU record says nothing about CPUs used: `?` is the CPU's rule.
    if speedup is not None and row.get("backend") != "serial" and row.get("kind") != "gpu":
        if speedup > (ONE_WORKER if workers == 1 else SUPERLINEAR * workers):
            out += "?"
    if row.get("rate") is not None and shared(row):
        out += "~"
    if row.get("above"):
        out += "^"
    return out


def implausible(doc: dict, rows: list) -> list[dict]:
    """The report's list of results to look at again: each mark once, `!` (unstable) first, as
    {marks: the mark, why: its rule, records: [{what: the marked row's name, reason: its own
    reason or None}]}: a `~` record's own reason (its runner's measurement), since each differs."""
    groups = {}
    for x in rows:
        what = (f"{x['backend']} {x['kernel']} t={x['threads']}" + (f" ranks={x['ranks']}" if x.get("ranks") else "")
                + (f" speedup {x['speedup']:.2f}x" if x.get("speedup") is not None else ""))
        for c in ("!" if x.get("unstable") else "") + x.get("plausible", ""):
            groups.setdefault(c, []).append({"what": what, "reason": shared(x) if c == "~" else None})
    return [{"marks": c, "why": UNSTABLE if c == "!" else RULES[c], "records": groups[c]}
            for c in ("!", "?", "~", "^") if c in groups]
