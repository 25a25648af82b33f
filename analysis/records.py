"""Loading a run: results.json checked against what the figures need, the record's family that
routes it to its figures, and the record helpers every figure shares."""
from __future__ import annotations

import datetime
import json
import math
import os
import sys

from analysis.read import InputError, read_json  # noqa: F401 (InputError: figures' callers import it from here)
from analysis.spread import spread, unstable_reason
from analysis.untrusted import visible
from analysis.validate import check_results, unusable_number
from analysis.workers import check_sizes, check_workers

SCHEMA = "parlab-results/5"
# A run of schema /4 is read as it is: /5 added only the pooled rounds of a run made in rounds
# (`pooled`), without which such a run is refused naming `parlab migrate` (pool_rounds).
# A run of schema /3 is read as it is: /4 added only the notes of records above their roof or
# in-core bound (which the figures show where present) and took the writing machine's paths out.
# A run of /2 is read as /3: its records lacked only what their repetitions give (the quartiles,
# the median's interval and the unstable mark), filled in here as the runner would. `parlab
# migrate` writes both into the file (docs/records.md, "Runs of an older schema").
BEFORE_SPREAD = "parlab-results/2"
READABLE_SCHEMAS = (SCHEMA, "parlab-results/4", "parlab-results/3", BEFORE_SPREAD)
# Runs of an older schema are not read here: `parlab migrate` brings them to this one in place,
# with what only the catalogue knows (docs/records.md, "Runs of an older schema").
OLD_SCHEMAS = ("parlab-results/1",)
# A record's family routes it to its figures (figure modules never list kernel names). Every record
# of this schema carries `family`: the catalogue's (core/kernel_catalogue.cpp), or for a wing's own
# kernels the wing's.
# The lab (race lab and overhead probes) gets figures of its own, never speed figures.
LAB_FAMILIES = ("race", "overhead")


def family_of(r: dict) -> str:
    """The record's kernel family (its `family`; empty on a record that carries none)."""
    family = r.get("family")
    return family if isinstance(family, str) else ""


def processor_of(r: dict) -> str:
    """"gpu" or "cpu": where the record ran, its `processor` field (set from the backend's
    registry entry, docs/records.md). The fallback is for OLDER records only, written before the
    field existed: the rule of those days, kind "gpu" or "cuda" in the backend's name (the same as
    experiments/machine/limit.cpp's record_on_gpu; it put py-cupy and py-torch on the CPU)."""
    p = r.get("processor")
    if isinstance(p, str):
        return "gpu" if p == "gpu" else "cpu"
    return "gpu" if r.get("kind") == "gpu" or "cuda" in str(r.get("backend", "")) else "cpu"


def kernels_in_order(records) -> list:
    """The records' kernels, each once, in the order the run measured them first (a plan runs
    kernels in its suite's order, else the catalogue's)."""
    return list(dict.fromkeys(r["kernel"] for r in records))




def _runs_under(d: str) -> dict:
    """{host: [run directory]} of the folders below d holding a results.json, d an --out directory
    (<host>/<stamp>/results.json) or one host's folder (<stamp>/results.json, host ""). Links are
    skipped: a "latest" link would count a run twice."""
    runs: dict = {}
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if os.path.islink(p) or not os.path.isdir(p):
            continue
        if os.path.isfile(os.path.join(p, "results.json")):
            runs.setdefault("", []).append(p)
            continue
        for stamp in sorted(os.listdir(p)):
            q = os.path.join(p, stamp)
            if not os.path.islink(q) and os.path.isfile(os.path.join(q, "results.json")):
                runs.setdefault(name, []).append(q)
    return runs


def run_started(run_dir: str):
    """When the run in run_dir started: its results.json's context.started_utc as an aware
    datetime (UTC where it names no zone); None where the folder holds no readable run with one."""
    try:
        doc = read_json(os.path.join(run_dir, "results.json"))
    except InputError:
        return None
    ctx = doc.get("context") if isinstance(doc, dict) else None
    stamp = ctx.get("started_utc") if isinstance(ctx, dict) else None
    try:
        started = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        return None
    utc = datetime.timezone.utc
    return started.astimezone(utc) if started.tzinfo else started.replace(tzinfo=utc)


def resolve_run(path: str) -> str:
    """The run a path names: a results.json, a run directory, or a folder of runs (the --out
    directory of `parlab run`, or one host's folder in it). Of a folder, the newest run by the
    start its results.json records (context.started_utc, never the folder's name: a copy named
    `latest` or `zz-old` is no newer for its name), said on stderr with the folders that hold no
    run ignored; runs of several hosts there are listed, and the user asked to name one
    (InputError)."""
    if not os.path.isdir(path) or os.path.exists(os.path.join(path, "results.json")):
        return path
    try:
        runs = _runs_under(path)
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    if not runs:
        raise InputError(f"{path}: no results.json here or in the runs below it (give a run directory)")
    if len(runs) > 1:
        hosts = ", ".join(os.path.join(path, h) for h in sorted(runs) if h)
        raise InputError(f"{path} holds runs of several hosts; name one: {hosts}")
    (found,) = runs.values()
    started = [(when, os.path.basename(d), d) for d in found for when in [run_started(d)] if when]
    if not started:
        raise InputError(f"{path}: no run below it records when it started (context.started_utc); "
                         "give a run directory")
    when, _, newest = max(started)  # two runs of one second: the runner's suffix orders them
    if len(found) > 1:
        ignored = len(found) - len(started)
        print(visible(f"parlab: {path} holds {len(started)} runs; using the newest, {newest} (started "
                      f"{when:%Y-%m-%dT%H:%M:%SZ})" + (f"; {ignored} folder(s) with no run's start time "
                                                       "ignored" if ignored else "")), file=sys.stderr)
    return newest


def load_run(run_dir: str) -> dict:
    run_dir = resolve_run(run_dir)
    path = os.path.join(run_dir, "results.json") if os.path.isdir(run_dir) else run_dir
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a JSON object")
    if doc.get("schema") in OLD_SCHEMAS:
        raise InputError(f"{path}: written by an older parlab (schema {doc['schema']!r}); "
                         f"`parlab migrate {run_dir}` brings it to {SCHEMA!r} in place")
    if doc.get("schema") not in READABLE_SCHEMAS:
        raise InputError(f"{path}: schema is {doc.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("context", "records", "status"):
        if key not in doc:
            raise InputError(f"{path}: missing key {key!r}")
    if not isinstance(doc["records"], list):
        raise InputError(f"{path}: 'records' must be a list")
    if not isinstance(doc["context"], dict):
        raise InputError(f"{path}: 'context' must be an object, not {type(doc['context']).__name__}")
    # A number no arithmetic can take (400 digits, NaN) is refused naming its field before any
    # check below does arithmetic on it.
    found = unusable_number(doc)
    if found:
        check_results(doc, path, doc["schema"])
    for i, r in enumerate(doc["records"]):
        if not isinstance(r, dict):
            raise InputError(f"{path}: record {i} must be an object, not {type(r).__name__}")
        for key in ("kernel", "backend", "threads", "size", "status"):
            if key not in r:
                raise InputError(f"{path}: record {i} lacks {key!r}")
        if r["status"] == "ok":
            t = r.get("time_s")
            # NaN compares false with everything, so "<= 0" alone lets it through.
            if not (isinstance(t, dict) and isinstance(t.get("median"), (int, float))
                    and math.isfinite(t["median"]) and t["median"] > 0):
                raise InputError(f"{path}: record {i} ({r['kernel']} {r['backend']}) has no finite positive median time")
            if "reps_s" in r and not isinstance(r["reps_s"], list):
                raise InputError(f"{path}: record {i} ({r['kernel']} {r['backend']}): reps_s must be a list")
    if doc["schema"] == BEFORE_SPREAD:
        for r in doc["records"]:
            with_spread(r)
    # Every field the analysis reads, typed: a run from elsewhere is untrusted input, and a
    # wrong type would otherwise end as a traceback in whichever figure met it first.
    check_sizes(doc, path)  # a block of a million events refused before the schema takes a minute over it
    check_results(doc, path, doc["schema"])
    check_workers(doc, path)  # what the schema cannot say: arrays that agree with the workers they count
    doc["_path"] = path
    doc["records"] = pool_rounds(doc["records"], doc.get("pooled"), path)
    return doc


def with_spread(r: dict) -> None:
    """A record of schema /2 as /3: time_s the spread of its repetitions, and its unstable mark."""
    reps = r.get("reps_s")
    if r.get("status") != "ok" or not isinstance(reps, list) or not reps:
        return
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in reps):
        return
    r["time_s"] = spread(reps)
    reason = unstable_reason(r["time_s"])
    if reason:
        r["unstable"] = reason


def pool_rounds(records: list, pooled, where: str) -> list:
    """One record per measurement of a run made in rounds, as the run's `pooled` says: its figures
    are derived where the run is made (experiments/run/pool_rounds.hpp), and none here. Each
    measurement is its first round's record with the pooled time_s, unstable, inner, rate, limit
    and workers (absent where the pooled entry has none), reps_s its rounds' in round order,
    `rounds` the count and `round_records` the rounds' own records; one with a failed round is that
    round's record (a failure stays a failure). Records without `round` pass through unchanged, in
    order. `pooled` is untrusted: it must cover every record of a round exactly once."""
    if not any(isinstance(r, dict) and r.get("round") is not None for r in records):
        return records
    if pooled is None:
        raise InputError(f"{where}: a run in rounds without its rounds pooled (written before parlab pooled them "
                         "where it runs them); `parlab migrate` on the run adds them")
    if not isinstance(pooled, list):
        raise InputError(f"{where}: 'pooled' must be a list")
    entry_of, first_of = {}, {}
    for k, p in enumerate(pooled):
        idx = p.get("records") if isinstance(p, dict) else None
        if not (isinstance(idx, list) and idx and all(type(i) is int and 0 <= i < len(records) for i in idx)):
            raise InputError(f"{where}: pooled[{k}]: 'records' must list indexes of records (0 to {len(records) - 1})")
        failed = p.get("failed")
        if failed is not None and failed not in idx:
            raise InputError(f"{where}: pooled[{k}]: its failed round, record {failed!r}, is not one of its records")
        if p.get("failed") is None and not isinstance(p.get("time_s"), dict):
            raise InputError(f"{where}: pooled[{k}]: neither a failed round nor its pooled time_s")
        for i in idx:
            if i in entry_of:
                raise InputError(f"{where}: record {i} is pooled twice (pooled[{entry_of[i]}] and pooled[{k}])")
            if not isinstance(records[i], dict) or records[i].get("round") is None:
                raise InputError(f"{where}: pooled[{k}] names record {i}, which is of no round")
            entry_of[i] = k
        first_of[min(idx)] = k
    out = []
    for i, r in enumerate(records):
        if isinstance(r, dict) and r.get("round") is not None and i not in entry_of:
            raise InputError(f"{where}: record {i} is of round {r['round']!r} but in no entry of 'pooled'; "
                             "`parlab migrate` on the run pools its rounds again")
        if i in first_of:
            out.append(_pooled(records, pooled[first_of[i]]))
        elif i not in entry_of:
            out.append(r)
    return out


POOLED_FIELDS = ("time_s", "unstable", "inner", "rate", "limit", "workers")


def _pooled(records: list, entry: dict) -> dict:
    rounds = [records[i] for i in entry["records"]]
    if entry.get("failed") is not None:
        first = dict(records[entry["failed"]])
    else:
        first = dict(rounds[0])
        for key in POOLED_FIELDS:
            first.pop(key, None)
            if key in entry:
                first[key] = entry[key]
        first["reps_s"] = [x for r in rounds for x in (r.get("reps_s") or [])]
        # A trace is one repetition's events, kept by its round's record, not pooled: the first
        # round's, whose repetitions come first in reps_s, so its `rep` indexes them as it is.
        trace = (rounds[0].get("workers") or {}).get("trace") if isinstance(rounds[0].get("workers"), dict) else None
        if isinstance(first.get("workers"), dict) and trace is not None:
            first["workers"] = dict(first["workers"], trace=trace)
    first.pop("round", None)
    first["rounds"], first["round_records"] = len(rounds), rounds
    return first


def rate_of(r: dict):
    """The headline rate of a record and its unit."""
    rate = r.get("rate", {})
    if "samples_per_s" in rate:
        return rate["samples_per_s"], "samples/s"
    # Compute-bound (a matrix product), or a kernel that moves no bytes at all (one of another project's).
    if "flops_per_s" in rate and (arithmetic_intensity(r) >= 1 or not r.get("work", {}).get("bytes")):
        return rate["flops_per_s"], "flop/s"
    if "bytes_per_s" in rate:
        return rate["bytes_per_s"], "B/s"
    return None, ""


def element_bytes(r: dict) -> int:
    return {"double": 8, "float": 4, "int32": 4}.get(r.get("precision"), 8)


def footprint_bytes(r: dict) -> float:
    """Bytes of every array the record's workload allocated (work.footprint_bytes); None where it
    allocated none."""
    return r.get("work", {}).get("footprint_bytes")


def fastest_bytes_per_s(r: dict):
    """Bytes/s of the record's fastest iteration: a peer's own figure (metrics.peer_bytes_per_s,
    BabelStream's fastest of its iterations; of pooled rounds, the fastest round's), else work
    over the fastest repetition where each repetition was one iteration (inner 1: the run set no
    minimum repetition time); None without bytes, or where a repetition's time was a mean over
    several iterations (as a likwid-bench record's always is: metrics.peer_mean_bytes_per_s)."""
    if r.get("round_records"):  # pooled rounds: the fastest of them
        each = [fastest_bytes_per_s(x) for x in r["round_records"]]
        return max(each) if all(each) else None
    own = (r.get("metrics") or {}).get("peer_bytes_per_s")
    if own:
        return own
    if "peer_mean_bytes_per_s" in (r.get("metrics") or {}):
        return None  # a peer that reports only means (likwid-bench): each repetition is a mean of many
    moved, fastest = r.get("work", {}).get("bytes"), r.get("time_s", {}).get("min")
    return moved / fastest if moved and fastest and r.get("inner", 1) == 1 else None


def arithmetic_intensity(r: dict) -> float:
    """Flops per byte moved (work.flops / work.bytes); 0 without bytes."""
    work = r.get("work", {})
    return work.get("flops", 0) / work["bytes"] if work.get("bytes") else 0.0


def ok_records(doc: dict, lab: bool = False):
    """Valid records of the canonical kernels (lab=False) or of the lab (lab=True)."""
    return [r for r in doc["records"] if r["status"] == "ok" and (family_of(r) in LAB_FAMILIES) == lab]


# ---------------------------------------------------------------- MPI: ranks x threads
# A record measured by an MPI job carries `ranks` (with `ranks_per_node` and `hosts`); a record
# of one process has none. Everything groups by those fields and by `threads` (per rank), never
# by backend names, which are labels for people (docs/records.md, "Dimensions that compose").
def ranks_of(r: dict):
    """The MPI job size of a record, None for one process."""
    n = r.get("ranks")
    return int(n) if isinstance(n, (int, float)) and n >= 1 else None


def workers(r: dict) -> int:
    """Threads the record ran on in all: ranks x threads for an MPI job, threads otherwise."""
    return (ranks_of(r) or 1) * int(r["threads"])


def per_op_us(r: dict) -> float:
    """Microseconds per operation of a probe or an overhead construct: size counts the calls."""
    return r["time_s"]["median"] / max(r["size"], 1) * 1e6
