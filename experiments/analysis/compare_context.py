"""`parlab compare`'s view of two runs' contexts: the machine, build, interpreter and roofs each
run names, flattened to one entry per setting, and the entries that differ (the machine first).
Apart from compare.py, which pairs records and gives verdicts, because what differs between two
machines is a question of its own, asked of the contexts alone."""
from __future__ import annotations

import re

from analysis.figures.roofline import roof_text


def own_interpreter(ctx: dict):
    """The run's own CPython as the record fields name it, from context.python, or None."""
    line = ctx.get("python") or ""
    m = re.match(r"CPython (\S+?)[,\s]", line + " ")
    if not m:
        return None
    mode = re.search(r"GIL mode (\S+?)[,\s]", line + " ")
    build = mode.group(1) if mode else "gil"
    return {"interpreter": m.group(1) + (" free-threaded" if build == "free-threaded" else ""), "python_build": build,
            "gil_enabled": build != "free-threaded" or "GIL re-enabled" in line}



CONTEXT_ORDER = ("host", "cpu.model", "cpu.physical_cores", "cpu.logical_cpus", "cpu.smt", "cpu.governor", "cpu.caches",
                 "memory_bytes", "gpu", "build.build_type", "build.compiler", "build.flags", "build.sanitizers",
                 "build.pi_cpu_path", "build.parlab_version", "build.git_commit", "python", "mpi.library")
CONTEXT_SKIP = ("started_utc", "build.git_commit_source", "build.git_commit_declared", "build.git_commit_git",
                "load_average")


def _flatten(prefix: str, obj, out: dict) -> None:
    if isinstance(obj, dict):
        for k in sorted(obj):
            _flatten(f"{prefix}.{k}" if prefix else k, obj[k], out)
    else:
        out[prefix] = obj


def _context_view(ctx: dict) -> dict:
    flat = {}
    _flatten("", {k: v for k, v in ctx.items() if k != "backends"}, flat)
    caches = ctx.get("cpu", {}).get("caches") or []
    for k in [k for k in flat if k.startswith("cpu.caches")]:
        del flat[k]
    # The machine's roofs, one entry each ("20.1 GB/s (measured, 2 threads)"): when and how each
    # was measured differs from run to run and would bury the machines' differences.
    ceilings = ctx.get("ceilings") if isinstance(ctx.get("ceilings"), dict) else {}
    for k in [k for k in flat if k == "ceilings" or k.startswith("ceilings.")]:
        del flat[k]
    for name, roof in sorted((ceilings.get("roofs") or {}).items()):
        flat[f"ceilings.{name}"] = roof_text(roof) if isinstance(roof, dict) else roof
    for name, why in sorted((ceilings.get("unavailable") or {}).items()):
        flat[f"ceilings.{name}"] = f"unavailable: {why}"
    flat["cpu.caches"] = ", ".join(f"L{c.get('level')}{(c.get('type') or ' ')[0]} {fmt_bytes(c.get('bytes', 0))}"
                                   for c in caches) or None
    cuda = {b["name"]: b for b in ctx.get("backends", [])}.get("cuda")
    flat["gpu"] = None
    if cuda:
        count = re.search(r"(\d+) devices?\b", cuda["detail"])
        flat["gpu"] = ((f"{count.group(1)} x " if count else "") + cuda["detail"].split(";")[0]) if cuda["available"] else "none"
    own = own_interpreter(ctx)
    for b in ctx.get("backends", []):
        detail = b["detail"]
        if own:  # a Python backend's detail repeats the interpreter, which "python" names once
            detail = detail.replace(f" (CPython {own['interpreter'].split()[0]}, {own['python_build']})", "")
        flat[f"backends.{b['name']}"] = detail if b["available"] else f"unavailable: {detail}"
    return flat


def fmt_bytes(n) -> str:
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n} B"


def context_differences(a: dict, b: dict) -> list[dict]:
    """[{key, base, new}] for every context entry that differs (the machine first, in CONTEXT_ORDER)."""
    fa, fb = _context_view(a), _context_view(b)
    keys = [k for k in CONTEXT_ORDER if k in fa or k in fb]
    keys += sorted(k for k in set(fa) | set(fb) if k not in keys and not k.startswith(CONTEXT_SKIP))
    out = []
    for k in keys:
        va, vb = fa.get(k), fb.get(k)
        if k == "memory_bytes":
            va, vb = (fmt_bytes(v) if isinstance(v, (int, float)) else v for v in (va, vb))
        if va != vb:
            out.append({"key": k, "base": va, "new": vb})
    return out
