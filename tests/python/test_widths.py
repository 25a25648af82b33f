"""Every line parlab prints to a person fits the terminal: 100 columns, or $COLUMNS. Long texts
(descriptions, reasons, how a roof was measured) are wrapped under their column, so nothing is
cut; only a word longer than a line (a path) may run over."""
import os
import subprocess

import pytest

COMMANDS = {
    "help": ["--help"],
    "run-help": ["run", "--help"],
    "pi-help": ["pi", "--help"],
    "report-help": ["report", "--help"],
    "ceilings-help": ["ceilings", "--help"],
    "migrate-help": ["migrate", "--help"],
    "list": ["list"],
    "list-backends": ["list", "backends"],
    "list-suites": ["list", "suites"],
    "ceilings": ["ceilings"],
}


def over(text, width):
    """The lines over width, but for a line that is one unbreakable word (a path) after its indent."""
    return [line for line in text.splitlines() if len(line) > width and len(line.split()) > 1]


@pytest.mark.parametrize("width", [100, 72])
@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_every_line_fits(parlab_bin, case, width):
    r = subprocess.run([parlab_bin, *COMMANDS[case]], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": str(width)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    assert not over(r.stdout, width), "\n".join(over(r.stdout, width))


def test_list_shows_one_kind_when_asked(parlab_bin):
    whole = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, timeout=120).stdout
    only = subprocess.run([parlab_bin, "list", "kernels"], capture_output=True, text=True, timeout=120).stdout
    assert only.startswith("kernels:") and "backends:" not in only and "suites (" not in only
    assert only in whole  # the same lines as in the whole list


def test_wrapping_keeps_every_word(parlab_bin):
    """A description wrapped at 72 columns has every word it has at 1000: the backends' reasons
    whole, and each suite's whole description in `parlab list suites NAME` (the listing keeps
    its first 3 lines, test_list.py)."""
    def listed(*args, width):
        return subprocess.run([parlab_bin, "list", *args], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "COLUMNS": str(width)}).stdout
    assert listed("backends", width=72).split() == listed("backends", width=1000).split()
    from conftest import ROOT
    suites = sorted(n[:-5] for n in os.listdir(os.path.join(ROOT, "experiments", "suites")) if n.endswith(".json"))
    assert suites
    for name in suites:
        assert listed("suites", name, width=72).split() == listed("suites", name, width=1000).split(), name


# Two committed runs of the quick suite on the GPU node's CPU, two commits apart: shares of roof,
# context differences and scaling shapes, all to fit.
COMPARE_PAIR = ("results/h100-node-16core/20261125T154437Z", "results/h100-node-16core/20261125T175358Z")


@pytest.mark.parametrize("width", [100, 80])
def test_compare_fits(parlab_bin, width):
    """`parlab compare` passes $COLUMNS to its Python child, whose table fits it
    (tests/python/test_compare.py holds the table itself on more runs)."""
    from conftest import ROOT
    script = os.path.join(ROOT, "analysis", "compare.py")  # this tree's, whichever parlab is run
    r = subprocess.run([parlab_bin, "compare", *(os.path.join(ROOT, p) for p in COMPARE_PAIR)], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "COLUMNS": str(width), "PARLAB_COMPARE_SCRIPT": script})
    assert r.returncode == 0, r.stderr
    assert "Records (" in r.stdout
    assert not over(r.stdout, width), "\n".join(over(r.stdout, width))
