"""Synthetic `workers` blocks as the runner writes them (docs/records.md, "Workers"), for the tests
of the efficiency hierarchy, its views and its checks: built from given busy times, so each test
knows its answer without a machine that measured it."""
from conftest import BASE_DOC, record

import copy


def workers_block(busy, runtime, cpu=None, counters=None, runnable_share=0.0, steal=None, others=0.0,
                  switches=0.0, trace=None):
    """A block of len(busy) workers, accounting on, each on its own CPU; cpu_s (the useful time)
    defaults to busy (nothing runnable);
    counters: (instructions, cycles) per worker, or None for a machine without them."""
    n = len(busy)
    cpu = list(busy) if cpu is None else cpu
    cpus = list(range(n))
    lb = sum(cpu) / n / max(cpu) if max(cpu) > 0 else 0.0  # as the runner writes a block of no useful time
    ce = min(1.0, max(cpu) / runtime)  # as the runner holds it against the two clocks' grain
    reps = 3
    block = {"accounting": "on", "overhead": 0.001, "count": n, "runtime_s": runtime, "busy_s": list(busy),
             "cpu_s": list(cpu), "items": [1000.0] * n, "chunks": [4.0] * n, "switches": [switches / n] * n,
             "cpus": [[c] for c in cpus], "load_balance": [lb] * reps, "communication": [ce] * reps,
             # Every repetition alike, so the median one's figures are the block's means.
             "pop": {"definition": "per-execution", "rep": reps // 2, "runtime_s": runtime, "useful_s": sum(cpu),
                     "load_balance": lb, "communication": ce, "parallel": lb * ce,
                     "range": {"load_balance": [lb, lb], "communication": [ce, ce], "parallel": [lb * ce, lb * ce]}},
             "disturbance": {"window_s": 1.0, "runnable_s": [max(b - c, 0.0) for b, c in zip(busy, cpu)],
                             "runnable_share": runnable_share, "cpus": cpus,
                             "steal": steal if steal is not None else [0.0] * n, "busy": [1.0] * n,
                             "others": others, "switches": switches},
             "counters": {"available": False, "why": "perf_event_open: Permission denied (perf_event_paranoid 3)"}}
    if counters is not None:
        block["counters"] = {"available": True, "instructions": list(counters[0]), "cycles": list(counters[1])}
    block["trace"] = trace if trace is not None else default_trace(busy, runtime)
    return block


def default_trace(busy, runtime):
    """Each worker's busy time as two chunks from the region's start, on its own CPU."""
    events = []
    for w, b in enumerate(busy):
        events += [[w, 0.0, b / 2, w], [w, b / 2, b, w]]
    return {"rep": 1, "runtime_s": runtime, "events": events, "truncated": False}


def accounted(r, busy, runtime=None, **kw):
    """Record r with a workers block of these busy times; runtime defaults to the record's median
    time, so the region is the whole measured run and the identity holds exactly."""
    r["workers"] = workers_block(busy, runtime if runtime is not None else r["time_s"]["median"], **kw)
    return r


def doc_of(records, **context):
    doc = copy.deepcopy(BASE_DOC)
    doc["records"] = records
    doc["context"].update(context)
    return doc


def scaling_records():
    """pi: serial 8 s per run; threads at 1, 2 and 4 workers with accounting, 4 slightly
    unbalanced; pool at 2 without accounting (a record made before it)."""
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])
    t1 = accounted(record(1, "threads", 1, 8.2), [8.1])
    t2 = accounted(record(2, "threads", 2, 4.4), [4.1, 4.2])
    t4 = accounted(record(3, "threads", 4, 2.5), [2.0, 2.1, 2.2, 2.4])
    pool = record(4, "pool", 2, 4.3)
    return [serial, t1, t2, t4, pool]
