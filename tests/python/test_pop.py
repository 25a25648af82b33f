"""Where the speedup went (analysis/pop.py): the POP efficiency hierarchy on given
numbers -- load balance, communication and parallel efficiency from the record alone, computation
scaling and the counter factors against the reference the results table's speedup already uses,
the identity speedup = workers x GE / PE_ref -- and its views: the terminal's (`--summary pop`,
within 80 columns), the report's coloured table and the per-worker timeline figure."""
import os
import re
import subprocess
import sys

import pytest

from conftest import PLOT, record, write_doc
from workers_fixture import accounted, doc_of, scaling_records

from analysis.hierarchy import hierarchy_html
from analysis.records import load_run
from analysis.figures.efficiency import efficiency_figures
from analysis.figures.timeline import timeline_figures, timeline_records, untraced_backends
from analysis.pop import FACTORS, grade, hierarchy, pop_tables, predicted_speedup
from analysis.pop_text import render_pop
from analysis.style import STYLE
from analysis.table import groups
from analysis.workers import why_absent
from analysis.writer import Plotter


def rows_of(doc):
    return {(x["backend"], x["threads"]): x for _, rows in groups(doc) for x in rows}


def test_load_balance_communication_and_parallel_efficiency_on_given_numbers():
    """Useful time is CPU time in the body: worker 3 was busy 2.3 s of wall time but ran 2.0 s of
    it, and what it waited runnable is disturbance, not imbalance."""
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])
    r = accounted(record(1, "threads", 4, 2.5), [1.0, 2.0, 2.0, 2.3], cpu=[1.0, 2.0, 2.0, 2.0], runtime=2.5,
                  runnable_share=0.3 / 7.3)
    h = hierarchy(r, serial)
    assert h["disturbance"]["runnable"] == pytest.approx(0.3 / 7.3)
    mean = 7.0 / 4
    assert h["values"]["load_balance"] == pytest.approx(mean / 2.0)  # 0.875
    assert h["values"]["communication"] == pytest.approx(2.0 / 2.5)  # 0.8
    assert h["values"]["parallel"] == pytest.approx(mean / 2.5)  # 0.7 = LB x CE
    assert h["values"]["parallel"] == pytest.approx(h["values"]["load_balance"] * h["values"]["communication"])
    assert h["values"]["computation"] == pytest.approx(8.0 / 7.0)
    assert h["values"]["global"] == pytest.approx(0.7 * 8.0 / 7.0)


@pytest.mark.parametrize("ref_busy", [None, [8.0], [7.6]])
def test_speedup_is_workers_times_global_efficiency_over_the_references(ref_busy):
    """The identity on given numbers: the reference without a workers block (PE_ref 1), with one
    whose busy time is its runtime (PE_ref 1), and with one that idled 5% of its run (PE_ref 0.95)."""
    serial = record(0, "serial", 1, 8.0)
    if ref_busy:
        accounted(serial, ref_busy)
    r = accounted(record(1, "pool", 4, 2.5), [1.9, 2.0, 2.1, 2.2])
    doc = doc_of([serial, r])
    x = rows_of(doc)[("pool", 4)]
    h = hierarchy(r, serial)
    pe_ref = (ref_busy[0] / 8.0) if ref_busy else 1.0
    assert x["speedup"] == pytest.approx(8.0 / 2.5)
    assert x["speedup"] == pytest.approx(4 * h["values"]["global"] / pe_ref)
    assert predicted_speedup(h, serial) == pytest.approx(x["speedup"])


def test_one_worker_has_every_factor_one():
    serial = accounted(record(0, "serial", 1, 8.0), [7.0])  # idle an eighth of its run: still 1
    t1 = accounted(record(1, "threads", 1, 9.0), [6.0], counters=([1e9], [2e9]))
    for r in (serial, t1):
        h = hierarchy(r, serial)
        assert h["count"] == 1 and not h["why"]
        assert h["values"] == {k: 1.0 for k, _ in FACTORS}
        assert predicted_speedup(h, serial) is None  # one worker's ones account for nothing


def test_the_reference_is_the_speedups_own():
    """Serial present: serial; serial absent: the same backend at 1 worker; neither: absent, with
    why. Taken from the results table's rows (table.speedup_base), not a rule of its own."""
    recs = scaling_records()
    by = rows_of(doc_of(recs))
    assert by[("threads", 4)]["base"]["record"] is recs[0]
    cs = hierarchy(recs[3], recs[0])["values"]["computation"]
    assert cs == pytest.approx(8.0 / sum(recs[3]["workers"]["busy_s"]))

    no_serial = doc_of(recs[1:])
    (table,) = [t for t in pop_tables(no_serial) if t["backend"] == "threads"]
    col = {c["threads"]: c for c in table["columns"]}[4]
    assert col["hierarchy"]["values"]["computation"] == pytest.approx(8.1 / sum(recs[3]["workers"]["busy_s"]))

    alone = doc_of([accounted(record(0, "tbb", 2, 4.0), [3.9, 3.8]), accounted(record(1, "tbb", 4, 2.0), [1.9, 1.8, 1.9, 1.7])])
    (table,) = pop_tables(alone)
    for c in table["columns"]:
        h = c["hierarchy"]
        assert "computation" not in h["values"] and "global" not in h["values"]
        assert "no reference" in h["why"]["computation"] and "no reference" in h["why"]["global"]
        assert h["values"]["load_balance"] > 0.9  # what needs no reference is still there
        assert c["predicted"] is None


def test_counter_factors_on_given_numbers():
    """instruction = instr_ref / instr; IPC = (instr / cycles) / (instr_ref / cycles_ref);
    frequency = (cycles / cpu s) / (cycles_ref / cpu s_ref); their product is cpu_ref / cpu."""
    serial = accounted(record(0, "serial", 1, 8.0), [8.0], counters=([4e10], [2e10]))
    # 4 workers: 10% more instructions, at IPC 1.8 (serial's 2.0), clocked 2.25 GHz (serial's 2.5)
    r = accounted(record(1, "openmp", 4, 2.5), [2.2] * 4, cpu=[2.2] * 4,
                  counters=([1.1e10] * 4, [1.1e10 / 1.8] * 4))
    h = hierarchy(r, serial)
    v = h["values"]
    assert v["instruction"] == pytest.approx(4e10 / 4.4e10)
    assert v["ipc"] == pytest.approx(1.8 / 2.0)
    freq = (4.4e10 / 1.8 / 8.8) / (2e10 / 8.0)
    assert v["frequency"] == pytest.approx(freq)
    assert v["product"] == pytest.approx(v["instruction"] * v["ipc"] * v["frequency"])
    assert v["product"] == pytest.approx(8.0 / 8.8)  # CPU time of serial over the workers'
    assert v["product"] == pytest.approx(v["computation"])  # useful time is CPU time: CS exactly


def test_counter_rows_are_shown_where_a_parallel_record_has_them():
    serial = accounted(record(0, "serial", 1, 8.0), [8.0], counters=([4e10], [2e10]))
    r = accounted(record(1, "openmp", 4, 2.5), [2.2] * 4, counters=([1.1e10] * 4, [1.1e10 / 1.8] * 4))
    text = " ".join(render_pop(doc_of([serial, r]), 80).split())
    assert "IPC scaling 0.90 frequency scaling 1.11 their product 0.91" in text and "no counters" not in text
    page = hierarchy_html(doc_of([serial, r]))
    assert "IPC scaling</td><td class='pop-good'>0.90</td>" in page


def test_counter_factors_absent_say_why():
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])  # no counters on this machine
    with_counters = accounted(record(1, "openmp", 2, 4.0), [4.0, 4.0], counters=([1e9] * 2, [1e9] * 2))
    h = hierarchy(with_counters, serial)
    assert "ipc" not in h["values"] and "perf_event_paranoid" in h["why"]["ipc"] and "reference" in h["why"]["ipc"]
    assert "perf_event_paranoid" in hierarchy(accounted(record(2, "openmp", 2, 4.0), [4.0, 4.0]), serial)["why"]["ipc"]
    h = hierarchy(with_counters, record(3, "serial", 1, 8.0))  # a reference made before accounting
    assert "not recorded" in h["why"]["instruction"]


def test_useful_time_that_reads_zero_is_absent_not_a_division():
    """A run of microseconds can read 0 s of thread CPU time: the factors it would divide by are
    absent, with why, and every view still draws (as `parlab run`'s end-to-end suite met it)."""
    serial = accounted(record(0, "serial", 1, 1e-4), [1e-4], cpu=[0.0])
    idle = accounted(record(1, "threads", 2, 1e-4), [1e-4, 1e-4], cpu=[0.0, 0.0])
    r = accounted(record(2, "threads", 4, 5e-5), [4e-5] * 4)
    h = hierarchy(r, serial)
    assert "computation" not in h["values"] and "reference's useful time is 0" in h["why"]["computation"]
    assert predicted_speedup(h, serial) is None
    h = hierarchy(idle, serial)
    assert not h["values"] and "no useful time" in h["why"]["load_balance"]
    doc = doc_of([serial, idle, r])
    assert "no useful time" in " ".join(render_pop(doc, 80).split()) and "Where the speedup went" in hierarchy_html(doc)


def test_a_record_without_workers_says_not_recorded():
    h = hierarchy(record(0, "pool", 2, 4.0), None)
    assert h["count"] is None and not h["values"]
    assert all(h["why"][k].startswith("not recorded") for k, _ in FACTORS)
    off = record(1, "pool", 2, 4.0)
    off["workers"] = {"accounting": "off", "why": "one run takes 80 us; accounting would cost 3%", "overhead": 0.03,
                      "count": 2}
    assert hierarchy(off, None)["why"]["global"] == "accounting off: one run takes 80 us; accounting would cost 3%"


@pytest.mark.parametrize("value, colour", [(0.8, "good"), (1.2, "good"), (0.79, "fair"), (0.6, "fair"),
                                           (0.59, "poor"), (0.0, "poor")])
def test_pop_colours(value, colour):
    assert grade(value) == colour


def test_the_report_table_colours_and_escapes():
    recs = scaling_records()
    accounted(recs[3], [1.0, 1.0, 1.0, 2.4], runtime=2.5)  # LB 0.56: poor
    for r in recs:
        r["backend"] = r["backend"].replace("threads", "<b>thr</b>")
    recs[3]["workers"]["counters"]["why"] = "<script>alert(1)</script>\x1b[2J"
    page = hierarchy_html(doc_of(recs))
    assert "<b>thr</b>" not in page and "&lt;b&gt;thr&lt;/b&gt;" in page
    assert "<script>" not in page and "&lt;script&gt;" in page and "\x1b" not in page
    lb = re.findall(r"<td class='l'>load balance</td>(.*?)</tr>", page)[0]  # the threads table's row
    assert "class='pop-poor'>0.56<" in lb and "class='pop-good'>1.00<" in lb
    assert "not recorded" in page  # the pool record made before accounting
    for cls in ("pop", "pop-good", "pop-fair", "pop-poor"):
        assert re.search(rf"\.{cls}(?![\w-])", STYLE), cls


def test_the_terminal_view_fits_80_columns_and_says_why():
    recs = scaling_records()
    recs[4]["backend"] = "pool\x1b[2J" + "x" * 120  # a long, hostile name
    text = render_pop(doc_of(recs), 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "\x1b" not in text and "^[" in text
    words = " ".join(text.split())  # the notes wrap: a phrase may span two lines
    assert "global efficiency" in words and "no counters" in words and "not recorded" in words
    lines = {line.split("  ")[1].strip(): line for line in text.splitlines() if line.startswith("  ") and "  " in line[2:]}
    assert lines["load balance"].split()[-1] == f"{(sum([2.0, 2.1, 2.2, 2.4]) / 4) / 2.4:.2f}"


def test_the_terminal_view_breaks_wide_tables_into_blocks():
    recs = [accounted(record(0, "serial", 1, 8.0), [8.0])]
    recs += [accounted(record(i, "pool", t, 8.0 / t), [8.0 / t] * t) for i, t in enumerate(range(2, 16), 1)]
    text = render_pop(doc_of(recs), 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert sum(line.strip().startswith("threads ") for line in text.splitlines()) >= 2


def test_summary_pop_from_the_command_line(tmp_path):
    d = write_doc(tmp_path, doc_of(scaling_records()))
    env = dict(os.environ, COLUMNS="80")
    res = subprocess.run([sys.executable, PLOT, str(d), "--summary", "pop", "--summary-only"], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert "computation scaling" in res.stdout and max(len(x) for x in res.stdout.splitlines()) <= 80


def test_the_timeline_draws_from_a_synthetic_trace(tmp_path):
    recs = scaling_records()
    recs[3]["workers"]["trace"]["events"][-1][3] = 7  # a chunk on another CPU
    recs[3]["workers"]["trace"]["truncated"] = True
    d = write_doc(tmp_path, doc_of(recs))
    chosen = timeline_records(load_run(str(d)))
    assert {b: r["threads"] for b, r in chosen[("s", "pi", 1 << 20, "int32")].items()} == {"serial": 1, "threads": 4}
    res = subprocess.run([sys.executable, PLOT, str(d), "--no-reference", "--quiet"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    png = d / "plots" / "timeline_s_pi_2p20_int32.png"
    assert png.stat().st_size > 10_000
    page = (d / "report.html").read_text()
    assert "timeline_s_pi_2p20_int32" in page and "Where the speedup went" in page


def test_an_mpi_jobs_workers_are_its_ranks_threads():
    """An MPI job's record (workers.ranks, workers.hosts) is in the hierarchy's views, its columns
    named as the results table names its workers (ranks x threads), its factors over every thread
    of every rank; against the same backend at 1 rank of 1 thread."""
    def job(i, ranks, threads, median, busy):
        r = accounted(record(i, "mpi+pool", threads, median, kind="mpi"), busy)
        r.update({"ranks": ranks, "ranks_per_node": ranks, "hosts": 1})
        r["workers"]["ranks"] = [k // threads for k in range(ranks * threads)]
        r["workers"]["hosts"] = [0] * (ranks * threads)
        return r
    recs = [job(0, 1, 1, 8.0, [8.0]), job(1, 2, 1, 4.4, [4.0, 3.0]), job(2, 2, 2, 2.5, [2.0, 2.0, 2.0, 1.0])]
    tables = pop_tables(doc_of(recs))
    assert len(tables) == 1 and [c["label"] for c in tables[0]["columns"]] == ["1x1", "2x1", "2x2"]
    two = tables[0]["columns"][1]["hierarchy"]
    assert two["count"] == 2 and two["values"]["load_balance"] == pytest.approx(3.5 / 4.0)
    text = render_pop(doc_of(recs), 80)
    assert "ranks x threads" in text and "2x2" in text
    assert "ranks x threads" in hierarchy_html(doc_of(recs))
    # The timeline's panel is the job of the most workers, not the first of the most threads.
    chosen = timeline_records(doc_of(recs))[("s", "pi", 1 << 20, "int32")]["mpi+pool"]
    assert (chosen["ranks"], chosen["threads"]) == (2, 2)


def test_the_records_own_figures_are_read_never_recomputed():
    """The runner's workers.pop is the figure: a record whose median repetition was less balanced
    than its per-worker means shows the repetition's load balance, its range in a note, and the
    identity holds with the median repetition's time."""
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])
    r = accounted(record(1, "threads", 2, 5.0), [4.0, 4.0], runtime=5.0)
    # The means read LB 1.00; the median repetition had 3.0 against 5.0 of useful time.
    r["workers"]["pop"].update(load_balance=0.8, communication=1.0, parallel=0.8, runtime_s=5.0, useful_s=8.0,
                               range={"load_balance": [0.7, 0.9], "communication": [0.95, 1.0],
                                      "parallel": [0.7, 0.9]})
    h = hierarchy(r, serial)
    assert h["values"]["load_balance"] == 0.8 and h["values"]["parallel"] == 0.8
    assert h["ranges"]["load_balance"] == (0.7, 0.9)
    assert h["definition"] == "per-execution"
    # 2 workers x GE (0.8 x 8/8) / PE_ref (1.0) = 1.6 = 8.0 / 5.0, the table's speedup.
    assert predicted_speedup(h, serial) == pytest.approx(8.0 / 5.0)
    text = render_pop(doc_of([serial, r]), 80)
    assert "load balance over the repetitions: t=2 0.70–0.90" in text, text


def test_a_record_made_before_per_execution_figures_says_which_definition_it_used():
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])
    r = accounted(record(1, "threads", 2, 4.4), [4.1, 4.2])
    r["workers"]["pop"] = {k: r["workers"]["pop"][k] for k in ("load_balance", "communication", "parallel")}
    h = hierarchy(r, serial)
    assert h["definition"] == "per-run means" and h["ranges"] == {}
    text = render_pop(doc_of([serial, r]), 80)
    assert "per-run means" in " ".join(text.split()), text


@pytest.mark.parametrize("change, field", [
    ({"parallel": 0.5}, "parallel"),  # not LB x CE
    ({"range": {"load_balance": [0.1, 0.2], "communication": [0.0, 1.0], "parallel": [0.0, 1.0]}}, "load_balance"),
    ({"range": {"load_balance": [0.9, 0.1], "communication": [0.0, 1.0], "parallel": [0.0, 1.0]}}, "range"),
    ({"rep": 3}, "rep"),
])
def test_pop_figures_that_contradict_each_other_are_refused(tmp_path, change, field):
    """A run from elsewhere whose figures disagree with one another is exit 2 naming the field."""
    r = accounted(record(1, "threads", 2, 4.4), [4.1, 4.2])
    r["workers"]["pop"].update(change)
    path = write_doc(tmp_path, doc_of([r]))
    with pytest.raises(Exception) as e:
        load_run(path)
    assert type(e.value).__name__ == "InputError" and field in str(e.value), str(e.value)


def test_no_python_module_computes_the_records_own_figures():
    """Load balance, communication and parallel efficiency are made once, in C++, where the run is
    made (workers.pop): no analysis module or tool takes the max or mean of the workers' useful
    times, or divides by the run's time, to make them again."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    forbidden = re.compile(r"max\((w\[)?[\"']?cpu_s|max\(useful|/ *w\[[\"']runtime_s[\"']\]|/ *runtime\b"
                           r"|cpu_s[\"']\]\) */|mean\(useful\)")
    found = []
    for top in ("analysis", "tools", "scripts"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith(".py"):
                    continue
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    code = [line for line in f if not line.lstrip().startswith(("#", "load balance", "communication eff"))]
                found += [f"{top}/{name}: {line.strip()}" for line in code if forbidden.search(line)]
    assert not found, found


def test_no_view_judges_a_record_above_its_roof_again():
    """Whether a record reads above its roof is the runner's judgement (limit.above_roof, kept by
    the end probe only where the whole interval is above 1): the views read it (reads_above) and
    never compare a share or its interval with 1 themselves; a run's pooled rounds are graded
    where the run is made too (pooled[].limit). An in-core bound is another bound, with its own
    note (limit.incore.above)."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    # Judged again: a share or its interval's low end compared with 1. Made again: the interval's
    # high end, a rate over the lowest roof (roof_low) in arithmetic.
    forbidden = re.compile(r"(\[[\"']low[\"']\]|\bspan\[0\]|\biv\[0\]|\[[\"']fraction[\"']\]) *> *1\b"
                           r"|/ *[\w.\[\]\"']*roof_low")
    allowed = set()
    found = []
    for top in ("analysis", "tools", "scripts"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if not name.endswith(".py") or rel in allowed:
                    continue
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    found += [f"{rel}: {line.strip()}" for line in f
                              if forbidden.search(line) and "incore" not in line]
    assert not found, found


def test_computation_scaling_is_taken_against_the_backends_own_one_worker_record():
    """pi: serial 8 s, threads at 1 worker 8.2 s (its runtime's cost), at 4 workers summing 8.8 s of
    useful time: CS against its own worker 8.1 / 8.8, and the one worker's cost against serial 8.0 /
    8.1 beside it; GE = PE x CS x one worker, so the identity still gives the speedup over serial."""
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])
    t1 = accounted(record(1, "threads", 1, 8.2), [8.1], runtime=8.2)
    t4 = accounted(record(2, "threads", 4, 2.5), [2.0, 2.1, 2.2, 2.5], runtime=2.5)
    (table,) = [t for t in pop_tables(doc_of([serial, t1, t4])) if t["backend"] == "threads"]
    (col,) = [c for c in table["columns"] if c["threads"] == 4]
    v = col["hierarchy"]["values"]
    assert v["computation"] == pytest.approx(8.1 / 8.8)
    assert v["one_worker"] == pytest.approx(8.0 / 8.1)
    assert v["global"] == pytest.approx(v["parallel"] * v["computation"] * v["one_worker"])
    assert col["predicted"] == pytest.approx(8.0 / 2.5)  # the table's speedup over serial
    text = render_pop(doc_of([serial, t1, t4]), 100)
    assert "one worker vs reference" in text
    # A backend without its own one-worker record keeps CS against the reference, and no such row.
    pool = accounted(record(3, "pool", 2, 4.1), [4.0, 4.0], runtime=4.1)
    (pt,) = [t for t in pop_tables(doc_of([serial, pool])) if t["backend"] == "pool"]
    assert "one_worker" not in pt["columns"][0]["hierarchy"]["values"]
    assert pt["columns"][0]["hierarchy"]["values"]["computation"] == pytest.approx(8.0 / 8.0)


def test_each_table_opens_with_where_the_speedup_went_quoting_the_records_cause():
    serial = accounted(record(0, "serial", 1, 8.0), [8.0])
    t4 = accounted(record(1, "threads", 4, 4.0), [1.0, 1.0, 1.0, 4.0], runtime=4.0)
    t4["workers"]["cause"] = "load balance 0.44: worker 3 computed 2.29x the mean, on CPU 3"
    text = " ".join(render_pop(doc_of([serial, t4]), 100).split())
    assert ("At 4 workers, 2.00x of an ideal 4x: the largest loss is load balance 0.44; its record says: load "
            "balance 0.44: worker 3 computed 2.29x the mean, on CPU 3.") in text, text
    assert "its record says: load balance 0.44: worker 3" in hierarchy_html(doc_of([serial, t4]))
    del t4["workers"]["cause"]
    assert "its record names no cause." in " ".join(render_pop(doc_of([serial, t4]), 100).split())
    # Its limit at POP's good share of its roof or above: that roof, with the record's own share.
    t4["limit"] = {"roof": "cpu_bw_triad_all", "value": 1e11, "unit": "bytes/s", "attained": 9.1e10,
                   "fraction": 0.91}
    assert ("its record says: it ran at 0.91 of cpu_bw_triad_all: that roof binds it, whatever the workers."
            in " ".join(render_pop(doc_of([serial, t4]), 100).split()))
    t4["limit"]["fraction"] = 0.79
    assert "its record names no cause." in " ".join(render_pop(doc_of([serial, t4]), 100).split())



class _Kept(Plotter):
    """A Plotter that keeps each figure's panels (title, x label, every line's label and points)
    and its caption instead of writing files."""

    def __init__(self, out_dir):
        super().__init__(str(out_dir))
        self.kept = {}

    def save(self, fig, name, caption):
        panels = []
        for ax in fig.axes:
            legend = ax.get_legend()
            panels.append({"title": ax.get_title(), "xlabel": ax.get_xlabel(),
                           "legend": legend.get_title().get_text() if legend else None,
                           "lines": {ln.get_label(): list(ln.get_ydata()) for ln in ax.get_lines()}})
        self.kept[name] = {"panels": panels, "caption": caption}
        self.plt.close(fig)
        return name


def test_the_efficiency_figure_draws_the_hierarchy_the_tables_show(tmp_path):
    """One panel per backend of 2 or more accounted workers, each factor a line whose points are
    the pop table's values, column by column."""
    doc = doc_of(scaling_records())
    p = _Kept(tmp_path / "plots")
    efficiency_figures(p, doc)
    assert list(p.kept) == ["efficiency_s_pi_2p20_int32"]
    (threads,) = [x for x in p.kept["efficiency_s_pi_2p20_int32"]["panels"] if x["title"] == "backend threads"]
    (table,) = [t for t in pop_tables(doc) if t["backend"] == "threads"]
    for key, label in (("load_balance", "load balance"), ("communication", "communication efficiency"),
                       ("parallel", "parallel efficiency"), ("global", "global efficiency")):
        assert threads["lines"][label] == pytest.approx([c["hierarchy"]["values"][key] for c in table["columns"]])
    assert threads["xlabel"] == "threads"


def test_the_timeline_shares_one_unit_names_its_colours_and_what_it_leaves_out(tmp_path):
    """serial's run (8 s) and threads' (2.5 s) in one unit; a legend says the colour is the CPU;
    pool, run at 2 threads without accounting, is named under the figure with its reason."""
    doc = doc_of(scaling_records())
    p = _Kept(tmp_path / "plots")
    timeline_figures(p, doc)
    fig = p.kept["timeline_s_pi_2p20_int32"]
    assert {x["xlabel"] for x in fig["panels"]} == {"time from the region's start (s)"}
    assert fig["panels"][-1]["legend"].startswith("colour: the CPU a chunk ran on")
    assert "Not shown: pool (not recorded" in fig["caption"], fig["caption"]
    assert untraced_backends(doc) == {("s", "pi", 1 << 20, "int32"): {"pool": why_absent(doc["records"][4])}}
