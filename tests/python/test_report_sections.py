"""report.html's in-core and reference sections say something or nothing: no in-core paragraph
for a kernel the run did not measure (a matmul bound in a run without matmul), and no empty
reference table: where nothing can be compared (no reference runs, or none that measured this
run's studies, as for an ad-hoc run) one line says so instead of the section."""
import copy
import html

from analysis.incore import incore_html
from analysis.reference import reference_html, reference_section, reference_sources
from analysis.records import load_run
from conftest import BASE_DOC, record, write_doc
from test_report_reference import pi, refs, this_run, triad  # noqa: F401 (fixtures)

INCORE = {
    "pi": {"value": 1.25e9, "unit": "samples/s", "binds": "vector ports: 426 per trip", "model": "measured ports",
           "model_why": "synthetic", "loop": {"imuls_per_sample": 11.5, "multiply_instructions": 138,
                                              "instructions": 449}},
    "matmul": {"value": 8.08e10, "unit": "flops/s", "binds": "the loop's instructions", "model": "measured",
               "model_why": "synthetic", "loop": {"flops_per_iteration": 512.0, "multiply_instructions": 16,
                                                  "lanes": 16, "instructions": 44}},
    "pi_gpu": {"unavailable": "no CUDA device"},
}


def doc_of(records):
    doc = copy.deepcopy(BASE_DOC)
    doc["context"]["ceilings"] = {"roofs": {}, "incore": copy.deepcopy(INCORE)}
    doc["records"] = records
    return doc


def test_no_in_core_paragraph_for_a_kernel_the_run_did_not_measure():
    pi_rec = record(0, "openmp", 2, 1.0)
    pi_rec["processor"] = "cpu"
    page = incore_html(doc_of([pi_rec]))
    assert "<b>pi</b>" in page
    assert "matmul" not in page and "pi_gpu" not in page  # neither measured here: neither explained
    mm = record(1, "openmp", 2, 1.0, kernel="triad")
    mm.update({"kernel": "matmul", "processor": "cpu"})
    page = incore_html(doc_of([pi_rec, mm]))
    assert "<b>pi</b>" in page and "<b>matmul</b>" in page
    gpu = record(2, "cuda", 1, 0.01, kind="gpu")
    gpu["processor"] = "gpu"
    assert "<b>pi_gpu</b>: unavailable" in incore_html(doc_of([pi_rec, gpu]))
    # A run of none of the bounds' kernels: no section at all.
    other = record(3, "openmp", 2, 1.0, kernel="triad")
    other["processor"] = "cpu"
    assert incore_html(doc_of([other])) == ""


def test_an_ad_hoc_run_that_no_reference_measured_gets_one_line(tmp_path, refs):  # noqa: F811
    doc = copy.deepcopy(BASE_DOC)
    doc["suite"] = "ad-hoc"
    doc["records"] = [triad(0, "openmp", 2, 0.006, 0.8, study=""), pi(1, "openmp", 2, 1.0, 0.7, study="")]
    run = write_doc(tmp_path, doc, "adhoc")
    s = reference_section(load_run(str(run)), reference_sources([str(refs)], False, env={})[0])
    assert s["refs"] and s["rows"]
    page = html.unescape(reference_html(s))
    assert "<h2" not in page and "<table" not in page and page.count("<p") == 1
    assert "Reference runs: nothing to compare: no reference run (big-node, old-laptop) measured any of this " \
           "run's kernels" in page
    assert "'ad-hoc'" in page  # the note on the other suite is part of the line


def test_no_reference_found_is_one_line_and_a_comparison_keeps_its_section(this_run, refs, tmp_path):  # noqa: F811
    doc = load_run(str(this_run))
    sources, how = reference_sources(None, False, env={}, analysis_dir=str(tmp_path / "share" / "parlab" / "analysis"))
    page = reference_html(reference_section(doc, sources, how))
    assert page.startswith("<p id='reference'") and page.count("<p") == 1 and "No reference runs found" in page
    page = reference_html(reference_section(doc, reference_sources([str(refs)], False, env={})[0]))
    assert "<h2 id='reference'>This machine against the reference runs</h2>" in page and "<table" in page
    assert "nothing to compare" not in page
