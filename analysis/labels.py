"""Formatting for axes, captions and tables: sizes, rates, times, interpreters and MPI layouts."""
from __future__ import annotations

import math

from analysis.records import ranks_of


def fmt_size(n: int) -> str:
    if n >= 1024 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def three_digits(v: float) -> str:
    """Three significant digits, trailing zeros kept, never an exponent, for 1 to 999.5 (the rest
    of the range is the prefix's): "1.26", "20.0", "512". C++'s io/numbers.hpp three_digits."""
    a = abs(v)
    decimals = 0 if a >= 99.95 else 1 if a >= 9.995 else 2
    return f"{v:.{decimals}f}"


def rate_prefix(x: float) -> tuple[float, str]:
    """(scale, prefix) fmt_rate writes `x` in: (1e9, "G") for 1.26e9."""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale * 0.9995:
            return scale, prefix
    return 1.0, ""


def significant(v: float, n: int) -> str:
    """`n` significant digits, no exponent, whatever the magnitude: "0.0063", "1.3", "512"."""
    if v == 0:
        return "0"
    digits = max(0, n - 1 - math.floor(math.log10(abs(v))))
    return f"{v:.{digits}f}"


def fmt_fraction(v: float) -> str:
    """A share or an efficiency to two places, "0.93", "1.04"; "<0.01" below that, never a
    misleading "0.00"."""
    return "<0.01" if 0 <= v < 0.005 else f"{v:.2f}"


def fmt_speedup(v: float) -> str:
    """A speedup to two places, as the results table writes it: "3.90x"."""
    return f"{v:.2f}x"


def fmt_percent(v: float) -> str:
    """A small share as a percentage, one decimal: "3.1%", "0.0%"."""
    return f"{100 * v:.1f}%"


def fmt_rate_spread(x: float, spread: float, unit: str) -> str:
    """A rate and its spread in one unit, as a measurement is written: "2.67 ± 0.015 Gsamples/s"
    (the spread to two significant digits: a third would be noise on noise)."""
    scale, prefix = rate_prefix(x)
    return f"{three_digits(x / scale)} ± {significant(spread / scale, 2)} {prefix}{unit}"


def fmt_rate(x: float, unit: str) -> str:
    """A rate with its decimal prefix: "1.26 Gsamples/s", "20.0 GB/s", "903 Gflop/s" — the one
    format C++'s format_rate writes too (tests/number-formats.json holds both)."""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale * 0.9995:  # what rounds to 1000 of one prefix is 1.00 of the next
            return f"{three_digits(x / scale)} {prefix}{unit}"
    return f"{three_digits(x)} {unit}"


def fmt_bytes(n) -> str:
    """"48.0 KiB", "1.50 MiB", "300 MiB": a size in bytes with a binary prefix (C++'s format_bytes)."""
    for scale, unit in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(n) >= scale * 0.9995:
            return f"{three_digits(n / scale)} {unit}"
    return f"{three_digits(n)} B"


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


# A plotted range wider than this ratio (largest over smallest positive value) goes on a log axis:
# on a linear one the smaller values are squeezed against zero and cannot be read.
WIDE_RANGE = 10.0
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def unit_scale(values, unit: str) -> tuple[float, str]:
    """(divisor, unit): one SI prefix for a whole axis, chosen by its largest value, so the tick
    labels need no "1e10" multiplier and the unit is said once, in the label ("GB/s",
    "Gsamples/s", "Gflop/s"). The largest value is shown between 10 and 9999 (3 TB/s as 3000
    GB/s: a small number of a large unit leaves the rest of the axis in fractions)."""
    top = max((abs(v) for v in values if v is not None and v == v), default=0.0)
    return next(((scale, prefix + unit) for scale, prefix in _PREFIXES if top >= 10 * scale), (1.0, unit))


def plain_ticks(ax, axis: str = "both") -> None:
    """Tick labels as plain numbers ("0.5", "16", "2000") on linear and log axes: no offset or
    scientific multiplier beside the axis, no 10^k powers; the axis label carries the unit."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, ScalarFormatter

    def plain(v, _pos=None):
        return f"{v:.6g}" if abs(v) < 1e6 else f"{v:,.0f}"

    for name in ("x", "y") if axis == "both" else (axis,):
        a = ax.xaxis if name == "x" else ax.yaxis
        if a.get_scale() == "symlog":  # its ticks stay where the scale puts them, labelled plainly
            a.set_major_formatter(FuncFormatter(plain))
        elif a.get_scale() == "log":
            lo, hi = sorted(ax.get_xlim() if name == "x" else ax.get_ylim())
            base = getattr(a.get_transform(), "base", 10)
            if base == 10 and lo > 0 and hi / lo < 1e3:
                # Under three decades a power of ten alone leaves one or two labels: 1, 2 and 5 of
                # each decade are labelled too.
                a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            a.set_major_formatter(FuncFormatter(plain))
            a.set_minor_formatter(NullFormatter())
        elif isinstance(a.get_major_formatter(), ScalarFormatter):
            a.get_major_formatter().set_useOffset(False)
            a.get_major_formatter().set_scientific(False)


def log_if_wide(ax, axis: str, values, base: float = 10) -> bool:
    """Puts axis ("x" or "y") on a log scale where the positive values span more than WIDE_RANGE,
    with plain tick labels either way; returns whether it did."""
    positive = [v for v in values if v is not None and v == v and v > 0]
    wide = bool(positive) and max(positive) / min(positive) > WIDE_RANGE
    if wide:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
    plain_ticks(ax, axis)
    return wide
