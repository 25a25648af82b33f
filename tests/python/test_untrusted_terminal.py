"""A results file from elsewhere on a terminal (test_untrusted_results.py has the rest: pages,
figures, types, files): control characters in its names and reasons are shown, never obeyed,
on every path to a terminal (the summary table, its Markdown and CSV, compare's text, parlab
report and compare, the messages on stderr; untrusted.visible), a CSV cell is never a formula, a
Markdown cell never two, and a $COLUMNS that is no width leaves the table whole."""
import csv
import io
import re
import subprocess
import sys

import pytest

from analysis.terminal import terminal_width
from analysis.untrusted import markdown_cell, visible
from analysis.writer import csv_text
from conftest import PLOT, write_doc
from test_untrusted_results import COMPARE, CONTROL, assert_not_obeyed, no_traceback, run, small_doc


def _controlled(payload):
    doc = small_doc()
    for r in doc["records"]:
        r["kernel"], r["backend"] = "pi" + payload, payload + r["backend"]
        r["study"] = payload
        if r["status"] != "ok":
            r["reason"] = payload + " not built"
    doc["records"][3]["unstable"] = payload
    doc["context"]["host"] = payload
    doc["context"]["cpu"]["model"] = payload + "cpu"
    return doc


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv"])
@pytest.mark.parametrize("payload", sorted(CONTROL))
def test_the_summary_shows_control_characters_never_obeys_them(tmp_path, payload, fmt):
    d = write_doc(tmp_path, _controlled(CONTROL[payload]))
    res = no_traceback(run(PLOT, d, "--summary", fmt, "--summary-only"))
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip()
    assert_not_obeyed(res.stdout, res.stderr)


@pytest.mark.parametrize("payload", sorted(CONTROL))
def test_compare_shows_control_characters_never_obeys_them(tmp_path, payload):
    base = write_doc(tmp_path, _controlled(CONTROL[payload]), "base")
    other = _controlled(CONTROL[payload])
    other["context"]["cpu"]["model"] = CONTROL[payload] + "other"  # a context difference, printed
    new = write_doc(tmp_path, other, "new")
    res = no_traceback(run(COMPARE, base, new, "--verbose", "--color", "always"))
    assert res.returncode == 0, res.stderr
    assert "Context:" in res.stdout
    # --color always paints with SGR codes of its own; no other escape is printed.
    assert_not_obeyed(re.sub(r"\x1b\[[0-9;]*m", "", res.stdout), res.stderr)


def test_parlab_report_and_compare_print_no_control_character(tmp_path, parlab_bin):
    d = write_doc(tmp_path, _controlled(CONTROL["osc-title"] + CONTROL["clear-screen"]))
    report = no_traceback(subprocess.run([parlab_bin, "report", str(d), "--summary", "table"], capture_output=True,
                                         text=True, timeout=300))
    assert report.returncode == 0, report.stderr
    compare = no_traceback(subprocess.run([parlab_bin, "compare", str(d), str(d)], capture_output=True, text=True,
                                          timeout=300))
    assert compare.returncode == 0, compare.stderr
    assert_not_obeyed(report.stdout, report.stderr, compare.stdout, compare.stderr)
    assert "^[]0;PWNED^G" in report.stdout  # shown, in caret notation


def test_a_message_quoting_a_name_shows_its_control_characters(tmp_path):
    doc = _controlled(CONTROL["clear-screen"])
    doc["records"][1]["time_s"]["median"] = -1.0  # refused with the record's kernel and backend in the message
    d = write_doc(tmp_path, doc)
    for script, args in ((PLOT, [d]), (COMPARE, [d, d])):
        res = no_traceback(run(script, *args))
        assert res.returncode == 2 and "^[[2J" in res.stderr, res.stderr
        assert_not_obeyed(res.stderr)


@pytest.mark.parametrize("text,shown", [("\x1b[2J", "^[[2J"), ("\x07", "^G"), ("\x7f", "^?"), ("\x9b", "\ufffd"),
                                        ("\u202e", "\ufffd"), ("tab\tand\nnewline", "tab\tand\nnewline")])
def test_visible_shows_what_a_terminal_would_obey(text, shown):
    assert visible(text) == shown


@pytest.mark.parametrize("lead", ["=", "+", "-", "@", "\t", "\r"])
def test_a_csv_cell_a_spreadsheet_would_run_is_quoted(lead):
    rows = list(csv.reader(io.StringIO(csv_text(["name", "value"], [{"name": lead + "HYPERLINK(\"x\")", "value": -1.5}]))))
    assert rows[1][0].startswith("'") and rows[1][1] == "-1.5"  # a number is a number, minus and all


def test_a_plain_csv_cell_is_left_alone():
    assert csv_text(["name"], [{"name": "pool"}]) == "name\npool\n"


def test_the_summary_csv_quotes_a_formula_in_a_name(tmp_path):
    doc = small_doc()
    doc["records"][1]["backend"] = '=HYPERLINK("http://example.invalid","x")'
    res = no_traceback(run(PLOT, write_doc(tmp_path, doc), "--summary", "csv", "--summary-only"))
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert any(r["backend"] == "'" + doc["records"][1]["backend"] for r in rows), res.stdout


def test_a_markdown_cell_stays_one_cell():
    assert markdown_cell("a|b\nc") == "a\\|b c"


def test_the_summary_markdown_keeps_its_columns(tmp_path):
    doc = small_doc()
    for r in doc["records"]:
        r["backend"] = "x|y\n| z |" + r["backend"]
    res = no_traceback(run(PLOT, write_doc(tmp_path, doc), "--summary", "markdown", "--summary-only"))
    lines = [x for x in res.stdout.splitlines() if x.startswith("|")]
    pipes = {len(re.findall(r"(?<!\\)\|", x)) for x in lines}  # every row as many cells as the header
    assert len(lines) > 2 and len(pipes) == 1 and pipes.pop() > 3, res.stdout


@pytest.mark.parametrize("columns", ["5", "0", "-3", "abc", "39", "100000"])
def test_a_columns_that_is_no_width_leaves_the_table_whole(tmp_path, columns):
    d = write_doc(tmp_path, small_doc())
    res = run(PLOT, d, "--summary-only", env={"COLUMNS": columns})
    lines = res.stdout.splitlines()
    assert res.returncode == 0 and any("serial" in x for x in lines), res.stdout
    assert max(map(len, lines)) <= 100 and max(map(len, lines)) > 60, res.stdout


def test_the_table_takes_its_width_from_columns(tmp_path):
    d = write_doc(tmp_path, small_doc())
    res = run(PLOT, d, "--summary-only", env={"COLUMNS": "50"})
    assert res.returncode == 0 and max(map(len, res.stdout.splitlines())) <= 50, res.stdout


@pytest.mark.parametrize("columns,width", [("72", 72), ("1000", 1000), ("1001", 100), ("5", 100), ("", 100)])
def test_terminal_width_bounds(monkeypatch, columns, width):
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # no terminal behind either, even under pytest -s
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert terminal_width() == width
