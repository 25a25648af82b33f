"""The committed reference results never rot: every run under results/ still validates against
the schema and regenerates its figures, and the numbers results/README.md quotes are the ones
in the files."""
import glob
import json
import os
import re
import subprocess

import jsonschema
import pytest

import plot
from conftest import ROOT, SCHEMA, run_plot

def committed_runs():
    """The run directories git tracks under results/ (fresh local runs there are ignored by git
    and are not reference results); every one on disk when git is unavailable."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "results/*/*/results.json"], capture_output=True,
                             text=True, check=True).stdout.split()
        return sorted(os.path.join(ROOT, os.path.dirname(p)) for p in out)
    except (OSError, subprocess.CalledProcessError):
        return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(ROOT, "results", "*", "*", "results.json")))


RUNS = committed_runs()
README = open(os.path.join(ROOT, "results", "README.md"), encoding="utf-8").read()


def load(machine, run):
    with open(os.path.join(ROOT, "results", machine, run, "results.json"), encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("run_dir", RUNS, ids=[os.path.relpath(r, ROOT) for r in RUNS])
def test_committed_run_validates_and_replots(tmp_path, run_dir):
    doc = json.load(open(os.path.join(run_dir, "results.json"), encoding="utf-8"))
    jsonschema.validate(doc, json.load(open(SCHEMA)))
    assert doc["status"] == "complete"
    res = run_plot(run_dir, "--out", str(tmp_path), "--quiet")
    assert res.returncode == 0, res.stderr
    committed = {os.path.basename(p) for p in glob.glob(os.path.join(run_dir, "plots", "*"))}
    regenerated = {p.name for p in (tmp_path / "plots").iterdir()}
    assert committed == regenerated  # every committed figure comes back, nothing else
    assert (tmp_path / "report.html").exists()


def quoted(pattern):
    m = re.search(pattern, README)
    assert m, f"results/README.md no longer quotes {pattern!r}"
    return m


def test_quoted_strong_scaling_at_16_threads():
    doc = load("h200-node-16core", "20261121T125744Z")
    series = plot.scaling_series(doc)
    pi = next(v for k, v in series.items() if k[1:3] == ("strong", "pi"))
    triad = next(v for k, v in series.items() if k[1:3] == ("strong", "triad"))
    at16 = lambda s, b: round(dict((t, x) for t, x, _ in s[b])[16], 1)  # noqa: E731
    m = quoted(r"pool ([\d.]+)×, tbb ([\d.]+)×, openmp ([\d.]+)×, threads ([\d.]+)×; triad")
    assert [float(x) for x in m.groups()] == [at16(pi, b) for b in ("pool", "tbb", "openmp", "threads")]
    m = quoted(r"reaches tbb ([\d.]+)×, pool ([\d.]+)×, openmp ([\d.]+)×, threads ([\d.]+)×")
    assert [float(x) for x in m.groups()] == [at16(triad, b) for b in ("tbb", "pool", "openmp", "threads")]


def test_quoted_overheads_at_16_threads():
    doc = load("h200-node-16core", "20261121T130101Z")
    per = {(r["kernel"], r["backend"], r["threads"]): r["time_s"]["median"] / r["size"] * 1e6
           for r in doc["records"] if r["kernel"].startswith("overhead_")}
    ref = {k: v for (k, b, t), v in per.items() if b == "serial"}
    over = lambda k, b: per[(k, b, 16)] - ref[k]  # noqa: E731
    m = quoted(r"empty fork-join pool ([\d.]+) µs, tbb ([\d.]+) µs, openmp\s+\(libgomp\) ([\d.]+) µs")
    assert [float(x) for x in m.groups()] == [round(over("overhead_empty", b), 1) for b in ("pool", "tbb", "openmp")]
    m = quoted(r"reduction pool ([\d.]+) µs, tbb ([\d.]+) µs, openmp\s+([\d.]+) µs")
    assert [float(x) for x in m.groups()] == [round(over("overhead_reduce", b), 1) for b in ("pool", "tbb", "openmp")]


def test_quoted_gil_figures_on_two_cores():
    doc = load("dev-2core", "20261121T132952Z")
    rate = {(r["backend"], r["threads"]): r["rate"]["samples_per_s"] for r in doc["records"] if r["status"] == "ok"}
    released = rate[("py-parlab-gil-released", 2)] / rate[("py-parlab-gil-released", 1)]
    held = rate[("py-parlab-gil-held", 2)] / rate[("py-parlab-gil-held", 1)]
    m = quoted(r"GIL released ran at\s+([\d.e+]+) samples/s against ([\d.e+]+) on one \(([\d.]+)×\)")
    assert float(m.group(3)) == round(released, 2)
    assert float(m.group(1)) == float(f"{rate[('py-parlab-gil-released', 2)]:.2e}")
    assert float(m.group(2)) == float(f"{rate[('py-parlab-gil-released', 1)]:.2e}")
    m = quoted(r"GIL held ([\d.e+]+) against ([\d.e+]+)\s+\(([\d.]+)×\)")
    assert float(m.group(3)) == round(held, 2)


def test_quoted_gpu_goals():
    for machine, col in (("one-gpu", 1), ("two-gpus", 2)):
        goals = json.load(open(os.path.join(ROOT, "results", "h200-gpu", machine, "peers.json")))["goals"]
        pi = goals["pi samples/s (N=2^36)"]["value"]
        row = quoted(r"\| π at N = 2\^36 \(samples/s, ≥ 4.5e11\) \| ([\d.e]+) \| ([\d.e]+) \|")
        assert float(row.group(col)) == float(f"{pi:.2e}")
        triad = goals["triad double 2^28 bytes/s"]["value"]
        row = quoted(r"\| triad double 2\^28 \(B/s, ≥ 4.3e12\) \| ([\d.e]+) \| ([\d.e]+) \|")
        assert float(row.group(col)) == float(f"{triad:.3e}")
    two = json.load(open(os.path.join(ROOT, "results", "h200-gpu", "two-gpus", "peers.json")))["goals"]
    assert f"{two['pi on every GPU / one GPU']['value']:.3f}×" in README


def test_quoted_peers_on_two_cores():
    doc = load("dev-2core", "20261121T151501Z")
    rows = {(r["kernel"], r["peer"]): r for r in plot.peers_table(doc)}
    for kernel, peer, pattern in (
            ("pi", "py-numba-prange", r"pool ([\d.e+]+) samples/s\s+against Numba `prange` ([\d.e+]+) \(([\d.]+)×\)"),
            ("pi", "py-numba-nogil", r"Numba `nogil` threads ([\d.e+]+) \(([\d.]+)×\)"),
            ("pi", "py-numpy", r"tbb ([\d.e+]+) against NumPy's vectorised π ([\d.e+]+)\s+\(([\d.]+)×"),
            ("triad", "py-numba-prange", r"tbb ([\d.e+]+) B/s against\s+Numba `prange` ([\d.e+]+) \(([\d.]+)×"),
            ("triad", "py-numpy", r"tbb\s+([\d.e+]+) against NumPy ([\d.e+]+) \(([\d.]+)×")):
        r = rows[(kernel, peer)]
        m = quoted(pattern)
        assert float(m.group(m.lastindex)) == round(r["ratio"], 2), (kernel, peer)
        assert float(m.group(m.lastindex - 1)) == float(f"{r['peer_rate']:.3e}"), (kernel, peer)
        if m.lastindex == 3:
            assert float(m.group(1)) == float(f"{r['parlab_rate']:.3e}"), (kernel, peer)
