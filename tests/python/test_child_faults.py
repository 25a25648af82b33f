"""Every fault of a process a run measures in — another interpreter's parlab, an MPI job — is a
failed record that names the fault and carries the child's stderr; the run goes on, ends
`complete` with failures and exits 1, never 130 or "incomplete" (docs/design.md, "Failure
semantics"). The children are a fake (tests/python/fakes/fake_child.py) told how to misbehave."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import run_dir_of

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes", "fake_child.py")

# fault -> words the failed record's reason must contain
FAULTS = {
    "garbled": "not a JSON record",
    "exit3": "exited with 3",
    "sigkill": "killed by SIGKILL",
    "hang": "time limit",
    "empty": "printed no record",
    "null": "interruption that this run did not receive",
    "wrongshape": "for another measurement",
    "notrecord": "not a record",
    "badbytes": "exited with 3",  # and its bytes that are not UTF-8 cost no record
}

SUITE = {
    "name": "faults", "description": "a run through a misbehaving child", "reps": 1, "warmup": 1, "seed": 42,
    "min_rep_seconds": 0,
    "experiments": [{"kernel": "pi", "backends": ["py-pure-threads"], "threads": "1", "sizes": [5000, 7000],
                     "interpreters": "all"}],
}


def has_backend(parlab_bin, name):
    out = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, timeout=120).stdout
    return any(line.split()[:1] == [name] and "available" in line.split()[2:3] for line in out.splitlines())


def run_parlab(parlab_bin, args, env, timeout=300):
    return subprocess.run([parlab_bin, "run", *args, "--no-report"], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=timeout)


@pytest.fixture
def python_part(parlab_bin):
    if not has_backend(parlab_bin, "py-pure-threads"):
        pytest.fail("this parlab has no available py-pure-threads: the CI builds have the Python part")


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_interpreter_child_fault_is_a_failed_record(tmp_path, parlab_bin, python_part, fault):
    suite = tmp_path / "faults.json"
    suite.write_text(json.dumps(SUITE))
    out = tmp_path / "out"
    t0 = time.monotonic()
    r = run_parlab(parlab_bin, [str(suite), "--out", str(out), "--timeout", "3"],
                   {"PARLAB_INTERPRETERS": FAKE, "FAKE_CHILD_FAULT": fault})
    assert time.monotonic() - t0 < 120
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "INCOMPLETE" not in r.stderr and "resume" not in r.stderr, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "complete"
    assert len(doc["records"]) == len(doc["plan"]) == 4  # this interpreter's two, the fake's two
    own = [rec for rec in doc["records"] if rec.get("interpreter") != "9.99.0 fake"]
    fake = [rec for rec in doc["records"] if rec.get("interpreter") == "9.99.0 fake"]
    assert len(own) == 2 and all(rec["status"] == "ok" for rec in own), own
    assert len(fake) == 2
    for rec in fake:
        assert rec["status"] == "error", rec
        assert rec["validation"]["pass"] is False
        assert FAULTS[fault] in rec["reason"], rec["reason"]
        assert "fake child: about to " + fault in rec["reason"], rec["reason"]  # the child's stderr tail
        assert rec["kind"] == "python" and rec["python_build"] == "gil"
    assert r.stderr.count("FAILED pi py-pure-threads") == 2, r.stderr


def test_a_working_fake_child_gives_ok_records(tmp_path, parlab_bin, python_part):
    """The positive control: the same run through the fake without a fault passes, so the failures
    above come from the faults, not from the fake."""
    suite = tmp_path / "faults.json"
    suite.write_text(json.dumps(SUITE))
    out = tmp_path / "out"
    r = run_parlab(parlab_bin, [str(suite), "--out", str(out)], {"PARLAB_INTERPRETERS": FAKE, "FAKE_CHILD_FAULT": "ok"})
    assert r.returncode == 0, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert [rec["status"] for rec in doc["records"]] == ["ok"] * 4


@pytest.mark.parametrize("fault", ["garbled", "exit3", "sigkill", "hang", "wrongshape", "badbytes"])
def test_mpi_job_fault_is_a_failed_record(tmp_path, parlab_bin, fault):
    if not has_backend(parlab_bin, "mpi+serial"):
        pytest.fail("this parlab has no available mpi+serial: the CI builds have the MPI part")
    out = tmp_path / "out"
    r = run_parlab(parlab_bin, ["-k", "pi", "-b", "serial,mpi+serial", "--ranks", "1,2", "-n", "2^16", "-r", "1",
                                "--out", str(out), "--timeout", "3"],
                   {"PARLAB_MPIRUN": FAKE, "FAKE_CHILD_FAULT": fault})
    assert r.returncode == 1, (r.returncode, r.stderr)
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "complete"
    mpi = [rec for rec in doc["records"] if rec["backend"] == "mpi+serial"]
    assert [rec["ranks"] for rec in mpi] == [1, 2]
    for rec in mpi:
        assert rec["status"] == "error" and rec["kind"] == "mpi", rec
        assert FAULTS[fault] in rec["reason"], rec["reason"]
        assert "fake child: about to " + fault in rec["reason"], rec["reason"]
    (serial,) = [rec for rec in doc["records"] if rec["backend"] == "serial"]
    assert serial["status"] == "ok"


def test_only_our_own_interrupt_is_an_interruption(tmp_path, parlab_bin, python_part):
    """SIGINT to parlab while a child hangs: the child is stopped, the run is incomplete, exit 130,
    and the unfinished measurement leaves no record."""
    suite = tmp_path / "faults.json"
    suite.write_text(json.dumps(SUITE))
    out = tmp_path / "out"
    p = subprocess.Popen([parlab_bin, "run", str(suite), "--out", str(out), "--no-report"],
                         env={**os.environ, "PARLAB_INTERPRETERS": FAKE, "FAKE_CHILD_FAULT": "hang"},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.exists() and any(out.rglob("results.json"))):
        time.sleep(0.1)
    time.sleep(2)  # in the fake's measurement by now (this interpreter's two take milliseconds)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "incomplete"
    assert all(rec["status"] == "ok" for rec in doc["records"]), doc["records"]
    assert "resume with" in err


def test_failed_plot_script_fails_run_and_report(tmp_path, parlab_bin):
    bad = tmp_path / "bad_plot.py"
    bad.write_text("import sys\nsys.stderr.write('plot: cannot draw this\\n')\nsys.exit(4)\n")
    env = {"PARLAB_PLOT_SCRIPT": str(bad), "PARLAB_PYTHON": sys.executable}
    out = tmp_path / "out"
    r = subprocess.run([parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^16", "-r", "1", "--out", str(out)],
                       capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    # The measurement stands; the report's failure has its own code (4), never a failed measurement's 1.
    assert r.returncode == 4, r.stderr
    assert "plot: cannot draw this" in r.stderr and "failed" in r.stderr, r.stderr
    assert json.load(open(os.path.join(run_dir_of(out), "results.json")))["status"] == "complete"
    rep = subprocess.run([parlab_bin, "report", run_dir_of(out)], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=120)
    assert rep.returncode == 1, rep.stderr
    assert "exited with 4" in rep.stderr and "plot: cannot draw this" in rep.stderr
