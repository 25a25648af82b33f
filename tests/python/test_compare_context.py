"""compare.py answers first and gives the context in words: the records before the context, only
the differences that can change a rate (CPU, cores, governor, compiler and flags, library
versions, load, the roofs), never the raw dotted keys but under --verbose; and every speedup it
prints names what it is over."""
import copy
import re

from conftest import write_doc
from test_compare import json_of, make_run, run_compare


def roof(value, unit="bytes/s", threads=2):
    return {"value": value, "unit": unit, "method": "measured", "threads": threads, "device": "cpu",
            "how": "synthetic", "measured_utc": "2026-01-01T00:00:00Z",
            "spread": {"q1": value * 0.97, "q3": value * 1.01, "median": value}}


def with_context(doc, model, cores, governor, flags, python, mpi, load, triad_all, fma_1, host):
    ctx = doc["context"]
    ctx["host"] = host
    ctx["cpu"].update({"model": model, "physical_cores": cores, "logical_cpus": cores, "governor": governor})
    ctx["build"].update({"compiler": "GNU 13.3.0", "flags": flags, "git_commit": host[:7]})
    ctx["python"] = python
    ctx["mpi"] = {"built": True, "library": mpi}
    ctx["load_average_1min"] = load
    ctx["ceilings"] = {"measured_utc": "2026-01-01T00:00:00Z", "cache": None,
                       "roofs": {"cpu_bw_triad_all": roof(triad_all), "cpu_bw_triad_1": roof(12e9, threads=1),
                                 "cpu_fma_f64_1": roof(fma_1, "flops/s", 1)}, "unavailable": {}}
    ctx["ceilings_end"] = {k: copy.deepcopy(v) for k, v in ctx["ceilings"].items() if k != "cache"}
    ctx["ceilings_end"]["seconds"] = 1.0
    del ctx["ceilings_end"]["roofs"]["cpu_fma_f64_1"]  # the end probe measures bandwidth only
    for r in ctx["ceilings_end"]["roofs"].values():
        r.update({"start": r["value"], "drift": 0.0})
    ctx["ceilings_end"]["roofs"]["cpu_bw_triad_1"]["spread"]["q1"] = 36466713371.585724 if host == "a" else 3.1e10
    return doc


def pair(tmp_path):
    base = with_context(make_run(1), "Xeon 8480", 4, "powersave", "-O3 -march=native",
                        "CPython 3.11.2, GIL mode gil, per-interpreter GIL: no",
                        "Open MPI v4.1.4, package: Debian OpenMPI", 3.9, 61.7e9, 50e9, "a")
    new = with_context(make_run(2, factor=0.6), "EPYC 9654", 8, "performance", "-O3 -march=native -Werror",
                       "CPython 3.12.3, GIL mode gil, per-interpreter GIL: yes",
                       "Open MPI v4.1.6, package: Debian OpenMPI", 0.2, 103e9, 51e9, "b")
    return write_doc(tmp_path, base, "base"), write_doc(tmp_path, new, "new")


def test_records_come_first_and_the_context_is_in_words(tmp_path):
    base, new = pair(tmp_path)
    text = run_compare(base, new).stdout
    assert text.index("What changed") < text.index("Records (") < text.index("Scaling shape") < text.index("Context:")
    context = text[text.index("Context:"):]
    flat = " ".join(context.split())
    for words in ("CPU: Xeon 8480 (BASE) vs EPYC 9654 (NEW)", "cores: 4 cores (BASE) vs 8 cores (NEW)",
                  "frequency governor: powersave (BASE) vs performance (NEW)",
                  "compiler flags: -Werror only in NEW", "Python: CPython 3.11.2 (BASE) vs CPython 3.12.3 (NEW)",
                  "MPI: Open MPI 4.1.4 (BASE) vs Open MPI 4.1.6 (NEW)",
                  "load at the start (1-minute average): 3.90 on 4 hardware threads (BASE)",
                  "cpu_bw_triad_all 61.7 GB/s vs 103 GB/s (+67%)"):
        assert words in flat, (words, context)
    # A roof within the probe's noise (50 -> 51 Gflop/s) is no difference; what cannot change a
    # rate (the host, the commit) is not listed; and no raw dotted key is printed.
    assert "cpu_fma_f64_1" not in context and "host" not in context.split("(")[0]
    assert not re.search(r"\b(ceilings(_end)?|cpu|build)\.\w", text), text
    assert "36466713371" not in text and "BASE:" not in text
    verbose = run_compare(base, new, "--verbose").stdout
    assert "ceilings_end.roofs.cpu_bw_triad_1.spread.q1" in verbose  # every raw key, with --verbose
    assert "cpu.model" in verbose and "build.git_commit" in verbose
    words = json_of(run_compare(base, new, "--json"))["context_in_words"]
    assert [w["what"] for w in words][:3] == ["CPU", "cores", "frequency governor"]


def test_two_runs_of_one_machine_have_nothing_that_changes_a_rate(tmp_path):
    b, n = make_run(1), make_run(2)
    n["context"]["host"] = "other-name"
    n["context"]["started_utc"] = "2026-02-01T00:00:00Z"
    text = run_compare(write_doc(tmp_path, b, "base"), write_doc(tmp_path, n, "new")).stdout
    assert "Context: nothing that can change a rate differs" in text
    assert "other-name" not in text.split("Context:")[1]  # the header names the hosts; the context does not


def test_every_speedup_names_its_reference(tmp_path):
    base, new = pair(tmp_path)
    text = run_compare(base, new).stdout
    flat = " ".join(text.split())
    shapes = text[text.index("Scaling shape"):text.index("Context:")]
    assert shapes.count("over 1 thread") == shapes.count("speedup") >= 2, shapes
    assert re.search(r"speedup \d+\.\d\dx -> \d+\.\d\dx over 1 thread", " ".join(shapes.split()))
    # NEW is faster everywhere: the largest speedup is over BASE, and says so.
    assert re.search(r"largest speedup: .*: \d+\.\d\dx over BASE \(time x0\.\d+", flat), flat
    out = json_of(run_compare(base, new, "--json"))
    assert {s["reference"] for s in out["scaling"]} == {"over 1 thread"}
    from analysis.compare import speedup_reference
    assert speedup_reference("ranks", "mpi+openmp x4t") == "over 1 rank of 4 threads"
    assert speedup_reference("ranks", "mpi+serial x1t") == "over 1 rank"
    assert speedup_reference("GPUs", "cuda-multi") == "over 1 GPU"
