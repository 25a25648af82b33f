"""One run over several interpreters: the run's own CPython (a GIL build) and a free-threaded
3.13t reached through its own parlab build (PARLAB_INTERPRETERS), once with PYTHON_GIL=1 and once
without a GIL. Every record names its interpreter, build and run-time GIL state as fields, and
every interpreter gives the canonical pi count. Skips where no free-threaded parlab is listed
(scripts/run-tests.sh ft builds one and sets PARLAB_INTERPRETERS)."""
import json
import os
import subprocess

import jsonschema
import pytest

from conftest import ROOT, SCHEMA, run_dir_of

SUITE = {
    "name": "interpreters", "description": "test suite", "reps": 2, "warmup": 1, "seed": 5, "min_rep_seconds": 0,
    "experiments": [
        {"kernel": "pi", "backends": ["py-pure-threads", "py-pure-private"],
         "threads": "1,2", "sizes": [20011], "interpreters": "all"},
        {"kernel": "pi", "backends": ["py-parlab-gil-held"], "threads": "1,2", "sizes": ["2^22"],
         "interpreters": "all"},
        {"kernel": ["py_count_locked", "py_count_racy"], "backends": ["py-threads-race"], "threads": "2",
         "sizes": [20000], "scaling": "none", "interpreters": "all"},
    ],
}


@pytest.fixture
def ft_binaries():
    listed = [p for p in os.environ.get("PARLAB_INTERPRETERS", "").split(":") if p]
    if not listed or not all(os.access(p, os.X_OK) for p in listed):
        pytest.skip("no free-threaded parlab in PARLAB_INTERPRETERS (scripts/run-tests.sh ft builds one)")
    return listed


def test_one_run_measures_every_interpreter_mode(tmp_path, parlab_bin, ft_binaries):
    suite = tmp_path / "interpreters.json"
    suite.write_text(json.dumps(SUITE))
    listing = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0, listing.stderr
    assert "free-threaded (PYTHON_GIL=1)" in listing.stdout and "free-threaded (GIL disabled)" in listing.stdout

    r = subprocess.run([parlab_bin, "run", str(suite), "--out", str(tmp_path / "out"), "--quiet", "--no-report"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    host = tmp_path / "out"
    run_dir = run_dir_of(host)
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    jsonschema.validate(doc, json.load(open(SCHEMA)))

    modes = {(rec["interpreter"], rec["python_build"], rec["gil_enabled"]) for rec in doc["records"]}
    builds = {(b, g) for _, b, g in modes}
    assert builds == {("gil", True), ("free-threaded", True), ("free-threaded", False)}, modes
    for rec in doc["records"]:
        assert rec["status"] == "ok", rec
        if rec["python_build"] == "free-threaded":
            assert rec["python_gil"] == ("0" if not rec["gil_enabled"] else "1"), rec
    pi = [rec for rec in doc["records"] if rec["kernel"] == "pi"]
    for size in {rec["size"] for rec in pi}:
        hits = {rec["hits"] for rec in pi if rec["size"] == size}
        assert len(hits) == 1, f"every interpreter and mode gives the canonical count at size {size}: {hits}"
    assert all(c["pass"] for c in doc["consistency"])
    locked = [rec for rec in doc["records"] if rec["kernel"] == "py_count_locked"]
    assert len(locked) == 3 and all(rec["validation"]["pass"] for rec in locked)
    no_gil = [rec for rec in pi if rec["backend"] == "py-parlab-gil-held" and not rec["gil_enabled"]]
    assert no_gil and all("no GIL at run time" in rec["validation"]["detail"] for rec in no_gil)


def test_a_kernel_file_runs_in_every_interpreter_mode(tmp_path, parlab_bin, ft_binaries):
    """A suite given by path names a person's kernel file with "interpreters": "all": each mode's
    parlab loads the file itself, checks its hash and gives the one answer the kernel has."""
    kernel = tmp_path / "k.py"
    kernel.write_text(open(os.path.join(ROOT, "examples", "python-gil", "kernel.py")).read())
    suite = tmp_path / "own.json"
    suite.write_text(json.dumps({
        "name": "own", "description": "a kernel file in every interpreter", "reps": 2, "warmup": 1, "seed": 5,
        "min_rep_seconds": 0,
        "experiments": [{"kernel": "k.py", "backends": ["py-pure-threads"], "threads": "1,2", "sizes": [20011],
                         "interpreters": "all"}]}))
    r = subprocess.run([parlab_bin, "run", str(suite), "--out", str(tmp_path / "out"), "--quiet", "--no-report",
                        "--no-ceilings"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(tmp_path / "out"), "results.json")))
    jsonschema.validate(doc, json.load(open(SCHEMA)))
    assert all(rec["status"] == "ok" for rec in doc["records"]), [rec.get("reason") for rec in doc["records"]]
    modes = {(rec["python_build"], rec["gil_enabled"]) for rec in doc["records"]}
    assert modes == {("gil", True), ("free-threaded", True), ("free-threaded", False)}, modes
    assert {rec["kernel_file"] for rec in doc["records"]} == {os.path.relpath(kernel, run_dir_of(tmp_path / "out"))}
    assert len({rec["checksum"] for rec in doc["records"]}) == 1, [rec["checksum"] for rec in doc["records"]]
