"""A record's `workers` block (docs/records.md, "Workers"): what each worker of a CPU executor did
in the record's repetitions, as the runner accounts it. The schema types every field
(results.schema.json, `$defs/workers`); what a schema cannot say is checked here as the run is
read (figures.load.load_run): that every per-worker array holds one value per worker, that the
per-CPU shares match the CPUs they name, that the per-repetition arrays agree, and that a trace
names only the record's workers and ends no chunk before it starts. A run from elsewhere that
breaks one is an InputError (exit 2) naming the record and the field, never a figure drawn from
half a block or a traceback."""
from __future__ import annotations

from .read import InputError
from .validate import validator, where

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
    for i, r in enumerate(doc["records"]):
        found = _long_array(r.get("workers"), limit)
        if found:
            path, length = found
            raise InputError(f"{file}: {where(['records', i, 'workers', *path])}: {length} values, over the "
                             f"{limit} any array of a workers block may hold")


def check_workers(doc: dict, file: str) -> None:
    """InputError naming file, record and field at the first workers block (accounting on) whose
    arrays disagree with one another or with its count; doc has passed the schema."""
    for i, r in enumerate(doc.get("records", [])):
        w = accounted(r)
        if w is None:
            continue
        found = _length_problem(w) or _pop_problem(w) or _trace_problem(w)
        if found:
            path, text = found
            raise InputError(f"{file}: {where(['records', i, 'workers', *path])}: {text}")


__all__ = ["PER_WORKER", "accounted", "check_sizes", "check_workers", "why_absent"]
