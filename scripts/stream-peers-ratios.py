#!/usr/bin/env python3
"""parlab against BabelStream, kernel by kernel, in one stream-peers run.

    scripts/stream-peers-ratios.py RUN_DIR

For each study (stream-peers-cpu, stream-peers-gpu) and kernel: BabelStream's fastest iteration
in B/s, then each parlab backend at BabelStream's thread count as a ratio to it, by the fastest
iteration (BabelStream's own statistic) and by the mean iteration; beside likwid-bench's records
(likwid-bench-nt), each parlab backend by the mean, the one statistic likwid-bench reports. The run's records are read
through the figures' loader, so a run made in rounds is pooled as the figures pool it (the
fastest over every round, the mean over every repetition).

Exit codes (parlab's contract, README "Exit codes"): 0 the table, every stream-peers record
measured and valid; 1 a stream-peers record failed (an error, a failed validation: listed on
stderr, the rest of the table still printed); 2 bad input, naming the path or the record: a
file that is not a parlab run, a malformed stream-peers record, or a run with no stream-peers
record at all (an empty table would pass for a result, so it is refused as not a stream-peers
run); 130 interrupted; 3 an internal error (one line, please report it), never a traceback.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from analysis.exit_codes import run_command  # noqa: E402
from analysis.read import InputError  # noqa: E402
from analysis.records import fastest_bytes_per_s, kernels_in_order, load_run  # noqa: E402


def mean_bytes_per_s(r: dict) -> float:
    return r["work"]["bytes"] / r["time_s"]["mean"]


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def check(i: int, r: dict, path: str) -> None:
    """Raises InputError naming the record where a stream-peers record lacks what the table
    reads: the loader checks only what every record has."""
    what = f"{path}: record {i} ({r.get('study')} {r.get('kernel')} {r.get('backend')})"
    if not isinstance(r.get("study"), str):
        raise InputError(f"{what}: 'study' must be a string")
    if r["status"] != "ok":
        return
    if not (isinstance(r.get("validation"), dict) and isinstance(r["validation"].get("pass"), bool)):
        raise InputError(f"{what}: 'validation.pass' must be true or false")
    if not (isinstance(r.get("work"), dict) and _number(r["work"].get("bytes"))):
        raise InputError(f"{what}: 'work.bytes' must be a positive number")
    if not _number(r["time_s"].get("mean")):
        raise InputError(f"{what}: 'time_s.mean' must be a finite positive time")
    if not isinstance(r["threads"], int) or isinstance(r["threads"], bool):
        raise InputError(f"{what}: 'threads' must be an integer")
    metrics = r.get("metrics", {})
    if not isinstance(metrics, dict) or ("peer_bytes_per_s" in metrics and not _number(metrics["peer_bytes_per_s"])):
        raise InputError(f"{what}: 'metrics.peer_bytes_per_s' must be a positive number")
    for rr in r.get("round_records") or []:
        if not (isinstance(rr, dict) and isinstance(rr.get("time_s"), dict)):
            raise InputError(f"{what}: a round's record is malformed")


def table(path: str) -> int:
    doc = load_run(path)
    records = [(i, r) for i, r in enumerate(doc["records"]) if str(r.get("study", "")).startswith("stream-peers")]
    if not records:
        raise InputError(f"{doc['_path']}: no stream-peers record (a run of the stream-peers suite, or a suite "
                         "whose studies are named stream-peers-*)")
    for i, r in records:
        check(i, r, doc["_path"])
    records = [r for _, r in records]
    bad = [r for r in records if r["status"] != "ok" or not r["validation"]["pass"]]
    for r in bad:
        print(f"FAILED {r['study']} {r['kernel']} {r['backend']}: {r['status']}", file=sys.stderr)
    rounds = max((r.get("rounds", 1) for r in records), default=0)
    print(f"# parlab / BabelStream per kernel, {path} ({rounds} round{'s' if rounds != 1 else ''})")
    for study in sorted({r["study"] for r in records}):
        for kernel in kernels_in_order(r for r in records if r["study"] == study):
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
            if not top:
                print(f"{study} {kernel}: BabelStream's record has no fastest iteration, no ratio")
                continue
            own = sorted((r for r in rs if r.get("kind") != "peer" and r["threads"] == peer["threads"]),
                         key=lambda r: r["backend"])
            cells = [f"{r['backend']} fastest {fastest_bytes_per_s(r) / top:.3f}x mean {mean_bytes_per_s(r) / mean:.3f}x"
                     for r in own if fastest_bytes_per_s(r)]
            print(f"{study.removeprefix('stream-peers-')} {kernel} BabelStream fastest {top:.4g} B/s; " + " ".join(cells))
    return 1 if bad else 0


def main(argv: list) -> int:
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    return run_command("stream-peers-ratios", lambda: table(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
