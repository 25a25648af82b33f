"""Shared fixtures: the parlab binary, the plot script, and synthetic result files."""
import copy
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOT = os.path.join(ROOT, "experiments", "plot.py")
SCHEMA = os.path.join(ROOT, "experiments", "schema", "results.schema.json")
sys.path.insert(0, os.path.join(ROOT, "experiments"))


@pytest.fixture(scope="session")
def parlab_bin():
    path = os.environ.get("PARLAB_BIN", os.path.join(ROOT, "build", "release", "experiments", "parlab"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"parlab binary not found at {path}: build the release preset or set PARLAB_BIN")
    return path


def run_plot(*args):
    return subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True)


def record(i, backend, threads, median, kernel="pi", size=1 << 20, scaling="strong", study="s", kind="cpu",
           precision="int32", status="ok"):
    r = {"id": i, "study": study, "scaling": scaling, "kernel": kernel, "backend": backend, "kind": kind,
         "threads": threads, "size": size, "size_y": 0, "precision": precision, "seed": 42, "reps": 3,
         "warmup": 1, "min_rep_seconds": 0.0, "device": 0, "status": status}
    if status == "ok":
        reps = [median * 0.99, median, median * 1.02]
        r.update({"inner": 1, "reps_s": reps,
                  "time_s": {"median": median, "mean": sum(reps) / 3, "stddev": 0.01, "min": reps[0], "max": reps[2]},
                  "rate": {"samples_per_s": size / median} if kernel == "pi" else {"bytes_per_s": 24 * size / median},
                  "work": {"samples": size, "bytes": 0, "flops": 0},
                  "validation": {"pass": True, "detail": "ok"}, "checksum": 3.14, "hits": 823549})
    else:
        r["reason"] = "not built"
    return r


BASE_DOC = {
    "schema": "parlab-results/1", "status": "complete", "suite": "fixture", "invocation": ["parlab", "run"],
    "context": {"host": "fixture-host", "started_utc": "2026-01-01T00:00:00Z", "warnings": ["fixture data"],
                "cpu": {"model": "Fixture CPU", "logical_cpus": 4, "physical_cores": 4, "smt": False,
                        "governor": None, "caches": [{"level": 1, "type": "Data", "bytes": 49152},
                                                     {"level": 2, "type": "Unified", "bytes": 1048576}]},
                "build": {"parlab_version": "0", "build_type": "Release", "compiler": "x", "flags": "",
                          "sanitizers": "none", "git_commit": None},
                "backends": []},
    "plan": [], "records": [], "consistency": [],
}


@pytest.fixture
def scaling_doc():
    """A strong-scaling run with known times: serial 8 s; pool 8, 4.2, 2.5 s at 1, 2, 4 threads."""
    doc = copy.deepcopy(BASE_DOC)
    recs = [record(0, "serial", 1, 8.0), record(1, "pool", 1, 8.0), record(2, "pool", 2, 4.2),
            record(3, "pool", 4, 2.5), record(4, "tbb", 1, 8.4), record(5, "tbb", 2, 4.0),
            record(6, "tbb", 4, 2.0), record(7, "cuda", 1, 0.1, kind="gpu"),
            record(8, "openmp", 2, 0.0, status="unavailable")]
    for n, size in enumerate([1 << 10, 1 << 12, 1 << 14, 1 << 16]):
        recs.append(record(9 + n, "pool", 4, 1e-6 * size, kernel="triad", size=size, scaling="none",
                           precision="double"))
    doc["records"] = recs
    return doc


def write_doc(tmp_path, doc, name="run"):
    d = tmp_path / name
    d.mkdir()
    (d / "results.json").write_text(json.dumps(doc))
    return d
