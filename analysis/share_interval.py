"""A record's share of its roof as an interval, and whether it reads above its roof
(docs/ceilings.md, "The end probe").

A run whose records are held against CPU bandwidth roofs measures those roofs again at its end
(experiments/machine/roof_drift.cpp); each record is graded against the higher of the two
measurements, and its `limit.interval` spans

    low  = its rate at its slower quartile time (q3) / the highest roof  (limit.value)
    high = its rate at its faster quartile time (q1) / the lowest roof   (limit.interval.roof_low)

The runner computes it where the record is graded, and whether the record reads above its roof
(`limit.above_roof`: only where its whole interval is above 1; one without an interval, no end
probe, where its share is over 1), and of a run's pooled rounds where it pools them
(experiments/run/pool_rounds.cpp); this module reads both and computes neither."""
from __future__ import annotations


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def share_interval(r: dict) -> tuple | None:
    """(low, high) of the record's share of its roof as its limit holds it; None where it has none."""
    lim = r.get("limit")
    iv = lim.get("interval") if isinstance(lim, dict) else None
    if not isinstance(iv, dict) or not (_number(iv.get("low")) and _number(iv.get("high"))):
        return None
    return iv["low"], iv["high"]


def reads_above(r: dict) -> bool:
    """Whether the record reads above its roof, as its runner judged it: its limit carries the
    note `above_roof` (record_limit writes it where the share is over 1, and the end probe keeps
    it only where the whole interval is: experiments/machine/roof_drift.cpp). Read, never judged
    again here."""
    lim = r.get("limit")
    return isinstance(lim, dict) and bool(lim.get("roof")) and isinstance(lim.get("above_roof"), str)


def interval_text(iv: tuple | None) -> str:
    """" (0.98–1.12)": an interval as it follows a share, two places each; "" for none."""
    return f" ({iv[0]:.2f}–{iv[1]:.2f})" if iv else ""


def share_cell(share: float, iv: tuple | None) -> str:
    """A table's roof cell: the share to two places with its interval where it has one, "1.05
    (0.98–1.12)"; "<0.01" below that, never a misleading 0.00."""
    return ("<0.01" if share < 0.01 else f"{share:.2f}") + interval_text(iv)


__all__ = ["interval", "interval_text", "reads_above", "share_cell", "share_interval"]
