"""A record's `workers` block (docs/records.md, "Workers"): what each worker of a CPU executor did
in the record's repetitions, as the runner accounts it. The schema types every field
(results.schema.json, `$defs/workers`); what a schema cannot say is checked here as the run is
read (records.load_run): that every per-worker array holds one value per worker, that the
per-CPU shares match the CPUs they name, that the per-repetition arrays agree, that a trace
names only the record's workers and ends no chunk before it starts, and that the numbers hold what
their definitions say (count is the record's threads x ranks; times finite, normal and within the
run's wall time, which is the record's; shares within 0..1; counters a CPU could give). A run
from elsewhere that breaks one is an InputError (exit 2) naming the record and the field, never a
figure drawn from half a block, an efficiency of inf or of 300 digits, or a traceback."""
from __future__ import annotations

import math
import sys

from analysis.read import InputError
from analysis.validate import validator, where

# The arrays indexed by worker (index w is worker w), each holding `count` values.
PER_WORKER = ("busy_s", "cpu_s", "items", "chunks", "switches", "cpus")


def accounted(r: dict):
    """The record's workers block where its accounting is on, else None (a record made before
    the field, a backend that keeps none, or accounting switched off: why_absent says which)."""
    w = r.get("workers")
    return w if isinstance(w, dict) and w.get("accounting") == "on" else None


def why_absent(r: dict) -> str:
    """Why a record has no accounted workers, in the words every view uses."""
    w = r.get("workers")
    if not isinstance(w, dict):
        return "not recorded (a record made before per-worker accounting, or of a backend that keeps none)"
    return f"accounting off: {w.get('why', 'the record does not say why')}"


def _length_problem(w: dict):
    """(field path, message) of the first array whose length disagrees with what it counts."""
    n = w["count"]
    if ("ranks" in w) != ("hosts" in w):
        return ("ranks" if "ranks" not in w else "hosts",), "an MPI job's workers name both their ranks and hosts, or neither"
    wanted = [((k,), n) for k in PER_WORKER]
    wanted += [((k,), n) for k in ("ranks", "hosts") if k in w]  # an MPI job's, when present
    wanted.append((("disturbance", "runnable_s"), n))
    cpus = len(w["disturbance"]["cpus"])
    wanted += [(("disturbance", "steal"), cpus), (("disturbance", "busy"), cpus)]
    if w["counters"].get("available"):
        wanted += [(("counters", "instructions"), n), (("counters", "cycles"), n)]
    wanted.append((("communication",), len(w["load_balance"])))
    for path, length in wanted:
        value = w
        for key in path:
            value = value[key]
        if len(value) != length:
            what = "workers.count" if length == n else "the values it is aligned with"
            return path, f"{len(value)} values where {what} says {length}"
    return None


def _pop_problem(w: dict):
    """(field path, message) where the record's POP figures contradict each other: a factor
    outside its own range over the repetitions, a range that ends below its start, a parallel
    efficiency that is not load balance x communication, a median repetition the record lacks."""
    pop = w["pop"]
    pe = pop["load_balance"] * pop["communication"]
    if abs(pop["parallel"] - pe) > 1e-9 * max(1.0, pe):
        return ("pop", "parallel"), (f"{pop['parallel']!r}, where load balance x communication efficiency is "
                                     f"{pe!r}")
    for k, (lo, hi) in (pop.get("range") or {}).items():
        if hi < lo:
            return ("pop", "range", k), f"ends at {hi!r}, below its start {lo!r}"
        if not lo <= pop[k] <= hi:
            return ("pop", k), f"{pop[k]!r}, outside its range over the repetitions [{lo!r}, {hi!r}]"
    if "rep" in pop and pop["rep"] >= len(w["load_balance"]):
        return ("pop", "rep"), f"repetition {pop['rep']} of a record of {len(w['load_balance'])} graded repetitions"
    return None


def _trace_problem(w: dict):
    """(field path, message) of the first trace event that names no worker of the record or ends
    before it starts."""
    for i, (worker, start, end, _cpu) in enumerate(w.get("trace", {}).get("events", [])):
        if worker >= w["count"]:
            return ("trace", "events", i), f"worker {worker} of a record of {w['count']} workers"
        if end < start:
            return ("trace", "events", i), f"ends at {end!r} s, before its start at {start!r} s"
    return None


# What a block's numbers must hold by their own definitions (docs/records.md, "Workers"): a run
# edited by hand or by another tool can pass the schema with a cpu_s of 1e308, and every view would
# then print an efficiency of 1e306 or inf as if it were measured.
# The grain of the two clocks: a worker's CPU time and its wall time are read apart, so one may
# pass the other by a little; 1% and a microsecond cover what the runner writes.
GRAIN_SHARE, GRAIN_S = 0.01, 1e-6
# The most cycles a second a CPU runs and the most instructions it retires a cycle: far above any
# CPU's, so only counters no CPU could have given are refused.
MAX_HZ, MAX_IPC = 20e9, 64.0
# A context switch costs at least a microsecond: no worker is switched more often than that.
MAX_SWITCHES_PER_S = 1e6
# disturbance.others where the record's context names no CPU count: the schema's most workers.
MAX_OTHERS = 4096


def _within_grain(x: float, bound: float) -> bool:
    """Whether x is at most bound, within the clocks' grain (GRAIN_SHARE, GRAIN_S)."""
    return x <= bound * (1 + GRAIN_SHARE) + GRAIN_S


def _time_fields(w: dict):
    """(field path, value) of every time in the block, in seconds."""
    yield ("runtime_s",), w["runtime_s"]
    for k in ("busy_s", "cpu_s"):
        for i, x in enumerate(w[k]):
            yield (k, i), x
    d = w["disturbance"]
    yield ("disturbance", "window_s"), d["window_s"]
    for i, x in enumerate(d["runnable_s"]):
        yield ("disturbance", "runnable_s", i), x
    for k in ("runtime_s", "useful_s"):
        if k in w["pop"]:
            yield ("pop", k), w["pop"][k]
    if "trace" in w:
        yield ("trace", "runtime_s"), w["trace"]["runtime_s"]


def _time_problem(w: dict):
    """(field path, message) of the first time that is not finite, negative or subnormal (a time
    of 5e-324 s is no measurement, and dividing by it gives inf), or of a runtime of 0."""
    for path, x in _time_fields(w):
        if not (isinstance(x, (int, float)) and math.isfinite(x) and x >= 0):
            return path, f"{x!r}, not a finite time of at least 0 s"
        if 0 < abs(x) < sys.float_info.min:
            return path, f"{x!r} s, a subnormal number, not a time any clock reads"
    if not w["runtime_s"] > 0:
        return ("runtime_s",), f"{w['runtime_s']!r} s: a run takes some time"
    return None


def _time_range(r: dict):
    """(low, high) the record's time per run may take a runtime_s within: half its fastest
    repetition to twice its slowest (time_s.min and max; the median where they are absent)."""
    t = r.get("time_s")
    if not isinstance(t, dict) or not isinstance(t.get("median"), (int, float)):
        return None
    lo, hi = t.get("min", t["median"]), t.get("max", t["median"])
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (lo, hi)):
        return None
    return lo / 2, hi * 2


def _runtime_problem(w: dict, r: dict):
    """(field path, message) where the block's wall time per run is not the record's: runtime_s is
    the mean of the same repetitions time_s is the median of, and pop.runtime_s the median
    repetition's, so each lies within _time_range."""
    span = _time_range(r)
    if span is None:
        return None
    lo, hi = span
    for path, x in ((("runtime_s",), w["runtime_s"]), (("pop", "runtime_s"), w["pop"].get("runtime_s"))):
        if x is not None and not lo <= x <= hi:
            return path, (f"{x!r} s per run, where the record's time_s runs from {2 * lo!r} to {hi / 2!r} s "
                          "(a run's wall time lies within half the one and twice the other)")
    return None


def _worker_time_problem(w: dict):
    """(field path, message) of the first worker whose times exceed what contains them: its wall
    time in the body (busy_s) and its CPU time there (cpu_s) lie within the run's wall time; its
    time runnable, not running, within its busy time. cpu_s is held to the run's wall time, not
    to busy_s: a C++ chunk's CPU time counts the dispatch before it (its reading starts at the
    previous chunk's end), which busy_s does not, so cpu_s may pass busy_s by that dispatch."""
    runtime = w["runtime_s"]
    for k in ("busy_s", "cpu_s"):
        for i, x in enumerate(w[k]):
            if not _within_grain(x, runtime):
                return (k, i), f"{x!r} s per run, more than the run's wall time (runtime_s {runtime!r} s)"
    for i, (x, busy) in enumerate(zip(w["disturbance"]["runnable_s"], w["busy_s"])):
        if not _within_grain(x, busy):
            return ("disturbance", "runnable_s", i), f"{x!r} s runnable, more than the worker's busy_s {busy!r} s"
    return None


def _useful_problem(w: dict):
    """(field path, message) where the record's useful time contradicts its POP factors: useful =
    count x load balance x communication x runtime, POP's definitions (mean useful over max useful,
    max useful over runtime) multiplied out, of the median repetition (pop.useful_s and
    pop.runtime_s) or, in a record made before them, of the per-run means (cpu_s summed, and
    runtime_s); the runner holds communication to 1 against the clocks' grain, which the grain
    allows here too. A useful time above 0 but under one cycle (1 / MAX_HZ) is no work done: the
    computation scaling over it would be a number of 300 digits."""
    pop = w["pop"]
    per_execution = "useful_s" in pop and "runtime_s" in pop
    useful = pop["useful_s"] if per_execution else sum(w["cpu_s"])
    runtime = pop["runtime_s"] if per_execution else w["runtime_s"]
    at = ("pop", "useful_s") if per_execution else ("cpu_s",)
    n = w["count"]
    if not _within_grain(useful, n * runtime):
        return at, f"{useful!r} s of CPU time in all, more than {n} workers have in a run of {runtime!r} s"
    if 0 < useful < 1 / MAX_HZ:
        return at, f"{useful!r} s of CPU time in all, less than one cycle of any CPU"
    implied = n * pop["parallel"] * runtime
    if abs(useful - implied) > GRAIN_SHARE * max(implied, useful) + n * GRAIN_S:
        return at, (f"{useful!r} s of CPU time in all, where count x pop.parallel x the run's time is {implied!r} s "
                    "(POP's definitions)")
    return None


def _share_problem(w: dict, r: dict, doc: dict):
    """(field path, message) of the first share outside 0..1 (runnable_share, steal[], busy[]: parts
    of a whole), of others beyond the CPUs there are, or of switches more often than a switch can
    be made or not summing to their total."""
    d = w["disturbance"]
    shares = [(("disturbance", "runnable_share"), d["runnable_share"])]
    shares += [(("disturbance", k, i), x) for k in ("steal", "busy") for i, x in enumerate(d[k])]
    for path, x in shares:
        if not 0 <= x <= 1:
            return path, f"{x!r}, not a share (0 to 1)"
    cpu = doc.get("context", {}).get("cpu")
    logical = cpu.get("logical_cpus") if isinstance(cpu, dict) else None
    most = logical if isinstance(logical, int) and not isinstance(logical, bool) and logical > 0 else MAX_OTHERS
    if not 0 <= d["others"] <= most:
        what = "logical CPUs in its context" if most is logical else "CPUs a record may count"
        return ("disturbance", "others"), f"{d['others']!r} CPUs' worth, more than the {most} {what}"
    # A worker's switches are counted over its window, about the run's time, not only in the body
    # (records made before that counted them in the body, within the run too): a worker busy for a
    # microsecond of a longer run may be switched out while it waits for the next.
    for i, s in enumerate(w["switches"]):
        if s > w["runtime_s"] * MAX_SWITCHES_PER_S + 1:
            return ("switches", i), (f"{s!r} switches per run in a run of {w['runtime_s']!r} s, more than one "
                                     "a microsecond")
    total = sum(w["switches"])
    if abs(d["switches"] - total) > 1e-6 * max(1.0, total):
        return ("disturbance", "switches"), f"{d['switches']!r}, where the workers' switches sum to {total!r}"
    return None


def _counter_problem(w: dict):
    """(field path, message) of the first worker whose counters no CPU could give: more cycles
    than MAX_HZ over its CPU time (within the clocks' grain), or more instructions than MAX_IPC a
    cycle."""
    c = w["counters"]
    if not c.get("available"):
        return None
    for i, (ins, cyc, cpu) in enumerate(zip(c["instructions"], c["cycles"], w["cpu_s"])):
        if cyc > MAX_HZ * (cpu + GRAIN_S):
            return ("counters", "cycles", i), (f"{cyc!r} cycles in {cpu!r} s of CPU time, over the {MAX_HZ:.0e} Hz "
                                               "no CPU runs at")
        if ins > MAX_IPC * max(cyc, 1.0):
            return ("counters", "instructions", i), (f"{ins!r} instructions in {cyc!r} cycles, over the "
                                                     f"{MAX_IPC:g} a cycle no CPU retires")
    return None


def _count_problem(w: dict, r: dict):
    """(field path, message) where workers.count is not the record's threads x ranks."""
    threads, ranks = r.get("threads"), r.get("ranks", 1)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (threads, ranks)):
        return None  # the schema names a wrong type; nothing to hold count against
    if w["count"] != threads * ranks:
        job = f"{ranks} ranks x {threads} threads" if "ranks" in r else f"{threads} thread{'s' if threads != 1 else ''}"
        return ("count",), f"{w['count']} workers in a record of {job}"
    return None


def _consistency_problem(w: dict, r: dict, doc: dict):
    """The first of the checks above that a block fails, in the order a reader would fix them."""
    return (_time_problem(w) or _runtime_problem(w, r) or _worker_time_problem(w) or _useful_problem(w)
            or _share_problem(w, r, doc) or _counter_problem(w))


def _long_array(value, limit: int, path=()):
    """(path, length) of the first array in value longer than limit, or None."""
    if isinstance(value, list) and len(value) > limit:
        return path, len(value)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = _long_array(v, limit, path + (k,))
        if found:
            return found
    return None


def check_sizes(doc: dict, file: str) -> None:
    """Before the schema: InputError at the first array of a workers block longer than the most
    workers a record may have (the schema's workers.count maximum), so that a block of a million
    trace events is refused at once, not checked item by item for a minute."""
    limit = validator(doc["schema"]).schema["$defs"]["workers"]["properties"]["count"]["maximum"]
    pooled = doc.get("pooled") if isinstance(doc.get("pooled"), list) else []
    blocks = [(["records", i], r) for i, r in enumerate(doc["records"])] + [(["pooled", k], p) for k, p in enumerate(pooled)]
    for at, r in blocks:
        found = _long_array(r.get("workers") if isinstance(r, dict) else None, limit)
        if found:
            path, length = found
            raise InputError(f"{file}: {where([*at, 'workers', *path])}: {length} values, over the "
                             f"{limit} any array of a workers block may hold")


def check_workers(doc: dict, file: str) -> None:
    """InputError naming file, record and field at the first workers block (accounting on) whose
    count is not the record's, whose arrays disagree with one another or with its count, or whose
    numbers contradict their own definitions (_consistency_problem); doc has passed the schema."""
    records = doc.get("records", [])
    blocks = [(["records", i], r) for i, r in enumerate(records)]
    # A run in rounds: each pooled block against its measurement's first round with the pooled
    # figures (records.pool_rounds refuses an entry that names no record).
    for k, p in enumerate(doc.get("pooled") or []):
        idx = p.get("records") if isinstance(p, dict) else None
        if isinstance(idx, list) and idx and type(idx[0]) is int and 0 <= idx[0] < len(records) \
                and isinstance(records[idx[0]], dict):
            pooled = {key: p[key] for key in ("time_s", "inner", "rate", "limit", "workers") if key in p}
            reps = [x for i in idx if type(i) is int and 0 <= i < len(records) and isinstance(records[i], dict)
                    for x in (records[i].get("reps_s") or [])]
            blocks.append((["pooled", k], dict(records[idx[0]], reps_s=reps, **pooled)))
    for at, r in blocks:
        w = accounted(r)
        if w is None:
            continue
        found = (_count_problem(w, r) or _length_problem(w) or _consistency_problem(w, r, doc) or _pop_problem(w)
                 or _trace_problem(w))
        if found:
            path, text = found
            raise InputError(f"{file}: {where([*at, 'workers', *path])}: {text}")


__all__ = ["PER_WORKER", "accounted", "check_sizes", "check_workers", "why_absent"]
