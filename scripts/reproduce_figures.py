#!/usr/bin/env python3
"""Every figure and report.html of the committed runs, drawn again from their results.json.

    scripts/reproduce-figures.sh [--out DIR] [--jobs N] [--reference | --headlines | RUN ...]

results/ tracks data only (results.json, logs, ceilings); the figures and reports are generated,
so they are drawn here rather than committed. Each run goes through experiments/analysis/plot.py,
as `parlab report` draws it, into OUT/<machine>/<run>/ (default build/reproduced/, which git
ignores), the runs in parallel processes (--jobs, default one per CPU). Which runs:

  (default)     every run directory git tracks under results/ (without git: every results.json
                under results/, your own runs included)
  --reference   the reference runs that results/reference-runs.json lists
  --headlines   the runs that the headline manifest (results/figures.json) names; then each
                headline PNG is copied to results/figures/, the few figures the READMEs show
  RUN ...       these run directories (or their results.json), anywhere

Each report compares its run with the committed reference runs of results/, whatever
$PARLAB_REFERENCE says, so a reproduced report is the one a checkout of the same commit draws.
A run is drawn into a temporary folder beside its place and renamed there once whole: an
interrupt (Ctrl-C, SIGTERM) stops the children and leaves no partial drawing.

Exit codes: 0 every run drawn (and, with --headlines, every headline copied); 1 a run failed
(FAILED with plot.py's message; the others are still drawn) or a headline figure was not drawn;
2 bad arguments or a malformed manifest or index, naming what to fix; 130 interrupted.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import NamedTuple

PROG = "reproduce-figures.sh"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")
PLOT = os.path.join(ROOT, "experiments", "analysis", "plot.py")
DEFAULT_OUT = os.path.join(ROOT, "build", "reproduced")
REFERENCE_INDEX = os.path.join(RESULTS, "reference-runs.json")
MANIFEST = os.path.join(RESULTS, "figures.json")
ENTRY_KEYS = ("file", "run", "figure", "what")
KILL_AFTER_S = 10  # a child that outlives SIGTERM by this long is killed


class UsageError(Exception):
    """A bad argument, a missing run, a malformed index or manifest: exit 2, the message says
    what to fix."""


class Run(NamedTuple):
    src: str   # the run directory, absolute
    name: str  # its place under the output folder: <machine>/<run>


class Drawn(NamedTuple):
    run: Run
    ok: bool
    figures: int = 0
    report: bool = False
    seconds: float = 0.0
    message: str = ""      # plot.py's stderr: the reason of a failure, or a success's notes
    interrupted: bool = False


# --- which runs ---------------------------------------------------------------------------------

def tracked_runs() -> list[Run]:
    """Every run directory git tracks under results/; every results.json there where git is not
    installed or this tree is no git checkout (an unpacked tarball)."""
    try:
        r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--", "results/*results.json"],
                           capture_output=True, text=True)
        paths = [os.path.join(ROOT, p) for p in r.stdout.split("\0") if p] if r.returncode == 0 else None
    except FileNotFoundError:
        paths = None
    if paths is None:
        paths = glob.glob(os.path.join(RESULTS, "**", "results.json"), recursive=True)
    dirs = sorted({os.path.dirname(p) for p in paths if os.path.basename(p) == "results.json"})
    return [Run(d, os.path.relpath(d, RESULTS)) for d in dirs]


def read_json_object(path: str, what: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise UsageError(f"{rel(path)}: cannot read the {what}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"{rel(path)}: the {what} is not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{rel(path)}: the {what} must be a JSON object")
    return doc


def relative_path_problem(path) -> str | None:
    """Why `path` is no plain relative path inside its folder, or None."""
    if not isinstance(path, str) or not path:
        return "must be a non-empty string"
    if os.path.isabs(path) or ".." in path.replace("\\", "/").split("/"):
        return "must be relative, inside its folder (no leading / and no ..)"
    return None


def reference_runs(index: str = REFERENCE_INDEX) -> list[Run]:
    """The runs the reference index lists, each checked to hold results.json."""
    doc = read_json_object(index, "reference index")
    if not isinstance(doc.get("runs"), list):
        raise UsageError(f"{rel(index)}: expected a list 'runs'")
    runs = []
    for i, entry in enumerate(doc["runs"]):
        path = entry.get("path") if isinstance(entry, dict) else None
        problem = relative_path_problem(path)
        if problem:
            raise UsageError(f"{rel(index)}: run {i}: 'path' {problem}")
        src = os.path.join(os.path.dirname(index), path)
        if not os.path.isfile(os.path.join(src, "results.json")):
            raise UsageError(f"{rel(index)} lists {path}, which has no results.json: fix the index or restore the run")
        runs.append(Run(os.path.abspath(src), os.path.normpath(path)))
    return runs


def named_runs(paths: list[str]) -> list[Run]:
    """The runs named on the command line: a run directory or its results.json, as given or
    relative to results/. Each is placed under the output as <machine>/<run> (its path under
    results/, else its last two folders)."""
    runs = []
    for given in paths:
        candidates = [given, os.path.join(RESULTS, given)]
        src = next((os.path.abspath(c) for c in candidates
                    if os.path.isfile(os.path.join(c, "results.json")) or
                    (os.path.basename(c) == "results.json" and os.path.isfile(c))), None)
        if src is None:
            raise UsageError(f"{given}: no such run (a run directory holding results.json, "
                             "as results/<machine>/<run>, or that results.json)")
        if os.path.basename(src) == "results.json":
            src = os.path.dirname(src)
        inside = os.path.commonpath([os.path.realpath(src), os.path.realpath(RESULTS)]) == os.path.realpath(RESULTS)
        name = os.path.relpath(os.path.realpath(src), os.path.realpath(RESULTS)) if inside else \
            os.path.join(os.path.basename(os.path.dirname(src)), os.path.basename(src))
        runs.append(Run(src, name))
    return unique(runs)


def unique(runs: list[Run]) -> list[Run]:
    """runs less repeats; two different runs that would be drawn into one folder are refused."""
    by_name: dict[str, Run] = {}
    for run in runs:
        other = by_name.setdefault(run.name, run)
        if os.path.realpath(other.src) != os.path.realpath(run.src):
            raise UsageError(f"{other.src} and {run.src} would both be drawn into {run.name}: name one at a time")
    return list(by_name.values())


# --- the headline manifest ----------------------------------------------------------------------

def load_manifest(path: str = MANIFEST) -> list[dict]:
    """The manifest's entries, each checked: {file, run, figure, what}, a file name under figures/
    beside the manifest, once only; a run (relative to the manifest's folder) holding results.json;
    a figure (a PNG, relative to the run's drawn folder). A fault names its entry."""
    doc = read_json_object(path, "headline manifest")
    if not isinstance(doc.get("figures"), list):
        raise UsageError(f"{rel(path)}: expected a list 'figures' (of {{{', '.join(ENTRY_KEYS)}}})")
    entries, files = [], set()
    for i, entry in enumerate(doc["figures"]):
        where = f"{rel(path)}: figure {i}"
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: must be an object with {', '.join(ENTRY_KEYS)}")
        where += f" ({entry.get('file', 'no file')})"
        unknown = sorted(set(entry) - set(ENTRY_KEYS))
        missing = [k for k in ENTRY_KEYS if not isinstance(entry.get(k), str) or not entry[k].strip()]
        if unknown or missing:
            raise UsageError(f"{where}: " + "; ".join(
                ([f"unknown keys {', '.join(unknown)} (only {', '.join(ENTRY_KEYS)})"] if unknown else []) +
                ([f"needs {', '.join(missing)} (non-empty strings)"] if missing else [])))
        if os.path.basename(entry["file"]) != entry["file"] or not entry["file"].endswith(".png"):
            raise UsageError(f"{where}: 'file' must be a file name ending .png, no folder")
        if entry["file"] in files:
            raise UsageError(f"{where}: the file {entry['file']} is listed twice")
        files.add(entry["file"])
        for key in ("run", "figure"):
            problem = relative_path_problem(entry[key])
            if problem:
                raise UsageError(f"{where}: '{key}' {problem}")
        if not entry["figure"].endswith(".png"):
            raise UsageError(f"{where}: 'figure' must name a PNG (plots/<name>.png)")
        if not os.path.isfile(os.path.join(os.path.dirname(path), entry["run"], "results.json")):
            raise UsageError(f"{where}: the run {entry['run']} does not exist (no "
                             f"{rel(os.path.join(os.path.dirname(path), entry['run'], 'results.json'))})")
        entries.append(entry)
    return entries


def manifest_runs(entries: list[dict], path: str = MANIFEST) -> list[Run]:
    folder = os.path.dirname(path)
    return unique([Run(os.path.abspath(os.path.join(folder, e["run"])), os.path.normpath(e["run"]))
                   for e in entries])


def copy_headlines(entries: list[dict], out: str, path: str = MANIFEST) -> list[str]:
    """Copies each entry's drawn figure to figures/ beside the manifest, once every one is found;
    returns the faults (a figure its run did not draw), each naming its entry, and copies nothing
    then, so figures/ never mixes this drawing with an older one."""
    faults = []
    for i, e in enumerate(entries):
        drawn = os.path.join(out, os.path.normpath(e["run"]), e["figure"])
        if not os.path.isfile(drawn):
            faults.append(f"{rel(path)}: figure {i} ({e['file']}): {e['run']} drew no {e['figure']} "
                          f"(its figures: {rel(os.path.dirname(drawn))})")
    if faults:
        return faults
    figures = os.path.join(os.path.dirname(path), "figures")
    os.makedirs(figures, exist_ok=True)
    for e in entries:
        target = os.path.join(figures, e["file"])
        fd, tmp = tempfile.mkstemp(prefix=f".{e['file']}.", suffix=".tmp", dir=figures)
        os.close(fd)
        try:
            shutil.copyfile(os.path.join(out, os.path.normpath(e["run"]), e["figure"]), tmp)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return []


# --- drawing ------------------------------------------------------------------------------------

class Children:
    """The plot.py processes running now. Each is started in a session of its own, so only this
    script signals it: a Ctrl-C reaches this process, which stops every child (SIGTERM, which
    plot.py takes as an interrupt and cleans up after) and starts no more."""

    def __init__(self):
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen] = set()
        self.stopping = False

    def start(self, args: list[str]) -> subprocess.Popen | None:
        with self._lock:
            if self.stopping:
                return None
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
            self._procs.add(p)
            return p

    def done(self, p: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(p)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        with self._lock:
            self.stopping = True
            for p in self._procs:
                if p.poll() is None:
                    p.send_signal(sig)


def plot_args(run: Run, out: str) -> list[str]:
    # The committed reference runs, named: a caller's $PARLAB_REFERENCE must not change the report.
    return [sys.executable, PLOT, run.src, "--out", out, "--quiet", "--summary", "none", "--reference", RESULTS]


def replace_dir(new: str, final: str) -> None:
    """Puts the folder `new` at `final`, moving an older drawing aside and removing it after."""
    old = None
    if os.path.lexists(final):
        old = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.old-", dir=os.path.dirname(final))
        os.rename(final, os.path.join(old, "run"))
    os.rename(new, final)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def draw_one(run: Run, out_root: str, children: Children) -> Drawn:
    """plot.py over one run into a temporary folder, renamed to OUT/<name> once plot.py succeeded."""
    final = os.path.join(out_root, run.name)
    t0 = time.monotonic()
    try:
        os.makedirs(os.path.dirname(final), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.partial-", dir=os.path.dirname(final))
        os.chmod(tmp, 0o755)  # mkdtemp's 0700 would make the drawing its drawer's only
    except OSError as e:
        return Drawn(run, False, message=f"cannot write {e.filename}: {e.strerror}")
    try:
        p = children.start(plot_args(run, tmp))
        if p is None:
            return Drawn(run, False, interrupted=True)
        try:
            _, err = p.communicate()
        finally:
            children.done(p)
        seconds = time.monotonic() - t0
        if p.returncode != 0:
            if children.stopping:
                return Drawn(run, False, seconds=seconds, interrupted=True)
            # A drawing this data and code no longer make is not left looking current.
            shutil.rmtree(final, ignore_errors=True)
            how = f"plot.py killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
            return Drawn(run, False, seconds=seconds, message=f"({how})" + (f": {err.strip()}" if err.strip() else ""))
        plots = os.path.join(tmp, "plots")
        figures = len([f for f in os.listdir(plots) if f.endswith(".png")]) if os.path.isdir(plots) else 0
        report = os.path.isfile(os.path.join(tmp, "report.html"))
        replace_dir(tmp, final)
        return Drawn(run, True, figures, report, seconds, err.strip())
    except OSError as e:
        return Drawn(run, False, seconds=time.monotonic() - t0, message=f"cannot write {e.filename}: {e.strerror}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone already where it was renamed
        try:
            os.rmdir(os.path.dirname(final))  # a machine's folder that holds no drawing
        except OSError:
            pass  # it holds one


def progress_line(i: int, total: int, d: Drawn) -> str:
    head = f"[{i:{len(str(total))}d}/{total}] {d.run.name}: "
    if d.ok:
        line = head + f"{plural(d.figures, 'figure')}, " + \
            ("report.html" if d.report else "no report.html") + f", {d.seconds:.1f} s"
    else:
        lines = d.message.splitlines() or [""]
        return head + "FAILED " + lines[0] + "".join("\n    " + m for m in lines[1:])
    return line + "".join("\n    " + m for m in d.message.splitlines())  # plot.py's notes, if any


def size_of(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # missing: plot.py says so, as the run's failure


def draw_all(runs: list[Run], out: str, jobs: int) -> list[Drawn]:
    """Every run drawn, `jobs` at a time, the largest first (the long ones start early, so the
    last to finish is short); one progress line on stderr as each finishes. An interrupt stops
    the children, waits for them to clean up, and is raised again."""
    children = Children()
    order = sorted(runs, key=lambda r: -size_of(os.path.join(r.src, "results.json")))
    results = []
    pool = cf.ThreadPoolExecutor(max_workers=max(1, min(jobs, len(order))))
    futures = [pool.submit(draw_one, run, out, children) for run in order]
    try:
        for i, fut in enumerate(cf.as_completed(futures), 1):
            d = fut.result()
            results.append(d)
            print(progress_line(i, len(futures), d), file=sys.stderr, flush=True)
    except BaseException:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the clean-up short
        children.stop()
        for f in futures:
            f.cancel()
        if cf.wait(futures, timeout=KILL_AFTER_S).not_done:
            children.stop(signal.SIGKILL)
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)
    return results


# --- the command --------------------------------------------------------------------------------

def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def rel(path: str) -> str:
    """path as the shorter of itself and its form relative to here."""
    r = os.path.relpath(path)
    return r if len(r) < len(path) else path


class Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 as argparse does, the fix named
        self.print_usage(sys.stderr)
        self.exit(2, f"{PROG}: {message} (see {PROG} --help)\n")


def parse_args(argv):
    ap = Parser(prog=PROG, description="Draws every committed run's figures and report.html again, from results.json",
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="Exit codes: 0 every run drawn; 1 a run failed, or a headline figure was not drawn;\n"
                       "2 bad arguments, a missing run, a malformed index or manifest; 130 interrupted.")
    ap.add_argument("runs", nargs="*", metavar="RUN",
                    help="only these run directories (or their results.json; as given, or relative to results/)")
    ap.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                    help="where to draw: DIR/<machine>/<run>/ (default: build/reproduced, which git ignores)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--reference", action="store_true",
                       help="only the reference runs (results/reference-runs.json)")
    which.add_argument("--headlines", action="store_true",
                       help="the runs the headline manifest names, then copy each headline PNG to figures/ beside it")
    ap.add_argument("--manifest", metavar="FILE", default=MANIFEST,
                    help="the headline manifest (default: results/figures.json); its runs are relative to its "
                         "folder, and --headlines copies into figures/ beside it")
    default_jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    ap.add_argument("--jobs", "-j", metavar="N", type=int, default=default_jobs,
                    help=f"runs drawn at once, each in a process of its own (default: the CPUs, {default_jobs})")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs {args.jobs}: give 1 or more processes")
    if args.runs and (args.reference or args.headlines):
        ap.error("RUN ... and --reference or --headlines choose the runs each: give one of them")
    results = os.path.realpath(RESULTS)
    if os.path.commonpath([os.path.realpath(args.out), results]) == results:
        ap.error(f"--out {args.out} is inside results/, which tracks data only: draw elsewhere "
                 "(default build/reproduced)")
    return args


def summary(drawn: list[Drawn], out: str, seconds: float, jobs: int) -> str:
    ok = [d for d in drawn if d.ok]
    failed = [d for d in drawn if not d.ok]
    figures = sum(d.figures for d in ok)
    reports = sum(d.report for d in ok)
    line = (f"{PROG}: {len(ok)} of {plural(len(drawn), 'run')} drawn, {plural(figures, 'figure')}, "
            f"{plural(reports, 'report')}, "
            f"{len(failed)} failed, in {seconds:.1f} s ({jobs} at a time); under {rel(out)}")
    return line + "".join(f"\n{PROG}: FAILED {d.run.name}" for d in failed)


def choose_runs(args) -> tuple[list[Run], list[dict] | None]:
    if args.headlines:
        entries = load_manifest(args.manifest)
        return manifest_runs(entries, args.manifest), entries
    if args.reference:
        return reference_runs(), None
    if args.runs:
        return named_runs(args.runs), None
    return tracked_runs(), None


def run(argv) -> int:
    args = parse_args(argv)
    try:
        runs, entries = choose_runs(args)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    if not runs:
        print(f"{PROG}: no runs to draw" + (f" ({rel(args.manifest)} lists no figures)" if args.headlines else ""),
              file=sys.stderr)
        return 0
    out = os.path.abspath(args.out)
    jobs = min(args.jobs, len(runs))
    t0 = time.monotonic()
    drawn = draw_all(runs, out, jobs)
    print(summary(drawn, out, time.monotonic() - t0, jobs), file=sys.stderr)
    if any(not d.ok for d in drawn):
        if entries:
            print(f"{PROG}: no headline copied while a run failed", file=sys.stderr)
        return 1
    if entries:
        faults = copy_headlines(entries, out, args.manifest)
        for f in faults:
            print(f"{PROG}: FAILED {f}", file=sys.stderr)
        if faults:
            return 1
        print(f"{PROG}: {plural(len(entries), 'headline figure')} copied to "
              f"{rel(os.path.join(os.path.dirname(args.manifest), 'figures'))}", file=sys.stderr)
    return 0


def _terminated(signum, frame):
    raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the children are stopped and cleaned up


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, _terminated)
    try:
        return run(argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; the runs already drawn are whole, no partial one is left", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
