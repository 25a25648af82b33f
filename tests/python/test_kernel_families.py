"""A kernel is data, once: records carry their kernel's `family`, so the figures
route by family; the one table of kernel names the plot code keeps (LEGACY_FAMILIES, for
committed records from before records carried a family) must agree with the catalogue."""
import json
import os
import subprocess

from analysis.figures.load import LEGACY_FAMILIES, family_of, footprint_bytes, ok_records


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


def test_legacy_families_agree_with_the_catalogue(parlab_bin):
    catalogue = listed_kernels(parlab_bin)
    assert len(catalogue) > 20
    # The catalogue's kernels first, in its order, each with its family; the wings' own after.
    assert list(LEGACY_FAMILIES.items())[:len(catalogue)] == catalogue
    wings = dict(list(LEGACY_FAMILIES.items())[len(catalogue):])
    assert set(wings.values()) <= {"race", "study"}, wings


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
        if "footprint_bytes" in r["work"] and r["family"] in ("stream", "seed") and r["kernel"] != "add2d":
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
