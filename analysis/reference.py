"""Where this machine stands against the reference runs: for each kernel of the run, its fastest
backend's share of its roof beside each reference run's, compared by the fraction (a share of
each machine's own roof), never by time.

The reference runs are listed in an index, reference-runs.json, in a folder of runs:
  {"runs": [{"name": "dev-2core", "path": "dev-2core/20261125T182248Z",
             "description": "the 2-core development machine"}, ...]}
each path relative to the index's folder, a run directory holding results.json. In the source
tree, results/runs.json (analysis/index.py, the one index of the committed runs) marks the
reference runs instead: adding one is a data change, its `reference` there. Where the index is
(default_reference_dirs): beside the analysis package, share/parlab/reference/ where installed
(cmake/ParlabInstall.cmake writes the index from results/runs.json and installs each listed
results.json at the same relative paths; a build tree links the same files from results/), or
the source tree's results/. plot.py's --reference DIR and --no-reference, or $PARLAB_REFERENCE
(a folder, or "none"), choose otherwise (docs/ceilings.md, "Against the reference runs").
"""
from __future__ import annotations

import os

from analysis.untrusted import html_number, html_text
from analysis.labels import fmt_rate, fmt_size
from analysis.index import INDEX as RUNS_INDEX
from analysis.index import read_index, reference_index
from analysis.read import InputError, read_json
from analysis.records import kernels_in_order, load_run, rate_of
from analysis.share_interval import reads_above
from analysis.roofs import roof_share, share_text
from analysis.summary import fastest_of, speed_groups

INDEX = "reference-runs.json"
ENV = "PARLAB_REFERENCE"
OFF = "none"  # $PARLAB_REFERENCE=none: no comparison, as --no-reference


def default_reference_dirs(analysis_dir: str | None = None) -> list[str]:
    """Where the reference index may be, in order, for the analysis package at analysis_dir
    (default: this package): share/parlab/reference beside an installed package (and a build
    tree's mirror of share/parlab), then results/ of the source tree the package sits at the top
    of (found through links, as a build tree's share/parlab/analysis links to <repo>/analysis)."""
    pkg = os.path.abspath(analysis_dir or os.path.dirname(os.path.abspath(__file__)))
    source = os.path.dirname(os.path.realpath(pkg))  # <repo>/analysis -> <repo>
    return [os.path.join(os.path.dirname(pkg), "reference"), os.path.join(source, "results")]


def reference_sources(flags: list[str] | None, off: bool, env: dict | None = None,
                      analysis_dir: str | None = None):
    """(folders or runs to read, how they were chosen) from plot.py's options: None where the
    comparison is off (--no-reference, or $PARLAB_REFERENCE=none); --reference DIR (repeatable)
    before $PARLAB_REFERENCE before the default. The default is the first folder holding an index,
    or [] where there is none (then the report says so)."""
    env = os.environ if env is None else env
    if off or env.get(ENV, "").strip().lower() == OFF:
        return None, "off"
    # A folder the user named that is not there is a bad argument (exit 2), like a missing run.
    named = [(d, "--reference") for d in flags or []] or (
        [(env[ENV].strip(), f"${ENV}")] if env.get(ENV, "").strip() else [])
    for d, how in named:
        if not os.path.exists(d):
            raise InputError(f"{how} {d}: no such file or directory (a folder holding {INDEX}, or a run)")
    if named:
        return [d for d, _ in named], named[0][1]
    dirs = default_reference_dirs(analysis_dir)
    found = [d for d in dirs if os.path.isfile(os.path.join(d, INDEX)) or os.path.isfile(os.path.join(d, RUNS_INDEX))]
    return found[:1], "default: " + " or ".join(dirs)


def _index_runs(index_path: str) -> list[dict]:
    """The index's runs, checked: [{name, path (absolute), description}]. Malformed: InputError."""
    doc = read_json(index_path)
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise InputError(f"{index_path}: expected an object with a list 'runs'")
    return _entries(doc["runs"], index_path)


def _entries(listed: list, index_path: str) -> list[dict]:
    runs, names = [], set()
    for i, run in enumerate(listed):
        if not isinstance(run, dict):
            raise InputError(f"{index_path}: run {i} must be an object, not {type(run).__name__}")
        for key in ("name", "path"):
            if not isinstance(run.get(key), str) or not run[key]:
                raise InputError(f"{index_path}: run {i} lacks {key!r} (a non-empty string)")
        if run["name"] in names:
            raise InputError(f"{index_path}: run {i}: the name {run['name']!r} is listed twice")
        names.add(run["name"])
        runs.append({"name": run["name"], "description": str(run.get("description", "")),
                     "path": os.path.join(os.path.dirname(index_path), run["path"]),
                     "where": os.path.join(os.path.basename(os.path.dirname(os.path.abspath(index_path))),
                                           run["path"])})
    return runs


def load_references(sources: list[str]) -> tuple[list[dict], list[str]]:
    """The reference runs of `sources` (folders holding an index, run directories or results.json
    files): ([{name, description, path, doc}], notes). A source or listed run that is missing or
    unreadable is a note (one line, the report shows it), never an error; a malformed one raises
    load_run's InputError (exit 2, as for any run the analysis reads)."""
    runs, notes = [], []
    for src in sources:
        if os.path.isfile(os.path.join(src, INDEX)) or os.path.basename(src) == INDEX:
            index = src if os.path.basename(src) == INDEX else os.path.join(src, INDEX)
            if not os.access(index, os.R_OK):
                notes.append(f"{index}: not readable; no reference runs from it")
                continue
            runs.extend(_index_runs(index))
        elif os.path.isfile(os.path.join(src, RUNS_INDEX)) or os.path.basename(src) == RUNS_INDEX:
            index = src if os.path.basename(src) == RUNS_INDEX else os.path.join(src, RUNS_INDEX)
            runs.extend(_entries(reference_index(read_index(index))["runs"], index))
        else:  # a run of its own, named by its machine's folder (results/<machine>/<stamp>)
            run_dir = os.path.dirname(src) if os.path.basename(src) == "results.json" else src
            name = os.path.basename(os.path.dirname(os.path.abspath(run_dir))) or run_dir
            runs.append({"name": name, "description": run_dir, "path": src, "where": src})
    out, seen = [], set()
    for run in runs:
        # Two runs of one machine folder named on the command line: the second is told apart.
        name, n = run["name"], 2
        while run["name"] in seen:
            run["name"], n = f"{name} ({n})", n + 1
        seen.add(run["name"])
        path = run["path"] if run["path"].endswith(".json") else os.path.join(run["path"], "results.json")
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            why = "not readable" if os.path.isfile(path) else "no such file"
            notes.append(f"reference {run['name']}: {path}: {why}; not compared")
            continue
        out.append(dict(run, doc=load_run(path)))
    return out, notes


def cell(r: dict | None, size: int | None = None) -> dict:
    """One run's entry of a row: {text, fraction, ...}; r None: the run has no such record. The
    text is the one wording of both the table and the row's sentence: "openmp t=2 0.83 of
    cpu_bw_triad_all (9.1 GB/s)", "... no roof (...)", "... no fraction recorded (...)"."""
    if r is None:
        return {"text": "no record", "fraction": None, "missing": True}
    v, unit = rate_of(r)
    share = roof_share(r)
    lim = r.get("limit")
    if share:
        how = share_text(r)  # "0.83 of cpu_bw_triad_all", with its interval where it has one
    elif isinstance(lim, dict) and not lim.get("roof"):  # a limit naming no roof: its reason says why
        how = "no roof"
    else:  # written before records carried a limit (or one without its fraction): none is guessed
        how = "no fraction recorded"
    at = "" if size is None or r["size"] == size else f", N={fmt_size(r['size'])}"
    return {"text": f"{r['backend']} t={r['threads']} {how} ({fmt_rate(v, unit)}{at})",
            "backend": r["backend"], "threads": r["threads"], "size": r["size"], "how": how,
            "fraction": share["fraction"] if share else None, "roof": share["roof"] if share else None,
            "above": reads_above(r),
            "reason": str(lim.get("reason", "")) if isinstance(lim, dict) and not share else "",
            "rate": fmt_rate(v, unit), "at": at, "missing": False}


def reference_rows(doc: dict, refs: list[dict]) -> list[dict]:
    """One row per (study, kernel, precision, processor) of this run (summary.speed_groups): this
    run's fastest record (summary.fastest_of) and each reference's for the same key.
    Row: {study, kernel, precision, processor, this: cell, refs: {name: cell}, text}."""
    ours = speed_groups(doc, by_processor=True)
    theirs = [(ref["name"], speed_groups(ref["doc"], by_processor=True)) for ref in refs]
    rows = []
    order = kernels_in_order(doc["records"])
    for key in sorted(ours, key=lambda k: (k[0], order.index(k[1]), k[2], k[3])):
        study, kernel, precision, processor = key
        size, best = fastest_of(ours[key])
        row = {"study": study, "kernel": kernel, "precision": precision, "processor": processor,
               "this": cell(best), "refs": {}}
        for name, groups in theirs:
            row["refs"][name] = cell(fastest_of(groups[key])[1], size) if key in groups else cell(None)
        label = f"{kernel} ({processor})"
        row["text"] = f"{label}: this machine {row['this']['text']}; " + "; ".join(
            f"{name} {c['text'] if not c['missing'] else f'has no {label} record'}" for name, c in row["refs"].items())
        rows.append(row)
    return rows


def reference_section(doc: dict, sources: list[str] | None, how: str = "") -> dict | None:
    """The section as data (tested on its own): {refs: [{name, description, path, suite}], rows,
    notes}; None where the comparison is off."""
    if sources is None:
        return None
    refs, notes = load_references(sources)
    if not sources:
        notes.append(f"No reference runs found ({how}); --reference DIR names a folder of them.")
    here = os.path.realpath(doc.get("_path", ""))
    for ref in refs:
        if os.path.realpath(ref["doc"]["_path"]) == here:
            ref["name_shown"] = ref["name"] + " (this run)"
        if ref["doc"].get("suite") != doc.get("suite"):
            notes.append(f"{ref['name']} is a {ref['doc'].get('suite')!r} run, this one {doc.get('suite')!r}: "
                         "only the studies both have are compared.")
    # `where`, for the page: the run as its index lists it (under the index's folder) or as it was
    # named, never the absolute path of the machine that drew the report (committed reports
    # carried the drawing machine's checkout path); `path` keeps the file read.
    return {"refs": [{"name": r["name"], "shown": r.get("name_shown", r["name"]), "description": r["description"],
                      "path": r["doc"]["_path"], "where": r.get("where", r["doc"]["_path"]),
                      "suite": r["doc"].get("suite")} for r in refs],
            "rows": reference_rows(doc, refs), "notes": notes}


def _cell_html(c: dict) -> str:
    e = html_text
    if c["missing"]:
        return "<td class='l muted'>no record</td>"
    bar = ""
    if c["fraction"] is not None:
        width = max(1, round(min(c["fraction"], 1.5) * 80))
        over = " over" if c.get("above") else ""  # the runner's judgement (reads_above), as the note below
        bar = f"<span class='bar{over}' style='width:{width}px'></span>"
    tip = f" title='{e(c['reason'])}'" if c["reason"] else ""
    # Reported as recorded, never clamped (docs/ceilings.md, "What a roof is"), but marked.
    above = " <span class='warn'>(above its roof)</span>" if c.get("above") else ""
    return (f"<td class='l'{tip}>{bar}<b>{e(c['how'])}</b>{above}<br>{e(c['backend'])} t={html_number(c['threads'])}, {e(c['rate'])}"
            + e(c["at"]) + "</td>")


def nothing_to_compare(section: dict) -> str:
    """Why the section has nothing to compare, in one sentence, or "" where some row has a
    reference's record beside this run's: no reference run found or readable, no valid
    measurement with a rate in this run, or no reference run that measured any of this run's
    (study, kernel, processor), as an ad-hoc run's study is in no reference run. The notes
    (a reference run missing, another suite) are part of the sentence."""
    notes = [n.rstrip(".") for n in section["notes"]]
    if not section["refs"]:
        why = "no reference run could be read"
        return "; ".join(notes or [why]) + "."
    names = ", ".join(r["shown"] for r in section["refs"])
    if not section["rows"]:
        why = f"this run has no valid measurement with a rate to set beside {names}"
    elif not any(not c["missing"] for row in section["rows"] for c in row["refs"].values()):
        mine = sorted({f"{row['study'] or 'no study'}: {row['kernel']} ({row['processor']})" for row in section["rows"]})
        why = f"no reference run ({names}) measured any of this run's kernels ({', '.join(mine)})"
    else:
        return ""
    return "; ".join([why] + notes) + "."


def reference_html(section: dict | None) -> str:
    """The report's section: a table of the rows, the references named and described, the notes."""
    if section is None:
        return ""
    e = html_text
    nothing = nothing_to_compare(section)
    if nothing:
        # A heading over an empty table tells a reader nothing; one line says why there is none.
        return f"<p id='reference' class='muted'>Reference runs: nothing to compare: {e(nothing)}</p>"
    parts = ["<h2 id='reference'>This machine against the reference runs</h2>",
             "<p>Each kernel's fastest backend (at its best thread count, at the largest size) as a fraction of "
             "the roof that binds it on its own machine (docs/ceilings.md): a fraction compares machines, "
             "a time does not.</p>"]
    if section["refs"]:
        parts.append("<ul class='refs'>" + "".join(
            f"<li><b>{e(r['shown'])}</b>: {e(r['description'])} <span class='muted'>({e(r['where'])})</span></li>"
            for r in section["refs"]) + "</ul>")
    if section["rows"] and section["refs"]:
        parts.append("<table class='reference'><tr><th class='l'>study</th><th class='l'>kernel</th>"
                     "<th class='l'>processor</th><th class='l'>this machine</th>"
                     + "".join(f"<th class='l'>{e(r['shown'])}</th>" for r in section["refs"]) + "</tr>")
        for row in section["rows"]:
            kernel = row["kernel"] + (f" ({row['precision']})" if row["precision"] and row["kernel"] != "pi" else "")
            parts.append(f"<tr><td class='l'>{e(row['study'])}</td><td class='l'>{e(kernel)}</td>"
                         f"<td class='l'>{e(row['processor'])}</td>{_cell_html(row['this'])}"
                         + "".join(_cell_html(row["refs"][r["name"]]) for r in section["refs"]) + "</tr>")
        parts.append("</table>")
    if any(c.get("above") for row in section["rows"] for c in [row["this"], *row["refs"].values()]):
        parts.append("<p>A fraction above 1: a record of this parlab says why in its limit (arrays partly in the "
                     "cache, or an excess within the roof's own spread; the records table shows it); otherwise "
                     "the roof's probe missed the roof, or an older record was held against a roof that did not "
                     "bind it (its CPU or GPU by the old rule); docs/ceilings.md, \"Which roof\".</p>")
    parts.extend(f"<p class='warn'>{e(n)}</p>" for n in section["notes"])
    return "".join(parts)
