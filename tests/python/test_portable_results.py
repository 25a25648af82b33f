"""Schema parlab-results/4: a run's files hold no path of the machine that wrote them, and every
record above its roof says by how much (docs/records.md, "No machine paths" and "Runs of an older
schema"). `parlab run` writes them so, and `parlab migrate` brings a run of /3 to it: the paths
taken out, each unnoted record above its roof graded from its own share and the run's ceilings.
The function and the notes are tested on given numbers in tests/test_portable_paths.cpp and
tests/test_migrate.cpp."""
import copy
import json
import os
import subprocess

import jsonschema
import pytest

from conftest import FIXTURES, ROOT, SCHEMA, run_dir_of


def strings(doc):
    """Every string value of a JSON document."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for v in doc.values():
            yield from strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from strings(v)


def test_a_run_writes_no_path_of_this_machine(tmp_path, parlab_bin):
    out = tmp_path / "out"
    res = subprocess.run([parlab_bin, "run", "--kernel", "triad", "--size", "257", "--backend", "serial", "--reps",
                          "1", "--no-report", "--quiet", "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    run_dir = run_dir_of(out)
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    jsonschema.validate(doc, json.load(open(SCHEMA)))
    # --out is the results root: relative to itself. The ceilings' cache (the suites keep one in a
    # temporary folder) keeps its file's name only.
    assert doc["invocation"][doc["invocation"].index("--out") + 1] == "."
    assert doc["context"]["ceilings"]["cache"].startswith("\u2026/"), doc["context"]["ceilings"]["cache"]
    home = os.path.expanduser("~")
    for s in strings(doc):
        assert str(tmp_path) not in s and ROOT not in s and not (len(home) > 1 and home + "/" in s), s
    csv = open(os.path.join(run_dir, "results.csv")).read()
    assert str(tmp_path) not in csv and ROOT not in csv


def schema_3_run(tmp_path):
    """The stream-limits fixture as a run of schema /3 would have it: a record above its roof
    (openmp triad at 2 threads, 1.07 of cpu_bw_triad_all, whose ceilings keep no spread) without
    the note, and paths of the machine that wrote it: under its results root, under $HOME, and
    elsewhere."""
    doc = json.load(open(os.path.join(FIXTURES, "stream-limits", "results.json")))
    doc["schema"] = "parlab-results/3"
    out = tmp_path / "out"
    doc["invocation"] = ["parlab", "run", "--out", str(out)]
    doc["context"]["ceilings"]["cache"] = str(tmp_path / "home" / ".cache" / "parlab" / "ceilings" / "vm-1.json")
    peer = next(r for r in doc["records"] if r["backend"] == "babelstream-cuda")
    peer["validation"]["detail"] = "BabelStream cuda-stream at /srv/build/babelstream/cuda-stream (PARLAB_BABELSTREAM_DIR)"
    above = next(r for r in doc["records"] if (r["kernel"], r["backend"], r["threads"]) == ("triad", "openmp", 2)
                 and r["limit"]["roof"] == "cpu_bw_triad_all")
    above["limit"].update(fraction=1.07, attained=1.07 * above["limit"]["value"])
    above["limit"].pop("above_roof", None)
    run = out / "host" / "20260101T000000Z"
    run.mkdir(parents=True)
    (run / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    return run, doc, above["id"]


def test_migrate_grades_a_run_of_schema_3_and_takes_its_paths_out(tmp_path, parlab_bin):
    schema = json.load(open(SCHEMA))
    run, before, above_id = schema_3_run(tmp_path)
    # As it was, the current schema (since /4) would refuse it for more than its schema: the
    # record above its roof says nothing (with any note, it passes).
    as_4 = copy.deepcopy(before)
    as_4["schema"] = "parlab-results/5"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(as_4, schema)
    next(r for r in as_4["records"] if r["id"] == above_id)["limit"]["above_roof"] = "above"
    jsonschema.validate(as_4, schema)

    env = dict(os.environ, HOME=str(tmp_path / "home"))
    res = subprocess.run([parlab_bin, "migrate", str(run)], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    said = " ".join(res.stdout.split())  # wrapped to the terminal's width
    assert "parlab-results/3 -> parlab-results/5" in said, res.stdout
    assert "1 given their above-roof note" in said and "3 path(s) made portable" in said, res.stdout

    doc = json.load(open(run / "results.json"))
    jsonschema.validate(doc, schema)
    assert doc["schema"] == "parlab-results/5" and doc["migrated_from"] == "parlab-results/3"
    assert doc["invocation"] == ["parlab", "run", "--out", "."]
    assert doc["context"]["ceilings"]["cache"] == "~/.cache/parlab/ceilings/vm-1.json"
    peer = next(r for r in doc["records"] if r["backend"] == "babelstream-cuda")
    assert peer["validation"]["detail"] == "BabelStream cuda-stream at \u2026/cuda-stream (PARLAB_BABELSTREAM_DIR)"
    graded = next(r for r in doc["records"] if r["id"] == above_id)["limit"]
    assert graded["above_roof"] == ("above its roof by 7%; this run's ceilings keep no spread for cpu_bw_triad_all, "
                                    "so whether that is within the roof's noise is not known (graded by parlab migrate)")
    # Nothing else of a record changes: its share and roof are its run's.
    for old, new in zip(before["records"], doc["records"]):
        new_limit = {k: v for k, v in (new.get("limit") or {}).items() if k != "above_roof"}
        assert new_limit == (old.get("limit") or {}), old["id"]

    # Again: nothing to do, the file untouched.
    after = (run / "results.json").read_bytes()
    res = subprocess.run([parlab_bin, "migrate", str(run)], capture_output=True, text=True, env=env)
    assert res.returncode == 0 and "nothing to do" in res.stdout, res.stdout + res.stderr
    assert (run / "results.json").read_bytes() == after
