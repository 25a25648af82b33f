"""scripts/reproduce-figures.sh: the committed runs' figures and reports drawn again from their
results.json (results/ tracks data only). One small committed run drawn with its progress line
and summary; bad arguments and a missing run refused (exit 2) before anything is drawn; a broken
run reported FAILED while another is drawn (exit 1); an interrupt leaves no partial drawing; and
the headline figures the index (results/runs.json) names: it validates, each entry's run is
committed and draws its figure, each listed file is in results/figures/, and --headlines copies them."""
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "reproduce-figures.sh")
RESULTS = os.path.join(ROOT, "results")


def _load():
    spec = importlib.util.spec_from_file_location("reproduce_figures",
                                                  os.path.join(ROOT, "scripts", "reproduce_figures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rf = _load()


def reproduce(*args, **kw):
    # The wrapper, as a user runs it, with this session's interpreter (it has the analysis's modules).
    env = dict(os.environ, PARLAB_PYTHON=sys.executable)
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, env=env, timeout=120, **kw)


def leftovers(out):
    """Temporary folders of the script (.<run>.partial-*, .<run>.old-*) anywhere under out."""
    return [os.path.join(d, n) for d, dirs, files in os.walk(out) for n in dirs + files
            if re.match(r"\..*\.(partial|old)-", n)]


def processes_naming(text):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass  # ended meanwhile
    return found


def smallest(runs):
    return min(runs, key=lambda r: os.path.getsize(os.path.join(r.src, "results.json")))


def test_a_committed_run_draws_its_report_and_figures(tmp_path):
    # The smallest reference run: curated, so it stays committed, and it draws several figures.
    run = smallest(rf.reference_runs())
    out = tmp_path / "out"
    r = reproduce(os.path.relpath(run.src, ROOT), "--out", str(out), cwd=ROOT)
    assert r.returncode == 0, r.stderr
    drawn = out / run.name
    pngs = sorted(p.name for p in (drawn / "plots").glob("*.png"))
    assert (drawn / "report.html").is_file() and pngs
    assert sorted(p.stem for p in (drawn / "plots").glob("*.svg")) == [p[:-4] for p in pngs]
    lines = r.stderr.splitlines()
    assert re.fullmatch(rf"\[1/1\] {re.escape(run.name)}: {len(pngs)} figures, report\.html, \d+\.\d s", lines[0]), lines
    done = re.match(rf"reproduce-figures\.sh: 1 of 1 run drawn, {len(pngs)} figures, 1 report, 0 failed, "
                    rf"in \d+\.\d s \(1 at a time\); under (.+)$", lines[1])
    assert done and os.path.realpath(os.path.join(ROOT, done.group(1))) == os.path.realpath(out), lines
    assert len(lines) == 2 and r.stdout == "" and not leftovers(out)
    # The report compares the run with the committed reference runs, named as results/ lists them.
    assert "(results/" + run.name + ")" in (drawn / "report.html").read_text(encoding="utf-8")


def test_every_tracked_run_is_found():
    runs = rf.tracked_runs()
    tracked = subprocess.run(["git", "-C", ROOT, "ls-files", "results"], capture_output=True, text=True).stdout.split()
    expected = sorted(os.path.dirname(os.path.relpath(p, "results")) for p in tracked
                      if os.path.basename(p) == "results.json")
    assert sorted(r.name for r in runs) == expected and expected


@pytest.mark.parametrize("args, says", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--jobs", "0"], "--jobs 0: give 1 or more processes"),
    (["--reference", "--headlines"], "not allowed with argument"),
    (["--reference", "dev-2core/x"], "RUN ... and --reference or --headlines"),
    (["--out", os.path.join(RESULTS, "mine")], "inside results/"),
])
def test_a_bad_option_exits_2_naming_the_fix(tmp_path, args, says):
    r = reproduce(*args, cwd=tmp_path)
    assert r.returncode == 2 and says in r.stderr and "see reproduce-figures.sh --help" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(RESULTS, "mine"))


def test_a_missing_run_exits_2_naming_it_and_draws_nothing(tmp_path):
    good = smallest(rf.tracked_runs())
    r = reproduce(good.src, str(tmp_path / "nowhere" / "run"), "--out", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"reproduce-figures.sh: {tmp_path / 'nowhere' / 'run'}: no such run"), r.stderr
    assert not (tmp_path / "out").exists()


def test_a_broken_run_fails_while_another_is_drawn(tmp_path):
    good = smallest(rf.tracked_runs())
    broken = tmp_path / "broken-host" / "20260101T000000Z"
    shutil.copytree(good.src, broken)
    text = (broken / "results.json").read_text(encoding="utf-8")
    (broken / "results.json").write_text(text[: len(text) // 2], encoding="utf-8")  # cut mid-way
    out = tmp_path / "out"
    r = reproduce(str(broken), good.src, "--out", str(out), "--jobs", "2")
    assert r.returncode == 1, r.stderr
    failed = [m for m in r.stderr.splitlines() if "broken-host/20260101T000000Z: FAILED" in m]
    assert len(failed) == 1 and "(exit 2): plot.py: " in failed[0] and "not valid JSON" in failed[0], r.stderr
    assert re.search(rf"\] {re.escape(good.name)}: \d+ figures?, report\.html", r.stderr), r.stderr
    assert "1 of 2 runs drawn" in r.stderr and "1 failed" in r.stderr
    assert r.stderr.rstrip().endswith("FAILED broken-host/20260101T000000Z")
    assert (out / good.name / "report.html").is_file()
    assert not (out / "broken-host").exists() and not leftovers(out)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_stops_the_children_and_leaves_no_partial_drawing(tmp_path, sig):
    out = tmp_path / "out"
    env = dict(os.environ, PARLAB_PYTHON=sys.executable)
    # SIGINT handled as a terminal's foreground job has it, whatever this test process inherited
    # (a child of a process that ignores SIGINT would ignore it too).
    p = subprocess.Popen(["bash", SCRIPT, "--reference", "--out", str(out), "--jobs", "2"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not leftovers(out):  # a drawing has begun
        time.sleep(0.05)
    assert leftovers(out), "no run started drawing"
    time.sleep(0.5)
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "interrupted" in err, err
    assert not leftovers(out)
    assert not processes_naming(str(out)), "a plot.py outlived the script"
    for machine in out.iterdir() if out.exists() else []:  # a run that finished first is whole
        for run in machine.iterdir():
            assert (run / "report.html").is_file(), run


# --- the headline manifest ----------------------------------------------------------------------

def _entries():
    try:
        return rf.headline_entries()
    except rf.UsageError:
        return []  # test_the_headline_manifest_validates... fails, naming the fault


ENTRIES = _entries()


def test_the_headline_manifest_validates_and_names_committed_runs():
    entries = rf.headline_entries()  # raises, naming the entry, on any fault
    assert entries == [dict(f, run=r["path"]) for r in json.load(open(rf.INDEX, encoding="utf-8"))["runs"]
                       for f in r.get("figures", [])]
    for e in entries:
        tracked = subprocess.run(["git", "-C", ROOT, "ls-files", "--error-unmatch",
                                  f"results/{e['run']}/results.json"], capture_output=True, text=True)
        assert tracked.returncode == 0, f"{e['file']}: the run {e['run']} is not committed"
    # results/figures/ holds the listed headlines and nothing else (it is the one tracked folder of figures).
    figures = os.path.join(RESULTS, "figures")
    present = sorted(os.listdir(figures)) if os.path.isdir(figures) else []
    assert present == sorted(e["file"] for e in entries)


@pytest.fixture(scope="module")
def draw_run(tmp_path_factory):
    """Draws a committed run with the script once for the module (two headlines may share one);
    each entry's test draws only its own run, so none waits for all of them."""
    out, drawn = tmp_path_factory.mktemp("headlines"), set()

    def draw(run):
        if run not in drawn:
            r = reproduce(os.path.join(RESULTS, run), "--out", str(out))
            assert r.returncode == 0, r.stderr
            drawn.add(run)
        return out / run
    return draw


@pytest.mark.parametrize("entry", ENTRIES or [pytest.param(None, id="none-listed")],
                         ids=lambda e: e["file"] if e else "none-listed")
def test_each_headline_is_drawn_by_the_script_and_committed(entry, draw_run):
    if entry is None:  # the manifest lists none (the test above holds results/figures/ empty then)
        assert ENTRIES == []
        return
    assert (draw_run(entry["run"]) / entry["figure"]).is_file(), f"{entry['run']} drew no {entry['figure']}"
    assert os.path.isfile(os.path.join(RESULTS, "figures", entry["file"])), \
        f"results/figures/{entry['file']} is missing: scripts/reproduce-figures.sh --headlines copies it"


def write_manifest(folder, entries):
    """An index of runs (results/runs.json's form) naming these headline figures, each entry
    {file, run, figure, what, ...} placed under its run."""
    runs = {}
    for e in entries:
        runs.setdefault(e.get("run"), []).append({k: v for k, v in e.items() if k != "run"})
    path = folder / "runs.json"
    path.write_text(json.dumps({"about": "test", "runs": [{"path": run, "figures": figs} for run, figs in runs.items()]}),
                    encoding="utf-8")
    return path


def test_headlines_copies_each_figure_and_refuses_a_bad_manifest(tmp_path):
    good = smallest(rf.tracked_runs())
    shutil.copytree(good.src, tmp_path / "refs" / good.name)
    out = tmp_path / "out"
    probe = reproduce(good.src, "--out", str(out))
    assert probe.returncode == 0, probe.stderr
    figure = os.path.relpath(sorted((out / good.name / "plots").glob("*.png"))[0], out / good.name)
    entry = {"file": "headline.png", "run": good.name, "figure": figure, "what": "a test headline"}
    manifest = write_manifest(tmp_path / "refs", [entry])
    r = reproduce("--headlines", "--manifest", str(manifest), "--out", str(out))
    assert r.returncode == 0 and "1 headline figure copied to " in r.stderr, r.stderr
    copied = tmp_path / "refs" / "figures" / "headline.png"
    assert copied.read_bytes() == (out / good.name / figure).read_bytes()
    copied.unlink()
    # A figure the run does not draw: exit 1 naming the entry, and nothing copied.
    write_manifest(tmp_path / "refs", [entry, dict(entry, file="second.png", figure="plots/nothing.png")])
    r = reproduce("--headlines", "--manifest", str(manifest), "--out", str(out))
    assert r.returncode == 1 and "figure 1 (second.png): " in r.stderr and "drew no plots/nothing.png" in r.stderr
    assert not copied.exists()
    for bad, says in [(dict(entry, run="nowhere/run"), "run 0 (nowhere/run): the run has no results.json"),
                      (dict(entry, colour="red"), "unknown keys colour"),
                      (dict(entry, file="sub/x.png"), "'file' must be a file name ending .png"),
                      (dict(entry, figure="../x.png"), "'figure' must be relative"),
                      ({k: v for k, v in entry.items() if k != "what"}, "needs what")]:
        write_manifest(tmp_path / "refs", [bad])
        r = reproduce("--headlines", "--manifest", str(manifest), "--out", str(tmp_path / "out2"))
        assert r.returncode == 2 and says in r.stderr, (says, r.stderr)
        assert not (tmp_path / "out2").exists()
    write_manifest(tmp_path / "refs", [entry, entry])
    r = reproduce("--headlines", "--manifest", str(manifest))
    assert r.returncode == 2 and "listed twice" in r.stderr, r.stderr
