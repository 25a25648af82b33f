"""A `workers` block from someone else's results file is untrusted input: every value typed by the
schema (results.schema.json, `$defs/workers`), the lengths it cannot check by analysis/workers.py,
and a bad one refused with exit 2 and one line naming the record and the field -- never a traceback,
never a figure drawn from half a block, never text obeyed by a terminal or a browser."""
import json
import subprocess
import sys

import pytest

from conftest import PLOT, write_doc
from workers_fixture import doc_of, scaling_records

from analysis.read import InputError
from analysis.records import load_run


def _set(path, value):
    """An edit of the threads-at-4 record's workers block (record 3): path's last key set to value."""
    def edit(w):
        for key in path[:-1]:
            w = w[key]
        w[path[-1]] = value
    return edit


def _drop(key):
    def edit(w):
        del w[key]
    return edit


# name -> (edit of record 3's workers block, the field the message must name)
FAULTS = {
    "count_string": (_set(["count"], "4"), "'workers.count'"),
    "count_bool": (_set(["count"], True), "'workers.count'"),
    "count_zero": (_set(["count"], 0), "'workers.count'"),
    "count_float": (_set(["count"], 4.0), "'workers.count'"),
    "accounting_other": (_set(["accounting"], "maybe"), "'workers.accounting'"),
    "busy_string": (_set(["busy_s", 2], "2.0"), "'workers.busy_s[2]'"),
    "busy_negative": (_set(["busy_s", 0], -1.0), "'workers.busy_s[0]'"),
    "busy_nan": (_set(["busy_s", 1], float("nan")), "'workers.busy_s[1]'"),
    "runtime_inf": (_set(["runtime_s"], float("inf")), "'workers.runtime_s'"),
    "runtime_zero": (_set(["runtime_s"], 0), "'workers.runtime_s'"),
    "busy_short": (_set(["busy_s"], [1.0, 1.0, 1.0]), "'workers.busy_s'"),
    "cpu_long": (_set(["cpu_s"], [1.0] * 5), "'workers.cpu_s'"),
    "cpus_short": (_set(["cpus"], [[0]]), "'workers.cpus'"),
    "cpus_not_lists": (_set(["cpus"], [0, 1, 2, 3]), "'workers.cpus[0]'"),
    "runnable_short": (_set(["disturbance", "runnable_s"], [0.0]), "'workers.disturbance.runnable_s'"),
    "steal_not_per_cpu": (_set(["disturbance", "steal"], [0.0]), "'workers.disturbance.steal'"),
    "steal_negative": (_set(["disturbance", "steal"], [0.0, 0.0, -0.1, 0.0]), "'workers.disturbance.steal[2]'"),
    "busy_not_per_cpu": (_set(["disturbance", "busy"], [0.5] * 5), "'workers.disturbance.busy'"),
    "others_per_cpu": (_set(["disturbance", "others"], [0.0] * 4), "'workers.disturbance.others'"),
    "per_rep_disagree": (_set(["communication"], [0.9]), "'workers.communication'"),
    "no_busy": (_drop("busy_s"), "'workers.busy_s' is missing"),
    "no_disturbance": (_drop("disturbance"), "'workers.disturbance' is missing"),
    "counters_half": (_set(["counters"], {"available": True, "instructions": [1.0] * 4}), "'workers.counters"),
    "counters_short": (_set(["counters"], {"available": True, "instructions": [1.0] * 4, "cycles": [1.0] * 3}),
                       "'workers.counters.cycles'"),
    "event_three_numbers": (_set(["trace", "events", 0], [0, 0.0, 1.0]), "'workers.trace.events[0]'"),
    "event_worker_float": (_set(["trace", "events", 0], [0.5, 0.0, 1.0, 0]), "'workers.trace.events[0][0]'"),
    "event_unknown_worker": (_set(["trace", "events", 0], [9, 0.0, 1.0, 0]), "'workers.trace.events[0]'"),
    "event_backwards": (_set(["trace", "events", 0], [0, 2.0, 1.0, 0]), "'workers.trace.events[0]'"),
    "events_1025": (_set(["trace", "events"], [[0, 0.0, 1e-6, 0]] * 1025), "'workers.trace.events'"),
    "events_a_million": (_set(["trace", "events"], [[0, 0.0, 1e-6, 0]] * 10**6), "'workers.trace.events'"),
    "ranks_short": (lambda w: w.update(ranks=[0, 0, 1], hosts=[0, 0, 0]), "'workers.ranks'"),
    "hosts_long": (lambda w: w.update(ranks=[0, 0, 1, 1], hosts=[0] * 5), "'workers.hosts'"),
    "ranks_without_hosts": (lambda w: w.update(ranks=[0, 0, 1, 1]), "'workers.hosts'"),
    "rank_negative": (lambda w: w.update(ranks=[0, 0, -1, 1], hosts=[0] * 4), "'workers.ranks[2]'"),
    "why_not_string": (_set(["counters"], {"available": False, "why": ["x"]}), "'workers.counters"),
}


def _faulty(name):
    recs = scaling_records()
    FAULTS[name][0](recs[3]["workers"])
    return doc_of(recs)


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_malformed_workers_block_is_refused_naming_record_and_field(tmp_path, name):
    d = write_doc(tmp_path, _faulty(name))
    with pytest.raises(InputError) as e:
        load_run(str(d))
    message = str(e.value)
    assert "record 3" in message and FAULTS[name][1] in message, message
    assert len(message) < 400, message  # a million events are not quoted back


@pytest.mark.parametrize("name", ["busy_short", "busy_nan", "events_a_million"])
def test_the_report_exits_2_with_one_line(tmp_path, name):
    d = tmp_path / "run"
    d.mkdir()
    # Python's json writes NaN and a float of 1e400 as the literals JSON lacks, as a hostile file would.
    (d / "results.json").write_text(json.dumps(_faulty(name)))
    res = subprocess.run([sys.executable, PLOT, str(d), "--summary", "pop"], capture_output=True, text=True)
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr and "record 3" in res.stderr
    assert not (d / "plots").exists() and not (d / "report.html").exists()


def test_a_literal_1e400_is_refused(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    text = json.dumps(doc_of(scaling_records())).replace('"runtime_s": 2.5', '"runtime_s": 1e400', 1)
    assert "1e400" in text
    (d / "results.json").write_text(text)
    with pytest.raises(InputError, match=r"record 3: 'workers.runtime_s': inf is not a finite number"):
        load_run(str(d))


def test_an_accounting_off_block_needs_only_why_and_count(tmp_path):
    recs = scaling_records()
    recs[3]["workers"] = {"accounting": "off", "count": 4, "overhead": 0.03, "why": "one run takes 80 us"}
    assert load_run(str(write_doc(tmp_path, doc_of(recs))))["records"][3]["workers"]["accounting"] == "off"
    del recs[3]["workers"]["why"]
    with pytest.raises(InputError, match=r"record 3: 'workers.why' is missing"):
        load_run(str(write_doc(tmp_path, doc_of(recs), "b")))


@pytest.mark.parametrize("payload", ["<img src=x onerror=alert(1)>", "\x1b]0;owned\x07\x1b[2J", "a\u202eb\n|c|"])
def test_text_in_why_is_shown_never_obeyed(tmp_path, payload):
    recs = scaling_records()
    recs[3]["workers"]["counters"]["why"] = payload
    recs[4]["workers"] = {"accounting": "off", "count": 2, "why": payload}
    d = write_doc(tmp_path, doc_of(recs))
    res = subprocess.run([sys.executable, PLOT, str(d), "--no-reference", "--summary", "pop"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    for text in (res.stdout, (d / "report.html").read_text()):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    page = (d / "report.html").read_text()
    assert "<img src=x" not in page
    if payload.startswith("<img"):
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
