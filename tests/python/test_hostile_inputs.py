"""Hostile inputs: whatever file, pipe, signal or environment a user (or an accident) hands parlab,
it answers with the contract's exit code (docs/design.md, "Failure semantics") and a message, and
nothing written before is lost or changed. Every case names its surface, its input and the code
it must give; each runs under a time limit, so a hang fails instead of stalling CI.

The file kinds are given to every reader of JSON (a suite, a run to resume, a run to migrate,
compare's and report's runs, the ceilings cache) and, where they apply, to the hostfile reader."""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from conftest import FIXTURES, run_dir_of

LIMIT_S = 120  # per command: a FIFO or a device that is waited on fails here instead of hanging CI


# ------------------------------------------------------------------------------------------------
# Hostile files: name -> a function that makes one at `path` (or leaves it missing).

def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


KINDS = {
    "missing": lambda p: None,
    "directory": lambda p: os.mkdir(p),
    "fifo": lambda p: os.mkfifo(p),
    "empty": lambda p: _write(p, b""),
    "utf16": lambda p: _write(p, '{"name": "x"}'.encode("utf-16")),
    "binary": lambda p: _write(p, bytes(range(256)) * 16),
    "deep": lambda p: _write(p, b"[" * 200_000),
    "truncated": lambda p: _write(p, b'{"schema": "parlab-results/4", "records": [{"id": 0, '),
    "array": lambda p: _write(p, b"[1, 2, 3]"),
    "number": lambda p: _write(p, b"5"),
    "nan": lambda p: _write(p, b'{"schema": NaN, "records": [Infinity]}'),
    "symlink_loop": lambda p: (os.symlink(p + ".b", p), os.symlink(p, p + ".b")),
    "chardev": lambda p: os.symlink("/dev/zero", p),
}

# Kinds that cannot be a hostfile: these parse as one (a bare word is a host name).
NOT_HOSTFILE_KINDS = {"number", "nan"}


def make(kind, path):
    KINDS[kind](str(path))
    return str(path)


def snapshot(root):
    """Every regular file under root (not following links) and its digest: what a command must not
    change."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p) or not os.path.isfile(p):
                out[p] = "special"
                continue
            with open(p, "rb") as f:
                out[p] = hashlib.sha256(f.read()).hexdigest()
    return out


def run(parlab_bin, args, env=None, cwd=None):
    return subprocess.run([parlab_bin, *args], capture_output=True, timeout=LIMIT_S, cwd=cwd,
                          env={**os.environ, **(env or {})})


def check(r, code, tmp_path, before):
    err = r.stderr.decode("utf-8")  # parlab's messages are UTF-8, whatever it was given
    assert r.returncode == code, (r.returncode, err[-2000:])
    assert "Traceback" not in err and "json.exception" not in err, err[-2000:]
    if code == 2:
        assert err.strip(), "an input error must say what is wrong"
        assert max(len(line) for line in err.splitlines()) < 1200, "a message quotes at most a short value"
    assert snapshot(tmp_path) == before, "a refused input must leave every file as it was"


# ------------------------------------------------------------------------------------------------
# The readers of JSON files.

READERS = ["suite", "resume", "migrate", "compare", "report"]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("reader", READERS)
def test_a_hostile_json_file_is_an_input_error(tmp_path, parlab_bin, reader, kind):
    if reader in ("resume", "report"):
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        target = make(kind, run_dir / "results.json")
        args = {"resume": ["run", "--resume", str(run_dir)], "report": ["report", str(run_dir)]}[reader]
    else:
        target = make(kind, tmp_path / "input.json")
        args = {"suite": ["run", target, "--dry-run"], "migrate": ["migrate", target],
                "compare": ["compare", target, target]}[reader]
    (tmp_path / "sentinel.txt").write_text("written before\n")
    before = snapshot(tmp_path)
    r = run(parlab_bin, args, env={"PARLAB_CEILINGS_QUICK": "1"})
    check(r, 2, tmp_path, before)


@pytest.mark.parametrize("kind", sorted(set(KINDS) - NOT_HOSTFILE_KINDS))
def test_a_hostile_hostfile_is_an_input_error(tmp_path, parlab_bin, kind):
    target = make(kind, tmp_path / "hosts")
    before = snapshot(tmp_path)
    r = run(parlab_bin, ["run", "-k", "pi", "-b", "mpi+serial", "--ranks", "1", "-n", "2^12", "-r", "1",
                         "--hostfile", target, "--dry-run"])
    check(r, 2, tmp_path, before)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_hostile_ceilings_cache_is_measured_again(tmp_path, parlab_bin, kind):
    cache = tmp_path / "cache"
    env = {"PARLAB_CEILINGS_CACHE": str(cache), "PARLAB_CEILINGS_QUICK": "1"}
    first = run(parlab_bin, ["ceilings", "--json"], env=env)
    assert first.returncode == 0, first.stderr.decode()
    (file,) = list(cache.iterdir())
    os.unlink(file)
    make(kind, file)
    r = run(parlab_bin, ["ceilings", "--json"], env=env)
    err = r.stderr.decode("utf-8")
    assert r.returncode == 0, err
    if kind != "missing":
        assert "measuring again" in err, err
    c = json.loads(r.stdout)
    assert c["roofs"] and all(v["value"] > 0 for v in c["roofs"].values())


# Caches that parse but must not be trusted: each is measured again, never used.
BAD_ROOFS = {
    "roof_is_a_number": lambda roof: 5,
    "value_zero": lambda roof: {**roof, "value": 0},
    "value_negative": lambda roof: {**roof, "value": -3.5},
    "value_tiny": lambda roof: {**roof, "value": 1e-300},
    "value_string": lambda roof: {**roof, "value": "fast"},
    "value_missing": lambda roof: {k: v for k, v in roof.items() if k != "value"},
    "unit_missing": lambda roof: {k: v for k, v in roof.items() if k != "unit"},
    "threads_negative": lambda roof: {**roof, "threads": -1},
    "threads_float": lambda roof: {**roof, "threads": 1.5},
}


@pytest.mark.parametrize("fault", sorted(BAD_ROOFS))
def test_a_cache_with_a_wrong_roof_is_measured_again_and_runs_go_on(tmp_path, parlab_bin, fault):
    cache = tmp_path / "cache"
    env = {"PARLAB_CEILINGS_CACHE": str(cache), "PARLAB_CEILINGS_QUICK": "1"}
    assert run(parlab_bin, ["ceilings"], env=env).returncode == 0
    (file,) = list(cache.iterdir())
    doc = json.loads(file.read_text())
    name = sorted(doc["roofs"])[0]
    doc["roofs"][name] = BAD_ROOFS[fault](doc["roofs"][name])
    file.write_text(json.dumps(doc))
    r = run(parlab_bin, ["ceilings"], env=env)
    assert r.returncode == 0 and "measuring again" in r.stderr.decode(), r.stderr.decode()
    # And a run on this machine measures and records, its roofs valid.
    out = tmp_path / "out"
    r = run(parlab_bin, ["run", "-k", "triad", "-b", "serial", "-n", "2^12", "-r", "1", "--out", str(out),
                         "--no-report"], env=env)
    assert r.returncode == 0, r.stderr.decode()
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert [rec["status"] for rec in doc["records"]] == ["ok"]


# ------------------------------------------------------------------------------------------------
# Hostfiles: Open MPI's grammar, the part parlab passes on.

HOSTFILES = {
    "slots_negative": (b"localhost slots=-1\n", 2),
    "slots_word": (b"localhost slots=abc\n", 2),
    "slots_zero": (b"localhost slots=0\n", 2),
    "slots_huge": (b"localhost slots=99999999999\n", 2),
    "unknown_option": (b"localhost cpus=4\n", 2),
    "shell_payload": (b"$(touch /tmp/parlab-pwned) slots=1\n", 2),
    "long_name": (b"h" * 100_000 + b"\n", 2),
    "only_comments": (b"# no host here\n\n   # nor here\n", 2),
    "not_utf8_name": (b"\xff\xfehost\n", 2),
    "valid": (b"localhost slots=2 # this machine\n", 0),
    "valid_max_slots": (b"localhost slots=1 max_slots=4\n", 0),
}


@pytest.mark.parametrize("case", sorted(HOSTFILES))
def test_hostfile_grammar(tmp_path, parlab_bin, case):
    data, code = HOSTFILES[case]
    hosts = tmp_path / "hosts"
    hosts.write_bytes(data)
    before = snapshot(tmp_path)
    r = run(parlab_bin, ["run", "-k", "pi", "-b", "mpi+serial", "--ranks", "1", "-n", "2^12", "-r", "1",
                         "--hostfile", str(hosts), "--dry-run"])
    check(r, code, tmp_path, before)
    assert not os.path.exists("/tmp/parlab-pwned")


# ------------------------------------------------------------------------------------------------
# Resume: an edited plan is refused as the same flags would be (2), never error records.

def _interrupted_run(tmp_path, parlab_bin):
    """A real run directory, made resumable by marking it incomplete and dropping its last record."""
    out = tmp_path / "out"
    r = run(parlab_bin, ["run", "-k", "pi", "-b", "serial", "-n", "2^12,2^13", "-r", "1", "--out", str(out),
                         "--no-report"])
    assert r.returncode == 0, r.stderr.decode()
    d = run_dir_of(out)
    doc = json.load(open(os.path.join(d, "results.json")))
    doc["status"] = "incomplete"
    doc["records"] = doc["records"][:1]
    return d, doc


PLAN_EDITS = {
    "reps_zero": lambda doc: doc["plan"][1].update(reps=0),
    "threads_zero": lambda doc: doc["plan"][1].update(threads=0),
    "threads_negative": lambda doc: doc["plan"][1].update(threads=-4),
    "kernel_bogus": lambda doc: doc["plan"][1].update(kernel="bogus"),
    "backend_bogus": lambda doc: doc["plan"][1].update(backend="bogus"),
    "warmup_negative": lambda doc: doc["plan"][1].update(warmup=-1),
    "threads_list": lambda doc: doc["plan"][1].update(threads=[1]),
    "size_string": lambda doc: doc["plan"][1].update(size="big"),
    "duplicated_record_id": lambda doc: doc["records"].append(dict(doc["records"][0])),
    "record_id_past_plan": lambda doc: doc["records"][0].update(id=7),
    "plan_not_a_list": lambda doc: doc.update(plan={"a": 1}),
    "schema_other": lambda doc: doc.update(schema="parlab-results/99"),
}


@pytest.mark.parametrize("edit", sorted(PLAN_EDITS))
def test_resume_of_an_edited_plan_is_an_input_error(tmp_path, parlab_bin, edit):
    d, doc = _interrupted_run(tmp_path, parlab_bin)
    PLAN_EDITS[edit](doc)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(doc, f)
    before = snapshot(tmp_path)
    r = run(parlab_bin, ["run", "--resume", d])
    check(r, 2, tmp_path, before)
    assert "interrupted" not in r.stderr.decode().lower()


def test_resume_of_an_untouched_interrupted_run_completes(tmp_path, parlab_bin):
    """The positive control of the edits above."""
    d, doc = _interrupted_run(tmp_path, parlab_bin)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(doc, f)
    r = run(parlab_bin, ["run", "--resume", d])
    assert r.returncode == 0, r.stderr.decode()
    done = json.load(open(os.path.join(d, "results.json")))
    assert done["status"] == "complete" and sorted(rec["id"] for rec in done["records"]) == [0, 1]


# ------------------------------------------------------------------------------------------------
# One writer per run directory.

def test_a_second_writer_of_a_live_run_is_refused_naming_the_holder(tmp_path, parlab_bin):
    out = tmp_path / "out"
    # A run long enough to be caught alive: a plan of many short measurements.
    p = subprocess.Popen([parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^22", "-r", "50",
                          "--out", str(out), "--no-report"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (out.exists() and list(out.rglob("results.json"))):
            time.sleep(0.05)
        d = run_dir_of(out)
        r = run(parlab_bin, ["run", "--resume", d])
        err = r.stderr.decode()
        assert r.returncode == 2, err
        assert f"pid {p.pid}" in err, err
    finally:
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=60)
    assert p.returncode in (0, 130)
    # The lock died with its holder: a resume now proceeds.
    r = run(parlab_bin, ["run", "--resume", d])
    assert r.returncode == 0, r.stderr.decode()
    assert not [f for f in os.listdir(d) if ".tmp" in f], os.listdir(d)


# ------------------------------------------------------------------------------------------------
# Pipes: a closed stdout or stderr never kills a measurement.

def test_a_closed_pipe_does_not_kill_the_run(tmp_path, parlab_bin):
    out = tmp_path / "out"
    sh = (f"'{parlab_bin}' run -k pi -b serial,pool -t 1,2 -n 2^14 -r 1 --out '{out}' --no-report 2>&1 | head -c 1;"
          " echo \" ${PIPESTATUS[0]}\"")
    r = subprocess.run(["bash", "-c", sh], capture_output=True, text=True, timeout=LIMIT_S)
    assert r.stdout.split()[-1] == "0", r.stdout
    doc = json.load(open(os.path.join(run_dir_of(out), "results.json")))
    assert doc["status"] == "complete" and len(doc["records"]) == 3


# ------------------------------------------------------------------------------------------------
# Outputs that cannot be written: exit 2 naming the path, nothing partial left.

def test_out_is_a_file(tmp_path, parlab_bin):
    f = tmp_path / "file"
    f.write_text("x")
    before = snapshot(tmp_path)
    r = run(parlab_bin, ["run", "-k", "pi", "-b", "serial", "-n", "2^12", "-r", "1", "--out", str(f), "--no-report"])
    check(r, 2, tmp_path, before)


# ------------------------------------------------------------------------------------------------
# Wrong-typed values echoed short.

def test_a_huge_wrong_typed_suite_value_is_quoted_short(tmp_path, parlab_bin):
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps({"name": "s", "description": "d", "experiments": [
        {"kernel": "pi", "backends": ["serial"], "threads": "1", "sizes": [4096], "study": ["x" * 1_000_000]}]}))
    before = snapshot(tmp_path)
    r = run(parlab_bin, ["run", str(suite), "--dry-run"])
    check(r, 2, tmp_path, before)
    assert len(r.stderr) < 2000


# ------------------------------------------------------------------------------------------------
# A full or a read-only filesystem (tests/python/fakes/small_fs.py mounts one in a mount namespace
# of its own): exit 2 naming the file, and no partial file left (every PNG, SVG and JSON whole,
# no temporary file, no half-made report or empty plots/).

SMALL_FS = os.path.join(os.path.dirname(__file__), "fakes", "small_fs.py")
SIZE_RUN = ["-k", "pi", "-b", "serial", "-n", "2^12", "-r", "1", "--no-ceilings"]
DISK_CASES = {
    "report": ({"pi-scaling": "r"}, ["report", "{mnt}/r"]),
    "compare-html": ({"compare-base": "b", "compare-new": "n"}, ["compare", "{mnt}/b", "{mnt}/n", "--html", "{mnt}/h"]),
    "run": ({}, ["run", *SIZE_RUN, "--out", "{mnt}/o"]),
    "migrate": ({"schema-1": "r"}, ["migrate", "{mnt}/r"]),
}


def in_small_fs(tmp_path, parlab_bin, copy, args, mode):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.fail("a full or read-only filesystem is made as root with unshare(1) (CI runs as root)")
    spec = {"mount": str(tmp_path / "mnt"), "mode": mode, "cmd": [parlab_bin, *args],
            "copy": {os.path.join(FIXTURES, src): dest for src, dest in copy.items()}}
    r = subprocess.run(["unshare", "-m", sys.executable, SMALL_FS, json.dumps(spec)], capture_output=True,
                       timeout=LIMIT_S)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    return json.loads(r.stdout)


@pytest.mark.parametrize("mode", ["full", "readonly"])
@pytest.mark.parametrize("case", sorted(DISK_CASES))
def test_an_output_on_a_full_or_read_only_filesystem(tmp_path, parlab_bin, case, mode):
    copy, args = DISK_CASES[case]
    res = in_small_fs(tmp_path, parlab_bin, copy, args, mode)
    err = res["stderr"]
    assert res["rc"] == 2, (res["rc"], err)
    assert "Traceback" not in err and ("No space left" in err or "Read-only" in err), err
    assert "None" not in err, "the message names the file"
    files = res["files"]
    assert all(f["whole"] for f in files.values()), files
    assert not [p for p in files if ".tmp" in p or "/." in p], files
    assert not [p for p in files if p.endswith("report.html")], files
    # What was there before is all there is (compare's report directory is not left half made).
    inputs = {os.path.join(dest, "results.json") for dest in copy.values()}
    assert set(files) - inputs <= {p for p in files if "/plots/" in p}, files


# ------------------------------------------------------------------------------------------------
# The environment: a variable that names nothing is the environment's error (exit 2), named with
# the variable and what to do.

ENV_CASES = {
    "data-dir-missing-list": ({"PARLAB_DATA_DIR": "{tmp}/nowhere"}, ["list"], "PARLAB_DATA_DIR"),
    "data-dir-missing-run": ({"PARLAB_DATA_DIR": "{tmp}/nowhere"}, ["run", "quick", "--dry-run"], "PARLAB_DATA_DIR"),
    "data-dir-is-a-file": ({"PARLAB_DATA_DIR": "{tmp}/file"}, ["list"], "PARLAB_DATA_DIR"),
    "python-missing-report": ({"PARLAB_PYTHON": "{tmp}/nowhere/python3"}, ["report", "{fx}/pi-scaling"],
                              "PARLAB_PYTHON"),
    "python-missing-compare": ({"PARLAB_PYTHON": "{tmp}/nowhere/python3"},
                               ["compare", "{fx}/compare-base", "{fx}/compare-new"], "PARLAB_PYTHON"),
    "python-not-executable": ({"PARLAB_PYTHON": "{tmp}/file"}, ["report", "{fx}/pi-scaling"], "PARLAB_PYTHON"),
    "plot-script-missing": ({"PARLAB_PLOT_SCRIPT": "{tmp}/nowhere.py"}, ["report", "{fx}/pi-scaling"],
                            "PARLAB_PLOT_SCRIPT"),
    "compare-script-missing": ({"PARLAB_COMPARE_SCRIPT": "{tmp}/nowhere.py"},
                               ["compare", "{fx}/compare-base", "{fx}/compare-new"], "PARLAB_COMPARE_SCRIPT"),
}


@pytest.mark.parametrize("case", sorted(ENV_CASES))
def test_an_environment_variable_naming_nothing(tmp_path, parlab_bin, case):
    env, args, named = ENV_CASES[case]
    (tmp_path / "file").write_text("not a directory, not a program\n")
    fx = tmp_path / "fx"
    shutil.copytree(FIXTURES, fx)
    sub = lambda s: s.replace("{tmp}", str(tmp_path)).replace("{fx}", str(fx))  # noqa: E731
    before = snapshot(tmp_path)
    r = run(parlab_bin, [sub(a) for a in args], env={k: sub(v) for k, v in env.items()})
    check(r, 2, tmp_path, before)
    assert named in r.stderr.decode(), r.stderr.decode()


# ------------------------------------------------------------------------------------------------
# Signals to report and compare: their Python child ends too (it is sent SIGINT), nothing is left
# half written, and the exit code is 130.

def _children(pid):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(p))
            except (OSError, ValueError, IndexError):
                pass
    return out


SIGNAL_CASES = {
    "report": lambda d: ["report", str(d / "r")],
    "compare-html": lambda d: ["compare", str(d / "b"), str(d / "n"), "--html", str(d / "h")],
}


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("case", sorted(SIGNAL_CASES))
def test_a_signal_to_report_or_compare_ends_its_python_child(tmp_path, parlab_bin, case, sig):
    for src, dest in (("reference-this", "r"), ("compare-base", "b"), ("compare-new", "n")):
        shutil.copytree(os.path.join(FIXTURES, src), tmp_path / dest)
    before = snapshot(tmp_path)
    p = subprocess.Popen([parlab_bin, *SIGNAL_CASES[case](tmp_path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        child = []
        while time.monotonic() < deadline and not child and p.poll() is None:
            child = _children(p.pid)
            time.sleep(0.02)
        assert child, "the Python child never started"
        time.sleep(0.3)  # inside the script: importing matplotlib, or drawing
        p.send_signal(getattr(signal, sig))
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, (p.returncode, err.decode()[-2000:])
    assert not os.path.exists(f"/proc/{child[0]}") or _state(child[0]) == "Z", "the Python child outlived parlab"
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before
    # What it finished before the signal is whole: no temporary or half-written file. The signal
    # may come after the script has written everything (0.3 s is enough on a quiet machine: the
    # SIGTERM case once found compare.json in place), so finished outputs are allowed, whole.
    new = set(after) - set(before)
    for path in new:
        assert not os.path.basename(path).startswith(".") and "/.compare-" not in path, path
        if path.endswith(".json"):
            with open(path, encoding="utf-8") as f:
                json.load(f)
    if case == "compare-html":  # all or nothing: report.html in place has compare.json beside it
        h = str(tmp_path / "h")
        assert (os.path.join(h, "report.html") in new) == (os.path.join(h, "compare.json") in new), sorted(new)


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


# ------------------------------------------------------------------------------------------------
# Strict JSON out: no NaN or Infinity in any JSON parlab writes, from any input.

def _strict(text):
    def refuse(c):
        raise ValueError(f"{c} is not JSON")
    return json.loads(text, parse_constant=refuse)


def _extreme_pair(tmp_path):
    """compare-base and compare-new with shares of roof of 1e-308 and 1e308: their ratio is
    infinite."""
    for name, frac in (("base", 1e-308), ("new", 1e308)):
        doc = json.load(open(os.path.join(FIXTURES, f"compare-{name}", "results.json")))
        for r in doc["records"]:
            if r.get("status") == "ok":
                r["limit"] = {"roof": "cpu_imul_all", "value": 1.0, "unit": "muls/s",
                              "attained": frac, "fraction": frac}
                if frac > 1:  # schema 4: a record above its roof says by how much
                    r["limit"]["above_roof"] = "above its roof by a factor of 1e308"
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(doc))
    return str(tmp_path / "base"), str(tmp_path / "new")


def test_compare_json_is_strict_and_names_what_it_could_not_hold(tmp_path, parlab_bin):
    base, new = _extreme_pair(tmp_path)
    r = run(parlab_bin, ["compare", base, new, "--json"])
    assert r.returncode == 0, r.stderr.decode()
    doc = _strict(r.stdout.decode())
    assert doc["non_finite"] and all(x["value"] == "inf" for x in doc["non_finite"]), doc.get("non_finite")
    assert all(doc["records"][int(x["path"].split("[")[1].split("]")[0])]["share_ratio"] is None
               for x in doc["non_finite"] if x["path"].endswith("share_ratio"))


def test_compare_html_writes_strict_json(tmp_path, parlab_bin):
    base, new = _extreme_pair(tmp_path)
    r = run(parlab_bin, ["compare", base, new, "--html", str(tmp_path / "h")])
    assert r.returncode == 0, r.stderr.decode()
    assert _strict((tmp_path / "h" / "compare.json").read_text())["non_finite"]


def test_every_json_a_run_writes_is_strict(tmp_path, parlab_bin):
    """The writers of the C++ side: results.json, the ceilings cache and `ceilings --json`, and
    migrate's output, from a run whose ceilings cache held roofs that overflow a share."""
    cache = tmp_path / "cache"
    env = {"PARLAB_CEILINGS_CACHE": str(cache)}
    r = run(parlab_bin, ["ceilings", "--json"], env=env)
    assert r.returncode == 0, r.stderr.decode()
    _strict(r.stdout.decode())
    (cache_file,) = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs if f.endswith(".json")]
    _strict(open(cache_file).read())
    out = tmp_path / "o"
    r = run(parlab_bin, ["run", "-k", "pi,triad", "-b", "serial", "-n", "2^12", "-r", "1", "--out", str(out),
                         "--no-report"], env=env)
    assert r.returncode == 0, r.stderr.decode()
    d = run_dir_of(out)
    _strict(open(os.path.join(d, "results.json")).read())
    shutil.copytree(os.path.join(FIXTURES, "schema-1"), tmp_path / "m")
    r = run(parlab_bin, ["migrate", str(tmp_path / "m")])
    assert r.returncode == 0, r.stderr.decode()
    _strict((tmp_path / "m" / "results.json").read_text())


# ------------------------------------------------------------------------------------------------
# Links: migrate writes through a symlinked results.json or run directory; the link stays a link.

@pytest.mark.parametrize("link", ["file", "directory"])
def test_migrate_through_a_symlink_migrates_its_target_in_place(tmp_path, parlab_bin, link):
    shutil.copytree(os.path.join(FIXTURES, "schema-1"), tmp_path / "real")
    if link == "file":
        (tmp_path / "run").mkdir()
        os.symlink(tmp_path / "real" / "results.json", tmp_path / "run" / "results.json")
    else:
        os.symlink(tmp_path / "real", tmp_path / "run")
    r = run(parlab_bin, ["migrate", str(tmp_path / "run")])
    assert r.returncode == 0, r.stderr.decode()
    assert os.path.islink(tmp_path / "run" / ("results.json" if link == "file" else ""))
    doc = _strict((tmp_path / "real" / "results.json").read_text())
    assert doc["schema"] == "parlab-results/5"
    assert not [f for f in os.listdir(tmp_path / "real") if ".tmp" in f]


def test_compare_into_a_closed_pipe_keeps_its_exit_code(tmp_path, parlab_bin):
    fx = os.path.join(FIXTURES, "compare-")
    sh = f"'{parlab_bin}' compare '{fx}base' '{fx}new' --json | head -c 1 >/dev/null; echo \" ${{PIPESTATUS[0]}}\""
    r = subprocess.run(["bash", "-c", sh], capture_output=True, text=True, timeout=LIMIT_S)
    assert r.stdout.split()[-1] == "0", (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Broken pipe" not in r.stderr, r.stderr
