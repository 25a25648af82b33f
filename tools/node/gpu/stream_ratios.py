#!/usr/bin/env python3
"""Per GPU STREAM kernel and size of one run: each side's share of the theoretical DRAM peak,
parlab's `cuda` over BabelStream's cuda-stream and over the driver's copy (`cuda-memcpy`).

    tools/node/gpu/stream_ratios.py RESULTS_JSON

Statistics, pooled over the run's rounds: the fastest iteration (BabelStream's own figure,
`metrics.peer_bytes_per_s`, the best over its timed invocations; parlab's and the driver's copy's
fastest repetition) and the median repetition (parlab, the driver's copy; BabelStream has no
median of iterations, so its mean iteration stands there, marked). The peak is the run's
`gpu_bw_peak` roof (2 x memory clock x bus width / 8 from the driver); without ceilings the
shares are left out. Exit 1 when a record of the three backends failed.
"""
import collections
import json
import statistics
import sys

BACKENDS = ("cuda", "cuda-memcpy", "babelstream-cuda")


def main(path: str) -> int:
    doc = json.load(open(path))
    roofs = ((doc.get("context") or {}).get("ceilings") or {}).get("roofs") or {}
    peak = (roofs.get("gpu_bw_peak") or {}).get("value")
    groups = collections.defaultdict(list)
    failed = 0
    for r in doc["records"]:
        if r.get("backend") not in BACKENDS or r.get("processor") != "gpu":
            continue
        if r["status"] != "ok" or not (r.get("validation") or {}).get("pass"):
            why = r.get("error") or r.get("reason") or ""
            print(f"FAILED {r['kernel']} {r['backend']} n={r['size']}: {r['status']} {why}")
            failed += 1
            continue
        groups[(r["size"], r["kernel"], r["backend"])].append(r)

    def rates(size, kernel, backend):
        rs = groups.get((size, kernel, backend))
        if not rs:
            return None
        b = rs[0]["work"]["bytes"]
        if backend == "babelstream-cuda":
            best = max(r["metrics"]["peer_bytes_per_s"] for r in rs)
            mid = b / statistics.mean(r["time_s"]["mean"] for r in rs)
        else:
            reps = [t for r in rs for t in r["reps_s"]]
            best, mid = b / min(reps), b / statistics.median(reps)
        return best, mid

    print(f"# {path}: {doc.get('suite')}, peak {peak:.4g} B/s" if peak else f"# {path}: no gpu_bw_peak in the run")
    print("# share of peak: fastest (median; BabelStream: mean*); ratios by the fastest (median)")
    print(f"{'size':6s} {'kernel':6s} {'parlab':>16s} {'BabelStream':>16s} {'driver copy':>16s} "
          f"{'x BabelStream':>16s} {'x driver copy':>16s}")
    sizes = sorted({k[0] for k in groups})
    kernels = [k for k in ("copy", "mul", "add", "triad", "dot", "nstream") if any(g[1] == k for g in groups)]
    for size in sizes:
        copy = rates(size, "copy", "cuda-memcpy")
        for kernel in kernels:
            own, bs = rates(size, kernel, "cuda"), rates(size, kernel, "babelstream-cuda")
            if own is None:
                continue
            share = lambda x, star="": f"{x[0] / peak:.4f} ({x[1] / peak:.4f}{star})" if x and peak else "-"
            ratio = lambda x: f"{own[0] / x[0]:.4f} ({own[1] / x[1]:.4f})" if x else "-"
            print(f"2^{size.bit_length() - 1:<4d} {kernel:6s} {share(own):>16s} {share(bs, '*'):>16s} "
                  f"{share(copy) if kernel == 'copy' else '':>16s} {ratio(bs):>16s} {ratio(copy):>16s}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
