"""The figures of a parlab run, and only its figures: each module draws, from the series and
records the package above reads (analysis/series.py, records.py, roofs.py); analysis/report.py
puts them in report.html. The output is deterministic: the same results.json gives
byte-identical PNG and SVG files.

Modules:
  bars          error bars and the unstable mark, drawn one way in every throughput, speedup and
                scaling figure (the bands themselves are analysis/spread.py's)

Figure modules, in the order draw_figures draws them (file names under plots/, .png and .svg;
roofline, listed below with the rest, is drawn first):
  scaling       speedup_<study>_<scaling>_<kernel>_<N>_<precision>: speedup = median serial time /
                median time, and parallel efficiency, vs threads per backend, with the ideal
                line (strong scaling), and for a memory-bound kernel the bandwidth roof over the
                baseline's rate, where the curve must flatten; weak-scaling efficiency T(1)/T(n)
  bandwidth     bandwidth_<kernel>_<precision>: bytes/s vs array footprint per backend, cache
                sizes marked
  roofline      roofline_cpu, roofline_gpu: attained flop/s vs flops per byte, log-log, the run's
                measured roofs as lines, each (kernel, backend) at its best thread count; beside it
                every point's share of its own roof (copy and pi, off the flop axis, too). Nothing
                where the run has no ceilings
  throughput    throughput_<study>_<kernel>_<N>_<precision>: the rate of each backend at its most
                workers (threads, or ranks x threads), at the largest size measured
  efficiency    efficiency_<study>_<kernel>_<N>_<precision>: POP's efficiency hierarchy per
                backend against its workers, each factor's range over the repetitions as a bar
  timeline      timeline_<study>_<kernel>_<N>_<precision>: each worker's chunks in the traced run
                of a record (workers.trace), one panel per backend at its most threads, coloured
                by CPU (a legend says which), one time unit a figure, the region's end marked
  gil           gil: every Python variant's speedup over its own one thread, per interpreter and
                GIL state; gil_shared_private: pure-Python pi with shared against private state
  gpu           gpu_transfers: host-device bandwidth vs size (pageable vs pinned, many small
                copies vs one large); gpu_logging: kernel and transfer time of the logging study;
                multi_gpu: all GPUs against one, concurrent and one after another
  races         races: the race lab, how often and by how much each kernel's result differs
  overhead      overhead: EPCC-style scheduling overhead per construct vs threads
  crossover     crossover_<kernel>: serial time / backend time vs size, where parallel pays
  models        python_models, python_models_nogil: the task-based Python models against one
                thread, and their per-task overhead, vs size
  convergence   convergence: pi's relative error vs N against the binomial 1 and 3 sigma bounds
  mpi           mpi_speedup_<study>_<scaling>_<kernel>_<N>_<precision>_t<threads>: speedup and
                efficiency over MPI ranks, beside the best single process; mpi_latency: the
                OSU-style probes (barrier, allreduce, broadcast) vs ranks
  mixed_mode    mixed_mode_<study>_<kernel>_<N>_<precision>: EPCC mixed mode, the same cores as
                ranks x threads, one process x threads and the hybrids between
  libraries     libraries_<kernel>: parlab's rate over each Python library backend's (NumPy, Numba,
                CuPy, PyTorch) in the same run
"""
from __future__ import annotations

from analysis.figures.bandwidth import bandwidth_figures
from analysis.figures.convergence import convergence_figures
from analysis.figures.crossover import crossover_figures
from analysis.figures.efficiency import efficiency_figures
from analysis.figures.gil import gil_figures
from analysis.figures.gpu import gpu_study_figures, multi_gpu_figures
from analysis.figures.models import python_models_figures
from analysis.figures.mpi import mpi_figures
from analysis.figures.overhead import overhead_figures
from analysis.figures.libraries import libraries_figures
from analysis.writer import Plotter
from analysis.figures.races import race_figures
from analysis.figures.roofline import roofline_figures
from analysis.figures.scaling import scaling_figures
from analysis.figures.throughput import throughput_figures
from analysis.figures.timeline import timeline_figures


def draw_figures(p: Plotter, doc: dict) -> list[dict]:
    """Every figure module's figures of a run, in the report's order; returns the libraries table (the
    report shows it as a table too)."""
    # The rooflines first: how close to the machine's roofs the run came is the report's headline.
    roofline_figures(p, doc)
    scaling_figures(p, doc)
    bandwidth_figures(p, doc)
    throughput_figures(p, doc)
    efficiency_figures(p, doc)
    timeline_figures(p, doc)
    gil_figures(p, doc)
    gpu_study_figures(p, doc)
    multi_gpu_figures(p, doc)
    race_figures(p, doc)
    overhead_figures(p, doc)
    crossover_figures(p, doc)
    python_models_figures(p, doc)
    convergence_figures(p, doc)
    mpi_figures(p, doc)
    return libraries_figures(p, doc)
