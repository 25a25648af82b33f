"""The report's "In-core bounds" section (docs/ceilings.md, "In-core bound"): each compiled loop
parlab read (context.ceilings.incore), the bound it allows and what binds it, and the run's records
of that kernel against both that bound and their one-resource roof."""
from __future__ import annotations


from analysis.untrusted import html_number, html_text
from analysis.labels import fmt_rate
from analysis.records import ok_records, processor_of


def incore_html(doc: dict) -> str:
    """The report's "In-core bounds" section: for each compiled loop parlab read (context.ceilings
    .incore: pi and matmul on the CPU, pi_gpu), what it issues, the bound it allows and what binds
    it, and the run's records of that kernel against both that bound and the one-resource roof, so
    that a share such as CPU pi's third of cpu_imul is explained where it is shown. Empty without
    such a block."""
    e, n = html_text, html_number  # every value from the data, text or number (untrusted.py)
    incore = (doc.get("context", {}).get("ceilings") or {}).get("incore")
    if not isinstance(incore, dict) or not incore:
        return ""
    # A bound is read for every loop parlab has, whatever the run measured: one of a kernel the run
    # has no record of (a matmul bound in a run of pi alone) explains nothing on the page.
    measured = {(r.get("kernel"), processor_of(r) == "gpu") for r in ok_records(doc)}
    shown = {name: b for name, b in incore.items() if isinstance(b, dict) and incore_kernel(name) in measured}
    if not shown:
        return ""
    parts = ["<h2>In-core bounds</h2><p>What the compiled loop of a kernel can do on these cores, beside the roof "
             "of one resource (docs/ceilings.md, In-core bound).</p><ul>"]
    for name, b in sorted(shown.items()):
        if "value" not in b:
            parts.append(f"<li><b>{e(name)}</b>: unavailable: {e(b.get('unavailable', '?'))}</li>")
            continue
        loop = b.get("loop") or {}
        gpu = incore_kernel(name)[1]
        unit = b.get("unit", "samples/s")
        where = "the whole GPU" if gpu else "per core"
        text = (f"<b>{e(name)}</b>: {e(fmt_rate(b['value'], unit))} {where}; "
                f"binds: {e(b.get('binds'))}; model: {e(b.get('model'))} ({e(b.get('model_why', ''))}).")
        if "imuls_per_sample" in loop:
            text += (f" Its loop issues {n(loop.get('imuls_per_sample', 0), '.2f')} multiplies per sample"
                     f" ({n(loop.get('multiply_instructions'))} of {n(loop.get('instructions', '?'))} instructions per trip),"
                     " against the algorithm's 12.")
        elif "flops_per_iteration" in loop:
            text += (f" Its loop issues {n(loop.get('multiply_instructions'))} {e(loop.get('multiply', 'multiplies'))}"
                     f" of {n(loop.get('lanes'))} lanes per trip ({n(loop['flops_per_iteration'], '.0f')} flops in"
                     f" {n(loop.get('instructions', '?'))} instructions).")
        tile = b.get("tile") or {}
        if "share" in tile:
            text += (f" One output tile with B's k-block slab read from L2 reached {n(tile['share'], '.2f')} of it on"
                     " this core.")
        allc = b.get("all_cpus") or {}
        if "value" in allc:
            probe = "the mix probe" if name == "pi" else "its probe"
            text += (f" With all {n(allc.get('cpus'))} CPUs busy at once {probe} gives"
                     f" {e(fmt_rate(allc['value'], unit))} in all (each CPU"
                     f" {n(allc.get('share', 0), '.2f')} of the fastest alone): a record on every CPU is held against that.")
        chains = b.get("chains") or {}
        if "share" in chains:
            text += (f" Latency: the loop keeps {n(chains.get('chains'))} dependency chains in flight, and the same mix"
                     f" with that many reached {n(chains['share'], '.2f')} of the ports' rate on this core.")
        kernel = incore_kernel(name)[0]
        recs = [r for r in ok_records(doc) if r.get("kernel") == kernel and (processor_of(r) == "gpu") == gpu
                and isinstance((r.get("limit") or {}).get("incore"), dict)]
        if recs:
            inc = sorted(r["limit"]["incore"]["fraction"] for r in recs)
            roofed = [r for r in recs if isinstance(r["limit"].get("fraction"), (int, float))]
            text += f" This run's {len(recs)} {kernel} record(s): "
            if roofed:
                roof = sorted(r["limit"]["fraction"] for r in roofed)
                names = ", ".join(sorted({str(r["limit"].get("roof")) for r in roofed}))
                text += f"median {roof[len(roof) // 2]:.2f} of their roof ({e(names)}), "
            else:
                text += "no one-resource roof (" + e(recs[0]["limit"].get("reason", "none")) + "), "
            text += f"median {inc[len(inc) // 2]:.2f} of this bound (from {inc[0]:.2f} to {inc[-1]:.2f})."
        below = above_bound_notes(recs) + below_bound_notes(recs)
        parts.append(f"<li>{text}" + ("<ul>" + "".join(f"<li>{e(x)}</li>" for x in below) + "</ul>" if below else "")
                     + "</li>")
    parts.append("</ul>")
    return "".join(parts)


def incore_kernel(name: str) -> tuple:
    """(kernel, on the GPU) of an in-core bound's name in context.ceilings.incore: "pi" (CPU),
    "matmul" (CPU), "pi_gpu" (the GPU's pi)."""
    gpu = name.endswith("_gpu")
    return (name[: -len("_gpu")] if gpu else name), gpu


def incore_finding(recs: list) -> list:
    """The first screen's line(s) on a kernel's in-core bound: for the records of one (study,
    kernel, precision) that carry limit.incore, per processor, what binds the loop (the bound's
    `binds` up to its colon: "vector ports", "the loop's instructions", "FMA pipe (IMAD)"), their
    shares' range and median (the median as incore_html takes it), and how many are below 0.8 or
    above 1. The In-core bounds section below gives each record's cause."""
    out = []
    for proc in ("cpu", "gpu"):
        rs = [r for r in recs if processor_of(r) == proc and isinstance((r.get("limit") or {}).get("incore"), dict)
              and isinstance(r["limit"]["incore"].get("fraction"), (int, float))]
        if not rs:
            continue
        inc = sorted(r["limit"]["incore"]["fraction"] for r in rs)
        binds = str(rs[0]["limit"]["incore"].get("binds", "")).split(":")[0] or "?"
        text = f"{proc.upper()} in-core bound ({binds}): "
        if len(rs) == 1:
            text += f"{rs[0]['backend']} t={rs[0]['threads']} at {inc[0]:.2f} of it"
        else:
            text += f"{len(rs)} records at {inc[0]:.2f} to {inc[-1]:.2f} of it, median {inc[len(inc) // 2]:.2f}"
        below = sum(f < 0.8 for f in inc)
        above = sum(f > 1 for f in inc)
        if below:
            text += f"; {below} below 0.8"
        if above:
            text += f"; {above} above 1"
        out.append(text + (" (In-core bounds, below)" if below or above else ""))
    return out


def above_bound_notes(recs: list) -> list:
    """Each record above its in-core bound, with what limit.incore.above says (by how much, and
    whether the probe's spread covers it): a bound a record passes is shown, never hidden."""
    return [f"{r['backend']} t={r['threads']}: {r['limit']['incore']['fraction']:.2f} of the bound, "
            + str(r["limit"]["incore"].get("above") or  # a record written before `above` was
                  f"above it by {100 * (r['limit']['incore']['fraction'] - 1):.1f}% (the record does not say why)")
            for r in sorted(recs, key=lambda x: (x["threads"], x["backend"]))
            if r["limit"]["incore"]["fraction"] > 1]


def below_bound_notes(recs: list) -> list:
    """For each record below 0.8 of its in-core bound, the cause it measured (limit.incore.below:
    latency, unequal clocks, an unquiet machine, ...) and what the run itself adds: whether another
    backend reached 0.8 at the same thread count, clearly above it (then part of the rest is how
    this backend hands out the work), or none did (the shortfall is the cores', at that count)."""
    notes = []
    for r in sorted(recs, key=lambda x: (x["threads"], x["backend"])):
        inc = r["limit"]["incore"]
        f = inc["fraction"]
        if f >= 0.8:
            continue
        peers = [x for x in recs if x["threads"] == r["threads"]]
        best = max(peers, key=lambda x: x["limit"]["incore"]["fraction"])
        bf = best["limit"]["incore"]["fraction"]
        parts = [f"{r['backend']} t={r['threads']}: {f:.2f} of the bound"]
        if inc.get("below"):
            parts.append(short_cause(str(inc["below"])))
        if bf >= 0.8 and bf - f > HANDOUT_GAP:
            parts.append(f"{best['backend']} reached {bf:.2f} at {r['threads']} threads: the loop can, so the rest is "
                         f"how {r['backend']} hands out the work")
        elif bf < 0.8:
            parts.append(f"no backend reached 0.8 at {r['threads']} threads (best {best['backend']}, {bf:.2f})")
        notes.append("; ".join(parts))
    return notes


# Two records of one loop at one thread count closer than this differ by the machine's noise, not
# by how their backends hand out the work.
HANDOUT_GAP = 0.05


def short_cause(cause: str) -> str:
    """A record's `below` for the list under its bound: latency is told once, in the bound's own
    line above the list ("Latency: the loop keeps 12 dependency chains ..."), so each record says
    only that it is the cause, and what else it measured."""
    if not cause.startswith("latency:"):
        return cause
    _, _, rest = cause.partition("; and ")
    return "latency (the chains, above)" + (f"; and {rest}" if rest else "")

