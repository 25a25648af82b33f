#!/usr/bin/env python3
"""Renders results/README.md, the findings, from README.md.j2 and the committed records.

    tools/findings/render.py           write results/README.md
    tools/findings/render.py --check   exit 1 if results/README.md differs from a fresh rendering
    tools/findings/render.py --stdout  print the rendering

The template is the one place a sentence lives; findings.py derives every number it shows from
results/<machine>/<run>/results.json. Filters format numbers one way throughout: `x` a ratio
("12.3×"), `pct` a share in percent, `frac` a share as a fraction ("0.95"), `rate` a rate with
its SI prefix ("119 GB/s"), `num` three significant digits without an exponent, `seconds` a time
in s, ms, µs or ns, `size` an element count ("2^28"); `span(low, high, filter)` writes a range,
or one value where its ends read the same. Exit codes: 0 done (or equal), 1 differs (--check), 2 bad usage,
a finding whose data is missing or malformed, or an input or output that is not a regular file (the
message names the file and the field), 3 an internal error (one line, please report it).

Every file it reads -- the template, each cited run's results.json, a probe's table, README.md for
--check -- goes through the analysis's guarded reader (analysis/read.py): a FIFO, a
device or a folder in a file's place is refused before a byte is read, never waited on; each
cited run is validated against results.schema.json as it is read. README.md is written to a
fresh temporary file beside it (O_EXCL, so a link planted there is never followed) and renamed.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
import textwrap

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import findings  # noqa: E402
from analysis.exit_codes import run_command, say  # noqa: E402
from analysis.labels import fmt_rate, fmt_size  # noqa: E402
from analysis.read import InputError, read_text  # noqa: E402

TEMPLATE = "README.md.j2"
OUTPUT = os.path.join(findings.RESULTS, "README.md")


def _x(v: float, digits: int = 2) -> str:
    return f"{v:.{digits}f}×"


def _pct(v: float, digits: int = 0) -> str:
    return f"{100 * v:.{digits}f}%"


def _frac(v: float, digits: int = 2) -> str:
    return f"{v:.{digits}f}"


def _rate(v: float, unit: str) -> str:
    return fmt_rate(v, unit)


def _num(v: float) -> str:
    """Three significant digits, never an exponent: 0.172, 12.9, 1580."""
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _seconds(v: float) -> str:
    """A time in seconds in the unit that keeps it between 1 and 1000: "67.7 µs", "1.58 ms"."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(v) >= scale:
            return f"{_num(v / scale)} {unit}"
    return f"{_num(v * 1e9)} ns"


def _span(low: float, high: float, filt: str, *args) -> str:
    """"a–b" in one filter's format, or one value where both ends read the same."""
    fmt = FILTERS[filt]
    a, b = fmt(low, *args), fmt(high, *args)
    return a if a == b else f"{a}–{b}"


FILTERS = {"x": _x, "pct": _pct, "frac": _frac, "rate": _rate, "num": _num, "seconds": _seconds, "size": fmt_size}


def _template(name: str):
    path = os.path.join(HERE, name)
    return read_text(path), path, lambda: True


def environment() -> jinja2.Environment:
    # The template read by the guarded reader too (FileSystemLoader would open() it).
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_template), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             autoescape=False)
    env.filters.update(FILTERS)
    env.globals["span"] = _span
    return env


def render() -> str:
    f = findings
    text = environment().get_template(TEMPLATE).render(f=f, runs=f.RUNS, command=f.command, commit=f.commit)
    # Paragraphs refilled to WIDTH columns (the template's lines break around expressions, not
    # where the rendered text would); tables, headings, images, lists and comments kept as they are.
    blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip()]
    return "\n\n".join(_fill(b) for b in blocks) + "\n"


WIDTH = 100


def _fill(block: str) -> str:
    lines = [line.rstrip() for line in block.strip("\n").splitlines()]
    if any(line.lstrip().startswith(("|", "#", "!", "<!--", "-->", "```", "- ", "* ")) for line in lines):
        return "\n".join(lines)
    return textwrap.fill(" ".join(line.strip() for line in lines), WIDTH, break_long_words=False,
                         break_on_hyphens=False)


def write_atomically(path: str, text: str) -> None:
    """text written to a fresh temporary file beside `path` (mkstemp: O_CREAT|O_EXCL, so a link or
    file planted under any name there is never written through) and renamed over it; on any
    failure the temporary is removed and `path` left as it was. A link at `path` itself is
    replaced by the file, never followed."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) and not os.path.islink(path):
        raise InputError(f"{path}: a directory, not a file; remove it or render with --stdout")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise InputError(f"{path}: cannot be written ({e.strerror}: {folder})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            os.fchmod(fh.fileno(), 0o644)  # mkstemp's 0600 would make the findings their writer's only
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # renamed already, or never made
        if isinstance(e, OSError):
            raise InputError(f"{path}: cannot be written ({e.strerror})") from None
        raise


def _committed() -> str:
    """README.md as it is, through the guarded reader; "" where there is none."""
    try:
        os.lstat(OUTPUT)
    except FileNotFoundError:
        return ""
    except OSError as e:
        raise InputError(f"{OUTPUT}: cannot be read ({e.strerror})") from None
    return read_text(OUTPUT)


def _body(args) -> int:
    try:
        text = render()
    except (findings.FindingError, KeyError, jinja2.TemplateError) as e:
        say(f"render: a finding cannot be derived: {type(e).__name__}: {e}")
        return 2
    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        committed = _committed()
        if committed == text:
            return 0
        diff = difflib.unified_diff(committed.splitlines(), text.splitlines(), "results/README.md (committed)",
                                    "results/README.md (rendered)", lineterm="", n=1)
        sys.stderr.write("\n".join(list(diff)[:60]) + "\n")
        print("render: results/README.md differs from its template and records; "
              "run tools/findings/render.py and commit the result", file=sys.stderr)
        return 1
    write_atomically(OUTPUT, text)
    print(f"render: wrote results/README.md ({text.count(chr(10))} lines)", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if results/README.md differs from a fresh rendering")
    mode.add_argument("--stdout", action="store_true", help="print the rendering instead of writing it")
    args = ap.parse_args(argv)
    # Bad input is exit 2 with one line naming the file and the field (InputError), anything else
    # exit 3 with one line: a traceback would exit 1, which --check means "differs".
    return run_command("render", lambda: _body(args))


if __name__ == "__main__":
    sys.exit(main())
