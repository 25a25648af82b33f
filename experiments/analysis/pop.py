"""Where the speedup went: the POP Centre of Excellence's efficiency hierarchy of every record whose
workers were accounted (workers.py; docs/records.md, "Workers" and "The efficiency hierarchy").

    global efficiency GE     = parallel efficiency x computation scaling
    parallel efficiency PE   = load balance x communication efficiency = mean(useful) / runtime
    load balance LB          = mean(useful) / max(useful)
    communication eff. CE    = max(useful) / runtime    (fork-join, waiting, synchronisation)
    computation scaling CS   = useful time of the reference / sum(useful)
                             ~ instruction x IPC x frequency scaling, where both have counters

useful is each worker's thread CPU time inside the kernel body per run (workers.cpu_s: the wall
time it was runnable but not running, busy_s - cpu_s, is disturbance, not imbalance) and runtime
the record's time per run (workers.runtime_s, the mean over its repetitions); the reference is the record the
results table's speedup is over (table.speedup_base: the group's serial record, else the same
backend at 1 thread), whose useful time is its workers' summed CPU time, or its median time where
it has no accounted workers. So the speedup over mean runtimes = workers x GE / PE_ref exactly,
PE_ref the reference's own mean(useful) / runtime (1 without a workers block); the table's speedup
is over medians and differs by the repetitions' spread. A record of one worker
has every factor 1 by construction: the hierarchy explains what 2 or more workers lost against
the reference, and a one-worker record stays explained by its roof or in-core bound. A factor
that cannot be had is None, with its reason beside it, never a guess."""
from __future__ import annotations

from .figures.labels import fmt_fraction, fmt_percent, significant
from .figures.load import workers
from .table import groups, workers_label
from .workers import accounted, why_absent

# The factors top down, as every view names them; the counter factors only where both records
# have counters.
FACTORS = (("global", "global efficiency"), ("parallel", "parallel efficiency"), ("load_balance", "load balance"),
           ("communication", "communication efficiency"), ("computation", "computation scaling"),
           ("instruction", "instruction scaling"), ("ipc", "IPC scaling"), ("frequency", "frequency scaling"),
           ("product", "their product"))
# Their product is the reference's CPU time over the workers', which is CS: shown beside it as the
# check that the three account for the whole of it.
COUNTER_FACTORS = ("instruction", "ipc", "frequency", "product")
# What else happened on the workers' CPUs, beside the hierarchy (not a factor of it).
DISTURBANCE = (("runnable", "runnable, not running"), ("steal", "steal, most of one CPU"),
               ("others", "other processes, CPUs"), ("switches", "involuntary switches / run"))
# POP's colour scale of an efficiency: at least GOOD green, from FAIR to GOOD orange, below red.
GOOD, FAIR = 0.8, 0.6


def grade(value: float) -> str:
    """"good", "fair" or "poor": where an efficiency falls on POP's scale (GOOD, FAIR)."""
    return "good" if value >= GOOD else "fair" if value >= FAIR else "poor"


def _mean(values: list) -> float:
    return sum(values) / len(values)


NO_USEFUL = "no useful time recorded (every worker's CPU time in the body is 0)"


def _parallel(w: dict) -> tuple[dict, dict]:
    """LB, CE and PE from the record alone: ({factor: value}, {factor: why absent})."""
    useful, runtime = w["cpu_s"], w["runtime_s"]
    if max(useful) <= 0:
        return {}, dict.fromkeys(("load_balance", "communication", "parallel"), NO_USEFUL)
    return {"load_balance": _mean(useful) / max(useful), "communication": max(useful) / runtime,
            "parallel": _mean(useful) / runtime}, {}


def useful_time(ref: dict) -> float:
    """The reference's useful time per run: its workers' summed CPU time, else its median time."""
    w = accounted(ref)
    return sum(w["cpu_s"]) if w else ref["time_s"]["median"]


def reference_efficiency(ref: dict) -> float:
    """PE_ref of the identity: the reference's mean(useful) / runtime, 1 without accounted workers."""
    w = accounted(ref)
    return _mean(w["cpu_s"]) / w["runtime_s"] if w else 1.0


def _computation(w: dict, ref) -> tuple[float | None, str]:
    """(CS, why it is None)."""
    if ref is None:
        return None, "no reference: neither a serial record nor this backend at 1 thread in the group"
    if sum(w["cpu_s"]) <= 0:
        return None, NO_USEFUL
    if useful_time(ref) <= 0:
        return None, "the reference's useful time is 0 (its workers' CPU time in the body)"
    return useful_time(ref) / sum(w["cpu_s"]), ""


def _counter_totals(w: dict):
    """(instructions, cycles, CPU seconds) summed over the workers, or the reason there are none."""
    c = w["counters"]
    if not c.get("available"):
        return f"no counters: {c.get('why', 'the record does not say why')}"
    totals = (sum(c["instructions"]), sum(c["cycles"]), sum(w["cpu_s"]))
    return totals if min(totals) > 0 else "the counters or CPU times sum to zero"


def counter_factors(w: dict, ref) -> tuple[dict, str]:
    """Instruction, IPC and frequency scaling against the reference and their product ({factor:
    value}, why absent): instr_ref / instr, IPC / IPC_ref (IPC = instructions / cycles), f / f_ref
    (f = cycles / CPU s)."""
    mine = _counter_totals(w)
    if isinstance(mine, str):
        return {}, mine
    wref = accounted(ref) if ref is not None else None
    if wref is None:
        return {}, "the reference's counters are " + ("absent: no reference" if ref is None else why_absent(ref))
    theirs = _counter_totals(wref)
    if isinstance(theirs, str):
        return {}, f"the reference has {theirs}"
    (i, c, t), (ir, cr, tr) = mine, theirs
    out = {"instruction": ir / i, "ipc": (i / c) / (ir / cr), "frequency": (c / t) / (cr / tr)}
    out["product"] = out["instruction"] * out["ipc"] * out["frequency"]
    return out, ""


def disturbance(w: dict) -> dict:
    """What else used the workers' CPUs: the share of busy time runnable but not running, the
    largest share of one CPU's window stolen, the CPUs' worth of time other processes used over
    the window, involuntary switches per run."""
    d = w["disturbance"]
    return {"runnable": d["runnable_share"], "steal": max(d["steal"], default=0.0), "others": d["others"],
            "switches": d["switches"]}


def disturbance_text(name: str, value: float) -> str:
    """A disturbance value as every view writes it: switches to two digits, CPUs' worth as a
    fraction ("0.14", "<0.01": a cell stays six wide), a share as a percentage."""
    if name == "others":
        return fmt_fraction(value)
    return significant(value, 2) if name == "switches" else fmt_percent(value)


def hierarchy(r: dict, ref) -> dict:
    """The hierarchy of record r against its reference record ref (None where there is none):
    {"count": workers or None, "values": {factor: value}, "why": {factor: why it is absent},
    "disturbance": {name: value}}."""
    w = accounted(r)
    if w is None:
        return {"count": None, "values": {}, "why": dict.fromkeys((k for k, _ in FACTORS), why_absent(r)),
                "disturbance": {}}
    if w["count"] == 1:  # one worker: nothing lost to parallelism, by construction
        return {"count": 1, "values": dict.fromkeys((k for k, _ in FACTORS), 1.0), "why": {},
                "disturbance": disturbance(w)}
    values, why = _parallel(w)
    cs, cs_why = _computation(w, ref)
    if cs is None:
        why["computation"] = why["global"] = cs_why
    else:
        values["computation"] = cs
    if cs is not None and "parallel" in values:
        values["global"] = values["parallel"] * cs
    why.setdefault("global", why.get("parallel", ""))
    counters, counters_why = counter_factors(w, ref)
    values.update(counters)
    why.update(dict.fromkeys(COUNTER_FACTORS, counters_why) if counters_why else {})
    return {"count": w["count"], "values": values, "why": {k: v for k, v in why.items() if k not in values},
            "disturbance": disturbance(w)}


def predicted_speedup(h: dict, ref) -> float | None:
    """workers x GE / PE_ref: the speedup the hierarchy accounts for (the identity)."""
    if h["count"] in (None, 1) or "global" not in h["values"] or ref is None:
        return None  # one worker's factors are 1 by construction: they account for nothing
    pe_ref = reference_efficiency(ref)
    return h["count"] * h["values"]["global"] / pe_ref if pe_ref > 0 else None


def _in_view(x: dict) -> bool:
    """Whether a results-table row belongs to the hierarchy's views: a measured record that kept
    its workers (an MPI job's: every rank's threads), or of a CPU executor in one process (which
    says "not recorded" when older)."""
    return x["status"] == "ok" and x["valid"] and (
        isinstance(x["record"].get("workers"), dict) or (x["kind"] == "cpu" and x["ranks"] is None))



def pop_tables(doc: dict) -> list:
    """One table per group of the results table (study, kernel, size, precision) and backend that
    ran 2 or more workers: [{"title", "backend", "columns": [{"threads", "ranks", "label",
    "speedup", "hierarchy", "predicted"}]}], columns by ranks, then threads; "label" names the
    column's workers as the results table does ("4", or "2x4" for 2 ranks of 4 threads)."""
    out = []
    for title, rows in groups(doc):
        by_backend: dict = {}
        for x in filter(_in_view, rows):
            by_backend.setdefault(x["backend"], []).append(x)
        for backend, xs in by_backend.items():
            if max(workers(x["record"]) for x in xs) < 2:
                continue
            columns = []
            for x in sorted(xs, key=lambda x: (x["ranks"] or 1, x["threads"])):
                ref = x["base"]["record"] if x.get("base") else None
                h = hierarchy(x["record"], ref)
                columns.append({"threads": x["threads"], "ranks": x["ranks"], "label": workers_label(x), "speedup": x.get("speedup"), "hierarchy": h,
                                "predicted": predicted_speedup(h, ref)})
            out.append({"title": title, "backend": backend, "columns": columns})
    return out


def shown_factors(table: dict) -> list:
    """[(factor, label)] a table shows: the counter factors only where a column of 2 or more
    workers has them (one worker's are 1 by construction, counters or not)."""
    has = any("ipc" in c["hierarchy"]["values"] for c in table["columns"] if (c["hierarchy"]["count"] or 0) > 1)
    return [(k, label) for k, label in FACTORS if has or k not in COUNTER_FACTORS]


def absent_notes(table: dict) -> list:
    """Why each absent cell is blank, one line per reason: "t=2, 4: not recorded" for columns
    without accounted workers, "computation scaling and global efficiency at t=2: why" for a
    factor a column lacks (the factors that lack it for one reason at the same columns together)."""
    unrecorded: dict = {}
    for c in table["columns"]:
        if c["hierarchy"]["count"] is None:
            unrecorded.setdefault(c["hierarchy"]["why"]["global"], []).append(c["label"])
    lacking: dict = {}
    for k, label in FACTORS:
        by_why: dict = {}
        for c in table["columns"]:
            why = c["hierarchy"]["why"].get(k) if c["hierarchy"]["count"] is not None else None
            if why:
                by_why.setdefault(why, []).append(c["label"])
        for why, ts in by_why.items():
            lacking.setdefault((why, ", ".join(ts)), []).append(label)
    return ([f"t={', '.join(ts)}: {why}" for why, ts in unrecorded.items()]
            + [f"{_listed(labels)} at t={ts}: {why}" for (why, ts), labels in lacking.items()])


def _listed(names: list) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


__all__ = ["COUNTER_FACTORS", "DISTURBANCE", "FACTORS", "FAIR", "GOOD", "absent_notes", "counter_factors",
           "disturbance", "disturbance_text", "grade", "hierarchy", "pop_tables", "predicted_speedup", "reference_efficiency",
           "shown_factors", "useful_time"]
