#!/usr/bin/env python3
"""Every figure and report.html of the committed runs, drawn again from their results.json.

    scripts/reproduce-figures.sh [--out DIR] [--jobs N] [--reference | --headlines | RUN ...]

results/ tracks data only (results.json, logs, ceilings); the figures and reports are generated,
so they are drawn here rather than committed. Each run goes through analysis/plot.py,
as `parlab report` draws it, into OUT/<machine>/<run>/ (default build/reproduced/, which git
ignores), the runs in parallel processes (--jobs, default one per CPU). Which runs:

  (default)     every run directory git tracks under results/ (without git: every results.json
                under results/, your own runs included)
  --reference   the reference runs that the index (results/runs.json) marks
  --headlines   the runs that the index names headline figures of; then each headline PNG is
                copied to results/figures/, the few figures the READMEs show
  RUN ...       these run directories (or their results.json), anywhere

Each report compares its run with the committed reference runs of results/, whatever
$PARLAB_REFERENCE says, so a reproduced report is the one a checkout of the same commit draws.
A run is drawn into a temporary folder of this invocation beside its place and renamed there once
whole, replacing an older drawing of it: an interrupt (Ctrl-C, SIGTERM) stops the children and
leaves no partial drawing, and two reproductions into one folder at once each leave whole
drawings. It removes only what it made: its temporaries, the older drawing it replaced, and a
folder it created that stayed empty. A run is never drawn into itself, a folder holding it or a
folder inside it, nor over a folder that holds a results.json (a run, not a drawing): refused
before anything is drawn. A run whose drawing fails leaves an older drawing of it as it was.

Exit codes: 0 every run drawn (and, with --headlines, every headline copied); 1 a run failed
(FAILED with plot.py's message; the others are still drawn) or a headline figure was not drawn;
2 bad arguments, a malformed index, a run named . or .., a destination that would
hold a run, or a headline that cannot be written, naming what to fix; 3 an internal error (one
line, please report it); 130 interrupted.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import errno
import glob
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from typing import NamedTuple

PROG = "reproduce-figures.sh"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")
PLOT = os.path.join(ROOT, "analysis", "plot.py")
DEFAULT_OUT = os.path.join(ROOT, "build", "reproduced")
INDEX = os.path.join(RESULTS, "runs.json")  # the one index of the committed runs (analysis/index.py)
KILL_AFTER_S = 10  # a child that outlives SIGTERM by this long is killed
RENAME_TRIES = 8  # another reproduction may rename its drawing of the same run in meanwhile

sys.path.insert(0, ROOT)  # the analysis package: the index's one reader
from analysis.index import headline_figures, read_index, relative_path_problem  # noqa: E402
from analysis.read import InputError  # noqa: E402


class UsageError(Exception):
    """A bad argument, a missing run, a malformed index: exit 2, the message says
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
    return [make_run(d, os.path.relpath(d, RESULTS), rel(os.path.join(d, "results.json"))) for d in dirs]


def index_runs(path: str) -> list[dict]:
    """The index's runs through its one reader (analysis/index.py); a fault is a UsageError naming
    the run and the key. A directory or a FIFO in the index's place is refused, never waited on."""
    if os.path.isdir(path):  # read_json's io would name the descriptor, not the file
        raise UsageError(f"the index: {path}: a directory, not a file")
    try:
        return read_index(path)
    except InputError as e:
        raise UsageError(f"the index: {e}") from None
    except OSError as e:
        raise UsageError(f"the index: {path}: cannot be read ({e.strerror})") from None


def make_run(src: str, name: str, source: str) -> Run:
    """Run(src, name), its name checked: a plain relative path of one folder or more, as the drawing's
    place under --out. `source` is where the name came from, for the message."""
    problem = relative_path_problem(name)
    if problem:
        raise UsageError(f"{source}: the run {src} would be drawn under the name {name!r}, which {problem}: "
                         "a run is drawn into <machine>/<run> below --out, never into --out itself")
    return Run(src, os.path.normpath(name))


def reference_runs(index: str = INDEX) -> list[Run]:
    """The runs the index marks as reference runs, each checked to hold results.json."""
    return [make_run(r["dir"], r["path"], f"{rel(index)}: {r['path']}") for r in index_runs(index) if "reference" in r]


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
        runs.append(make_run(src, name, given))
    return unique(runs)


def unique(runs: list[Run]) -> list[Run]:
    """runs less repeats; two different runs that would be drawn into one folder are refused."""
    by_name: dict[str, Run] = {}
    for run in runs:
        other = by_name.setdefault(run.name, run)
        if os.path.realpath(other.src) != os.path.realpath(run.src):
            raise UsageError(f"{other.src} and {run.src} would both be drawn into {run.name}: name one at a time")
    return list(by_name.values())


# --- the headline figures ---------------------------------------------------------------------

def headline_entries(path: str = INDEX) -> list[dict]:
    """The headline figures the index names: [{file, run, figure, what}], each checked by the
    index's reader (a file name under figures/ beside the index, once only; a run holding
    results.json; a figure, a PNG relative to the run's drawing). A fault names its run."""
    return headline_figures(index_runs(path))


def headline_runs(entries: list[dict], path: str = INDEX) -> list[Run]:
    folder = os.path.dirname(path)
    return unique([make_run(os.path.abspath(os.path.join(folder, e["run"])), e["run"], f"{rel(path)}: figure {i}")
                   for i, e in enumerate(entries)])


def copy_headlines(entries: list[dict], out: str, path: str = INDEX) -> list[str]:
    """Copies each entry's drawn figure to figures/ beside the index, once every one is found;
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
    targets = [os.path.join(figures, e["file"]) for e in entries]
    for target in targets:  # checked before any is copied, so figures/ is not left half new
        if os.path.isdir(target) and not os.path.islink(target):
            raise OSError(errno.EISDIR, "a folder is in its place", target)
    for e, target in zip(entries, targets):
        copy_atomically(os.path.join(out, os.path.normpath(e["run"]), e["figure"]), target)
    return []


def copy_atomically(src: str, target: str) -> None:
    """src copied to a fresh temporary file beside target (mkstemp: O_EXCL, so nothing planted
    there is written through) and renamed over it; a link at target is replaced, never followed.
    src is read only as a regular file, not through a link (it is this invocation's drawing)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as dst:
            src_fd = os.open(src, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(src_fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise OSError(errno.EINVAL, "not a regular file", src)
                shutil.copyfileobj(f, dst)
            os.fchmod(dst.fileno(), 0o644)  # mkstemp's 0600 would make the figure its copier's only
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # renamed already
        raise


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


class NotADrawing(Exception):
    """What is at a run's place under --out is no drawing (a file, a link, a folder holding a
    results.json): left as it is, the run not drawn."""


def not_a_drawing(final: str) -> str | None:
    """Why what is at `final` must not be replaced by a drawing, or None (nothing there, or an
    older drawing: a folder without a results.json anywhere below it)."""
    try:
        st = os.lstat(final)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return f"{final} exists and is no drawing (a link or a file): remove it or draw elsewhere"
    for folder, _, files in os.walk(final):  # links below are not followed
        if "results.json" in files:
            return (f"{final} holds a run ({os.path.join(folder, 'results.json')}), not a drawing: "
                    "draw elsewhere (--out), the run is left as it is")
    return None


def replace_dir(new: str, final: str) -> None:
    """Puts this invocation's folder `new` at `final`. An older drawing there is moved into a
    temporary folder of this invocation and removed after (never what not_a_drawing refuses).
    Another reproduction may rename its drawing of the same run to `final` meanwhile: then that
    is the older drawing, and the last to finish stays, each whole, never mixed."""
    parent, base = os.path.dirname(final), os.path.basename(final)
    moved = []
    try:
        for _ in range(RENAME_TRIES):
            try:
                os.rename(new, final)  # onto nothing (or an empty folder): atomic
                return
            except OSError as e:
                if e.errno == errno.ENOTDIR:
                    raise NotADrawing(not_a_drawing(final) or f"{final} exists and is no folder") from None
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
            problem = not_a_drawing(final)
            if problem:
                raise NotADrawing(problem)
            old = tempfile.mkdtemp(prefix=f".{base}.old-", dir=parent)
            moved.append(old)
            try:
                os.rename(final, os.path.join(old, "run"))
            except FileNotFoundError:
                pass  # another reproduction moved it first
        raise OSError(errno.EBUSY, "other reproductions kept renaming a drawing there", final)
    finally:
        for old in moved:
            shutil.rmtree(old, ignore_errors=True)


def make_folder(folder: str) -> list[str]:
    """Makes `folder` and the folders above it that are missing; returns the ones this call made,
    the outermost first: the only ones a failure may remove again. One that another process (or
    thread) made meanwhile is theirs, not listed."""
    missing, d = [], folder
    while not os.path.lexists(d):
        missing.append(d)
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    made = []
    for d in reversed(missing):
        try:
            os.mkdir(d)
            made.append(d)
        except FileExistsError:
            pass  # made meanwhile, by another
    return made


def remove_if_empty(made: list[str]) -> None:
    """Removes the folders of `made` (make_folder's) that hold nothing, the innermost first: one
    that holds something (another run's drawing or temporary) stays, and so do those above it."""
    for d in reversed(made):
        try:
            os.rmdir(d)
        except OSError:
            break


def start_temporary(final: str) -> tuple[str, list[str]]:
    """A fresh folder of this invocation beside `final`, and the folders made for it."""
    made: list[str] = []
    for attempt in range(3):
        made += make_folder(os.path.dirname(final))
        try:
            tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.partial-", dir=os.path.dirname(final))
            os.chmod(tmp, 0o755)  # mkdtemp's 0700 would make the drawing its drawer's only
            return tmp, made
        except FileNotFoundError:  # another's failure removed an empty machine folder meanwhile
            if attempt == 2:
                remove_if_empty(made)
                raise
        except OSError:
            remove_if_empty(made)
            raise
    raise AssertionError("unreachable")


def draw_one(run: Run, out_root: str, children: Children) -> Drawn:
    """plot.py over one run into a temporary folder, renamed to OUT/<name> once plot.py succeeded.
    Whatever happens, only this call's temporary and the folders it made that stay empty are
    removed: never the run, --out, or an older drawing of a run that failed to draw now."""
    final = os.path.join(out_root, run.name)
    t0 = time.monotonic()
    try:
        tmp, made = start_temporary(final)
    except OSError as e:
        return Drawn(run, False, message=f"cannot write {e.filename}: {e.strerror}")
    placed = False
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
            how = f"plot.py killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
            # An older drawing is not this invocation's to remove: it stays, and the message says
            # that it is not this data's.
            stale = f" (the older drawing at {rel(final)} is left as it was)" if os.path.lexists(final) else ""
            return Drawn(run, False, seconds=seconds,
                         message=f"({how})" + (f": {err.strip()}" if err.strip() else "") + stale)
        plots = os.path.join(tmp, "plots")
        figures = len([f for f in os.listdir(plots) if f.endswith(".png")]) if os.path.isdir(plots) else 0
        report = os.path.isfile(os.path.join(tmp, "report.html"))
        replace_dir(tmp, final)
        placed = True
        return Drawn(run, True, figures, report, seconds, err.strip())
    except NotADrawing as e:
        return Drawn(run, False, seconds=time.monotonic() - t0, message=str(e))
    except OSError as e:
        return Drawn(run, False, seconds=time.monotonic() - t0, message=f"cannot write {e.filename}: {e.strerror}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # this call's own; gone already where it was renamed
        if not placed:
            remove_if_empty(made)


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
                       "2 bad arguments, a missing run, a malformed index; 130 interrupted.")
    ap.add_argument("runs", nargs="*", metavar="RUN",
                    help="only these run directories (or their results.json; as given, or relative to results/)")
    ap.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                    help="where to draw: DIR/<machine>/<run>/ (default: build/reproduced, which git ignores)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--reference", action="store_true",
                       help="only the reference runs (those the index marks)")
    which.add_argument("--headlines", action="store_true",
                       help="the runs the index names headline figures of, then copy each headline PNG to figures/ "
                         "beside the index")
    ap.add_argument("--index", "--manifest", dest="index", metavar="FILE", default=INDEX,
                    help="the index of runs (default: results/runs.json); its runs are relative to its "
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


def within(path: str, folder: str) -> bool:
    """Whether the real path `path` is `folder` or below it (both real)."""
    return os.path.commonpath([path, folder]) == folder


def destination_problems(runs: list[Run], out: str) -> list[str]:
    """Why a run cannot be drawn into OUT/<name>, each naming the run and the folder: the place
    is one of the runs, holds one, or lies inside one (replacing it would remove the run's
    results.json, and plot.py would write into it); it holds another run's drawing; or what is
    there is no drawing (not_a_drawing). Real paths, so a link leads nowhere else."""
    problems = []
    sources = [(run, os.path.realpath(run.src)) for run in runs]
    for run in runs:
        final = os.path.join(out, run.name)
        real = os.path.realpath(final)
        for other, src in sources:
            if real == src:
                what, why = "is the run itself", "replacing it would remove the run"
            elif within(src, real):
                what, why = "holds the run", "replacing it would remove the run"
            elif within(real, src):
                what, why = "lies inside the run", "drawing there would write into the run"
            else:
                continue
            problems.append(f"{run.name}: its drawing's place {final} {what} {other.src}; {why}: "
                            "choose another --out")
        for other in runs:
            if other.name.startswith(run.name + os.sep):
                problems.append(f"{run.name}: its drawing's place {final} would hold the drawing of {other.name} "
                                f"({run.src} and {other.src}): name one at a time")
        problem = not_a_drawing(final)
        if problem and not any(p.startswith(f"{run.name}: ") for p in problems):
            problems.append(f"{run.name}: {problem}")
    return problems


def choose_runs(args) -> tuple[list[Run], list[dict] | None]:
    if args.headlines:
        entries = headline_entries(args.index)
        return headline_runs(entries, args.index), entries
    if args.reference:
        return reference_runs(args.index), None
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
        print(f"{PROG}: no runs to draw" + (f" ({rel(args.index)} lists no figures)" if args.headlines else ""),
              file=sys.stderr)
        return 0
    out = os.path.abspath(args.out)
    problems = destination_problems(runs, out)
    for problem in problems:
        print(f"{PROG}: {problem}", file=sys.stderr)
    if problems:
        print(f"{PROG}: nothing drawn", file=sys.stderr)
        return 2
    jobs = min(args.jobs, len(runs))
    t0 = time.monotonic()
    drawn = draw_all(runs, out, jobs)
    print(summary(drawn, out, time.monotonic() - t0, jobs), file=sys.stderr)
    if any(not d.ok for d in drawn):
        if entries:
            print(f"{PROG}: no headline copied while a run failed", file=sys.stderr)
        return 1
    if entries:
        try:
            faults = copy_headlines(entries, out, args.index)
        except OSError as e:
            print(f"{PROG}: cannot write {e.filename}: {e.strerror}; no headline copied after it", file=sys.stderr)
            return 2
        for f in faults:
            print(f"{PROG}: FAILED {f}", file=sys.stderr)
        if faults:
            return 1
        print(f"{PROG}: {plural(len(entries), 'headline figure')} copied to "
              f"{rel(os.path.join(os.path.dirname(args.index), 'figures'))}", file=sys.stderr)
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
    except Exception as e:  # noqa: BLE001 -- one line, never a traceback (it would exit 1: "a run failed")
        print(f"{PROG}: internal error, please report: {type(e).__name__}: {e}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
