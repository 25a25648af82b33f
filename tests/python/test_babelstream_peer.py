"""The BabelStream peers (peers/backends.hpp): parlab runs a BabelStream binary per record, keeps
the row of the record's kernel, and writes a record beside its own backends' — same kernel,
size, precision and threads, parlab's statistic (rate.bytes_per_s) and BabelStream's own
(metrics.peer_bytes_per_s) both — or, for a binary that misbehaves, a failed record naming the
fault, never a crash; without a binary the records are unavailable with the reason. The binary is
a stand-in, tests/python/fakes/fake_babelstream.py, that prints BabelStream's --csv format."""
import json
import os
import stat
import subprocess
import sys

import pytest
from conftest import interrupt_once_logged, run_dir_of, run_plot

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes", "fake_babelstream.py")
WORDS = {"copy": 2, "mul": 2, "add": 3, "triad": 3, "dot": 2, "nstream": 4}
SECONDS = 0.001  # the fake's min runtime; its average is 1.5x, its max 2x


def peer_dir(tmp_path, model="omp", name=None):
    """A directory holding <model>-stream: a wrapper that runs the fake as that model."""
    d = tmp_path / "babelstream"
    d.mkdir(exist_ok=True)
    exe = d / (name or f"{model}-stream")
    exe.write_text(f'#!/bin/sh\nFAKE_BABELSTREAM_MODEL={model} exec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return d


def run(parlab_bin, tmp_path, args, env=None, fault="ok"):
    out = tmp_path / "out"
    full_env = {k: v for k, v in os.environ.items() if k not in ("PARLAB_BABELSTREAM_DIR", "OMP_NUM_THREADS")}
    full_env.update({"FAKE_BABELSTREAM_FAULT": fault, "FAKE_BABELSTREAM_LOG": str(tmp_path / "calls.jsonl")})
    full_env.update(env or {})
    r = subprocess.run([parlab_bin, "run", *args, "--out", str(out), "--no-report", "--quiet"],
                       capture_output=True, text=True, env=full_env, timeout=300)
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json"))) if out.exists() else None
    return r, doc


def calls(tmp_path):
    path = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def cuda_entry_line(parlab_bin):
    out = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, timeout=120).stdout
    return next(line for line in out.splitlines() if line.split()[:1] == ["cuda"])


def test_records_beside_parlab_with_both_bandwidths(parlab_bin, tmp_path):
    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, ["-k", "triad,dot", "-b", "babelstream-omp,pool", "-t", "1,2", "-n", "4096",
                                        "-p", "double,float", "--reps", "2"],
                 env={"PARLAB_BABELSTREAM_DIR": str(d)})
    assert r.returncode == 0, r.stderr
    assert doc["status"] == "complete"
    peers = [x for x in doc["records"] if x["backend"] == "babelstream-omp"]
    own = [x for x in doc["records"] if x["backend"] == "pool"]
    # Every (kernel, threads, precision) of one side has its record on the other.
    key = lambda x: (x["kernel"], x["threads"], x["precision"], x["size"])  # noqa: E731
    assert sorted(map(key, peers)) == sorted(map(key, own))
    assert len(peers) == 2 * 2 * 2
    for x in own:
        assert x["status"] == "ok", x
        assert x["rate"]["bytes_per_s"] > 0
    for x in peers:
        assert x["status"] == "ok", x
        assert x["kind"] == "peer"
        assert x["size"] == 4096
        size_of = 4 if x["precision"] == "float" else 8
        want_bytes = WORDS[x["kernel"]] * size_of * 4096
        assert x["work"]["bytes"] == want_bytes
        # parlab's statistic: the mean of BabelStream's iterations is each run's time.
        assert x["kernel_s"] == pytest.approx(1.5 * SECONDS, rel=1e-6)
        assert x["transfer_s"] == 0
        assert x["time_s"]["median"] == pytest.approx(1.5 * SECONDS, rel=1e-6)
        assert x["rate"]["bytes_per_s"] == pytest.approx(want_bytes / (1.5 * SECONDS), rel=1e-6)
        # BabelStream's own: bandwidth from its fastest iteration, converted from MB/s.
        assert x["metrics"]["peer_bytes_per_s"] == pytest.approx(want_bytes / SECONDS, rel=1e-5)
        assert x["metrics"]["peer_min_runtime_s"] == pytest.approx(SECONDS, rel=1e-6)
        assert x["metrics"]["peer_num_times"] == 100
        # two timed repetitions of one invocation each (a run of 150 ms > min_rep_seconds); the
        # warm-up's invocation is not among those BabelStream's figure covers
        assert x["metrics"]["peer_invocations"] == 2 * x["inner"]
        assert x["validation"]["pass"] is True
        assert "gold check passed" in x["validation"]["detail"]
    # What the binary was asked: the record's kernel alone, its size and precision, its threads.
    seen = calls(tmp_path)
    assert len(seen) == sum(1 + x["metrics"]["peer_invocations"] for x in peers)
    for c in seen:
        a = c["argv"]
        assert a[a.index("--arraysize") + 1] == "4096"
        assert a[a.index("--numtimes") + 1] == "100"
        assert a[a.index("--only") + 1] in ("Triad", "Dot")
        assert "--csv" in a and "--silence-errors" in a and "--device" not in a
    for x in peers:
        label = x["kernel"].capitalize()
        mine = [c for c in seen if c["argv"][c["argv"].index("--only") + 1] == label
                and c["OMP_NUM_THREADS"] == str(x["threads"]) and ("--float" in c["argv"]) == (x["precision"] == "float")]
        assert len(mine) == 1 + x["metrics"]["peer_invocations"], (x["kernel"], x["threads"], x["precision"])
    # The context says which binary measured them.
    (entry,) = [b for b in doc["context"]["backends"] if b["name"] == "babelstream-omp"]
    # The binary's folder, as a results file keeps a path (portable: never this machine's absolute one).
    assert entry["available"] and "omp-stream at …/omp-stream" in entry["detail"] and str(d) not in entry["detail"]


def test_the_warm_up_invocation_is_not_in_babelstreams_figure(parlab_bin, tmp_path):
    # parlab drops its warm-up repetition's time; BabelStream's fastest iteration likewise covers
    # the timed invocations only, so both sides' fastest come from as many iterations. The fake's
    # first invocation (the warm-up) reports a min twice as fast as the others'.
    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, ["-k", "copy", "-b", "babelstream-omp", "-t", "1", "-n", "4096", "--reps", "3"],
                 env={"PARLAB_BABELSTREAM_DIR": str(d), "FAKE_BABELSTREAM_FIRST_SECONDS": str(SECONDS / 2)})
    assert r.returncode == 0, r.stderr
    (x,) = doc["records"]
    assert x["status"] == "ok", x
    assert len(calls(tmp_path)) == 1 + 3 * x["inner"]
    assert x["metrics"]["peer_invocations"] == 3 * x["inner"]
    assert x["metrics"]["peer_min_runtime_s"] == pytest.approx(SECONDS, rel=1e-6)
    assert x["metrics"]["peer_bytes_per_s"] == pytest.approx(2 * 8 * 4096 / SECONDS, rel=1e-5)


@pytest.mark.parametrize("unit", ["GiB", "mbytes"])
def test_other_bandwidth_units_are_converted(parlab_bin, tmp_path, unit):
    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, ["-k", "copy", "-b", "babelstream-omp", "-t", "1", "-n", "2^20", "--reps", "1"],
                 env={"PARLAB_BABELSTREAM_DIR": str(d), "FAKE_BABELSTREAM_UNIT": unit})
    assert r.returncode == 0, r.stderr
    (x,) = doc["records"]
    assert x["status"] == "ok", x
    assert x["metrics"]["peer_bytes_per_s"] == pytest.approx(2 * 8 * 2 ** 20 / SECONDS, rel=1e-5)


# fault -> words the failed record's reason must contain
FAULTS = {
    "garbled": "no header line",
    "exit3": "exited with 3",
    "crash": "killed by SIGSEGV",
    "empty": "printed nothing on stdout",
    "wrongsize": "n_elements 4097, not the 4096 asked for",
    "norow": "no row for Triad",
    "badheader": "is not BabelStream's",
    "badbandwidth": "is not 3 x sizeof x n_elements / min_runtime",
    "shortrow": "has 7 fields, not 8",
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_misbehaving_binary_is_a_failed_record(parlab_bin, tmp_path, fault):
    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, ["-k", "triad", "-b", "babelstream-omp,pool", "-t", "2", "-n", "4096",
                                        "--reps", "1"],
                 env={"PARLAB_BABELSTREAM_DIR": str(d)}, fault=fault)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "INCOMPLETE" not in r.stderr
    assert doc["status"] == "complete"
    (peer,) = [x for x in doc["records"] if x["backend"] == "babelstream-omp"]
    (own,) = [x for x in doc["records"] if x["backend"] == "pool"]
    assert own["status"] == "ok"  # the run went on
    assert peer["status"] == "error", peer
    assert peer["validation"]["pass"] is False
    assert FAULTS[fault] in peer["reason"], peer["reason"]
    assert "babelstream-omp" in peer["reason"] and "OMP_NUM_THREADS=2 omp-stream" in peer["reason"], peer["reason"]
    assert "fake babelstream: " + fault in peer["reason"], peer["reason"]  # the binary's stderr tail


def test_failed_gold_check_is_a_failed_validation_with_its_timing(parlab_bin, tmp_path):
    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, ["-k", "add", "-b", "babelstream-omp", "-t", "1", "-n", "4096", "--reps", "2"],
                 env={"PARLAB_BABELSTREAM_DIR": str(d)}, fault="gold")
    assert r.returncode == 1, r.stderr
    (x,) = doc["records"]
    assert x["status"] == "failed-validation", x
    assert x["validation"]["pass"] is False
    assert "BabelStream's own gold check failed: FAILED validation of a[0]" in x["validation"]["detail"]
    assert x["time_s"]["median"] == pytest.approx(1.5 * SECONDS, rel=1e-6)  # measured, then judged


def test_without_a_binary_the_records_say_why(parlab_bin, tmp_path):
    # No directory configured, and nothing else planned: nothing can be measured, exit 2 with the
    # reasons and nothing written.
    r, doc = run(parlab_bin, tmp_path, ["-k", "triad", "-b", "babelstream-omp,babelstream-cuda", "-n", "4096",
                                        "-t", "1", "--reps", "1"])
    assert r.returncode == 2 and doc is None, r.stderr
    assert "PARLAB_BABELSTREAM_DIR" in r.stderr and "scripts/build-babelstream.sh" in r.stderr, r.stderr
    # Beside a backend that runs, the peers' records say why.
    r, doc = run(parlab_bin, tmp_path, ["-k", "triad", "-b", "babelstream-omp,babelstream-cuda,serial", "-n", "4096",
                                        "-t", "1", "--reps", "1"])
    assert r.returncode == 0, r.stderr
    assert {x["backend"]: x["status"] for x in doc["records"]} == {"babelstream-omp": "unavailable",
                                                                   "babelstream-cuda": "unavailable", "serial": "ok"}
    for x in doc["records"]:
        if x["backend"] != "serial":
            assert "PARLAB_BABELSTREAM_DIR" in x["reason"] and "scripts/build-babelstream.sh" in x["reason"], x["reason"]
    # A directory without the binary.
    empty = tmp_path / "empty"
    empty.mkdir()
    tmp2 = tmp_path / "second"
    tmp2.mkdir()
    r, doc = run(parlab_bin, tmp2, ["-k", "triad", "-b", "babelstream-omp,serial", "-n", "4096", "-t", "1", "--reps",
                                    "1"], env={"PARLAB_BABELSTREAM_DIR": str(empty)})
    assert r.returncode == 0, r.stderr
    (x,) = [x for x in doc["records"] if x["backend"] == "babelstream-omp"]
    assert x["status"] == "unavailable"
    assert "no omp-stream in " in x["reason"] and "empty" in x["reason"], x["reason"]
    assert str(empty) not in x["reason"], x["reason"]  # the results file holds no machine path
    assert calls(tmp2) == []


def test_peer_dir_option_overrides_the_environment(parlab_bin, tmp_path):
    d = peer_dir(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    r, doc = run(parlab_bin, tmp_path, ["-k", "mul", "-b", "babelstream-omp", "-n", "4096", "-t", "1", "--reps", "1",
                                        "--peer-dir", str(d)],
                 env={"PARLAB_BABELSTREAM_DIR": str(empty)})
    assert r.returncode == 0, r.stderr
    (x,) = doc["records"]
    assert x["status"] == "ok", x
    assert "--peer-dir" in [b for b in doc["context"]["backends"] if b["name"] == "babelstream-omp"][0]["detail"]


def test_cuda_model_gets_the_device_and_no_thread_count(parlab_bin, tmp_path):
    d = peer_dir(tmp_path, model="cuda")
    r, doc = run(parlab_bin, tmp_path, ["-k", "triad", "-b", "babelstream-cuda", "-n", "4096", "-t", "1,2",
                                        "--device", "0", "--reps", "1"],
                 env={"PARLAB_BABELSTREAM_DIR": str(d)})
    cuda = cuda_entry_line(parlab_bin)
    if "no CUDA device" in cuda or "no CUDA driver" in cuda:
        # A CUDA build on a machine without a GPU: the peer is unavailable for the same reason, and
        # a plan of it alone cannot be measured here (exit 2, the reason given, nothing written).
        assert r.returncode == 2 and doc is None, r.stderr
        assert "no CUDA device" in r.stderr or "no CUDA driver" in r.stderr, r.stderr
        return
    assert r.returncode == 0, r.stderr
    (x,) = doc["records"]  # one host thread: a thread sweep measures it once
    assert x["status"] == "ok", x
    assert x["threads"] == 1
    assert x["metrics"]["peer_bytes_per_s"] == pytest.approx(3 * 8 * 4096 / SECONDS, rel=1e-5)
    for c in calls(tmp_path):
        assert c["argv"][c["argv"].index("--device") + 1] == "0"
        assert c["OMP_NUM_THREADS"] is None  # parlab sets it for the OpenMP model only


def test_stream_peers_suite_plans_every_cpu_backend_and_both_peers(parlab_bin, tmp_path):
    d = peer_dir(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PARLAB_BABELSTREAM_DIR"}
    for extra in ({}, {"PARLAB_BABELSTREAM_DIR": str(d)}):
        r = subprocess.run([parlab_bin, "run", "stream-peers", "--dry-run"], capture_output=True, text=True,
                           env={**env, **extra}, timeout=120)
        assert r.returncode == 0, r.stderr
        # "  study  kernel  backend: N (threads ...; n ...)", and the wrapped lines of a reason
        lines = [line.split() for line in r.stdout.splitlines()[1:] if line.startswith("  ")]
        planned = {(t[0], t[1], t[2].rstrip(":")) for t in lines if len(t) >= 3 and t[2].endswith(":")}
        kernels = ["copy", "mul", "add", "triad", "dot"]
        listed = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, env={**env, **extra}).stdout
        cpu = [line.split()[0] for line in listed.splitlines() if line.split()[1:2] == ["cpu"]
               and not any(v in line.split()[0] for v in ("-dynamic", "-guided"))]
        for k in kernels:
            for b in cpu + ["babelstream-omp"]:
                assert ("stream-peers-cpu", k, b) in planned, (k, b)
            for b in ("cuda", "babelstream-cuda"):
                assert ("stream-peers-gpu", k, b) in planned, (k, b)
        # Kernel by kernel: each kernel's parlab backends and its BabelStream model run back to
        # back, so a drift of the machine's bandwidth falls on both sides alike.
        order = [(t[0], t[1]) for t in lines if len(t) >= 3 and t[2].endswith(":")]
        # likwid-bench's peakflops, a roof probe with no STREAM kernel beside it, comes last.
        assert order == sorted(order, key=lambda sk: (sk[0], (kernels + ["peakflops"]).index(sk[1]))), order
        for k in ("copy", "triad"):
            assert ("stream-peers-cpu", k, "likwid-bench-nt") in planned
        assert ("stream-peers-cpu", "peakflops", "likwid-bench-peakflops") in planned


def test_interrupting_parlab_stops_the_binary_and_leaves_the_measurement_to_resume(parlab_bin, tmp_path):
    d = peer_dir(tmp_path)
    out = tmp_path / "out"
    log = tmp_path / "calls.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "PARLAB_BABELSTREAM_DIR"}
    env.update({"PARLAB_BABELSTREAM_DIR": str(d), "FAKE_BABELSTREAM_LOG": str(log)})
    args = [parlab_bin, "run", "-k", "copy,triad", "-b", "babelstream-omp", "-t", "1", "-n", "4096", "--reps", "1",
            "--out", str(out), "--no-report", "--quiet"]
    # copy measures normally; triad hangs until parlab (alone: not the binary) gets SIGINT.
    env["FAKE_BABELSTREAM_FAULT"] = "ok"
    wrapper = d / "omp-stream"
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *Triad*) export FAKE_BABELSTREAM_FAULT=hang;; esac\n'
                       f'exec "{sys.executable}" "{FAKE}" "$@"\n')
    code, err, seconds = interrupt_once_logged(args, env, log, "Triad")
    assert seconds < 20  # the binary was stopped, not waited for
    assert code == 130, err
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "incomplete"
    assert [(x["kernel"], x["status"]) for x in doc["records"]] == [("copy", "ok")]  # triad: not an error record
    # --resume measures what the plan lacks.
    wrapper.write_text(wrapper.read_text().replace("export FAKE_BABELSTREAM_FAULT=hang;;", ";;"))
    r = subprocess.run([parlab_bin, "run", "--resume", run_dir_of(out), "--no-report", "--quiet"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "complete"
    assert sorted((x["kernel"], x["status"]) for x in doc["records"]) == [("copy", "ok"), ("triad", "ok")]


def test_the_bandwidth_figure_marks_each_sides_fastest_iteration(parlab_bin, tmp_path):
    # Beside BabelStream, the throughput bars (parlab's statistic, the median) carry each record's
    # fastest iteration too: BabelStream's own figure, and parlab's fastest repetition.
    from analysis.records import fastest_bytes_per_s, rate_of

    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, ["-k", "triad", "-b", "babelstream-omp,pool", "-t", "2", "-n", "4096",
                                        "--quick"], env={"PARLAB_BABELSTREAM_DIR": str(d)})  # one iteration a rep
    assert r.returncode == 0, r.stderr
    by = {x["backend"]: x for x in doc["records"]}
    peer, own = by["babelstream-omp"], by["pool"]
    assert fastest_bytes_per_s(peer) == peer["metrics"]["peer_bytes_per_s"]
    assert own["inner"] == 1
    assert fastest_bytes_per_s(own) == pytest.approx(own["work"]["bytes"] / own["time_s"]["min"])
    assert fastest_bytes_per_s(own) >= rate_of(own)[0]  # the fastest repetition beats the median
    assert fastest_bytes_per_s({"work": {"bytes": 0}, "time_s": {"min": 1.0}}) is None  # a count, no bytes
    # a repetition timed as the mean of several iterations has no fastest iteration to show
    assert fastest_bytes_per_s(dict(own, inner=4)) is None
    run_dir = run_dir_of(tmp_path / "out")
    res = run_plot(run_dir)
    assert res.returncode == 0, res.stderr
    plots = os.listdir(os.path.join(run_dir, "plots"))
    assert "throughput_ad-hoc_triad_2p12_double.png" in plots, plots


RATIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "stream-peers-ratios.py")


def test_ratios_script_pools_rounds_kernel_by_kernel(parlab_bin, tmp_path):
    # A stream-peers-shaped run in two rounds on the fake: the script sets each parlab backend
    # against BabelStream by the fastest iteration over both rounds and by the mean.
    from analysis.records import fastest_bytes_per_s, load_run

    suite = tmp_path / "peers.json"
    suite.write_text(json.dumps({
        "name": "stream-peers", "description": "t", "reps": 3, "rounds": 2, "warmup": 1, "min_rep_seconds": 0,
        "experiments": [{"study": "stream-peers-cpu", "kernel": k, "backends": b, "threads": "2", "sizes": [4096],
                         "precision": "double", "scaling": "none", **({"reps": 1} if b == ["babelstream-omp"] else {})}
                        for k in ("copy", "dot") for b in (["pool", "openmp"], ["babelstream-omp"])]}))
    d = peer_dir(tmp_path)
    r, doc = run(parlab_bin, tmp_path, [str(suite)], env={"PARLAB_BABELSTREAM_DIR": str(d)})
    assert r.returncode == 0, r.stderr
    assert sorted({x["round"] for x in doc["records"]}) == [1, 2] and len(doc["records"]) == 12
    run_dir = run_dir_of(tmp_path / "out")
    res = subprocess.run([sys.executable, RATIOS, run_dir], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert "(2 rounds)" in lines[0] and [x.split()[:2] for x in lines[1:]] == [["cpu", "copy"], ["cpu", "dot"]]
    by = {(x["kernel"], x["backend"]): x for x in load_run(run_dir)["records"]}
    want = fastest_bytes_per_s(by["dot", "pool"]) / fastest_bytes_per_s(by["dot", "babelstream-omp"])
    assert f"pool fastest {want:.3f}x" in lines[2], lines[2]
    res = subprocess.run([sys.executable, RATIOS, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "no results.json" in res.stderr, res.stderr
