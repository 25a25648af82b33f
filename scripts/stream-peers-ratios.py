#!/usr/bin/env python3
"""parlab against BabelStream, kernel by kernel, in one stream-peers run.

    scripts/stream-peers-ratios.py RUN_DIR

For each study (stream-peers-cpu, stream-peers-gpu) and kernel: BabelStream's fastest iteration
in B/s, then each parlab backend at BabelStream's thread count as a ratio to it, by the fastest
iteration (BabelStream's own statistic) and by the mean iteration; beside likwid-bench's records
(likwid-bench-nt), each parlab backend by the mean, the one statistic likwid-bench reports. The run's records are read
through the figures' loader, so a run made in rounds is pooled as the figures pool it (the
fastest over every round, the mean over every repetition). Exit 1 when a record of the run is
not valid, 2 on a file that is not a parlab run.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments"))
from analysis.figures.load import InputError, fastest_bytes_per_s, kernel_order, load_run  # noqa: E402


def mean_bytes_per_s(r: dict) -> float:
    return r["work"]["bytes"] / r["time_s"]["mean"]


def main(argv: list) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        doc = load_run(argv[1])
    except InputError as e:
        print(f"stream-peers-ratios: {e}", file=sys.stderr)
        return 2
    records = [r for r in doc["records"] if str(r.get("study", "")).startswith("stream-peers")]
    bad = [r for r in records if r["status"] != "ok" or not r["validation"]["pass"]]
    for r in bad:
        print(f"FAILED {r['study']} {r['kernel']} {r['backend']}: {r['status']}", file=sys.stderr)
    rounds = max((r.get("rounds", 1) for r in records), default=0)
    print(f"# parlab / BabelStream per kernel, {argv[1]} ({rounds} round{'s' if rounds != 1 else ''})")
    for study in sorted({r["study"] for r in records}):
        for kernel in sorted({r["kernel"] for r in records if r["study"] == study}, key=kernel_order):
            rs = [r for r in records if r["study"] == study and r["kernel"] == kernel and r not in bad]
            peers = [r for r in rs if r.get("kind") == "peer" and r["backend"].startswith("babelstream")]
            for lk in (r for r in rs if r.get("kind") == "peer" and r["backend"].startswith("likwid-bench")):
                # likwid-bench reports the mean over its iterations: parlab's mean faces it.
                mine = sorted((r for r in rs if r.get("kind") != "peer" and r["threads"] == lk["threads"]),
                              key=lambda r: r["backend"])
                print(f"{study.removeprefix('stream-peers-')} {kernel} {lk['backend']} mean {mean_bytes_per_s(lk):.4g} B/s; "
                      + " ".join(f"{r['backend']} mean {mean_bytes_per_s(r) / mean_bytes_per_s(lk):.3f}x" for r in mine))
            if len(peers) != 1:
                print(f"{study} {kernel}: {len(peers)} BabelStream records, no ratio")
                continue
            peer = peers[0]
            top, mean = fastest_bytes_per_s(peer), mean_bytes_per_s(peer)
            own = sorted((r for r in rs if r.get("kind") != "peer" and r["threads"] == peer["threads"]),
                         key=lambda r: r["backend"])
            cells = [f"{r['backend']} fastest {fastest_bytes_per_s(r) / top:.3f}x mean {mean_bytes_per_s(r) / mean:.3f}x"
                     for r in own if fastest_bytes_per_s(r)]
            print(f"{study.removeprefix('stream-peers-')} {kernel} BabelStream fastest {top:.4g} B/s; " + " ".join(cells))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
