"""The results table on stdout (analysis/table.py): at the end of `parlab run` and from
`parlab report`, one line per record grouped by kernel and size, with the spread, the share of
roof, the speedup, the fastest marked and unstable records marked, within the terminal's width;
and the same rows as Markdown, CSV and JSON."""
import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, fixture_doc, record, write_doc

sys.path.insert(0, ROOT)
from analysis.records import with_spread  # noqa: E402
from analysis.spread import UNSTABLE_CV  # noqa: E402
from analysis.table import groups, render  # noqa: E402

COMMITTED = os.path.join(ROOT, "results", "h100-node-16core", "20261125T175358Z")


def doc_of(records):
    """A run of these records of schema /2 as the loader reads it: each given its spread."""
    for r in records:
        with_spread(r)
    return {"schema": "parlab-results/5", "records": records}


def test_fastest_speedup_and_unstable_marks():
    recs = [record(0, "serial", 1, 8.0), record(1, "pool", 2, 4.0), record(2, "pool", 4, 2.5)]
    recs[2]["reps_s"] = [1.0, 2.5, 4.0]  # CV 0.6: unstable
    (title, rows), = groups(doc_of(recs))
    assert title.startswith("pi  n=2^20  int32")
    by = {(x["backend"], x["threads"]): x for x in rows}
    assert by[("serial", 1)]["speedup"] == pytest.approx(1.0)
    assert by[("pool", 2)]["speedup"] == pytest.approx(2.0)
    assert [x.get("fastest", False) for x in rows] == [False, False, True]
    assert [x["unstable"] for x in rows] == [False, False, True] and 0.6 > UNSTABLE_CV
    text = render(doc_of(recs), "table", 100)
    line = [l for l in text.splitlines() if l.strip().startswith("pool") and " 4 " in l][0]
    assert line.rstrip().endswith("*!"), line
    assert "--reps" in text and "unstable" in text


def test_failed_and_unavailable_records_say_so():
    recs = [record(0, "serial", 1, 8.0), record(1, "tbb", 1, 0, status="unavailable")]
    bad = record(2, "pool", 1, 8.0)
    bad["validation"] = {"pass": False, "detail": "wrong count"}
    text = render(doc_of(recs + [bad]), "table", 100)
    assert "unavailable  not built" in text and "INVALID" in text


@pytest.mark.parametrize("width", [100, 80, 60])
def test_every_line_fits_the_width(width):
    from analysis.records import load_run
    text = render(load_run(COMMITTED), "table", width)
    assert text and max(len(l) for l in text.splitlines()) <= width


def test_markdown_csv_and_json_hold_the_same_rows():
    doc = fixture_doc("pi-scaling")
    n = sum(len(rows) for _, rows in groups(doc))
    md = [l for l in render(doc, "markdown").splitlines() if l.startswith("| ") and not l.startswith("| backend")]
    assert len(md) == n and all(l.count(" | ") == 6 for l in md)  # 7 cells: the rate carries its spread
    rows = list(csv.DictReader(io.StringIO(render(doc, "csv"))))
    assert len(rows) == n and {"rate", "half_iqr", "cv", "share", "speedup"} <= set(rows[0])
    js = json.loads(render(doc, "json"), parse_constant=lambda c: pytest.fail(c))
    assert len(js["rows"]) == n and js["unstable_cv"] == UNSTABLE_CV


def test_run_prints_the_table_on_stdout_and_progress_on_stderr(tmp_path, parlab_bin):
    out = tmp_path / "o"
    r = subprocess.run([parlab_bin, "run", "-k", "pi", "-b", "serial,pool", "-t", "1,2", "-n", "2^14", "-r", "3",
                        "--out", str(out), "--no-report", "--summary", "table"], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("pi  n=2^14  int32") and "rate ± IQR/2" in lines[1]
    # The table's rows: a backend, then its thread count. Not a legend line that wraps to begin with
    # a backend's name ("  serial); measure again", under the "?" mark's legend on a loaded machine).
    rows = [l for l in lines if re.match(r"  (serial|pool) +\d+ ", l)]
    assert len(rows) == 3 and all(" ± " in l and "samples/s" in l for l in rows)
    assert "pi  n=2^14" not in r.stderr
    # Without --summary, a --no-report run into a pipe starts no Python and prints nothing.
    r = subprocess.run([parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^14", "-r", "1", "--out", str(out),
                        "--no-report"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout == "", r.stdout


def test_report_prints_the_summary_in_the_form_asked(tmp_path, parlab_bin):
    d = write_doc(tmp_path, fixture_doc("pi-scaling"))
    r = subprocess.run([parlab_bin, "report", str(d), "--summary", "csv"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("kernel,size,precision,study,backend,threads") and (d / "report.html").exists()
    r = subprocess.run([parlab_bin, "report", str(d), "--summary", "wide"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--summary" in r.stderr


def test_the_readme_sample_is_the_committed_runs_table():
    """The README quotes the first lines of a committed run's table: they must be what parlab
    prints for it today."""
    from analysis.records import load_run
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    start = readme.index("```\npi  n=2^27  int32  (quick)\n") + 4
    quoted = readme[start:readme.index("```", start)].rstrip("\n").splitlines()
    assert render(load_run(COMMITTED), "table", 100).splitlines()[:len(quoted)] == quoted


def test_report_and_compare_take_the_out_directory_of_a_run(tmp_path, parlab_bin):
    """`parlab run --out r1` puts the run at r1/<host>/<stamp>/: report and compare given r1 use its
    newest run and say which; with runs of two hosts there, they name both and ask for one. The host
    folder's `latest` link names the newest run, and is no run of its own."""
    out = tmp_path / "r1"
    for _ in range(2):
        r = subprocess.run([parlab_bin, "run", "-k", "pi", "-b", "serial", "-n", "2^12", "-r", "1", "--no-ceilings",
                            "--out", str(out), "--no-report"], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    (host,) = os.listdir(out)
    runs = sorted(e for e in os.listdir(out / host) if not os.path.islink(out / host / e))
    assert os.readlink(out / host / "latest") == runs[-1]
    if len(runs) == 1:  # both runs in one second share a stamp; the runner then adds a suffix
        pytest.fail(f"two runs, one directory: {runs}")
    newest = str(out / host / runs[-1])
    r = subprocess.run([parlab_bin, "report", str(out), "--summary", "csv"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"using the newest, {newest}" in r.stderr and os.path.exists(os.path.join(newest, "report.html"))
    r = subprocess.run([parlab_bin, "compare", str(out), str(out / host)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([parlab_bin, "report", str(out / host / "latest"), "--summary", "none"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and "using the newest" not in r.stderr, r.stderr
    os.makedirs(out / "other-host")
    os.rename(out / host / runs[0], out / "other-host" / runs[0])
    r = subprocess.run([parlab_bin, "report", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "several hosts" in r.stderr and "other-host" in r.stderr, r.stderr


def test_csv_numbers_are_the_shortest_that_read_back_as_the_same_float():
    from analysis.writer import csv_number, csv_text
    # 0.1 * 3 is 0.30000000000000004: that is its shortest round-trip text, kept; 17 significant
    # digits would write 0.0016320602 as 0.0016320602000000001.
    for v in (0.0016320602, 0.1 * 3, 1026904826.3155649, 1e-300, 5e-324, 123.0):
        text = csv_number(v)
        assert float(text) == v and text == repr(v)
    assert csv_number(0.0016320602) == "0.0016320602" != f"{0.0016320602:.17g}"
    assert csv_number(float("nan")) == "" and csv_number(float("inf")) == "" and csv_number(None) == ""
    assert csv_text(["a", "b"], [{"a": 0.0016320602, "b": 3}]) == "a,b\n0.0016320602,3\n"


def test_the_table_csv_round_trips_every_number():
    doc = fixture_doc("pi-scaling")
    for r in doc["records"]:
        with_spread(r)
    rows = [x for _, g in groups(doc) for x in g]
    read = list(csv.DictReader(io.StringIO(render(doc, "csv"))))
    assert len(read) == len(rows)
    floats = 0
    for x, cells in zip(rows, read):
        for k, v in x.items():
            if k in cells and isinstance(v, float):
                assert float(cells[k]) == v and cells[k] == repr(v), (k, cells[k], v)
                floats += 1
    assert floats > len(rows)  # rates, spreads and speedups were written, not only blanks
