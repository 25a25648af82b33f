"""What a newcomer meets first: `parlab list` at 80 columns (in a real terminal and under
$COLUMNS) keeps every wrapped line under its column and each suite's description to 3 lines,
`parlab list suites NAME` prints the whole one, and `list` and `run` agree on a Python library
the embedded interpreter cannot import, whatever the build: `list` calls it unavailable with the
module named first, and a plan of nothing else exits 2 and writes nothing."""
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import termios

import pytest

from conftest import ROOT

SUITES = os.path.join(ROOT, "experiments", "suites")
# The columns of `parlab list`'s rows (experiments/cli/commands.cpp): where a row's last column
# starts, by section, for a name that fits its cell.
COLUMN = {"backends:": 2 + 24 + 7 + 13, "kernels:": 2 + 16 + 10 + 14, "suites": 2 + 16}
SUITE_LINES = 3


def in_a_terminal(args, columns, env=None):
    """stdout of `args` run on a pseudo-terminal `columns` wide, without $COLUMNS: the width parlab
    asks the terminal for (TIOCGWINSZ)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in (env or os.environ).items() if k != "COLUMNS"}
    p = subprocess.Popen(args, stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    p.wait(timeout=300)
    assert p.returncode == 0, p.stderr.read()
    return b"".join(chunks).decode().replace("\r\n", "\n")


def sections(text):
    """{header: [lines]} of `parlab list`'s output: a header is a line that does not start with a
    space (a long header wrapped under itself continues it)."""
    out, header = {}, None
    for line in text.splitlines():
        if not line.startswith(" "):
            header = "suites" if line.startswith("suites (") else line
            out[header] = []
        elif header is not None:
            out[header].append(line)
    return out


def rows(lines):
    """[(row line, [its continuation lines])]: a row starts at column 2, a continuation further in."""
    out = []
    for line in lines:
        if re.match(r"  \S", line):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


def assert_listing_fits(text, width):
    got = sections(text)
    assert {"backends:", "kernels:", "suites"} <= set(got), list(got)
    for header, column in COLUMN.items():
        for row, more in rows(got[header]):
            assert len(row) <= width or len(row.split()) == 1, row
            # A name wider than its cell pushes its row's text right; the wrapping keeps that
            # column. The row's text starts after the padded cells: find it from the row itself.
            start = column if len(row) > column and row[column - 1] == " " and row[column] != " " else None
            for line in more:
                assert len(line) <= width, line
                indent = len(line) - len(line.lstrip(" "))
                if start is not None:
                    assert indent == start, f"{header} {row.split()[0]}: wrapped to column {indent}, not {start}:\n{line}"
                else:
                    assert indent >= 6, line
            if header == "suites":
                assert 1 + len(more) <= SUITE_LINES, f"{row.split()[0]}: {1 + len(more)} lines"


@pytest.mark.parametrize("width", [80, 100])
def test_list_in_a_terminal_keeps_every_column(parlab_bin, width):
    assert_listing_fits(in_a_terminal([parlab_bin, "list"], width), width)


def test_list_under_columns_keeps_every_column(parlab_bin):
    r = subprocess.run([parlab_bin, "list"], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert_listing_fits(r.stdout, 80)
    # The listing says how to read a whole description, and cuts the long ones with a mark.
    assert "`parlab list suites NAME`" in " ".join(r.stdout.split())
    suites = sections(r.stdout)["suites"]
    long = [row for row, more in rows(suites) if more and more[-1].endswith(" ...")]
    assert long, "no suite's description was cut at 80 columns: the test no longer tests the cut"


def suite_description(name):
    with open(os.path.join(SUITES, name + ".json"), encoding="utf-8") as f:
        return json.load(f).get("description", "")


def test_list_suites_name_prints_the_whole_description(parlab_bin):
    names = sorted(n[:-5] for n in os.listdir(SUITES) if n.endswith(".json"))
    longest = max(names, key=lambda n: len(suite_description(n)))
    r = subprocess.run([parlab_bin, "list", "suites", longest], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == longest + ":" and lines[1].startswith("  (") and lines[1].endswith(".json)"), lines[:2]
    assert " ".join(" ".join(lines[2:]).split()) == " ".join(suite_description(longest).split())
    assert all(len(l) <= 80 or len(l.split()) == 1 for l in lines), lines


@pytest.mark.parametrize("args, says", [
    (["list", "suites", "stream-peer"], "did you mean 'stream-peers'"),
    (["list", "suites", "no-such-suite-at-all"], "unknown suite 'no-such-suite-at-all'"),
    (["list", "suites", "../suites/quick"], "unknown suite"),  # only a name of the suites directory
    (["list", "suites", "x" * 5000], "unknown suite"),  # hostile: quoted, cut, never echoed whole
    (["list", "suites", "quick\n\x1b[2Jnot"], "unknown suite"),  # hostile: no raw control characters
    (["list", "kernels", "pi"], "after 'suites' only"),
    (["list", "suitse"], "suitse"),
])
def test_list_of_an_unknown_name_exits_2_naming_it(parlab_bin, args, says):
    r = subprocess.run([parlab_bin, *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert says in r.stderr, r.stderr
    assert r.stdout == ""
    assert len(r.stderr) < 1000 and "\x1b" not in r.stderr, r.stderr


# Libraries planted on PYTHONPATH, each failing its import: the embedded interpreter finds them
# before any installed copy, so the test holds on a machine with CuPy and PyTorch as on one without.
PLANTED = ("cupy", "torch")


@pytest.fixture
def planted_env(tmp_path):
    lib = tmp_path / "planted"
    for module in PLANTED:
        (lib / module).mkdir(parents=True)
        (lib / module / "__init__.py").write_text(f"raise ImportError('planted: this {module} is broken')\n")
    return {**os.environ, "PYTHONPATH": str(lib), "COLUMNS": "80"}


def listed_reasons(parlab_bin, env):
    """{backend: (status, its whole reason or detail)} from `parlab list backends`."""
    r = subprocess.run([parlab_bin, "list", "backends"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    out = {}
    for row, more in rows(sections(r.stdout)["backends:"]):
        name, _, status = row.split()[:3]
        out[name] = (status, " ".join((row[COLUMN["backends:"]:] + " " + " ".join(more)).split()))
    return out


def test_list_and_run_agree_on_a_library_that_does_not_import(parlab_bin, planted_env, tmp_path):
    listed = listed_reasons(parlab_bin, planted_env)
    for module, backend in zip(PLANTED, ("py-cupy", "py-torch")):
        status, reason = listed[backend]
        assert status == "unavailable", (backend, status, reason)
        # What is missing first, so a line cut short at any width still names it: the module, or
        # where parlab was built with CUDA on a machine without a GPU, the GPU (checked before it
        # imports anything).
        if reason.startswith("needs a GPU"):
            continue
        assert reason.startswith(f"{module} not importable"), reason
        assert f"planted: this {module} is broken" in reason, reason
    # A plan of nothing else: exit 2, the same reasons, nothing written (the dry run too).
    out = tmp_path / "results"
    for extra in ([], ["--dry-run"]):
        r = subprocess.run([parlab_bin, "run", "-b", "py-cupy,py-torch", "--out", str(out), *extra],
                           capture_output=True, text=True, timeout=300, env=planted_env)
        assert r.returncode == 2, (extra, r.returncode, r.stdout, r.stderr)
        said = " ".join((r.stdout + r.stderr).split())
        assert "nothing in this plan can be measured here" in said, said
        for backend in ("py-cupy", "py-torch"):
            assert f"{backend}: {listed[backend][1]}" in said, (backend, said)
        assert not out.exists(), os.listdir(out)


def test_a_run_records_the_listed_reason_beside_what_it_measures(parlab_bin, planted_env, tmp_path):
    listed = listed_reasons(parlab_bin, planted_env)
    out = tmp_path / "results"
    r = subprocess.run([parlab_bin, "run", "-b", "py-cupy,serial", "-k", "pi", "-n", "2^12", "-r", "1", "--quick",
                        "--no-report", "--no-ceilings", "-q", "--out", str(out)],
                       capture_output=True, text=True, timeout=600, env=planted_env)
    assert r.returncode == 0, r.stderr
    (host,) = os.listdir(out)
    with open(os.path.join(out, host, "latest", "results.json"), encoding="utf-8") as f:
        records = json.load(f)["records"]
    cupy = [x for x in records if x["backend"] == "py-cupy"]
    assert cupy and all(x["status"] == "unavailable" for x in cupy), cupy
    assert all(x["reason"] == listed["py-cupy"][1] for x in cupy), (cupy[0]["reason"], listed["py-cupy"][1])
    assert any(x["backend"] == "serial" and x["status"] == "ok" for x in records)
