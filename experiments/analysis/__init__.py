"""parlab's Python analysis: figures, report.html and `parlab compare`, from results.json only.

The C++ CLI (experiments/*.cpp) runs the entry points as scripts: `parlab report RUN` runs
plot.py, `parlab compare BASE NEW` runs compare.py. Both put the folder above this package on
sys.path, so the package works the same from the source tree, a build tree's share/parlab
mirror and an installed share/parlab.

Modules:
  plot            the command line of the run report (plots/ and report.html of a run)
  table           the results on stdout: one line per record with its spread, roof share and
                  speedup, as a table within the terminal, Markdown, CSV or JSON
  figures/        one figure module per kind of figure, the loader (figures.load) and the run report
  compare         the command line of `parlab compare`: matching, verdicts, scaling shape
  compare_context the two runs' contexts flattened, and the settings that differ (machine first)
  compare_stats   the Mann-Whitney U test and the ratio interval, without SciPy
  compare_report  what compare draws: its report.html, and the wording its text shares with it
  compare_text    what compare prints: the comparison as text within the terminal's width
  pop             where the speedup went: the POP efficiency hierarchy (load balance,
                  communication, parallel efficiency, computation scaling and its counter factors,
                  global efficiency) of each record with accounted workers, against the speedup's
                  own reference
  pop_text        the hierarchy on stdout (`--summary pop`), per kernel and backend within the width
  workers         a record's workers block: what its schema cannot check (arrays that agree with
                  the workers they count), checked as a run is read
  plausible       results that cannot be right, marked in the table and the report: a speedup
                  above the CPUs used, more workers than CPUs free at the start
  terminal        the terminal's width and text wrapped to it, as experiments/io/terminal.hpp
  exit_codes      the exit-code contract of the Python commands, in one place (run_command)
  writer          the one figure and HTML writer both reports use: deterministic PNG/SVG files,
                  figures embedded in a self-contained page, every file written atomically, and
                  strict JSON (no NaN or Infinity)
  style           the one stylesheet of both pages, one class name per meaning
  read            the one guarded reader of the files both commands are given (exit 2 on a bad one)
  validate        a results.json held against its schema as it is read: a wrong type or a number
                  that is not finite is exit 2 naming the file, record and field
  share_interval  a record's share of its roof as an interval (its quartiles against the lowest and
                  highest roof measured in the run) and whether the whole of it lies above 1
  untrusted       text from a results file made safe for where it goes: HTML escaped, control
                  characters shown on a terminal, Markdown and CSV cells, figure file names
  spread          the spread of a set of repetitions (quartiles, CV, the median's interval), the
                  unstable mark and a rate's interquartile band, as the runner computes them
"""
