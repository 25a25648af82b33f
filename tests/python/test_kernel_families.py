"""A kernel is data, once: records carry their kernel's `family`, so the figures route by family.
The one table of kernel names the plot code keeps (LEGACY_FAMILIES) is frozen, for committed
records from before records carried a family; a new kernel needs no entry in it. Records of
schema 1 read as schema 2 (the families "seed" and "study" renamed "basic" and "practice")."""
import json
import os
import subprocess

from conftest import ROOT
from analysis.figures.load import FAMILY_RENAMES, LEGACY_FAMILIES, SCHEMA, family_of, footprint_bytes, load_run, ok_records

# The families records carry: the catalogue's, and the wings' own kernels' (race, practice).
FAMILIES = {"pi", "stream", "basic", "race", "overhead", "comm", "practice"}

# LEGACY_FAMILIES as it was frozen, under the family names of schema 1: older records depend on it,
# so it never changes (a new kernel's records carry their family instead).
FROZEN = [
    ("pi", "pi"),
    ("copy", "stream"), ("mul", "stream"), ("add", "stream"), ("triad", "stream"), ("dot", "stream"),
    ("nstream", "stream"),
    ("plus_one", "seed"), ("add2d", "seed"), ("matmul", "seed"),
    ("count_racy", "race"), ("count_atomic", "race"), ("count_local", "race"), ("rng_shared", "race"),
    ("rng_counter", "race"), ("sum_order", "race"), ("sum_canonical", "race"),
    ("overhead_empty", "overhead"), ("overhead_for", "overhead"), ("overhead_reduce", "overhead"),
    ("mpi_barrier", "comm"), ("mpi_allreduce", "comm"), ("mpi_bcast", "comm"),
    ("py_count_racy", "race"), ("py_count_racy_call", "race"), ("py_count_locked", "race"),
    ("py_numpy_add_racy", "race"),
    ("transfer_pageable", "study"), ("transfer_pinned", "study"), ("transfer_many_small", "study"),
    ("transfer_one_large", "study"), ("logging_every_step", "study"), ("logging_on_device", "study"),
]


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


def test_the_legacy_table_is_frozen():
    assert list(LEGACY_FAMILIES.items()) == FROZEN


def test_every_catalogue_kernel_routes_by_its_family(parlab_bin):
    catalogue = listed_kernels(parlab_bin)
    assert len(catalogue) > 20
    for kernel, family in catalogue:
        assert family in FAMILIES, (kernel, family)
        # A record of it routes by the family it carries, whether or not the frozen table knows it.
        assert family_of({"kernel": kernel, "family": family}) == family
        # An older record of a kernel the frozen table knows reads as the same family.
        if kernel in LEGACY_FAMILIES:
            assert family_of({"kernel": kernel}) == family, kernel


def test_a_schema_1_run_reads_as_schema_2():
    # A committed run of schema 1 whose records carry no family (matmul, the GPU transfers).
    doc = load_run(os.path.join(ROOT, "results", "h200-node-16core", "20261121T162602Z"))
    assert doc["schema"] == SCHEMA and doc["migrated_from"] == "parlab-results/1"
    families = {r["kernel"]: r["family"] for r in doc["records"]}
    assert families["matmul"] == "basic"
    assert families["transfer_many_small"] == "practice"
    assert set(families.values()) <= FAMILIES


def test_a_schema_1_record_with_an_old_family_name_migrates(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({
        "schema": "parlab-results/1", "status": "complete", "context": {}, "records": [
            {"kernel": "plus_one", "family": "seed", "backend": "serial", "threads": 1, "size": 8,
             "status": "unavailable"},
            {"kernel": "logging_on_device", "family": "study", "backend": "cuda", "threads": 1, "size": 8,
             "status": "unavailable"}]}))
    doc = load_run(str(tmp_path))
    assert [r["family"] for r in doc["records"]] == ["basic", "practice"]
    assert FAMILY_RENAMES == {"seed": "basic", "study": "practice"}


def test_records_carry_the_catalogues_family_and_work(tmp_path, parlab_bin):
    catalogue = dict(listed_kernels(parlab_bin))
    kernels = ["pi", "triad", "plus_one", "add2d", "count_atomic", "overhead_empty"]
    out = tmp_path / "run"
    res = subprocess.run([parlab_bin, "run", "--kernel", ",".join(kernels), "--size", "257", "--backend", "serial",
                          "--reps", "1", "--no-report", "--quiet", "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    [run_dir] = [os.path.join(out, h, d) for h in os.listdir(out) for d in os.listdir(os.path.join(out, h))]
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    assert sorted(r["kernel"] for r in doc["records"]) == sorted(kernels)
    for r in doc["records"]:
        assert r["family"] == catalogue[r["kernel"]], r
        assert family_of(r) == r["family"]
        assert "work" in r and {"samples", "bytes", "flops"} <= set(r["work"]) <= {"samples", "bytes", "flops",
                                                                                  "footprint_bytes"}, r
        # A record from before footprint_bytes reads as the same footprint (the legacy table).
        legacy = dict(r, work={k: v for k, v in r["work"].items() if k != "footprint_bytes"})
        if "footprint_bytes" in r["work"] and r["family"] in ("stream", "basic") and r["kernel"] != "add2d":
            assert footprint_bytes(legacy) == r["work"]["footprint_bytes"], r
    by_kernel = {r["kernel"]: r for r in doc["records"]}
    assert by_kernel["triad"]["work"] == {"samples": 0, "bytes": 3 * 8 * 257, "flops": 2 * 257,
                                          "footprint_bytes": 3 * 8 * 257}
    assert by_kernel["plus_one"]["work"]["footprint_bytes"] == 2 * 4 * 257
    assert by_kernel["add2d"]["work"] == {"samples": 0, "bytes": 12 * 257 * 257, "flops": 257 * 257,
                                          "footprint_bytes": 12 * 257 * 257}
    assert by_kernel["pi"]["work"] == {"samples": 257, "bytes": 0, "flops": 0}  # nothing allocated per point


def test_a_record_of_a_new_kernel_is_routed_by_its_family():
    # No name list to extend: a race-family record of a kernel the table has never heard of is a lab
    # record, and one without a family and unknown kernel is a canonical one.
    new = {"kernel": "count_new", "family": "race", "status": "ok"}
    old = {"kernel": "count_racy", "status": "ok"}
    assert family_of(new) == "race" and family_of(old) == "race"
    doc = {"records": [new, old, {"kernel": "pi", "status": "ok"}]}
    assert [r["kernel"] for r in ok_records(doc, lab=True)] == ["count_new", "count_racy"]
    assert [r["kernel"] for r in ok_records(doc)] == ["pi"]
