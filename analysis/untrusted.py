"""Text from a results file, made safe for where it is shown. A results.json may come from another
machine or another person (a reference run, a run attached to an issue), so every string in it is
untrusted input: a kernel named `<script>` must not run in report.html, one named
`x/../../../outside/PWN` must not name a file outside plots/, and one holding ESC[2J must not clear
the terminal of whoever prints the table. One helper per destination, and every writer of that
destination goes through it:

  html_text, html_number   report.html and compare's page: escaped text (quotes included, so a
                           value is safe in an attribute too), or a number formatted as one
  visible, one_line        a terminal (stdout, stderr): control characters shown, never obeyed
  plain_strings            the same over every string of a document (the table, compare's text)
  markdown_cell, csv_cell  a cell of the Markdown and CSV tables
  figure_slug              a figure's file name under plots/, made of a name from the data
"""
from __future__ import annotations

import hashlib
import html
import math
import re

# C0 controls but newline and tab, DEL, the C1 controls, and the Unicode characters that reorder or
# break what a terminal shows (line and paragraph separators, bidirectional embeddings, overrides
# and isolates: "Trojan Source", CVE-2021-42574).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _shown(m: re.Match) -> str:
    c = ord(m.group())
    if c < 0x20:
        return "^" + chr(c + 0x40)  # caret notation, as `cat -v` shows them: ESC is ^[
    if c == 0x7F:
        return "^?"
    return "\ufffd"  # C1 and the Unicode format characters: the replacement character


def visible(text) -> str:
    """text (str() of anything else) with every control character but newline and tab shown in
    caret notation (ESC as ^[, BEL as ^G) and the C1 controls and the bidirectional overrides as
    U+FFFD, so printing it cannot move the cursor, clear the screen, set a window title or
    reorder the line."""
    return _CONTROL.sub(_shown, text if isinstance(text, str) else str(text))


def one_line(text) -> str:
    """visible(text) on one line: newlines, carriage returns and tabs become spaces (a table cell)."""
    return re.sub(r"[\n\t]", " ", visible(text))


def plain_strings(value):
    """value with every string in it (keys included) made one_line: a document or a comparison
    made fit for a terminal before any layout measures its texts."""
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, dict):
        return {plain_strings(k) if isinstance(k, str) else k: plain_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain_strings(v) for v in value)
    return value


def html_text(value) -> str:
    """The one way a value from the data enters HTML: str() of it, control characters shown
    (visible), then html.escape with quote=True, so it is inert in an element's text and in a
    quoted attribute (an href, a title) alike."""
    return html.escape(visible(value), quote=True)


def is_number(v) -> bool:
    """A finite int or float, not a bool (json gives True for true, and True is an int)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def html_number(value, spec: str = "") -> str:
    """A field that should be a number, as HTML: format(value, spec) when it is one, else the value
    escaped as text (html_text), so a record's "threads": "<b>" is shown, never obeyed."""
    return html.escape(format(value, spec)) if is_number(value) else html_text(value)


def markdown_cell(text) -> str:
    """A Markdown table cell: one line, its pipes escaped so they do not open another cell."""
    return one_line(text).replace("|", "\\|")


# A CSV cell beginning with one of these is taken for a formula by a spreadsheet (OWASP, "CSV
# Injection"): "=HYPERLINK(...)" in a kernel's name would run when the file is opened.
_FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """A string from the data as a CSV cell: control characters shown (visible), and one that a
    spreadsheet would read as a formula prefixed with a single quote (OWASP's rule)."""
    return ("'" if text.startswith(_FORMULA_LEADS) else "") + visible(text)


SLUG_MAX = 120  # characters of a figure's name: far below a file name's 255 bytes, with room for ".svg"
_NOT_SLUG = re.compile(r"[^A-Za-z0-9._-]")


def figure_slug(name) -> str:
    """A figure's file name (no extension) made of `name`, which holds names from the data (a
    study, a kernel): only [A-Za-z0-9._-], no leading dot, at most SLUG_MAX characters. A name
    that had to change gets a short hash of the original, so two names that differ only in what
    was replaced ("a/b", "a:b") keep two files; the names parlab itself writes pass unchanged."""
    name = name if isinstance(name, str) else str(name)
    slug = _NOT_SLUG.sub("_", name)
    slug = "_" + slug[1:] if slug.startswith(".") else slug
    if slug == name and 0 < len(slug) <= SLUG_MAX:
        return slug
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return (slug[:SLUG_MAX - len(digest) - 1] or "figure") + "-" + digest


__all__ = ["csv_cell", "figure_slug", "html_number", "html_text", "is_number", "markdown_cell", "one_line",
           "plain_strings", "visible"]
