"""The one stylesheet (analysis/style.py) of both pages: every class the run report
and compare's report write has a rule in it, on pages rendered from the fixtures of tests/fixtures/
chosen to reach each kind of row (failed and unavailable records, roof shares, the reference runs,
every compare verdict)."""
import os
import re
import shutil
import subprocess
import sys

from analysis.style import STYLE
from conftest import FIXTURES, ROOT, run_plot

COMPARE = os.path.join(ROOT, "analysis", "compare.py")


def classes_of(page: str) -> set:
    return {c for value in re.findall(r"""class=['"]([^'"]*)['"]""", page) for c in value.split()}


def has_rule(name: str) -> bool:
    """A selector of the stylesheet names the class (.name, alone or with an element or another
    class)."""
    return re.search(rf"\.{re.escape(name)}(?![\w-])", STYLE) is not None


def fixture_copy(tmp_path, name):
    return shutil.copytree(os.path.join(FIXTURES, name), tmp_path / name)


def test_every_class_of_both_pages_has_a_rule(tmp_path):
    pages = {}
    run = fixture_copy(tmp_path, "compare-new")  # failed, unavailable, a failed consistency check
    assert run_plot(str(run), "--no-reference", "--quiet").returncode == 0
    pages["report of compare-new"] = (run / "report.html").read_text()
    run = fixture_copy(tmp_path, "stream-limits")  # roof shares, against the reference runs
    res = run_plot(str(run), "--reference", os.path.join(FIXTURES, "reference-tree"), "--quiet")
    assert res.returncode == 0, res.stderr
    pages["report of stream-limits"] = (run / "report.html").read_text()
    res = subprocess.run([sys.executable, COMPARE, os.path.join(FIXTURES, "compare-base"),
                          os.path.join(FIXTURES, "compare-new"), "--html", str(tmp_path / "cmp")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    pages["compare"] = (tmp_path / "cmp" / "report.html").read_text()
    for what, page in pages.items():
        assert f"<style>{STYLE}</style>" in page, what  # the one stylesheet, whole
        missing = sorted(c for c in classes_of(page) if not has_rule(c))
        assert not missing, f"{what}: classes without a rule in style.py: {missing}"
    written = set().union(*map(classes_of, pages.values()))
    # The rows these fixtures were made to reach, each under its one class name.
    assert {"failed", "warn", "muted", "bar", "reference", "refs", "summary", "ceilings",
            "slower", "faster", "same", "tile", "tiles", "runs", "rec", "small", "l"} <= written
    assert "fail" not in written and not has_rule("fail")
