"""End to end: `parlab run` into a temporary directory, bad input, resume, validation failures."""
import glob
import json
import os
import signal
import subprocess
import time

import jsonschema
import pytest

from conftest import SCHEMA, messages, run_dir_of

TINY_SUITE = {
    "name": "tiny", "description": "test suite", "reps": 2, "warmup": 1, "seed": 7, "min_rep_seconds": 0,
    "experiments": [
        {"kernel": "pi", "backends": ["serial", "threads", "pool", "tbb", "openmp"], "threads": "1,2",
         "sizes": [100003]},
        {"kernel": "triad", "backends": ["serial", "pool"], "threads": "1,2", "sizes": ["2^12", 5000],
         "precision": ["double", "float"], "scaling": "none"},
    ],
}


def validate(doc):
    with open(SCHEMA) as f:
        jsonschema.validate(doc, json.load(f))


def run(parlab_bin, *args, **kw):
    return subprocess.run([parlab_bin, *args], capture_output=True, text=True, timeout=600, **kw)


def only_run_dir(out):
    return run_dir_of(out)


def test_suite_run_end_to_end(tmp_path, parlab_bin):
    suite = tmp_path / "tiny.json"
    suite.write_text(json.dumps(TINY_SUITE))
    out = tmp_path / "results"
    res = run(parlab_bin, "run", str(suite), "--out", str(out))
    assert res.returncode == 0, res.stderr
    run_dir = only_run_dir(out)
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    validate(doc)
    assert doc["status"] == "complete" and len(doc["records"]) == len(doc["plan"])
    pis = [r for r in doc["records"] if r["kernel"] == "pi" and r["status"] == "ok"]
    assert len(pis) >= 7 and len({r["hits"] for r in pis}) == 1          # identical on every backend
    assert all(c["pass"] for c in doc["consistency"])
    assert all(len(r["reps_s"]) == 2 for r in doc["records"] if r["status"] == "ok")
    csv_rows = open(os.path.join(run_dir, "results.csv")).read().strip().splitlines()
    assert len(csv_rows) == 1 + len(doc["records"])
    assert os.path.exists(os.path.join(run_dir, "report.html"))


@pytest.mark.parametrize("args, names", [
    (["run", "no-such-suite"], "no-such-suite"),
    (["run", "--kernel", "pi", "--backend", "cilk"], "cilk"),
    (["run", "--kernel", "pi", "--threads", "0"], "--threads"),
    (["run", "--kernel", "triad", "--size", "-1"], "--size"),
    (["run", "--kernel", "triad", "--size", "1e30"], "--size"),
    (["run", "--kernel", "triad", "--size", "2^60"], "--size"),
    (["run", "--kernel", "nope"], "nope"),
    (["run", "--kernel", "pi", "--precision", "half"], "--precision"),
    (["run", "--kernel", "pi", "--reps", "0"], "--reps"),
    (["run", "--kernel", "pi", "--rounds", "0"], "--rounds"),
    (["run", "--kernel", "pi", "--rounds", "two"], "--rounds"),
    (["run", "--kernel", "pi", "--format", "xml"], "--format"),
    (["run", "--kernel", "pi", "--size", ""], "--size"),
    (["run", "--kernel", "pi", "--threads", ""], "--threads"),
    (["run", "--suite", ""], "--suite"),
    (["run", "--kernel", "pi", "--size", "2^63"], "--yes"),
    (["run", "--kernel", "pi", "--size", "2^40", "--reps", "1000"], "--yes"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, parlab_bin, args, names):
    out = tmp_path / "results"
    res = run(parlab_bin, *args, "--out", str(out))
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert names in res.stderr
    assert not out.exists()


def test_empty_value_is_a_usage_error(parlab_bin):
    res = run(parlab_bin, "pi", "--samples", "")
    assert res.returncode == 2 and "--samples" in res.stderr, res.stderr


def test_directory_as_suite(tmp_path, parlab_bin):
    res = run(parlab_bin, "run", str(tmp_path) + "/", "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "is a directory" in res.stderr, res.stderr


def test_estimate_is_a_lower_bound_that_yes_overrides(tmp_path, parlab_bin):
    # Refused without --yes, with the estimate in the message; the same plan with --yes starts
    # (stopped at once here by a failing --out, which is checked after the estimate).
    res = run(parlab_bin, "run", "--kernel", "pi", "--size", "2^63", "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "years" in res.stderr, res.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = run(parlab_bin, "run", "--kernel", "pi", "--size", "2^63", "--yes", "--out", str(blocker / "sub"))
    assert res.returncode == 2 and "--out" in res.stderr and "--yes" not in res.stderr, res.stderr
    # A plan that takes seconds is not held up.
    res = run(parlab_bin, "run", "--kernel", "pi", "--size", "2^20", "--backend", "serial", "--reps", "1",
              "--no-report", "--quiet", "--out", str(tmp_path / "ok"))
    assert res.returncode == 0, res.stderr


def test_work_unit_left_out_of_a_suite_warned_on_the_command_line(tmp_path, parlab_bin):
    # Python threads take parlab.pi calls of 2^21 points: at 2^21 points and 2 threads one
    # thread does all the work. A suite's such point is left out with one warning (a suite's
    # "max" differs between machines, so refusing would make a committed suite fail on a big one);
    # a suite left with nothing is refused; --size is measured and warned about.
    listed = [l.split() for l in run(parlab_bin, "list").stdout.splitlines()]
    if ["py-parlab-gil-released", "python", "available"] not in [l[:3] for l in listed]:
        pytest.fail("py-parlab-gil-released is not available in this build (CI builds have the Python part)")
    suite = tmp_path / "small.json"
    suite.write_text(json.dumps({"name": "small", "experiments": [
        {"kernel": "pi", "backends": ["py-parlab-gil-released"], "threads": "1,2", "sizes": ["2^21"]}]}))
    res = run(parlab_bin, "run", str(suite), "-r", "1", "--no-report", "--out", str(tmp_path / "a"))
    assert res.returncode == 0, res.stderr
    warnings = [l for l in messages(res.stderr) if "warning" in l and "py-parlab-gil-released" in l]
    assert len(warnings) == 1 and "left out" in warnings[0] and "2^22" in warnings[0], res.stderr
    doc = json.load(open(os.path.join(only_run_dir(tmp_path / "a"), "results.json")))
    assert [(r["threads"], r["size"]) for r in doc["records"]] == [(1, 1 << 21)]
    assert any("left out" in w for w in doc["context"]["warnings"])
    suite.write_text(json.dumps({"name": "small", "experiments": [
        {"kernel": "pi", "backends": ["py-parlab-gil-released"], "threads": "2", "sizes": ["2^21"]}]}))
    res = run(parlab_bin, "run", str(suite), "--out", str(tmp_path / "c"))
    assert res.returncode == 2 and "select no measurement" in res.stderr, res.stderr
    assert not (tmp_path / "c").exists()
    res = run(parlab_bin, "run", "-k", "pi", "-b", "py-parlab-gil-released", "-t", "2", "-n", "2^21", "-r", "1",
              "--no-report", "--out", str(tmp_path / "b"))
    assert res.returncode == 0, res.stderr
    assert "warning" in res.stderr and "2^22" in res.stderr
    doc = json.load(open(os.path.join(only_run_dir(tmp_path / "b"), "results.json")))
    assert any("py-parlab-gil-released" in w for w in doc["context"]["warnings"])


def test_no_filter_is_silent(tmp_path, parlab_bin):
    # --resume applies no filter: each one is refused by name.
    res = run(parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^16", "-r", "1", "--no-report", "--quiet",
              "--out", str(tmp_path / "r"))
    assert res.returncode == 0, res.stderr
    run_dir = only_run_dir(tmp_path / "r")
    for args, name in [(["--threads", "4"], "--threads"), (["--threads", "nonsense"], "--threads"),
                       (["--backend", "pool"], "--backend"), (["--size", "2^20"], "--size"), (["--reps", "3"], "--reps"),
                       (["--rounds", "2"], "--rounds"),
                       (["--ranks", "2"], "--ranks"), (["--out", str(tmp_path / "x")], "--out"),
                       (["-k", "pi"], "--kernel"), (["--seed", "1"], "--seed")]:
        res = run(parlab_bin, "run", "--resume", run_dir, *args)
        assert res.returncode == 2 and name in res.stderr, (args, res.stderr)
    # A named backend that runs none of the named kernels is refused; one that runs some of them
    # is measured for those, and each kernel it is not measured for is named once.
    res = run(parlab_bin, "run", "-k", "plus_one", "-b", "cuda-cublas", "--dry-run")
    assert res.returncode == 2 and "cuda-cublas" in res.stderr and "none of the planned kernels" in res.stderr, res.stderr
    res = run(parlab_bin, "run", "-k", "pi,matmul", "-b", "serial,cuda-cublas", "--dry-run")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("'cuda-cublas' is not measured for kernel(s) pi") == 1, res.stdout
    res = run(parlab_bin, "run", "quick", "-k", "pi,nosuchkernel", "--dry-run")
    assert res.returncode == 2 and "nosuchkernel" in res.stderr, res.stderr


def test_one_default_seed(tmp_path, parlab_bin):
    pi = json.loads(run(parlab_bin, "pi", "-b", "serial", "-n", "2^16", "--json").stdout)
    res = run(parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^16", "-r", "1", "--no-report", "--quiet",
              "--out", str(tmp_path / "s"))
    assert res.returncode == 0, res.stderr
    (rec,) = json.load(open(os.path.join(only_run_dir(tmp_path / "s"), "results.json")))["records"]
    assert rec["seed"] == pi["seed"] and rec["hits"] == pi["hits"]


def test_unwritable_out(tmp_path, parlab_bin):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = run(parlab_bin, "run", "--kernel", "pi", "--size", "1000", "--out", str(blocker / "sub"))
    assert res.returncode == 2 and "--out" in res.stderr


def test_malformed_suite_file(tmp_path, parlab_bin):
    for name, text in {"bad.json": "{not json", "typo.json": json.dumps({**TINY_SUITE, "experiment": []}),
                       "badkey.json": json.dumps({**TINY_SUITE, "experiments": [{"kernel": "pi", "sizez": [1]}]})}.items():
        path = tmp_path / name
        path.write_text(text)
        out = tmp_path / ("out-" + name)
        res = run(parlab_bin, "run", str(path), "--out", str(out))
        assert res.returncode == 2, (name, res.stderr)
        assert name in res.stderr or "sizez" in res.stderr or "experiment" in res.stderr
        assert not out.exists()


def test_interrupted_run_stays_valid_and_resumes(tmp_path, parlab_bin):
    suite = dict(TINY_SUITE, experiments=[{"kernel": "pi", "backends": ["serial", "pool", "threads"],
                                           "threads": "1,2", "sizes": ["2^25"]}], reps=3)
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(suite))
    out = tmp_path / "results"
    proc = subprocess.Popen([parlab_bin, "run", str(path), "--out", str(out), "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = None
    deadline = time.time() + 120
    while time.time() < deadline:
        # Polled while the runner creates OUT/<host>, then its run folder, then the `latest` link:
        # only a results.json with a record says the run is under way.
        found = [p for p in glob.glob(os.path.join(out, "*", "*", "results.json"))
                 if not os.path.islink(os.path.dirname(p))]
        if found and len(json.load(open(found[0]))["records"]) >= 1:
            results = found[0]
            break
        time.sleep(0.05)
    run_dir = only_run_dir(out)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    doc = json.load(open(results))
    validate(doc)
    assert doc["status"] == "incomplete"
    assert 1 <= len(doc["records"]) < len(doc["plan"])
    assert "--resume" in err

    res = run(parlab_bin, "run", "--resume", run_dir, "--no-report")
    assert res.returncode == 0, res.stderr
    doc = json.load(open(results))
    validate(doc)
    assert doc["status"] == "complete"
    assert sorted(r["id"] for r in doc["records"]) == list(range(len(doc["plan"])))
    assert len({r["hits"] for r in doc["records"]}) == 1


def test_differing_pi_hits_fail_the_run(tmp_path, parlab_bin):
    # A run whose first record claims a wrong hit count: resuming measures the second spec for
    # real, and the cross-backend check must flag the pair, print it, and exit non-zero.
    suite = dict(TINY_SUITE, experiments=[{"kernel": "pi", "backends": ["serial", "pool"], "threads": "1",
                                           "sizes": [10001]}])
    path = tmp_path / "two.json"
    path.write_text(json.dumps(suite))
    out = tmp_path / "results"
    assert run(parlab_bin, "run", str(path), "--out", str(out), "--no-report").returncode == 0
    run_dir = only_run_dir(out)
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    doc["records"] = doc["records"][:1]
    doc["records"][0]["hits"] += 1
    doc["status"] = "incomplete"
    open(os.path.join(run_dir, "results.json"), "w").write(json.dumps(doc))
    res = run(parlab_bin, "run", "--resume", run_dir, "--no-report")
    assert res.returncode == 1, res.stderr
    assert "FAILED" in res.stderr and "differ" in res.stderr
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    assert not all(c["pass"] for c in doc["consistency"])
    assert all(r["status"] == "failed-validation" for r in doc["records"])


def test_an_openmp_team_smaller_than_asked_fails_its_record(tmp_path, parlab_bin):
    # OMP_THREAD_LIMIT=1 makes num_threads(2) a request OpenMP turns down in silence: the t=2
    # record must fail naming it, never report one thread's work as two threads'.
    listed = run(parlab_bin, "list").stdout
    if not any(line.split()[:3] == ["openmp", "cpu", "available"] for line in listed.splitlines()):
        pytest.skip("no openmp backend in this build")
    out = tmp_path / "results"
    res = run(parlab_bin, "run", "-k", "pi", "-b", "openmp", "-t", "1,2", "-n", "100001", "-r", "1",
              "--out", str(out), "--no-report", env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    assert res.returncode == 1, res.stderr
    doc = json.load(open(os.path.join(only_run_dir(out), "results.json")))
    by_threads = {r["threads"]: r for r in doc["records"]}
    assert by_threads[1]["status"] == "ok"
    assert by_threads[2]["status"] == "error"
    assert "team of 1 thread where 2 were asked" in by_threads[2]["reason"]
    assert "OMP_THREAD_LIMIT=1" in by_threads[2]["reason"]


def test_rounds_measure_the_whole_plan_again_and_pool_in_the_views(tmp_path, parlab_bin):
    # --rounds 3: the plan three times over, round after round, one record per measurement and
    # round; the figures' and compare's loader pools each measurement's rounds into one record.
    from analysis.records import fastest_bytes_per_s, load_run

    res = run(parlab_bin, "run", "-k", "pi,copy", "-b", "serial,pool", "-t", "2", "-n", "2^16", "-r", "2",
              "--rounds", "3", "--quick", "--no-report", "--out", str(tmp_path / "r"))
    assert res.returncode == 0, res.stderr
    run_dir = only_run_dir(tmp_path / "r")
    doc = json.load(open(os.path.join(run_dir, "results.json")))
    validate(doc)
    one = [(p["kernel"], p["backend"]) for p in doc["plan"] if p["round"] == 1]
    assert len(one) == 4 and [p["round"] for p in doc["plan"]] == [1] * 4 + [2] * 4 + [3] * 4
    assert [(p["kernel"], p["backend"]) for p in doc["plan"]] == one * 3  # each round the plan's order
    assert sorted(r["round"] for r in doc["records"]) == [1] * 4 + [2] * 4 + [3] * 4
    assert "round 2" in res.stderr or "round 2" in res.stdout  # the progress says which round
    assert all(c["pass"] for c in doc["consistency"])  # pi: one count over every round
    pooled = load_run(run_dir)["records"]
    assert [(r["kernel"], r["backend"]) for r in pooled] == one
    for r in pooled:
        rounds = [x for x in doc["records"] if (x["kernel"], x["backend"]) == (r["kernel"], r["backend"])]
        assert r["rounds"] == 3 and "round" not in r
        assert r["reps_s"] == [t for x in sorted(rounds, key=lambda x: x["round"]) for t in x["reps_s"]]
        assert r["time_s"]["min"] == min(r["reps_s"]) and len(r["reps_s"]) == 6
        if r["kernel"] == "copy":
            assert r["rate"]["bytes_per_s"] == pytest.approx(r["work"]["bytes"] / r["time_s"]["median"])
            assert fastest_bytes_per_s(r) == pytest.approx(max(fastest_bytes_per_s(x) for x in rounds))
    res = run(parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^16", "--rounds", "2", "--dry-run")
    assert res.returncode == 0 and "2 measurements (2 rounds of 1)" in res.stdout, res.stdout


def test_the_view_shows_each_measurement_as_the_run_pooled_it():
    """The pooled figures are the run's (experiments/run/pool_rounds.cpp; its test holds how they
    are made): the view puts them on the first round's record, and a failed round, which the run
    names, is what it shows, never hidden by the rounds that passed."""
    from analysis.records import pool_rounds

    def rec(rnd, status="ok", passed=True):
        return {"kernel": "copy", "backend": "pool", "threads": 2, "size": 8, "status": status, "round": rnd,
                "reps_s": [1.0 * rnd], "time_s": {"median": 1.0 * rnd}, "work": {"bytes": 8.0},
                "rate": {"bytes_per_s": 8.0 / rnd}, "validation": {"pass": passed, "detail": f"round {rnd}"},
                "workers": {"accounting": "on", "count": 2, "cause": f"round {rnd}'s"}}

    pooled = {"records": [0, 1], "rounds": 2, "time_s": {"median": 1.5}, "rate": {"bytes_per_s": 8 / 1.5},
              "inner": 1, "unstable": "rounds differ by 100%, over 10%"}
    (ok,) = pool_rounds([rec(1), rec(2)], [pooled], "run")
    assert ok["status"] == "ok" and ok["reps_s"] == [1.0, 2.0] and ok["rate"] == pooled["rate"]
    assert ok["time_s"] == {"median": 1.5} and ok["unstable"] == pooled["unstable"] and ok["rounds"] == 2
    assert "workers" not in ok, "workers the run could not pool are not round 1's"
    assert [r["round"] for r in ok["round_records"]] == [1, 2] and "round" not in ok
    (bad,) = pool_rounds([rec(1), rec(2, passed=False), rec(3, status="error")],
                         [{"records": [0, 1, 2], "rounds": 3, "failed": 1}], "run")
    assert bad["validation"] == {"pass": False, "detail": "round 2"} and bad["rounds"] == 3
    plain = {k: v for k, v in rec(1).items() if k != "round"}
    assert pool_rounds([plain, plain], None, "run") == [plain, plain]  # a run without rounds is left alone


@pytest.mark.parametrize("pooled, says", [
    (None, "`parlab migrate` on the run adds them"),
    ("x", "'pooled' must be a list"),
    ([{"records": [0, 5], "rounds": 2, "time_s": {}}], "'records' must list indexes of records (0 to 2)"),
    ([{"records": [0, True], "rounds": 2, "time_s": {}}], "'records' must list indexes"),
    ([{"records": [0, 1], "rounds": 2}], "neither a failed round nor its pooled time_s"),
    ([{"records": [0, 1], "rounds": 2, "failed": 2}], "its failed round, record 2, is not one of its records"),
    ([{"records": [0, 1], "rounds": 2, "time_s": {}}, {"records": [1], "rounds": 1, "time_s": {}}],
     "record 1 is pooled twice"),
    ([{"records": [0, 2], "rounds": 2, "time_s": {}}], "names record 2, which is of no round"),
    ([{"records": [0], "rounds": 1, "time_s": {}}], "record 1 is of round 2 but in no entry of 'pooled'"),
])
def test_a_pooled_list_that_does_not_cover_the_rounds_is_refused(pooled, says):
    """`pooled` comes from a file: it must name each record of a round once, and nothing else."""
    from analysis.records import InputError, pool_rounds
    records = [{"kernel": "copy", "round": 1}, {"kernel": "copy", "round": 2}, {"kernel": "copy"}]
    with pytest.raises(InputError, match="^run: ") as e:
        pool_rounds(records, pooled, "run")
    assert says in str(e.value)


def test_a_renamed_suite_runs_under_its_old_name_with_a_note(parlab_bin):
    # `peers` became `libraries` when "peer" came to mean only an external program (BabelStream):
    # the old name still plans the same measurements, and says the new name in one line.
    new = run(parlab_bin, "run", "libraries", "--dry-run")
    old = run(parlab_bin, "run", "peers", "--dry-run")
    assert new.returncode == 0 and old.returncode == 0, old.stderr

    def plan(stdout):
        # The warning on a loaded machine quotes the load average read as each command started,
        # which moves between the two: the plan is the rest.
        out, skipping = [], False
        for line in stdout.splitlines():
            skipping = line.startswith("warning: thread counts") or (skipping and line.startswith(" "))
            if not skipping:
                out.append(line)
        return out

    assert plan(old.stdout) == plan(new.stdout) and "plan of suite 'libraries'" in new.stdout
    notes = [line for line in old.stderr.splitlines() if "'peers' is now called 'libraries'" in line]
    assert len(notes) == 1 and "is now called" not in new.stderr


def test_a_runs_messages_keep_within_the_terminal(tmp_path, parlab_bin):
    """A warning that names a long path (an interpreter binary that is not there) is wrapped to
    100 columns under its lead, the path whole and named once."""
    missing = str(tmp_path / ("d" * 40) / ("e" * 40) / "parlab")
    suite = tmp_path / "one.json"
    suite.write_text(json.dumps({"name": "one", "experiments": [
        {"kernel": "pi", "backends": ["serial"], "threads": "1", "sizes": ["2^12"], "interpreters": "all"}]}))
    env = {**os.environ, "PARLAB_INTERPRETERS": missing, "COLUMNS": "100"}
    res = run(parlab_bin, "run", str(suite), "-r", "1", "--no-report", "--no-ceilings", "--out", str(tmp_path / "o"),
              env=env)
    assert res.returncode == 0, res.stderr
    for line in res.stderr.splitlines():  # only a word too long for any line (a path) passes 100
        assert len(line) <= 100 or max(len(w) for w in line.split()) > 50, line
    (warning,) = [m for m in messages(res.stderr) if "interpreter not measured" in m]
    assert warning.startswith("parlab: warning: interpreter not measured: ") and warning.count(missing) == 1, warning
    assert "scripts/build-python-ft.sh" in warning
