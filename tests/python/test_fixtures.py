"""The committed fixtures of tests/fixtures/ (README.md there): each results.json is of the
current schema and valid against it (schema-1 excepted: it is migrate's input), each is small, and
tests/fixtures/make_fixtures.py still writes them byte for byte."""
import glob
import json
import os
import subprocess
import sys

import jsonschema

from conftest import FIXTURES, SCHEMA

MAKE = os.path.join(FIXTURES, "make_fixtures.py")


def fixture_files():
    return sorted(os.path.relpath(p, FIXTURES) for p in glob.glob(os.path.join(FIXTURES, "**", "*.json"),
                                                                  recursive=True))


def test_every_fixture_run_is_valid_and_small():
    schema = json.load(open(SCHEMA))
    runs = [p for p in fixture_files() if os.path.basename(p) == "results.json"]
    assert len(runs) >= 8
    for rel in fixture_files():
        path = os.path.join(FIXTURES, rel)
        assert os.path.getsize(path) < 20_000, rel  # a fixture is made for its cases, not a real run
        doc = json.load(open(path))
        if rel.startswith("schema-1" + os.sep):
            assert doc["schema"] == "parlab-results/1", rel
        elif rel in runs:
            jsonschema.validate(doc, schema)


def test_the_script_writes_the_committed_fixtures(tmp_path):
    res = subprocess.run([sys.executable, MAKE, str(tmp_path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    written = sorted(os.path.relpath(p, tmp_path) for p in glob.glob(str(tmp_path / "**" / "*.json"), recursive=True))
    assert written == fixture_files()
    for rel in written:
        with open(tmp_path / rel, "rb") as a, open(os.path.join(FIXTURES, rel), "rb") as b:
            assert a.read() == b.read(), f"tests/fixtures/{rel} differs from what make_fixtures.py writes"
