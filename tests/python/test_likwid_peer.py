"""The likwid-bench peers (peers/likwid.hpp): parlab runs likwid-bench once per run() at the
record's threads and working set, and writes a record beside its own backends' (kind peer, the
mean iteration's time, likwid-bench's own means as metrics), or, for a binary that misbehaves, an
error record naming the fault, never a crash; without a binary the records are unavailable with
the reason. The binary is a stand-in, tests/python/fakes/fake_likwid_bench.py, that prints
likwid-bench 5.2.2's report."""
import json
import os
import stat
import subprocess
import sys

import pytest
from conftest import interrupt_once_logged, run_dir_of

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes", "fake_likwid_bench.py")
SECONDS, ITERATIONS = 0.5, 64  # the fake's Time and iterations per thread


def fake_bin(tmp_path):
    """<tmp>/prefix/bin/likwid-bench: a wrapper that runs the fake (its sbin is <tmp>/prefix/sbin)."""
    d = tmp_path / "prefix" / "bin"
    d.mkdir(parents=True, exist_ok=True)
    exe = d / "likwid-bench"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


def run(parlab_bin, tmp_path, args, fault="ok", binary=None):
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "PARLAB_LIKWID_BENCH"}
    env.update({"FAKE_LIKWID_FAULT": fault, "FAKE_LIKWID_LOG": str(tmp_path / "calls.jsonl"),
                "PARLAB_LIKWID_BENCH": str(binary or fake_bin(tmp_path))})
    r = subprocess.run([parlab_bin, "run", *args, "--out", str(out), "--no-report", "--quiet"],
                       capture_output=True, text=True, env=env, timeout=300)
    doc = None
    if out.exists():
        doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    return r, doc


def calls(tmp_path):
    path = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_records_beside_parlab_at_the_same_threads_and_working_set(parlab_bin, tmp_path):
    n = 1 << 16
    r, doc = run(parlab_bin, tmp_path, ["-k", "copy,triad", "-b", "likwid-bench-nt,pool", "-t", "1,2", "-n", str(n),
                                        "-p", "double", "--reps", "2"])
    assert r.returncode == 0, r.stderr
    peers = [x for x in doc["records"] if x["backend"] == "likwid-bench-nt"]
    own = [x for x in doc["records"] if x["backend"] == "pool"]
    key = lambda x: (x["kernel"], x["threads"], x["size"])  # noqa: E731
    assert sorted(map(key, peers)) == sorted(map(key, own)) and len(peers) == 4
    words = {"copy": 2, "triad": 3}
    for x in peers:
        assert x["status"] == "ok", x
        assert x["kind"] == "peer" and x["family"] == "stream"
        # parlab's byte count, over the mean iteration's time (the statistic likwid-bench reports).
        assert x["work"]["bytes"] == words[x["kernel"]] * 8 * n
        assert x["time_s"]["median"] == pytest.approx(SECONDS / ITERATIONS)
        assert x["rate"]["bytes_per_s"] == pytest.approx(x["metrics"]["peer_mean_bytes_per_s"], abs=0.006e6)  # its 0.01 MByte/s
        assert "mean over its iterations" in x["validation"]["detail"]
    # An NT-store test (the widest of the CPU); the working set is every array's bytes, at the threads.
    argvs = [c["argv"] for c in calls(tmp_path)]
    assert all(a[0] == "-t" and a[2] == "-W" for a in argvs)
    assert any(a[1].startswith("copy_mem") and a[3] == f"N:{2 * 8 * n}B:2" for a in argvs)
    assert any(a[1].startswith("stream_mem") and a[3] == f"N:{3 * 8 * n}B:1" for a in argvs)
    # likwid-accessD's directory, the sbin beside the binary's bin, is on its PATH.
    assert all(c["PATH"].split(":")[-1] == str(tmp_path / "prefix" / "sbin") for c in calls(tmp_path))


def test_peakflops_counts_likwid_benchs_flops(parlab_bin, tmp_path):
    n = 1 << 11
    r, doc = run(parlab_bin, tmp_path, ["-k", "peakflops", "-b", "likwid-bench-peakflops", "-t", "2", "-n", str(n),
                                        "-p", "double", "--reps", "2"])
    assert r.returncode == 0, r.stderr
    (x,) = doc["records"]
    assert x["status"] == "ok", x
    assert x["work"]["flops"] == 30 * n and x["family"] == "peak"
    assert x["rate"]["flops_per_s"] == pytest.approx(x["metrics"]["peer_mean_flops_per_s"], abs=0.006e6)  # its 0.01 MFlops/s


@pytest.mark.parametrize("fault,words", [
    ("garbled", "not likwid-bench's report"), ("empty", "printed nothing"), ("exit1", "exited with 1"),
    ("crash", "SIGSEGV"), ("nombyte", "no 'MByte/s:' line"), ("badrate", "is not its total / Time"),
    ("sanitized", "working set is"), ("threads", "threads, not the 2 asked for")])
def test_a_misbehaving_binary_gives_an_error_record_naming_the_fault(parlab_bin, tmp_path, fault, words):
    r, doc = run(parlab_bin, tmp_path, ["-k", "copy", "-b", "likwid-bench-nt", "-t", "2", "-n", "1000",
                                        "-p", "double", "--reps", "1"], fault=fault)
    assert doc is not None, r.stderr
    (x,) = doc["records"]
    assert x["status"] == "error", x
    assert words in x["reason"], x["reason"]
    assert "likwid-bench-nt" in x["reason"]


def test_interrupting_parlab_stops_likwid_bench_and_leaves_the_measurement_to_resume(parlab_bin, tmp_path):
    # copy measures normally; triad (stream_mem_*) hangs until parlab gets SIGINT.
    exe = fake_bin(tmp_path)
    exe.write_text(f'#!/bin/sh\ncase "$*" in *stream_mem*) export FAKE_LIKWID_FAULT=hang;; esac\n'
                   f'exec "{sys.executable}" "{FAKE}" "$@"\n')
    out, log = tmp_path / "out", tmp_path / "calls.jsonl"
    env = {**os.environ, "PARLAB_LIKWID_BENCH": str(exe), "FAKE_LIKWID_FAULT": "ok", "FAKE_LIKWID_LOG": str(log)}
    args = [parlab_bin, "run", "-k", "copy,triad", "-b", "likwid-bench-nt", "-t", "1", "-n", "4096", "--reps", "1",
            "--out", str(out), "--no-report", "--quiet"]
    code, err, seconds = interrupt_once_logged(args, env, log, "stream_mem")
    assert seconds < 20 and code == 130, err
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "incomplete"
    assert [(x["kernel"], x["status"]) for x in doc["records"]] == [("copy", "ok")]  # triad: not an error record


def test_without_a_binary_the_records_say_why(parlab_bin, tmp_path):
    # Beside a backend that runs (a plan of unavailable backends alone exits 2 and writes nothing).
    r, doc = run(parlab_bin, tmp_path, ["-k", "copy", "-b", "likwid-bench-nt,serial", "-t", "1", "-n", "1024",
                                        "-p", "double", "--reps", "1"], binary=tmp_path / "nowhere")
    (x,) = [x for x in doc["records"] if x["backend"] == "likwid-bench-nt"]
    assert x["status"] == "unavailable" and "PARLAB_LIKWID_BENCH" in x["reason"] and "is not a file" in x["reason"]


def test_the_real_likwid_bench_where_installed(parlab_bin, tmp_path):
    """Where Debian's likwid is installed, one real invocation parses (a real report's format)."""
    real = "/usr/bin/likwid-bench"
    if not os.access(real, os.X_OK):
        pytest.skip("likwid-bench is not installed (scripts/install-deps.sh installs Debian's likwid)")
    r, doc = run(parlab_bin, tmp_path, ["-k", "copy", "-b", "likwid-bench-nt", "-t", "1", "-n", str(1 << 20),
                                        "-p", "double", "--reps", "1"], binary=real)
    (x,) = doc["records"]
    assert x["status"] == "ok", x
    assert x["metrics"]["peer_mean_bytes_per_s"] > 0
