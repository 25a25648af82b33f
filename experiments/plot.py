#!/usr/bin/env python3
"""Plots and a self-contained report.html from parlab result files.

Reads RUN_DIR/results.json only (never console text) and writes RUN_DIR/plots/*.png and *.svg
and RUN_DIR/report.html. Output is deterministic: the same results.json gives byte-identical
files (fixed SVG hash salt, no dates in metadata, sorted groups).

    python3 experiments/plot.py results/<host>/<run> [--out DIR] [--quiet]   # or: parlab report <run>

This script is the command line; the work is done by the package beside it, experiments/figures/
(its docstring says which module draws what): load (results.json, InputError, record helpers),
labels (formatting), plotter, one module per figure family, summary (the report's first screen)
and report (report.html). Every name plot.py had before the split is re-exported here, so
`import plot` and `from plot import ...` (experiments/compare.py, the tests) keep working.

Figures (plots/<name>.png and .svg; a family draws nothing where the run has no data for it):
  speedup_<study>_<scaling>_<kernel>...   speedup = median serial time / median time, and parallel
                                efficiency, vs threads per backend, with the ideal line
                                (strong scaling); weak-scaling efficiency T(1)/T(n)
  bandwidth_<kernel>...         bytes/s vs array footprint per backend, cache sizes marked
  throughput_<study>_<kernel>...  rate of each backend at its most workers (threads, or ranks x threads)
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
  peers_<kernel>                parlab's rate over each Python peer's, same run
Exit codes: 0 done; 2 the input is missing or malformed, or the output cannot be written (the
message says what and where); 130 interrupted; 3 an internal error (one line, please report it).
"""
from __future__ import annotations

import argparse
import os
import sys

# figures/ sits beside this script, in the source tree and wherever the two are installed.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# Every public name of the single-file plot.py, re-exported from where it lives now; __all__ lists
# them, with main and draw_figures.
from figures import draw_figures  # noqa: E402
from figures.bandwidth import bandwidth_figures  # noqa: E402
from figures.convergence import (QUARTER_PI, convergence_figures, convergence_points,  # noqa: E402
                                 convergence_summary, pi_relative_sigma)
from figures.crossover import crossover_figures  # noqa: E402
from figures.gil import gil_figures, gil_series, shared_private_figure  # noqa: E402
from figures.gpu import MULTI_GPU, gpu_study_figures, multi_gpu_figures, multi_gpu_series  # noqa: E402
from figures.labels import (bar_label, fmt_rate, fmt_size, fmt_time, hosts_note, interpreter_suffix,  # noqa: E402
                            interpreter_tag, layout_label, time_scale)
from figures.load import (LAB_KERNELS, LOGGING_KERNELS, MPI_PROBE_KERNELS, OVERHEAD_KERNELS,  # noqa: E402
                          RACE_KERNELS, SCHEMA, STUDY_KERNELS, TRANSFER_KERNELS, InputError, element_bytes,
                          load_run, ok_records, per_op_us, ranks_of, rate_of, workers)
from figures.mixed_mode import mixed_mode_figures, mixed_mode_series  # noqa: E402
from figures.models import (PY_MODEL_STUDIES, PY_TASK_MODELS, python_models_crossovers,  # noqa: E402
                            python_models_figure, python_models_figures, python_models_note, python_models_table)
from figures.mpi import (MPI_PROBE_NAMES, mpi_figures, mpi_latency_figures, mpi_latency_series,  # noqa: E402
                         mpi_scaling_figures, mpi_scaling_series)
from figures.overhead import overhead_figures  # noqa: E402
from figures.peers import GPU_PEERS, peers_figures, peers_table  # noqa: E402
from figures.plotter import Plotter  # noqa: E402
from figures.races import race_figures  # noqa: E402
from figures.report import report_html  # noqa: E402
from figures.scaling import scaling_figures, scaling_series  # noqa: E402
from figures.summary import mpi_summary, run_summary, summary_html  # noqa: E402
from figures.throughput import throughput_figures  # noqa: E402

__all__ = ["bandwidth_figures", "bar_label", "convergence_figures", "convergence_points", "convergence_summary",
           "crossover_figures", "draw_figures", "element_bytes", "fmt_rate", "fmt_size", "fmt_time", "gil_figures",
           "gil_series", "GPU_PEERS", "gpu_study_figures", "hosts_note", "InputError", "interpreter_suffix",
           "interpreter_tag", "LAB_KERNELS", "layout_label", "load_run", "LOGGING_KERNELS", "main",
           "mixed_mode_figures", "mixed_mode_series", "mpi_figures", "mpi_latency_figures", "mpi_latency_series",
           "MPI_PROBE_KERNELS", "MPI_PROBE_NAMES", "mpi_scaling_figures", "mpi_scaling_series", "mpi_summary",
           "MULTI_GPU", "multi_gpu_figures", "multi_gpu_series", "ok_records", "overhead_figures",
           "OVERHEAD_KERNELS", "peers_figures", "peers_table", "per_op_us", "pi_relative_sigma", "Plotter",
           "PY_MODEL_STUDIES", "PY_TASK_MODELS", "python_models_crossovers", "python_models_figure",
           "python_models_figures", "python_models_note", "python_models_table", "QUARTER_PI", "race_figures",
           "RACE_KERNELS", "ranks_of", "rate_of", "report_html", "run_summary", "scaling_figures", "scaling_series",
           "SCHEMA", "shared_private_figure", "STUDY_KERNELS", "summary_html", "throughput_figures", "time_scale",
           "TRANSFER_KERNELS", "workers"]


def main(argv=None) -> int:
    """Exit codes (README, "Exit codes"): 0 done; 2 the input is missing or malformed, or the
    output cannot be written (the message names it); 130 interrupted; 3 an internal error, one
    line and no traceback (a traceback would exit 1, which means "a measurement failed")."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("plot.py: interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        print(f"plot.py: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 -- the contract above
        print(f"plot.py: internal error, please report: {type(e).__name__}: {e}", file=sys.stderr)
        return 3


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Plots and report.html from a parlab run directory",
                                 epilog="Exit codes: 0 done; 2 the input is missing or malformed, or the output "
                                        "cannot be written; 130 interrupted; 3 internal error (please report).")
    ap.add_argument("run_dir", help="a directory holding results.json (or the file itself)")
    ap.add_argument("--out", help="where to write plots/ and report.html (default: the run directory)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    try:
        doc = load_run(args.run_dir)
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    out = args.out or os.path.dirname(doc["_path"]) or "."
    plot_dir = os.path.join(out, "plots")
    p = Plotter(plot_dir)
    peers = draw_figures(p, doc)
    report = os.path.join(out, "report.html")
    tmp = report + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(report_html(doc, plot_dir, p.figures, peers))
    os.replace(tmp, report)
    if not args.quiet:
        print(f"plot.py: {len(p.figures)} figures in {plot_dir}, report {report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
