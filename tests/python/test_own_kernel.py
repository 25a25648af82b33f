"""A person's Python kernel from a file (`parlab run -k path/to/file.py`): the hostile files each
get their own clear refusal (exit 2, nothing written) or FAILED record (exit 1, the other records
kept), and a good kernel gives the one-worker result bit for bit on every executor, thread count
and size. Small sizes and few repetitions: the whole file runs in well under a minute on 2 cores."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, run_dir_of

sys.path.insert(0, os.path.join(ROOT, "embed", "workloads"))
import parlab_ownkernel  # noqa: E402 (after the path): the runners, driven directly for size 0

# The executors every build with the embedded interpreter has, and dask.delayed, which is
# unavailable with the reason where Dask is not importable.
EXECUTORS = "py-pure-threads,py-thread-pool,py-processes,py-dask-delayed"

GOOD = '''
import math

WORK = {"bytes": 0, "flops": 3}


def chunk(lo, hi, seed):
    s = 0.0
    for i in range(lo, hi):
        s += math.sin(i * 0.37 + seed)
    return s, hi - lo
'''


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def parlab(parlab_bin, tmp_path, *args, timeout=120):
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([parlab_bin, "run", "--out", str(tmp_path / "out"), "--no-report", "--summary", "none",
                           "--quiet", *args], capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=str(tmp_path))


def records(tmp_path):
    with open(os.path.join(run_dir_of(str(tmp_path / "out")), "results.json")) as f:
        return json.load(f)["records"]


def metric(r, name):
    return r["metrics"][name]


# ---------------------------------------------------------------- refused before anything is written
@pytest.mark.parametrize("name, text, expected", [
    ("missing.py", None, "does not exist"),
    ("syntax.py", "def chunk(lo, hi, seed)\n    return 1\n", "does not parse: line 1"),
    ("nochunk.py", "open('ran-at-check', 'w').close()\n\ndef work(lo, hi, seed):\n    return 1\n",
     "defines no function chunk()"),
])
def test_refused_before_anything_is_written(parlab_bin, tmp_path, name, text, expected):
    path = str(tmp_path / name) if text is None else write(tmp_path, name, text)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-pure-threads", "-t", "1", "--size", "8")
    assert p.returncode == 2, p.stderr
    assert expected in p.stderr and name in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "ran-at-check").exists(), "the file was executed while it was checked"


# ---------------------------------------------------------------- the kernel's own faults
def test_faults_fail_their_records_and_keep_the_others(parlab_bin, tmp_path):
    good = write(tmp_path, "good.py", GOOD)
    third = write(tmp_path, "third.py", '''
        CHUNK = 4


        def chunk(lo, hi, seed):
            if lo == 8:
                raise ValueError("no third chunk")
            return hi - lo
        ''')
    string = write(tmp_path, "string.py", "def chunk(lo, hi, seed):\n    return 'many'\n")
    broken = write(tmp_path, "broken.py", "import math\nx = 1 / 0\n\ndef chunk(lo, hi, seed):\n    return 1\n")
    p = parlab(parlab_bin, tmp_path, "-k", ",".join([good, third, string, broken]),
               "-b", "py-pure-threads,py-processes", "-t", "1,2", "--size", "16", "--reps", "2")
    assert p.returncode == 1, p.stderr
    recs = records(tmp_path)
    by_file = {}
    for r in recs:
        by_file.setdefault(os.path.basename(r["kernel_file"]), []).append(r)
    # The kernel's name is the path as given; written, an absolute one keeps its last component.
    assert {r["kernel"] for r in recs} == {"…/good.py", "…/third.py", "…/string.py", "…/broken.py"}
    assert len(recs) == 16 and all(len(v) == 4 for v in by_file.values())
    assert all(r["status"] == "ok" for r in by_file["good.py"]), by_file["good.py"]
    for r in by_file["third.py"]:
        assert r["status"] == "error", r
        assert "chunk(8, 12, seed) raised ValueError: no third chunk" in r["reason"], r["reason"]
        assert "third.py, line 7" in r["reason"], r["reason"]
    for r in by_file["string.py"]:
        assert "returned str 'many', not a number or a tuple of numbers" in r["reason"], r["reason"]
        assert "line 1" in r["reason"]
    for r in by_file["broken.py"]:
        assert "importing the kernel failed: ZeroDivisionError: division by zero" in r["reason"], r["reason"]
        assert "broken.py, line 2" in r["reason"], r["reason"]
    assert "FAILED" in p.stderr


def test_a_chunk_that_never_returns_is_ended_by_the_timeout(parlab_bin, tmp_path):
    good = write(tmp_path, "good.py", GOOD)
    hang = write(tmp_path, "hang.py", "def chunk(lo, hi, seed):\n    while True:\n        pass\n")
    p = parlab(parlab_bin, tmp_path, "-k", f"{hang},{good}", "-b", "py-pure-threads,py-processes",
               "-t", "2", "--size", "8", "--reps", "1", "--timeout", "5")
    assert p.returncode == 1, p.stderr
    recs = records(tmp_path)
    hung = [r for r in recs if r["kernel_file"].endswith("hang.py")]
    assert len(hung) == 2 and all(r["status"] == "error" and "time limit of 5 s (--timeout)" in r["reason"] for r in hung), hung
    assert all(r["status"] == "ok" for r in recs if r["kernel_file"].endswith("good.py"))


def test_resume_refuses_a_file_edited_since(parlab_bin, tmp_path):
    path = write(tmp_path, "kernel.py", GOOD)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-pure-threads", "-t", "1", "--size", "8", "--reps", "1")
    assert p.returncode == 0, p.stderr
    run = run_dir_of(str(tmp_path / "out"))
    (r,) = records(tmp_path)
    # The file relative to the run's directory: a resume from anywhere finds it, and the written
    # run names no machine folder.
    assert os.path.normpath(os.path.join(run, r["kernel_file"])) == path
    assert r["kernel_sha256"] == parlab_ownkernel.file_sha256(path)
    before = open(os.path.join(run, "results.json")).read()
    with open(path, "a") as f:
        f.write("\n# edited\n")
    p = subprocess.run([parlab_bin, "run", "--resume", run], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert "--resume: kernel file" in p.stderr and "was edited since" in p.stderr, p.stderr
    assert "kernel.py" in p.stderr
    assert open(os.path.join(run, "results.json")).read() == before


def test_resume_from_elsewhere_finds_the_file_by_its_records(parlab_bin, tmp_path):
    """A run's written names are portable ("…/kernel.py"): the resume finds the file where its
    records' kernel_file says, relative to the run's directory, from any working directory."""
    path = write(tmp_path, "kernel.py", GOOD)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-pure-threads", "-t", "1,2", "--size", "9", "--reps", "1")
    assert p.returncode == 0, p.stderr
    run = run_dir_of(str(tmp_path / "out"))
    with open(os.path.join(run, "results.json")) as f:
        doc = json.load(f)
    doc["records"], doc["status"] = doc["records"][:1], "incomplete"
    with open(os.path.join(run, "results.json"), "w") as f:
        json.dump(doc, f)
    p = subprocess.run([parlab_bin, "run", "--resume", run, "--no-report", "--summary", "none"],
                       capture_output=True, text=True, cwd="/")
    assert p.returncode == 0, p.stderr
    first, second = records(tmp_path)
    assert second["status"] == "ok" and metric(second, "result") == metric(first, "result")


def test_the_run_directory_is_the_working_directory(parlab_bin, tmp_path):
    path = write(tmp_path, "cwd.py", """
        import os

        CHUNK = 1


        def chunk(lo, hi, seed):
            return float(os.path.isfile("results.json"))
        """)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-pure-threads,py-processes", "-t", "2", "--size", "3",
               "--reps", "1")
    assert p.returncode == 0, p.stderr
    assert [metric(r, "result") for r in records(tmp_path)] == [3.0, 3.0]


# ---------------------------------------------------------------- a kernel file named in a suite file
def suite_with_kernel(tmp_path, kernel, text=GOOD):
    """tmp_path/mine/suite.json naming `kernel` (relative to mine/), with mine/kernels/good.py."""
    (tmp_path / "mine" / "kernels").mkdir(parents=True)
    if text is not None:
        write(tmp_path / "mine" / "kernels", "good.py", text)
    suite = {"name": "mine", "reps": 2, "experiments": [
        {"kernel": kernel, "backends": ["py-pure-threads", "py-processes"], "threads": "1,2", "sizes": [3000]}]}
    (tmp_path / "mine" / "suite.json").write_text(json.dumps(suite))
    return "mine/suite.json"


def test_a_suite_file_runs_its_kernel_file_as_k_does(parlab_bin, tmp_path):
    """The suite's "kernels/good.py" is found beside the suite (tmp_path/kernels/ does not exist),
    and named as -k names that file: the same records, bit for bit, with kernel_file and hash."""
    suite = suite_with_kernel(tmp_path, "kernels/good.py")
    p = parlab(parlab_bin, tmp_path, suite)
    assert p.returncode == 0, p.stderr
    from_suite = records(tmp_path)
    os.rename(tmp_path / "out", tmp_path / "out-suite")
    p = parlab(parlab_bin, tmp_path, "-k", "mine/kernels/good.py", "-b", "py-pure-threads,py-processes",
               "-t", "1,2", "--size", "3000", "--reps", "2")
    assert p.returncode == 0, p.stderr
    from_k = records(tmp_path)
    path = str(tmp_path / "mine" / "kernels" / "good.py")
    key = ("kernel", "backend", "threads", "size", "seed", "kernel_file", "kernel_sha256", "family", "status")
    assert [[r[k] for k in key] for r in from_suite] == [[r[k] for k in key] for r in from_k]
    assert len(from_suite) == 4 and all(r["status"] == "ok" for r in from_suite), from_suite
    assert {r["kernel"] for r in from_suite} == {"mine/kernels/good.py"}
    assert all(r["kernel_sha256"] == parlab_ownkernel.file_sha256(path) for r in from_suite)
    assert [metric(r, "result") for r in from_suite] == [metric(r, "result") for r in from_k]


@pytest.mark.parametrize("kernel, text, expected", [
    ("kernels/missing.py", GOOD, "does not exist"),
    ("kernels/good.py:work", GOOD, "defines no function work()"),
    ("kernels/good.py", "def work(lo, hi, seed):\n    return 1\n", "defines no function chunk()"),
])
def test_a_suite_naming_a_bad_kernel_file_is_refused(parlab_bin, tmp_path, kernel, text, expected):
    suite = suite_with_kernel(tmp_path, kernel, text)
    p = parlab(parlab_bin, tmp_path, suite)
    assert p.returncode == 2, p.stderr
    path = kernel.split(":")[0]
    assert f"suite file '{suite}' experiment 1 kernel '{kernel}'" in p.stderr, p.stderr
    assert expected in p.stderr and str(tmp_path / "mine" / path) in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


def test_a_suite_given_by_name_names_no_kernel_file(parlab_bin, tmp_path):
    """A suite of the suites directory is found by name, not beside a person's kernels."""
    suite_with_kernel(tmp_path, "kernels/good.py")
    p = subprocess.run([parlab_bin, "run", "suite", "--out", str(tmp_path / "out"), "--no-report"],
                       capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(os.environ, PARLAB_SUITES_DIR=str(tmp_path / "mine")))
    assert p.returncode == 2, p.stderr
    assert "only a suite given by path may name a kernel file" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


def test_k_filters_a_suite_naming_a_kernel_file_by_its_planned_name(parlab_bin, tmp_path):
    """-k with a suite filters it, as it does today: by the name the plan gives the file."""
    suite = suite_with_kernel(tmp_path, "kernels/good.py")
    p = parlab(parlab_bin, tmp_path, suite, "-k", "mine/kernels/good.py", "--dry-run")
    assert p.returncode == 0, p.stderr
    assert "mine/kernels/good.py" in p.stdout, p.stdout
    p = parlab(parlab_bin, tmp_path, suite, "-k", "pi", "--dry-run")
    assert p.returncode == 2 and "has no experiment of kernel 'pi'" in p.stderr, p.stderr


def test_resume_of_a_suite_run_finds_its_file_and_refuses_it_edited(parlab_bin, tmp_path):
    suite = suite_with_kernel(tmp_path, "kernels/good.py")
    p = parlab(parlab_bin, tmp_path, suite)
    assert p.returncode == 0, p.stderr
    run = run_dir_of(str(tmp_path / "out"))
    results = os.path.join(run, "results.json")
    with open(results) as f:
        doc = json.load(f)
    doc["records"], doc["status"] = doc["records"][:1], "incomplete"
    with open(results, "w") as f:
        json.dump(doc, f)
    cut = open(results).read()
    resume = [parlab_bin, "run", "--resume", run, "--no-report", "--summary", "none"]
    # From elsewhere: the file is found by the records' kernel_file, relative to the run's directory.
    p = subprocess.run(resume, capture_output=True, text=True, cwd="/")
    assert p.returncode == 0, p.stderr
    recs = records(tmp_path)
    assert len(recs) == 4 and all(r["status"] == "ok" for r in recs), recs
    with open(results, "w") as f:
        f.write(cut)
    with open(tmp_path / "mine" / "kernels" / "good.py", "a") as f:
        f.write("\n# edited\n")
    p = subprocess.run(resume, capture_output=True, text=True, cwd="/")
    assert p.returncode == 2, p.stderr
    assert "--resume: kernel file" in p.stderr and "was edited since" in p.stderr, p.stderr
    assert open(results).read() == cut


# ---------------------------------------------------------------- determinism
def test_a_good_kernel_is_the_one_worker_result_everywhere(parlab_bin, tmp_path):
    path = write(tmp_path, "good.py", GOOD)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", EXECUTORS, "-t", "1,2,3", "--size", "1,37", "--reps", "2")
    assert p.returncode == 0, p.stderr
    recs = records(tmp_path)
    assert len(recs) == 4 * 3 * 2
    no_dask = [r for r in recs if r["status"] == "unavailable"]
    assert all(r["backend"] == "py-dask-delayed" and "Dask is not importable" in r["reason"] for r in no_dask)
    recs = [r for r in recs if r not in no_dask]
    kernel = parlab_ownkernel.Kernel(path)
    for n in (1, 37):
        at_n = [r for r in recs if r["size"] == n]
        assert {r["backend"] for r in at_n} | {r["backend"] for r in no_dask} == set(EXECUTORS.split(","))
        seed = at_n[0]["seed"]
        expected = kernel.combine([kernel.call(lo, hi, seed) for lo, hi in kernel.ranges(n)])
        for r in at_n:
            assert r["status"] == "ok", r
            assert metric(r, "result") == expected[0], (r["backend"], r["threads"], metric(r, "result"), expected)
            assert metric(r, "result_runs_differing") == 0
            assert "bit for bit" in r["validation"]["detail"]
            assert r["work"]["flops"] == 3 * n
    threaded = [r for r in recs if r["backend"] == "py-pure-threads"]
    assert all("gil_wait_share" in r["metrics"] for r in threaded)
    # The threads' records measured the machine beside them; the process pool's, whose workers no
    # ledger accounts, say why they did not (the table's footer counts them so, not as old records).
    assert all("window_s" in r["machine"] and "unmeasured" not in r["machine"] for r in threaded)
    procs = [r for r in recs if r["backend"] == "py-processes"]
    assert procs and all("processes of its own" in r["machine"]["unmeasured"] and "others" not in r["machine"]
                         for r in procs)


def test_sub_interpreters_give_the_one_worker_result_or_say_why(parlab_bin, tmp_path):
    """py-subinterp loads the file in each worker's interpreter and combines the partials it sends
    back as bytes; on a CPython without a per-interpreter GIL (before 3.12) it is unavailable."""
    path = write(tmp_path, "good.py", GOOD)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-subinterp", "-t", "1,2,3", "--size", "1,37", "--reps", "2")
    if p.returncode == 2:  # before 3.12 nothing in the plan can run, and parlab says why
        assert "py-subinterp: per-interpreter GIL needs Python >= 3.12" in p.stderr, p.stderr
        return
    assert p.returncode == 0, p.stderr
    recs = records(tmp_path)
    assert len(recs) == 3 * 2
    kernel = parlab_ownkernel.Kernel(path)
    for r in recs:
        n, seed = r["size"], r["seed"]
        ranges = kernel.ranges(n)
        expected = kernel.combine([kernel.call(lo, hi, seed) for lo, hi in ranges])
        assert r["status"] == "ok", r
        assert metric(r, "result") == expected[0], (r["threads"], n, metric(r, "result"), expected)
        assert "bit for bit" in r["validation"]["detail"]
        # Each chunk is one accounted chunk of the worker that took it.
        assert sum(r["workers"]["chunks"]) == pytest.approx(len(ranges)), r["workers"]


def test_dask_distributed_gives_the_one_worker_result(parlab_bin, tmp_path):
    """One point: a LocalCluster takes seconds to start, the others cover the thread counts."""
    path = write(tmp_path, "good.py", GOOD)
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-dask-distributed", "-t", "3", "--size", "37",
               "--reps", "1")
    assert p.returncode == 0, p.stderr
    (r,) = records(tmp_path)
    if r["status"] == "unavailable":
        pytest.skip(r["reason"])
    kernel = parlab_ownkernel.Kernel(path)
    expected = kernel.combine([kernel.call(lo, hi, r["seed"]) for lo, hi in kernel.ranges(37)])
    assert r["status"] == "ok" and metric(r, "result") == expected[0], r


@pytest.mark.parametrize("kind", ["threads", "thread-pool", "processes"])
def test_size_zero_and_odd_sizes_on_every_runner(tmp_path, kind):
    """Size 0 (no chunks: the default combine's 0) and odd sizes at 1..3 workers, driven directly:
    the command line's --size starts at 1."""
    path = write(tmp_path, "good.py", GOOD)
    kernel = parlab_ownkernel.Kernel(path)
    for n in (0, 1, 7):
        want = kernel.combine([kernel.call(lo, hi, 5) for lo, hi in kernel.ranges(n)])
        for workers in (1, 2, 3):
            r = parlab_ownkernel.make(kind, path, "chunk", "", 5, n, workers, RuntimeError)
            try:
                assert r.run() == parlab_ownkernel.as_floats(want)
                assert r.verdict()["differing"] == 0
            finally:
                r.close()


def test_a_racing_kernel_is_reported_with_its_spread(parlab_bin, tmp_path):
    path = os.path.join(ROOT, "examples", "python-race", "kernel.py")
    p = parlab(parlab_bin, tmp_path, "-k", path, "-b", "py-pure-threads", "-t", "1,3", "--size", "20000",
               "--reps", "3")
    assert p.returncode == 1, p.stderr
    one, three = sorted(records(tmp_path), key=lambda r: r["threads"])
    assert one["status"] == "ok" and metric(one, "result") == 20000
    assert three["status"] != "ok"
    # Lost updates may land on one wrong total every run (the GIL switches at the same places):
    # then the runs agree with each other but not with one worker, and the detail says state is
    # shared between chunks; where they disagree, that the kernel races. Either names the cause.
    assert re.search(r"the kernel races|state shared between chunks", three["validation"]["detail"]), \
        three["validation"]
    assert metric(three, "result_runs_differing") >= 1 and metric(three, "result_min") < 20000


def test_roof_needs_work_and_says_so(parlab_bin, tmp_path):
    path = write(tmp_path, "plain.py", "def chunk(lo, hi, seed):\n    return hi - lo\n")
    p = parlab(parlab_bin, tmp_path, "-k", f"{path}:chunk", "-b", "py-pure-threads", "-t", "1", "--size", "8",
               "--reps", "1")
    assert p.returncode == 0, p.stderr
    (r,) = records(tmp_path)
    assert r["kernel"] == "…/plain.py:chunk"
    if "limit" in r:
        assert "declares no WORK" in r["limit"]["reason"], r["limit"]
