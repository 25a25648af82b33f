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
or one value where its ends read the same. Exit codes: 0 done (or equal), 1 differs (--check), 2 bad usage or a finding whose
data is missing (the message names it).
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import textwrap

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import findings  # noqa: E402
from analysis.figures.labels import fmt_rate, fmt_size  # noqa: E402

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


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), undefined=jinja2.StrictUndefined,
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if results/README.md differs from a fresh rendering")
    mode.add_argument("--stdout", action="store_true", help="print the rendering instead of writing it")
    args = ap.parse_args(argv)
    try:
        text = render()
    except (findings.FindingError, KeyError, OSError, jinja2.TemplateError) as e:
        print(f"render: a finding cannot be derived: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        committed = open(OUTPUT, encoding="utf-8").read() if os.path.exists(OUTPUT) else ""
        if committed == text:
            return 0
        diff = difflib.unified_diff(committed.splitlines(), text.splitlines(), "results/README.md (committed)",
                                    "results/README.md (rendered)", lineterm="", n=1)
        sys.stderr.write("\n".join(list(diff)[:60]) + "\n")
        print("render: results/README.md differs from its template and records; "
              "run tools/findings/render.py and commit the result", file=sys.stderr)
        return 1
    tmp = OUTPUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, OUTPUT)
    print(f"render: wrote results/README.md ({text.count(chr(10))} lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
