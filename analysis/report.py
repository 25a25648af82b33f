"""report.html: self-contained; first the machine (machine.py: CPU, cores, memory, GPU,
compiler, build type, the load at the start and the unstable records) and the run summary, then
every figure, the Python libraries, the context folded by section, the consistency checks and
every record with its spread."""
from __future__ import annotations

import os
import sys

from analysis.untrusted import html_number, html_text
from analysis.writer import Plotter, figure_html, page_head
from analysis.labels import fmt_rate, fmt_size, time_scale
from analysis.records import rate_of
from analysis.machine import context_html, machine_html, record_anchor
from analysis.series import python_models_note
from analysis.reference import reference_html
from analysis.incore import incore_html
from analysis.hierarchy import hierarchy_html
from analysis.roofs import limit_notes, share_text
from analysis.summary import run_summary, summary_html
from analysis.spread import UNSTABLE_CV
from analysis.exit_codes import say


def report_html(doc: dict, out_dir: str, figures: list[tuple[str, str]], libraries: list | None = None,
                reference: dict | None = None, left_out: list[tuple[str, str]] | None = None) -> str:
    """The page; reference: reference.reference_section's data (None: no comparison, as --no-reference);
    left_out: [(figure, why)] of the figures too large to draw, listed where they would stand."""
    ctx = doc["context"]
    e, n = html_text, html_number  # every value from the data, text or number (untrusted.py)
    parts = [page_head("parlab report"),
             f"<h1>parlab report: {e(doc.get('suite', ''))}</h1>",
             f"<p>Status: <b>{e(doc['status'])}</b>. Host {e(ctx.get('host'))}, started {e(ctx.get('started_utc'))}.</p>"]
    failed = [r for r in doc["records"] if r["status"] not in ("ok", "unavailable")]
    if failed:
        parts.append(f"<p class='failed'><b>{len(failed)} measurement(s) failed validation or errored</b> (rows in red below).</p>")
    # The machine and how steady it was come first: every number below is of this machine.
    parts.append(machine_html(doc))
    parts.append(summary_html(run_summary(doc, libraries)))
    parts.append(reference_html(reference))
    if ctx.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li class='warn'>{e(w)}</li>" for w in ctx["warnings"]) + "</ul>")
    parts.append("<h2>Figures</h2>")
    for name, caption in figures:
        parts.append(figure_html(os.path.join(out_dir, name + ".png"), caption, f"plots/{name}.svg"))
    for name, why in left_out or []:  # a figure too large to draw says so, rather than failing the page
        parts.append(f"<p class='warn'>Figure {e(name)} left out: {e(why)}.</p>")
    if not figures and not left_out:
        parts.append("<p>No figure: these results have no thread sweep, size sweep or backend comparison.</p>")
    parts.append(python_models_note(doc))
    parts.append(incore_html(doc))
    parts.append(hierarchy_html(doc))
    if libraries:
        parts.append("<h2>Python libraries</h2><table><tr><th class='l'>kernel</th><th class='l'>precision</th><th>size</th>"
                     "<th class='l'>parlab</th><th>threads</th><th>rate</th><th class='l'>library</th><th>threads</th>"
                     "<th>rate</th><th>parlab / library</th></tr>")
        for r in libraries:
            parts.append(f"<tr><td class='l'>{e(r['kernel'])}</td><td class='l'>{e(r['precision'])}</td>"
                         f"<td>{e(fmt_size(r['size']))}</td><td class='l'>{e(r['parlab'])}</td><td>{n(r['parlab_threads'])}</td>"
                         f"<td>{e(fmt_rate(r['parlab_rate'], r['unit']))}</td><td class='l'>{e(r['library'])}</td>"
                         f"<td>{n(r['threads'])}</td><td>{e(fmt_rate(r['library_rate'], r['unit']))}</td><td>{n(r['ratio'], '.2f')}</td></tr>")
        parts.append("</table>")
    parts.append(context_html(ctx))
    if doc.get("consistency"):
        parts.append("<h2>Cross-backend consistency</h2><table><tr><th>kernel</th><th>seed</th><th>N</th><th>records</th><th>distinct hits</th><th>verdict</th></tr>")
        for c in doc["consistency"]:
            cls = "" if c["pass"] else " class='failed'"
            parts.append(f"<tr{cls}><td>{e(c['kernel'])}</td><td>{n(c['seed'])}</td><td>{n(c['size'])}</td>"
                         f"<td>{n(c['records'])}</td><td>{n(c['distinct_hits'])}</td>"
                         f"<td>{'pass' if c['pass'] else 'FAIL'}</td></tr>")
        parts.append("</table>")
    parts.append(records_html(doc))
    parts.append("</body></html>\n")
    return "".join(parts)


def _spread_cells(r: dict) -> tuple[str, str, str]:
    """(median ± half the interquartile range, CV, n) of a record's repetition times, as text."""
    t = r.get("time_s") or {}
    med = t.get("median")
    if not isinstance(med, (int, float)):
        return "", "", ""
    half = (t["q3"] - t["q1"]) / 2 if isinstance(t.get("q1"), (int, float)) and isinstance(t.get("q3"), (int, float)) \
        else None
    cv = t.get("cv")
    # Four digits of the median (the spread is seldom under a thousandth of it), in s, ms or µs.
    scale, unit = time_scale([med], "s")
    return (f"{med / scale:.4g}" + (f" ± {half / scale:.2g}" if half is not None else "") + f" {unit}",
            f"{100 * cv:.1f}%" if isinstance(cv, (int, float)) else "", str(t.get("n", len(r.get("reps_s") or []))))


def _roof_cell(r: dict) -> str:
    """The record's share of the roof that binds it, and below it what else its limit says: the
    GPU's theoretical peak, a partly cache-resident working set, a share above 1."""
    e = html_text
    notes = limit_notes(r)
    cell = e(share_text(r))
    return cell + "".join(f"<br><span class='small'>{e(n)}</span>" for n in notes)


def records_html(doc: dict) -> str:
    """Every record, with its spread (median ± half the interquartile range, CV, repetitions)
    and, for an unstable one, why and what to do; each row has the anchor the first screen's
    list of unstable records links to."""
    e, num = html_text, html_number
    parts = ["<h2 id='records'>Records</h2><p class='small'>time: median ± half the interquartile range of the "
             "repetitions; CV: standard deviation / mean of the repetition times; n: repetitions. Unstable: "
             f"CV over {UNSTABLE_CV:.0%}, or rounds that disagree: measure it again with more --reps or --rounds."
             "</p>"
             "<table><tr><th class='l'>study</th><th class='l'>kernel</th><th class='l'>backend</th>"
             "<th>threads</th><th>size</th><th class='l'>precision</th><th>time</th><th>CV</th><th>n</th>"
             "<th>rate</th><th class='l'>share of roof</th><th class='l'>status</th>"
             "<th class='l'>validation / reason</th><th class='l'>stability</th></tr>"]
    for i, r in enumerate(doc["records"]):
        cls = " class='failed'" if r["status"] not in ("ok", "unavailable") else ""
        v, unit = rate_of(r)
        detail = r.get("validation", {}).get("detail") or r.get("reason", "")
        median, cv, n = _spread_cells(r)
        steady = (f"<td class='l warn'>unstable: {e(r['unstable'])}</td>"
                  if r.get("unstable") else "<td class='l'></td>")
        parts.append(f"<tr id='{record_anchor(i)}'{cls}><td class='l'>{e(r.get('study', ''))}</td>"
                     f"<td class='l'>{e(r['kernel'])}</td><td class='l'>{e(r['backend'])}</td><td>{num(r['threads'])}</td>"
                     f"<td>{e(fmt_size(r['size']))}</td><td class='l'>{e(r.get('precision', ''))}</td>"
                     f"<td class='num'>{e(median)}</td><td>{e(cv)}</td><td>{e(n)}</td>"
                     f"<td class='num'>{'' if v is None else e(fmt_rate(v, unit))}</td>"
                     f"<td class='l'>{_roof_cell(r)}</td>"
                     f"<td class='l'>{e(r['status'])}</td>"
                     f"<td class='l'>{e(detail)}</td>{steady}</tr>")
    parts.append("</table>")
    return "".join(parts)


# ---------------------------------------------------------------- what the report cannot draw as asked
# The report degrades rather than fails (exit 4 of `parlab run`): a figure too large to draw is left
# out and named, and a matplotlib backend that does not exist gives way to Agg.

# matplotlib's Agg draws no image of 2**16 pixels or more a side ("Image size ... is too large").
MAX_PIXELS = 2 ** 16 - 1


class SizedPlotter(Plotter):
    """A Plotter that leaves out a figure too large to draw (over MAX_PIXELS a side at the dpi it
    is saved at), naming it on stderr and in left_out [(name, why)], which report_html lists where
    the figure would stand."""

    def __init__(self, out_dir: str, who: str = "plot.py"):
        super().__init__(out_dir)
        self.who = who
        self.left_out: list[tuple[str, str]] = []

    def save(self, fig, name: str, caption: str):
        import matplotlib


        dpi = matplotlib.rcParams["savefig.dpi"]
        dpi = fig.dpi if dpi == "figure" else dpi
        width, height = (round(x * dpi) for x in fig.get_size_inches())
        if max(width, height) <= MAX_PIXELS:
            return super().save(fig, name, caption)
        self.plt.close(fig)
        why = (f"{width} x {height} pixels, over the {MAX_PIXELS} a side matplotlib can draw; the run holds too "
               "many backends or workers for one figure")
        self.left_out.append((name, why))
        say(f"{self.who}: figure {name} left out: {why}")
        return None


def matplotlib_backend(who: str) -> None:
    """An MPLBACKEND that names no backend fails matplotlib's import itself (a ValueError), though
    the report draws with Agg whatever it names (writer.Plotter): such a name is dropped, with one
    line saying so, before matplotlib is imported; a name matplotlib knows is left as it is."""
    name = os.environ.get("MPLBACKEND")
    if not name or "matplotlib" in sys.modules:
        return
    del os.environ["MPLBACKEND"]
    from matplotlib import rcsetup


    try:
        rcsetup.validate_backend(name)
    except ValueError:
        say(f"{who}: MPLBACKEND={name!r} names no matplotlib backend; drawing with Agg")
        return
    os.environ["MPLBACKEND"] = name
