"""plot.py's python-models and convergence parts on synthetic result files: the numbers behind
the figures (speedup over one thread, crossovers, relative error, the sigma bands, whether every
backend lies on the same points) and that the figures are written."""
import copy
import math

from analysis.series import convergence_points, convergence_summary, pi_relative_sigma
from analysis.series import python_models_crossovers, python_models_note, python_models_table
from conftest import BASE_DOC, record, run_plot, write_doc


def models_doc():
    """One thread: 1 ms per 2^10 points. Processes at 2 workers: 50 ms of start-up per run
    (loses below 2^16), then half the time. The thread pool: always a little slower."""
    doc = copy.deepcopy(BASE_DOC)
    recs = []
    sizes = [1 << k for k in (10, 12, 14, 16, 18)]
    for n in sizes:
        one = 1e-3 * n / 1024
        for backend, threads, t in (("py-pure-threads", 1, one), ("py-processes", 1, one + 0.05),
                                    ("py-processes", 2, one / 2 + 0.05), ("py-thread-pool", 2, one * 1.1)):
            r = record(len(recs), backend, threads, t, size=n, scaling="none", study="python-models", kind="python")
            if backend != "py-pure-threads":
                r["metrics"] = {"tasks": 2.0, "per_task_overhead_s": 1e-4, "roundtrip_s": 2e-4, "startup_s": 0.1}
            recs.append(r)
    doc["records"] = recs
    return doc


def test_python_models_speedup_and_crossover():
    rows = python_models_table(models_doc())
    proc = {r["size"]: r for r in rows if r["backend"] == "py-processes" and r["threads"] == 2}
    one = 1e-3 * (1 << 18) / 1024
    assert abs(proc[1 << 18]["speedup_vs_one_thread"] - one / (one / 2 + 0.05)) < 1e-12
    assert proc[1 << 18]["per_task_overhead_s"] == 1e-4 and proc[1 << 18]["startup_s"] == 0.1
    cross = python_models_crossovers(rows)
    # 2^14: 16 ms alone vs 58 ms; 2^16: 64 ms vs 82 ms; 2^18: 256 ms vs 178 ms.
    assert cross[("py-processes", 2)] == 1 << 18
    assert cross[("py-thread-pool", 2)] is None          # never beats one thread
    assert cross[("py-processes", 1)] is None
    assert ("py-pure-threads", 1) not in cross            # the baseline itself


def test_python_models_figure_is_written(tmp_path):
    d = write_doc(tmp_path, models_doc())
    res = run_plot(str(d), "--quiet")
    assert res.returncode == 0, res.stderr
    assert (d / "plots" / "python_models.png").exists()
    assert "python_models" in (d / "report.html").read_text()


def convergence_doc(shift_cuda_hits=0, far_point=False):
    """The same (seed, N) measured by two backends, and a third on fewer sizes."""
    doc = copy.deepcopy(BASE_DOC)
    recs = []
    for n in [1 << k for k in range(10, 21)]:
        hits = round(n * math.pi / 4 + 0.5 * math.sqrt(n * (math.pi / 4) * (1 - math.pi / 4)))  # 0.5 sigma
        if far_point and n == 1 << 20:
            hits = round(n * math.pi / 4 + 4 * math.sqrt(n * (math.pi / 4) * (1 - math.pi / 4)))
        for backend, h, kind in (("pool", hits, "cpu"), ("cuda", hits + shift_cuda_hits, "gpu"),
                                 ("py-numpy", hits, "python")):
            if backend == "py-numpy" and n > 1 << 16:
                continue
            r = record(len(recs), backend, 1, 0.01, size=n, scaling="none", study="convergence", kind=kind)
            r["hits"] = h
            recs.append(r)
    doc["records"] = recs
    return doc


def test_convergence_points_and_bands():
    pts = convergence_points(convergence_doc())
    assert sorted(pts) == ["cuda", "pool", "py-numpy"]
    n, hits, err = pts["pool"][0]
    assert n == 1024 and abs(err - abs(4 * hits / n - math.pi) / math.pi) < 1e-15
    # The binomial bound: sigma(pi_hat)/pi = sqrt((1 - p) / (p N)), p = pi/4.
    assert abs(pi_relative_sigma(1024) - math.sqrt((1 - math.pi / 4) / (math.pi / 4 * 1024))) < 1e-15
    s = convergence_summary(pts)
    assert s["shared_sizes"] == 11 and s["differing_sizes"] == []
    assert s["beyond_3sigma"] == 0 and s["beyond_1sigma"] == 0     # every point about 0.5 sigma out


def test_convergence_says_when_backends_differ_or_leave_the_band():
    s = convergence_summary(convergence_points(convergence_doc(shift_cuda_hits=1)))
    assert s["differing_sizes"] == [1 << k for k in range(10, 21)]
    s = convergence_summary(convergence_points(convergence_doc(far_point=True)))
    assert s["beyond_3sigma"] == 1 and s["differing_sizes"] == []


def test_convergence_figure_is_written_and_says_so(tmp_path):
    d = write_doc(tmp_path, convergence_doc())
    res = run_plot(str(d), "--quiet")
    assert res.returncode == 0, res.stderr
    assert (d / "plots" / "convergence.png").exists()
    assert "every backend lies on the same points" in (d / "report.html").read_text()


def test_a_gil_report_points_to_python_models(tmp_path):
    doc = copy.deepcopy(BASE_DOC)
    doc["records"] = [record(0, "py-pure-threads", 1, 1.0, study="gil", kind="python"),
                      record(1, "py-pure-threads", 2, 1.0, study="gil", kind="python")]
    d = write_doc(tmp_path, doc)
    assert run_plot(str(d), "--quiet").returncode == 0
    assert "parlab run python-models" in (d / "report.html").read_text()
    assert python_models_note(models_doc()) == ""      # not where the figure itself is


def test_each_python_models_study_has_its_own_baseline(tmp_path):
    """parlab.pi bodies (python-models-nogil) are judged against parlab.pi on one thread."""
    doc = copy.deepcopy(BASE_DOC)
    doc["records"] = [
        record(0, "py-parlab-gil-released", 1, 0.4, size=1 << 28, scaling="none", study="python-models-nogil"),
        record(1, "py-thread-pool-parlab", 2, 0.2, size=1 << 28, scaling="none", study="python-models-nogil"),
        record(2, "py-pure-threads", 1, 9.0, size=1 << 28, scaling="none", study="python-models")]
    (row,) = [r for r in python_models_table(doc, "python-models-nogil") if r["backend"] == "py-thread-pool-parlab"]
    assert row["speedup_vs_one_thread"] == 2.0 and row["baseline"] == "py-parlab-gil-released"
    d = write_doc(tmp_path, doc)
    assert run_plot(str(d), "--quiet").returncode == 0
    assert (d / "plots" / "python_models_nogil.png").exists()
