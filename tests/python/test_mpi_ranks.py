"""`parlab run --ranks`: MPI jobs of 1-4 ranks launched by the runner give the canonical pi count
and the single-process dot bits at every rank x thread count; bad input exits 2 naming --ranks."""
import glob
import json
import os
import subprocess

import pytest


def mpi_available(parlab_bin):
    out = subprocess.run([parlab_bin, "list"], capture_output=True, text=True).stdout
    return any(line.split()[:1] == ["mpi+serial"] and "unavailable" not in line for line in out.splitlines())


def test_ranks_sweep_gives_canonical_pi_and_identical_dot_bits(parlab_bin, tmp_path):
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    r = subprocess.run([parlab_bin, "run", "--ranks", "1,2,3,4", "-k", "pi,dot", "-t", "1,2", "-n", "100003",
                        "-b", "serial,pool,mpi+serial,mpi+pool", "--quick", "--no-report", "-q", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (path,) = glob.glob(os.path.join(str(tmp_path), "*", "*", "results.json"))
    doc = json.load(open(path))
    assert doc["status"] == "complete"
    recs = doc["records"]
    assert all(x["status"] == "ok" for x in recs), [x.get("reason") for x in recs if x["status"] != "ok"]
    # Every (backend, ranks, threads) point the sweep promises is there, ranks from the job itself.
    mpi = {(x["backend"], x["ranks"], x["threads"], x["kernel"]) for x in recs if x["kind"] == "mpi"}
    for kernel in ("pi", "dot"):
        for ranks in (1, 2, 3, 4):
            assert ("mpi+serial", ranks, 1, kernel) in mpi
            assert ("mpi+pool", ranks, 1, kernel) in mpi and ("mpi+pool", ranks, 2, kernel) in mpi
    assert {x["hits"] for x in recs if x["kernel"] == "pi"} == {doc_hits(recs)}
    dots = {float(x["checksum"]).hex() for x in recs if x["kernel"] == "dot"}
    assert len(dots) == 1, dots


def doc_hits(recs):
    return next(x["hits"] for x in recs if x["kernel"] == "pi" and x["backend"] == "serial")


def test_ranks_zero_is_a_usage_error(parlab_bin, tmp_path):
    r = subprocess.run([parlab_bin, "run", "--ranks", "0", "-k", "pi", "--out", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "--ranks" in r.stderr
    assert not os.listdir(str(tmp_path))


def test_no_launcher_is_a_usage_error(parlab_bin, tmp_path):
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    env = dict(os.environ, PARLAB_MPIRUN="/nonexistent/mpirun")
    r = subprocess.run([parlab_bin, "run", "--ranks", "2", "-k", "pi", "--out", str(tmp_path)], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 2
    assert "--ranks" in r.stderr and "launcher" in r.stderr


def test_a_binding_in_mpirun_args_replaces_the_default_and_records_say_where_ranks_ran(parlab_bin, tmp_path):
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    env = dict(os.environ, PARLAB_MPIRUN_ARGS="--bind-to hwthread --map-by hwthread")
    r = subprocess.run([parlab_bin, "run", "--ranks", "2", "-k", "pi", "-n", "2^20", "-b", "mpi+serial", "-r", "2",
                        "--no-report", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    launch = next(line for line in r.stderr.splitlines() if "launched as" in line)
    assert "--bind-to hwthread" in launch and "--bind-to none" not in launch, launch
    (path,) = glob.glob(os.path.join(str(tmp_path), "*", "*", "results.json"))
    (rec,) = json.load(open(path))["records"]
    cpus = [c.split(":")[1] for c in rec["binding"].split()]
    assert [c.split(":")[0] for c in rec["binding"].split()] == ["r0", "r1"]
    assert all("-" not in c and "," not in c for c in cpus), rec["binding"]  # one hardware thread each
    assert rec["metrics"]["rank_chunks_mean"] * 2 == rec["metrics"]["chunks"]
