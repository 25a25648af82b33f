"""A record's share of its roof as an interval, and whether it reads above its roof
(docs/ceilings.md, "The end probe").

A run whose records are held against CPU bandwidth roofs measures those roofs again at its end
(experiments/machine/roof_drift.cpp); each record is graded against the higher of the two
measurements, and its `limit.interval` spans

    low  = its rate at its slower quartile time (q3) / the highest roof  (limit.value)
    high = its rate at its faster quartile time (q1) / the lowest roof   (limit.interval.roof_low)

The runner computes it where the record is graded; this module reads it, and mirrors the rule
(`interval`) for the tests that hold the two equal on a real run. A record reads above its roof
only where its whole interval is above 1; one without an interval (no end probe: older runs, GPU
roofs, roofs not measured again) reads above it where its share is over 1, as before."""
from __future__ import annotations

from analysis.spread import rate_band


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def interval(attained: float, time_s: dict, roof_high: float, roof_low: float) -> tuple | None:
    """(low, high) of a share: the rate at the slower quartile (attained x median / q3, the low end
    of spread.rate_band) over the highest roof, the rate at the faster quartile (attained x median
    / q1) over the lowest; None without the quartiles."""
    band = rate_band({"time_s": time_s}, attained)
    return (band[0] / roof_high, band[1] / roof_low) if band else None


def share_interval(r: dict) -> tuple | None:
    """(low, high) of the record's share of its roof as its limit holds it; None where it has none."""
    lim = r.get("limit")
    iv = lim.get("interval") if isinstance(lim, dict) else None
    if not isinstance(iv, dict) or not (_number(iv.get("low")) and _number(iv.get("high"))):
        return None
    return iv["low"], iv["high"]


def reads_above(r: dict) -> bool:
    """Whether the record reads above its roof: its whole interval above 1 where it has one, else
    its share over 1."""
    lim = r.get("limit")
    if not isinstance(lim, dict) or not lim.get("roof") or not _number(lim.get("fraction")):
        return False
    iv = share_interval(r)
    return iv[0] > 1 if iv else lim["fraction"] > 1


def interval_text(iv: tuple | None) -> str:
    """" (0.98–1.12)": an interval as it follows a share, two places each; "" for none."""
    return f" ({iv[0]:.2f}–{iv[1]:.2f})" if iv else ""


def share_cell(share: float, iv: tuple | None) -> str:
    """A table's roof cell: the share to two places with its interval where it has one, "1.05
    (0.98–1.12)"; "<0.01" below that, never a misleading 0.00."""
    return ("<0.01" if share < 0.01 else f"{share:.2f}") + interval_text(iv)


__all__ = ["interval", "interval_text", "reads_above", "share_cell", "share_interval"]
