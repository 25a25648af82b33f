"""Loading a run: results.json checked against what the figures need, the kernel sets that
route records to their figures, and the record helpers every figure shares."""
from __future__ import annotations

import json
import os

SCHEMA = "parlab-results/1"
# The race lab and the overhead probes get figures of their own, never speed figures.
RACE_KERNELS = ("count_racy", "count_atomic", "count_local", "rng_shared", "rng_counter", "sum_order", "sum_canonical",
                "py_count_racy", "py_count_racy_call", "py_count_locked", "py_numpy_add_racy")
OVERHEAD_KERNELS = ("overhead_empty", "overhead_for", "overhead_reduce")
LAB_KERNELS = RACE_KERNELS + OVERHEAD_KERNELS
# GPU studies (gpu/): figures of their own too.
TRANSFER_KERNELS = ("transfer_pageable", "transfer_pinned", "transfer_many_small", "transfer_one_large")
LOGGING_KERNELS = ("logging_every_step", "logging_on_device")
STUDY_KERNELS = TRANSFER_KERNELS + LOGGING_KERNELS
# The OSU-style latency probes (mpi/): figures of their own (figures/mpi.py), no "fastest" in the summary.
MPI_PROBE_KERNELS = ("mpi_barrier", "mpi_allreduce", "mpi_bcast")


class InputError(Exception):
    """A results file that is missing or malformed."""


def load_run(run_dir: str) -> dict:
    path = os.path.join(run_dir, "results.json") if os.path.isdir(run_dir) else run_dir
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (expected a parlab run directory)") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a JSON object")
    if doc.get("schema") != SCHEMA:
        raise InputError(f"{path}: schema is {doc.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("context", "records", "status"):
        if key not in doc:
            raise InputError(f"{path}: missing key {key!r}")
    if not isinstance(doc["records"], list):
        raise InputError(f"{path}: 'records' must be a list")
    for i, r in enumerate(doc["records"]):
        for key in ("kernel", "backend", "threads", "size", "status"):
            if key not in r:
                raise InputError(f"{path}: record {i} lacks {key!r}")
        if r["status"] == "ok":
            t = r.get("time_s", {})
            if not isinstance(t.get("median"), (int, float)) or t["median"] <= 0:
                raise InputError(f"{path}: record {i} ({r['kernel']} {r['backend']}) has no positive median time")
    doc["_path"] = path
    return doc


def rate_of(r: dict):
    """The headline rate of a record and its unit."""
    rate = r.get("rate", {})
    if "samples_per_s" in rate:
        return rate["samples_per_s"], "samples/s"
    if r["kernel"] == "matmul" and "flops_per_s" in rate:
        return rate["flops_per_s"], "flop/s"
    if "bytes_per_s" in rate:
        return rate["bytes_per_s"], "B/s"
    return None, ""


def element_bytes(r: dict) -> int:
    return {"double": 8, "float": 4, "int32": 4}.get(r.get("precision"), 8)


def ok_records(doc: dict, lab: bool = False):
    """Valid records of the canonical kernels (lab=False) or of the lab (lab=True)."""
    return [r for r in doc["records"] if r["status"] == "ok" and (r["kernel"] in LAB_KERNELS) == lab]


# ---------------------------------------------------------------- MPI: ranks x threads
# A record measured by an MPI job carries `ranks` (with `ranks_per_node` and `hosts`); a record
# of one process has none. Everything groups by those fields and by `threads` (per rank), never
# by backend names, which are labels for people (docs/design.md, "Dimensions that compose").
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
