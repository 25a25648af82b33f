"""`parlab compare`'s view of two runs' contexts: the machine, build, interpreter and roofs each
run names, flattened to one entry per setting, and the entries that differ (the machine first).
Apart from compare.py, which pairs records and gives verdicts, because what differs between two
machines is a question of its own, asked of the contexts alone."""
from __future__ import annotations

import re

from analysis.labels import fmt_rate
from analysis.roofs import UNIT_LABELS, roof_text


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


# ---------------------------------------------------------------- the differences in words
# A roof measured again on the same machine moves by a few percent from run to run; a change
# within this is the probe's noise, not the machine's, and would bury the roofs that did change.
ROOF_NOISE = 0.05
# The runner calls a machine busy at a 1-minute load average over half its hardware threads
# (experiments/machine/context.cpp); below that on both sides the load cannot explain a change.
BUSY_LOAD = 0.5
# Library versions a backend's detail names, as (what, pattern): the version is the match.
LIBRARY_PATTERNS = (("oneTBB", r"oneTBB ([\w.]+)"), ("OpenMP", r"OpenMP (\d+ \(\w+\))"),
                    ("CUDA", r"(driver [\d.]+, runtime [\d.]+)"))


def _cores(ctx: dict):
    cpu = ctx.get("cpu") if isinstance(ctx.get("cpu"), dict) else {}
    phys, logical = cpu.get("physical_cores"), cpu.get("logical_cpus")
    if phys is None and logical is None:
        return None
    text = f"{phys} cores" if phys is not None else "cores not reported"
    if logical is not None and logical != phys:
        text += f", {logical} hardware threads"
    return text + (", SMT on" if cpu.get("smt") else "")


def _governor(ctx: dict):
    cpu = ctx.get("cpu") if isinstance(ctx.get("cpu"), dict) else {}
    if "governor" not in cpu:
        return None
    return cpu["governor"] or "not reported"


def _gpu(ctx: dict):
    cuda = {b.get("name"): b for b in ctx.get("backends") or [] if isinstance(b, dict)}.get("cuda")
    if not cuda:
        return None
    if not cuda.get("available"):
        return "none"
    count = re.search(r"(\d+) devices?\b", cuda.get("detail", ""))
    return (f"{count.group(1)} x " if count else "") + str(cuda.get("detail", "")).split(";")[0].split(",")[0]


def _python(ctx: dict):
    line = ctx.get("python")
    if not isinstance(line, str) or not line:
        return None
    own = own_interpreter(ctx)
    return f"CPython {own['interpreter']}" if own else line.split(",")[0]


def _mpi(ctx: dict):
    lib = (ctx.get("mpi") or {}).get("library") if isinstance(ctx.get("mpi"), dict) else None
    if not isinstance(lib, str) or not lib:
        return None
    return re.sub(r"\bv(\d)", r"\1", lib.split(",")[0])  # "Open MPI v4.1.4, package: ..." -> "Open MPI 4.1.4"


def _library(ctx: dict, pattern: str):
    for b in ctx.get("backends") or []:
        if isinstance(b, dict) and b.get("available"):
            m = re.search(pattern, str(b.get("detail", "")))
            if m:
                return m.group(1)
    return None


def _build(ctx: dict, key: str):
    build = ctx.get("build") if isinstance(ctx.get("build"), dict) else {}
    v = build.get(key)
    return None if v is None else str(v)


def _load(ctx: dict):
    """(1-minute load average at the start, hardware threads), or None where not recorded."""
    load = ctx.get("load_average_1min")
    cpus = (ctx.get("cpu") or {}).get("logical_cpus") if isinstance(ctx.get("cpu"), dict) else None
    return (load, cpus) if isinstance(load, (int, float)) else None


def _roof_values(ctx: dict) -> dict:
    """{roof name: (value, unit) or the reason it is unavailable} of a run's ceilings."""
    ceilings = ctx.get("ceilings") if isinstance(ctx.get("ceilings"), dict) else {}
    out = {}
    for name, roof in (ceilings.get("roofs") or {}).items():
        if isinstance(roof, dict) and isinstance(roof.get("value"), (int, float)):
            out[name] = (roof["value"], roof.get("unit", ""))
    for name in (ceilings.get("unavailable") or {}):
        out.setdefault(name, "unavailable")
    return out


def _fmt_roof(v) -> str:
    if not isinstance(v, tuple):
        return "not measured" if v is None else str(v)
    return fmt_rate(v[0], UNIT_LABELS.get(v[1], v[1])).strip()


def _flags_words(a, b) -> str:
    """"-Werror only in BASE; -mavx2 only in NEW": the compiler flags that differ, not both lines."""
    ta, tb = (a or "").split(), (b or "").split()
    only_a = [x for x in ta if x not in tb]
    only_b = [x for x in tb if x not in ta]
    parts = ([f"{' '.join(only_a)} only in BASE"] if only_a else []) + ([f"{' '.join(only_b)} only in NEW"] if only_b else [])
    return "; ".join(parts) or "the same flags in another order"


def context_in_words(a: dict, b: dict) -> list[dict]:
    """The context differences that can change a rate, in words, the machine first: the CPU, its
    cores, its frequency governor, the GPU, the build (type, compiler, flags, sanitizers, code
    paths), the libraries' versions (CPython, MPI, oneTBB, OpenMP, CUDA), a busy machine's load,
    and each roof that moved by more than ROOF_NOISE. [{what, base, new, text}]: text is the line
    ("CPU: Xeon 8480 (BASE) vs EPYC 9654 (NEW)", "cpu_bw_triad_all 61.7 GB/s vs 103 GB/s
    (+67%)"). What cannot change a rate (the host's name, the commit, the start time, warnings,
    which backends were built) is left to context_differences, which --verbose prints."""
    out = []

    def pair(what, va, vb):
        if va != vb and (va is not None or vb is not None):
            show = lambda v: "not recorded" if v is None else str(v)  # noqa: E731
            out.append({"what": what, "base": va, "new": vb, "text": f"{what}: {show(va)} (BASE) vs {show(vb)} (NEW)"})

    pair("CPU", (a.get("cpu") or {}).get("model"), (b.get("cpu") or {}).get("model"))
    pair("cores", _cores(a), _cores(b))
    pair("frequency governor", _governor(a), _governor(b))
    pair("GPU", _gpu(a), _gpu(b))
    pair("build type", _build(a, "build_type"), _build(b, "build_type"))
    pair("compiler", _build(a, "compiler"), _build(b, "compiler"))
    fa, fb = _build(a, "flags"), _build(b, "flags")
    if fa != fb:
        out.append({"what": "compiler flags", "base": fa, "new": fb, "text": f"compiler flags: {_flags_words(fa, fb)}"})
    pair("sanitizers", _build(a, "sanitizers"), _build(b, "sanitizers"))
    pair("pi's CPU code path", _build(a, "pi_cpu_path"), _build(b, "pi_cpu_path"))
    pair("STREAM store path", _build(a, "stream_store_path"), _build(b, "stream_store_path"))
    pair("Python", _python(a), _python(b))
    pair("MPI", _mpi(a), _mpi(b))
    for what, pattern in LIBRARY_PATTERNS:
        la, lb = _library(a, pattern), _library(b, pattern)
        pair(what, la or (lb and "none"), lb or (la and "none"))
    la, lb = _load(a), _load(b)
    busy = [x for x in (la, lb) if x and x[1] and x[0] > BUSY_LOAD * x[1]]
    if busy:
        show = lambda x: "not recorded" if not x else f"{x[0]:.2f} on {x[1]} hardware threads"  # noqa: E731
        out.append({"what": "load at the start", "base": la and la[0], "new": lb and lb[0],
                    "text": f"load at the start (1-minute average): {show(la)} (BASE) vs {show(lb)} (NEW): "
                            "a busy machine's rates are not its own"})
    ra, rb = _roof_values(a), _roof_values(b)
    for name in sorted(set(ra) | set(rb)):
        va, vb = ra.get(name), rb.get(name)
        if isinstance(va, tuple) and isinstance(vb, tuple):
            if va[1] != vb[1] or va[0] <= 0 or abs(vb[0] / va[0] - 1) <= ROOF_NOISE:
                continue
            text = f"{name} {_fmt_roof(va)} vs {_fmt_roof(vb)} ({(vb[0] / va[0] - 1) * 100:+.0f}%)"
        elif va == vb:
            continue
        else:
            text = f"{name} {_fmt_roof(va)} (BASE) vs {_fmt_roof(vb)} (NEW)"
        out.append({"what": f"roof {name}", "base": _fmt_roof(va), "new": _fmt_roof(vb), "text": text})
    return out
