"""The plan's estimate from this machine's earlier runs (experiments/plan/estimate.hpp): none on
a first run, and after one, each planned measurement takes the earlier record's elapsed_s
(scaled by warm-up plus repetitions) and drawing the earlier report's report_s. Arithmetic only:
how close an estimate comes to a later run's time is a measurement, made in the closing note."""
import json
import os
import re
import subprocess

from conftest import run_dir_of

ARGS = ["-k", "pi", "-b", "serial", "-n", "2^16", "-r", "3", "--no-ceilings"]


def parlab(parlab_bin, *args):
    return subprocess.run([parlab_bin, *args], capture_output=True, text=True, timeout=300)


def test_a_first_run_has_no_estimate_and_says_so(tmp_path, parlab_bin):
    r = parlab(parlab_bin, "run", *ARGS, "--out", str(tmp_path / "o"), "--dry-run")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "estimate: none" in text and "first run on a machine" in text, r.stdout


def test_the_estimate_is_the_earlier_records_time_and_the_reports(tmp_path, parlab_bin):
    out = tmp_path / "o"
    r = parlab(parlab_bin, "run", *ARGS, "--out", str(out), "--summary", "none")
    assert r.returncode == 0, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    (rec,) = doc["records"]
    assert rec["elapsed_s"] > 0 and doc["report_s"] > 0
    r = parlab(parlab_bin, "run", *ARGS, "--out", str(out), "--dry-run")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    m = re.search(r"estimate: about ([\d.]+) s to measure and ([\d.]+) s to draw \(from 1 of 1 measurements made "
                  r"on this machine before, in 1 earlier run\(s\)", text)
    assert m, r.stdout
    # The same plan: the earlier record's whole time, and the earlier report's.
    assert float(m.group(1)) == round(rec["elapsed_s"], 1)
    assert float(m.group(2)) == round(doc["report_s"], 1)
    # More repetitions of the same work: the earlier time per warm-up and repetition, scaled.
    r = parlab(parlab_bin, "run", *ARGS[:-2], "6", "--no-ceilings", "--out", str(out), "--dry-run")
    m = re.search(r"estimate: about ([\d.]+) s to measure", " ".join(r.stdout.split()))
    assert m, r.stdout
    spec = doc["plan"][0]
    scaled = rec["elapsed_s"] / (spec["warmup"] + spec["reps"]) * (spec["warmup"] + 6)
    assert float(m.group(1)) == round(scaled, 1)
