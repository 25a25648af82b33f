"""The one figure and HTML writer of the analysis package, used by the run report (figures/,
report.py) and by compare's report (compare_report.py): matplotlib set up for
deterministic files, the list of figures drawn, a figure embedded in a self-contained page, the
page's head with the one stylesheet (style.py), the page written atomically (a reader never
sees half a report), and CSV and strict JSON text."""
from __future__ import annotations

import base64
import csv
import io
import json
import math
import os
import tempfile

from analysis.read import InputError
from analysis.style import STYLE
from analysis.untrusted import csv_cell, figure_slug, html_text, one_line


class Plotter:
    """Draws into out_dir. svg: also write an SVG beside each PNG (the run report links to it;
    compare's report embeds the PNG only). grid: a grid on every axes by default."""

    def __init__(self, out_dir: str, svg: bool = True, grid: bool = True):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rc = {"svg.hashsalt": "parlab", "figure.dpi": 100, "savefig.dpi": 100, "font.size": 9}
        if grid:
            rc.update({"axes.grid": True, "grid.alpha": 0.3})
        matplotlib.rcParams.update(rc)
        self.plt = plt
        self.out_dir = out_dir
        self.svg = svg
        self.figures: list[tuple[str, str]] = []  # (name, caption)
        self.created = not os.path.isdir(out_dir)
        os.makedirs(out_dir, exist_ok=True)

    def discard_if_empty(self) -> None:
        """After a failure: removes out_dir if this Plotter made it and nothing is in it (a failed
        report leaves no empty plots/ behind)."""
        if self.created:
            try:
                os.rmdir(self.out_dir)
            except OSError:
                pass

    @staticmethod
    def label(ax, xlabel: str, ylabel: str, title: str, whole_x: bool = False, legend_size=None) -> None:
        """Axis labels, title and legend of a figure's axes; whole_x: only whole numbers on x
        (thread, worker and rank counts)."""
        if whole_x:
            from matplotlib.ticker import MaxNLocator
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=legend_size)

    def path(self, name: str, ext: str = "png") -> str:
        """The file of figure `name` (figure_slug of it: no separator, no leading dot) under
        out_dir, checked to resolve there all the same, so no figure is ever written outside the
        run's plots/ (InputError otherwise)."""

        path = os.path.join(self.out_dir, f"{figure_slug(name)}.{ext}")
        inside = os.path.realpath(self.out_dir)
        if os.path.commonpath([inside, os.path.realpath(os.path.dirname(path))]) != inside:
            raise InputError(f"{path}: not a file inside {self.out_dir}; no figure is written there")
        return path

    def save(self, fig, name: str, caption: str) -> str:
        """Writes the figure (no dates or tool names in the metadata, so the bytes depend on the
        data only), records it under its file name (figure_slug of `name`: names from the data
        never leave plots/) and returns the PNG's path."""
        name = figure_slug(name)
        try:  # the figure is closed whatever happens, a layout that fails included
            inert_text(fig)
            fig.tight_layout()
            # Through write_atomically: a full disk or an interrupt leaves no truncated PNG or SVG.
            write_atomically(self.path(name), lambda f: fig.savefig(f, format="png", metadata={"Software": None}))
            if self.svg:
                write_atomically(self.path(name, "svg"),
                                 lambda f: fig.savefig(f, format="svg", metadata={"Date": None, "Creator": None}))
        finally:
            self.plt.close(fig)
        self.figures.append((name, caption))
        return self.path(name)


# Text drawn into a figure is cut here: a name of 4,000 characters from the data would push the
# axes out of the figure, and no label needs more to be told apart.
LABEL_MAX = 200


def _inert(text: str) -> str:
    text = one_line(text) if "\n" not in text else "\n".join(one_line(x) for x in text.split("\n"))
    return text if len(text) <= LABEL_MAX else text[:LABEL_MAX - 1] + "…"


def _tick(label) -> str:
    """A tick label made of the data, inert: shown as written ("$" escaped, so it is no formula)."""
    return _inert(str(label)).replace("$", r"\$")


def inert_text(fig) -> None:
    """Every text of fig drawn as the characters it holds: mathtext off for the titles, labels,
    legends and annotations (names from the data: a kernel named "$\\frac{$" is text, not a
    formula that fails to parse), control characters shown (untrusted.visible) and each text cut at
    LABEL_MAX; tick labels likewise ("$" escaped) wherever they come from other than a numeric
    formatter (set_xticklabels, a categorical axis, our own FuncFormatters), while the labels
    matplotlib's numeric formatters make (a log axis's 10^3) keep their math. matplotlib escapes
    <, > and & in the SVG it writes."""
    from matplotlib.text import Text
    from matplotlib.ticker import Formatter, LogFormatter, ScalarFormatter

    class Inert(Formatter):
        def __init__(self, inner):
            self.inner = inner

        def __call__(self, x, pos=None):
            return _tick(self.inner(x, pos))

        def format_ticks(self, values):
            return [_tick(s) for s in self.inner.format_ticks(values)]

        def set_locs(self, locs):
            self.inner.set_locs(locs)

        def get_offset(self):
            return _tick(self.inner.get_offset())

    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks.add(id(axis.offsetText))
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((id(tick.label1), id(tick.label2)))
            for formatter, put in ((axis.get_major_formatter(), axis.set_major_formatter),
                                   (axis.get_minor_formatter(), axis.set_minor_formatter)):
                if not isinstance(formatter, (ScalarFormatter, LogFormatter, Inert)):
                    put(Inert(formatter))
    for t in fig.findobj(Text):
        if id(t) in ticks:  # drawn from its formatter, which sets its text again as it is drawn
            continue
        t.set_parse_math(False)
        t.set_text(_inert(t.get_text()))


def figure_html(png_path: str, caption: str, svg_href: str | None = None) -> str:
    """A <figure> with the PNG embedded (the page stays one self-contained file) and, where given,
    a link to the SVG beside it (its name a figure_slug, escaped still)."""
    with open(png_path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    e = html_text
    link = f" (<a href='{e(svg_href)}'>SVG</a>)" if svg_href else ""
    return (f"<figure><img alt='{e(caption)}' src='data:image/png;base64,{data}'>"
            f"<figcaption>{e(caption)}{link}</figcaption></figure>")


def page_head(title: str) -> str:
    """The page's head with the package's one stylesheet (style.py), so both pages' classes mean
    the same."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html_text(title)}</title>"
            f"<style>{STYLE}</style></head><body>")


def _umask() -> int:
    mask = os.umask(0o022)  # read it: umask(2) can only be read by setting it
    os.umask(mask)
    return mask


def write_atomically(path: str, write) -> str:
    """Calls write(f) on a temporary file beside path (unique to this writer), then renames it to
    path: a reader sees the old file or the whole new one, and a failure (a full disk, a read-only
    filesystem, an interrupt) leaves no partial file, the old one untouched. Returns path."""
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        # mkstemp's 0600 would make a report only its writer can read: the mode open(2) would give
        # a new file, 0666 less the umask (a private umask, 077, keeps it private).
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and e.filename in (None, tmp):  # name the file meant, not the temporary
            raise OSError(e.errno, e.strerror, path) from None
        raise
    return path


def write_page(path: str, text: str) -> str:
    """Writes text to path atomically (write_atomically); returns path."""
    return write_atomically(path, lambda f: f.write(text.encode("utf-8")))


def csv_number(v) -> str:
    """A CSV cell for v: a float in the shortest text that reads back as the same float (Python's
    repr: 0.0016320602, never 0.0016320602000000001), "" for None, NaN or an infinity (CSV has no
    such number and a reader would take "nan" for text), a string from the data through
    untrusted.csv_cell (no cell a spreadsheet would run as a formula), else str(v)."""
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    if isinstance(v, str):
        return csv_cell(v)
    return str(v)


def csv_text(fields: list, rows) -> str:
    """rows (dicts) as CSV with a header of fields, every number through csv_number: the one way
    the analysis writes CSV."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fields, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows({k: csv_number(row.get(k)) for k in fields} for row in rows)
    return buf.getvalue()


def strict_json(obj):
    """obj with every float that JSON cannot hold (NaN, Infinity) replaced by None, and the list of
    what was replaced: [{"path": "records[3].ratio", "value": "inf"}]. JSON has no NaN or Infinity;
    Python's json writes them anyway, and a strict reader (jq, a browser, nlohmann) refuses the file."""
    replaced = []

    def walk(v, where):
        if isinstance(v, float) and not math.isfinite(v):
            replaced.append({"path": where or "$", "value": repr(v)})
            return None
        if isinstance(v, dict):
            return {k: walk(x, f"{where}.{k}" if where else str(k)) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x, f"{where}[{i}]") for i, x in enumerate(v)]
        return v

    return walk(obj, ""), replaced


def json_text(obj) -> str:
    """obj as strict JSON text (strict_json), indented and sorted. A dict that held a value JSON
    cannot hold gets "non_finite": the paths replaced by null and what they were."""
    clean, replaced = strict_json(obj)
    if replaced and isinstance(clean, dict):
        clean["non_finite"] = replaced
    return json.dumps(clean, indent=1, sort_keys=True, allow_nan=False) + "\n"
