"""The run summary, the report's first screen: what the run found and what went wrong."""
from __future__ import annotations

from collections import defaultdict

from analysis.plausible import SUPERLINEAR, implausible
from analysis.untrusted import html_text
from analysis.series import gil_series
from analysis.incore import incore_finding
from analysis.labels import fmt_rate, fmt_size, fmt_time, interpreter_suffix
from analysis.records import family_of, kernels_in_order, ok_records, processor_of, rate_of, ranks_of
from analysis.series_mpi import mixed_mode_series
from analysis.series_mpi import mpi_latency_series, MPI_PROBE_NAMES, mpi_scaling_series
from analysis.roofs import ceilings_of, roof_share, share_text
from analysis.series import scaling_bounds
from analysis.series import scaling_series
from analysis.table import groups as table_groups


def speed_groups(doc: dict, by_processor: bool = False) -> dict:
    """The records a "fastest" is chosen among, {(study, kernel, precision): [record]}, with the
    record's processor ("cpu"/"gpu") as a fourth key part where by_processor: the valid records
    with a rate, of every family but the practices and the MPI probes. The first screen's findings
    and the comparison with the reference runs (reference.py) group records by this one rule."""
    groups = defaultdict(list)
    for r in ok_records(doc):
        # The latency probes have no "fastest": one rank is trivially quickest; mpi_summary says
        # what they measured (latency per rank count).
        if family_of(r) not in ("practice", "comm") and rate_of(r)[0] is not None:
            key = (r.get("study", ""), r["kernel"], r.get("precision", ""))
            groups[key + (processor_of(r),) if by_processor else key].append(r)
    return dict(groups)


def fastest_of(recs: list, marked: dict | None = None) -> tuple:
    """(size, record): a group's largest size (of strong scaling where it has any: a weak-scaling
    size grows with the threads) and its record of the highest rate there, at whichever thread
    count gave it (the "fastest" of the first screen and of the reference comparison). With
    `marked` ({id(record): its plausibility marks}), a record marked to look again at is passed
    over where an unmarked one ran at that size."""
    strong = [r for r in recs if r.get("scaling") != "weak"]
    size = max(r["size"] for r in (strong or recs))
    at_size = [r for r in recs if r["size"] == size]
    clean = [r for r in at_size if not (marked or {}).get(id(r))]
    return size, max(clean or at_size, key=lambda r: rate_of(r)[0])


def run_summary(doc: dict, libraries: list | None = None) -> dict:
    """What the run found, as data for the report's first screen (tested on its own).

    findings: one row per (study, kernel, precision, size): the fastest backend and its rate
    (with its share of its roof, "0.82 of cpu_bw_triad_all", where the record has a limit), the
    best CPU speedup (and for a memory-bound kernel the bound its bandwidth roof puts on it) at the largest thread count, the
    records' shares of their in-core bound (incore_finding), and for pi from Python every variant's
    speedup at its largest thread count with GIL-released against GIL-held; then one row per
    Python library comparison (libraries_table's rows). problems: every failed record, then every unavailable backend with its
    reason (one row per backend and reason)."""
    findings = []
    speedups = scaling_series(doc)
    bounds = scaling_bounds(doc)
    gil = gil_series(doc)
    # The plausibility marks of every record, as the table gives them: a headline is never a record
    # to look again at unless nothing else ran, and then it says so.
    rows = [x for _, rs in table_groups(doc) for x in rs]
    marked = {id(x["record"]): x.get("plausible", "") for x in rows}
    for (study, kernel, precision), recs in sorted(speed_groups(doc).items()):
        size, best = fastest_of(recs, marked)
        v, unit = rate_of(best)
        job = "" if ranks_of(best) is None else f", {ranks_of(best)} rank{'s' if ranks_of(best) != 1 else ''}"
        share = share_text(best)
        mark = marked.get(id(best), "")
        parts = [f"fastest: {best['backend']}{interpreter_suffix(best)} (t={best['threads']}{job}) {fmt_rate(v, unit)}"
                 + (f", {share}" if roof_share(best) else f" ({share})" if share else "")
                 + (f" (marked {mark}: look again, below)" if mark else "")]
        for (s_study, scaling, s_kernel, base, s_prec), series in speedups.items():
            if (s_study, scaling, s_kernel, base, s_prec) == (study, "strong", kernel, size, precision):
                tmax = max(t for pts in series.values() for t, _, _ in pts)
                top = max(((label, sp) for label, pts in series.items() for t, sp, _ in pts if t == tmax),
                          key=lambda x: x[1], default=None)
                if top:
                    # For a memory-bound kernel the bandwidth roof, not the thread count, is the bound.
                    b = bounds.get((s_study, scaling, s_kernel, base, s_prec), {}).get(top[0])
                    bound = f", bandwidth roof {b[0]:.2f}x ({b[1]})" if b else ""
                    # Above the threads' count by the `?` rule: said, not offered as a finding.
                    doubt = " (marked ?: above the CPUs used, look again)" if top[1] > SUPERLINEAR * tmax else ""
                    parts.append(f"best CPU speedup at {tmax} threads: {top[0]} {top[1]:.2f}x (ideal {tmax}x{bound})"
                                 + doubt)
        # What binds the compiled loop, where the records carry an in-core bound (CPU pi reads a
        # third of its multiply roof: the vector ports, not the multiplier, hold it).
        parts += incore_finding(recs)
        # Every Python variant of the study, whatever its size (pure Python runs smaller).
        py = [r for r in recs if r.get("kind") == "python" and kernel == "pi"]
        if py:
            variants = []
            # gil_series keys carry the interpreter and GIL state of records from other interpreters.
            for backend in sorted({r["backend"] + interpreter_suffix(r) for r in py}):
                pts = gil.get(backend)
                if pts and len(pts) > 1:
                    t, sp = pts[-1]
                    variants.append((backend, t, sp))
            if variants:
                parts.append("Python threads: " + ", ".join(f"{b} {sp:.2f}x at {t}" for b, t, sp in variants))
            rel = {b: dict(gil[b]) for b in ("py-parlab-gil-released", "py-parlab-gil-held") if b in gil}
            if len(rel) == 2:
                tmax = max(set(rel["py-parlab-gil-released"]) & set(rel["py-parlab-gil-held"]), default=None)
                # The run's own interpreter (no suffix): released vs held is a property of one GIL.
                times = {r["backend"]: r["time_s"]["median"] for r in py
                         if r["threads"] == tmax and not interpreter_suffix(r)}
                if tmax and len(times) >= 2 and "py-parlab-gil-released" in times and "py-parlab-gil-held" in times:
                    parts.append(f"GIL released vs held at {tmax} threads: "
                                 f"{times['py-parlab-gil-held'] / times['py-parlab-gil-released']:.2f}x faster")
        findings.append({"study": study, "kernel": kernel, "precision": precision, "size": size, "finding": parts})
    for row in mpi_summary(doc):
        same = next((f for f in findings if (f["study"], f["kernel"], f["precision"]) ==
                     (row["study"], row["kernel"], row["precision"])), None)
        if same is None:
            findings.append(row)
        else:
            same["finding"].extend(row["finding"])
    for r in libraries or []:
        findings.append({"study": "libraries", "kernel": r["kernel"], "precision": r["precision"], "size": r["size"],
                         "finding": [f"parlab {r['parlab']} (t={r['parlab_threads']}) / {r['library']} "
                                     f"(t={r['threads']}): {r['ratio']:.2f}x"]})
    problems = []
    for r in doc["records"]:
        if r["status"] not in ("ok", "unavailable"):
            detail = r.get("validation", {}).get("detail") or r.get("reason", "")
            problems.append({"what": f"{r['backend']} {r['kernel']} t={r['threads']} N={fmt_size(r['size'])}",
                             "status": r["status"], "reason": str(detail)})
    seen = set()
    for r in doc["records"]:
        if r["status"] == "unavailable" and (r["backend"], r.get("reason", "")) not in seen:
            seen.add((r["backend"], r.get("reason", "")))
            problems.append({"what": r["backend"], "status": "unavailable", "reason": r.get("reason", "")})
    # Results that cannot be right (analysis/plausible.py), as the table marks them.
    doubtful = implausible(doc, rows)
    return {"findings": findings, "problems": problems, "ceilings": ceilings_note(doc), "implausible": doubtful}


def ceilings_note(doc: dict) -> str:
    """One line on the roofs the shares are of: when they were measured and how many, or that
    the run has none (a run from before ceilings, or one whose measurement gave none)."""
    c = doc["context"].get("ceilings")
    roofs = ceilings_of(doc)
    if not roofs:
        why = "; ".join(f"{k}: {v}" for k, v in sorted(((c or {}).get("unavailable") or {}).items())[:3])
        return "No ceilings measured in this run: no record's share of its roof." + (f" ({why})" if why else "")
    measured = sum(1 for r in roofs.values() if r.get("method") == "measured")
    return (f"Shares of roofs are of this machine's ceilings, measured {c.get('measured_utc', '?')}: "
            f"{measured} measured, {len(roofs) - measured} theoretical"
            + (f", {len(c.get('unavailable') or {})} unavailable" if c.get("unavailable") else "")
            + " (context.ceilings; the roofline figures draw them).")


def mpi_summary(doc: dict) -> list[dict]:
    """Lines for the report's summary, one per MPI figure (tested on its own): rows like
    run_summary's findings, {study, kernel, precision, size, finding: [text]}."""
    rows = []
    for (study, scaling, kernel, base, precision, t), series in mpi_scaling_series(doc).items():
        rmax = max(pt["ranks"] for pts in series.values() for pt in pts)
        top = max(((label, pt) for label, pts in series.items() for pt in pts if pt["ranks"] == rmax),
                  key=lambda x: x[1]["speedup"])
        label, pt = top
        what = "over 1 rank" if scaling == "strong" else "scaled (weak) over 1 rank"
        text = (f"{label} at {rmax} ranks x {t} thread{'s' if t > 1 else ''}: {pt['speedup']:.2f}x {what} "
                f"(ideal {rmax}x)")
        if pt["vs_single"] is not None:
            text += f"; {pt['vs_single']:.2f}x the best single process at {pt['cores']} threads ({pt['single_backend']})"
        rows.append({"study": study, "kernel": kernel, "precision": precision, "size": base, "finding": [text]})
    lat = mpi_latency_series(doc)
    probes = [r for r in ok_records(doc) if family_of(r) == "comm" and ranks_of(r) is not None]
    for kernel in kernels_in_order(probes):
        recs = [r for r in probes if r["kernel"] == kernel]
        lines = [(label, pts) for label, pts in lat["probes"].items() if label.startswith(MPI_PROBE_NAMES[kernel] + " (")]
        if not recs or not lines:
            continue
        parts = []
        for label, pts in lines:
            x, us = pts[-1]
            parts.append(f"{label}: {us:.3g} µs per call at {x} ranks" + (f" ({pts[0][1]:.3g} µs at {pts[0][0]})"
                                                                            if len(pts) > 1 else ""))
        if kernel == "mpi_allreduce":
            for label, pts in lat["reduce"].items():
                x, us = pts[-1]
                parts.append(f"beside it, {label}: {us:.3g} µs at {x}")
        first = recs[0]
        rows.append({"study": first.get("study", ""), "kernel": kernel, "precision": first.get("precision", ""),
                     "size": max(r["size"] for r in recs), "finding": parts})
    for (study, kernel, size, precision), table in mixed_mode_series(doc).items():
        cores = max(table)
        rows_at = table[cores]
        fast, slow = rows_at[0], rows_at[-1]
        rows.append({"study": study, "kernel": kernel, "precision": precision, "size": size,
                     "finding": [f"mixed mode at {cores} cores: fastest {fast['label']} "
                                 f"{fmt_time(fast['value'], fast['unit'])}, slowest {slow['label']} "
                                 f"{fmt_time(slow['value'], slow['unit'])}"]})
    return rows


def summary_html(summary: dict) -> str:
    e = html_text
    parts = ["<h2 id='summary'>What this run found</h2>"]
    if summary["findings"]:
        parts.append("<table class='summary'><tr><th class='l'>study</th><th class='l'>kernel</th><th>size</th>"
                     "<th class='l'>finding</th></tr>")
        for f in summary["findings"]:
            what = "<br>".join(e(x) for x in f["finding"])
            kernel = f["kernel"] + (f" ({f['precision']})" if f["precision"] and f["kernel"] != "pi" else "")
            parts.append(f"<tr><td class='l'>{e(f['study'])}</td><td class='l'>{e(kernel)}</td>"
                         f"<td>{e(fmt_size(f['size']))}</td><td class='l'>{what}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p>No valid measurement.</p>")
    if summary.get("ceilings"):
        parts.append(f"<p class='ceilings'>{e(summary['ceilings'])}</p>")
    failed = [p for p in summary["problems"] if p["status"] != "unavailable"]
    unavailable = [p for p in summary["problems"] if p["status"] == "unavailable"]
    if failed:
        parts.append(f"<h3 class='failed'>{len(failed)} measurement(s) failed</h3><table>"
                     + "".join(f"<tr class='failed'><td class='l'>{e(p['what'])}</td><td class='l'>{e(p['status'])}</td>"
                               f"<td class='l'>{e(p['reason'])}</td></tr>" for p in failed) + "</table>")
    else:
        parts.append("<p>Every measured result passed its validation.</p>")
    doubtful = summary.get("implausible") or []
    if doubtful:
        # Each mark's reason once, with its records; a record under two marks is counted once.
        names = {r["what"] for p in doubtful for r in p["records"]}
        rows = ["<br>".join(e(r["what"] + (f": {r['reason']}" if r["reason"] else "")) for r in p["records"])
                for p in doubtful]
        parts.append(f"<h3 class='warn'>{len(names)} result(s) to look at again</h3><table>"
                     + "".join(f"<tr><td>{e(p['marks'])}</td><td class='l'>{e(p['why'])}</td>"
                               f"<td class='l'>{r}</td></tr>" for p, r in zip(doubtful, rows)) + "</table>")
    if unavailable:
        parts.append(f"<details><summary>{len(unavailable)} backend(s) unavailable here, with the reason</summary><table>"
                     + "".join(f"<tr><td class='l'>{e(p['what'])}</td><td class='l'>{e(p['reason'])}</td></tr>"
                               for p in unavailable) + "</table></details>")
    return "".join(parts)
