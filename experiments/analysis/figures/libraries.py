"""parlab against the Python peers of the same run: rate ratios per kernel (peers_<kernel>)."""
from __future__ import annotations

from .labels import fmt_rate
from .load import ok_records, rate_of
from ..writer import Plotter


# Python peers that run on a GPU (the rest are CPU peers).
GPU_PEERS = {"py-cupy", "py-torch"}


def peers_table(doc: dict) -> list[dict]:
    """The peers table, as data (tested on its own): for every kernel of the `peers` study and
    every peer (a python-kind record), at the peer's highest thread count, parlab's fastest
    backend of the same kind of device (CPU backends at that same thread count; any GPU backend
    for a GPU peer) and the ratio parlab rate / peer rate."""
    recs = [r for r in ok_records(doc) if r.get("study") == "peers" and rate_of(r)[0]]
    rows = []
    for key in sorted({(r["kernel"], str(r.get("precision")), r["size"]) for r in recs}):
        rs = [r for r in recs if (r["kernel"], str(r.get("precision")), r["size"]) == key]
        peers = [r for r in rs if r["kind"] == "python"]
        top = {}
        for r in peers:  # each peer at its highest thread count
            if r["backend"] not in top or r["threads"] > top[r["backend"]]["threads"]:
                top[r["backend"]] = r
        for name in sorted(top):
            peer = top[name]
            gpu = name in GPU_PEERS
            own = [r for r in rs if r["kind"] == ("gpu" if gpu else "cpu") and (gpu or r["threads"] == peer["threads"])]
            if not own:
                continue
            best = max(own, key=lambda r: rate_of(r)[0])
            unit = rate_of(best)[1]
            rows.append({"kernel": key[0], "precision": key[1], "size": key[2], "threads": peer["threads"],
                         "parlab": best["backend"], "parlab_threads": best["threads"], "parlab_rate": rate_of(best)[0],
                         "peer": name, "peer_rate": rate_of(peer)[0], "unit": unit,
                         "ratio": rate_of(best)[0] / rate_of(peer)[0]})
    return rows


def peers_figures(p: Plotter, doc: dict) -> list[dict]:
    rows = peers_table(doc)
    for kernel in sorted({r["kernel"] for r in rows}):
        kr = [r for r in rows if r["kernel"] == kernel]
        fig, ax = p.plt.subplots(figsize=(8, 0.5 + 0.45 * len(kr)))
        labels = [f"{r['peer']} t={r['threads']} vs {r['parlab']} t={r['parlab_threads']}" for r in kr]
        ax.barh(range(len(kr)), [r["ratio"] for r in kr], color=["C0" if r["ratio"] >= 1 else "C3" for r in kr])
        ax.set_yticks(range(len(kr)), labels, fontsize=7)
        ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlabel("parlab rate / peer rate (right of the dashed line: parlab faster)")
        ax.set_title(f"{kernel}: parlab against the peers, same run")
        p.save(fig, f"peers_{kernel}", f"{kernel} peers: " + "; ".join(
            f"{r['parlab']} t={r['parlab_threads']} {fmt_rate(r['parlab_rate'], r['unit'])} vs {r['peer']} "
            f"t={r['threads']} {fmt_rate(r['peer_rate'], r['unit'])} = {r['ratio']:.2f}x" for r in kr))
    return rows
