"""A kernel is data, once: every record carries its kernel's `family`, so the figures route by
family and the plot code keeps no list of kernel names. A run of an older schema (records named
two families otherwise, and the oldest carry no family at all) is brought to the current one by
`parlab migrate`, which takes what the records lack from the catalogue; the loader refuses such a
run and names the command. The committed runs' families are held in test_committed_results.py."""
import copy
import json
import os
import shutil
import subprocess

import pytest

from conftest import BASE_DOC, FAMILIES, FIXTURE_FAMILIES, FIXTURES, run_dir_of, run_plot
from analysis.records import family_of, footprint_bytes, load_run, ok_records, SCHEMA
from analysis.read import InputError


def listed_kernels(parlab_bin):
    """The catalogue as `parlab list` shows it: [(kernel, family)] in display order."""
    out = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, check=True).stdout.splitlines()
    start = out.index("kernels:") + 1
    rows = []
    for line in out[start:]:
        if not line.startswith("  "):
            break
        name, family = line.split()[:2]
        rows.append((name, family))
    return rows


def test_every_catalogue_kernel_has_a_known_family_and_the_fixtures_agree(parlab_bin):
    catalogue = listed_kernels(parlab_bin)
    assert len(catalogue) > 20
    for kernel, family in catalogue:
        assert family in FAMILIES, (kernel, family)
        assert family_of({"kernel": kernel, "family": family}) == family
        # The fixtures of the figure tests give their records the family parlab would.
        assert FIXTURE_FAMILIES.get(kernel, family) == family, kernel


def as_parlab_wrote_it(doc):
    """An old run of these tests with what every run parlab wrote carried beside the fields they
    are about (family, footprint), as the loader holds a migrated run against the results schema:
    a context, each record's id, kind, seed and precision, an unavailable record's reason, and a
    measured one's repetitions, rate, validation, checksum and inner count."""
    doc["context"] = copy.deepcopy(BASE_DOC["context"])
    for i, r in enumerate(doc["records"]):
        for key, value in (("id", i), ("kind", "cpu"), ("seed", 1), ("precision", "double"), ("size_y", 0)):
            r.setdefault(key, value)
        if r["status"] == "ok":
            for key, value in (("reps_s", [r["time_s"]["median"]]), ("rate", {}), ("checksum", 0.0), ("inner", 1),
                               ("validation", {"pass": True, "detail": "ok"})):
                r.setdefault(key, value)
        else:
            r.setdefault("reason", "not built")
    return doc


def old_run(tmp_path, records, name="old"):
    d = tmp_path / name
    d.mkdir()
    doc = {"schema": "parlab-results/1", "status": "complete", "suite": "fixture", "context": {}, "plan": [],
           "consistency": [], "records": records}
    (d / "results.json").write_text(json.dumps(as_parlab_wrote_it(doc), indent=1) + "\n")
    return d


def plan_entry(kernel, backend, size, precision="int32", threads=1, id=0):
    """A record's plan fields as every schema's runner wrote them."""
    return {"id": id, "study": "fixture", "scaling": "none", "kernel": kernel, "backend": backend, "threads": threads,
            "size": size, "size_y": 0, "precision": precision, "seed": 42, "reps": 1, "warmup": 0,
            "min_rep_seconds": 0.0, "device": 0}


def measured(kernel, backend, size, precision, id=0, **extra):
    """A schema-1 record: one repetition of 1 s, its spread the median alone (schema 3 added the rest)."""
    return {**plan_entry(kernel, backend, size, precision, id=id), "kind": "cpu", "status": "ok", "inner": 1,
            "reps_s": [1.0], "time_s": {"median": 1.0}, "validation": {"pass": True, "detail": "ok"},
            "work": {"samples": 0, "bytes": 1.0, "flops": 0}, **extra}


def migrate(parlab_bin, *args):
    return subprocess.run([parlab_bin, "migrate", *map(str, args)], capture_output=True, text=True)


def test_migrate_gives_old_records_their_family_and_footprint_from_the_catalogue(tmp_path, parlab_bin):
    # tests/fixtures/schema-1: the oldest records (plus_one: no family, no footprint), a family of
    # schema 1's name (add2d: seed), the lab (count_racy), an unavailable overhead_empty, and a
    # triad that has both. Copied: migrate rewrites it.
    run = shutil.copytree(os.path.join(FIXTURES, "schema-1"), tmp_path / "old")
    doc = as_parlab_wrote_it(json.loads((run / "results.json").read_text()))
    (run / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    # The loader does not guess: it names the command.
    with pytest.raises(InputError, match=r"parlab migrate .*parlab-results/5"):
        load_run(str(run))
    res = run_plot(str(run))
    assert res.returncode == 2 and "parlab migrate" in res.stderr, res.stderr

    before = (run / "results.json").read_bytes()
    res = migrate(parlab_bin, "--dry-run", run)
    assert res.returncode == 0 and "would migrate" in res.stdout, res.stdout + res.stderr
    assert (run / "results.json").read_bytes() == before

    res = migrate(parlab_bin, run)
    assert res.returncode == 0, res.stderr
    said = " ".join(res.stdout.split())  # wrapped to the terminal's width
    assert "parlab-results/1 -> parlab-results/5; 3 record(s) given their family, 1 renamed, 2 given their footprint" \
        in said, res.stdout
    # Each measured record is given the whole spread of its repetitions (schema 3).
    n_measured = sum(r.get("status") == "ok" and bool(r.get("reps_s")) for r in json.loads(before)["records"])
    assert f", {n_measured} their spread" in res.stdout, res.stdout
    doc = load_run(str(run))
    assert doc["schema"] == SCHEMA and doc["migrated_from"] == "parlab-results/1"
    by = {r["kernel"]: r for r in doc["records"]}
    assert [by[k]["family"] for k in ("plus_one", "add2d", "count_racy", "overhead_empty", "triad")] == \
        ["basic", "basic", "race", "overhead", "stream"]
    assert footprint_bytes(by["plus_one"]) == 2 * 4 * 1001      # two int32 arrays
    assert footprint_bytes(by["add2d"]) == 3 * 4 * 64 * 64      # three float grids, square
    assert footprint_bytes(by["count_racy"]) is None            # a counter allocates nothing
    assert footprint_bytes(by["triad"]) == 384.0                # kept as written
    assert [r["kernel"] for r in ok_records(doc, lab=True)] == ["count_racy"]
    # Everything else is kept as it was.
    assert json.loads(before)["records"][0]["work"]["bytes"] == by["plus_one"]["work"]["bytes"]

    # Again: nothing to do, the file untouched.
    after = (run / "results.json").read_bytes()
    res = migrate(parlab_bin, run / "results.json")
    assert res.returncode == 0 and "nothing to do" in res.stdout, res.stdout
    assert (run / "results.json").read_bytes() == after


def test_migrate_leaves_a_run_it_cannot_complete_as_it_was_and_does_the_others(tmp_path, parlab_bin):
    unknown = old_run(tmp_path, [measured("pi", "serial", 8, "int32"),
                                 measured("warp_shuffle", "cuda", 8, "int32", id=1)], name="unknown")
    fine = old_run(tmp_path, [measured("pi", "serial", 8, "int32")], name="fine")
    not_json = tmp_path / "not-json"
    not_json.mkdir()
    (not_json / "results.json").write_text("{")
    before = (unknown / "results.json").read_bytes()
    res = migrate(parlab_bin, unknown, fine, not_json, tmp_path / "missing")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "record 1 (kernel 'warp_shuffle' on backend 'cuda')" in res.stderr and "left as it was" in res.stderr
    assert "not valid JSON" in res.stderr and "no such file" in res.stderr
    assert (unknown / "results.json").read_bytes() == before
    assert load_run(str(fine))["records"][0]["family"] == "pi"
    newer = old_run(tmp_path, [], name="newer")
    (newer / "results.json").write_text(json.dumps({"schema": "parlab-results/9", "records": []}))
    res = migrate(parlab_bin, newer)
    assert res.returncode == 2 and "schema is 'parlab-results/9'" in res.stderr, res.stderr


def test_records_carry_the_catalogues_family_and_work(tmp_path, parlab_bin):
    catalogue = dict(listed_kernels(parlab_bin))
    kernels = ["pi", "triad", "plus_one", "add2d", "count_atomic", "overhead_empty"]
    out = tmp_path / "run"
    res = subprocess.run([parlab_bin, "run", "--kernel", ",".join(kernels), "--size", "257", "--backend", "serial",
                          "--reps", "1", "--no-report", "--quiet", "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    run_dir = run_dir_of(out)
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    assert sorted(r["kernel"] for r in doc["records"]) == sorted(kernels)
    for r in doc["records"]:
        assert r["family"] == catalogue[r["kernel"]], r
        assert family_of(r) == r["family"]
        assert "work" in r and {"samples", "bytes", "flops"} <= set(r["work"]) <= {"samples", "bytes", "flops",
                                                                                  "footprint_bytes"}, r
    by_kernel = {r["kernel"]: r for r in doc["records"]}
    assert by_kernel["triad"]["work"] == {"samples": 0, "bytes": 3 * 8 * 257, "flops": 2 * 257,
                                          "footprint_bytes": 3 * 8 * 257}
    assert by_kernel["plus_one"]["work"]["footprint_bytes"] == 2 * 4 * 257
    assert by_kernel["add2d"]["work"] == {"samples": 0, "bytes": 12 * 257 * 257, "flops": 257 * 257,
                                          "footprint_bytes": 12 * 257 * 257}
    assert by_kernel["pi"]["work"] == {"samples": 257, "bytes": 0, "flops": 0}  # nothing allocated per point
    # A current run needs no migration.
    res = migrate(parlab_bin, run_dir)
    assert res.returncode == 0 and "nothing to do" in res.stdout, res.stdout


def test_a_record_of_a_new_kernel_is_routed_by_its_family():
    # No name list to extend: a race-family record of a kernel never heard of is a lab record.
    new = {"kernel": "count_new", "family": "race", "status": "ok"}
    doc = {"records": [new, {"kernel": "pi", "family": "pi", "status": "ok"}]}
    assert [r["kernel"] for r in ok_records(doc, lab=True)] == ["count_new"]
    assert [r["kernel"] for r in ok_records(doc)] == ["pi"]
