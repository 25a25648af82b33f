"""Where the speedup went: the POP Centre of Excellence's efficiency hierarchy of every record whose
workers were accounted (workers.py; docs/records.md, "Workers" and "The efficiency hierarchy").

    global efficiency GE     = parallel efficiency x computation scaling
    parallel efficiency PE   = load balance x communication efficiency
    load balance LB          = mean(useful) / max(useful)
    communication eff. CE    = max(useful) / runtime    (fork-join, waiting, synchronisation)
    computation scaling CS   = useful time of the reference / the workers' summed useful time
                             ~ instruction x IPC x frequency scaling, where both have counters

LB, CE and PE are the record's own (workers.pop), made once where the run is made
(experiments/run/worker_accounting.cpp): POP's figures per execution, those of the repetition whose
time is the median, with their range over the repetitions beside them. This module reads them and
computes only what spans two records: CS and the identity against the reference, the record the
results table's speedup is over (table.speedup_base: the group's serial record, else the same
backend at 1 thread). useful is each worker's thread CPU time inside the kernel body (time a worker
was runnable but not running is disturbance, not imbalance); a record's useful time is that of its
median repetition (workers.pop.useful_s), and a reference without accounted workers counts its
median time. So the speedup over median times = workers x GE / PE_ref, PE_ref the reference's own
parallel efficiency (1 without a workers block). Records made before the per-execution figures
carry means over their repetitions instead (workers.pop without "definition"): they are read as
they are, and each view says which definition a figure used. A record of one worker has every
factor 1 by construction: the hierarchy explains what 2 or more workers lost against the
reference, and a one-worker record stays explained by its roof or in-core bound. A factor that
cannot be had is None, with its reason beside it, never a guess."""
from __future__ import annotations

from analysis.labels import fmt_fraction, fmt_percent, significant
from analysis.records import workers
from analysis.roofs import roof_share, share_text
from analysis.table import groups, workers_label
from analysis.workers import accounted, why_absent

# The factors top down, as every view names them; the counter factors only where both records
# have counters.
FACTORS = (("global", "global efficiency"), ("parallel", "parallel efficiency"), ("load_balance", "load balance"),
           ("communication", "communication efficiency"), ("computation", "computation scaling"),
           ("one_worker", "one worker vs reference"),
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


NO_USEFUL = "no useful time recorded (every worker's running time in the body is 0)"


# What a record's workers.pop without "definition" holds: the figures of its per-run means.
MEANS = "per-run means"
PER_EXECUTION = "per-execution"


def definition(w: dict) -> str:
    """Which definition the record's figures follow: PER_EXECUTION, or MEANS for older records."""
    return w["pop"].get("definition", MEANS)


def _useful(w: dict) -> float:
    """The record's useful time per run: its median repetition's (per-execution), else the sum of
    its workers' means (older records)."""
    u = w["pop"].get("useful_s")
    return u if isinstance(u, (int, float)) else sum(w["cpu_s"])


def _parallel(w: dict) -> tuple[dict, dict]:
    """LB, CE and PE as the record holds them: ({factor: value}, {factor: why absent})."""
    if _useful(w) <= 0:
        return {}, dict.fromkeys(("load_balance", "communication", "parallel"), NO_USEFUL)
    return {k: w["pop"][k] for k in ("load_balance", "communication", "parallel")}, {}


def ranges(w: dict) -> dict:
    """{factor: (low, high)} over the record's repetitions, where it holds them."""
    r = w["pop"].get("range")
    return {k: tuple(v) for k, v in r.items()} if isinstance(r, dict) else {}


def useful_time(ref: dict) -> float:
    """The reference's useful time per run: its workers' (_useful), else its median time."""
    w = accounted(ref)
    return _useful(w) if w else ref["time_s"]["median"]


def reference_efficiency(ref: dict) -> float:
    """PE_ref of the identity: the reference's own parallel efficiency, 1 without accounted workers."""
    w = accounted(ref)
    return w["pop"]["parallel"] if w else 1.0


def _computation(w: dict, ref) -> tuple[float | None, str]:
    """(CS, why it is None)."""
    if ref is None:
        return None, "no reference: neither a serial record nor this backend at 1 thread in the group"
    if _useful(w) <= 0:
        return None, NO_USEFUL
    if useful_time(ref) <= 0:
        return None, "the reference's useful time is 0 (its workers' running time in the body)"
    return useful_time(ref) / _useful(w), ""


def _counter_totals(w: dict):
    """(instructions, cycles, seconds in the body) summed over the workers, or the reason there are
    none. The counters count the body only: a record that says where its run-queue delay came from
    (`disturbance.runnable_source`) keeps `cpu_s` over the worker's whole window, dispatch
    included, so its body's wall time (`busy_s`) is the base; an older record's `cpu_s` was the
    CPU time in the body."""
    c = w["counters"]
    if not c.get("available"):
        return f"no counters: {c.get('why', 'the record does not say why')}"
    windowed = "runnable_source" in (w.get("disturbance") or {})
    totals = (sum(c["instructions"]), sum(c["cycles"]), sum(w["busy_s"] if windowed else w["cpu_s"]))
    return totals if min(totals) > 0 else "the counters or CPU times sum to zero"


def counter_factors(w: dict, ref) -> tuple[dict, str]:
    """Instruction, IPC and frequency scaling against the reference and their product ({factor:
    value}, why absent): instr_ref / instr, IPC / IPC_ref (IPC = instructions / cycles), f / f_ref
    (f = cycles / seconds in the body)."""
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
    """A disturbance value as every view writes it: switches to two digits ("<0.01" below that,
    never a cell of 300 digits for a denormal), CPUs' worth as a fraction ("0.14", "<0.01": a cell
    stays six wide), a share as a percentage."""
    if name == "others":
        return fmt_fraction(value)
    if name == "switches":
        return "<0.01" if 0 < value < 0.01 else significant(value, 2)
    return fmt_percent(value)


def hierarchy(r: dict, ref, own=None) -> dict:
    """The hierarchy of record r against its reference record ref (None where there is none):
    {"count": workers or None, "values": {factor: value}, "why": {factor: why it is absent},
    "disturbance": {name: value}}. Where `own`, the same backend's one-worker record, ran beside a
    reference of another backend, computation scaling is taken against `own` (what more workers
    cost the backend's own computation) and "one_worker" is the reference's useful time over
    own's (the runtime's cost at one worker), so that GE = PE x CS x one_worker still gives the
    table's speedup over the reference."""
    w = accounted(r)
    if w is None:
        return {"count": None, "values": {}, "why": dict.fromkeys((k for k, _ in FACTORS), why_absent(r)),
                "disturbance": {}, "definition": None, "ranges": {}}
    if w["count"] == 1:  # one worker: nothing lost to parallelism, by construction
        return {"count": 1, "values": dict.fromkeys((k for k, _ in FACTORS), 1.0), "why": {},
                "disturbance": disturbance(w), "definition": definition(w), "ranges": {}}
    values, why = _parallel(w)
    cs, cs_why = _computation(w, ref)
    if cs is None:
        why["computation"] = why["global"] = cs_why
    elif own is not None and own is not ref and useful_time(own) > 0:
        values["computation"], values["one_worker"] = useful_time(own) / _useful(w), useful_time(ref) / useful_time(own)
    else:
        values["computation"] = cs
    if cs is not None and "parallel" in values:
        values["global"] = values["parallel"] * cs  # = PE x CS x one_worker where both are shown
    why.setdefault("global", why.get("parallel", ""))
    counters, counters_why = counter_factors(w, ref)
    values.update(counters)
    why.update(dict.fromkeys(COUNTER_FACTORS, counters_why) if counters_why else {})
    return {"count": w["count"], "values": values, "why": {k: v for k, v in why.items() if k not in values},
            "disturbance": disturbance(w), "definition": definition(w), "ranges": ranges(w) if values else {}}


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
    "speedup", "hierarchy", "predicted", "cause", "record"}]}], columns by ranks, then threads; "label" names the
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
            # The backend's own one-worker record, where it ran in one process or one rank.
            own = next((y["record"] for y in xs if y["threads"] == 1 and y["ranks"] in (None, 1)), None)
            for x in sorted(xs, key=lambda x: (x["ranks"] or 1, x["threads"])):
                ref = x["base"]["record"] if x.get("base") else None
                h = hierarchy(x["record"], ref, own)
                columns.append({"threads": x["threads"], "ranks": x["ranks"], "label": workers_label(x), "speedup": x.get("speedup"), "hierarchy": h,
                                "predicted": predicted_speedup(h, ref), "cause": _cause(x["record"]), "record": x["record"]})
            out.append({"title": title, "backend": backend, "columns": columns})
    return out


def _cause(r: dict) -> str | None:
    """The cause the record's own figures give (made where the run was made): its workers' (the
    runner's worker_shortfall), else the in-core bound's shortfall, else, where it ran at POP's
    good share of its roof or above, that roof with the record's share of it (record_limit's):
    more workers cannot take a record past the roof that binds it, so a computation-scaling loss
    beside such a share is the roof's. None where none of these was said."""
    w = r.get("workers")
    if isinstance(w, dict) and isinstance(w.get("cause"), str):
        return w["cause"]
    incore = (r.get("limit") or {}).get("incore") if isinstance(r.get("limit"), dict) else None
    below = incore.get("below") if isinstance(incore, dict) else None
    if isinstance(below, str):
        return below
    share = roof_share(r)
    if share and share["fraction"] >= GOOD:
        return f"it ran at {share_text(r)}: that roof binds it, whatever the workers"
    return None


# The factors a speedup is lost to, in the hierarchy's order: the one furthest below 1 is named.
LOSSES = ("load_balance", "communication", "computation", "one_worker")


def where_it_went(table: dict) -> str | None:
    """One sentence opening a table: at its most workers, the speedup against the ideal, the
    largest loss with its factor, and the record's own cause with its figure; None where that
    column has no factors."""
    cols = [c for c in table["columns"] if (c["hierarchy"]["count"] or 0) > 1 and c["hierarchy"]["values"]]
    if not cols:
        return None
    c = max(cols, key=lambda c: c["hierarchy"]["count"])
    v = c["hierarchy"]["values"]
    losses = [(v[k], k) for k in LOSSES if k in v]
    head = f"At {c['label']} workers"
    if c["speedup"] is not None:
        head += f", {c['speedup']:.2f}x of an ideal {c['hierarchy']['count']}x"
    if not losses or min(losses)[0] >= GOOD:
        loss = "no factor below POP's good (0.8)"
    else:
        value, k = min(losses)
        loss = f"the largest loss is {dict(FACTORS)[k]} {fmt_fraction(value)}"
    cause = c.get("cause")
    return f"{head}: {loss}" + (f"; its record says: {cause}." if cause else "; its record names no cause.")


def shown_factors(table: dict) -> list:
    """[(factor, label)] a table shows: the counter factors only where a column of 2 or more
    workers has them (one worker's are 1 by construction, counters or not)."""
    many = [c for c in table["columns"] if (c["hierarchy"]["count"] or 0) > 1]
    has = any("ipc" in c["hierarchy"]["values"] for c in many)
    one = any("one_worker" in c["hierarchy"]["values"] for c in many)
    return [(k, label) for k, label in FACTORS if (has or k not in COUNTER_FACTORS) and (one or k != "one_worker")]


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


def spread_notes(table: dict) -> list:
    """What the factors of 2 or more workers span over their records' repetitions, one line per
    factor ("parallel efficiency over the repetitions: t=2 0.49–0.62, t=4 0.30–0.41"), and the
    columns whose figures are per-run means (records made before the per-execution figures)."""
    cols = [c for c in table["columns"] if (c["hierarchy"]["count"] or 0) > 1]
    notes = []
    for k, label in FACTORS[1:4]:
        spans = [f"{c['label']} {fmt_fraction(lo)}–{fmt_fraction(hi)}" for c in cols
                 for lo, hi in [c["hierarchy"]["ranges"].get(k, (None, None))] if lo is not None]
        if spans:
            notes.append(f"{label} over the repetitions: t={', '.join(spans)}")
    means = [c["label"] for c in cols if c["hierarchy"]["definition"] == MEANS]
    if means:
        notes.append(f"t={', '.join(means)}: load balance and communication from the per-run means over the "
                     "repetitions (a record made before POP's per-execution figures)")
    return notes


def _listed(names: list) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


__all__ = ["COUNTER_FACTORS", "DISTURBANCE", "FACTORS", "FAIR", "GOOD", "MEANS", "PER_EXECUTION", "absent_notes",
           "counter_factors", "definition", "disturbance", "disturbance_text", "grade", "hierarchy", "ranges", "spread_notes", "pop_tables", "predicted_speedup", "reference_efficiency",
           "shown_factors", "useful_time", "where_it_went"]
