"""Results that cannot be right are marked where they are shown, and the table's
roof cell and spreads say what they are: given numbers, each rule met and not met."""
import copy
import os
import subprocess

import pytest
from analysis.summary import run_summary, summary_html
from analysis.plausible import marks
from analysis.table import groups, render
from conftest import BASE_DOC, record


def doc_of(records, load=0.0, cpus=4):
    d = copy.deepcopy(BASE_DOC)
    d["context"]["cpu"]["logical_cpus"] = cpus
    d["context"]["load_average_1min"] = load
    d["records"] = records
    return d


def row_of(d, backend, threads):
    (x,) = [x for _, rows in groups(d) for x in rows if x["backend"] == backend and x["threads"] == threads]
    return x


# ------------------------------------------------------------------------------------ the rules
@pytest.mark.parametrize("median2,marked", [(8.0 / 2.70, True), (8.0 / 2.3, True), (8.0 / 2.1, False),
                                            (8.0 / 1.9, False)], ids=["2.70x", "2.30x", "2.10x", "1.90x"])
def test_a_speedup_above_the_cpus_used_is_marked(median2, marked):
    """2.70x at 2 threads (the sweep's case) is; 2.1x, within 1.1x of 2 workers, is not."""
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 2, median2)])
    assert ("?" in row_of(d, "pool", 2)["plausible"]) is marked


@pytest.mark.parametrize("median1,marked", [(8.0 / 1.57, True), (8.0 / 1.25, True), (8.0 / 1.15, False),
                                            (8.0, False)], ids=["1.57x", "1.25x", "1.15x", "1.00x"])
def test_a_one_worker_record_over_serial_is_marked(median1, marked):
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "openmp", 1, median1)])
    assert ("?" in row_of(d, "openmp", 1)["plausible"]) is marked


def test_serial_is_never_implausible_against_itself():
    d = doc_of([record(0, "serial", 1, 8.0)])
    assert row_of(d, "serial", 1)["plausible"] == ""


def with_machine(r, others=0.0, shared=None):
    """Record r with the `machine` block the runner writes: other processes' CPUs over its window,
    and why it shared its CPUs where it did (the runner judges it; the analysis reads it)."""
    r["machine"] = {"window_s": 1.0, "others": others}
    if shared:
        r["machine"]["shared"] = shared
    return r


def test_the_shared_mark_is_the_records_own_measurement_not_the_load_at_the_start():
    """A run started on a loaded machine (load 9 on 4 CPUs) whose records measured no other work is
    not marked; a record whose runner found its CPUs shared is, with its own reason in the report."""
    why = "other processes used 1.30 CPUs' worth of time beside its 4 workers, on 4 CPUs"
    d = doc_of([with_machine(record(0, "serial", 1, 8.0)), with_machine(record(1, "pool", 2, 4.0), others=0.02),
                with_machine(record(2, "pool", 4, 2.2), others=1.3, shared=why)], load=9.0)
    assert row_of(d, "pool", 2)["plausible"] == ""
    assert row_of(d, "pool", 4)["plausible"] == "~"
    (listed,) = run_summary(d)["implausible"]
    assert listed["marks"] == "~" and listed["records"] == [{"what": "pool pi t=4 speedup 3.64x", "reason": why}]


def test_a_record_that_measured_no_other_work_gets_no_mark_and_the_footer_says_so():
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 4, 2.0)], load=9.0)
    assert row_of(d, "pool", 4)["plausible"] == ""
    text = " ".join(render(d, "table", 80).split())
    assert "no `~` judged for 2 record(s) made before parlab measured other processes' time per record" in text


def test_a_record_whose_work_ran_in_processes_of_its_own_is_not_called_old():
    """An MPI job's probe (no accounted workers) and a peer's program measure no machine block by
    design: the footer says why they got no `~`, not that they were made before parlab measured."""
    mpi = record(1, "mpi+serial", 1, 4.0, kind="mpi")
    mpi["ranks"] = 2
    d = doc_of([with_machine(record(0, "serial", 1, 8.0)), mpi, record(2, "omp-stream", 2, 2.0, kind="peer")])
    text = " ".join(render(d, "table", 80).split())
    assert ("no `~` judged for 2 record(s) whose work ran where parlab accounts no workers (processes of their "
            "own: an MPI job's ranks, a peer's program, a process pool or Dask; or a library's threads)") in text, text
    assert "made before parlab measured" not in text


def test_a_record_the_runner_did_not_measure_says_why_and_is_not_called_old():
    """A process pool's record (python, on the CPU, no ledger) carries `machine.unmeasured`: it is
    counted with the records whose work ran where parlab accounts no workers, never as made before
    parlab measured; a Python record whose work ran on a GPU takes no CPU footer at all."""
    procs = record(1, "py-processes", 4, 2.0, kind="python")
    procs["processor"] = "cpu"
    procs["machine"] = {"window_s": 1.0, "unmeasured": "its work ran where parlab accounts no workers"}
    cupy = record(2, "py-cupy", 1, 0.5, kind="python")
    cupy["processor"] = "gpu"
    d = doc_of([with_machine(record(0, "serial", 1, 8.0)), procs, cupy])
    assert row_of(d, "py-processes", 4)["plausible"] == ""
    text = " ".join(render(d, "table", 80).split())
    assert "no `~` judged for 1 record(s) whose work ran where parlab accounts no workers" in text, text
    assert "made before parlab measured" not in text


def test_a_gpu_record_takes_no_cpu_mark():
    """A GPU record's speedup over serial says nothing of CPUs used: no `?`, whatever it reads."""
    x = {"backend": "cuda", "threads": 1, "ranks": None, "rate": 1.0, "speedup": 629.0, "kind": "gpu", "record": {}}
    assert marks(x) == ""


def test_ranks_count_as_workers():
    x = {"backend": "mpi+pool", "threads": 2, "ranks": 4, "rate": 1.0, "speedup": 8.5, "kind": "cpu", "record": {}}
    assert marks(x) == ""  # 8.5 over 8 workers: within 1.1x
    assert marks({**x, "speedup": 9.0}) == "?"


# ------------------------------------------------------------------------------- where they show
def test_the_table_marks_them_and_says_each_rule_once():
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 2, 8.0 / 2.7),
                with_machine(record(2, "tbb", 4, 2.0), others=1.0, shared="5 workers on 4 CPUs"),
                with_machine(record(3, "tbb", 2, 4.0), others=1.2, shared="runnable 9%")])
    text = render(d, "table", 80)
    pool = next(l for l in text.splitlines() if l.startswith("  pool"))
    assert pool.rstrip().endswith("?") or "?" in pool.split()[-1]
    assert text.count("\n? implausible") == 1 and text.count("\n~ the record shared its CPUs") == 1
    assert max(len(l) for l in text.splitlines()) <= 80


def test_no_rule_met_no_footer():
    text = render(doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 2, 4.1)]), "table", 100)
    assert "implausible" not in text and "shared its CPUs" not in text


def test_the_report_lists_each_marks_reason_once_with_its_records():
    # Two records over the CPUs they used and one whose repetitions disagree: one line per mark.
    unstable = record(3, "tbb", 2, 4.0)
    unstable["unstable"] = "CV 30% over 10%"
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 2, 8.0 / 2.7), record(2, "pool", 4, 8.0 / 5.0),
                unstable])
    listed = run_summary(d)["implausible"]
    assert [p["marks"] for p in listed] == ["!", "?"]
    assert [r["what"].split(" speedup")[0] for r in listed[1]["records"]] == ["pool pi t=2", "pool pi t=4"]
    assert [r["what"].split(" speedup")[0] for r in listed[0]["records"]] == ["tbb pi t=2"]
    page = summary_html(run_summary(d))
    assert "3 result(s) to look at again" in page
    assert page.count("implausible: a speedup above the CPUs used") == 1 and page.count("unstable: CV over") == 1


def test_the_report_lists_them():
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 2, 8.0 / 2.7)])
    s = run_summary(d)
    assert [p["marks"] for p in s["implausible"]] == ["?"]
    page = summary_html(s)
    assert "1 result(s) to look at again" in page and "pool pi t=2" in page


def test_json_and_csv_carry_the_marks():
    d = doc_of([record(0, "serial", 1, 8.0), record(1, "pool", 2, 8.0 / 2.7)])
    assert '"plausible": "?"' in render(d, "json").replace(" ", "").replace('"plausible":"?"', '"plausible": "?"')
    assert ",?," in render(d, "csv") or ",?\r\n" in render(d, "csv") or ",?\n" in render(d, "csv")


# ------------------------------------------------------------------------------- the roof cell
def _with_limit(r, limit):
    r["limit"] = limit
    return r


def test_a_share_below_a_hundredth_reads_below_not_zero():
    d = doc_of([_with_limit(record(0, "serial", 1, 8.0), {"roof": "cpu_imul_1", "value": 1e12, "unit": "muls/s",
                                                              "attained": 1e9, "fraction": 0.004})])
    line = next(l for l in render(d, "table", 100).splitlines() if l.startswith("  serial"))
    assert "<0.01" in line and "0.00" not in line


@pytest.mark.parametrize("reason,word", [("no roof: its arrays (24 MiB) fit in the last-level cache (32 MiB)", "cache"),
                                         ("no roof: no measured CPU fp32 FMA roof (only cpu_fma_f64)", "none")])
def test_a_blank_roof_says_why(reason, word):
    d = doc_of([_with_limit(record(0, "serial", 1, 8.0), {"roof": None, "reason": reason})])
    text = render(d, "table", 100)
    line = next(l for l in text.splitlines() if l.startswith("  serial"))
    assert f" {word} " in line
    assert f"\n{word} no roof" in text


def test_spreads_carry_the_rates_unit():
    d = doc_of([record(0, "serial", 1, 8.0, kernel="triad", precision="double")])
    line = next(l for l in render(d, "table", 100).splitlines() if l.startswith("  serial"))
    assert " ± " in line and "B/s" in line.split("±")[1]


def test_the_run_command_prints_the_marks_within_80_columns(tmp_path, parlab_bin):
    """A real run: the table the run prints carries the rate with its spread, within 80 columns."""
    out = tmp_path / "o"
    r = subprocess.run([parlab_bin, "run", "-k", "pi", "-b", "serial,pool", "-t", "1,2", "-n", "2^14", "-r", "3",
                        "--no-ceilings", "--out", str(out), "--no-report", "--summary", "table"], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert max(len(l) for l in r.stdout.splitlines()) <= 80
    assert "rate ± IQR/2" in r.stdout
