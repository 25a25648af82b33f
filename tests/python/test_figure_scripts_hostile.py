"""The figure scripts at the edges of what they are given: scripts/reproduce-figures.sh and
tools/findings/render.py. A script removes only what it made in this invocation (never the run it
draws, a folder above it, nor --out); a run named . or .. is refused before anything is drawn;
every file is written to a fresh temporary beside its target, never through a link planted there,
and renamed; a FIFO in an input's place is refused, never waited on; a malformed input is one line
naming the file and the field, exit 2, never a traceback; and two reproductions into one folder at
once each leave whole drawings. The runs drawn are the small fixtures of tests/fixtures, so no
parlab binary is needed."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import threading

import pytest

from conftest import FIXTURES, ROOT
from test_reproduce_figures import leftovers, reproduce, rf

sys.path.insert(0, os.path.join(ROOT, "tools", "findings"))
import findings  # noqa: E402
import render  # noqa: E402

RUN = os.path.join(FIXTURES, "pi-scaling")  # a small run that plot.py draws in about a second


def tree(folder):
    """{relative path: bytes, or '->target' for a link, or '/' for a folder} of everything below
    folder: what a test holds unchanged."""
    out = {}
    for d, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = os.path.join(d, n)
            key = os.path.relpath(p, folder)
            if os.path.islink(p):
                out[key] = "->" + os.readlink(p)
            elif os.path.isdir(p):
                out[key] = "/"
            else:
                with open(p, "rb") as f:
                    out[key] = f.read()
    return out


def a_run(folder):
    """The fixture run copied to `folder`, with a results.csv beside its results.json (as
    `parlab run` leaves one)."""
    shutil.copytree(RUN, folder)
    (folder / "results.csv").write_text("id,kernel\n0,pi\n", encoding="utf-8")
    return folder


# --- reproduce-figures.sh: never the run it draws ------------------------------------------------

def test_a_run_under_out_is_refused_not_replaced_by_its_drawing(tmp_path):
    # `parlab run --out OUT` then reproducing OUT/<host>/<stamp> into OUT: the run's place under
    # OUT is the run itself.
    out = tmp_path / "OUT"
    run = a_run(out / "host" / "20260101T000000Z")
    before = tree(out)
    r = reproduce(str(run), "--out", str(out))
    assert r.returncode == 2, r.stderr
    assert f"{run} is the run itself {run}" in r.stderr and "choose another --out" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.rstrip().endswith("nothing drawn")
    assert tree(out) == before  # results.json and results.csv kept, nothing added


@pytest.mark.parametrize("case", ["out-inside-the-run", "place-holds-the-run", "place-linked-to-the-run",
                                  "results.json-named"])
def test_a_place_that_is_in_holds_or_links_to_the_run_is_refused(tmp_path, case):
    if case == "out-inside-the-run":  # a drawing inside the run would be written into it
        run = a_run(tmp_path / "host" / "20260101T000000Z")
        out, says = run / "drawn", "lies inside the run"
    elif case == "place-holds-the-run":  # OUT/a/b, which holds the run OUT/a/b/a/b
        out = tmp_path / "OUT"
        run = a_run(out / "a" / "b" / "a" / "b")
        says = "holds the run"
    elif case == "place-linked-to-the-run":  # OUT/host a link to the run's machine folder
        run = a_run(tmp_path / "runs" / "host" / "20260101T000000Z")
        out = tmp_path / "OUT"
        out.mkdir()
        (out / "host").symlink_to(run.parent)
        says = "is the run itself"
    else:  # the run named by its results.json, under OUT
        out = tmp_path / "OUT"
        run = a_run(out / "host" / "20260101T000000Z")
        says = "is the run itself"
    before = tree(tmp_path)
    given = str(run / "results.json") if case == "results.json-named" else str(run)
    r = reproduce(given, "--out", str(out))
    assert r.returncode == 2 and says in r.stderr and str(run) in r.stderr, r.stderr
    assert tree(tmp_path) == before


def test_a_place_that_holds_another_run_or_a_link_is_left_as_it_is(tmp_path):
    run = a_run(tmp_path / "src" / "host" / "20260101T000000Z")
    out = tmp_path / "OUT"
    other = a_run(out / "host" / "20260101T000000Z")  # another run (a copy) where the drawing would go
    before = tree(tmp_path)
    r = reproduce(str(run), "--out", str(out))
    assert r.returncode == 2 and f"holds a run ({other / 'results.json'})" in r.stderr, r.stderr
    assert tree(tmp_path) == before
    # A link in the drawing's place: neither followed nor removed.
    shutil.rmtree(other)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine", encoding="utf-8")
    other.symlink_to(victim)
    before = tree(tmp_path)
    r = reproduce(str(run), "--out", str(out))
    assert r.returncode == 2 and "is no drawing (a link or a file)" in r.stderr, r.stderr
    assert tree(tmp_path) == before


def test_a_drawing_that_would_hold_another_runs_drawing_is_refused():
    runs = [rf.Run("/data/a", "host"), rf.Run("/data/b", "host/20260101T000000Z")]
    (problem,) = rf.destination_problems(runs, "/nowhere/out")
    assert problem.startswith("host: ") and "would hold the drawing of host/20260101T000000Z" in problem
    assert rf.destination_problems(runs[1:], "/nowhere/out") == []


def test_a_failed_drawing_removes_only_its_own_temporary(tmp_path):
    broken = tmp_path / "src" / "host" / "20260101T000000Z"
    shutil.copytree(RUN, broken)
    (broken / "results.json").write_text("{\"schema\": ", encoding="utf-8")  # cut short
    # --out and the machine folder exist already, with an older drawing of the run and a file of
    # the user's: all of it stays.
    out = tmp_path / "OUT"
    (out / "host" / "20260101T000000Z" / "plots").mkdir(parents=True)
    (out / "host" / "20260101T000000Z" / "report.html").write_text("older", encoding="utf-8")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = tree(out)
    r = reproduce(str(broken), "--out", str(out))
    assert r.returncode == 1 and "FAILED (exit 2)" in r.stderr, r.stderr
    assert "the older drawing at" in r.stderr and "is left as it was" in r.stderr, r.stderr
    assert tree(out) == before and not leftovers(tmp_path)
    # Into an --out that did not exist: the folders it made for the drawing are removed again.
    r = reproduce(str(broken), "--out", str(tmp_path / "new" / "OUT"))
    assert r.returncode == 1, r.stderr
    assert not (tmp_path / "new").exists()
    # An --out that existed empty stays.
    (tmp_path / "empty").mkdir()
    r = reproduce(str(broken), "--out", str(tmp_path / "empty"))
    assert r.returncode == 1 and (tmp_path / "empty").is_dir() and os.listdir(tmp_path / "empty") == []


# --- reproduce-figures.sh: a run named . or .. ------------------------------------------------------

@pytest.mark.parametrize("name", [".", "./", "sub/..", "..", "a/../..", ""])
def test_a_manifest_run_naming_its_own_folder_is_refused(tmp_path, name):
    refs = tmp_path / "refs"
    shutil.copytree(RUN, refs)  # refs/results.json: "." would be a run
    (refs / "sub").mkdir()
    manifest = refs / "runs.json"
    manifest.write_text(json.dumps({"runs": [{"path": name, "figures": [{"file": "h.png", "figure": "plots/x.png",
                                                                         "what": "a test"}]}]}), encoding="utf-8")
    out = tmp_path / "OUT"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    before = tree(tmp_path)
    r = reproduce("--headlines", "--manifest", str(manifest), "--out", str(out))
    assert r.returncode == 2 and re.search(r"run 0: 'path' must", r.stderr), r.stderr
    assert "Traceback" not in r.stderr
    assert tree(tmp_path) == before


@pytest.mark.parametrize("path", [".", "./", "x/.."])
def test_a_reference_run_naming_the_index_folder_is_refused(tmp_path, path):
    shutil.copytree(RUN, tmp_path / "refs")
    (tmp_path / "refs" / "x").mkdir()
    index = tmp_path / "refs" / "runs.json"
    index.write_text(json.dumps({"runs": [{"path": path, "reference": {"name": "me"}}]}), encoding="utf-8")
    with pytest.raises(rf.UsageError, match=r"runs\.json: run 0: 'path' must"):
        rf.reference_runs(str(index))


def test_a_results_json_directly_in_results_is_refused(tmp_path, monkeypatch):
    # Not a git checkout: every results.json under results/ is a run, results/results.json too.
    results = tmp_path / "results"
    shutil.copytree(RUN, results)
    shutil.copytree(RUN, results / "host" / "20260101T000000Z")
    monkeypatch.setattr(rf, "ROOT", str(tmp_path))
    monkeypatch.setattr(rf, "RESULTS", str(results))
    with pytest.raises(rf.UsageError, match=r"results\.json: the run .* under the name '\.'"):
        rf.tracked_runs()
    out = tmp_path / "OUT"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    before = tree(tmp_path)
    assert rf.run(["--out", str(out)]) == 2
    assert tree(tmp_path) == before


def test_a_fifo_index_or_manifest_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "runs.json"
    os.mkfifo(fifo)
    r = reproduce("--headlines", "--manifest", str(fifo), "--out", str(tmp_path / "out"))  # timeout=120
    assert r.returncode == 2 and "not a regular file" in r.stderr and str(fifo) in r.stderr, r.stderr
    with pytest.raises(rf.UsageError, match="not a regular file"):
        rf.reference_runs(str(fifo))


# --- reproduce-figures.sh: files written beside their target, never through a link ----------------

def test_headlines_replace_a_planted_link_and_never_write_through_it(tmp_path):
    refs = tmp_path / "refs"
    shutil.copytree(RUN, refs / "host" / "run")
    out = tmp_path / "OUT"
    r = reproduce(str(refs / "host" / "run"), "--out", str(out))
    assert r.returncode == 0, r.stderr
    figure = os.path.relpath(sorted((out / "host" / "run" / "plots").glob("*.png"))[0], out / "host" / "run")
    manifest = refs / "runs.json"
    manifest.write_text(json.dumps({"runs": [{"path": "host/run", "figures": [{"file": "h.png", "figure": figure,
                                                                             "what": "a test"}]}]}), encoding="utf-8")
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"not to be written")
    (refs / "figures").mkdir()
    (refs / "figures" / "h.png").symlink_to(victim)
    r = reproduce("--headlines", "--manifest", str(manifest), "--out", str(out))
    assert r.returncode == 0, r.stderr
    copied = refs / "figures" / "h.png"
    assert not copied.is_symlink() and copied.read_bytes() == (out / "host" / "run" / figure).read_bytes()
    assert victim.read_bytes() == b"not to be written"
    assert stat.S_IMODE(copied.stat().st_mode) == 0o644
    assert sorted(os.listdir(refs / "figures")) == ["h.png"]  # no temporary left
    # A folder in a headline's place: exit 2 naming it, nothing copied.
    copied.unlink()
    copied.mkdir()
    r = reproduce("--headlines", "--manifest", str(manifest), "--out", str(out))
    assert r.returncode == 2 and f"cannot write {copied}" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert copied.is_dir() and os.listdir(copied) == []


# --- reproduce-figures.sh: two reproductions into one folder at once ------------------------------

def test_two_reproductions_into_one_out_at_once_each_leave_whole_drawings(tmp_path):
    runs = [a_run(tmp_path / "src" / "host" / f"2026010{i}T000000Z") for i in range(3)]
    alone = tmp_path / "alone"
    r = reproduce(str(runs[0]), "--out", str(alone))
    assert r.returncode == 0, r.stderr
    expected = sorted(os.path.relpath(os.path.join(d, f), alone / "host" / runs[0].name)
                      for d, _, fs in os.walk(alone / "host" / runs[0].name) for f in fs)
    out = tmp_path / "OUT"
    env = dict(os.environ, PARLAB_PYTHON=sys.executable)
    script = os.path.join(ROOT, "scripts", "reproduce-figures.sh")
    # The same runs in both, and one of each's own, all at once.
    procs = [subprocess.Popen(["bash", script, str(runs[0]), str(runs[1 + k]), str(runs[2 - k]), "--out", str(out),
                               "--jobs", "2"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    for run in runs:
        drawn = out / "host" / run.name
        files = sorted(os.path.relpath(os.path.join(d, f), drawn) for d, _, fs in os.walk(drawn) for f in fs)
        assert files == expected, run
    assert sorted(os.listdir(out / "host")) == sorted(r.name for r in runs) and not leftovers(tmp_path)


def test_concurrent_replacements_leave_one_whole_drawing(tmp_path):
    """Many writers renaming their drawing of one run into place at once: every one succeeds, the
    last stays whole (each of its files from one writer), no temporary is left."""
    final = tmp_path / "out" / "host" / "run"
    final.parent.mkdir(parents=True)
    errors, barrier = [], threading.Barrier(8)

    def writer(k):
        try:
            for round in range(5):
                new = tmp_path / "out" / "host" / f".run.partial-{k}-{round}"
                (new / "plots").mkdir(parents=True)
                for name in ("report.html", "plots/a.png", "plots/b.png"):
                    (new / name).write_text(f"{k}.{round}", encoding="utf-8")
                if round == 0:
                    barrier.wait()
                rf.replace_dir(str(new), str(final))
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    contents = {(final / n).read_text(encoding="utf-8") for n in ("report.html", "plots/a.png", "plots/b.png")}
    assert len(contents) == 1 and sorted(os.listdir(final)) == ["plots", "report.html"]
    assert os.listdir(final.parent) == ["run"]  # no writer's temporary, no older drawing left


def _drawing(folder, mark):
    (folder / "plots").mkdir(parents=True)
    for name in ("report.html", "plots/a.png"):
        (folder / name).write_text(mark, encoding="utf-8")
    return folder


def test_a_drawing_renamed_in_by_another_meanwhile_is_replaced_whole(tmp_path, monkeypatch):
    """The race, made certain: right after this reproduction moves the older drawing aside,
    another renames its own drawing into the place. Ours then replaces that one, whole."""
    final = _drawing(tmp_path / "host" / "run", "older")
    theirs = _drawing(tmp_path / "host" / ".run.partial-theirs", "theirs")
    ours = _drawing(tmp_path / "host" / ".run.partial-ours", "ours")
    rename = os.rename

    def racing(src, dst):
        rename(src, dst)
        if os.fspath(src) == str(final) and theirs.exists():
            rename(theirs, final)  # the other reproduction, in between
    monkeypatch.setattr(rf.os, "rename", racing)
    rf.replace_dir(str(ours), str(final))
    monkeypatch.undo()
    assert {(final / n).read_text(encoding="utf-8") for n in ("report.html", "plots/a.png")} == {"ours"}
    assert os.listdir(tmp_path / "host") == ["run"]


def test_a_machine_folder_removed_by_another_meanwhile_is_made_again(tmp_path, monkeypatch):
    """Another reproduction's failed run removes the empty machine folder between this one making
    it and starting its temporary there: it is made again, and the run is drawn."""
    fake = tmp_path / "plot.py"
    fake.write_text("import os, sys\nos.makedirs(os.path.join(sys.argv[3], 'plots'))\n"
                    "open(os.path.join(sys.argv[3], 'report.html'), 'w').write('drawn')\n", encoding="utf-8")
    monkeypatch.setattr(rf, "PLOT", str(fake))
    mkdtemp, removed = rf.tempfile.mkdtemp, []

    def racing(**kw):
        if not removed:
            os.rmdir(kw["dir"])  # the other's clean-up, in between
            removed.append(kw["dir"])
        return mkdtemp(**kw)
    monkeypatch.setattr(rf.tempfile, "mkdtemp", racing)
    (d,) = rf.draw_all([rf.Run(str(tmp_path / "src"), "host/run")], str(tmp_path / "OUT"), 1)
    monkeypatch.undo()
    assert d.ok and removed == [str(tmp_path / "OUT" / "host")], d.message
    assert (tmp_path / "OUT" / "host" / "run" / "report.html").read_text(encoding="utf-8") == "drawn"
    assert not leftovers(tmp_path)


def test_failed_and_drawn_runs_of_one_machine_at_once(tmp_path, monkeypatch):
    """A run that fails removes the machine folder it made only while it is empty: a run of the
    same machine drawn at the same time keeps its place (a stand-in for plot.py, fast)."""
    fake = tmp_path / "plot.py"
    fake.write_text("import os, sys, time\n"
                    "src, out = sys.argv[1], sys.argv[3]\n"
                    "time.sleep(0.01 * (hash(src) % 5))\n"
                    "if os.path.basename(src).startswith('fail'): sys.exit(2)\n"
                    "os.makedirs(os.path.join(out, 'plots'))\n"
                    "open(os.path.join(out, 'report.html'), 'w').write(src)\n", encoding="utf-8")
    monkeypatch.setattr(rf, "PLOT", str(fake))
    runs = [rf.Run(str(tmp_path / f"{'fail' if i % 2 else 'good'}-{i}"), f"host/r{i}") for i in range(16)]
    out = tmp_path / "OUT"
    drawn = rf.draw_all(runs, str(out), 8)
    ok = sorted(d.run.name for d in drawn if d.ok)
    assert ok == sorted(r.name for r in runs if os.path.basename(r.src).startswith("good"))
    assert sorted(os.listdir(out / "host")) == sorted(n.split("/")[1] for n in ok) and not leftovers(tmp_path)


# --- render.py ----------------------------------------------------------------------------------

def render_child(tmp_path, runs=None, args=("--stdout",), output=None):
    """render.py in a process of its own (so a read that hangs is a timeout, not a hung session),
    with some cited runs pointed elsewhere and README.md's path set."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import findings, render\n"
            "import json; findings.RUNS.update(json.loads(sys.argv[2]))\n"
            "if sys.argv[3]: render.OUTPUT = sys.argv[3]\n"
            "sys.exit(render.main(sys.argv[4:]))\n")
    return subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "tools", "findings"),
                           json.dumps(runs or {}), str(output or ""), *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


def cited(name):
    return os.path.join(findings.RESULTS, findings.RUNS[name])


def test_render_refuses_a_fifo_in_place_of_a_cited_results_json(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "results.json")
    r = render_child(tmp_path, {"scaling": str(run)})
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"render: {run / 'results.json'}: not a regular file (a FIFO, socket or device)\n"


def test_render_refuses_a_fifo_in_place_of_a_probe_table_and_of_readme(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").symlink_to(os.path.join(cited("gpu_tuned_before"), "results.json"))
    os.mkfifo(run / "stream-probe.txt")
    r = render_child(tmp_path, {"gpu_tuned_before": str(run)})
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{run / 'stream-probe.txt'}: not a regular file" in r.stderr
    os.mkfifo(tmp_path / "README.md")
    r = render_child(tmp_path, args=("--check",), output=tmp_path / "README.md")
    assert r.returncode == 2 and r.stderr == f"render: {tmp_path / 'README.md'}: not a regular file " \
                                             "(a FIFO, socket or device)\n", r.stderr


def _broken(doc, how):
    if how == "not-json":
        return "{\"schema\": \"parlab-results/5\", "
    if how == "records[0]-a-string":
        doc["records"][0] = "a record"
    elif how == "medians-strings":
        for r in doc["records"]:
            if r.get("status") == "ok":
                r["time_s"]["median"] = str(r["time_s"]["median"])
    elif how == "an-array":
        doc = [doc]
    elif how == "records-an-object":
        doc["records"] = {}
    elif how == "no-schema":
        del doc["schema"]
    return json.dumps(doc)


@pytest.mark.parametrize("how, says", [
    ("not-json", "not valid JSON"),
    ("records[0]-a-string", "record 0: 'a record' is not of type 'object'"),
    ("medians-strings", "record 0: 'time_s.median': "),
    ("an-array", "expected a JSON object (a parlab results.json), not list"),
    ("records-an-object", "'records': an object is not of type 'array'"),
    ("no-schema", "'schema' is None, expected one of parlab-results/5"),
    ("a-folder", "a directory, not a file"),
])
def test_render_names_a_malformed_cited_run_in_one_line_exit_2(tmp_path, how, says):
    with open(os.path.join(cited("scaling"), "results.json"), encoding="utf-8") as f:
        doc = json.load(f)
    run = tmp_path / "run"
    run.mkdir()
    if how == "a-folder":
        (run / "results.json").mkdir()
    else:
        (run / "results.json").write_text(_broken(doc, how), encoding="utf-8")
    for args in (("--stdout",), ("--check",)):
        r = render_child(tmp_path, {"scaling": str(run)}, args=args)
        assert r.returncode == 2 and r.stdout == "", r.stderr
        assert r.stderr.startswith(f"render: {run / 'results.json'}: ") and says in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_render_check_and_write_refuse_a_folder_in_place_of_readme(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "README.md"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine", encoding="utf-8")
    monkeypatch.setattr(render, "OUTPUT", str(folder))
    for args in (["--check"], []):
        assert render.main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"render: {folder}: a directory, not a file") and err.count("\n") == 1, err
    assert sorted(os.listdir(tmp_path)) == ["README.md"] and os.listdir(folder) == ["keep.txt"]


def test_render_writes_a_fresh_file_never_through_a_planted_link(tmp_path, monkeypatch, capsys):
    victim = tmp_path / "victim.md"
    victim.write_text("not to be written", encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("stale", encoding="utf-8")
    (tmp_path / "README.md.tmp").symlink_to(victim)  # where the old render wrote its temporary
    monkeypatch.setattr(render, "OUTPUT", str(readme))
    assert render.main([]) == 0, capsys.readouterr().err
    assert not readme.is_symlink() and readme.read_text(encoding="utf-8") == render.render()
    assert stat.S_IMODE(readme.stat().st_mode) == 0o644
    assert victim.read_text(encoding="utf-8") == "not to be written"
    assert os.readlink(tmp_path / "README.md.tmp") == str(victim)
    assert sorted(os.listdir(tmp_path)) == ["README.md", "README.md.tmp", "victim.md"]  # no temporary left
    # README.md itself a link: replaced by the file, its target untouched.
    readme.unlink()
    readme.symlink_to(victim)
    assert render.main([]) == 0
    assert not readme.is_symlink() and victim.read_text(encoding="utf-8") == "not to be written"
    assert render.main(["--check"]) == 0


def test_render_an_unwritable_folder_is_exit_2_naming_readme(tmp_path, monkeypatch, capsys):
    if os.geteuid() == 0:  # root writes through a folder's mode: a folder that is gone instead
        target = tmp_path / "gone" / "README.md"
    else:
        (tmp_path / "ro").mkdir(mode=0o555)
        target = tmp_path / "ro" / "README.md"
    monkeypatch.setattr(render, "OUTPUT", str(target))
    assert render.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"render: {target}: cannot be written (") and err.count("\n") == 1, err


def test_render_an_unexpected_error_is_exit_3_in_one_line(monkeypatch, capsys):
    def broken():
        raise ZeroDivisionError("float division by zero")
    monkeypatch.setattr(findings, "scaling", broken)
    assert render.main(["--stdout"]) == 3
    err = capsys.readouterr().err
    assert err == "render: internal error, please report: ZeroDivisionError: float division by zero\n"
