"""The report's word on the machine: what it is (the first screen's machine table), how stable the
run was (the load at its start and its unstable records), and the whole context, folded by
section. Everything is read from results.json's `context` (docs/records.md); a field a run lacks
(an older run, a machine without a GPU runtime) is said to be "unknown", never guessed."""
from __future__ import annotations

import json
import re

from analysis.untrusted import html_text
from analysis.labels import fmt_bytes, fmt_size
from analysis.spread import UNSTABLE_CV

UNKNOWN = "unknown"


def gpu_text(ctx: dict) -> str:
    """The GPU as the cuda backend's detail names it ("NVIDIA H100 80GB HBM3, compute capability
    9.0, 132 SMs, 79.18 GiB", with "2 x " for two devices); "none (...)" where that backend is
    unavailable, with its reason; unknown where the run lists no cuda backend."""
    cuda = next((b for b in ctx.get("backends") or [] if isinstance(b, dict) and b.get("name") == "cuda"), None)
    if not cuda or not isinstance(cuda.get("detail"), str):
        return UNKNOWN
    if not cuda.get("available"):
        return f"none ({cuda['detail']})"
    count = re.search(r"(\d+) devices?\b", cuda["detail"])
    many = count and int(count.group(1)) > 1
    return (f"{count.group(1)} x " if many else "") + cuda["detail"].split(";")[0]


def machine_facts(ctx: dict) -> list[tuple[str, str]]:
    """[(what, value)]: CPU model, cores and threads, memory, GPU, compiler and build type."""
    cpu = ctx.get("cpu") if isinstance(ctx.get("cpu"), dict) else {}
    build = ctx.get("build") if isinstance(ctx.get("build"), dict) else {}
    cores, threads = cpu.get("physical_cores"), cpu.get("logical_cpus")
    if isinstance(cores, int) or isinstance(threads, int):
        smt = {True: ", SMT on", False: ", no SMT"}.get(cpu.get("smt"), "")
        cores_text = (f"{cores if isinstance(cores, int) else UNKNOWN} cores, "
                      f"{threads if isinstance(threads, int) else UNKNOWN} threads{smt}")
    else:
        cores_text = UNKNOWN
    memory = ctx.get("memory_bytes")
    build_type = build.get("build_type") or UNKNOWN
    if build.get("sanitizers") not in (None, "", "none"):
        build_type += f" (sanitizers: {build['sanitizers']})"
    return [("CPU", cpu.get("model") or UNKNOWN), ("cores, threads", cores_text),
            ("memory", fmt_bytes(memory) if isinstance(memory, (int, float)) and memory > 0 else UNKNOWN),
            ("GPU", gpu_text(ctx)), ("compiler", build.get("compiler") or UNKNOWN), ("build type", build_type)]


def record_anchor(i: int) -> str:
    """The records table's anchor of doc["records"][i] (the first screen links to it)."""
    return f"rec-{i}"


def record_name(r: dict) -> str:
    """"triad pool t=16 N=2^25 double": a record as the first screen lists it."""
    ranks = f" {r['ranks']} ranks x" if r.get("ranks") else ""
    return (f"{r['kernel']} {r['backend']}{ranks} t={r['threads']} N={fmt_size(r['size'])}"
            + (f" {r['precision']}" if r.get("precision") else ""))


def stability(doc: dict) -> dict:
    """How stable the run was: {load (1-minute load average at the start, or None), cpus (logical
    CPUs, or None), unstable: [(index in doc["records"], record)], measured: valid records}."""
    ctx = doc["context"]
    load = ctx.get("load_average_1min")
    cpus = (ctx.get("cpu") or {}).get("logical_cpus") if isinstance(ctx.get("cpu"), dict) else None
    ok = [(i, r) for i, r in enumerate(doc["records"]) if r.get("status") == "ok"]
    return {"load": load if isinstance(load, (int, float)) else None, "cpus": cpus if isinstance(cpus, int) else None,
            "unstable": [(i, r) for i, r in ok if r.get("unstable")], "measured": len(ok)}


def machine_html(doc: dict) -> str:
    """The first screen's machine table and stability line; the unstable records, each linked to
    its row of the records table, folded under that line so they do not push the findings down."""
    e = html_text
    facts = machine_facts(doc["context"])
    parts = ["<table class='machine'><tr>" + "".join(f"<th class='l'>{e(k)}</th>" for k, _ in facts) + "</tr><tr>"
             + "".join(f"<td class='l'>{e(v)}</td>" for _, v in facts) + "</tr></table>"]
    s = stability(doc)
    load = (UNKNOWN if s["load"] is None else f"{s['load']:.2f}"
            + (f" on {s['cpus']} logical CPUs" if s["cpus"] else ""))
    line = f"Load average (1 minute) at the start: {load}. "
    if not s["unstable"]:
        line += (f"No record is unstable (CV over {UNSTABLE_CV:.0%}, or rounds that disagree) of {s['measured']} "
                 "measured.")
        parts.append(f"<p class='stability'>{e(line)}</p>")
        return "".join(parts)
    line += (f"{len(s['unstable'])} of {s['measured']} measured records are unstable (CV over {UNSTABLE_CV:.0%}, "
             "or rounds that disagree): measure them again with more --reps or --rounds.")
    links = "".join(f"<li><a href='#{record_anchor(i)}'>{e(record_name(r))}</a>: {e(r['unstable'])}</li>"
                    for i, r in s["unstable"])
    parts.append(f"<details class='stability'><summary class='warn'>{e(line)}</summary><ul>{links}</ul></details>")
    return "".join(parts)


def _cell(v) -> str:
    return html_text(v if isinstance(v, str) else json.dumps(v))


def _table_of(rows: list[dict], first: str | None = None) -> str:
    """One table of dicts, a column per key (a "name" first, then in the order they first appear);
    first: the name of a leading column taken from each row's "_name"."""
    keys = list(dict.fromkeys(k for row in rows for k in row if k != "_name"))
    keys.sort(key=lambda k: k != "name")  # stable: the others keep their order
    head = ([first] if first else []) + keys
    out = ["<table class='context'><tr>" + "".join(f"<th class='l'>{html_text(k)}</th>" for k in head) + "</tr>"]
    for row in rows:
        cells = ([row["_name"]] if first else []) + [row.get(k, "") for k in keys]
        out.append("<tr>" + "".join(f"<td class='l'>{_value_html(c)}</td>" for c in cells) + "</tr>")
    return "".join(out) + "</table>"


def _value_html(v) -> str:
    """A context value as HTML: a list of objects or an object of objects as one table (a row
    each: backends, caches, roofs), any other object as a two-column table, a scalar as text."""
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return _table_of(v)
    if isinstance(v, dict) and v and all(isinstance(x, dict) for x in v.values()):
        return _table_of([{"_name": k, **x} for k, x in sorted(v.items())], "name")
    if isinstance(v, dict):
        if not v:
            return "{}"
        return ("<table class='context'>" + "".join(f"<tr><th class='l'>{html_text(k)}</th>"
                                                    f"<td class='l'>{_value_html(v[k])}</td></tr>" for k in sorted(v))
                + "</table>")
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return "<ul class='context'>" + "".join(f"<li>{html_text(x)}</li>" for x in v) + "</ul>" if v else "[]"
    return _cell(v)


def context_html(ctx: dict) -> str:
    """The context section: its single values in one table, then each section (cpu, build,
    backends, ceilings, ...) folded under its name, one table each."""
    e = html_text
    single = {k: v for k, v in ctx.items() if not isinstance(v, (dict, list))}
    parts = ["<h2 id='context'>Context</h2>"]
    if single:
        parts.append(_value_html(single))
    for key in sorted(k for k, v in ctx.items() if isinstance(v, (dict, list))):
        v = ctx[key]
        count = f"{len(v)} entr{'y' if len(v) == 1 else 'ies'}"
        parts.append(f"<details class='context'><summary>{e(key)} <span class='muted'>({count})</span></summary>"
                     f"{_value_html(v)}</details>")
    return "".join(parts)


__all__ = ["UNKNOWN", "context_html", "gpu_text", "machine_facts", "machine_html", "record_anchor",
           "record_name", "stability"]
