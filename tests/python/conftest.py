"""Shared fixtures: the parlab binary, the plot script, and synthetic result files; and the
strict-skip check CI runs with (PARLAB_STRICT_SKIPS=1, or CI=true): a skip outside ALLOWED_SKIPS
fails the session, so a CI machine that lost a package (MPI, Chromium, Numba) cannot pass with
fewer tests."""
import copy
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

# `parlab run` measures this machine's roofs first when none are cached (docs/ceilings.md). The
# suites run parlab many times: they take the millisecond test probes (PARLAB_CEILINGS_QUICK, whose
# numbers are no roofs), measured once per session into a cache directory of their own, so CI time
# does not grow and no user's cache is touched. tests/python/test_ceilings.py measures for real.
if "PARLAB_CEILINGS_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile
    _ceilings_cache = tempfile.mkdtemp(prefix="parlab-ceilings-")
    atexit.register(shutil.rmtree, _ceilings_cache, True)
    os.environ["PARLAB_CEILINGS_CACHE"] = _ceilings_cache
os.environ.setdefault("PARLAB_CEILINGS_QUICK", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOT = os.path.join(ROOT, "analysis", "plot.py")
SCHEMA = os.path.join(ROOT, "experiments", "schema", "results.schema.json")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")  # small committed runs (tests/fixtures/README.md)
# Every report the suites draw (plot.py, and `parlab run`'s own) compares the run with the fixture
# reference runs, never with the committed ones of results/ (the source tree's default), so no
# unit test of the analysis reads results/; test_committed_results.py holds those. A test of where
# the references are found passes its own environment.
os.environ.setdefault("PARLAB_REFERENCE", os.path.join(FIXTURES, "reference-tree"))
sys.path.insert(0, ROOT)  # the analysis package, imported as `analysis`
from analysis.spread import spread  # noqa: E402 (after the path): records carry the runner's shape


@pytest.fixture(scope="session")
def parlab_bin():
    path = os.environ.get("PARLAB_BIN", os.path.join(ROOT, "build", "release", "experiments", "parlab"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"parlab binary not found at {path}: build the release preset or set PARLAB_BIN")
    return path


def run_dir_of(out):
    """The one run directory under the results root `out` (OUT/<host>/<UTC timestamp>/), past the
    host folder's `latest` link to it (which it checks)."""
    (host,) = os.listdir(out)
    entries = os.listdir(os.path.join(out, host))
    (run,) = [e for e in entries if not os.path.islink(os.path.join(out, host, e))]
    assert sorted(entries) == sorted([run, "latest"]), entries
    assert os.readlink(os.path.join(out, host, "latest")) == run
    return os.path.join(out, host, run)


def interrupt_once_logged(args, env, log, marker):
    """Starts parlab (`args`) and, once the peer's call log `log` shows `marker` (the invocation that
    hangs has begun), sends it SIGINT. Returns (exit code, stderr, seconds from the signal to the
    exit). The peer tests (BabelStream, likwid-bench) share it: one way to interrupt mid-peer."""
    p = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (log.exists() and marker in log.read_text()):
        time.sleep(0.05)
    assert log.exists() and marker in log.read_text(), f"the {marker} invocation never started"
    time.sleep(0.3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    return p.returncode, err, time.monotonic() - t0


def run_plot(*args):
    return subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True)


# The families records carry: the catalogue's, and the wings' own kernels' (race, practice).
# "own": a person's own kernel (a C++ kernel through the installed package, or a Python file).
FAMILIES = {"pi", "stream", "basic", "race", "overhead", "comm", "practice", "own"}

# The families of the kernels the fixtures' records use, as parlab writes them into every record
# (test_kernel_families.py holds the catalogue's against `parlab list`).
FIXTURE_FAMILIES = {
    "pi": "pi", **dict.fromkeys(("copy", "mul", "add", "triad", "dot", "nstream"), "stream"),
    **dict.fromkeys(("plus_one", "add2d", "matmul"), "basic"),
    **dict.fromkeys(("count_racy", "count_atomic", "count_local", "rng_shared", "rng_counter", "sum_order",
                     "sum_canonical", "py_count_racy", "py_count_racy_call", "py_count_locked", "py_numpy_add_racy"),
                    "race"),
    **dict.fromkeys(("overhead_empty", "overhead_for", "overhead_reduce"), "overhead"),
    **dict.fromkeys(("mpi_barrier", "mpi_allreduce", "mpi_bcast"), "comm"),
    **dict.fromkeys(("transfer_pageable", "transfer_pinned", "transfer_many_small", "transfer_one_large",
                     "logging_every_step", "logging_on_device"), "practice"),
}


def messages(stderr):
    """stderr's messages, each with the lines it was wrapped onto (terminal.hpp's hanging:
    continuation lines are indented) joined back into one."""
    out = []
    for line in stderr.splitlines():
        if line.startswith(" ") and out and out[-1].startswith("parlab: "):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def record(i, backend, threads, median, kernel="pi", size=1 << 20, scaling="strong", study="s", kind="cpu",
           precision="int32", status="ok"):
    r = {"id": i, "study": study, "scaling": scaling, "kernel": kernel, "family": FIXTURE_FAMILIES[kernel],
         "backend": backend, "kind": kind,
         "threads": threads, "size": size, "size_y": 0, "precision": precision, "seed": 42, "reps": 3,
         "warmup": 1, "min_rep_seconds": 0.0, "device": 0, "status": status}
    if status == "ok":
        reps = [median * 0.99, median, median * 1.02]
        r.update({"inner": 1, "reps_s": reps,
                  "time_s": spread(reps),
                  "rate": {"samples_per_s": size / median} if kernel == "pi" else {"bytes_per_s": 24 * size / median},
                  "work": {"samples": size, "bytes": 0, "flops": 0},
                  "validation": {"pass": True, "detail": "ok"}, "checksum": 3.14, "hits": 823549})
        if r["family"] in ("stream", "basic"):  # the arrays it allocated: three of doubles
            r["work"]["footprint_bytes"] = 24 * size
    else:
        r["reason"] = "not built"
    return r


BASE_DOC = {
    "schema": "parlab-results/5", "status": "complete", "suite": "fixture", "invocation": ["parlab", "run"],
    "context": {"host": "fixture-host", "started_utc": "2026-01-01T00:00:00Z", "warnings": ["fixture data"],
                "cpu": {"model": "Fixture CPU", "logical_cpus": 4, "physical_cores": 4, "smt": False,
                        "governor": None, "caches": [{"level": 1, "type": "Data", "bytes": 49152},
                                                     {"level": 2, "type": "Unified", "bytes": 1048576}]},
                "build": {"parlab_version": "0", "build_type": "Release", "compiler": "x", "flags": "",
                          "sanitizers": "none", "git_commit": None},
                "backends": []},
    "plan": [], "records": [], "consistency": [],
}


def fixture_doc(name):
    """The committed fixture tests/fixtures/NAME/results.json, read fresh (a test may change it);
    tests/fixtures/README.md says what each holds."""
    with open(os.path.join(FIXTURES, name, "results.json"), encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture
def scaling_doc():
    """A strong-scaling run with known times: serial 8 s; pool 8, 4.2, 2.5 s at 1, 2, 4 threads
    (tests/fixtures/pi-scaling)."""
    return fixture_doc("pi-scaling")


def write_doc(tmp_path, doc, name="run"):
    d = tmp_path / name
    d.mkdir()
    (d / "results.json").write_text(json.dumps(doc))
    return d


def plot_twice(tmp_path, doc):
    """The figures' determinism check, one way for every figure module: writes `doc` as two runs
    (a, b), plots each (plot.py must succeed) and returns, per run, its directory and {file name:
    sha256} of its plots/ and report.html."""
    runs = []
    for name in ("a", "b"):
        d = write_doc(tmp_path, doc, name)
        res = run_plot(str(d))
        assert res.returncode == 0, res.stderr
        files = sorted((d / "plots").iterdir()) + [d / "report.html"]
        runs.append((d, {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}))
    return runs


# ---------------------------------------------------------------------------------------------
# Strict skips. Each entry: (node id pattern, skip reason pattern, why this skip is expected,
# when it is allowed). A skip is allowed when both patterns match (re.search) and the condition
# holds; any other skip fails the session when strict.
ALLOWED_SKIPS = [
    (r"test_interpreters\.py::", r"no free-threaded parlab in PARLAB_INTERPRETERS",
     "the ft configuration runs this file with PARLAB_INTERPRETERS set to its 3.13t parlab; "
     "the python configuration has no free-threaded build",
     lambda: not os.environ.get("PARLAB_INTERPRETERS")),
]


def strict_skips():
    return os.environ.get("PARLAB_STRICT_SKIPS") == "1" or os.environ.get("CI", "").lower() == "true"


def _skip_reason(report):
    # longrepr of a skip is (path, line, "Skipped: reason")
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


def _allowed(nodeid, reason):
    for node_pattern, reason_pattern, _why, condition in ALLOWED_SKIPS:
        if re.search(node_pattern, nodeid) and re.search(reason_pattern, reason) and condition():
            return True
    return False


_unexpected_skips = []


def _note_skip(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if not _allowed(report.nodeid, reason):
            _unexpected_skips.append((report.nodeid, reason))


def pytest_runtest_logreport(report):
    _note_skip(report)


def pytest_collectreport(report):
    _note_skip(report)  # a module-level skip (pytest.importorskip) skips the whole file


def pytest_sessionfinish(session, exitstatus):
    if strict_skips() and _unexpected_skips and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if not strict_skips() or not _unexpected_skips:
        return
    terminalreporter.section("unexpected skips (PARLAB_STRICT_SKIPS): each one fails the run", sep="=", red=True)
    for nodeid, reason in _unexpected_skips:
        terminalreporter.line(f"SKIP NOT ALLOWED {nodeid}: {reason}")
    terminalreporter.line("A skip is allowed only by an entry of ALLOWED_SKIPS in tests/python/conftest.py, with its reason.")
