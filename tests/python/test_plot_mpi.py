"""analysis/plot.py's MPI figures on synthetic records: speedup over ranks, latency vs ranks,
the mixed-mode comparison and their summary lines, grouped by the records' ranks and threads
fields (the backend names below are deliberately not the real ones where that proves it)."""
import copy

import pytest

from analysis.records import family_of
from analysis.series_mpi import mixed_mode_series
from analysis.series_mpi import mpi_latency_series, mpi_scaling_series
from analysis.summary import run_summary
from analysis.figures.throughput import throughput_figures
from conftest import BASE_DOC, plot_twice, record


def mpi_record(i, backend, ranks, threads, median, hosts=1, **kw):
    r = record(i, backend, threads, median, kind="mpi", **kw)
    r.update({"ranks": ranks, "ranks_per_node": -(-ranks // hosts), "hosts": hosts})
    return r


def us(x, calls=1000):
    """The median time of `calls` operations of x µs each."""
    return x * 1e-6 * calls


@pytest.fixture
def mpi_doc():
    """A distributed-suite-like run: pi strong scaling over ranks (1 and 2 threads per rank)
    beside one process's threads, weak scaling, the latency probes and the mixed-mode reduction."""
    doc = copy.deepcopy(BASE_DOC)
    doc["suite"] = "distributed"
    n = 1 << 24
    recs = [record(0, "pool", 1, 8.0, size=n, study="strong"), record(1, "pool", 2, 4.0, size=n, study="strong"),
            record(2, "pool", 4, 2.5, size=n, study="strong"), record(3, "openmp", 4, 2.2, size=n, study="strong"),
            mpi_record(4, "mpi+serial", 1, 1, 8.0, size=n, study="strong"),
            mpi_record(5, "mpi+serial", 2, 1, 4.1, size=n, study="strong"),
            mpi_record(6, "mpi+serial", 4, 1, 2.1, size=n, study="strong"),
            mpi_record(7, "mpi+pool", 1, 2, 4.2, size=n, study="strong"),
            mpi_record(8, "mpi+pool", 2, 2, 2.4, size=n, study="strong"),
            # no 1-rank record: the baseline is the fastest single process at 1 thread
            mpi_record(9, "mpi+tbb", 2, 1, 5.0, size=n, study="strong"),
            mpi_record(10, "mpi+tbb", 4, 1, 2.5, size=n, study="strong")]
    base = 1 << 20
    for i, (rk, t) in enumerate([(1, 1.0), (2, 1.1), (4, 1.25)]):
        recs.append(mpi_record(20 + i, "mpi+serial", rk, 1, t, size=base * rk, scaling="weak", study="weak"))
    for i, (kernel, lat) in enumerate([("mpi_barrier", {1: 0.01, 2: 0.4, 4: 2.0}),
                                       ("mpi_allreduce", {1: 0.02, 2: 0.5, 4: 3.0}),
                                       ("mpi_bcast", {1: 0.01, 2: 0.3, 4: 1.0})]):
        for j, (rk, x) in enumerate(sorted(lat.items())):
            recs.append(mpi_record(30 + 3 * i + j, "mpi+serial", rk, 1, us(x), kernel=kernel, size=1000,
                                   scaling="none", study="latency"))
    red = [record(50, "pool", 1, us(0.05), kernel="overhead_reduce", size=1000, scaling="none", study="mixed-mode"),
           record(51, "pool", 2, us(0.5), kernel="overhead_reduce", size=1000, scaling="none", study="mixed-mode"),
           record(52, "pool", 4, us(1.5), kernel="overhead_reduce", size=1000, scaling="none", study="mixed-mode"),
           mpi_record(53, "mpi+serial", 1, 1, us(0.03), kernel="overhead_reduce", size=1000, scaling="none",
                      study="mixed-mode"),
           mpi_record(54, "mpi+serial", 2, 1, us(0.6), kernel="overhead_reduce", size=1000, scaling="none",
                      study="mixed-mode"),
           mpi_record(55, "mpi+serial", 4, 1, us(3.2), kernel="overhead_reduce", size=1000, scaling="none",
                      study="mixed-mode"),
           mpi_record(56, "mpi+pool", 2, 2, us(2.4), kernel="overhead_reduce", size=1000, scaling="none",
                      study="mixed-mode"),
           mpi_record(57, "mpi+pool", 1, 2, us(0.7), kernel="overhead_reduce", size=1000, scaling="none",
                      study="mixed-mode")]
    doc["records"] = recs + red + [record(60, "mpi+cuda", 1, 0.0, kind="mpi", status="unavailable")]
    return doc


def test_speedup_over_ranks_is_the_one_rank_time_over_the_r_rank_time(mpi_doc):
    series = mpi_scaling_series(mpi_doc)
    one = series[("strong", "strong", "pi", 1 << 24, "int32", 1)]
    pts = {p["ranks"]: p for p in one["mpi+serial"]}
    assert pts[2]["speedup"] == pytest.approx(8.0 / 4.1) and pts[4]["speedup"] == pytest.approx(8.0 / 2.1)
    assert pts[4]["efficiency"] == pytest.approx(8.0 / 2.1 / 4) and pts[4]["cores"] == 4
    # Beside one process on as many threads: the fastest of pool and openmp at 4 threads.
    assert pts[4]["vs_single"] == pytest.approx(2.2 / 2.1) and pts[4]["single_backend"] == "openmp"
    assert pts[1]["vs_single"] == pytest.approx(8.0 / 8.0)
    # A backend without a 1-rank record: the fastest single process at 1 thread, labelled so.
    tbb = one["mpi+tbb (vs best single process: pool t=1)"]
    assert [p["speedup"] for p in tbb] == pytest.approx([8.0 / 5.0, 8.0 / 2.5])
    # 2 threads per rank is its own group, cores = ranks x threads.
    two = series[("strong", "strong", "pi", 1 << 24, "int32", 2)]["mpi+pool"]
    assert [(p["ranks"], p["cores"]) for p in two] == [(1, 2), (2, 4)]
    assert two[1]["speedup"] == pytest.approx(4.2 / 2.4) and two[1]["vs_single"] == pytest.approx(2.2 / 2.4)


def test_ranks_come_from_the_fields_not_the_names(mpi_doc):
    for r in mpi_doc["records"]:
        if r.get("ranks") is not None:
            r["backend"] = r["backend"].replace("mpi+", "cluster-")
    series = mpi_scaling_series(mpi_doc)
    assert "cluster-serial" in series[("strong", "strong", "pi", 1 << 24, "int32", 1)]
    # and a single-process record never joins an MPI line, whatever it is called
    mpi_doc["records"].append(record(99, "cluster-serial", 1, 0.1, size=1 << 24, study="strong"))
    pts = mpi_scaling_series(mpi_doc)[("strong", "strong", "pi", 1 << 24, "int32", 1)]["cluster-serial"]
    assert pts[0]["speedup"] == 1.0 and pts[0]["vs_single"] == pytest.approx(0.1 / 8.0)


def test_weak_scaling_over_ranks(mpi_doc):
    (pts,) = mpi_scaling_series(mpi_doc)[("weak", "weak", "pi", 1 << 20, "int32", 1)].values()
    assert [p["efficiency"] for p in pts] == pytest.approx([1.0, 1.0 / 1.1, 1.0 / 1.25])
    assert pts[-1]["speedup"] == pytest.approx(4 / 1.25)


def test_latency_is_microseconds_per_call_beside_the_reduction_overhead(mpi_doc):
    s = mpi_latency_series(mpi_doc)
    assert dict(s["probes"]["8-byte allreduce (mpi+serial)"]) == pytest.approx({1: 0.02, 2: 0.5, 4: 3.0})
    assert set(s["probes"]) == {"barrier (mpi+serial)", "8-byte allreduce (mpi+serial)",
                                "8-byte broadcast (mpi+serial)"}
    assert dict(s["reduce"]["pool reduction over threads (1 process)"]) == pytest.approx({1: 0.05, 2: 0.5, 4: 1.5})
    assert dict(s["reduce"]["mpi+serial reduction over ranks (1 thread each)"]) == pytest.approx(
        {1: 0.03, 2: 0.6, 4: 3.2})
    assert len(s["reduce"]) == 2  # the hybrids (2 threads per rank) go to the mixed-mode bars


def test_no_probes_no_latency_figure_data(mpi_doc):
    mpi_doc["records"] = [r for r in mpi_doc["records"] if not r["kernel"].startswith("mpi_")]
    assert mpi_latency_series(mpi_doc) == {"probes": {}, "reduce": {}}


def test_mixed_mode_compares_layouts_of_the_same_cores(mpi_doc):
    series = mixed_mode_series(mpi_doc)
    # Groups holding a hybrid (ranks > 1 and threads > 1); weak scaling and the probes have none.
    assert list(series) == [("mixed-mode", "overhead_reduce", 1000, "int32"), ("strong", "pi", 1 << 24, "int32")]
    pi = series[("strong", "pi", 1 << 24, "int32")]
    assert sorted(pi) == [1, 2, 4]  # 4 cores: 1 process x 4 threads, 4 ranks x 1, 2 ranks x 2
    assert [(x["ranks"], x["threads"], x["backend"]) for x in pi[4]] == [
        (4, 1, "mpi+serial"), (None, 4, "openmp"), (2, 2, "mpi+pool"), (None, 4, "pool"), (4, 1, "mpi+tbb")]
    assert pi[4][0]["unit"] == "s" and pi[4][0]["value"] == 2.1
    table = series[("mixed-mode", "overhead_reduce", 1000, "int32")]
    assert sorted(table) == [1, 2, 4]
    four = table[4]
    assert [(x["ranks"], x["threads"]) for x in four] == [(None, 4), (2, 2), (4, 1)]  # fastest first
    assert [x["value"] for x in four] == pytest.approx([1.5, 2.4, 3.2]) and four[0]["unit"] == "µs"
    assert four[0]["label"] == "1 process x 4 threads (pool)" and four[1]["label"] == "2 ranks x 2 threads (mpi+pool)"


def test_summary_has_one_line_per_mpi_figure(mpi_doc):
    findings = run_summary(mpi_doc)["findings"]
    strong = next(f for f in findings if (f["study"], f["kernel"]) == ("strong", "pi"))
    text = " | ".join(strong["finding"])
    assert "mpi+serial at 4 ranks x 1 thread: 3.81x over 1 rank (ideal 4x); 1.05x the best single process at " \
           "4 threads (openmp)" in text
    assert "mpi+pool at 2 ranks x 2 threads: 1.75x over 1 rank (ideal 2x)" in text
    assert strong["finding"][0].startswith("fastest: mpi+serial (t=1, 4 ranks)")
    allreduce = next(f for f in findings if f["kernel"] == "mpi_allreduce")
    assert any("3 µs per call at 4 ranks (0.02 µs at 1)" in x for x in allreduce["finding"])
    assert any("pool reduction over threads (1 process): 1.5 µs at 4" in x for x in allreduce["finding"])
    mixed = next(f for f in findings if f["kernel"] == "overhead_reduce")
    assert mixed["finding"] == ["mixed mode at 4 cores: fastest 1 process x 4 threads (pool) 1.5 µs, "
                                "slowest 4 ranks x 1 thread (mpi+serial) 3.2 µs"]
    weak = next(f for f in findings if f["study"] == "weak")
    assert any("3.20x scaled (weak) over 1 rank" in x for x in weak["finding"])


def test_mpi_figures_are_written_and_deterministic(tmp_path, mpi_doc):
    (d, a), (_, b) = plot_twice(tmp_path, mpi_doc)
    names = sorted(a)
    for want in ("mpi_speedup_strong_strong_pi_2p24_int32_t1.png", "mpi_speedup_strong_strong_pi_2p24_int32_t2.png",
                 "mpi_speedup_weak_weak_pi_2p20_int32_t1.png", "mpi_latency.png", "mpi_latency.svg",
                 "mixed_mode_mixed-mode_overhead_reduce_1000_int32.png"):
        assert want in names, names
    assert a == b
    html = (d / "report.html").read_text()
    assert "over 1 rank" in html and "mixed mode at 4 cores" in html


def test_throughput_bars_take_each_mpi_backend_at_its_widest_job(mpi_doc, tmp_path):
    """An MPI backend's bar is its job of the most ranks x threads, labelled with both; a bar
    from its 1-rank record (threads alone are 1 at every rank count) would say nothing."""
    class Recorder:
        def __init__(self):
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            self.plt, self.saved = plt, []

        def save(self, fig, name, title):
            labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
            self.saved.append((name, labels))
            self.plt.close(fig)
    rec = Recorder()
    throughput_figures(rec, mpi_doc)
    labels = dict(rec.saved)["throughput_strong_pi_2p24_int32"]
    assert "mpi+serial (4 ranks x 1 thread)" in labels
    assert "mpi+pool (2 ranks x 2 threads)" in labels
    assert "pool (t=4)" in labels


def test_summary_has_no_fastest_line_for_latency_probes(mpi_doc):
    rows = run_summary(mpi_doc)["findings"]
    for row in rows:
        if any(family_of(r) == "comm" for r in mpi_doc["records"] if r["kernel"] == row["kernel"]):
            assert not any(f.startswith("fastest") for f in row["finding"]), row
    assert any(row["kernel"] == "mpi_barrier" and "µs per call" in row["finding"][0] for row in rows)


def test_latency_lines_split_within_one_host_and_across_hosts_by_the_hosts_field(mpi_doc):
    # The same backend and rank count, once on one host and once over 2: two lines, told apart by
    # the records' hosts field alone (the backend name is the same).
    recs = [r for r in mpi_doc["records"] if r["kernel"] != "mpi_allreduce"]
    n = len(recs)
    recs += [mpi_record(n, "mpi+serial", 2, 1, us(20.0), kernel="mpi_allreduce", size=1000, scaling="none",
                        study="latency"),
             mpi_record(n + 1, "mpi+serial", 2, 1, us(120.0), hosts=2, kernel="mpi_allreduce", size=1000,
                        scaling="none", study="latency")]
    mpi_doc["records"] = recs
    probes = mpi_latency_series(mpi_doc)["probes"]
    assert dict(probes["8-byte allreduce (mpi+serial, within 1 host)"]) == pytest.approx({2: 20.0})
    assert dict(probes["8-byte allreduce (mpi+serial, across 2 hosts)"]) == pytest.approx({2: 120.0})
