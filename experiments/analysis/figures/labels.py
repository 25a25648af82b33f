"""Formatting for axes, captions and tables: sizes, rates, times, interpreters and MPI layouts."""
from __future__ import annotations

from .load import ranks_of


def fmt_size(n: int) -> str:
    if n >= 1024 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def fmt_rate(x: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}{unit}"
    return f"{x:.3g} {unit}"


def time_scale(vals: list, unit: str) -> tuple[float, str]:
    """(divisor, unit) that shows seconds in s, ms or µs by the largest value; µs stay µs."""
    if unit == "µs":
        return 1.0, "µs"
    top = max(vals, default=0.0)
    return next(((scale, name) for scale, name in ((1.0, "s"), (1e-3, "ms")) if top >= scale), (1e-6, "µs"))


def fmt_time(v: float, unit: str) -> str:
    scale, name = time_scale([v], unit)
    return f"{v / scale:.3g} {name}"


def interpreter_suffix(r: dict) -> str:
    """"" for a record of the run's own GIL interpreter (and for runs from before the interpreter
    fields), else " [3.13.5 free-threaded, no GIL]": the fields, never the backend name, say
    which interpreter and GIL state a Python record had (docs/records.md, "Dimensions that compose")."""
    if "python_gil" not in r and r.get("python_build", "gil") == "gil":
        return ""
    return f" [{r.get('interpreter', '?')}, {'GIL' if r.get('gil_enabled', True) else 'no GIL'}]"


def interpreter_tag(r: dict) -> str:
    """A short name of a Python record's interpreter and GIL state for crowded axes ("3.11.2",
    "3.13.5t no GIL"); empty for records without the fields (non-Python, or older runs)."""
    if "interpreter" not in r:
        return ""
    if r.get("python_build") == "free-threaded":
        return f"{r['interpreter'].split()[0]}t {'GIL' if r.get('gil_enabled', True) else 'no GIL'}"
    return r["interpreter"]


def layout_label(ranks, threads: int) -> str:
    """"4 ranks x 2 threads" for an MPI record, "1 process x 2 threads" for one process."""
    where = "1 process" if ranks is None else f"{ranks} rank{'s' if ranks != 1 else ''}"
    return f"{where} x {threads} thread{'s' if threads != 1 else ''}"


def bar_label(r: dict) -> str:
    """"t=16" for one process, "16 ranks x 1 thread" for an MPI job (its fields, not its name)."""
    return f"t={r['threads']}" if ranks_of(r) is None else layout_label(ranks_of(r), r["threads"])


def hosts_note(recs) -> str:
    """" over 2 hosts" when a series spans several hosts, else ""."""
    hosts = max((int(r.get("hosts") or 1) for r in recs), default=1)
    return f" over up to {hosts} hosts" if hosts > 1 else ""
