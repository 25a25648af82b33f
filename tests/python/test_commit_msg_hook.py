"""tools/git-hooks/commit-msg keeps CONTRIBUTING.md's commit habits as a commit is made: a subject
of at most 72 characters, a blank line and a body, and no issue numbers."""
import os
import subprocess

import pytest

from conftest import ROOT

HOOK = os.path.join(ROOT, "tools", "git-hooks", "commit-msg")
BODY = "\n\nWhy: the reason, in a sentence or two.\n"


def check(tmp_path, text):
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(text)
    return subprocess.run(["bash", HOOK, str(msg)], capture_output=True, text=True)


@pytest.mark.parametrize("text", [
    "x" * 72 + BODY,
    "migrate: old runs get their family from the catalogue" + BODY + "# a comment line git drops\n",
    # git's verbose template: everything below the scissors line is dropped
    "Subject" + BODY + "# ------------------------ >8 ------------------------\n" + "diff " + "y" * 200 + "\n",
])
def test_a_message_that_keeps_the_habits_passes(tmp_path, text):
    res = check(tmp_path, text)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("text, says", [
    ("x" * 73 + BODY, "73 characters"),
    ("A subject alone\n", "a body"),
    ("A subject\nand no blank line\n\nbody\n", "a blank line"),
    ("Fix the loader" + "\n\nAs issue " + "29 asked.\n", "no issue numbers"),  # split: the tree holds no issue numbers
    ("Fix issue #12 in the loader" + BODY, "no issue numbers"),
])
def test_a_message_that_breaks_one_is_refused_saying_which(tmp_path, text, says):
    res = check(tmp_path, text)
    assert res.returncode == 1 and says in res.stderr, res.stderr
