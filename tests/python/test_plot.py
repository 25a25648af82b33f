"""analysis/plot.py on synthetic result files: figures, report, determinism, errors."""
import copy
import json

from analysis.series import gil_series
from analysis.series import libraries_table
from analysis.series import scaling_series
from conftest import BASE_DOC, plot_twice, record, run_plot, write_doc


def test_speedup_is_median_serial_time_over_median_time(scaling_doc):
    series = scaling_series(scaling_doc)
    (key, by_backend), = series.items()
    assert key[1:3] == ("strong", "pi")
    pool = {t: (s, e) for t, s, e in by_backend["pool"]}
    assert pool[1] == (1.0, 1.0)
    assert abs(pool[2][0] - 8.0 / 4.2) < 1e-12 and abs(pool[2][1] - 8.0 / 4.2 / 2) < 1e-12
    assert abs(pool[4][0] - 8.0 / 2.5) < 1e-12
    tbb = {t: s for t, s, _ in by_backend["tbb"]}
    assert abs(tbb[4] - 4.0) < 1e-12          # serial 8 s / 2 s: the serial time is the baseline,
    assert abs(tbb[1] - 8.0 / 8.4) < 1e-12    # not tbb's own 1-thread time
    assert "cuda" not in by_backend           # GPU records have no thread axis


def test_without_serial_the_baseline_is_the_own_one_thread_time(scaling_doc):
    scaling_doc["records"] = [r for r in scaling_doc["records"] if r["backend"] != "serial"]
    (by_backend,) = scaling_series(scaling_doc).values()
    pts = by_backend["tbb (vs own 1 thread)"]
    assert abs(pts[-1][1] - 8.4 / 2.0) < 1e-12


def test_weak_scaling_efficiency(scaling_doc):
    for r in scaling_doc["records"]:
        if r["kernel"] == "pi":
            r["scaling"] = "weak"
            r["size"] = (1 << 20) * r["threads"]
    (by_backend,) = scaling_series(scaling_doc).values()
    pool = {t: (s, e) for t, s, e in by_backend["pool"]}
    assert abs(pool[4][1] - 8.0 / 2.5) < 1e-12 and abs(pool[4][0] - 8.0 * 4 / 2.5) < 1e-12


def test_figures_and_report_are_written(tmp_path, scaling_doc):
    d = write_doc(tmp_path, scaling_doc)
    res = run_plot(str(d))
    assert res.returncode == 0, res.stderr
    names = sorted(p.name for p in (d / "plots").iterdir())
    assert any(n.startswith("speedup_") and n.endswith(".png") for n in names)
    assert any(n.startswith("speedup_") and n.endswith(".svg") for n in names)
    assert any(n.startswith("bandwidth_triad") for n in names)
    assert any(n.startswith("throughput_") for n in names)
    html = (d / "report.html").read_text()
    assert "data:image/png;base64," in html          # self-contained
    assert "Fixture CPU" in html and "fixture data" in html  # context and warnings
    assert html.count("<tr") > len(scaling_doc["records"])    # a row per record


def test_output_is_deterministic(tmp_path, scaling_doc):
    (_, a), (_, b) = plot_twice(tmp_path, scaling_doc)
    assert a == b


def test_failed_records_are_shown_loudly(tmp_path, scaling_doc):
    scaling_doc["records"][2]["status"] = "failed-validation"
    scaling_doc["records"][2]["validation"] = {"pass": False, "detail": "hits differ"}
    d = write_doc(tmp_path, scaling_doc)
    assert run_plot(str(d)).returncode == 0
    html = (d / "report.html").read_text()
    assert "failed validation" in html and "class='failed'" in html and "hits differ" in html


def test_malformed_files_give_a_clear_error(tmp_path, scaling_doc):
    cases = {
        "notjson": "{ this is not json",
        "noschema": json.dumps({"records": []}),
        "norecords": json.dumps({k: v for k, v in scaling_doc.items() if k != "records"}),
        "badrecord": json.dumps({**scaling_doc, "records": [{"kernel": "pi"}]}),
        "zerotime": json.dumps({**scaling_doc, "records": [{**scaling_doc["records"][0], "time_s": {"median": 0}}]}),
    }
    for name, text in cases.items():
        d = tmp_path / name
        d.mkdir()
        (d / "results.json").write_text(text)
        res = run_plot(str(d))
        assert res.returncode == 2, (name, res.stderr)
        assert "results.json" in res.stderr and "Traceback" not in res.stderr, (name, res.stderr)
        assert not (d / "report.html").exists()
    res = run_plot(str(tmp_path / "missing"))
    assert res.returncode == 2 and "no such file" in res.stderr


def test_lab_figures(tmp_path, scaling_doc):
    from conftest import record

    lab = []
    for i, (kernel, backend, threads, share) in enumerate([("count_racy", "pool", 1, 0.0), ("count_racy", "pool", 2, 0.9),
                                                           ("count_atomic", "pool", 2, 0.0)]):
        r = record(100 + i, backend, threads, 0.01, kernel=kernel, scaling="none", study="races")
        r["metrics"] = {"trials": 21, "deviating_trials": 21 * share, "deviating_share": share,
                        "max_abs_deviation": 5.0 * share, "max_rel_deviation": share / 10, "distinct_results": 3, "exact": 100}
        lab.append(r)
    for i, (backend, threads, t) in enumerate([("serial", 1, 1e-6), ("pool", 1, 1.1e-6), ("pool", 2, 3e-6)]):
        lab.append(record(200 + i, backend, threads, t * 200, kernel="overhead_empty", size=200, scaling="none",
                          study="overhead"))
    scaling_doc["records"] += lab
    d = write_doc(tmp_path, scaling_doc)
    res = run_plot(str(d))
    assert res.returncode == 0, res.stderr
    names = {p.name for p in (d / "plots").iterdir()}
    assert {"races.png", "races.svg", "overhead.png", "overhead.svg"} <= names
    # Lab kernels never appear in speed figures.
    assert not any("count_racy" in n or "overhead_empty" in n for n in names)


def test_gpu_study_and_gil_figures(tmp_path, scaling_doc):
    from conftest import record

    extra = []
    for i, (kernel, size) in enumerate([(k, s) for k in ("transfer_pageable", "transfer_pinned") for s in (4096, 1 << 20, 1 << 26)]):
        r = record(300 + i, "cuda", 1, 1e-9 * size + 1e-5, kernel=kernel, size=size, scaling="none", study="transfers",
                   kind="gpu", precision="double")
        r["rate"] = {"bytes_per_s": 2 * size / r["time_s"]["median"]}
        extra.append(r)
    for i, (kernel, k_s, t_s) in enumerate([("logging_every_step", 0.01, 0.05), ("logging_on_device", 0.01, 0.0001)]):
        r = record(400 + i, "cuda", 1, k_s + t_s, kernel=kernel, size=1000, scaling="none", study="logging", kind="gpu")
        r["kernel_s"], r["transfer_s"] = k_s, t_s
        extra.append(r)
    for i, (backend, threads, t) in enumerate([("py-parlab-gil-released", 1, 2.0), ("py-parlab-gil-released", 2, 1.02),
                                               ("py-parlab-gil-held", 1, 2.0), ("py-parlab-gil-held", 2, 2.05)]):
        extra.append(record(500 + i, backend, threads, t, kind="python", study="gil"))
    scaling_doc["records"] += extra
    series = gil_series(scaling_doc)
    assert abs(dict(series["py-parlab-gil-released"])[2] - 2.0 / 1.02) < 1e-12
    assert abs(dict(series["py-parlab-gil-held"])[2] - 2.0 / 2.05) < 1e-12
    d = write_doc(tmp_path, scaling_doc)
    res = run_plot(str(d))
    assert res.returncode == 0, res.stderr
    names = {p.name for p in (d / "plots").iterdir()}
    assert {"gpu_transfers.png", "gpu_logging.png", "gil.png"} <= names
    assert not any(n.startswith("bandwidth_transfer") or n.startswith("throughput_transfers") for n in names)


def test_libraries_table_and_figures(tmp_path):
    """parlab's fastest backend of the same device kind and thread count against each Python
    library backend at its highest thread count; ratios from the medians; a figure per kernel and a report table."""
    doc = copy.deepcopy(BASE_DOC)
    size = 1 << 20
    recs = [record(0, "pool", 1, 1.0, study="libraries", scaling="none"),
            record(1, "pool", 4, 0.25, study="libraries", scaling="none"),
            record(2, "tbb", 4, 0.20, study="libraries", scaling="none"),
            record(3, "py-numba-prange", 1, 2.0, study="libraries", scaling="none", kind="python"),
            record(4, "py-numba-prange", 4, 0.6, study="libraries", scaling="none", kind="python"),
            record(5, "py-numpy", 1, 8.0, study="libraries", scaling="none", kind="python"),
            record(6, "cuda", 1, 0.01, study="libraries", scaling="none", kind="gpu"),
            record(7, "py-torch", 1, 0.08, study="libraries", scaling="none", kind="python"),
            record(8, "pool", 4, 0.5, kernel="triad", study="libraries", scaling="none", precision="double"),
            record(9, "py-numba-prange", 4, 0.4, kernel="triad", study="libraries", scaling="none", kind="python",
                   precision="double"),
            record(10, "py-cupy", 1, 0.0, study="libraries", scaling="none", kind="python", status="unavailable"),
            record(11, "pool", 4, 0.1, study="other", scaling="none")]  # another study: not a library row
    doc["records"] = recs
    rows = libraries_table(doc)
    got = {(r["kernel"], r["library"]): (r["parlab"], r["parlab_threads"], r["threads"], round(r["ratio"], 9)) for r in rows}
    assert got == {
        ("pi", "py-numba-prange"): ("tbb", 4, 4, round(0.6 / 0.20, 9)),
        ("pi", "py-numpy"): ("pool", 1, 1, round(8.0 / 1.0, 9)),
        ("pi", "py-torch"): ("cuda", 1, 1, round(0.08 / 0.01, 9)),
        ("triad", "py-numba-prange"): ("pool", 4, 4, round(0.4 / 0.5, 9)),
    }
    assert all(r["size"] == size for r in rows if r["kernel"] == "pi")
    d = write_doc(tmp_path, doc)
    res = run_plot(str(d), "--quiet")
    assert res.returncode == 0, res.stderr
    names = {p.name for p in (d / "plots").iterdir()}
    assert {"libraries_pi.png", "libraries_pi.svg", "libraries_triad.png", "libraries_triad.svg"} <= names
    report = (d / "report.html").read_text()
    assert "<h2>Python libraries</h2>" in report and "py-numba-prange" in report
    # Records from before the rename carry the study "peers": the same rows.
    old = copy.deepcopy(doc)
    for r in old["records"]:
        if r["study"] == "libraries":
            r["study"] = "peers"
    assert libraries_table(old) == rows
