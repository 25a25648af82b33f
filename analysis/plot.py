#!/usr/bin/env python3
"""Plots and a self-contained report.html from parlab result files.

Reads RUN_DIR/results.json only (never console text) and writes RUN_DIR/plots/*.png and *.svg
and RUN_DIR/report.html. Output is deterministic: the same results.json gives byte-identical
files (fixed SVG hash salt, no dates in metadata, sorted groups).

    python3 analysis/plot.py results/<host>/<run> [--out DIR] [--quiet]   # or: parlab report <run>
        [--summary table|markdown|csv|json|none|pop] [--summary-only]   # the results on stdout (table.py,
                                                                         # pop_text.py)
        [--reference DIR ... | --no-reference]   # the runs report.html compares this one with

This script is the command line; the work is done by the package it belongs to,
analysis/ (figures/'s docstring says which module draws what): records
(results.json, InputError, record helpers), labels (formatting), writer (the figure and
HTML writer), one figure module per kind of figure, summary (the report's first screen) and
report (report.html). Callers import from those modules; this script exports main only.

Figures (plots/<name>.png and .svg; a figure module draws nothing where the run has no data for it):
  speedup_<study>_<scaling>_<kernel>...   speedup = median serial time / median time, and parallel
                                efficiency, vs threads per backend, with the ideal line
                                (strong scaling); weak-scaling efficiency T(1)/T(n)
  bandwidth_<kernel>...         bytes/s vs array footprint per backend, cache sizes marked
  throughput_<study>_<kernel>...  rate of each backend at its most workers (threads, or ranks x threads)
  timeline_<study>_<kernel>...  each worker's chunks in one traced run, a panel per backend
  gil, gil_shared_private       Python variants' speedup over their own 1 thread, per interpreter
                                and GIL state; pure-Python pi with shared vs private state
  gpu_transfers, gpu_logging    host-device transfer bandwidth vs size; the logging study's split
  multi_gpu                     all GPUs against one, concurrent and one after another
  races                         the race lab: share of differing trials and largest deviation
  overhead                      EPCC-style scheduling overhead per construct vs threads
  crossover_<kernel>            serial time / backend time vs size: where parallel starts to pay
  python_models[_nogil]         Python task models vs one thread, and per-task overhead, vs size
  convergence                   pi's relative error vs N with the binomial 1 and 3 sigma bounds
  mpi_speedup_..., mpi_latency  speedup over MPI ranks; OSU-style probe latency vs ranks
  mixed_mode_<study>_<kernel>...  EPCC mixed mode: the same cores as ranks x threads and hybrids
  libraries_<kernel>            parlab's rate over each Python library backend's, same run
Exit codes: 0 done; 2 the input is missing or malformed, or the output cannot be written (the
message says what and where); 130 interrupted; 3 an internal error (one line, please report it).
"""
from __future__ import annotations

import argparse
import os
import sys

if __package__ in (None, ""):  # run as a script (parlab report): the package is in the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analysis.figures import draw_figures  # noqa: E402
from analysis.exit_codes import run_command, say  # noqa: E402
from analysis.read import InputError  # noqa: E402
from analysis.records import load_run  # noqa: E402
from analysis.reference import reference_section, reference_sources  # noqa: E402
from analysis.report import SizedPlotter, matplotlib_backend, report_html  # noqa: E402
from analysis.pop_text import render_pop  # noqa: E402
from analysis.table import FORMATS, render  # noqa: E402
from analysis.terminal import lenient_streams, terminal_width, write_out  # noqa: E402
from analysis.writer import write_page  # noqa: E402

__all__ = ["main"]


def main(argv=None) -> int:
    """Exit codes (README, "Exit codes"): 0 done; 2 the input is missing or malformed, or the
    output cannot be written (the message names it); 130 interrupted; 3 an internal error, one
    line and no traceback (a traceback would exit 1, which means "a measurement failed")."""
    # A report degrades rather than fails on its environment: a terminal that cannot show "±" gets
    # "?", and a backend name matplotlib does not know gets Agg, which every figure is drawn with.
    lenient_streams()

    def body() -> int:
        matplotlib_backend("plot.py")
        return _main(argv)
    return run_command("plot.py", body)


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Plots and report.html from a parlab run directory",
                                 epilog="Exit codes: 0 done; 2 the input is missing or malformed, or the output "
                                        "cannot be written; 130 interrupted; 3 internal error (please report).")
    ap.add_argument("run_dir", help="a run directory, its results.json, or a folder of runs (--out of parlab run: "
                                    "its newest run is used)")
    ap.add_argument("--out", help="where to write plots/ and report.html (default: the run directory)")
    ap.add_argument("--reference", action="append", metavar="DIR",
                    help="compare with the reference runs of DIR (a folder holding reference-runs.json, or a run "
                         "directory; repeatable; default: $PARLAB_REFERENCE, else the installed or source tree's)")
    ap.add_argument("--no-reference", action="store_true",
                    help="no comparison with reference runs (as PARLAB_REFERENCE=none)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--summary", choices=FORMATS + ("pop",), default="table",
                    help="the results on stdout: a table within $COLUMNS (default 100), markdown, csv, json, none, "
                         "or pop (where the speedup went: the efficiency hierarchy per kernel and backend)")
    ap.add_argument("--summary-only", action="store_true", help="print the summary, draw nothing (`parlab run --no-report`)")
    args = ap.parse_args(argv)
    try:
        doc = load_run(args.run_dir)
    except InputError as e:
        say(f"plot.py: {e}")
        return 2
    write_out(render_pop(doc) if args.summary == "pop" else render(doc, args.summary))
    if args.summary_only:
        return 0
    out = args.out or os.path.dirname(doc["_path"]) or "."
    plot_dir = os.path.join(out, "plots")
    # The references are read before any figure is drawn: a malformed one stops here (exit 2).
    sources, how = reference_sources(args.reference, args.no_reference)
    reference = reference_section(doc, sources, how)
    p = SizedPlotter(plot_dir)
    try:  # every file is written whole or not at all (writer.write_atomically)
        libraries = draw_figures(p, doc)
        report = write_page(os.path.join(out, "report.html"),
                            report_html(doc, plot_dir, p.figures, libraries, reference, left_out=p.left_out))
    except BaseException:
        p.discard_if_empty()
        raise
    if not args.quiet:
        say(done_line(len(p.figures), plot_dir, report, terminal_width()))
    return 0


def done_line(figures: int, plot_dir: str, report: str, width: int) -> str:
    """What was written, within `width` columns where the paths allow: each path as the shorter of
    itself and its form relative to here, and the report on a line of its own when one line is too
    long (a path is never cut: it is copied from here)."""
    def short(path: str) -> str:
        try:
            rel = os.path.relpath(path)
        except ValueError:  # another drive (Windows)
            return path
        return rel if len(rel) < len(path) else path
    one = f"plot.py: {figures} figures in {short(plot_dir)}, report {short(report)}"
    if len(one) <= width:
        return one
    return f"plot.py: {figures} figures in {short(plot_dir)}\nplot.py: report {short(report)}"


if __name__ == "__main__":
    sys.exit(main())
