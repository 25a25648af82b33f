"""The exit-code contract, command by command (README, "Exit codes"): 0 done; 1 a measurement or
validation failed (compare: slower beyond the gate), and nothing else; 2 bad input or environment,
naming the argument, key or path; 130 interrupted; 3 an internal error of a Python helper, one line
and no traceback. A CI gate and `git bisect run` read exit 1 as "slower", so every refusal here
must be 2, with a message, and leave no file behind."""
import json
import math
import os
import stat
import subprocess
import sys
import time

import pytest

from analysis import compare_stats
from conftest import BASE_DOC, ROOT, run_dir_of, write_doc
from test_compare import make_run, rec, run_compare

RATIOS = os.path.join(ROOT, "scripts", "stream-peers-ratios.py")


def no_traceback(res):
    assert "Traceback" not in res.stderr, res.stderr
    return res


# ---------------------------------------------------------------- compare --html: all or nothing
def _pair(tmp_path):
    return write_doc(tmp_path, make_run(1), "base"), write_doc(tmp_path, make_run(2, factor=1.2), "new")


def test_html_onto_an_existing_file_exits_2(tmp_path):
    base, new = _pair(tmp_path)
    target = tmp_path / "file.html"
    target.write_text("keep me")
    res = no_traceback(run_compare(base, new, "--html", target))
    assert res.returncode == 2 and str(target) in res.stderr and "not a directory" in res.stderr
    assert target.read_text() == "keep me"


def test_html_into_an_unwritable_path_exits_2(tmp_path):
    """/proc refuses a new directory even to root; under a regular file there is no directory."""
    base, new = _pair(tmp_path)
    (tmp_path / "plain").write_text("")
    for where in ("/proc/parlab-compare-out", tmp_path / "plain" / "cmp"):
        res = no_traceback(run_compare(base, new, "--html", where))
        assert res.returncode == 2 and "cannot write" in res.stderr and str(where) in res.stderr, res.stderr
    assert (tmp_path / "plain").read_text() == ""


def test_html_into_an_unwritable_directory_exits_2(tmp_path):
    """An existing directory compare may not write into. Root writes through any mode bits, so as
    root (CI) the directory is a read-only tmpfs mounted for the test (EROFS); otherwise it is one
    without write permission (EACCES)."""
    base, new = _pair(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    mounted = os.geteuid() == 0
    if mounted:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "parlab-test-ro", str(locked)], check=True)
    else:
        locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        res = no_traceback(run_compare(base, new, "--html", locked / "cmp"))
        assert res.returncode == 2 and "cannot write" in res.stderr and str(locked / "cmp") in res.stderr, res.stderr
        res = no_traceback(run_compare(base, new, "--html", locked))
        assert res.returncode == 2 and "cannot write" in res.stderr, res.stderr
        assert os.listdir(locked) == []
    finally:
        if mounted:
            subprocess.run(["umount", str(locked)], check=True)
        else:
            locked.chmod(stat.S_IRWXU)


def test_html_where_report_html_is_a_directory_leaves_nothing(tmp_path):
    base, new = _pair(tmp_path)
    out = tmp_path / "cmp"
    (out / "report.html").mkdir(parents=True)
    res = no_traceback(run_compare(base, new, "--html", out))
    assert res.returncode == 2 and "report.html" in res.stderr
    assert sorted(os.listdir(out)) == ["report.html"]  # no plots/, compare.json or report.html.tmp
    assert os.listdir(out / "report.html") == []


def test_html_failure_while_drawing_leaves_nothing(tmp_path):
    """A failure after some figures were drawn (here: the report cannot be rendered) leaves the
    directory as it was, and it is exit 3, not exit 1."""
    base, new = _pair(tmp_path)
    out = tmp_path / "cmp"
    code = ("import sys\nfrom analysis import compare, compare_report\n"
            "orig = compare_report.records_table\n"
            "def boom(res): raise RuntimeError('planted')\n"
            "compare_report.records_table = boom\n"
            f"sys.exit(compare.main([{str(base)!r}, {str(new)!r}, '--html', {str(out)!r}]))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert res.returncode == 3, res.stderr
    assert "internal error, please report" in res.stderr and "planted" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not out.exists()  # created by the command, removed again with everything in it


def test_html_success_replaces_an_earlier_report(tmp_path):
    base, new = _pair(tmp_path)
    out = tmp_path / "cmp"
    out.mkdir()
    (out / "report.html").write_text("old")
    (out / "notes.txt").write_text("mine")
    res = run_compare(base, new, "--html", out)
    assert res.returncode == 0, res.stderr
    assert "parlab compare" in (out / "report.html").read_text()
    assert sorted(os.listdir(out)) == ["compare.json", "notes.txt", "plots", "report.html"]


# ---------------------------------------------------------------- compare refuses what it cannot compare
def _edit(tmp_path, edit, name="bad"):
    doc = make_run(3)
    edit(doc)
    return write_doc(tmp_path, doc, name)


def _set_median(value):
    def edit(doc):
        doc["records"][0]["time_s"]["median"] = value
    return edit


def _set_rep(value):
    def edit(doc):
        doc["records"][0]["reps_s"][0] = value
    return edit


def _context(value):
    def edit(doc):
        doc["context"] = value
    return edit


@pytest.mark.parametrize("case,edit,needle", [
    ("nan-median", _set_median(float("nan")), "median"),
    ("inf-median", _set_median(float("inf")), "median"),
    ("inf-rep", _set_rep(float("inf")), "reps_s"),
    ("nan-rep", _set_rep(float("nan")), "reps_s"),
    ("zero-rep", _set_rep(0.0), "reps_s"),
    ("negative-rep", _set_rep(-1.0), "reps_s"),
    ("bool-rep", _set_rep(True), "reps_s"),
    ("median-not-of-reps", _set_median(1.0), "not the median of its reps_s"),
    ("context-list", _context([1, 2]), "'context' must be an object"),
    ("context-string", _context("x"), "'context' must be an object"),
    ("context-null", _context(None), "'context' must be an object"),
    ("record-not-object", lambda d: d["records"].append(5), "must be an object"),
    ("time_s-not-object", lambda d: d["records"][0].update(time_s=[1]), "median"),
])
def test_uncomparable_records_exit_2_naming_the_record(tmp_path, case, edit, needle):
    good = write_doc(tmp_path, make_run(1), "good")
    bad = _edit(tmp_path, edit)
    for args in ((good, bad), (bad, good)):
        res = no_traceback(run_compare(*args))
        assert res.returncode == 2, (case, res.stdout, res.stderr)
        assert needle in res.stderr and str(bad) in res.stderr and not res.stdout


def test_a_fifo_is_refused_without_blocking(tmp_path):
    good = write_doc(tmp_path, make_run(1), "good")
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    start = time.monotonic()
    res = no_traceback(subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "compare.py"), str(good),
                                       str(fifo)], capture_output=True, text=True, timeout=30))
    assert time.monotonic() - start < 20
    assert res.returncode == 2 and "not a regular file" in res.stderr and str(fifo) in res.stderr
    # A run directory whose results.json is a FIFO, likewise.
    res = no_traceback(run_compare(good, tmp_path))
    assert res.returncode == 2 and "not a regular file" in res.stderr


def test_identical_repetitions_are_ties_not_evidence():
    """A million identical BASE repetitions against five spread NEW ones: p is 0 by the normal
    approximation, but the 99% interval spans 1 and BASE has one distinct value, so the test cannot
    judge: undecided, never "same"."""
    base, new = [1.0] * 1_000_000, [0.99, 1.0, 1.01, 0.98, 0.97]
    out = compare_stats.compare_samples(base, new, 0.01, 0.0)
    assert out["ci"][0] < 1 < out["ci"][1]
    assert out["verdict"] == "undecided" and not out["significant"] and out["too_few_reps"]
    # Both sides constant and apart: still one distinct value a side, so no verdict either.
    out = compare_stats.compare_samples([1.0] * 1000, [0.9] * 5, 0.01, 0.05)
    assert out["verdict"] == "undecided" and "distinct" in out["warning"]
    # Five distinct values a side beyond each other: the verdict stands.
    out = compare_stats.compare_samples([1.0, 1.01, 1.02, 1.03, 1.04], [0.90, 0.91, 0.92, 0.93, 0.94], 0.01, 0.05)
    assert out["verdict"] == "faster" and out["ci"][1] < 1


def test_a_verdict_needs_the_interval_to_exclude_one():
    """Over samples with many ties (a coarse timer), every verdict has an interval without 1, and
    a rejection whose interval spans 1 is no verdict ("same", or "undecided" where too few distinct
    times leave the test unable to judge)."""
    import random
    rng = random.Random(7)
    spanned = 0
    for _ in range(300):
        n, m = rng.randint(5, 60), rng.randint(5, 60)
        base = [round(rng.gauss(1.0, 0.02), 2) for _ in range(n)]
        new = [round(rng.gauss(rng.choice((0.98, 1.0, 1.02)), 0.02), 2) for _ in range(m)]
        out = compare_stats.compare_samples(base, new, 0.01, 0.0)
        if out["verdict"] in ("slower", "faster"):
            assert out["ci"] and (out["ci"][1] < 1 or out["ci"][0] > 1), out
        if out["p_value"] < 0.01 and out["ci"] and out["ci"][0] <= 1 <= out["ci"][1]:
            spanned += 1
            assert out["verdict"] in ("same", "undecided") and not out["significant"]
    assert spanned  # the case the rule is for occurs in this sample


def test_gate_does_not_trip_on_identical_repetitions(tmp_path):
    doc_a, doc_b = make_run(1), make_run(1)
    doc_a["records"] = [rec(0, "pool", 1, [1.0] * 50)]
    doc_b["records"] = [rec(0, "pool", 1, [2.0] * 50)]
    res = run_compare(write_doc(tmp_path, doc_a, "a"), write_doc(tmp_path, doc_b, "b"), "--fail-if-slower", "5")
    # Never 1 (slower); and not 0 either: the gate judged nothing, and more of the same times
    # would not let it, so its line names the ties rather than a repetition count.
    assert res.returncode == 5, res.stdout
    assert "1 record(s) have repetitions enough but too few distinct times" in res.stderr
    assert "parlab run -r" not in res.stderr


# ---------------------------------------------------------------- plot.py
def test_plot_refuses_a_fifo_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "results.json")
    res = no_traceback(subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "plot.py"), str(tmp_path)],
                                      capture_output=True, text=True, timeout=30))
    assert res.returncode == 2 and "not a regular file" in res.stderr


def test_plot_without_matplotlib_exits_2_naming_the_module(tmp_path):
    # An interpreter that lacks matplotlib (None in sys.modules makes its import fail as a missing
    # module does): the environment's fault, 2 with the module named, never "internal error".
    run = write_doc(tmp_path, make_run(1), "run")
    plot = os.path.join(ROOT, "analysis", "plot.py")
    code = ("import runpy, sys; sys.modules['matplotlib'] = None; "
            f"sys.argv = ['plot.py', {str(run)!r}]; runpy.run_path({plot!r}, run_name='__main__')")
    res = no_traceback(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60))
    assert res.returncode == 2 and "'matplotlib'" in res.stderr and "internal error" not in res.stderr, res.stderr


def test_plot_refuses_a_bad_context_and_a_nan_median(tmp_path):
    for name, edit in (("ctx", _context(3)), ("nan", _set_median(float("nan")))):
        bad = _edit(tmp_path, edit, name)
        res = no_traceback(subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "plot.py"), str(bad)],
                                          capture_output=True, text=True))
        assert res.returncode == 2 and str(bad) in res.stderr, res.stderr
        assert not (bad / "report.html").exists() and not (bad / "plots").exists()


# ---------------------------------------------------------------- parlab run: suites given by path, messages
def parlab(parlab_bin, *args, timeout=120):
    return subprocess.run([parlab_bin, *map(str, args)], capture_output=True, text=True, timeout=timeout)


GOOD_EXPERIMENT = {"kernel": "pi", "backends": ["serial"], "sizes": [1024]}


@pytest.mark.parametrize("suite,needle", [
    ({"name": 5, "experiments": [GOOD_EXPERIMENT]}, "name: expected a string, got 5"),
    ({"name": "t", "description": [1], "experiments": [GOOD_EXPERIMENT]}, "description: expected a string"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "study": 5}]}, "experiment 1 study: expected a string, got 5"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "scaling": 7}]}, "experiment 1 scaling: expected a string"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "device": "x"}]}, "experiment 1 device: expected a GPU index"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "device": -1}]}, "experiment 1 device: expected a GPU index"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "backends": []}]}, "experiment 1 backends: the list is empty"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "kernel": []}]}, "experiment 1 kernel: the list is empty"),
    ({"name": "t", "experiments": [{**GOOD_EXPERIMENT, "ranks": "0"}]}, "rank count"),
])
def test_suite_type_errors_exit_2_naming_key_and_file(tmp_path, parlab_bin, suite, needle):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite))
    res = parlab(parlab_bin, "run", "--suite", path, "--dry-run", "--out", tmp_path / "out")
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert needle in res.stderr and str(path) in res.stderr, res.stderr
    assert "json.exception" not in res.stderr and "select no measurement" not in res.stderr


def test_duplicate_experiments_are_measured_once_with_one_warning(tmp_path, parlab_bin):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"name": "t", "reps": 3, "experiments": [GOOD_EXPERIMENT, GOOD_EXPERIMENT,
                                                                        GOOD_EXPERIMENT]}))
    res = parlab(parlab_bin, "run", "--suite", path, "--out", tmp_path / "out")
    assert res.returncode == 0, res.stderr
    said = res.stdout + res.stderr
    assert said.count("asked for more than once") == 1 and "experiments 1 and 2" in said, said
    doc = json.loads(open(os.path.join(run_dir_of(tmp_path / "out"), "results.json")).read())
    assert len(doc["records"]) == 1
    assert any("more than once" in w for w in doc["context"]["warnings"])


@pytest.mark.parametrize("args,needle", [
    (["--timeout", "1e12"], "from 0 to 1e7"),
    (["--timeout", "-1"], "from 0 to 1e7"),
    (["--rounds", "-1"], "expected an integer >= 1"),
    (["--rounds", "0"], "expected an integer >= 1"),
    (["--reps", "-2"], "expected an integer >= 1"),
    (["--ranks", "0"], "rank count"),
    (["--ranks", "1..x"], "rank count"),
])
def test_run_messages_say_the_real_limit(tmp_path, parlab_bin, args, needle):
    res = parlab(parlab_bin, "run", "--kernel", "pi", "--dry-run", "--out", tmp_path / "out", *args)
    assert res.returncode == 2 and needle in res.stderr, res.stderr
    assert "non-negative" not in res.stderr and "thread count" not in res.stderr


# ---------------------------------------------------------------- peers: --timeout, process group, --peer-dir
def _peer_wrapper(tmp_path, body):
    """A BabelStream directory whose omp-stream is a shell script: `body`, then the fake."""
    from test_babelstream_peer import FAKE
    d = tmp_path / "babelstream"
    d.mkdir()
    exe = d / "omp-stream"
    exe.write_text(f'#!/bin/sh\necho $$ >> "{tmp_path}/pids"\n{body}\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    exe.chmod(0o755)
    return d


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _peer_run(parlab_bin, tmp_path, d, fault, *extra):
    from test_babelstream_peer import run as peer_run
    start = time.monotonic()
    r, doc = peer_run(parlab_bin, tmp_path, ["-k", "triad", "-b", "babelstream-omp", "-t", "1", "-n", "4096",
                                             "--reps", "1", *extra], env={"PARLAB_BABELSTREAM_DIR": str(d)},
                      fault=fault)
    return r, doc, time.monotonic() - start


def test_timeout_reaches_a_hung_peer_and_its_process_group(parlab_bin, tmp_path):
    """A peer that ignores SIGTERM and hangs, with a background child holding its stdout: with
    --timeout 3 the run ends within the timeout, the 5 s grace before SIGKILL and a few seconds
    (it was still running at 60 s when the peer's timeout was a fixed 1800 s), with an error record
    and no process left."""
    d = _peer_wrapper(tmp_path, f'trap "" TERM\nsleep 600 &\necho $! >> "{tmp_path}/pids"')
    r, doc, took = _peer_run(parlab_bin, tmp_path, d, "hang", "--timeout", "3")
    assert took < 3 + 5 + 10, took
    assert r.returncode == 1, r.stderr
    (peer,) = doc["records"]
    assert peer["status"] == "error" and "--timeout 3 s" in peer["reason"], peer["reason"]
    pids = [int(x) for x in (tmp_path / "pids").read_text().split()]
    assert len(pids) >= 2
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if _alive(p)]


def test_a_background_child_holding_stdout_does_not_block_the_run(parlab_bin, tmp_path):
    """The peer exits at once but leaves a child that holds its stdout for 10 minutes: the run
    does not wait for it (no --timeout needed), measures, and leaves no process."""
    d = _peer_wrapper(tmp_path, f'sleep 600 &\necho $! >> "{tmp_path}/pids"')
    r, doc, took = _peer_run(parlab_bin, tmp_path, d, "ok")
    assert took < 30, took
    assert r.returncode == 0, r.stderr
    assert [x["status"] for x in doc["records"]] == ["ok"]
    pids = [int(x) for x in (tmp_path / "pids").read_text().split()]
    assert not [p for p in pids if _alive(p)]


@pytest.mark.parametrize("what", ["missing", "file"])
def test_peer_dir_that_is_not_a_directory_exits_2(parlab_bin, tmp_path, what):
    target = tmp_path / "nope"
    if what == "file":
        target.write_text("")
    out = tmp_path / "out"
    res = parlab(parlab_bin, "run", "-k", "triad", "-b", "babelstream-omp", "-n", "4096", "--peer-dir", target,
                 "--out", out)
    assert res.returncode == 2 and "--peer-dir" in res.stderr and str(target) in res.stderr, res.stderr
    assert ("no such directory" if what == "missing" else "not a directory") in res.stderr
    assert not out.exists()


# ---------------------------------------------------------------- scripts/stream-peers-ratios.py
def _peers_doc():
    from conftest import record
    doc = json.loads(json.dumps(BASE_DOC))
    recs = []
    for i, (backend, kind) in enumerate((("babelstream-omp", "peer"), ("pool", "cpu"))):
        r = record(i, backend, 2, 0.001 * (i + 1), kernel="triad", study="stream-peers-cpu", kind=kind,
                   precision="double")
        r["work"]["bytes"] = 24 * r["size"]
        recs.append(r)
    doc["records"] = recs
    return doc


def _ratios(tmp_path, doc, name="run"):
    d = write_doc(tmp_path, doc, name)
    return no_traceback(subprocess.run([sys.executable, RATIOS, str(d)], capture_output=True, text=True, timeout=60)), d


def test_ratios_ok_and_failed(tmp_path):
    res, _ = _ratios(tmp_path, _peers_doc())
    assert res.returncode == 0 and "cpu triad BabelStream fastest" in res.stdout, res.stderr
    doc = _peers_doc()
    doc["records"][1]["status"], doc["records"][1]["validation"]["pass"] = "failed-validation", False
    res, _ = _ratios(tmp_path, doc, "failed")
    assert res.returncode == 1 and "FAILED stream-peers-cpu triad pool" in res.stderr


@pytest.mark.parametrize("case,edit,needle", [
    # An ok record without `work` or `validation` at all is the loader's (test_untrusted_results.py).
    ("no-work", lambda r: r["work"].pop("bytes"), "work.bytes"),
    ("bytes-string", lambda r: r["work"].update(bytes="x"), "work.bytes"),
    ("no-validation", lambda r: r["validation"].pop("pass"), "validation.pass"),
    ("mean-null", lambda r: r["time_s"].update(mean=None), "time_s.mean"),
    ("threads-string", lambda r: r.update(threads="2"), "threads"),
    ("metrics-list", lambda r: r.update(metrics=[1]), "metrics"),
    ("study-number", lambda r: r.update(study=5), None),  # then not a stream-peers record at all
])
def test_ratios_malformed_records_exit_2_naming_the_record(tmp_path, case, edit, needle):
    doc = _peers_doc()
    for r in doc["records"]:
        edit(r)
    res, d = _ratios(tmp_path, doc)
    assert res.returncode == 2, (case, res.stdout, res.stderr)
    assert str(d) in res.stderr and (needle is None or needle in res.stderr), res.stderr


def test_ratios_without_stream_peers_records_exit_2(tmp_path):
    doc = _peers_doc()
    for r in doc["records"]:
        r["study"] = "other"
    res, d = _ratios(tmp_path, doc)
    assert res.returncode == 2 and "no stream-peers record" in res.stderr and not res.stdout


# ---------------------------------------------------------------- parlab report / parlab compare pass the codes on
def test_parlab_report_of_a_missing_run_exits_2(tmp_path, parlab_bin):
    res = parlab(parlab_bin, "report", tmp_path / "nope")
    assert res.returncode == 2 and str(tmp_path / "nope") in res.stderr, res.stderr


def test_parlab_report_of_malformed_json_exits_2_naming_the_file(tmp_path, parlab_bin):
    d = tmp_path / "run"
    d.mkdir()
    (d / "results.json").write_text('{"schema": ')
    res = no_traceback(parlab(parlab_bin, "report", d))
    assert res.returncode == 2 and str(d / "results.json") in res.stderr and "not valid JSON" in res.stderr, res.stderr


# ---------------------------------------------------------------- parlab run --resume: a malformed results.json
# An incomplete run of one measurement that resumes cleanly as it is; each case below breaks one
# key. The JSON library's own type_error names neither key nor file and ended as exit 1, the code
# for a failed measurement; the contract is exit 2 naming both.
RESUMABLE = {"schema": "parlab-results/5", "status": "incomplete", "invocation": ["parlab", "run"],
             "context": {"host": "h", "build": {"git_commit": "x"}, "warnings": []},
             "plan": [{"study": "s", "scaling": "none", "kernel": "pi", "backend": "serial", "threads": 1,
                       "size": 1024, "size_y": 0, "precision": "int32", "seed": 1, "reps": 1, "warmup": 0,
                       "min_rep_seconds": 0.0, "device": 0}],
             "records": []}
FAILED_RECORD = {"id": 0, "kernel": "pi", "backend": "serial", "threads": 1, "size": 1024, "status": "failed"}


def _resume_doc(edit):
    doc = json.loads(json.dumps(RESUMABLE))
    edit(doc)
    return doc


@pytest.mark.parametrize("case,edit,needle", [
    ("schema-number", lambda d: d.update(schema=5), "does not hold a parlab run"),
    ("status-number", lambda d: d.update(status=1), "key 'status' must be a string"),
    ("plan-object", lambda d: d.update(plan={}), "key 'plan' must be an array"),
    ("plan-threads", lambda d: d["plan"][0].update(threads="x"), "key 'plan[0].threads' must be integer"),
    ("plan-size-missing", lambda d: d["plan"][0].pop("size"), "key 'plan[0].size' is missing"),
    ("plan-precision", lambda d: d["plan"][0].update(precision="quad"), "key 'plan[0]' is malformed"),
    ("records-string", lambda d: d.update(records="x"), "key 'records' must be an array"),
    ("record-id", lambda d: d.update(records=[{**FAILED_RECORD, "id": "0"}]), "key 'records[0].id'"),
    ("record-kernel", lambda d: d.update(records=[{**FAILED_RECORD, "kernel": 5}]), "key 'records[0].kernel'"),
    ("record-validation", lambda d: d.update(records=[FAILED_RECORD]), "key 'records[0].validation'"),
    ("context-number", lambda d: d.update(context=3), "key 'context' must be an object"),
    ("context-build", lambda d: d["context"].update(build="x"), "key 'context.build' must be an object"),
    ("warnings-string", lambda d: d["context"].update(warnings="x"), "key 'context.warnings' must be an array"),
    ("resumed-string", lambda d: d.update(resumed_utc="x"), "key 'resumed_utc' must be an array"),
])
def test_resume_of_a_malformed_run_exits_2_naming_file_and_key(tmp_path, parlab_bin, case, edit, needle):
    d = write_doc(tmp_path, _resume_doc(edit))
    before = (d / "results.json").read_text()
    res = no_traceback(parlab(parlab_bin, "run", "--resume", d, "--no-report", "--quiet"))
    assert res.returncode == 2, (case, res.stderr)
    assert needle in res.stderr and str(d) in res.stderr, res.stderr
    assert "type_error" not in res.stderr and "json.exception" not in res.stderr, res.stderr
    assert (d / "results.json").read_text() == before  # refused before anything was written


def test_resume_of_a_well_formed_run_completes(tmp_path, parlab_bin):
    """The cases above are refused for their one broken key, not for the fixture."""
    d = write_doc(tmp_path, _resume_doc(lambda d: None))
    res = parlab(parlab_bin, "run", "--resume", d, "--no-report", "--quiet")
    assert res.returncode == 0, res.stderr
    assert json.loads((d / "results.json").read_text())["status"] == "complete"


@pytest.mark.parametrize("script,code", [
    ("import sys; sys.exit(3)", 3),                      # compare's internal error stays 3
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", 3),  # a crash is a bug, never 1
    ("import sys; sys.exit(130)", 130),
])
def test_parlab_compare_never_turns_a_fault_into_exit_1(tmp_path, parlab_bin, script, code):
    fake = tmp_path / "compare.py"
    fake.write_text(script + "\n")
    res = subprocess.run([parlab_bin, "compare", "a", "b"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PARLAB_COMPARE_SCRIPT": str(fake), "PARLAB_PYTHON": sys.executable})
    assert res.returncode == code, res.stderr


def test_parlab_help_states_the_contract(parlab_bin):
    for args in ((), ("run",), ("report",), ("pi",), ("list",)):
        out = parlab(parlab_bin, *args, "--help").stdout
        assert "Exit codes" in out and "130 interrupted" in out, args


def test_python_helpers_state_the_contract_in_help():
    for script in (os.path.join(ROOT, "analysis", "compare.py"), os.path.join(ROOT, "analysis", "plot.py"), RATIOS):
        res = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=60)
        assert res.returncode == 0 and "Exit codes" in res.stdout and "130 interrupted" in " ".join(res.stdout.split()), script


@pytest.mark.parametrize("var,kernel", [("PARLAB_STREAM_ISA", "triad"), ("PARLAB_PI_ISA", "pi")])
def test_a_bad_isa_override_stops_the_run_with_2(tmp_path, parlab_bin, var, kernel):
    # Read when the run's context is written, before any measurement: the environment's fault,
    # never a failed record.
    res = subprocess.run([parlab_bin, "run", "-k", kernel, "-b", "pool", "-t", "2", "-n", "2^25", "-r", "1",
                          "--no-ceilings", "--no-report", "-q", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, env=dict(os.environ, **{var: "bogus"}))
    assert res.returncode == 2 and f"{var}='bogus'" in res.stderr, res.stderr


def test_the_gate_that_judged_nothing_has_a_code_of_its_own(tmp_path):
    """5: free in the contract (4 is `parlab run`'s failed report), in docs/design.md's table, in
    compare's --help, and what compare exits when its gate could judge no record."""
    from analysis.exit_codes import NOTHING_JUDGED
    assert NOTHING_JUDGED == 5
    with open(os.path.join(ROOT, "docs", "design.md")) as f:
        rows = [line for line in f if line.startswith("| ")]
    codes = [row.split("|")[1].strip() for row in rows]
    assert codes.count("5") == 1 and "--fail-if-slower" in rows[codes.index("5")]
    assert "judged nothing" in rows[codes.index("5")]
    helped = " ".join(run_compare("--help").stdout.split())
    assert "5 --fail-if-slower judged nothing" in helped
    base = write_doc(tmp_path, make_run(1, n=3), "base")
    new = write_doc(tmp_path, make_run(2, n=3), "new")
    res = no_traceback(run_compare(base, new, "--fail-if-slower", "5", "--json"))
    assert res.returncode == NOTHING_JUDGED and json.loads(res.stdout)["gate"]["nothing_judged"]
    assert len(res.stderr.splitlines()) == 1 and "parlab run -r " in res.stderr


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interruption_a_library_swallows_still_exits_130(sig, capsys):
    """matplotlib's rc validation catches BaseException while it reads its style library, so a
    signal landing there never reached the command as KeyboardInterrupt and the report ran on to
    exit 0. The command is interrupted all the same: 130, and one line saying so."""
    import os
    import signal
    from analysis.exit_codes import run_command

    def body():
        try:
            os.kill(os.getpid(), getattr(signal, sig))
            for _ in range(1000):  # the handler runs between bytecodes
                pass
        except BaseException:  # noqa: BLE001 -- as the library does
            pass
        return 0

    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert run_command("plot.py", body) == 130
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    assert capsys.readouterr().err.strip() == "plot.py: interrupted"
