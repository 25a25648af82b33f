"""The run against its roofs, on synthetic records in the agreed format (context.ceilings, each
record's `limit`): the roofline figures, the first screen's shares, the scaling figures' bandwidth
bound, and runs from before ceilings (nothing drawn, said so)."""
import copy
import re

from analysis.records import processor_of
from analysis.figures.roofline import roofline_points
from analysis.roofs import roof_share, share_text
from analysis.spread import spread
from analysis.series import scaling_bounds
from analysis.summary import run_summary, summary_html
import pytest
from conftest import fixture_doc, plot_twice, record, run_plot, write_doc

N = 1 << 24


def roof(value, unit, threads=2, device="cpu", method="measured"):
    r = {"value": value, "unit": unit, "method": method, "how": "synthetic", "threads": threads, "device": device,
         "measured_utc": "2026-01-01T00:00:00Z"}
    if method == "theoretical":
        r["inputs"] = {"sm_count": 132, "clock_hz": 1.98e9}
    return r


CEILINGS = {
    "measured_utc": "2026-01-01T00:00:00Z", "cache": None,
    "roofs": {
        "cpu_bw_read_all": roof(24e9, "bytes/s"), "cpu_bw_read_1": roof(14e9, "bytes/s", 1),
        "cpu_bw_copy_nt_all": roof(18e9, "bytes/s"), "cpu_bw_copy_nt_1": roof(11e9, "bytes/s", 1),
        "cpu_bw_triad_all": roof(20e9, "bytes/s"), "cpu_bw_triad_1": roof(12e9, "bytes/s", 1),
        "cpu_fma_f64_all": roof(120e9, "flops/s"), "cpu_fma_f64_1": roof(60e9, "flops/s", 1),
        "cpu_imul_all": roof(8e9, "muls/s"), "cpu_imul_1": roof(4e9, "muls/s", 1),
        "cpu_llc_bytes": roof(32 << 20, "bytes"),
        "gpu_bw": roof(3.0e12, "bytes/s", 1, "gpu0"), "gpu_fma_f64": roof(60e12, "flops/s", 1, "gpu0", "theoretical"),
        "gpu_fma_f32": roof(120e12, "flops/s", 1, "gpu0", "theoretical"),
        "gpu_imul": roof(30e12, "muls/s", 1, "gpu0", "theoretical"),
        "gpu_sm_count": roof(132, "count", 1, "gpu0"), "gpu_clock_hz": roof(1.98e9, "hz", 1, "gpu0"),
    },
    "unavailable": {},
}

# Words moved and flops per element of the two STREAM kernels used here; pi: Philox multiplies per
# sample as the ceilings side counts them (any number: the figure reads the record's limit).
STREAM = {"triad": (24, 2), "copy": (16, 0)}
MULS_PER_SAMPLE = 20


def with_limit(r, roof_name, ceilings=CEILINGS):
    """Give a record the work, rate and limit the run would give it."""
    if r["status"] != "ok":
        return r
    t = r["time_s"]["median"]
    if r["kernel"] == "pi":
        r["work"] = {"samples": r["size"], "bytes": 0, "flops": 0}
        r["rate"] = {"samples_per_s": r["size"] / t}
        attained = r["size"] * MULS_PER_SAMPLE / t
    else:
        b, f = STREAM[r["kernel"]]
        r["family"] = "stream"
        r["work"] = {"samples": 0, "bytes": b * r["size"], "flops": f * r["size"]}
        r["rate"] = {"bytes_per_s": b * r["size"] / t, **({"flops_per_s": f * r["size"] / t} if f else {})}
        attained = r["rate"]["bytes_per_s"]
    if roof_name is None:
        r["limit"] = {"roof": None, "reason": "no roof: synthetic"}
    else:
        rf = ceilings["roofs"][roof_name]
        r["limit"] = {"roof": roof_name, "value": rf["value"], "unit": rf["unit"], "attained": attained,
                      "fraction": attained / rf["value"]}
    return r


@pytest.fixture
def doc():
    """Triad and copy on 1 and 2 threads (serial, openmp, tbb), pi on the CPU and the GPU, triad
    on the GPU; every record with its limit against CEILINGS (tests/fixtures/stream-limits)."""
    return fixture_doc("stream-limits")


def test_share_text_is_the_records_limit():
    r = with_limit(record(0, "openmp", 2, 0.025, kernel="triad", size=N, precision="double"), "cpu_bw_triad_all")
    assert share_text(r) == f"{24 * N / 0.025 / 20e9:.2f} of cpu_bw_triad_all"
    r["limit"] = {"roof": None, "reason": "no roof: nothing measured"}
    assert share_text(r) == "no roof: nothing measured" and roof_share(r) is None
    del r["limit"]
    assert share_text(r) == ""


def test_points_are_each_kernel_and_backend_at_its_best_thread_count(doc):
    pts = roofline_points(doc)
    cpu = {(q["kernel"], q["backend"]): q for q in pts["cpu"]}
    assert cpu[("triad", "openmp")]["threads"] == 2 and cpu[("triad", "openmp")]["size"] == N
    assert abs(cpu[("triad", "openmp")]["fraction"] - 24 * N / 0.025 / 20e9) < 1e-12
    assert abs(cpu[("triad", "openmp")]["intensity"] - 2 / 24) < 1e-12
    assert cpu[("copy", "openmp")]["intensity"] is None           # no flops: off the flop axis
    assert cpu[("pi", "openmp")]["roof"] == "cpu_imul_all" and cpu[("pi", "openmp")]["intensity"] is None
    gpu = {(q["kernel"], q["backend"]) for q in pts["gpu"]}
    # The peer's record is on the GPU because its roof is; the record without a roof is nowhere.
    assert gpu == {("triad", "cuda"), ("pi", "cuda"), ("triad", "babelstream-cuda")}


def test_the_figures_split_by_the_records_processor(doc):
    """A py-cupy record is kind python and ran on the GPU: its `processor` puts it on the GPU
    figure; the name is never parsed for it."""
    r = with_limit(record(99, "py-cupy", 1, 0.00018, kernel="triad", size=N, kind="python",
                          precision="double", study="quick"), "gpu_bw")
    r["processor"], r["scaling"] = "gpu", "strong"
    named = with_limit(record(100, "cuda-on-the-host", 1, 0.040, kernel="triad", size=N, kind="peer",
                              precision="double", study="quick"), "cpu_bw_triad_1")
    named["processor"], named["scaling"] = "cpu", "strong"
    doc["records"] += [r, named]
    pts = roofline_points(doc)
    assert ("triad", "py-cupy") in {(q["kernel"], q["backend"]) for q in pts["gpu"]}
    assert ("triad", "cuda-on-the-host") in {(q["kernel"], q["backend"]) for q in pts["cpu"]}


def test_a_record_without_processor_falls_back_to_the_old_rule():
    """Older records lack `processor`: kind gpu or "cuda" in the backend's name, as then."""
    assert processor_of({"kind": "gpu", "backend": "cuda"}) == "gpu"
    assert processor_of({"kind": "mpi", "backend": "mpi+cuda"}) == "gpu"
    assert processor_of({"kind": "python", "backend": "py-cupy"}) == "cpu"
    assert processor_of({"kind": "python", "backend": "py-cupy", "processor": "gpu"}) == "gpu"
    assert processor_of({"kind": "gpu", "backend": "cuda", "processor": "cpu"}) == "cpu"


def test_roofline_figures_drawn_and_deterministic(tmp_path, doc):
    runs = plot_twice(tmp_path, doc)
    for d, digests in runs:
        assert {"roofline_cpu.png", "roofline_cpu.svg", "roofline_gpu.png", "roofline_gpu.svg"} <= set(digests)
        assert "roofline_cpu" in (d / "report.html").read_text()
    assert runs[0][1] == runs[1][1]


def test_first_screen_gives_the_fastest_backends_share(doc):
    s = run_summary(doc)
    triad = next(f for f in s["findings"] if f["kernel"] == "triad" and f["precision"] == "double")
    frac = 24 * N / 0.00016 / 3.0e12  # the GPU's triad is the fastest
    assert f"{frac:.2f} of gpu_bw" in triad["finding"][0]
    pi = next(f for f in s["findings"] if f["kernel"] == "pi")
    assert "of gpu_imul" in pi["finding"][0]
    assert "measured 2026-01-01T00:00:00Z" in s["ceilings"]
    assert "of gpu_bw" in summary_html(s)


def test_scaling_figure_draws_the_bandwidth_roof_bound(doc):
    bounds = scaling_bounds(doc)
    key = next(k for k in bounds if k[2] == "triad")
    bound, name, _ = bounds[key]["openmp"]
    # The all-cores triad roof over the serial rate (the 1-thread records name the one-core roof).
    assert name == "cpu_bw_triad_all" and abs(bound - 20e9 / (24 * N / 0.040)) < 1e-9
    s = run_summary(doc)
    triad = next(f for f in s["findings"] if f["kernel"] == "triad" and f["precision"] == "double")
    assert any(f"bandwidth roof {bound:.2f}x (cpu_bw_triad_all)" in x for x in triad["finding"])
    # pi is bound by multiplies, not bandwidth: no bound.
    assert not any(k[2] == "pi" for k in bounds)


def test_stream_records_without_limit_meet_the_triad_roof(doc):
    for r in doc["records"]:
        r.pop("limit", None)
    bounds = scaling_bounds(doc)
    key = next(k for k in bounds if k[2] == "copy")
    assert bounds[key]["openmp"][1] == "cpu_bw_triad_all"


def test_a_compute_bound_kernel_gets_no_bandwidth_bound(doc):
    """matmul (basic family, with bytes to move) is compute-bound: its records' limit names no
    roof, and older ones without a limit lie past the ridge (2n flops per float read)."""
    n = 1000
    mm = []
    for t, sec in [(1, 0.10), (2, 0.05), (4, 0.026)]:
        r = record(200 + t, "openmp", t, sec, kernel="matmul", size=n, precision="float", study="quick")
        r["family"], r["scaling"] = "basic", "strong"
        r["work"] = {"flops": 2.0 * n ** 3, "bytes": 12.0 * n * n}
        r["rate"]["bytes_per_s"] = r["work"]["bytes"] / sec
        r["limit"] = {"roof": None, "reason": "no roof: no measured CPU fp32 FMA roof (only cpu_fma_f64)"}
        mm.append(r)
    base = record(200, "serial", 1, 0.10, kernel="matmul", size=n, precision="float", study="quick")
    base.update(family="basic", scaling="strong", work=mm[0]["work"], limit=mm[0]["limit"])
    base["rate"]["bytes_per_s"] = mm[0]["rate"]["bytes_per_s"]
    doc["records"] += [base] + mm
    assert not any(k[2] == "matmul" for k in scaling_bounds(doc))
    for r in [base] + mm:
        del r["limit"]
    assert not any(k[2] == "matmul" for k in scaling_bounds(doc))


def test_a_run_without_ceilings_draws_no_roofline_and_says_so(tmp_path, doc):
    del doc["context"]["ceilings"]
    for r in doc["records"]:
        r.pop("limit", None)
    assert roofline_points(doc) == {} and scaling_bounds(doc) == {}
    s = run_summary(doc)
    assert s["ceilings"].startswith("No ceilings measured in this run")
    assert not any(" of cpu_" in x or " of gpu_" in x for f in s["findings"] for x in f["finding"])
    d = write_doc(tmp_path, doc)
    assert run_plot(str(d)).returncode == 0
    assert not [p for p in (d / "plots").iterdir() if "roofline" in p.name]
    assert "No ceilings measured in this run" in (d / "report.html").read_text()


def test_compare_shows_both_runs_shares(tmp_path, doc):
    """Two machines: NEW twice as fast against a roof twice as high, so the same share."""
    import json
    import subprocess
    import sys

    from conftest import ROOT
    new = copy.deepcopy(doc)
    for name, rf in new["context"]["ceilings"]["roofs"].items():
        rf["value"] *= 2
    for r in new["records"]:
        if r["status"] == "ok":
            r["reps_s"] = [x / 2 for x in r["reps_s"]]
            r["time_s"] = spread(r["reps_s"])
            r["rate"] = {k: v * 2 for k, v in r["rate"].items()}
            if r["limit"]["roof"]:
                r["limit"]["value"] *= 2
                r["limit"]["attained"] *= 2
    base_dir, new_dir = write_doc(tmp_path, doc, "base"), write_doc(tmp_path, new, "new")
    compare = [sys.executable, f"{ROOT}/analysis/compare.py", str(base_dir), str(new_dir)]
    out = json.loads(subprocess.run(compare + ["--json"], capture_output=True, text=True).stdout)
    row = next(r for r in out["records"] if r["label"] == "quick triad openmp t=2 2^24 double")
    assert row["base"]["share"] == row["new"]["share"] == share_text(doc["records"][2])
    assert row["share_ratio"] == pytest.approx(1.0)
    assert out["summary"]["with_shares"] == sum(1 for r in doc["records"] if roof_share(r))
    # The roofs are context, one entry a roof, never when or how each was measured.
    diffs = {d["key"]: d for d in out["context_differences"]}
    assert diffs["ceilings.cpu_bw_triad_all"]["base"] == "20.0 GB/s (measured, 2 threads)"
    assert diffs["ceilings.cpu_bw_triad_all"]["new"] == "40.0 GB/s (measured, 2 threads)"
    assert not [k for k in diffs if k.startswith("ceilings.roofs") or k.endswith("measured_utc")]
    text = subprocess.run(compare, capture_output=True, text=True).stdout
    # The table gives both shares in a few characters ("0.63->0.63"); --verbose gives them whole,
    # with the roof's name.
    (line,) = [x for x in text.splitlines() if "quick triad openmp t=2 2^24 " in x]  # the label wraps
    shares = re.findall(r"(\d\.\d\d)->(\d\.\d\d)", line)
    assert shares and shares[0][0] == shares[0][1], line
    flat = " ".join(text.split())  # the summary wraps within the width
    assert "roof share" in text and "NEW share / BASE share median 1.000" in flat
    verbose = subprocess.run(compare + ["--verbose"], capture_output=True, text=True).stdout
    assert "share of roof: " in verbose and "of cpu_bw_triad_all" in verbose
    res = subprocess.run(compare + ["--html", str(tmp_path / "cmp")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "cmp" / "report.html").read_text()
    assert "share of roof BASE &rarr; NEW" in page and "Shares of roofs" in page
    # A run without roofs against one with: said, never compared by share.
    for r in doc["records"]:
        r.pop("limit", None)
    del doc["context"]["ceilings"]
    old_dir = write_doc(tmp_path, doc, "old")
    text = subprocess.run([sys.executable, f"{ROOT}/analysis/compare.py", str(old_dir), str(new_dir)],
                          capture_output=True, text=True).stdout
    assert "only NEW measured roofs" in text


def test_a_kernel_without_a_roof_says_why_on_the_first_screen(doc):
    for r in doc["records"]:
        if r["kernel"] == "copy":
            r["limit"] = {"roof": None, "reason": "no roof: no copy bandwidth measured"}
    s = run_summary(doc)
    copy_row = next(f for f in s["findings"] if f["kernel"] == "copy")
    assert copy_row["finding"][0].endswith("(no roof: no copy bandwidth measured)")
    assert not [q for q in roofline_points(doc)["cpu"] if q["kernel"] == "copy"]


def test_the_records_table_says_what_each_limit_says(tmp_path):
    """The report's records table gives each record's share of its binding roof and, below it,
    its share of the GPU's theoretical peak, a partly cache-resident working set, and a share above
    1 with whether it lies within the roof's spread."""
    doc = fixture_doc("stream-limits")
    gpu = next(r for r in doc["records"] if r["backend"] == "cuda" and r["kernel"] == "triad")
    gpu["limit"]["peak"] = {"roof": "gpu_bw_peak", "value": 4.8e12, "fraction": 0.889}
    cpu = next(r for r in doc["records"] if r["status"] == "ok" and (r.get("limit") or {}).get("roof", "")
               .startswith("cpu_bw"))
    cpu["limit"]["residency"] = "partly cache-resident: arrays between the last-level cache and 4x it"
    cpu["limit"]["above_roof"] = "above its roof by 7%, within the roof's own spread"
    d = write_doc(tmp_path, doc)
    res = run_plot(str(d), "--no-reference", "--quiet", "--summary", "none")
    assert res.returncode == 0, res.stderr
    page = (d / "report.html").read_text()
    records = page[page.index("<h2 id='records'>"):]
    assert "share of roof" in records and f"{share_text(gpu)}<br><span class='small'>0.89 of gpu_bw_peak" in records
    assert "partly cache-resident: arrays between" in records and "above its roof by 7%, within" in records


def test_a_record_below_its_in_core_bound_is_set_beside_the_best_at_its_thread_count():
    from analysis.incore import below_bound_notes

    def rec(backend, threads, f, below=None):
        incore = {"fraction": f}
        if below:
            incore["below"] = below
        return {"backend": backend, "threads": threads, "limit": {"incore": incore}}

    recs = [rec("pool", 8, 0.82), rec("threads", 8, 0.67), rec("openmp", 16, 0.76),
            rec("tbb", 16, 0.73, "latency: x; and its threads are not pinned"),
            rec("serial", 1, 0.81), rec("pool", 1, 0.78, "its repetitions disagree (CV 12% over 10%)")]
    notes = below_bound_notes(recs)
    assert notes == [
        # 0.03 below serial at one thread: noise, not the hand-out; its own measured cause stands.
        "pool t=1: 0.78 of the bound; its repetitions disagree (CV 12% over 10%)",
        "threads t=8: 0.67 of the bound; pool reached 0.82 at 8 threads: the loop can, so the rest is how threads "
        "hands out the work",
        "openmp t=16: 0.76 of the bound; no backend reached 0.8 at 16 threads (best openmp, 0.76)",
        # latency is told in the bound's own line: the note only names it, and what else it measured
        "tbb t=16: 0.73 of the bound; latency (the chains, above); and its threads are not pinned; no backend "
        "reached 0.8 at 16 threads (best openmp, 0.76)",
    ]
    assert below_bound_notes([rec("serial", 1, 0.84)]) == []


def test_a_record_above_its_in_core_bound_is_listed_with_what_it_says():
    from analysis.incore import above_bound_notes

    def rec(backend, threads, f, above=None):
        incore = {"fraction": f}
        if above:
            incore["above"] = above
        return {"backend": backend, "threads": threads, "limit": {"incore": incore}}

    recs = [rec("serial", 1, 1.12, "above its in-core bound by 12.0%, beyond the ports probe's spread"),
            rec("pool", 1, 0.97), rec("tbb", 2, 1.01, "above its in-core bound by 1.0%, within the ports probe's spread")]
    assert above_bound_notes(recs) == [
        "serial t=1: 1.12 of the bound, above its in-core bound by 12.0%, beyond the ports probe's spread",
        "tbb t=2: 1.01 of the bound, above its in-core bound by 1.0%, within the ports probe's spread",
    ]
    assert above_bound_notes([rec("pool", 1, 0.97)]) == []
    # A record from before limit.incore.above: by how much, and that it does not say why.
    assert above_bound_notes([rec("serial", 1, 1.121)]) == [
        "serial t=1: 1.12 of the bound, above it by 12.1% (the record does not say why)"]
