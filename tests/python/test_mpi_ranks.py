"""`parlab run --ranks`: MPI jobs of 1-4 ranks launched by the runner give the canonical pi count,
the single-process dot bits and valid STREAM triad and plus_one results at every rank x thread
count, on every CPU executor an mpi+ backend runs on in this build; bad input exits 2 naming --ranks."""
import glob
import json
import os
import subprocess

import pytest


def listed_backends(parlab_bin):
    """{name: (kind, status)} from `parlab list`."""
    lines = subprocess.run([parlab_bin, "list"], capture_output=True, text=True).stdout.splitlines()
    assert lines and lines[0] == "backends:", lines[:1]
    backends = {}
    for line in lines[1:]:
        if not line.startswith("  "):
            break  # the next section (interpreters, kernels, suites)
        name, kind, status = line.split()[:3]
        backends[name] = (kind, status)
    return backends


def mpi_available(parlab_bin):
    return listed_backends(parlab_bin).get("mpi+serial", (None, None))[1] == "available"


def mpi_cpu_backends(parlab_bin):
    """The available mpi+<executor> backends (every CPU executor mpi/backends.cpp composes with)."""
    return sorted(name for name, (kind, status) in listed_backends(parlab_bin).items()
                  if kind == "mpi" and name != "mpi+cuda" and status == "available")


def test_ranks_sweep_gives_canonical_pi_identical_dot_bits_and_valid_stream_on_every_executor(parlab_bin, tmp_path):
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    listed = listed_backends(parlab_bin)
    mpi_backends = mpi_cpu_backends(parlab_bin)
    # Each available CPU executor an MPI backend is named after runs here (mpi+tbb where tbb is built).
    for name in mpi_backends:
        assert listed[name[len("mpi+"):]] == ("cpu", "available"), name
    assert {"mpi+serial", "mpi+pool"} <= set(mpi_backends), mpi_backends
    kernels = ("pi", "dot", "triad", "plus_one")
    r = subprocess.run([parlab_bin, "run", "--ranks", "1,2,3,4", "-k", ",".join(kernels), "-t", "1,2", "-n", "100003",
                        "-b", ",".join(["serial", "pool", *mpi_backends]), "--quick", "--no-report", "-q",
                        "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (path,) = glob.glob(os.path.join(str(tmp_path), "*", "*", "results.json"))
    doc = json.load(open(path))
    assert doc["status"] == "complete"
    recs = doc["records"]
    assert all(x["status"] == "ok" for x in recs), [x.get("reason") for x in recs if x["status"] != "ok"]
    assert all(x["validation"]["pass"] for x in recs), [x["validation"] for x in recs if not x["validation"]["pass"]]
    # Every (backend, ranks, threads) point the sweep promises is there, ranks from the job itself.
    mpi = {(x["backend"], x["ranks"], x["threads"], x["kernel"]) for x in recs if x["kind"] == "mpi"}
    for backend in mpi_backends:
        for kernel in kernels:
            for ranks in (1, 2, 3, 4):
                for threads in ((1,) if backend == "mpi+serial" else (1, 2)):
                    assert (backend, ranks, threads, kernel) in mpi, (backend, ranks, threads, kernel)
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
