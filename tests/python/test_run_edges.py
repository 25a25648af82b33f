"""The edges of `parlab run` and the CLI found by a sweep of hostile inputs and a newcomer's walk: runs that
start in the same second, numbers that once spun forever, host names that leave --out, a report
that fails after a complete run, an --out that reads as an option, a file-size limit, a dry run
of a plan that cannot run, the `plot` alias, and the width of the help in an 80-column terminal.
Each command runs under a time limit, so a hang fails instead of stalling CI."""
import fcntl
import glob
import json
import os
import pty
import select
import shutil
import struct
import subprocess
import termios
import time

import pytest
from conftest import run_dir_of

LIMIT_S = 60
TINY = ["-k", "pi", "-b", "serial", "-n", "2^14", "-r", "1", "--no-report", "-q"]


def run(parlab_bin, *args, cwd=None, env=None, timeout=LIMIT_S):
    return subprocess.run([parlab_bin, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def runs_under(out):
    """Every run directory under a results root (links such as `latest` left out)."""
    return sorted(d for d in glob.glob(os.path.join(out, "*", "*")) if os.path.isdir(d) and not os.path.islink(d))


# ------------------------------------------------------------------------------ runs that collide
def test_runs_started_together_never_share_a_directory(tmp_path, parlab_bin):
    """Six runs at once into one --out: with one-second stamps most share a second. Each gets a
    directory of its own, and each results.json holds its own run (its seed), whole."""
    out = str(tmp_path / "out")
    procs = [subprocess.Popen([parlab_bin, "run", *TINY, "--seed", str(100 + i), "--out", out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(6)]
    for p in procs:
        _, err = p.communicate(timeout=LIMIT_S)
        assert p.returncode == 0, err
    dirs = runs_under(out)
    assert len(dirs) == 6, dirs
    seeds = set()
    for d in dirs:
        doc = json.load(open(os.path.join(d, "results.json")))
        assert doc["status"] == "complete" and len(doc["records"]) == 1
        seeds.add(doc["records"][0]["seed"])
    assert seeds == {100 + i for i in range(6)}


# ------------------------------------------------------------------------ numbers that once spun
@pytest.mark.parametrize("args", [
    ["run", "-k", "pi", "-b", "serial", "-n", "0e99999999999999999", "--dry-run"],
    ["run", "-k", "pi", "-b", "serial", "-n", "2^14", "--seed", "0e18446744073709551615", "--dry-run"],
    ["run", "-k", "pi", "-b", "serial", "-n", "1e99999999999999999", "--dry-run"],
    ["run", "-k", "pi", "-b", "serial", "-n", "2^14", "-r", "0e99999999999", "--dry-run"],
    ["pi", "-b", "serial", "-n", "0e99999999999999999"],
    ["run", "-k", "pi", "-b", "serial", "-n", "2^14", "--timeout", "1e99999999999999", "--dry-run"],
], ids=["size", "seed", "size-overflow", "reps", "pi-samples", "timeout"])
def test_exponent_forms_answer_at_once(parlab_bin, args):
    started = time.monotonic()
    res = run(parlab_bin, *args, timeout=20)
    assert time.monotonic() - started < 20
    assert res.returncode in (0, 2), res.stderr
    if res.returncode == 2:
        assert "invalid value" in res.stderr or "expected" in res.stderr, res.stderr


def test_a_suite_with_a_zero_mantissa_size_answers_at_once(tmp_path, parlab_bin):
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps({"name": "s", "experiments": [
        {"study": "x", "kernel": "pi", "backends": ["serial"], "threads": "1", "sizes": ["0e99999999999999999"]}]}))
    res = run(parlab_bin, "run", str(suite), "--dry-run", timeout=20)
    assert res.returncode in (0, 2), res.stderr


# ------------------------------------------------------------------------------------ host names
@pytest.mark.parametrize("host", ["..", ".", "a/b"])
def test_a_host_name_never_leaves_out(tmp_path, parlab_bin, host):
    """In a UTS namespace of its own (root, as CI is), the machine is named `..`, `.` or `a/b`: the
    run and its `latest` link stay under --out, in a folder of the name's slug, and the context
    keeps the name itself."""
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is missing: scripts/install-deps.sh installs it")
    out = tmp_path / "deep" / "out"
    script = f'hostname -- "$1" 2>/dev/null || printf %s "$1" > /proc/sys/kernel/hostname; exec "$2" run {" ".join(TINY)} --out "$3"'
    res = subprocess.run(["unshare", "--uts", "sh", "-c", script, "sh", host, parlab_bin, str(out)],
                         capture_output=True, text=True, timeout=LIMIT_S)
    assert res.returncode == 0, res.stderr
    assert sorted(os.listdir(tmp_path / "deep")) == ["out"]  # nothing beside --out
    run_dir = run_dir_of(str(out))
    assert os.path.dirname(os.path.dirname(run_dir)) == str(out)
    # The context keeps the name as gethostname gave it, its characters outside [A-Za-z0-9._-] as '_'.
    assert json.load(open(os.path.join(run_dir, "results.json")))["context"]["host"] == host.replace("/", "_")


# ------------------------------------------------------------------------------- exit codes
def test_an_out_that_reads_as_an_option_is_a_folder(tmp_path, parlab_bin):
    res = run(parlab_bin, "run", *[a for a in TINY if a != "--no-report"], "--out=-dash", cwd=tmp_path, timeout=180)
    assert res.returncode == 0, res.stderr
    assert os.path.exists(os.path.join(run_dir_of(str(tmp_path / "-dash")), "report.html"))


def test_a_report_that_fails_after_a_complete_run_exits_4(tmp_path, parlab_bin):
    """The measurement stands: exit 4, never 1 (a failed measurement's), the run complete."""
    out = tmp_path / "out"
    # A plot script that dies: an unknown MPLBACKEND no longer does, the report draws with Agg.
    dying = tmp_path / "dying_plot.py"
    dying.write_text("import sys\nprint('plot.py: internal error, please report: a test', file=sys.stderr)\nsys.exit(3)\n")
    res = run(parlab_bin, "run", *[a for a in TINY if a != "--no-report"], "--out", str(out),
              env={"PARLAB_PLOT_SCRIPT": str(dying)}, timeout=180)
    assert res.returncode == 4, res.stderr
    assert json.load(open(os.path.join(run_dir_of(str(out)), "results.json")))["status"] == "complete"


def test_a_file_size_limit_is_exit_2_naming_the_file_with_nothing_partial(tmp_path, parlab_bin):
    """Under `ulimit -f`, SIGXFSZ once killed parlab (153) mid-write: now the write fails, the
    temporary file goes, and the message names results.json."""
    out = tmp_path / "out"
    res = subprocess.run(["bash", "-c", 'ulimit -f 4; exec "$0" run "$@"', parlab_bin, *TINY, "--out", str(out)],
                         capture_output=True, text=True, timeout=LIMIT_S)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert "results.json" in res.stderr and "File too large" in res.stderr, res.stderr
    left = [p for p in glob.glob(str(out / "**" / "*"), recursive=True) if os.path.isfile(p)]
    assert not [p for p in left if ".tmp." in p], left
    assert not [p for p in left if p.endswith("results.json")], left


def test_a_dry_run_of_nothing_measurable_exits_as_the_run_would(parlab_bin):
    listing = run(parlab_bin, "list", "backends").stdout
    if "cuda" in listing and "cuda  " in listing and "unavailable" not in listing.split("cuda", 1)[1].splitlines()[0]:
        pytest.skip("a GPU is here: -b cuda can run")
    res = run(parlab_bin, "run", "-k", "pi", "-b", "cuda", "--dry-run")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "nothing in this plan can be measured here" in res.stdout
    assert run(parlab_bin, "run", *TINY, "--dry-run").returncode == 0


# ------------------------------------------------------------------------------------- the CLI
def test_plot_is_report(tmp_path, parlab_bin):
    out = tmp_path / "out"
    assert run(parlab_bin, "run", *TINY, "--out", str(out)).returncode == 0
    res = run(parlab_bin, "plot", run_dir_of(str(out)), "--summary", "none", timeout=180)
    assert res.returncode == 0, res.stderr
    assert os.path.exists(os.path.join(run_dir_of(str(out)), "report.html"))
    assert "unknown command" in run(parlab_bin, "plto", "x").stderr


def _in_terminal(argv, columns, rows=50):
    """argv's output as a terminal of `columns` shows it (COLUMNS unset, as an interactive shell
    leaves it): a pseudo-terminal of that size."""
    pid, fd = pty.fork()
    if pid == 0:  # the child, on the terminal (fd 0-2; pytest's capture replaced sys.stdout)
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    chunks, deadline = [], time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    os.waitpid(pid, 0)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["list"]], ids=["help", "run-help", "list"])
def test_an_80_column_terminal_without_columns_gets_80_column_lines(parlab_bin, args):
    text = _in_terminal([parlab_bin, *args], 80)
    lines = text.splitlines()
    assert len(lines) > 3, text
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]


@pytest.mark.parametrize("backend", ["py-cupy", "py-torch", "cuda"])
def test_list_and_a_dry_run_agree_on_a_gpu_backend(parlab_bin, backend):
    """Availability is decided once: a GPU backend `list` calls unavailable is one a dry run cannot
    measure (exit 2), and one it calls available is planned (py-cupy and py-torch were listed
    available on a machine without a GPU, then recorded unavailable by the run)."""
    listing = run(parlab_bin, "list", "backends", env={"COLUMNS": "1000"}).stdout
    (line,) = [l for l in listing.splitlines() if l.split()[:1] == [backend]]
    listed_available = line.split()[2] == "available"
    dry = run(parlab_bin, "run", "-k", "pi", "-b", backend, "-n", "2^20", "--dry-run")
    assert (dry.returncode == 0) == listed_available, (line, dry.stdout, dry.stderr)
