"""The JSON Schemas of the files parlab reads (experiments/schema/): suites and the ceilings cache,
beside the results schema. The C++ readers enforce them key by key (experiments/plan/suite.cpp,
experiments/machine/ceilings.cpp's cache_problem), with messages that name the file and the key;
these tests hold each schema and its reader together: every committed suite and every cache
parlab writes is valid, and each fault below is refused by both, or accepted by both."""
import copy
import glob
import json
import os
import subprocess

import jsonschema
import pytest

from conftest import ROOT

SCHEMAS = os.path.join(ROOT, "experiments", "schema")


def validator(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def valid(v, doc):
    return not list(v.iter_errors(doc))


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "experiments", "suites", "*.json"))),
                         ids=os.path.basename)
def test_every_committed_suite_is_valid(path):
    v = validator("suite.schema.json")
    with open(path) as f:
        doc = json.load(f)
    assert valid(v, doc), [e.message for e in v.iter_errors(doc)]


BASE_SUITE = {"name": "s", "description": "d", "reps": 2,
              "experiments": [{"kernel": "pi", "backends": ["serial"], "threads": "1", "sizes": ["2^12"]}]}


def _top(key, value):
    def edit(s):
        s[key] = value
    return edit


def _exp(key, value):
    def edit(s):
        s["experiments"][0][key] = value
    return edit


def _drop(key):
    def edit(s):
        del s["experiments"][0][key]
    return edit


# name -> (edit of BASE_SUITE, whether the suite is still valid)
SUITE_EDITS = {
    "as_given": (lambda s: None, True),
    "kernel_list": (_exp("kernel", ["pi"]), True),
    "sizes_numbers": (_exp("sizes", [4096, 8192]), True),
    "seed_string": (_top("seed", "2^10"), True),
    "scaling_weak": (_exp("scaling", "weak"), True),
    "interpreters_this": (_exp("interpreters", "this"), True),
    "device_0": (_exp("device", 0), True),
    "min_rep_zero": (_top("min_rep_seconds", 0), True),
    "unknown_top_key": (_top("repz", 3), False),
    "unknown_experiment_key": (_exp("thread", "1"), False),
    "no_experiments": (_top("experiments", []), False),
    "experiments_object": (_top("experiments", {"kernel": "pi"}), False),
    "no_kernel": (_drop("kernel"), False),
    "kernel_number": (_exp("kernel", 5), False),
    "kernel_empty_list": (_exp("kernel", []), False),
    "reps_zero": (_top("reps", 0), False),
    "reps_float": (_top("reps", 1.5), False),
    "reps_string": (_exp("reps", "3"), False),
    "threads_list": (_exp("threads", [1, 2]), False),
    "sizes_string": (_exp("sizes", "2^12"), False),
    "sizes_negative": (_exp("sizes", [-1]), False),
    "scaling_unknown": (_exp("scaling", "fast"), False),
    "interpreters_unknown": (_exp("interpreters", "some"), False),
    "device_negative": (_exp("device", -1), False),
    "min_rep_negative": (_top("min_rep_seconds", -1), False),
    "name_number": (_top("name", 7), False),
    "study_list": (_exp("study", ["x"]), False),
    "backends_empty_list": (_exp("backends", []), False),
}


@pytest.mark.parametrize("case", sorted(SUITE_EDITS))
def test_the_suite_schema_and_the_suite_reader_agree(tmp_path, parlab_bin, case):
    edit, expected = SUITE_EDITS[case]
    suite = copy.deepcopy(BASE_SUITE)
    edit(suite)
    assert valid(validator("suite.schema.json"), suite) == expected
    path = tmp_path / "s.json"
    path.write_text(json.dumps(suite))
    r = subprocess.run([parlab_bin, "run", str(path), "--dry-run"], capture_output=True, text=True, timeout=120)
    assert r.returncode == (0 if expected else 2), r.stderr


# name -> edit of one roof (a roof of the cache `parlab ceilings` wrote), whether still valid
ROOF_EDITS = {
    "as_written": (lambda r: r, True),
    "value_one": (lambda r: {**r, "value": 1}, True),
    "no_device": (lambda r: {k: v for k, v in r.items() if k != "device"}, True),
    "roof_is_a_number": (lambda r: 5, False),
    "value_zero": (lambda r: {**r, "value": 0}, False),
    "value_tiny": (lambda r: {**r, "value": 1e-300}, False),
    "value_infinite": (lambda r: {**r, "value": float("inf")}, False),
    "value_string": (lambda r: {**r, "value": "fast"}, False),
    "value_missing": (lambda r: {k: v for k, v in r.items() if k != "value"}, False),
    "how_missing": (lambda r: {k: v for k, v in r.items() if k != "how"}, False),
    "threads_negative": (lambda r: {**r, "threads": -1}, False),
    "threads_float": (lambda r: {**r, "threads": 1.5}, False),
    # gpu_bw counts the GPU threads its sweeps launch: 2^27 on a 2 GiB array (a cache with it was
    # once refused, so a GPU machine measured its roofs again on every run).
    "threads_gpu_launch": (lambda r: {**r, "threads": 1 << 27}, True),
    "threads_past_int": (lambda r: {**r, "threads": 1 << 31}, False),
    "spread_ok": (lambda r: {**r, "spread": {"n": 5, "min": 2.0, "median": 2.5, "max": 3.0}}, True),
    "spread_not_object": (lambda r: {**r, "spread": [1, 2]}, False),
    "spread_zero_min": (lambda r: {**r, "spread": {"n": 5, "min": 0, "median": 2.5, "max": 3.0}}, False),
    "spread_no_count": (lambda r: {**r, "spread": {"min": 2.0, "median": 2.5, "max": 3.0}}, False),
}


@pytest.fixture(scope="module")
def written_cache(tmp_path_factory, parlab_bin):
    cache = tmp_path_factory.mktemp("cache")
    r = subprocess.run([parlab_bin, "ceilings"], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PARLAB_CEILINGS_CACHE": str(cache), "PARLAB_CEILINGS_QUICK": "1"})
    assert r.returncode == 0, r.stderr
    (file,) = list(cache.iterdir())
    return json.loads(file.read_text())


def test_the_cache_parlab_writes_is_valid(written_cache):
    v = validator("ceilings.schema.json")
    assert valid(v, written_cache), [e.message for e in v.iter_errors(written_cache)]


@pytest.mark.parametrize("case", sorted(ROOF_EDITS))
def test_the_cache_schema_and_the_cache_reader_agree(tmp_path, parlab_bin, written_cache, case):
    edit, expected = ROOF_EDITS[case]
    doc = copy.deepcopy(written_cache)
    name = sorted(doc["roofs"])[0]
    doc["roofs"][name] = edit(doc["roofs"][name])
    assert valid(validator("ceilings.schema.json"), doc) == expected
    cache = tmp_path / "cache"
    env = {**os.environ, "PARLAB_CEILINGS_CACHE": str(cache), "PARLAB_CEILINGS_QUICK": "1"}
    assert subprocess.run([parlab_bin, "ceilings"], capture_output=True, timeout=300, env=env).returncode == 0
    (file,) = list(cache.iterdir())
    doc["cache"] = str(file)
    file.write_text(json.dumps(doc))  # json writes inf as Infinity, which the reader refuses too
    r = subprocess.run([parlab_bin, "ceilings"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert ("measuring again" in r.stderr) == (not expected), r.stderr
