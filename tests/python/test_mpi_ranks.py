"""`parlab run --ranks`: MPI jobs of 1-4 ranks launched by the runner give the canonical pi count,
the single-process dot bits and valid STREAM triad and plus_one results at every rank x thread
count, on every CPU executor an mpi+ backend runs on in this build; bad input exits 2 naming --ranks."""
import json
import os
import socket
import subprocess

import pytest

from conftest import messages, run_dir_of


def listed_backends(parlab_bin):
    """{name: (kind, status)} from `parlab list`."""
    lines = subprocess.run([parlab_bin, "list"], capture_output=True, text=True).stdout.splitlines()
    assert lines and lines[0] == "backends:", lines[:1]
    backends = {}
    for line in lines[1:]:
        if not line.startswith("  "):
            break  # the next section (interpreters, kernels, suites)
        if line.startswith("   "):
            continue  # a long reason wrapped under its column
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
    path = os.path.join(run_dir_of(str(tmp_path)), "results.json")
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
    launch = next(line for line in messages(r.stderr) if "launched as" in line)
    assert "--bind-to hwthread" in launch and "--bind-to none" not in launch, launch
    path = os.path.join(run_dir_of(str(tmp_path)), "results.json")
    (rec,) = json.load(open(path))["records"]
    cpus = [c.split(":")[1] for c in rec["binding"].split()]
    assert [c.split(":")[0] for c in rec["binding"].split()] == ["r0", "r1"]
    assert all("-" not in c and "," not in c for c in cpus), rec["binding"]  # one hardware thread each
    assert rec["metrics"]["rank_chunks_mean"] * 2 == rec["metrics"]["chunks"]
    # Which hosts, as the job saw them: one, this machine, with both ranks.
    assert rec["hosts"] == 1 and rec["ranks_per_node"] == 2
    assert rec["host_names"] == [socket.gethostname()] and rec["ranks_per_host"] == [2], rec


# The two ways the MPI pi hands out its chunks: a one-sided counter where a window can be made,
# rank 0 dealing them over two-sided messages where none can (Open MPI 4.1 over TCP between
# hosts). Both run on every test run: the default here is one-sided (shared memory), and the
# fallback is reached the two ways a user meets it: forced, and with no one-sided component left.
# Open MPI 4.1.4's components are sm, rdma, ucx and pt2pt (monitoring wraps the others).
NO_ONE_SIDED = "--mca osc ^sm,rdma,ucx,pt2pt"


@pytest.mark.parametrize("how", ["default", "forced", "no-osc"])
def test_pi_chunks_give_the_canonical_count_by_either_scheme_and_say_which(parlab_bin, tmp_path, how):
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    env = dict(os.environ)
    env.pop("PARLAB_PI_SCHEME", None)
    if how == "forced":
        env["PARLAB_PI_SCHEME"] = "two-sided"
    if how == "no-osc":
        env["PARLAB_MPIRUN_ARGS"] = (env.get("PARLAB_MPIRUN_ARGS", "") + " " + NO_ONE_SIDED).strip()
    r = subprocess.run([parlab_bin, "run", "--ranks", "1,2,3", "-k", "pi", "-t", "1,2", "-n", "100003",
                        "-b", "serial,mpi+serial,mpi+pool", "--quick", "--no-report", "-q", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    path = os.path.join(run_dir_of(str(tmp_path)), "results.json")
    recs = json.load(open(path))["records"]
    assert all(x["status"] == "ok" for x in recs), [x.get("reason") for x in recs if x["status"] != "ok"]
    mpi = [x for x in recs if x["kind"] == "mpi"]
    assert len(mpi) == 3 * 3, len(mpi)  # mpi+serial at 1 thread, mpi+pool at 1 and 2; 1, 2 and 3 ranks
    assert {x["hits"] for x in recs} == {doc_hits(recs)}
    # On one host shared memory makes the window; across hosts (PARLAB_HOSTFILE, the multihost
    # configuration) either scheme may be the default: the count is what must hold there.
    across_hosts = bool(env.get("PARLAB_HOSTFILE")) or "--hostfile" in env.get("PARLAB_MPIRUN_ARGS", "")
    want = 1.0 if how != "default" else None if across_hosts else 0.0
    for x in mpi:
        assert x["metrics"]["pi_two_sided"] in (0.0, 1.0), x["metrics"]
        if want is not None:
            assert x["metrics"]["pi_two_sided"] == want, (how, x["ranks"], x["validation"]["detail"])
        scheme = "two-sided" if x["metrics"]["pi_two_sided"] == 1.0 else "one-sided"
        assert scheme in x["validation"]["detail"], x["validation"]["detail"]


def test_an_unknown_pi_scheme_is_a_usage_error_naming_it(parlab_bin, tmp_path):
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    env = dict(os.environ, PARLAB_PI_SCHEME="three-sided")
    r = subprocess.run([parlab_bin, "run", "--ranks", "2", "-k", "pi", "-n", "100003", "-b", "mpi+serial", "--quick",
                        "--no-report", "-q", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 2, r.stderr
    assert "PARLAB_PI_SCHEME" in r.stderr and "three-sided" in r.stderr, r.stderr
    assert not os.listdir(str(tmp_path))


def test_an_mpi_jobs_workers_are_every_ranks_threads(parlab_bin, tmp_path):
    """Per-worker accounting over the ranks (mpi/job_ledger.hpp): a job's record counts ranks x
    threads workers, rank-major, each on a host of the job; where accounting is on, every element
    of a triad run is accounted once over the whole job, and the hierarchy's view names the
    columns ranks x threads. Whether it is on depends on how loaded this machine is (the 1% rule),
    so the record's `why` is what is checked where it is off."""
    if not mpi_available(parlab_bin):
        pytest.skip("this build has no MPI part")
    n = 1 << 22
    r = subprocess.run([parlab_bin, "run", "--ranks", "2", "-k", "triad", "-p", "double", "-n", str(n), "-t", "1,2",
                        "-b", "mpi+pool", "-r", "3", "--no-report", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    path = os.path.join(run_dir_of(str(tmp_path)), "results.json")
    recs = [x for x in json.load(open(path))["records"] if x["backend"] == "mpi+pool"]
    assert sorted(x["threads"] for x in recs) == [1, 2]
    for x in recs:
        w = x["workers"]
        workers = x["ranks"] * x["threads"]
        assert w["count"] == workers, w
        if w["accounting"] == "off":
            assert "% allowed" in w["why"], w["why"]
            continue
        assert w["ranks"] == [k // x["threads"] for k in range(workers)]
        assert w["hosts"] == [0] * workers
        assert sum(w["items"]) == pytest.approx(n)  # per run: each element on exactly one worker
        assert all(0 <= e[0] < workers for e in w.get("trace", {}).get("events", []))
    r = subprocess.run([parlab_bin, "report", run_dir_of(str(tmp_path)), "--summary", "pop"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, COLUMNS="80"))
    assert r.returncode == 0, r.stderr
    assert "ranks x threads" in r.stdout and "2x1" in r.stdout, r.stdout
