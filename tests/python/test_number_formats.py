"""The analysis writes rates and sizes as the C++ commands do: both formatters are held to the same
cases (tests/number-formats.json; tests/test_numbers.cpp holds C++'s)."""
import json
import os

import pytest
from analysis.labels import fmt_bytes, fmt_rate
from conftest import ROOT

CASES = json.load(open(os.path.join(ROOT, "tests", "number-formats.json"), encoding="utf-8"))


@pytest.mark.parametrize("value,unit,text", CASES["rates"], ids=[c[2] for c in CASES["rates"]])
def test_rate(value, unit, text):
    assert fmt_rate(value, unit) == text


@pytest.mark.parametrize("value,text", CASES["bytes"], ids=[c[1] for c in CASES["bytes"]])
def test_size(value, text):
    assert fmt_bytes(value) == text


def test_never_an_exponent():
    v = 1e-3
    while v < 1e18:
        assert "e" not in fmt_rate(v, "B/s").replace("B/s", "") and "e" not in fmt_bytes(v)
        v *= 3.7
