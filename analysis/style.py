"""The one stylesheet of the analysis package's pages: the run report (report.py) and
compare's report (compare_report.py) both take it through writer.page_head, so a class means the
same on both pages. One class name per meaning:

  l            a left-aligned cell (text; numbers stay right-aligned)
  failed       a measurement that failed validation or errored (a row, a heading, a line)
  warn         a warning or a note to heed
  muted        a secondary detail (a path, "no record")
  small        a small note under a heading
  slower, faster, same
               compare's verdicts (and a scaling shape's: worse, better, same)
  tiles, tile  compare's first screen: one tile per count
  runs         compare's table of the two runs and their differing context
  rec          a record's label, kept on one line
  num          a number with its spread or unit ("0.1307 ± 0.0029", "12.2 Gsamples/s"), on one line
  summary      the report's table of findings
  ceilings     the report's line on the machine's measured roofs
  reference, refs, bar, over
               the report's comparison with the reference runs: the table, the list of runs,
               a fraction drawn as a bar, and a fraction above its roof
  machine      the report's first table: CPU, cores, memory, GPU, compiler, build type
  stability    the report's line (and list) on the load at the start and the unstable records
  context      the report's context: one folded section (details) per key, and its tables
  pop, pop-good, pop-fair, pop-poor
               the report's efficiency hierarchy (hierarchy.py): its tables, and a
               factor's cell on POP's scale (good, fair, poor: pop.GOOD and pop.FAIR)

tests/python/test_style.py checks that every class either page writes has a rule here."""

STYLE = ("body{font-family:sans-serif;margin:2em;max-width:1200px}img{max-width:100%}"
         "table{border-collapse:collapse;font-size:12px}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}td.l,th.l{text-align:left}"
         ".failed{background:#fdd;color:#900}.warn{color:#a60}.muted{color:#777}.small{font-size:12px;color:#555}"
         ".slower{color:#b00;font-weight:bold}.faster{color:#070;font-weight:bold}.same{color:#666}"
         ".tiles{display:flex;gap:12px;margin:8px 0 12px 0}.tile{border:1px solid #ccc;border-radius:6px;padding:6px 14px;"
         "min-width:110px;text-align:center}.tile b{display:block;font-size:28px}.tile.slower b{color:#b00}"
         ".tile.faster b{color:#070}.runs td{text-align:left}td.rec{white-space:nowrap}"
         "table.summary{font-size:13px;margin-bottom:1em}table.summary td{vertical-align:top}.ceilings{font-size:13px}"
         "table.reference{font-size:13px}table.reference td{vertical-align:top}ul.refs{font-size:13px}"
         ".bar{display:inline-block;height:8px;background:#4a7;margin-right:6px}.bar.over{background:#c84}"
         "table.machine{font-size:13px;margin:6px 0}table.machine td{vertical-align:top}"
         ".stability{font-size:13px;margin:4px 0}details.stability>summary{cursor:pointer}"
         "details.context{margin:4px 0}details.context>summary{cursor:pointer;font-weight:bold}"
         "table.context{margin:2px 0 2px 1em}table.context td{vertical-align:top}td.num{white-space:nowrap}"
         "ul.context{margin:2px 0;padding-left:1.5em}"
         "table.pop{font-size:13px;margin:4px 0}table.pop td{min-width:3.5em}"
         ".pop-good{background:#9fd89f}.pop-fair{background:#fcd581}.pop-poor{background:#f29b94}")
