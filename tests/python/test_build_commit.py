"""cmake/ParlabCommit.cmake, which names the commit a binary is built from (the records'
build.git_commit): only a repository whose top level is the source tree speaks for it (a tree
copied into another project's checkout gets no commit), "-dirty" marks uncommitted changes to
tracked files, and the header is rewritten only when the commit changes (no needless rebuilds)."""
import os
import re
import subprocess

import pytest

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "cmake", "ParlabCommit.cmake")


def commit_of(src, out):
    r = subprocess.run(["cmake", f"-DSOURCE_DIR={src}", f"-DOUTPUT={out}", "-P", SCRIPT], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return re.search(r'kBuildCommit = "([^"]*)"', out.read_text()).group(1)


def git(path, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "-C", str(path), *args], check=True,
                   capture_output=True)


def test_only_the_source_trees_own_repository(tmp_path):
    outer = tmp_path / "outer"
    inner = outer / "parlab"
    inner.mkdir(parents=True)
    git(outer, "init", "-q")
    git(outer, "commit", "-q", "--allow-empty", "-m", "outer")
    out = tmp_path / "commit.hpp"
    assert commit_of(inner, out) == ""  # another project's commit is not ours
    outer_commit = commit_of(outer, out)
    assert re.fullmatch(r"[0-9a-f]{40}", outer_commit)
    git(inner, "init", "-q")
    (inner / "f").write_text("1")
    git(inner, "add", "f")
    git(inner, "commit", "-q", "-m", "inner")
    own = commit_of(inner, out)
    assert re.fullmatch(r"[0-9a-f]{40}", own) and own != outer_commit
    (inner / "f").write_text("2")
    assert commit_of(inner, out) == own + "-dirty"
    (inner / "untracked").write_text("x")  # untracked files do not make a tree dirty
    (inner / "f").write_text("1")
    assert commit_of(inner, out) == own


def test_header_rewritten_only_when_the_commit_changes(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    out = tmp_path / "commit.hpp"
    first = commit_of(repo, out)
    os.utime(out, (1, 1))
    assert commit_of(repo, out) == first and os.stat(out).st_mtime == 1
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    assert commit_of(repo, out) != first and os.stat(out).st_mtime != 1


def test_no_git_checkout_gives_no_commit(tmp_path):
    (tmp_path / "src").mkdir()
    assert commit_of(tmp_path / "src", tmp_path / "c.hpp") == ""
