"""Text for a person at a terminal, as experiments/io/terminal.hpp makes it on the C++ side: every
line fits the terminal's width, long texts wrapped under their column rather than cut, so nothing
is lost; only a word longer than a line (a path) may run over."""
from __future__ import annotations

import os
import sys
import textwrap

# The widths terminal.hpp accepts from $COLUMNS, and its width without one.
NARROWEST, WIDEST, DEFAULT = 40, 1000, 100


def terminal_width() -> int:
    """The width every text of the analysis for a person is laid out in (the results table,
    compare's table, the messages): $COLUMNS when it holds a width from 40 to 1000 (terminal.hpp's
    rule, so `parlab compare`, `parlab report` and the C++ commands agree: COLUMNS=5 is no width
    and gives 100, never a table cut to one letter), else the width of the terminal stdout is, or
    else stderr is (a shell seldom exports COLUMNS), within the same bounds, else 100."""
    text = os.environ.get("COLUMNS", "").strip()
    if text.isdigit() and NARROWEST <= int(text) <= WIDEST:
        return int(text)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.isatty():
                return max(NARROWEST, min(WIDEST, os.get_terminal_size(stream.fileno()).columns))
        except (OSError, ValueError, AttributeError):  # closed, or no descriptor (a test's StringIO)
            continue
    return DEFAULT


def hanging(lead: str, text: str, width: int, indent: int | None = None) -> list[str]:
    """`lead` then `text` wrapped at spaces to `width`, each further line indented to where text
    began (or to `indent`), width / 2 at most: terminal.hpp's hanging(). A word longer than a
    line (a path) stays whole, on a line of its own."""
    pad = " " * min(len(lead) if indent is None else indent, width // 2)
    return textwrap.wrap(text, width, initial_indent=lead, subsequent_indent=pad, break_long_words=False,
                         break_on_hyphens=False) or [lead.rstrip()]


def lenient_streams() -> None:
    """stdout and stderr made to write what their encoding cannot hold as "?" (errors="replace"),
    never to raise: under PYTHONIOENCODING=ascii, or a C locale's terminal, a "±" or a "µs" of the
    results table would otherwise end the command with a UnicodeEncodeError. A stream that is
    closed (None) or no text file of the interpreter's (a test's StringIO) is left as it is."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or getattr(stream, "errors", None) not in ("strict", None):
            continue  # stderr's default, backslashreplace, never raises either
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):
            continue


def write_out(text: str) -> None:
    """text on stdout, where there is one: a command started with its stdout closed (`>&-`) has
    sys.stdout None, and its results are in the files it writes."""
    if sys.stdout is None:
        return
    sys.stdout.write(text)
    sys.stdout.flush()


__all__ = ["hanging", "lenient_streams", "terminal_width", "write_out"]
