"""report.html: self-contained, the run summary first, then every figure, the Python libraries, the context,
the consistency checks and every record."""
from __future__ import annotations

import html
import json
import os

from ..writer import figure_html, page_head
from .labels import fmt_rate, fmt_size
from .load import rate_of
from .models import python_models_note
from .reference import reference_html
from .summary import run_summary, summary_html


def report_html(doc: dict, out_dir: str, figures: list[tuple[str, str]], libraries: list | None = None,
                reference: dict | None = None) -> str:
    """The page; reference: reference.reference_section's data (None: no comparison, as --no-reference)."""
    ctx = doc["context"]
    e = html.escape
    parts = [page_head("parlab report"),
             f"<h1>parlab report: {e(str(doc.get('suite', '')))}</h1>",
             f"<p>Status: <b>{e(doc['status'])}</b>. Host {e(str(ctx.get('host')))}, started {e(str(ctx.get('started_utc')))}.</p>"]
    failed = [r for r in doc["records"] if r["status"] not in ("ok", "unavailable")]
    if failed:
        parts.append(f"<p class='failed'><b>{len(failed)} measurement(s) failed validation or errored</b> (rows in red below).</p>")
    parts.append(summary_html(run_summary(doc, libraries)))
    parts.append(reference_html(reference))
    if ctx.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li class='warn'>{e(w)}</li>" for w in ctx["warnings"]) + "</ul>")
    parts.append("<h2>Figures</h2>")
    for name, caption in figures:
        parts.append(figure_html(os.path.join(out_dir, name + ".png"), caption, f"plots/{name}.svg"))
    if not figures:
        parts.append("<p>No figure: these results have no thread sweep, size sweep or backend comparison.</p>")
    parts.append(python_models_note(doc))
    if libraries:
        parts.append("<h2>Python libraries</h2><table><tr><th class='l'>kernel</th><th class='l'>precision</th><th>size</th>"
                     "<th class='l'>parlab</th><th>threads</th><th>rate</th><th class='l'>library</th><th>threads</th>"
                     "<th>rate</th><th>parlab / library</th></tr>")
        for r in libraries:
            parts.append(f"<tr><td class='l'>{e(r['kernel'])}</td><td class='l'>{e(r['precision'])}</td>"
                         f"<td>{e(fmt_size(r['size']))}</td><td class='l'>{e(r['parlab'])}</td><td>{r['parlab_threads']}</td>"
                         f"<td>{e(fmt_rate(r['parlab_rate'], r['unit']))}</td><td class='l'>{e(r['library'])}</td>"
                         f"<td>{r['threads']}</td><td>{e(fmt_rate(r['library_rate'], r['unit']))}</td><td>{r['ratio']:.2f}</td></tr>")
        parts.append("</table>")
    parts.append("<h2>Context</h2><table>")

    def rows(prefix, obj):
        if isinstance(obj, dict):
            for k in sorted(obj):
                yield from rows(f"{prefix}.{k}" if prefix else k, obj[k])
        elif isinstance(obj, list) and obj and isinstance(obj[0], dict):
            for i, x in enumerate(obj):
                yield from rows(f"{prefix}[{i}]", x)
        else:
            yield prefix, obj

    for k, v in rows("", ctx):
        parts.append(f"<tr><th class='l'>{e(k)}</th><td class='l'>{e(json.dumps(v) if not isinstance(v, str) else v)}</td></tr>")
    parts.append("</table>")
    if doc.get("consistency"):
        parts.append("<h2>Cross-backend consistency</h2><table><tr><th>kernel</th><th>seed</th><th>N</th><th>records</th><th>distinct hits</th><th>verdict</th></tr>")
        for c in doc["consistency"]:
            cls = "" if c["pass"] else " class='failed'"
            parts.append(f"<tr{cls}><td>{e(c['kernel'])}</td><td>{c['seed']}</td><td>{c['size']}</td><td>{c['records']}</td>"
                         f"<td>{c['distinct_hits']}</td><td>{'pass' if c['pass'] else 'FAIL'}</td></tr>")
        parts.append("</table>")
    parts.append("<h2>Records</h2><table><tr><th class='l'>study</th><th class='l'>kernel</th><th class='l'>backend</th>"
                 "<th>threads</th><th>size</th><th class='l'>precision</th><th>median (s)</th><th>rate</th>"
                 "<th class='l'>status</th><th class='l'>validation / reason</th></tr>")
    for r in doc["records"]:
        cls = " class='failed'" if r["status"] not in ("ok", "unavailable") else ""
        med = r.get("time_s", {}).get("median")
        v, unit = rate_of(r)
        detail = r.get("validation", {}).get("detail") or r.get("reason", "")
        parts.append(f"<tr{cls}><td class='l'>{e(str(r.get('study', '')))}</td><td class='l'>{e(r['kernel'])}</td>"
                     f"<td class='l'>{e(r['backend'])}</td><td>{r['threads']}</td><td>{e(fmt_size(r['size']))}</td>"
                     f"<td class='l'>{e(str(r.get('precision', '')))}</td><td>{'' if med is None else f'{med:.6g}'}</td>"
                     f"<td>{'' if v is None else e(fmt_rate(v, unit))}</td><td class='l'>{e(r['status'])}</td>"
                     f"<td class='l'>{e(str(detail))}</td></tr>")
    parts.append("</table></body></html>\n")
    return "".join(parts)
