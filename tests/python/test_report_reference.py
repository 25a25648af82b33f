"""The report's comparison with the reference runs (analysis/reference.py): each
kernel's fastest backend's share of its roof beside each reference run's, on a tiny run and a tiny
folder of references; where the references are found (the source tree, an installed copy, a
folder named on the command line or in $PARLAB_REFERENCE); the off switch. The runs are the
committed fixtures tests/fixtures/reference-this and reference-tree; the committed reference runs
(marked in results/runs.json) are held in test_committed_results.py."""
import copy
import json
import os
import shutil
import subprocess
import sys

import pytest

from analysis.read import InputError
from analysis.records import load_run
from analysis.reference import (ENV, INDEX, default_reference_dirs, reference_html, reference_section,
                                        reference_sources)
from conftest import BASE_DOC, FIXTURES, PLOT, ROOT, record, run_plot, write_doc

ANALYSIS = os.path.join(ROOT, "analysis")


def triad(i, backend, threads, median, fraction=None, roof="cpu_bw_triad_all", processor="cpu", limit=True,
          status="ok", study="quick"):
    """A triad record (2^20 doubles, 24 bytes an element) with its limit: a fraction of `roof`, no
    roof where fraction is None, none at all where limit is False (a record from before limits)."""
    r = record(i, backend, threads, median, kernel="triad", precision="double", study=study,
               kind="gpu" if processor == "gpu" else "cpu")
    r["processor"] = processor
    if limit:
        r["limit"] = ({"roof": roof, "value": 1e10, "unit": "bytes/s", "attained": fraction * 1e10,
                       "fraction": fraction} if fraction is not None
                      else {"roof": None, "reason": "no roof: the arrays fit the last-level cache"})
    r["status"] = status  # a failed record keeps its (best) rate: it must still not be chosen
    if status != "ok":  # but, as parlab writes it, no limit (the schema allows one on an ok record only)
        r.pop("limit", None)
    return r


def pi(i, backend, threads, median, fraction, study="quick"):
    r = record(i, backend, threads, median, study=study)
    r["processor"] = "cpu"
    r["limit"] = {"roof": "cpu_imul_all", "value": 1e10, "unit": "muls/s", "attained": fraction * 1e10,
                  "fraction": fraction}
    return r


def run_doc(records, suite="quick", host="fixture-host"):
    doc = copy.deepcopy(BASE_DOC)
    doc["suite"], doc["records"] = suite, records
    doc["context"]["host"] = host
    return doc


@pytest.fixture
def this_run(tmp_path):
    """This machine: triad on the CPU (openmp fastest at 2 threads, a failed pool record faster
    still), triad on the GPU, and pi on the CPU (tests/fixtures/reference-this)."""
    return shutil.copytree(os.path.join(FIXTURES, "reference-this"), tmp_path / "this")


@pytest.fixture
def refs(tmp_path):
    """A folder of two reference runs and its index: "big" has every kernel with limits (its
    fastest CPU triad record failed; its pi record has no roof); "old" was written before limits
    and never ran the GPU or pi (tests/fixtures/reference-tree, copied: some tests break it)."""
    return shutil.copytree(os.path.join(FIXTURES, "reference-tree"), tmp_path / "refs")


def section_of(run_dir, refs_dir):
    doc = load_run(str(run_dir))
    sources, how = reference_sources([str(refs_dir)], False, env={})
    return reference_section(doc, sources, how)


def test_rows_compare_fractions_and_say_what_is_missing(this_run, refs):
    s = section_of(this_run, refs)
    assert [r["name"] for r in s["refs"]] == ["big-node", "old-laptop"] and s["notes"] == []
    rows = {(r["study"], r["kernel"], r["processor"]): r for r in s["rows"]}
    assert sorted(rows) == [("quick", "pi", "cpu"), ("quick", "triad", "cpu"), ("quick", "triad", "gpu")]
    cpu = rows[("quick", "triad", "cpu")]
    # The failed pool record is faster but is no measurement: openmp is this machine's fastest.
    assert (cpu["this"]["backend"], cpu["this"]["threads"], cpu["this"]["fraction"]) == ("openmp", 2, 0.83)
    assert cpu["this"]["text"].startswith("openmp t=2 0.83 of cpu_bw_triad_all (")
    big = cpu["refs"]["big-node"]
    assert (big["backend"], big["fraction"]) == ("openmp", 0.87)  # not the failed, faster tbb record
    old = cpu["refs"]["old-laptop"]
    assert old["backend"] == "openmp" and old["fraction"] is None and old["how"] == "no fraction recorded"
    assert cpu["text"].startswith("triad (cpu): this machine openmp t=2 0.83 of cpu_bw_triad_all")
    assert "big-node openmp t=16 0.87 of cpu_bw_triad_all" in cpu["text"]
    assert "old-laptop openmp t=2 no fraction recorded" in cpu["text"]
    gpu = rows[("quick", "triad", "gpu")]
    assert gpu["this"]["backend"] == "cuda" and gpu["refs"]["big-node"]["fraction"] == 0.95
    assert gpu["refs"]["old-laptop"]["missing"] and "old-laptop has no triad (gpu) record" in gpu["text"]
    pi_row = rows[("quick", "pi", "cpu")]
    assert pi_row["refs"]["big-node"]["how"] == "no roof" and pi_row["refs"]["big-node"]["fraction"] is None
    assert "no roof" in pi_row["refs"]["big-node"]["reason"]
    page = reference_html(s)
    assert "This machine against the reference runs" in page and "no fraction recorded" in page
    # Each reference run is shown as its index lists it, under the index's folder: never the
    # absolute path of the machine that drew the page (committed reports would carry it).
    assert [r["where"] for r in s["refs"]] == [os.path.join("refs", "big"), os.path.join("refs", "old")]
    assert str(refs) not in page and "(refs/big)" in page
    assert "no record" in page and "0.87 of cpu_bw_triad_all" in page


def test_a_reference_of_another_size_says_its_size(this_run, tmp_path):
    other = run_doc([triad(0, "openmp", 2, 0.005, 0.8)])
    other["records"][0]["size"] = 1 << 22
    ref = write_doc(tmp_path, other, "bigger")
    s = section_of(this_run, ref)
    # A run named on its own is named by its machine's folder (results/<machine>/<stamp>).
    assert s["refs"][0]["name"] == tmp_path.name
    row = next(r for r in s["rows"] if r["kernel"] == "triad" and r["processor"] == "cpu")
    assert row["refs"][tmp_path.name]["text"].endswith(", N=2^22)")
    # The same run twice: two columns, told apart by name.
    doc = load_run(str(this_run))
    twice = reference_section(doc, reference_sources([str(ref), str(ref / "results.json")], False, env={})[0])
    assert [r["name"] for r in twice["refs"]] == [tmp_path.name, f"{tmp_path.name} (2)"]


def test_the_report_has_the_section_and_the_off_switch_removes_it(this_run, refs):
    res = run_plot(str(this_run), "--reference", str(refs), "--quiet")
    assert res.returncode == 0, res.stderr
    page = (this_run / "report.html").read_text()
    assert "This machine against the reference runs" in page and "big-node" in page and "old-laptop" in page
    # After the first screen, before the figures.
    assert page.index("id='summary'") < page.index("id='reference'") < page.index("<h2>Figures</h2>")
    res = run_plot(str(this_run), "--reference", str(refs), "--no-reference", "--quiet")
    assert res.returncode == 0, res.stderr
    assert "id='reference'" not in (this_run / "report.html").read_text()
    env = dict(os.environ, **{ENV: "none"})
    res = subprocess.run([sys.executable, PLOT, str(this_run), "--quiet"], capture_output=True, text=True, env=env)
    assert res.returncode == 0 and "id='reference'" not in (this_run / "report.html").read_text()
    env = dict(os.environ, **{ENV: str(refs)})
    res = subprocess.run([sys.executable, PLOT, str(this_run), "--quiet"], capture_output=True, text=True, env=env)
    assert res.returncode == 0 and "big-node" in (this_run / "report.html").read_text()


def test_missing_reference_is_a_note_malformed_is_exit_2(this_run, refs):
    shutil.rmtree(refs / "old")
    res = run_plot(str(this_run), "--reference", str(refs), "--quiet")
    assert res.returncode == 0, res.stderr
    page = (this_run / "report.html").read_text()
    assert "reference old-laptop: " in page and "no such file; not compared" in page and "big-node" in page
    (refs / "big" / "results.json").write_text("{ not json")
    res = run_plot(str(this_run), "--reference", str(refs), "--quiet")
    assert res.returncode == 2 and res.stderr.startswith("plot.py: ") and "not valid JSON" in res.stderr
    (refs / INDEX).write_text(json.dumps({"runs": [{"path": "big"}]}))
    res = run_plot(str(this_run), "--reference", str(refs), "--quiet")
    assert res.returncode == 2 and "lacks 'name'" in res.stderr
    res = run_plot(str(this_run), "--reference", str(refs / "nowhere"), "--quiet")
    assert res.returncode == 2 and "--reference" in res.stderr and "no such file or directory" in res.stderr
    with pytest.raises(InputError):
        reference_sources(None, False, env={ENV: str(refs / "nowhere")})


def test_no_index_found_is_a_note(this_run, tmp_path):
    doc = load_run(str(this_run))
    sources, how = reference_sources(None, False, env={}, analysis_dir=str(tmp_path / "share" / "parlab" / "analysis"))
    assert sources == []
    s = reference_section(doc, sources, how)
    assert s["rows"] and s["refs"] == [] and s["notes"][0].startswith("No reference runs found")


def test_installed_copy_finds_the_references_beside_it(tmp_path, this_run, refs):
    """As installed: share/parlab/analysis finds share/parlab/reference/reference-runs.json (and the
    source tree's results/ is nowhere near)."""
    share = tmp_path / "prefix" / "share" / "parlab"
    share.mkdir(parents=True)
    shutil.copytree(ANALYSIS, share / "analysis", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "experiments", "schema"), share / "schema")  # beside it, as installed
    shutil.copytree(refs, share / "reference")
    assert default_reference_dirs(str(share / "analysis"))[0] == str(share / "reference")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", ENV)}
    res = subprocess.run([sys.executable, str(share / "analysis" / "plot.py"), str(this_run), "--quiet"],
                         capture_output=True, text=True, cwd=str(tmp_path), env=env)
    assert res.returncode == 0, res.stderr
    page = (this_run / "report.html").read_text()
    # Shown under the installed index's folder ("reference"), not the source tree's ("results").
    assert "big-node" in page and "(reference/big)" in page and str(tmp_path) not in page


def test_the_source_tree_default_is_its_results_folder(refs, tmp_path):
    """In a source tree the index is looked for in results/ (test_committed_results.py holds the
    committed index against a quick run); the first folder holding an index is the default."""
    assert default_reference_dirs()[-1] == os.path.join(ROOT, "results")
    source = tmp_path / "src"
    shutil.copytree(refs, source / "results")
    analysis = str(source / "analysis")
    sources, how = reference_sources(None, False, env={}, analysis_dir=analysis)
    assert sources == [str(source / "results")] and how.startswith("default: ")
    doc = run_doc([pi(0, "openmp", 2, 1.0, 0.7), triad(1, "openmp", 2, 0.006, 0.83)])
    s = reference_section(doc, sources)
    names = [r["name"] for r in s["refs"]]
    assert names == ["big-node", "old-laptop"] and s["notes"] == []
    page = reference_html(s)
    assert "big-node" in page and "old-laptop" in page
