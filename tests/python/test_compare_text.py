"""compare.py's text within the terminal (analysis/compare_text.py): every line within
$COLUMNS on committed runs, a word for a roof's absence with the whole reason kept for --verbose
and --json, and the mark of a record unstable on either side."""
import os
import re

import pytest

from conftest import ROOT, write_doc
from test_compare import by_label, json_of, make_run, run_compare


def over(text, width):
    """The lines over width, but for a line that is one unbreakable word (a path) after its
    indent: the rule every line parlab prints keeps (tests/python/test_widths.py)."""
    return [line for line in text.splitlines() if len(line) > width and len(line.split()) > 1]


def records_table(text):
    """The records section of compare's text, and its rows' first tokens (the verdicts, marks and all)."""
    table = text.split("Records (")[1].split("\n\n")[0]
    verdicts = [line.split()[0] for line in table.splitlines()
                if re.match(r"  (slower|faster|same|undecided|failed|n/a)(!| |$)", line)]
    return table, verdicts


def in_order(words, within):
    """Whether words occur in `within` (a list of words) in this order, others between allowed:
    a label wrapped under its column, the numbers of its row beside its first line."""
    it = iter(within)
    return all(any(w == x for x in it) for w in words)


RESULTS = os.path.join(ROOT, "results")
# Committed pairs of runs of one suite: two commits on the GPU node's CPU (roof shares on both
# sides, different roofs for some records), two on the development machine (backends and
# ceilings unavailable on one side, long context values), and two gil runs of 3 repetitions a
# side (every record undecided, with the repetitions that would decide it).
COMMITTED_PAIRS = {
    "h100-quick": ("h100-node-16core/20261125T154437Z", "h100-node-16core/20261125T175358Z"),
    "dev-2core-quick": ("dev-2core/20261125T145036Z", "dev-2core/20261125T182248Z"),
    "h200-gil": ("h200-node-16core/20261121T162314Z", "h200-node-16core/20261121T164310Z"),
}


@pytest.mark.parametrize("width", [100, 80])
@pytest.mark.parametrize("pair", sorted(COMMITTED_PAIRS))
def test_the_table_of_committed_runs_fits_the_terminal(pair, width):
    base, new = (os.path.join(RESULTS, x) for x in COMMITTED_PAIRS[pair])
    env = {**os.environ, "COLUMNS": str(width)}
    res = run_compare(base, new, env=env)
    assert res.returncode == 0, res.stderr
    assert not over(res.stdout, width), "\n".join(over(res.stdout, width))
    out = json_of(run_compare(base, new, "--json"))
    compared = [r for r in out["records"] if r["kind"] == "compared"]
    # Every compared record is in the table, by its whole label (wrapped words and all) and its verdict.
    table, verdicts = records_table(res.stdout)
    assert all(in_order(r["label"].split(), table.split()) for r in compared)
    assert sorted(v.rstrip("!") for v in verdicts) == sorted(r["verdict"] for r in compared)
    assert re.search(r"\d (ms|µs|s) ", table) and not re.search(r"\d\.\d{5}", table)  # units, not 0.0002185 s
    # Verbose keeps the whole texts and still fits; the JSON keeps every share text whole.
    verbose = run_compare(base, new, "--verbose", env=env)
    assert verbose.returncode == 0 and not over(verbose.stdout, width), "\n".join(over(verbose.stdout, width))
    for r in compared:
        for side in ("base", "new"):
            if r[side].get("share"):
                assert " ".join(r[side]["share"].split()) in " ".join(verbose.stdout.split())
    if pair == "h200-gil":
        assert {r["verdict"] for r in compared} == {"undecided"} and "3/3->5" in res.stdout


def test_without_columns_the_table_takes_100():
    base, new = (os.path.join(RESULTS, x) for x in COMMITTED_PAIRS["h100-quick"])
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    for columns in (None, "abc", "20", "5000"):  # unset, or nothing terminal.hpp accepts: 100
        if columns is not None:
            env["COLUMNS"] = columns
        text = run_compare(base, new, env=env).stdout
        assert not over(text, 100) and max(map(len, text.splitlines())) > 90, columns
    text = run_compare(base, new, env={**env, "COLUMNS": "200"}).stdout
    assert max(map(len, text.splitlines())) > 100  # a wider terminal is used


def _limited(doc, limit):
    for r in doc["records"]:
        r["limit"] = dict(limit)
    return doc


LLC_REASON = ("no roof: its arrays (402653184 bytes) fit the last-level cache (cpu_llc_bytes 1073741824), "
              "whose bandwidth is not measured")


@pytest.mark.parametrize("width", [100, 80])
def test_a_long_roof_reason_is_a_word_in_the_table_and_whole_elsewhere(tmp_path, width):
    """The reason a record has no roof runs to 130 characters; the table says "no roof (cache)"
    once for both sides, --verbose and --json say it whole."""
    base = write_doc(tmp_path, _limited(make_run(1), {"roof": None, "reason": LLC_REASON}), "base")
    new = write_doc(tmp_path, _limited(make_run(2), {"roof": None, "reason": LLC_REASON}), "new")
    env = {**os.environ, "COLUMNS": str(width)}
    text = run_compare(base, new, env=env).stdout
    assert not over(text, width), "\n".join(over(text, width))
    assert "no roof (cache)" in text and "last-level cache" not in text
    assert "no roof (cache)->no roof (cache)" not in text  # one word where both sides say the same
    verbose = run_compare(base, new, "--verbose", env=env).stdout
    assert not over(verbose, width) and " ".join(LLC_REASON.split()) in " ".join(verbose.split())
    row = json_of(run_compare(base, new, "--json"))["records"][0]
    assert row["base"]["share"] == row["new"]["share"] == LLC_REASON


def test_every_no_roof_reason_of_the_runner_has_a_word():
    """Each reason experiments/machine/limit.cpp gives for no roof reads as a word of
    figures.roofline.NO_ROOF_SHORT, not the bare "no roof"."""
    from analysis.roofs import share_short
    src = open(os.path.join(ROOT, "experiments", "machine", "limit.cpp"), encoding="utf-8").read()
    # Each call's string literals, the values between them standing for what the code puts there.
    literals = ["X".join(re.findall(r'"([^"]*)"', args)) for args in re.findall(r"no_roof\(([^;]*)\);", src)]
    literals = [x for x in literals if x]
    assert len(literals) >= 5, literals
    for text in literals + ["cpu_bw_triad_all is estimated, not measured",
                            "gpu_bw unavailable: no CUDA device", "cpu_imul_1 not among the ceilings"]:
        short = share_short({"limit": {"roof": None, "reason": "no roof: " + text}})
        assert short.startswith("no roof (") and len(short) <= 22, (text, short)


def test_a_record_unstable_on_either_side_is_marked_with_the_advice(tmp_path):
    """A side of schema /3 that says why it is unstable, and a side of schema /2 whose repetitions
    spread by more than 10% (the loader marks it as the runner would): both marked, and the
    table, the summary, --verbose, --json and the HTML report say to measure again."""
    b, n = make_run(1), make_run(2, shift={("tbb", 4): 1.10})
    b["schema"], n["schema"] = "parlab-results/2", "parlab-results/3"
    pool4 = next(r for r in n["records"] if (r["backend"], r["threads"]) == ("pool", 4))
    pool4["unstable"] = "rounds differ by 15%, over 10%"
    tbb2 = next(r for r in b["records"] if (r["backend"], r["threads"]) == ("tbb", 2))
    tbb2["reps_s"] = [4.3, 3.0, 5.6, 4.2, 4.0]
    tbb2["time_s"]["median"] = 4.3
    base, new = write_doc(tmp_path, b, "base"), write_doc(tmp_path, n, "new")
    out = json_of(run_compare(base, new, "--json"))
    rows = by_label(out)
    assert rows["s pi pool t=4 2^20 int32"]["unstable"] == ["new"]
    assert rows["s pi pool t=4 2^20 int32"]["new"]["unstable"] == "rounds differ by 15%, over 10%"
    assert rows["s pi tbb t=2 2^20 int32"]["unstable"] == ["base"]
    assert "over 10%" in rows["s pi tbb t=2 2^20 int32"]["base"]["unstable"]
    assert rows["s pi tbb t=4 2^20 int32"]["unstable"] == [] and rows["s pi tbb t=4 2^20 int32"]["verdict"] == "slower"
    assert out["summary"]["unstable"] == 2
    text = run_compare(base, new).stdout
    table, verdicts = records_table(text)
    marked = [line for line in table.splitlines() if line.split() and line.split()[0] in ("same!", "slower!", "faster!")]
    assert len(marked) == 2 and sum(v.endswith("!") for v in verdicts) == 2, text
    assert sorted(" ".join(line.split()[1:4]) for line in marked) == ["s pi pool", "s pi tbb"]
    assert {line.split()[4] for line in marked} == {"t=4", "t=2"}
    flat = " ".join(text.split())
    assert "2 unstable on either side" in flat and "more --reps or --rounds" in flat
    verbose = " ".join(run_compare(base, new, "--verbose").stdout.split())
    assert "NEW unstable: rounds differ by 15%, over 10%" in verbose and "BASE unstable: CV" in verbose
    res = run_compare(base, new, "--html", tmp_path / "cmp")
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "cmp" / "report.html").read_text()
    assert "NEW unstable: rounds differ by 15%" in page and "more --reps or --rounds" in page
