"""parlab's Python analysis: the table, figures, report.html and `parlab compare`, from
results.json only.

The C++ CLI (experiments/) runs the entry points as scripts: `parlab report RUN` runs plot.py,
`parlab compare BASE NEW` runs compare.py. Both put the folder above this package on sys.path, so
the package works the same from the source tree (where it sits at the top, beside experiments/),
a build tree's share/parlab mirror and an installed share/parlab. tools/findings imports it too.

Every per-record figure (a record's rate, spread, share of its roof and whether it is above it,
its POP hierarchy, the causes) is made once, in C++, where the run is made: this package reads it.
What it computes spans records: speedups, the plausibility marks that need one, the series the
figures draw, comparisons. Its layers, each importing only from those above it (a test checks the
import graph: no import runs back up, and none is hidden inside a function):

  reading   read, untrusted, style, terminal, spread, validate, workers, share_interval, records,
            labels, roofs, writer, index
  spanning  series, series_mpi, plausible, table, pop, compare_stats, compare_context
  telling   pop_text, summary, incore, machine, hierarchy, reference, compare_report, compare_text,
            exit_codes
  drawing   figures/ (only draws: matplotlib, from the series and records above)
  commands  report, plot, compare

Modules:
  read            the one guarded reader of the files both commands are given (exit 2 on a bad one)
  untrusted       text from a results file made safe for where it goes: HTML escaped, control
                  characters shown on a terminal, Markdown and CSV cells, figure file names
  spread          the spread of a set of repetitions (quartiles, CV, the median's interval), the
                  unstable mark, a rate's interquartile band and a ratio's, as the runner computes them
  validate        a results.json held against its schema as it is read: a wrong type or a number
                  that is not finite is exit 2 naming the file, record and field
  workers         a record's workers block: what its schema cannot check (arrays that agree with
                  the workers they count), checked as a run is read
  share_interval  a record's share of its roof as an interval, as the run wrote it (and for runs of
                  older schemas, the same rule the runner applies)
  records         a run read and checked (InputError), its rounds pooled, and the record accessors
                  (rate_of, ok_records, ranks_of, family_of, workers, ...)
  index           the one index of the runs results/ keeps (results/runs.json), and its one reader
  labels          formatting for axes, captions and tables (fmt_size, fmt_rate, fmt_time,
                  interpreter and MPI layout labels)
  roofs           each record's share of its roof as the run wrote it, in words (share_text)
  series          what the figures plot, as data: scaling, GIL, Python models, libraries, GPUs,
                  convergence
  series_mpi      the MPI figures' data: speedup and probe latency over ranks, mixed mode
  plausible       results that cannot be right, marked in the table and the report: a speedup
                  above the CPUs used, more workers than CPUs free at the start
  table           the results on stdout: one line per record with its spread, roof share and
                  speedup, as a table within the terminal, Markdown, CSV or JSON
  pop             where the speedup went: the POP efficiency hierarchy each record carries, with
                  the speedup over the record's own reference and computation scaling
  pop_text        the hierarchy on stdout (`--summary pop`), per kernel and backend within the width
  summary         the run summary, the report's first screen, and the one rule for a group's
                  fastest record (speed_groups, fastest_of)
  incore          the report's "In-core bounds" section, for the kernels the run measured
  machine         the report's machine table, the run's stability and its context by section
  hierarchy       the report's "Where the speedup went": the hierarchy per kernel and backend
  reference       this machine against the reference runs (results/reference-runs.json)
  compare_stats   the Mann-Whitney U test and the ratio interval, without SciPy
  compare_context the two runs' contexts flattened, and the settings that differ (machine first)
  compare_report  what compare draws: its report.html, and the wording its text shares with it
  compare_text    what compare prints: the comparison as text within the terminal's width
  figures/        one figure module per kind of figure (figures/__init__.py lists them)
  writer          the one figure and HTML writer both reports use: deterministic PNG/SVG files,
                  figures embedded in a self-contained page, every file written atomically, and
                  strict JSON (no NaN or Infinity)
  style           the one stylesheet of both pages, one class name per meaning
  report          report.html of a run (report_html)
  terminal        the terminal's width and text wrapped to it, as experiments/io/terminal.hpp
  exit_codes      the exit-code contract of the Python commands, in one place (run_command)
  plot            the command line of the run report (plots/ and report.html of a run)
  compare         the command line of `parlab compare`: matching, verdicts, scaling shape
"""
