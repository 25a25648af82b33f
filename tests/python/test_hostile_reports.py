"""A report holds at its edges: a results file whose numbers pass the schema but contradict their
own definitions, integers no float can hold, figures too large to draw, and an environment that is
not the one a report expects (an ASCII terminal, an unknown matplotlib backend, no stdout).

A results file that cannot be right is refused with exit 2 and one line naming the file, the
record and the field, never shown as an efficiency of inf or of 310 digits; a figure too large for
matplotlib is drawn in parts or left out with a line saying why, and the report exits 0; an
environment the report cannot use as asked is worked around, the report still written."""
import copy
import json
import os
import re
import subprocess
import sys

import hypothesis
import hypothesis.strategies as st
import pytest

from conftest import FIXTURES, PLOT, record, write_doc
from workers_fixture import accounted, doc_of, scaling_records

from analysis.read import InputError
from analysis.records import load_run
from analysis.report import SizedPlotter
from analysis.figures.timeline import FIGURE_MAX_IN, figure_parts
from analysis.validate import check_results
from analysis.workers import check_workers


def _plot(*args, env=None, **kw):
    return subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True, env=env, **kw)


def _w(path, value):
    """An edit of record 3's workers block (threads at 4: busy 2.0 to 2.4 s of a 2.5 s run):
    path's last key set to value."""
    def edit(doc):
        w = doc["records"][3]["workers"]
        for key in path[:-1]:
            w = w[key]
        w[path[-1]] = value
    return edit


def _counters(instructions, cycles, cpu=None):
    def edit(doc):
        w = doc["records"][3]["workers"]
        w["counters"] = {"available": True, "instructions": instructions, "cycles": cycles}
        if cpu is not None:
            w["cpu_s"] = cpu
    return edit


def _both(*edits):
    def edit(doc):
        for e in edits:
            e(doc)
    return edit


# name -> (edit of the scaling doc, the record and field the message must name)
IMPOSSIBLE = {
    "cpu_1e308": (_w(["cpu_s", 0], 1e308), "record 3: 'workers.cpu_s[0]'"),
    "cpu_1000x_runtime": (_w(["cpu_s", 1], 2500.0), "record 3: 'workers.cpu_s[1]'"),
    "cpu_just_over_runtime": (_w(["cpu_s", 2], 2.6), "record 3: 'workers.cpu_s[2]'"),
    "busy_over_runtime": (_w(["busy_s", 3], 3.0), "record 3: 'workers.busy_s[3]'"),
    "runtime_subnormal": (_w(["runtime_s"], 5e-324), "record 3: 'workers.runtime_s'"),
    "runtime_tiny_normal": (_w(["runtime_s"], 1e-300), "record 3: 'workers.runtime_s'"),
    "runtime_not_the_records": (_w(["runtime_s"], 6.0), "record 3: 'workers.runtime_s'"),
    "busy_subnormal": (_w(["busy_s", 0], 1e-310), "record 3: 'workers.busy_s[0]'"),
    "cpu_subnormal": (_w(["cpu_s", 1], 4e-320), "record 3: 'workers.cpu_s[1]'"),
    "runnable_subnormal": (_w(["disturbance", "runnable_s", 2], 1e-315), "'workers.disturbance.runnable_s[2]'"),
    "window_subnormal": (_w(["disturbance", "window_s"], 1e-320), "'workers.disturbance.window_s'"),
    "runnable_over_busy": (_w(["disturbance", "runnable_s", 0], 2.4), "'workers.disturbance.runnable_s[0]'"),
    "pop_runtime_subnormal": (_w(["pop", "runtime_s"], 5e-324), "'workers.pop.runtime_s'"),
    "pop_runtime_not_the_records": (_w(["pop", "runtime_s"], 0.5), "'workers.pop.runtime_s'"),
    "pop_useful_1e308": (_w(["pop", "useful_s"], 1e308), "'workers.pop.useful_s'"),
    "pop_useful_under_a_cycle": (_w(["pop", "useful_s"], 1e-300), "'workers.pop.useful_s'"),
    "pop_useful_not_its_factors": (_w(["pop", "useful_s"], 4.0), "'workers.pop.useful_s'"),
    "trace_runtime_subnormal": (_w(["trace", "runtime_s"], 1e-310), "'workers.trace.runtime_s'"),
    "runnable_share_1e308": (_w(["disturbance", "runnable_share"], 1e308), "'workers.disturbance.runnable_share'"),
    "runnable_share_over_1": (_w(["disturbance", "runnable_share"], 1.5), "'workers.disturbance.runnable_share'"),
    "steal_1e308": (_w(["disturbance", "steal", 1], 1e308), "'workers.disturbance.steal[1]'"),
    "busy_share_over_1": (_w(["disturbance", "busy", 0], 1.01), "'workers.disturbance.busy[0]'"),
    "others_1e308": (_w(["disturbance", "others"], 1e308), "'workers.disturbance.others'"),
    "others_over_logical_cpus": (_w(["disturbance", "others"], 4.5), "'workers.disturbance.others'"),
    "switches_1e308": (_both(_w(["switches"], [1e308] * 4), _w(["disturbance", "switches"], 1e308)),
                       "'workers.switches[0]'"),
    "switches_not_their_sum": (_w(["disturbance", "switches"], 1e20), "'workers.disturbance.switches'"),
    "counters_1e308_over_1e_300": (_counters([1e308] * 4, [1e308] * 4, [1e-300] * 4), "'workers.counters.cycles[0]'"),
    "cycles_30_ghz": (_counters([1e9] * 4, [2e9, 2e9, 75e9, 2e9]), "'workers.counters.cycles[2]'"),
    "ipc_100": (_counters([1e9, 1e9, 1e9, 2e11], [2e9] * 4), "'workers.counters.instructions[3]'"),
    "instructions_without_cycles": (_counters([1e9] * 4, [0.0] * 4), "'workers.counters.instructions[0]'"),
    "count_64_on_2_threads": (lambda doc: doc["records"][2]["workers"].update(count=64), "record 2: 'workers.count'"),
}


def _doc(edit):
    doc = doc_of(scaling_records())
    edit(doc)
    return doc


def test_the_fixture_itself_is_consistent(tmp_path):
    load_run(str(write_doc(tmp_path, doc_of(scaling_records()))))


@pytest.mark.parametrize("name", sorted(IMPOSSIBLE))
def test_an_impossible_workers_block_is_refused_naming_record_and_field(tmp_path, name):
    edit, field = IMPOSSIBLE[name]
    d = write_doc(tmp_path, _doc(edit))
    with pytest.raises(InputError) as e:
        load_run(str(d))
    message = str(e.value)
    assert field in message and str(d / "results.json") in message, message
    assert "\n" not in message and len(message) < 400, message


@pytest.mark.parametrize("name", ["cpu_1e308", "runtime_subnormal", "cpu_1000x_runtime", "busy_subnormal",
                                  "runnable_share_1e308", "counters_1e308_over_1e_300", "count_64_on_2_threads"])
@pytest.mark.parametrize("how", [["--summary", "pop", "--summary-only"], ["--summary", "pop"]])
def test_the_pop_summary_and_the_report_exit_2_with_one_line(tmp_path, name, how):
    """The issue's cases, through the command line: no efficiency of inf, nan, 1000.00 or 310
    digits printed with exit 0, no report.html drawn from them."""
    edit, field = IMPOSSIBLE[name]
    d = write_doc(tmp_path, _doc(edit))
    res = _plot(str(d), "--no-reference", *how)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and "results.json" in lines[0], res.stderr
    assert res.stdout == "" and not (d / "report.html").exists() and not (d / "plots").exists()


def test_cpu_time_a_little_above_busy_time_is_accepted(tmp_path):
    """A C++ chunk's CPU time counts the dispatch before it, which its busy time does not: the
    committed h200 runs hold cpu_s up to 3.9% above busy_s (pool pi at 16 threads), so cpu_s is
    held to the run's wall time, not to busy_s."""
    doc = doc_of(scaling_records())
    w = doc["records"][3]["workers"]
    w["cpu_s"] = [b * 1.04 for b in w["busy_s"]]  # 2.496 s at most, within the 2.5 s run
    w["disturbance"]["runnable_s"] = [0.0] * 4
    useful = sum(w["cpu_s"])
    lb, ce = useful / 4 / max(w["cpu_s"]), max(w["cpu_s"]) / 2.5
    w["pop"].update(useful_s=useful, load_balance=lb, communication=ce, parallel=lb * ce,
                    range={"load_balance": [lb, lb], "communication": [ce, ce], "parallel": [lb * ce, lb * ce]})
    w["load_balance"], w["communication"] = [lb] * 3, [ce] * 3
    load_run(str(write_doc(tmp_path, doc)))


def test_the_clocks_grain_and_the_edges_of_each_range_are_accepted(tmp_path):
    doc = doc_of(scaling_records())
    w = doc["records"][3]["workers"]
    w["busy_s"][3] = 2.5 * 1.009  # over the run's wall time by less than its 1% grain
    w["disturbance"].update(runnable_share=1.0, others=4.0, busy=[1.0] * 4, steal=[0.0, 1.0, 0.0, 0.0])
    w["switches"] = [1e5] * 4  # 100,000 a run in about 2 s: far under one a microsecond
    w["disturbance"]["switches"] = 4e5
    w["counters"] = {"available": True, "instructions": [8e9] * 4, "cycles": [4e9] * 4}  # 2 GHz, IPC 2
    load_run(str(write_doc(tmp_path, doc)))


def test_switches_are_held_to_the_run_not_to_the_time_in_the_body():
    # A 2-thread triad of a few microseconds: one worker was in the body 1.7 us a run and switched
    # out 4 times a run while it waited in its window (a real record, pytest's stream-peers run).
    doc = doc_of(scaling_records())
    w = doc["records"][3]["workers"]
    w["switches"][0] = 4.0
    w["busy_s"][0] = 1.686e-6
    w["disturbance"]["switches"] = sum(w["switches"])
    check_workers(doc, "results.json")
    w["switches"][0] = w["runtime_s"] * 1e6 + 2  # more than one a microsecond of the whole run
    w["disturbance"]["switches"] = sum(w["switches"])
    with pytest.raises(InputError, match=r"record 3: 'workers.switches\[0\]': .* switches per run in a run of "):
        check_workers(doc, "results.json")


def test_others_without_a_cpu_count_are_held_to_4096():
    doc = doc_of(scaling_records())
    del doc["context"]["cpu"]
    doc["records"][3]["workers"]["disturbance"]["others"] = 100.0
    check_workers(doc, "results.json")
    doc["records"][3]["workers"]["disturbance"]["others"] = 5000.0
    with pytest.raises(InputError, match=r"record 3: 'workers.disturbance.others': 5000.0 CPUs' worth, more than "
                                         r"the 4096"):
        check_workers(doc, "results.json")


def test_an_mpi_jobs_count_is_ranks_times_threads():
    doc = doc_of(scaling_records())
    r = doc["records"][3]  # 4 workers: as 2 ranks of 2 threads
    r.update(threads=2, ranks=2)
    r["workers"].update(ranks=[0, 0, 1, 1], hosts=[0, 0, 0, 0])
    check_workers(doc, "results.json")
    r.update(threads=4)
    with pytest.raises(InputError, match=r"record 3: 'workers.count': 4 workers in a record of 2 ranks x 4 threads"):
        check_workers(doc, "results.json")


def test_an_accounting_off_block_is_not_held_to_the_rules():
    doc = doc_of(scaling_records())
    doc["records"][3]["workers"] = {"accounting": "off", "count": 4, "why": "one run takes 80 us"}
    check_workers(doc, "results.json")


# ------------------------------------------------------------------------- integers no float holds
def _set(path, value):
    def edit(doc):
        x = doc
        for key in path[:-1]:
            x = x[key]
        x[path[-1]] = value
    return edit


HUGE = {
    "cpu_s_400_digits": (["records", 3, "workers", "cpu_s", 0], 10 ** 400, "record 3: 'workers.cpu_s[0]'"),
    "rep_400_digits": (["records", 1, "reps_s", 2], 10 ** 400, "record 1: 'reps_s[2]'"),
    "q3_400_digits": (["records", 0, "time_s", "q3"], 10 ** 400, "record 0: 'time_s.q3'"),
    "size_400_digits": (["records", 2, "size"], 10 ** 400, "record 2: 'size'"),  # an integer field too
    "negative_400_digits": (["records", 3, "workers", "busy_s", 1], -10 ** 400, "record 3: 'workers.busy_s[1]'"),
    "rep_past_2_53": (["records", 1, "reps_s", 0], 10 ** 20, "record 1: 'reps_s[0]'"),
    "busy_past_2_53": (["records", 3, "workers", "busy_s", 0], 2 ** 53 + 1, "record 3: 'workers.busy_s[0]'"),
    "checksum_past_2_53": (["records", 0, "checksum"], 2 ** 64, "record 0: 'checksum'"),
}


@pytest.mark.parametrize("name", sorted(HUGE))
def test_an_integer_no_float_holds_is_refused_with_exit_2(tmp_path, name):
    path, value, field = HUGE[name]
    d = write_doc(tmp_path, _doc(_set(path, value)))
    res = _plot(str(d), "--no-reference", "--summary", "pop")
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and "digits" in lines[0], res.stderr
    assert len(lines[0]) < 400, lines[0]  # 400 digits are counted, not quoted back


def test_a_400_digit_median_is_refused_by_the_guarded_reader():
    """check_results refuses it naming the field, however it is reached."""
    doc = doc_of(scaling_records())
    doc["records"][0]["time_s"]["median"] = 10 ** 400
    with pytest.raises(InputError, match=r"record 0: 'time_s.median': an integer of 401 digits"):
        check_results(doc, "results.json", doc["schema"])


def test_a_400_digit_median_is_refused_with_exit_2(tmp_path):
    d = write_doc(tmp_path, _doc(_set(["records", 0, "time_s", "median"], 10 ** 400)))
    res = _plot(str(d), "--no-reference", "--summary", "pop")
    assert res.returncode == 2 and "record 0: 'time_s.median'" in res.stderr, res.stderr


@pytest.mark.parametrize("path, value", [(["records", 0, "seed"], 2 ** 63), (["records", 0, "reps_s", 0], 8),
                                         (["records", 0, "hits"], 2 ** 60)])
def test_integers_a_field_may_hold_are_accepted(tmp_path, path, value):
    """A seed of 64 bits is an integer field's, and a small integer is a number as well as 8.0."""
    doc = _doc(_set(path, value))
    if path[-2] == "reps_s":
        doc["records"][0]["reps_s"] = [8, 8.0, 8.16]
    check_results(doc, "results.json", doc["schema"])


# ------------------------------------------------------------------------------ figures too large
def _traced_run(backends, workers):
    return doc_of([accounted(record(i, f"b{i:03d}", workers, 1.0), [0.9] * workers) for i in range(backends)])


def test_a_timeline_of_120_backends_of_32_workers_is_cut_into_parts_that_can_be_drawn():
    doc = _traced_run(120, 32)
    by_backend = {r["backend"]: r for r in doc["records"]}
    parts = figure_parts(by_backend)
    assert len(parts) > 1
    assert [b for part in parts for b in part] == list(by_backend)  # every backend once, in order
    for part in parts:
        height = 0.8 + sum(min(1.0 + 0.2 * r["workers"]["count"], 6.0) for r in part.values())
        assert height <= FIGURE_MAX_IN and height * 100 < 2 ** 16
    assert len(figure_parts(dict(list(by_backend.items())[:3]))) == 1  # a few backends: one figure, as before


def test_a_timeline_too_tall_for_one_figure_is_drawn_in_parts(tmp_path):
    d = write_doc(tmp_path, _traced_run(9, 32))  # 9 panels of 6 inches: over the 48 of one figure
    res = _plot(str(d), "--no-reference", "--summary", "none")
    assert res.returncode == 0, res.stderr
    names = sorted(p.name for p in (d / "plots").glob("timeline_*.png"))
    assert names == ["timeline_s_pi_2p20_int32_part1of2.png", "timeline_s_pi_2p20_int32_part2of2.png"], names
    page = (d / "report.html").read_text()
    assert "part 1 of 2 (7 of 9 backends)" in page and "part 2 of 2 (2 of 9 backends)" in page


def test_a_figure_over_matplotlibs_limit_is_left_out_and_the_report_says_why(tmp_path):
    """2,100 backends in one group: the throughput figure would be 67,000 pixels tall, over the
    2**16 matplotlib draws; it is left out with a line on stderr and in the report, and the report
    exits 0."""
    doc = doc_of([record(i, f"b{i:04d}", 1, 1.0 + i * 1e-4) for i in range(2100)])
    d = write_doc(tmp_path, doc)
    res = _plot(str(d), "--no-reference", "--summary", "none")
    assert res.returncode == 0, res.stderr
    left = [x for x in res.stderr.splitlines() if "left out" in x]
    assert len(left) == 1 and "throughput_s_pi_2p20_int32" in left[0] and "65535" in left[0], res.stderr
    assert "Traceback" not in res.stderr and not list((d / "plots").glob("throughput_*"))
    page = (d / "report.html").read_text()
    assert "Figure throughput_s_pi_2p20_int32 left out:" in page


def test_the_sized_plotter_draws_what_fits_and_leaves_out_what_does_not(tmp_path, capsys):
    p = SizedPlotter(str(tmp_path / "plots"))
    fig, _ = p.plt.subplots(figsize=(6, 4))
    p.save(fig, "small", "fits")
    fig, _ = p.plt.subplots(figsize=(6, 700))
    assert p.save(fig, "tall", "does not fit") is None
    assert [n for n, _ in p.figures] == ["small"] and [n for n, _ in p.left_out] == ["tall"]
    assert sorted(x.name for x in (tmp_path / "plots").iterdir()) == ["small.png", "small.svg"]
    assert not p.plt.get_fignums()  # the figure left out is closed all the same
    assert capsys.readouterr().err.startswith("plot.py: figure tall left out: 600 x 70000 pixels")


# ---------------------------------------------------------------- an environment that is not asked for
@pytest.fixture
def fixture_run(tmp_path):
    """The pi-scaling fixture, its report written under tmp_path/out."""
    return os.path.join(FIXTURES, "pi-scaling"), tmp_path / "out"


def _env(**changes):
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)
    env.update(changes)
    return env


def _report_written(out):
    return (out / "report.html").is_file() and list((out / "plots").glob("*.png"))


@pytest.mark.parametrize("summary", ["table", "pop", "markdown"])
def test_an_ascii_terminal_gets_replacements_not_a_traceback(fixture_run, summary):
    run, out = fixture_run
    res = subprocess.run([sys.executable, PLOT, run, "--out", str(out), "--summary", summary],
                         capture_output=True, env=_env(PYTHONIOENCODING="ascii"))
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode("ascii")  # every byte ASCII: "±" became "?"
    assert b"Traceback" not in res.stderr and _report_written(out)
    if summary == "table":
        assert b" ? " in res.stdout


@pytest.mark.parametrize("backend", ["no-such-backend", "module://no_such_module"])
def test_an_unknown_matplotlib_backend_falls_back_to_agg(fixture_run, backend):
    run, out = fixture_run
    res = _plot(run, "--out", str(out), "--summary", "none", "--quiet", env=_env(MPLBACKEND=backend))
    assert res.returncode == 0, res.stderr
    assert _report_written(out)
    if backend == "no-such-backend":  # matplotlib's import itself refuses this one: said once
        assert res.stderr.splitlines() == [f"plot.py: MPLBACKEND='{backend}' names no matplotlib backend; "
                                           "drawing with Agg"], res.stderr


def test_a_known_matplotlib_backend_is_no_warning(fixture_run):
    run, out = fixture_run
    res = _plot(run, "--out", str(out), "--summary", "none", "--quiet", env=_env(MPLBACKEND="svg"))
    assert res.returncode == 0 and res.stderr == "", res.stderr


@pytest.mark.parametrize("closed", [">&-", ">&- 2>&-", "2>&-"])
def test_a_closed_stdout_or_stderr_is_no_crash(fixture_run, closed):
    run, out = fixture_run
    cmd = f'"$0" "$1" "$2" --out "$3" --summary pop {closed}; echo "rc=$?" >&3'
    res = subprocess.run(["sh", "-c", f"exec 3>&1; {cmd}", sys.executable, PLOT, run, str(out)],
                         capture_output=True, text=True, env=_env())
    assert res.stdout.strip().splitlines()[-1] == "rc=0", (res.stdout, res.stderr)
    assert "NoneType" not in res.stdout + res.stderr and _report_written(out)


def test_a_summary_only_with_no_stdout_exits_0(fixture_run):
    run, _ = fixture_run
    res = subprocess.run(["sh", "-c", '"$0" "$1" "$2" --summary-only >&-', sys.executable, PLOT, run],
                         capture_output=True, text=True, env=_env())
    assert res.returncode == 0 and res.stderr == "", res.stderr


def test_the_report_in_an_ascii_terminal_is_the_same_report(tmp_path):
    """Degrading the terminal changes what is printed, never the files written."""
    run = os.path.join(FIXTURES, "pi-scaling")
    pages = []
    for name, env in (("utf8", _env()), ("ascii", _env(PYTHONIOENCODING="ascii"))):
        out = tmp_path / name
        res = subprocess.run([sys.executable, PLOT, run, "--out", str(out), "--no-reference"], capture_output=True,
                             env=env)
        assert res.returncode == 0, res.stderr
        pages.append((out / "report.html").read_bytes())
    assert pages[0] == pages[1]


def test_the_fixture_doc_is_not_changed_by_the_rules():
    """The rules read a block; they never write one (a view reads the block as it was given)."""
    doc = doc_of(scaling_records())
    before = copy.deepcopy(doc)
    check_workers(doc, "results.json")
    assert doc == before and json.dumps(doc) == json.dumps(before)


# A property over the whole workers block: any of its numbers set to any value, alone or with
# others, is either refused naming the record and the field, or gives a hierarchy whose every
# shown figure is a finite efficiency where POP's definitions bound it.
def _number_paths(value, path=()):
    """Every path to a number under value (a workers block), bools and the count's kin included."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _number_paths(v, path + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _number_paths(v, path + (i,))]
    return [path] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


_BLOCK = doc_of(scaling_records())["records"][3]["workers"]
_PATHS = _number_paths(_BLOCK)
_ODD = [0, -1, -0.0, 1e308, 5e-324, 1e-300, 2 ** 70, float("inf"), float("nan"), 64, 0.5]
# Scaled from the value the fixture holds: near its edges, and far.
_SCALES = [0.0, 0.5, 0.999, 1.0001, 1.05, 2.0, 1000.0]
_BOUNDED = ("load balance", "communication efficiency", "parallel efficiency")


def _at(block, path):
    for key in path:
        block = block[key]
    return block


@hypothesis.settings(max_examples=300, deadline=None, database=None,
                     suppress_health_check=[hypothesis.HealthCheck.too_slow])
@hypothesis.given(edits=st.lists(st.tuples(st.sampled_from(_PATHS),
                                           st.sampled_from(_ODD) | st.sampled_from(_SCALES).map(lambda k: ("x", k))),
                                 min_size=1, max_size=3))
# Found by this test in CI: a denormal switch count was shown as a cell of 327 digits.
@hypothesis.example(edits=[(("disturbance", "switches"), 5e-324)])
def test_any_edit_of_the_workers_numbers_is_refused_or_shown_within_its_bounds(edits):
    import tempfile
    import pathlib
    from analysis.pop_text import render_pop
    doc = doc_of(scaling_records())
    block = doc["records"][3]["workers"]
    for path, value in edits:
        holder = _at(block, path[:-1])
        holder[path[-1]] = holder[path[-1]] * value[1] if isinstance(value, tuple) else value
    with tempfile.TemporaryDirectory() as root:
        d = write_doc(pathlib.Path(root), doc)
        try:
            loaded = load_run(str(d))
        except InputError as e:
            message = str(e)
            assert "record 3: 'workers." in message and "\n" not in message and len(message) < 400, message
            return
    text = render_pop(loaded)
    assert not re.search(r"\b(inf|nan)\b", text, re.IGNORECASE), text
    for line in text.splitlines():
        name = line[:30].strip()
        if name in _BOUNDED:
            for cell in line[30:].split():
                assert cell == "-" or 0.0 <= float(cell) <= 1.0, line
        for cell in line.split():
            assert len(cell) <= 40, line
