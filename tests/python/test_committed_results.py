"""Checks of the committed runs under results/ that are no unit test of the analysis (those run on
the small fixtures of tests/fixtures/): every committed run is of the current schema and kept the
families its kernels had, and the committed reference runs (marked in results/runs.json) are the
source tree's default and compare with a quick run kernel by kernel. test_findings.py holds the
findings to the records they are rendered from."""
import glob
import os
import subprocess
import sys

from analysis.records import SCHEMA, family_of, load_run
from analysis.reference import ENV, reference_html, reference_section, reference_sources
from conftest import FAMILIES, PLOT, ROOT
from test_report_reference import pi, run_doc, triad

# The family each kernel had when records began to carry one (schema 1's names). The plot code kept
# this table to read the records written before; `parlab migrate` now gives them their family from
# the catalogue instead, and the migrated committed runs are held against it below.
SCHEMA_1_FAMILIES = {
    "pi": "pi",
    "copy": "stream", "mul": "stream", "add": "stream", "triad": "stream", "dot": "stream", "nstream": "stream",
    "plus_one": "seed", "add2d": "seed", "matmul": "seed",
    "count_racy": "race", "count_atomic": "race", "count_local": "race", "rng_shared": "race",
    "rng_counter": "race", "sum_order": "race", "sum_canonical": "race",
    "overhead_empty": "overhead", "overhead_for": "overhead", "overhead_reduce": "overhead",
    "mpi_barrier": "comm", "mpi_allreduce": "comm", "mpi_bcast": "comm",
    "py_count_racy": "race", "py_count_racy_call": "race", "py_count_locked": "race", "py_numpy_add_racy": "race",
    "transfer_pageable": "study", "transfer_pinned": "study", "transfer_many_small": "study",
    "transfer_one_large": "study", "logging_every_step": "study", "logging_on_device": "study",
}
SCHEMA_2_NAMES = {"seed": "basic", "study": "practice"}


def committed_runs():
    return sorted(glob.glob(os.path.join(ROOT, "results", "**", "results.json"), recursive=True))


def test_every_committed_run_is_current_and_kept_its_families():
    runs = committed_runs()
    assert runs
    migrated = 0
    for path in runs:
        doc = load_run(path)  # refuses an older schema
        assert doc["schema"] == SCHEMA, path
        migrated += doc.get("migrated_from") == "parlab-results/1"
        for r in doc["records"]:
            assert family_of(r) in FAMILIES | {"peak"}, (path, r["kernel"])
            # A migrated record has the family its kernel had then, under today's name.
            if doc.get("migrated_from") and r["kernel"] in SCHEMA_1_FAMILIES:
                then = SCHEMA_1_FAMILIES[r["kernel"]]
                assert r["family"] == SCHEMA_2_NAMES.get(then, then), (path, r["kernel"])
    assert migrated > 0  # the node's earliest runs were of schema 1


def test_the_source_tree_default_is_the_committed_reference_runs():
    """The source tree's index names the committed quick runs of both machines, and a quick run is
    compared with each of them, kernel by kernel, by fraction."""
    sources, _ = reference_sources(None, False, env={})
    assert sources == [os.path.join(ROOT, "results")]
    doc = run_doc([pi(0, "openmp", 2, 1.0, 0.7), triad(1, "openmp", 2, 0.006, 0.83)])
    doc["records"][0]["size"] = 1 << 27
    doc["records"][1]["size"] = 1 << 25
    s = reference_section(doc, sources)
    names = [r["name"] for r in s["refs"]]
    assert names == ["dev-2core", "h100-node-16core"] and s["notes"] == []
    for row in s["rows"]:
        for name in names:
            c = row["refs"][name]
            assert not c["missing"] and isinstance(c["fraction"], float), (row["text"], name)
    page = reference_html(s)
    assert "dev-2core" in page and "h100-node-16core" in page


def test_a_committed_run_replots_against_the_committed_reference_runs(tmp_path):
    """The suites point $PARLAB_REFERENCE at the fixtures (conftest.py); without it a report of
    the source tree compares with the committed reference runs, here a committed run of its own."""
    run = os.path.join(ROOT, "results", "dev-2core", "20261125T182248Z")
    env = {k: v for k, v in os.environ.items() if k != ENV}
    res = subprocess.run([sys.executable, PLOT, run, "--out", str(tmp_path), "--quiet"], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "report.html").read_text()
    assert "This machine against the reference runs" in page
    assert "dev-2core" in page and "h100-node-16core" in page and "No reference runs found" not in page
