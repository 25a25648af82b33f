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


NODE = "h200-node-16core"


def test_quoted_strong_scaling_at_16_threads():
    doc = load(NODE, "20261121T163117Z")
    series = plot.scaling_series(doc)
    pi = next(v for k, v in series.items() if k[1:3] == ("strong", "pi"))
    triad = next(v for k, v in series.items() if k[1:3] == ("strong", "triad"))
    at16 = lambda s, b: round(dict((t, x) for t, x, _ in s[b])[16], 1)  # noqa: E731
    m = quoted(r"pool ([\d.]+)×, tbb ([\d.]+)×, openmp ([\d.]+)×, threads ([\d.]+)×; triad")
    assert [float(x) for x in m.groups()] == [at16(pi, b) for b in ("pool", "tbb", "openmp", "threads")]
    m = quoted(r"reaches tbb ([\d.]+)×, pool ([\d.]+)×, openmp ([\d.]+)×, threads ([\d.]+)×")
    assert [float(x) for x in m.groups()] == [at16(triad, b) for b in ("tbb", "pool", "openmp", "threads")]
    rate = {(r["backend"], r["threads"]): plot.rate_of(r)[0] for r in doc["records"]
            if r["kernel"] == "pi" and r["scaling"] == "strong"}
    m = quoted(r"one core alone ran ([\d.e+]+) samples/s \(serial\), 16 busy cores ([\d.e+]+) each")
    assert float(m.group(1)) == float(f"{rate[('serial', 1)]:.2e}")
    assert float(m.group(2)) == round(rate[("pool", 16)] / 16 / 1e9, 2) * 1e9  # quoted as 0.xxe9


def test_quoted_overheads_at_16_threads():
    doc = load(NODE, "20261121T162736Z")
    per = {(r["kernel"], r["backend"], r["threads"]): r["time_s"]["median"] / r["size"] * 1e6
           for r in doc["records"] if r["kernel"].startswith("overhead_")}
    ref = {k: v for (k, b, t), v in per.items() if b == "serial"}
    over = lambda k, b: per[(k, b, 16)] - ref[k]  # noqa: E731
    m = quoted(r"empty fork-join pool ([\d.]+) µs, tbb ([\d.]+) µs, openmp\s+\(libgomp\) ([\d.]+) µs")
    assert [float(x) for x in m.groups()] == [round(over("overhead_empty", b), 1) for b in ("pool", "tbb", "openmp")]
    m = quoted(r"per thread pool ([\d.]+) µs, tbb ([\d.]+) µs, openmp ([\d.]+) µs")
    assert [float(x) for x in m.groups()] == [round(over("overhead_for", b), 1) for b in ("pool", "tbb", "openmp")]
    m = quoted(r"reduction pool ([\d.]+) µs, tbb ([\d.]+) µs, openmp\s+([\d.]+) µs")
    assert [float(x) for x in m.groups()] == [round(over("overhead_reduce", b), 1) for b in ("pool", "tbb", "openmp")]


def test_quoted_google_benchmark_overheads_at_16_threads():
    text = open(os.path.join(ROOT, "results", NODE, "logs", "bench_overhead.txt"), encoding="utf-8").read()
    med = {(m.group(1), m.group(2)): float(m.group(3)) / 1000 for m in re.finditer(
        r"^(\w+)/([\w-]+)/threads:16/real_time_median\s+([\d.]+) ns", text, re.M)}
    for construct, label in (("empty_region", "empty region"), ("reduction", "reduction"),
                             ("parallel_for", "parallel for")):
        m = quoted(label.replace(" ", r"\s+") + r"\s+pool ([\d.]+)(?: µs)?,\s+tbb\s+([\d.]+),\s+openmp\s+([\d.]+)[;.]")
        assert [float(x) for x in m.groups()] == [
            round(med[(construct, b)], 2 if construct != "parallel_for" else 1) for b in ("pool", "tbb", "openmp")]


def test_quoted_gil_figures_on_16_cores():
    series = {b: dict(v) for b, v in plot.gil_series(load(NODE, "20261121T164310Z")).items()}
    at16 = lambda b: round(series[b][16], 2)  # noqa: E731
    m = quoted(r"GIL released (\d+\.\d+)× \(the threads\s+waited")
    assert float(m.group(1)) == at16("py-parlab-gil-released")
    assert float(quoted(r"with the GIL held (\d+\.\d+)×").group(1)) == at16("py-parlab-gil-held")
    assert float(quoted(r"pure-Python\s+threads (\d+\.\d+)×").group(1)) == at16("py-pure-threads")
    assert float(quoted(r"its own GIL, (\d+\.\d+)×").group(1)) == at16("py-subinterp")
    m = quoted(r"Numba\s+`nogil` threads (\d+\.\d+)× and Numba `prange` (\d+\.\d+)×")
    assert [float(x) for x in m.groups()] == [at16("py-numba-nogil"), at16("py-numba-prange")]
    first = {b: dict(v) for b, v in plot.gil_series(load(NODE, "20261121T162314Z")).items()}
    second = {b: dict(v) for b, v in plot.gil_series(load(NODE, "20261121T163938Z")).items()}
    m = quoted(r"static range, made (\d+\.\d+)×, and\s+sub-interpreters with static ranges (\d+\.\d+)× and, "
               r"on another instance, (\d+\.\d+)×")
    assert [float(x) for x in m.groups()] == [round(first["py-parlab-gil-released"][16], 2),
                                              round(first["py-subinterp"][16], 2), round(second["py-subinterp"][16], 2)]
    per_call = []
    for run in ("20261121T164310Z", "20261121T163938Z", "20261121T162314Z"):
        r = next(r for r in load(NODE, run)["records"] if r["backend"] == "py-parlab-call-overhead")
        per_call.append(round(2 / r["rate"]["samples_per_s"] * 1e6, 2))
    m = quoted(r"took ([\d.]+) µs\s+\(([\d.]+) µs and ([\d.]+) µs in the two earlier runs\)")
    assert [float(x) for x in m.groups()] == per_call


def test_quoted_peers_table_on_16_cores():
    rows = {(r["kernel"], r["size"], r["threads"], r["peer"]): r for r in plot.peers_table(load(NODE, "20261121T164720Z"))}
    table = {}
    for line in README.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[3].endswith("×") and cells[0].startswith(("π", "triad")):
            table[(cells[0], cells[2].split()[0] + (" " + cells[2].split()[1] if "`" in cells[2] else ""))] = cells
    expect = (("π 2^32, GPU", "PyTorch", ("pi", 2**32, 1, "py-torch")),
              ("π 2^32, GPU", "CuPy", ("pi", 2**32, 1, "py-cupy")),
              ("π 2^27, 16 threads", "Numba `prange`", ("pi", 2**27, 16, "py-numba-prange")),
              ("π 2^27, 16 threads", "Numba `nogil`", ("pi", 2**27, 16, "py-numba-nogil")),
              ("π 2^27, 1 thread", "NumPy", ("pi", 2**27, 1, "py-numpy")),
              ("triad 2^25 double, 16 threads", "Numba `prange`", ("triad", 2**25, 16, "py-numba-prange")),
              ("triad 2^25 double, 1 thread", "NumPy", ("triad", 2**25, 1, "py-numpy")),
              ("triad 2^28 double, GPU", "CuPy `ElementwiseKernel`", ("triad", 2**28, 1, "py-cupy")))
    for label, peer, key in expect:
        cells = table[(label, peer)]
        r = rows[key]
        assert cells[3] == f"{r['ratio']:.2f}×", (label, peer)
        assert cells[1].split()[0] == r["parlab"], (label, peer)
        assert float(cells[1].split()[1]) == float(f"{r['parlab_rate']:.3e}"), (label, peer)
        assert float(cells[2].split()[-1]) == float(f"{r['peer_rate']:.3e}"), (label, peer)
    rate = {(r["backend"], r["threads"]): plot.rate_of(r)[0] for r in load(NODE, "20261121T164720Z")["records"]
            if r["kernel"] == "pi" and r["status"] == "ok"}
    m = quoted(r"pool scales ([\d.]+)× and Numba `prange` ([\d.]+)×")
    assert [float(x) for x in m.groups()] == [round(rate[(b, 16)] / rate[(b, 1)], 1) for b in ("pool", "py-numba-prange")]
    m = quoted(r"Numba ran ([\d.e+]+) \(`prange`\) and ([\d.e+]+) \(`nogil`\) samples/s against pool's ([\d.e+]+?)\.\s")
    assert [float(x) for x in m.groups()] == [float(f"{rate[(b, 1)]:.3e}") for b in ("py-numba-prange", "py-numba-nogil", "pool")]
    first = {(r["kernel"], r["peer"]): r for r in plot.peers_table(load(NODE, "20261121T162427Z")) if r["threads"] == 16}
    m = quoted(r"3\.34× here and ([\d.]+)× in the first peers run")
    assert float(m.group(1)) == round(first[("pi", "py-numba-prange")]["ratio"], 2)


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


X2 = "h200-x2"


def rate(doc, backend, size, kernel="pi", **fields):
    recs = [r for r in doc["records"] if r["status"] == "ok" and r["backend"] == backend and r["size"] == size
            and r["kernel"] == kernel and all(r.get(k) == v for k, v in fields.items())]
    assert len(recs) == 1, (backend, size, fields, len(recs))
    return plot.rate_of(recs[0])[0], recs[0]


def test_quoted_gpu_pi_kernel_figures():
    doc = load(X2, "20261122T222512Z")
    for n, text in ((1 << 36, "7.198e11"), (1 << 37, "7.204e11")):
        assert f"{rate(doc, 'cuda', n)[0]:.3e}".replace("e+", "e") == text and text in README
    cuda, _ = rate(doc, "cuda", 1 << 32)
    for peer, times in (("py-cupy", "206×"), ("py-torch", "521×")):
        assert f"{cuda / rate(doc, peer, 1 << 32)[0]:.0f}×" == times and times in README
    assert len({r["hits"] for r in doc["records"] if r["status"] == "ok" and r["size"] == 1 << 38}) == 1
    ncu = json.load(open(os.path.join(ROOT, "results", X2, "logs", "ncu", "ncu-summary.json")))
    pi = next(p for p in ncu["pi"] if p["variant"] == "ilp4-occ8" and p["clock_control"] == "none")
    assert f"{pi['issue_slots_busy_pct']:.2f}%" == "47.36%" and "issue slots busy 47.36%" in README
    # The goal: a pipe at >= 85% of peak (busy cycles over elapsed cycles), and the fractions quoted.
    assert pi["pipe_bound_pct"] >= 85 and f"busy {pi['pipe_bound_pct']:.2f}%" in README
    assert f"{pi['fraction_of_ceiling_run']:.3f} of it" in README and f"{pi['fraction_of_pipe_ceiling_run']:.3f} of it" in README


def test_quoted_multi_gpu_and_mpi_cuda():
    rows = {(r["backend"], r["kernel"], r["size"]): r["speedup"] for r in plot.multi_gpu_series(load(X2, "20261122T222731Z"))}
    assert f"{rows[('cuda-multi', 'pi', 1 << 38)]:.2f}" == "2.00" and f"{rows[('cuda-multi', 'triad', 1 << 28)]:.2f}" == "1.93"
    assert "1.99× one GPU\non π at 2^36 and 2.00× at 2^38, 1.93× on triad" in README
    pi = load(X2, "20261122T232517Z")
    one, _ = rate(pi, "cuda", 1 << 36)
    two, _ = rate(pi, "mpi+cuda", 1 << 36, ranks=2)
    assert f"{two / one:.3f}×" == "1.996×" and "1.996× `cuda`" in README
    triad = load(X2, "20261122T232521Z")
    ratio = rate(triad, "mpi+cuda", 1 << 28, "triad", ranks=2)[0] / rate(triad, "cuda", 1 << 28, "triad")[0]
    assert f"{ratio:.3f}×" == "1.944×" and "1.944×" in README


def test_quoted_distributed_figures():
    doc = load(X2, "20261122T232537Z")
    ranks16, _ = rate(doc, "mpi+serial", 1 << 30, ranks=16, study="strong")
    tbb16, _ = rate(doc, "tbb", 1 << 30, threads=16, study="strong")
    assert f"{ranks16 / tbb16:.2f}×" == "0.60×" and "**0.60×**" in README
    t16, _ = rate(doc, "mpi+serial", 1 << 26, "triad", ranks=16, study="strong")
    tt, _ = rate(doc, "tbb", 1 << 26, "triad", threads=16, study="strong")
    assert f"{t16 / tt:.2f}×" == "0.94×" and "0.94× tbb's" in README
    _, allreduce = rate(doc, "mpi+serial", 1000, "mpi_allreduce", ranks=16)
    assert f"{allreduce['time_s']['median'] / 1000 * 1e6:.2f} µs" == "4.07 µs" and "4.07 µs at 16 ranks" in README


def test_quoted_free_threaded_figures_on_16_cores():
    doc = load(NODE, "20261122T231800Z")
    def speedup(backend, gil):
        rs = {r["threads"]: r["time_s"]["median"] for r in doc["records"] if r["status"] == "ok"
              and r["backend"] == backend and r.get("interpreter", "").startswith("3.13") and r.get("gil_enabled") is gil}
        return rs[1] / rs[16]
    assert f"{speedup('py-pure-private', False):.2f}×" == "8.41×" and "**8.41×**" in README
    assert f"{speedup('py-pure-threads', False):.2f}×" == "1.75×"
    assert f"{speedup('py-parlab-gil-held', False):.2f}×" == "15.32×" and "15.32×" in README
    hits = {r["size"]: set() for r in doc["records"] if "hits" in r}
    for r in doc["records"]:
        if "hits" in r and r["status"] == "ok":
            hits[r["size"]].add(r["hits"])
    assert all(len(h) == 1 for h in hits.values())


def test_quoted_python_models_on_16_cores():
    doc = load(NODE, "20261122T233245Z")
    rows = {(r["backend"], r["threads"], r["size"]): r for r in plot.python_models_table(doc)}
    assert f"{rows[('py-processes', 16, 1 << 20)]['speedup_vs_one_thread']:.2f}×" == "13.94×" and "**13.94×**" in README
    assert f"{rows[('py-processes', 2, 1 << 20)]['speedup_vs_one_thread']:.2f}×" == "2.39×"
    assert f"{rows[('py-thread-pool', 16, 1 << 20)]['speedup_vs_one_thread']:.2f}×" == "0.78×"
    assert all(c["pass"] for c in doc["consistency"])


def test_quoted_four_gpu_figures():
    rows = {(r["backend"], r["kernel"], r["size"]): r for r in plot.multi_gpu_series(load("h200-x4", "20261122T233954Z"))}
    pi, triad = rows[("cuda-multi", "pi", 1 << 38)], rows[("cuda-multi", "triad", 1 << 30)]
    assert pi["devices"] == 4 and f"{pi['speedup']:.2f}" == "3.99" and f"{triad['speedup']:.2f}" == "3.94"
    assert f"{rows[('cuda-multi', 'triad', 1 << 28)]['speedup']:.2f}×" == "3.66×" and "3.66×" in README
    for run, kernel, n, quoted_ratio in (("20261122T234148Z", "pi", 1 << 38, "3.99"), ("20261122T234200Z", "triad", 1 << 30, "3.93")):
        doc = load("h200-x4", run)
        one = rate(doc, "cuda", n, kernel)[0]
        four = rate(doc, "mpi+cuda", n, kernel, ranks=4)[0]
        assert f"{four / one:.2f}" == quoted_ratio
        multi = rows[("cuda-multi", kernel, n)]["speedup"]
        assert abs(four / one / multi - 1) < 0.03
    assert "| mpi+cuda, 4 ranks (one per GPU) | **3.99×** | **3.93×** |" in README


def test_quoted_unequal_cores_probes():
    logs = os.path.join(ROOT, "results", NODE, "logs")
    # 16 independent processes: the fast and the slow group.
    text = open(os.path.join(logs, "mpi-probe-1e4557f.log"), encoding="utf-8").read()
    times = [float(x) for x in re.search(r"each process's median \(s\), sorted: ([\d. ]+)", text).group(1).split()]
    slow = [t for t in times if t > 0.35]
    fast = [t for t in times if t <= 0.35]
    m = quoted(r"at once \(no MPI, no Python\): (\d+) took ([\d.]+)–([\d.]+) s, (\d+) took ([\d.]+)–([\d.]+) s")
    assert (int(m.group(1)), float(m.group(2)), float(m.group(3))) == (len(fast), round(fast[0], 4), round(fast[-1], 4))
    assert (int(m.group(4)), float(m.group(5)), float(m.group(6))) == (len(slow), round(slow[0], 4), round(slow[-1], 4))
    # Ranks against threads, unbound then bound.
    unbound, bound = load(NODE, "20261123T030528Z"), load(NODE, "20261123T030552Z")
    rec = lambda doc, b, n: next(r for r in doc["records"] if r["backend"] == b and (r.get("ranks", 1) * r["threads"]) == n)  # noqa: E731
    tbb, pool, ranks = rec(unbound, "tbb", 16), rec(unbound, "pool", 16), rec(unbound, "mpi+serial", 16)
    m = quoted(r"tbb 16 threads ([\d.]+) s, pool ([\d.]+) s;\s+`mpi\+serial` at 16 ranks ([\d.]+) s, ([\d.]+)× tbb, "
               r"the ranks' own counting times ([\d.]+) s\s+\(fastest\) to ([\d.]+) s")
    want = [tbb["time_s"]["median"], pool["time_s"]["median"], ranks["time_s"]["median"],
            tbb["time_s"]["median"] / ranks["time_s"]["median"], ranks["metrics"]["rank_count_min_s"],
            ranks["metrics"]["rank_count_max_s"]]
    assert [float(x) for x in m.groups()] == [round(w, 4 if i != 3 else 2) for i, w in enumerate(want)]
    b = rec(bound, "mpi+serial", 16)
    assert all(c.startswith(f"r{i}:{i}") for i, c in enumerate(b["binding"].split()))  # one core each
    m = quoted(r"the next run\): ([\d.]+) s, fastest\s+([\d.]+) s, slowest ([\d.]+) s")
    assert [float(x) for x in m.groups()] == [round(b["time_s"]["median"], 4), round(b["metrics"]["rank_count_min_s"], 4),
                                             round(b["metrics"]["rank_count_max_s"], 4)]
    # Pure-Python threads and processes on 3.13t.
    probe = json.load(open(os.path.join(logs, "ft-probe-1e4557f-nogil.json")))
    at16 = {r["variant"]: round(r["speedup"], 2) for r in probe["rows"] if r["workers"] == 16}
    m = quoted(r"private modules ([\d.]+)×, shared module ([\d.]+)×; a private loop on cached small ints\s+"
               r"\(no allocation, nothing shared\) ([\d.]+)×, the same on 32-bit ints \(an int object per\s+"
               r"operation\) ([\d.]+)×, the π split over 16 processes ([\d.]+)×")
    assert [float(x) for x in m.groups()] == [at16[v] for v in ("threads-private", "threads-shared", "threads-smallint",
                                                                  "threads-bigint", "processes-private")]
    big = json.load(open(os.path.join(logs, "ft-probe-1e4557f-nogil-2e21.json")))
    m = quoted(r"private modules gave ([\d.]+)× in one run at 2\^21")
    assert float(m.group(1)) == round(next(r["speedup"] for r in big["rows"] if r["workers"] == 16), 2)


def test_quoted_unequal_cores_on_two_cores():
    static, dynamic = load("dev-2core", "20261123T033742Z"), load("dev-2core", "20261123T033744Z")
    (s,), (d,) = static["records"], dynamic["records"]
    assert s["hits"] == d["hits"] and s["binding"] == d["binding"] == "r0:0 r1:1"
    m = quoted(r"Equal shares: ([\d.]+) s, the rank sharing its core counted its\s+half in ([\d.]+) s, the other in ([\d.]+) s")
    assert [float(x) for x in m.groups()] == [round(s["time_s"]["median"], 4), round(s["metrics"]["rank_count_max_s"], 4),
                                             round(s["metrics"]["rank_count_min_s"], 4)]
    m = quoted(r"Chunks: ([\d.]+) s, the ranks took ([\d.]+) and ([\d.]+) of\s+the (\d+) chunks per run, both done within ([\d.]+) s")
    assert [float(x) for x in m.groups()] == [round(d["time_s"]["median"], 4), round(d["metrics"]["rank_chunks_min"], 1),
                                             round(d["metrics"]["rank_chunks_max"], 1), d["metrics"]["chunks"],
                                             round(d["metrics"]["rank_count_max_s"], 4)]
