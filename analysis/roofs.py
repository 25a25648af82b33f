"""Each record's share of its machine's roof, as the run wrote it: context.ceilings (roofs by
name, each with value, unit, method measured or theoretical, threads and device) and the record's
`limit` (the roof that binds its kernel, the rate it attained in that roof's unit and the fraction
attained / roof, or {"roof": null, "reason": "no roof: ..."}). Which roof binds a kernel, the
share's interval and whether it is above the roof are decided in C++ (experiments/machine/
limit.cpp) by one function; here they are only read and worded. Runs from before ceilings carry
neither: every function below then gives None or nothing.
"""
from __future__ import annotations

from collections import defaultdict

from analysis.labels import fmt_rate, three_digits
from analysis.records import ok_records, processor_of
from analysis.share_interval import interval_text, share_interval

UNIT_LABELS = {"bytes/s": "B/s", "flops/s": "flop/s", "muls/s": "mul/s", "bytes": "B", "count": "", "hz": "Hz"}
BANDWIDTH_UNIT = "bytes/s"
COMPUTE_UNITS = ("flops/s", "muls/s")


def ceilings_of(doc: dict) -> dict:
    """The run's measured roofs, {name: roof}; {} for a run without context.ceilings."""
    c = doc.get("context", {}).get("ceilings")
    return dict(c.get("roofs") or {}) if isinstance(c, dict) else {}


def roof_share(r: dict):
    """A record's share of its roof, {roof, value, unit, attained, fraction}, or None where the
    record has no limit (an older run) or its limit names no roof."""
    lim = r.get("limit")
    if not isinstance(lim, dict) or not lim.get("roof") or not isinstance(lim.get("fraction"), (int, float)):
        return None
    return lim


def share_text(r: dict) -> str:
    """"0.82 of cpu_bw_triad_all" for a record with a roof ("1.05 (0.98–1.12) of ..." where the run
    measured the roof again at its end: share_interval.py), its limit's reason ("no roof: ...")
    for one whose kernel has none, "" for a record without a limit (a run from before ceilings):
    the one wording of a record's share of its roof (the report's first screen and `parlab
    compare` both use it)."""
    s = roof_share(r)
    if s:
        return f"{s['fraction']:.2f}{interval_text(share_interval(r))} of {s['roof']}"
    lim = r.get("limit")
    return str(lim.get("reason") or "no roof") if isinstance(lim, dict) and not lim.get("roof") else ""


# Why a record has no roof, in a word for a table cell: the reasons record_limit gives
# (experiments/machine/limit.cpp) run to 130 characters, the last-level cache one with two byte
# counts. A phrase of the reason, the short label; the first that occurs wins.
NO_ROOF_SHORT = (("fit the last-level cache", "cache"), ("not in the catalogue", "no model"),
                 ("names no bound resource", "unbound"), ("several hosts", "hosts"),
                 ("FMA roof", "precision"), ("no rate", "no rate"), ("not measured", "not measured"),
                 ("unavailable", "not measured"), ("not among the ceilings", "not measured"),
                 ("there is no gpu_imul_peak", "no peak"))


def limit_notes(r: dict) -> list:
    """What else a record's limit says of its roof, one phrase each: its share of the in-core bound
    of the loop it ran and what binds that loop ("0.81 of the in-core bound (vector ports: ...)"),
    and why it falls short; its share of the GPU's theoretical peak ("0.89 of gpu_bw_peak"); how
    its work was counted (issued by the compiled loop); a partly cache-resident working set; and by
    how much it is above its roof and whether within the roof's spread (experiments/machine/limit.cpp)."""
    lim = r.get("limit")
    if not isinstance(lim, dict) or not lim.get("roof"):
        return []
    notes = []
    incore = lim.get("incore")
    if isinstance(incore, dict) and isinstance(incore.get("fraction"), (int, float)):
        notes.append(f"{incore['fraction']:.2f} of the in-core bound ({incore.get('binds', '?')}; "
                     f"{incore.get('model', '?')})")
        if incore.get("below"):
            notes.append(f"below 0.8 of it: {incore['below']}")
    peak = lim.get("peak")
    if isinstance(peak, dict) and isinstance(peak.get("fraction"), (int, float)):
        notes.append(f"{peak['fraction']:.2f} of {peak.get('roof', 'the peak')}")
    if lim.get("residency"):
        notes.append(str(lim["residency"]))
    if lim.get("above_roof"):
        notes.append(str(lim["above_roof"]))
    if lim.get("counted"):
        notes.append(str(lim["counted"]))
    if lim.get("basis"):
        notes.append(f"roof: {lim['basis']}")
    return notes


def share_short(r: dict) -> str:
    """share_text for a table cell: "0.82" for a record with a roof, "no roof (cache)" (a word for
    the reason: NO_ROOF_SHORT) for one without, "" for a record without a limit."""
    s = roof_share(r)
    if s:
        return f"{s['fraction']:.2f}"
    text = share_text(r)
    if not text:
        return ""
    word = next((short for phrase, short in NO_ROOF_SHORT if phrase in text), None)
    return f"no roof ({word})" if word else "no roof"


def roof_text(roof: dict) -> str:
    """"20.1 GB/s (measured, 2 threads)": a roof's value, how it was had, and on how many CPU
    threads (the figures' labels and `parlab compare`'s context both)."""
    unit = UNIT_LABELS.get(roof.get("unit"), roof.get("unit", ""))
    threads = roof.get("threads")
    where = f", {threads} thread{'s' if threads != 1 else ''}" if isinstance(threads, int) and roof.get(
        "device", "cpu") == "cpu" else ""
    value = roof.get("value")
    shown = fmt_rate(value, unit) if isinstance(value, (int, float)) else str(value)
    return f"{shown} ({roof.get('method', '?')}{where})"


def roof_label(name: str, roof: dict) -> str:
    """"cpu_bw_triad_all 20.1 GB/s (measured, 2 threads)": a roof's line label; "cpu_bw_triad_all
    103 GB/s (start 61.7, end 103; measured, 16 threads)" where the run measured it at its start
    and again at its end (roof["start"] and roof["end"], graded_roofs)."""
    text = roof_text(roof)
    if isinstance(roof.get("start"), (int, float)) and isinstance(roof.get("end"), (int, float)):
        # Both in the value's own prefix: "103 GB/s (start 61.7, end 103; ...)".
        scale = next((s for s in (1e15, 1e12, 1e9, 1e6, 1e3) if abs(roof["value"]) >= s * 0.9995), 1.0)
        both = f"start {three_digits(roof['start'] / scale)}, end {three_digits(roof['end'] / scale)}"
        value, _, how = text.partition(" (")
        text = f"{value} ({both}; {how}"
    return f"{name} {text}"


def graded_roofs(doc: dict) -> dict:
    """The run's roofs as its records are graded against them, {name: roof}: each roof of
    context.ceilings with `value` the one the records' limits hold (limit.value of the records
    bound by that roof alone, without a `basis` that scales it), so that a roof drawn or named in a
    legend is the roof the shares are of; and where the run measured the roof again at its end
    (context.ceilings_end), `start` and `end`. A roof no record is graded against keeps its
    start value."""
    roofs = {n: dict(r) for n, r in ceilings_of(doc).items() if isinstance(r, dict)}
    end = (doc.get("context", {}).get("ceilings_end") or {}) if isinstance(doc.get("context"), dict) else {}
    end_roofs = end.get("roofs") if isinstance(end, dict) and isinstance(end.get("roofs"), dict) else {}
    held = defaultdict(list)
    for r in ok_records(doc):
        lim = r.get("limit")
        if (isinstance(lim, dict) and lim.get("roof") in roofs and not lim.get("basis")
                and isinstance(lim.get("value"), (int, float)) and lim["value"] > 0):
            held[lim["roof"]].append(lim["value"])
    for name, roof in roofs.items():
        e = end_roofs.get(name)
        if isinstance(e, dict) and isinstance(e.get("value"), (int, float)) and isinstance(roof.get("value"), (int, float)):
            roof["start"], roof["end"] = roof["value"], e["value"]
        if held.get(name):
            values = held[name]
            roof["value"] = max(set(values), key=lambda v: (values.count(v), v))  # the most common, then the highest
    return roofs


def device_of(r: dict) -> str:
    """"gpu" or "cpu": which figure shows the record, where it ran (its `processor`; load.py's
    processor_of holds the fallback for older records). record_limit chose its roof from the
    same field, so a record and its roof are on one figure."""
    return processor_of(r)
