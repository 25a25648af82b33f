"""The report's first screen: the summary table (as data, and as a user sees it in Chromium), and
figures that never mix kernels or hide small rates."""
import copy
import os
import shutil
import subprocess

import pytest

from analysis.series import gil_series
from analysis.series import multi_gpu_series
from analysis.summary import run_summary
from analysis.figures.throughput import throughput_figures
from analysis.writer import Plotter
from conftest import BASE_DOC, record, run_plot, write_doc

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def mixed_doc():
    """A quick-suite-like run: CPU pi scaling, Python pi variants (GIL released scales, held does
    not), a NumPy peer that also ran triad, one failed record and one unavailable backend."""
    doc = copy.deepcopy(BASE_DOC)
    doc["suite"] = "quick"
    recs = [record(0, "serial", 1, 8.0, study="quick"), record(1, "pool", 1, 8.0, study="quick"),
            record(2, "pool", 2, 4.1, study="quick"), record(3, "tbb", 2, 4.0, study="quick")]
    n = 1 << 26
    for i, (b, t, m) in enumerate([("py-parlab-gil-released", 1, 2.0), ("py-parlab-gil-released", 2, 1.01),
                                   ("py-parlab-gil-held", 1, 2.0), ("py-parlab-gil-held", 2, 2.0),
                                   ("py-pure-threads", 1, 400.0), ("py-pure-threads", 2, 401.0),
                                   ("py-numba-prange", 1, 0.9), ("py-numba-prange", 2, 0.46)]):
        recs.append(record(10 + i, b, t, m, size=n, study="quick-python", kind="python"))
    recs.append(record(20, "py-numba-prange", 2, 0.001, kernel="triad", size=1 << 20, study="quick-python",
                       kind="python", precision="double"))
    recs.append(record(21, "py-numba-prange", 1, 0.002, kernel="triad", size=1 << 20, study="quick-python",
                       kind="python", precision="double"))
    bad = record(30, "threads", 2, 4.0, study="quick")
    bad["status"], bad["validation"] = "failed-validation", {"pass": False, "detail": "hits differ from the canonical count"}
    recs.append(bad)
    recs.append(record(31, "cuda", 1, 0.0, status="unavailable", kind="gpu", study="quick"))
    doc["records"] = recs
    return doc


def test_summary_names_best_backend_speedups_gil_and_problems(mixed_doc):
    s = run_summary(mixed_doc)
    quick = next(f for f in s["findings"] if f["study"] == "quick" and f["kernel"] == "pi")
    assert quick["finding"][0].startswith("fastest: tbb (t=2)")
    assert any("best CPU speedup at 2 threads: tbb 2.00x" in x for x in quick["finding"])
    py = next(f for f in s["findings"] if f["study"] == "quick-python" and f["kernel"] == "pi")
    text = " | ".join(py["finding"])
    assert "py-parlab-gil-released 1.98x at 2" in text and "py-parlab-gil-held 1.00x at 2" in text
    assert "GIL released vs held at 2 threads: 1.98x faster" in text
    assert [p["status"] for p in s["problems"]] == ["failed-validation", "unavailable"]
    assert "canonical" in s["problems"][0]["reason"] and s["problems"][1]["what"] == "cuda"


def test_gil_series_never_mixes_kernels(mixed_doc):
    series = gil_series(mixed_doc)
    # Numba's pi points only: its triad records (another kernel, another unit) stay out.
    assert dict(series["py-numba-prange"]) == pytest.approx({1: 1.0, 2: 0.9 / 0.46})


def test_throughput_bars_go_log_when_rates_span_orders_of_magnitude(tmp_path, mixed_doc):
    import matplotlib
    matplotlib.use("Agg")
    p = Plotter(str(tmp_path / "plots"))
    captured = {}
    real_save = p.save

    def save(fig, name, caption):
        captured[name] = fig.axes[0].get_xscale()
        real_save(fig, name, caption)

    p.save = save
    throughput_figures(p, mixed_doc)
    python_pi = [n for n in captured if n.startswith("throughput_quick-python_pi")]
    assert python_pi and captured[python_pi[0]] == "log"      # pure Python is 400x slower than parlab
    cpu_pi = [n for n in captured if n.startswith("throughput_quick_pi")]
    assert cpu_pi and captured[cpu_pi[0]] == "linear"


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-deps.sh installs it)")
def test_first_screen_as_rendered_in_chromium(tmp_path, mixed_doc):
    d = write_doc(tmp_path, mixed_doc)
    res = run_plot(str(d))
    assert res.returncode == 0, res.stderr
    url = "file://" + str(d / "report.html")
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars", "--window-size=1280,900"]
    dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    # The summary comes before any figure, and carries the findings and the failure.
    assert "What this run found" in dom and dom.index("What this run found") < dom.index("<img")
    assert "GIL released vs held at 2 threads" in dom and "hits differ from the canonical count" in dom
    shot = tmp_path / "first-screen.png"
    subprocess.run(flags + [f"--screenshot={shot}", url], capture_output=True, timeout=120)
    assert shot.exists()
    import matplotlib.image
    img = matplotlib.image.imread(str(shot))
    assert img.shape[0] == 900 and img.shape[1] == 1280
    # Something is drawn in the top third (the title and the summary table), not a blank page.
    top = img[:300, :, :3]
    assert (top < 0.5).mean() > 0.005
    if os.environ.get("PARLAB_KEEP_SCREENSHOT"):
        shutil.copy(shot, os.environ["PARLAB_KEEP_SCREENSHOT"])


def test_multi_gpu_series_and_figure(tmp_path):
    doc = copy.deepcopy(BASE_DOC)
    recs = []
    for i, (b, t) in enumerate([("cuda", 4.0), ("cuda-multi", 1.01), ("cuda-multi-seq", 4.1)]):
        r = record(i, b, 1, t, size=1 << 38, study="multi-gpu", kind="gpu")
        if b != "cuda":
            r["metrics"] = {"devices": 4}
        recs.append(r)
    doc["records"] = recs
    rows = {r["backend"]: r for r in multi_gpu_series(doc)}
    assert rows["cuda-multi"]["speedup"] == pytest.approx(4.0 / 1.01) and rows["cuda-multi"]["devices"] == 4
    assert rows["cuda-multi-seq"]["speedup"] == pytest.approx(4.0 / 4.1)
    d = write_doc(tmp_path, doc)
    assert run_plot(str(d)).returncode == 0
    assert (d / "plots" / "multi_gpu.png").exists()


def test_summary_lists_other_interpreters_variants(mixed_doc):
    for i, (t, m) in enumerate([(1, 10.0), (2, 5.1)]):
        r = record(40 + i, "py-pure-private", t, m, size=1 << 18, study="quick-python", kind="python")
        r.update({"interpreter": "3.13.5 free-threaded", "python_build": "free-threaded", "gil_enabled": False,
                  "python_gil": "0"})
        mixed_doc["records"].append(r)
    py = next(f for f in run_summary(mixed_doc)["findings"] if f["study"] == "quick-python" and f["kernel"] == "pi")
    assert "py-pure-private [3.13.5 free-threaded, no GIL] 1.96x at 2" in " | ".join(py["finding"])


def test_other_interpreters_never_stand_in_for_the_runs_own(mixed_doc):
    # 3.13t without a GIL: "held" scales there (no GIL to hold), and must not replace 3.11's record.
    for i, (b, t, m) in enumerate([("py-parlab-gil-held", 1, 2.0), ("py-parlab-gil-held", 2, 1.0)]):
        r = record(50 + i, b, t, m, size=1 << 26, study="quick-python", kind="python")
        r.update({"interpreter": "3.13.5 free-threaded", "python_build": "free-threaded", "gil_enabled": False,
                  "python_gil": "0"})
        mixed_doc["records"].append(r)
    py = next(f for f in run_summary(mixed_doc)["findings"] if f["study"] == "quick-python" and f["kernel"] == "pi")
    text = " | ".join(py["finding"])
    assert "GIL released vs held at 2 threads: 1.98x faster" in text
    assert "py-parlab-gil-held [3.13.5 free-threaded, no GIL] 2.00x at 2" in text


def test_summary_says_what_binds_the_loop_and_how_close_the_records_came(mixed_doc):
    """Records with an in-core bound get one line per processor: what binds, the range and
    median of their shares, and how many are below 0.8 or above 1; a kernel without one, none."""
    shares = {(0, "serial"): 0.95, (1, "pool"): 0.93, (2, "pool"): 0.70, (3, "tbb"): 1.02}
    for r in mixed_doc["records"]:
        if (r["id"], r["backend"]) in shares:
            r["processor"] = "cpu"
            r["limit"] = {"roof": "cpu_imul_1", "fraction": 0.3,
                          "incore": {"fraction": shares[(r["id"], r["backend"])],
                                     "binds": "vector ports: 426 vector ALU instructions per trip"}}
    s = run_summary(mixed_doc)
    pi = next(f for f in s["findings"] if f["study"] == "quick" and f["kernel"] == "pi")
    assert ("CPU in-core bound (vector ports): 4 records at 0.70 to 1.02 of it, median 0.95; 1 below 0.8; "
            "1 above 1 (In-core bounds, below)") in pi["finding"]
    assert not any("in-core" in x for f in s["findings"] if f["kernel"] == "triad" for x in f["finding"])
