"""An MPI launcher that misbehaves costs its own record and no more (docs/design.md, "Failure
semantics"): one that hangs on `--version` is asked once, within the run's --timeout, and a
SIGINT or SIGTERM meanwhile ends parlab at once with 130; what a launched job prints is checked
field by field before it becomes a record; a flood of output is bounded; a child it leaves behind
neither holds the run nor outlives it. The launcher is a fake written here (a shell or Python
script); nothing leaves this machine."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import run_dir_of

LAUNCHER = r'''#!/usr/bin/env python3
import json, os, subprocess, sys, time
mode = os.environ.get("FAKE_LAUNCHER", "ok")
calls = os.environ.get("FAKE_LAUNCHER_CALLS")
if calls:
    with open(calls, "a") as f:
        f.write(" ".join(sys.argv[1:2]) + "\n")
if sys.argv[1:] == ["--version"]:
    if mode == "hang-version":
        pid = subprocess.Popen(["sleep", "300"]).pid  # a child of the launcher's own
        open(os.environ["FAKE_LAUNCHER_PIDS"], "a").write(f"{pid}\n")
        time.sleep(300)
    print("fake launcher 1.0")
    sys.exit(0)
spec = json.loads(sys.argv[-1])
rec = dict(spec)
rec.update({"status": "ok", "kind": "mpi", "reps_s": [0.01], "inner": 1, "hits": 3,
            "time_s": {"n": 1, "min": 0.01, "q1": 0.01, "median": 0.01, "q3": 0.01, "max": 0.01, "mean": 0.01,
                       "stddev": 0, "cv": 0, "median_ci": [0.01, 0.01], "ci_level": 0},
            "rate": {}, "work": {"samples": spec["size"], "bytes": 0, "flops": 0},
            "validation": {"pass": True, "detail": "fake"}, "checksum": 0.0,
            "workers": {"accounting": "off", "why": "fake", "count": spec["threads"]}})
if mode == "median":
    rec["time_s"]["median"] = "fast"
elif mode == "hits":
    rec["hits"] = "many"
elif mode == "busy":
    rec["workers"]["busy_s"] = [0.5] * 10**6
elif mode == "flood":
    line = b"x" * 65535 + b"\n"
    while True:
        sys.stdout.buffer.write(line)
elif mode in ("holder", "hang-group"):
    # A background child holding stdout (and stderr): in the launcher's process group.
    pid = subprocess.Popen(["sleep", "300"]).pid
    open(os.environ["FAKE_LAUNCHER_PIDS"], "a").write(f"{pid}\n")
    if mode == "hang-group":
        time.sleep(300)
elif mode == "escapee":
    # One that left the group (setsid): only the read's grace after the launcher's exit helps.
    pid = subprocess.Popen(["setsid", "sleep", "300"]).pid
    open(os.environ["FAKE_LAUNCHER_PIDS"], "a").write(f"{pid}\n")
print(json.dumps(rec), flush=True)
sys.exit(0)
'''


@pytest.fixture
def launcher(tmp_path, parlab_bin):
    out = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, timeout=120).stdout
    if not any(line.split()[:1] == ["mpi+serial"] and "available" in line.split()[2:3] for line in out.splitlines()):
        pytest.fail("this parlab has no available mpi+serial: the CI builds have the MPI part")
    path = tmp_path / "fake_mpirun.py"
    path.write_text(LAUNCHER.replace("/usr/bin/env python3", sys.executable, 1))
    path.chmod(0o755)
    pids = tmp_path / "pids"
    pids.write_text("")
    calls = tmp_path / "calls"
    yield {"PARLAB_MPIRUN": str(path), "FAKE_LAUNCHER_PIDS": str(pids), "FAKE_LAUNCHER_CALLS": str(calls)}
    # Whatever a fake left, ended here whatever the test found.
    for line in pids.read_text().split():
        try:
            os.kill(int(line), signal.SIGKILL)
        except ProcessLookupError:
            pass


def alive(pid):
    """Whether `pid` runs (a zombie waiting for a reaper that never comes does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def left_pids(env):
    return [int(p) for p in open(env["FAKE_LAUNCHER_PIDS"]).read().split()]


def gone_soon(pid, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.05)
    return not alive(pid)


ARGS = ["-k", "pi", "-b", "mpi+serial", "--ranks", "1", "-n", "2^16", "-r", "1", "--no-report"]


def run(parlab_bin, tmp_path, env, timeout_s, mode, limit=120):
    return subprocess.run([parlab_bin, "run", *ARGS, "--out", str(tmp_path / "out"), "--timeout", str(timeout_s)],
                          capture_output=True, text=True, env={**os.environ, **env, "FAKE_LAUNCHER": mode},
                          timeout=limit)


def test_a_launcher_that_hangs_on_version_costs_the_timeout_once(tmp_path, parlab_bin, launcher):
    t0 = time.monotonic()
    r = run(parlab_bin, tmp_path, launcher, 3, "hang-version")
    took = time.monotonic() - t0
    assert r.returncode == 2, r.stderr
    assert "did not answer '--version' within 3 s" in r.stderr and "fake_mpirun.py" in r.stderr, r.stderr
    assert took < 20, took  # 3 s and its kill's grace, never 60 s twice
    assert open(launcher["FAKE_LAUNCHER_CALLS"]).read().split() == ["--version"]  # asked once
    assert not (tmp_path / "out").exists()  # exit 2 writes nothing
    for pid in left_pids(launcher):
        assert gone_soon(pid), f"the launcher's child {pid} outlived the probe"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_launcher_probe_exits_130_at_once(tmp_path, parlab_bin, launcher, sig):
    p = subprocess.Popen([parlab_bin, "run", *ARGS, "--out", str(tmp_path / "out"), "--timeout", "60"],
                         env={**os.environ, **launcher, "FAKE_LAUNCHER": "hang-version"},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not open(launcher["FAKE_LAUNCHER_PIDS"]).read().strip():
            time.sleep(0.05)
        assert open(launcher["FAKE_LAUNCHER_PIDS"]).read().strip(), "the fake launcher never started"
        t0 = time.monotonic()
        p.send_signal(sig)
        _, err = p.communicate(timeout=30)
        assert time.monotonic() - t0 < 5, err
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 130, err
    assert "interrupted" in err
    assert not (tmp_path / "out").exists()
    for pid in left_pids(launcher):
        assert gone_soon(pid), f"the launcher's child {pid} outlived the interruption"


@pytest.mark.parametrize("mode,field", [("median", "time_s.median"), ("hits", "hits"), ("busy", "workers.busy_s")])
def test_a_launched_jobs_bad_field_fails_its_record_naming_it(tmp_path, parlab_bin, launcher, mode, field):
    r = run(parlab_bin, tmp_path, launcher, 60, mode)
    assert r.returncode == 1, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(tmp_path / "out"), "results.json")))
    (rec,) = doc["records"]
    assert rec["status"] == "error", rec
    assert field + ":" in rec["reason"], rec["reason"]
    assert doc["status"] == "complete"


def test_the_fake_launchers_good_record_is_ok(tmp_path, parlab_bin, launcher):
    """The positive control: the checks above fail the fields, not the fake's record as such."""
    r = run(parlab_bin, tmp_path, launcher, 60, "ok")
    assert r.returncode == 0, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(tmp_path / "out"), "results.json")))
    assert [rec["status"] for rec in doc["records"]] == ["ok"]


# Runs its arguments and prints the peak resident size of that one child, in KiB: this test
# process's own RUSAGE_CHILDREN would hold the largest child of every earlier test of its worker.
PEAK = ("import resource, subprocess, sys; rc = subprocess.run(sys.argv[1:]).returncode; "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(rc)")


def test_a_launcher_that_floods_stdout_is_stopped_at_the_bound(tmp_path, parlab_bin, launcher):
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", PEAK, parlab_bin, "run", *ARGS, "--out", str(tmp_path / "out"),
                        "--timeout", "60"], capture_output=True, text=True,
                       env={**os.environ, **launcher, "FAKE_LAUNCHER": "flood"}, timeout=120)
    assert time.monotonic() - t0 < 60
    assert r.returncode == 1, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(tmp_path / "out"), "results.json")))
    (rec,) = doc["records"]
    assert rec["status"] == "error" and "more than 64 MiB on stdout" in rec["reason"], rec["reason"]
    # parlab kept 64 MiB of it, not gigabytes (the peak of parlab and its launcher, in KiB on Linux)
    assert int(r.stderr.strip().splitlines()[-1]) < 1024 * 1024, r.stderr[-300:]


def test_a_background_child_holding_stdout_neither_holds_the_run_nor_outlives_it(tmp_path, parlab_bin, launcher):
    t0 = time.monotonic()
    r = run(parlab_bin, tmp_path, launcher, 60, "holder")
    assert time.monotonic() - t0 < 30, "the run waited for the background child's end of file"
    assert r.returncode == 0, r.stderr
    (pid,) = left_pids(launcher)
    assert gone_soon(pid), "the launcher's background child outlived its job"


def test_a_child_that_left_the_group_holds_the_run_only_for_a_grace(tmp_path, parlab_bin, launcher):
    t0 = time.monotonic()
    r = run(parlab_bin, tmp_path, launcher, 60, "escapee")
    assert time.monotonic() - t0 < 30, "the run waited for the escaped child's end of file"
    assert r.returncode == 0, r.stderr


def test_a_timed_out_job_takes_its_whole_group(tmp_path, parlab_bin, launcher):
    t0 = time.monotonic()
    r = run(parlab_bin, tmp_path, launcher, 2, "hang-group")
    assert time.monotonic() - t0 < 30
    assert r.returncode == 1, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(tmp_path / "out"), "results.json")))
    (rec,) = doc["records"]
    assert rec["status"] == "error" and "time limit" in rec["reason"], rec["reason"]
    (pid,) = left_pids(launcher)
    assert gone_soon(pid), "the launcher's child outlived the timeout"


def old_run(path, copies):
    """A run of schema 1 (tests/fixtures/schema-1) with its records repeated `copies` times: big
    enough that migrating it takes a while."""
    doc = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "schema-1",
                                      "results.json")))
    doc["records"] = doc["records"] * copies
    path.mkdir()
    (path / "results.json").write_text(json.dumps(doc))
    return (path / "results.json").read_text()


def test_sigterm_to_migrate_exits_130_and_leaves_no_temporary(tmp_path, parlab_bin):
    runs = [tmp_path / f"run{i}" for i in range(3)]
    before = [old_run(run, 20000) for run in runs]
    p = subprocess.Popen([parlab_bin, "migrate", *map(str, runs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(0.5)  # inside the first run's migration: each takes seconds
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, (p.returncode, err)
    assert "interrupted" in err
    for run, text in zip(runs, before):
        assert [f for f in os.listdir(run) if ".tmp." in f] == [], os.listdir(run)
        now = (run / "results.json").read_text()
        assert now == text or json.loads(now)["schema"] != "parlab-results/1"  # whole, old or new
    assert (runs[-1] / "results.json").read_text() == before[-1]  # never reached: as it was


def test_migrate_refuses_an_integer_it_would_round(tmp_path, parlab_bin):
    run = tmp_path / "run"
    text = old_run(run, 1).replace('"size": 1001', '"size": 1180591620717411303425', 1)
    (run / "results.json").write_text(text)
    r = subprocess.run([parlab_bin, "migrate", str(run)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "records[0].size: the integer '1180591620717411303425' does not fit" in r.stderr, r.stderr
    assert (run / "results.json").read_text() == text
