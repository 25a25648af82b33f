"""Mistakes that suggest the fix: a mistyped backend, kernel, suite, command or option gets "did
you mean", a range written 1-2 gets 1..2, and sizes take k/M/G and Ki/Mi/Gi. Each message is one
short line (no internal prefix, no list of every name), and the command exits 2."""
import os
import subprocess

import pytest

from conftest import run_dir_of

MISTAKES = {
    "backend": (["run", "-k", "pi", "-b", "opnmp", "--dry-run"], "--backend: unknown backend 'opnmp'; did you mean 'openmp'?"),
    "kernel": (["run", "-k", "tirad", "--dry-run"], "--kernel: unknown kernel 'tirad'; did you mean 'triad'?"),
    "suite": (["run", "quik", "--dry-run"], "unknown suite 'quik'; did you mean 'quick'?"),
    "range": (["run", "-k", "pi", "-t", "1-2", "--dry-run"], "did you mean '1..2'?"),
    "command": (["rnu"], "unknown command 'rnu'; did you mean 'run'?"),
    "option": (["run", "-k", "pi", "--thread", "2", "--dry-run"], "'--thread'; did you mean '--threads'?"),
    "backend_in_a_suite": (["run", "quick", "-b", "tbbb", "--dry-run"], "unknown backend 'tbbb'; did you mean 'tbb'?"),
}


@pytest.mark.parametrize("case", sorted(MISTAKES))
def test_a_mistake_suggests_the_fix_in_a_short_line(parlab_bin, case):
    args, expected = MISTAKES[case]
    r = subprocess.run([parlab_bin, *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert expected in r.stderr, r.stderr
    assert "ad-hoc run experiment" not in r.stderr and "accepted:" not in r.stderr, r.stderr
    assert max(len(line) for line in r.stderr.splitlines()) <= 100, r.stderr


@pytest.mark.parametrize("size, planned", [("1M", 1000000), ("2Mi", 2 << 20), ("16k", 16000), ("2^20", 1 << 20)])
def test_sizes_take_decimal_and_binary_suffixes(tmp_path, parlab_bin, size, planned):
    import json
    import os
    out = tmp_path / "o"
    r = subprocess.run([parlab_bin, "run", "-k", "dot", "-b", "serial", "-n", size, "-r", "1", "--no-ceilings",
                        "--out", str(out), "--no-report"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert [rec["size"] for rec in doc["records"]] == [planned]


def test_a_plan_of_which_nothing_can_run_here_exits_2_and_says_why(tmp_path, parlab_bin):
    """`parlab run -b cuda` on a machine without a GPU used to exit 0 with "0 figures"."""
    import os
    listed = subprocess.run([parlab_bin, "list", "backends"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "COLUMNS": "1000"}).stdout
    unavailable = [l.split()[0] for l in listed.splitlines()[1:] if len(l.split()) > 2 and l.split()[2] == "unavailable"]
    if not unavailable:
        pytest.fail("no unavailable backend to plan with (CI's machine has no GPU: the cuda backends are)")
    backend = unavailable[0]
    out = tmp_path / "o"
    r = subprocess.run([parlab_bin, "run", "-b", backend, "-k", "pi", "-n", "2^10", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "nothing in this plan can be measured here" in r.stderr and backend in r.stderr
    assert not out.exists(), "nothing is written"
    dry = subprocess.run([parlab_bin, "run", "-b", backend, "-k", "pi", "-n", "2^10", "--dry-run"],
                         capture_output=True, text=True, timeout=120)
    # The dry run prints the plan and exits as the run would: a script can ask it.
    assert dry.returncode == 2 and "UNAVAILABLE here" in dry.stdout and "nothing in this plan" in dry.stdout
    # With one backend that runs beside it, the run goes ahead and records the other as unavailable.
    r = subprocess.run([parlab_bin, "run", "-b", f"serial,{backend}", "-k", "pi", "-n", "2^10", "-r", "1",
                        "--no-ceilings", "--out", str(out), "--no-report"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_dry_run_lists_the_thread_and_size_points(parlab_bin):
    r = subprocess.run([parlab_bin, "run", "-k", "pi", "-b", "pool", "-t", "1,2", "-n", "2^10,2^12", "--dry-run"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "pool: 4 (threads 1,2; n 2^10,2^12)" in r.stdout, r.stdout
