"""A record's share of its roof as an interval (docs/ceilings.md, "The end probe";
analysis/share_interval.py): on given numbers, the H200 node's case that set the rule; its
formatting in the table within 80 columns; and a real small run that measures its bandwidth roofs
again at its end and writes what the docs say, at a cost of milliseconds under the test probes."""
import json
import math
import os
import subprocess
import time

import pytest

from analysis.roofs import share_text
from analysis.share_interval import reads_above, share_cell, share_interval
from analysis.table import render
from conftest import BASE_DOC, run_dir_of

GB = 1e9
N = 1 << 27          # doubles
BYTES = 16.0 * N     # copy: 16 bytes per element
IQR_HALF = 0.025     # quartile times 2.5% either side of the median: the node's records at 2^27
# The node's copy and triad records at 16 threads: 0.98 to 1.17 of a roof measured at 122 GB/s
# minutes before the run; its DRAM read 122 to 150 GB/s over the same rounds.
NODE_SHARES = [0.98, 1.00, 1.02, 1.05, 1.08, 1.10, 1.12, 1.15, 1.17]


def interval(attained, time_s, roof_high, roof_low):
    """The runner's rule (experiments/machine/roof_drift.hpp), written out for the tests to hold it
    to: the rate at the slower quartile (q3) over the highest roof, at the faster (q1) over the
    lowest. No view computes it."""
    return (attained * time_s["median"] / time_s["q3"] / roof_high,
            attained * time_s["median"] / time_s["q1"] / roof_low)


def node_record(share, start, end=None):
    """A copy record at `share` of the start's roof, graded as the runner grades it: against the
    start's roof alone without an end probe (end None), else against the highest of the two with
    its interval (the rule mirrored here is the runner's; the run below holds the two equal)."""
    rate = share * start
    median = BYTES / rate
    time_s = {"n": 20, "q1": median * (1 - IQR_HALF), "median": median, "q3": median * (1 + IQR_HALF)}
    high = start if end is None else max(start, end)
    limit = {"roof": "cpu_bw_copy_nt_all", "value": high, "unit": "bytes/s", "attained": rate,
             "fraction": rate / high}
    if end is not None:
        low, top = interval(rate, time_s, high, min(start, end))
        limit["interval"] = {"low": low, "high": top, "roof_low": min(start, end)}
    # The runner's note of a record above its roof: where its share is over 1, kept by the end
    # probe only where its whole interval is (the run below holds the runner to it).
    if (limit["interval"]["low"] if end is not None else limit["fraction"]) > 1:
        limit["above_roof"] = "above its roof, as the runner notes it"
    return {"kernel": "copy", "backend": "openmp", "threads": 16, "size": N, "precision": "double",
            "status": "ok", "time_s": time_s, "rate": {"bytes_per_s": rate}, "limit": limit,
            "validation": {"pass": True}}


@pytest.mark.parametrize("start,end,before,after", [
    (122, 150, 7, 0),   # the node: 1.17 x 122 / 150 / 1.025 = 0.93
    (150, 122, 7, 6),   # the start the higher: over 1.025 reads above (1.05 .. 1.17)
    (122, 122, 7, 6),
    (122, 125, 7, 5),   # 1.05 x 122 / 125 / 1.025 = 0.9998
])
def test_the_node_case_on_given_numbers(start, end, before, after):
    old = [node_record(s, start * GB) for s in NODE_SHARES]
    new = [node_record(s, start * GB, end * GB) for s in NODE_SHARES]
    assert sum(reads_above(r) for r in old) == before
    assert sum(reads_above(r) for r in new) == after
    for r in new:
        low, high = share_interval(r)
        assert low <= r["limit"]["fraction"] <= high
        assert low == pytest.approx(r["rate"]["bytes_per_s"] / (1 + IQR_HALF) / (max(start, end) * GB))
        assert high == pytest.approx(r["rate"]["bytes_per_s"] / (1 - IQR_HALF) / (min(start, end) * GB))


def test_the_node_reads_0_98_to_1_17_before_and_below_1_after():
    """The closing note's numbers: before, 0.98 to 1.17 of the start's roof; after, every interval
    reaches below 1 and its top stays under 1.25 (the faster quartile against 122 GB/s)."""
    old = [node_record(s, 122 * GB) for s in NODE_SHARES]
    new = [node_record(s, 122 * GB, 150 * GB) for s in NODE_SHARES]
    assert min(r["limit"]["fraction"] for r in old) == pytest.approx(0.98)
    assert max(r["limit"]["fraction"] for r in old) == pytest.approx(1.17)
    assert all(share_interval(r)[0] < 1 for r in new)
    assert max(share_interval(r)[1] for r in new) == pytest.approx(1.17 / 0.975)


def test_a_share_without_an_interval_reads_as_before():
    r = node_record(1.05, 122 * GB)
    assert share_interval(r) is None and reads_above(r)
    assert share_cell(1.05, None) == "1.05" and share_cell(0.004, None) == "<0.01"
    assert share_cell(1.05, (0.98, 1.12)) == "1.05 (0.98–1.12)"
    assert share_text(r) == "1.05 of cpu_bw_copy_nt_all"
    graded = node_record(1.05, 122 * GB, 150 * GB)
    assert share_text(graded) == "0.85 (0.83–1.08) of cpu_bw_copy_nt_all"  # 1.05 x 122/150; /1.025; 1.05/0.975
    bad = node_record(1.05, 122 * GB, 150 * GB)
    bad["limit"]["interval"]["low"] = "0.9"  # the schema refuses it first; read as none here
    assert share_interval(bad) is None


def _doc(records):
    doc = json.loads(json.dumps(BASE_DOC))
    doc["records"] = [dict(r, id=i) for i, r in enumerate(records)]
    return doc


def test_the_table_shows_each_interval_within_80_columns():
    records = [dict(node_record(s, 122 * GB, 150 * GB), backend=b)
               for s, b in zip([1.17, 1.02], ["openmp", "pool"])]
    records.append(dict(node_record(1.30, 122 * GB, 150 * GB), backend="tbb"))  # 1.30 x 122/150/1.025 > 1
    text = render(_doc(records), "table", 80)
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "0.95 (0.93–1.20)" in text, text  # 1.17 x 122 / 150, and its interval
    marked = [line for line in text.splitlines() if line.lstrip().startswith("tbb")]
    assert marked and marked[0].rstrip().endswith("^"), text  # its whole interval is above 1
    assert not any(line.rstrip().endswith("^") for line in text.splitlines() if "openmp" in line or "pool" in line)
    assert "(low–high)" in text
    rows = json.loads(render(_doc(records), "json"))["rows"]
    assert [x["above"] for x in rows] == [False, False, True]
    assert rows[0]["share_low"] == pytest.approx(1.17 * 122 / 150 / 1.025)


def test_an_old_run_says_nothing_new():
    """No interval: the cell is the share alone, no mark, no footer line, as before the end probe."""
    text = render(_doc([node_record(1.05, 122 * GB)]), "table", 80)
    (line,) = [x for x in text.splitlines() if x.lstrip().startswith("openmp")]
    assert line.endswith(" 1.05") and "(low–high)" not in text and "\n^ " not in text, text


def _memory_resident_size(parlab_bin):
    """The smallest power of two of doubles whose triad arrays (24 bytes an element) reach four
    times this machine's last-level cache (core/roof.hpp, residency), or None where it has none."""
    c = json.loads(subprocess.run([parlab_bin, "ceilings", "--json"], capture_output=True, text=True,
                                  timeout=300, check=True).stdout)
    llc = c["roofs"].get("cpu_llc_bytes", {}).get("value")
    return None if not llc else 1 << math.ceil(math.log2(4 * llc / 24))


def test_a_run_measures_its_bandwidth_roofs_again_at_its_end(tmp_path, parlab_bin):
    n = _memory_resident_size(parlab_bin)
    if n is None:
        pytest.skip("this machine reports no last-level cache: every record is held against memory's roofs")
    out = tmp_path / "o"
    t0 = time.monotonic()
    res = subprocess.run([parlab_bin, "run", "-k", "triad", "-b", "openmp", "-t", "1,2", "-n", str(n), "-r", "3",
                          "--no-report", "--out", str(out)], capture_output=True, text=True, timeout=300)
    wall = time.monotonic() - t0
    assert res.returncode in (0, 1), res.stderr
    assert "parlab: measuring the bandwidth roofs again (about" in res.stderr, res.stderr
    doc = json.load(open(os.path.join(run_dir_of(str(out)), "results.json")))
    end = doc["context"]["ceilings_end"]
    assert end["quick"] is True and end["unavailable"] == {}
    assert set(end["roofs"]) == {"cpu_bw_triad_1", "cpu_bw_triad_all"}
    # A few seconds at most; under the test probes, well under one, and a small part of the run.
    assert end["seconds"] < min(3.0, wall), (end["seconds"], wall)
    start = doc["context"]["ceilings"]["roofs"]
    for name, roof in end["roofs"].items():
        assert roof["start"] == start[name]["value"]
        assert roof["drift"] == pytest.approx(roof["value"] / roof["start"] - 1)
    for r in doc["records"]:
        lim = r["limit"]
        name = lim["roof"]
        assert lim["value"] == max(end["roofs"][name]["value"], start[name]["value"])
        low, high = interval(lim["attained"], r["time_s"], lim["value"], lim["interval"]["roof_low"])
        assert lim["interval"]["low"] == pytest.approx(low, rel=1e-12)
        assert lim["interval"]["high"] == pytest.approx(high, rel=1e-12)
        assert ("above_roof" in lim) == (low > 1)


def test_a_run_without_ceilings_or_bandwidth_records_is_not_probed_again(tmp_path, parlab_bin):
    for args in (["-k", "triad", "-n", "2^12", "--no-ceilings"], ["-k", "pi", "-n", "2^16"]):
        out = tmp_path / args[1]
        res = subprocess.run([parlab_bin, "run", *args, "-b", "serial", "-r", "2", "--no-report", "--out", str(out)],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        assert "again" not in res.stderr, res.stderr
        doc = json.load(open(os.path.join(run_dir_of(str(out)), "results.json")))
        assert "ceilings_end" not in doc["context"]
