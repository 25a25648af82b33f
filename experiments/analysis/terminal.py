"""Text for a person at a terminal, as experiments/io/terminal.hpp makes it on the C++ side: every
line fits the terminal's width, long texts wrapped under their column rather than cut, so nothing
is lost; only a word longer than a line (a path) may run over."""
from __future__ import annotations

import os
import shutil
import sys
import textwrap

# The widths terminal.hpp accepts from $COLUMNS, and its width without one.
NARROWEST, WIDEST, DEFAULT = 40, 1000, 100


def terminal_width() -> int:
    """$COLUMNS when it holds a width from 40 to 1000 (terminal.hpp's rule, so `parlab compare`
    and the C++ commands agree), else the terminal's own width where stdout is one (a shell
    seldom exports COLUMNS), else 100."""
    text = os.environ.get("COLUMNS", "").strip()
    if text.isdigit() and NARROWEST <= int(text) <= WIDEST:
        return int(text)
    if sys.stdout.isatty():
        return max(NARROWEST, min(WIDEST, shutil.get_terminal_size((DEFAULT, 24)).columns))
    return DEFAULT


def hanging(lead: str, text: str, width: int, indent: int | None = None) -> list[str]:
    """`lead` then `text` wrapped at spaces to `width`, each further line indented to where text
    began (or to `indent`), width / 2 at most: terminal.hpp's hanging(). A word longer than a
    line (a path) stays whole, on a line of its own."""
    pad = " " * min(len(lead) if indent is None else indent, width // 2)
    return textwrap.wrap(text, width, initial_indent=lead, subsequent_indent=pad, break_long_words=False,
                         break_on_hyphens=False) or [lead.rstrip()]


__all__ = ["hanging", "terminal_width"]
