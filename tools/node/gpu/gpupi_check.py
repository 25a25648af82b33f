#!/usr/bin/env python3
"""The GPU pi kernel's acceptance check on one `parlab run tools/node/gpu/gpupi-suite.json` results.json.

    gpupi_check.py RESULTS.json [--cpu-pi PI.json ...] [--goal 6.5e11] [--min-size 2^36]

Prints the cuda pi rates by size, the peers beside them (ratios at the same size), cuda-multi
against cuda, and checks:
  - every pi record is validated (3 sigma) and records of one (seed, size) agree on the hits
    (cuda, cuda-multi and the PyTorch/CuPy peers all compute the canonical stream);
  - each `parlab pi --json` given by --cpu-pi (a CPU backend) has the hits of the cuda record
    of its seed and size: the GPU count at N >= 2^36 is the canonical one;
  - cuda reaches GOAL samples/s at some N >= MIN_SIZE.
Exit status: 0 met; 1 a correctness check failed or the input is unreadable; 3 correct but the
rate goal missed.
"""
import argparse
import json
import sys


def size_arg(text):
    return 2 ** int(text[2:]) if text.startswith("2^") else int(float(text))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--cpu-pi", action="append", default=[])
    ap.add_argument("--goal", type=float, default=6.5e11)
    ap.add_argument("--min-size", type=size_arg, default=2 ** 36)
    a = ap.parse_args()
    try:
        records = [r for r in json.load(open(a.results))["records"] if r.get("kernel") == "pi"]
    except (OSError, ValueError, KeyError) as e:
        print(f"gpupi_check: cannot read {a.results}: {e}")
        return 1
    ok = True

    def rate(r):
        return (r.get("rate") or {}).get("samples_per_s") or 0.0

    by_key = {}
    for r in records:
        if r.get("status") != "ok":
            print(f"  {r.get('backend')} pi {r.get('size')}: status {r.get('status')} {r.get('reason', '')}")
            continue
        if not (r.get("validation") or {}).get("pass"):
            print(f"FAILED validation: {r['backend']} pi {r['size']}: {r['validation'].get('detail')}")
            ok = False
        by_key.setdefault((r.get("seed"), r["size"]), []).append(r)
    for (seed, size), rs in sorted(by_key.items(), key=lambda kv: kv[0][1]):
        hits = {r["backend"]: r.get("hits") for r in rs}
        if len(set(hits.values())) > 1:
            print(f"FAILED: hits differ at seed {seed}, N = {size}: {hits}")
            ok = False
        cuda = [r for r in rs if r["backend"] == "cuda"]
        line = f"N = 2^{size.bit_length() - 1}" if size & (size - 1) == 0 else f"N = {size}"
        for r in sorted(rs, key=rate, reverse=True):
            ratio = f" ({rate(cuda[0]) / rate(r):.1f}x slower than cuda)" if cuda and r is not cuda[0] and rate(r) else ""
            who = r["backend"] + (f" x{r['threads']}" if r.get("threads", 1) > 1 else "")
            print(f"  {line}: {who:<15} {rate(r):.4g} samples/s, hits {r.get('hits')}{ratio}")
    for path in a.cpu_pi:
        try:
            cpu = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"FAILED: cannot read {path}: {e}")
            ok = False
            continue
        gpu = [r for r in by_key.get((cpu.get("seed"), cpu.get("samples")), []) if r["backend"] == "cuda"]
        if not gpu:
            print(f"  no cuda record at seed {cpu.get('seed')}, N = {cpu.get('samples')} for {path}")
            continue
        same = gpu[0].get("hits") == cpu.get("hits")
        print(f"  canonical: cuda hits {gpu[0].get('hits')} {'==' if same else '!='} {cpu.get('backend')} hits "
              f"{cpu.get('hits')} at N = {cpu.get('samples')}")
        ok = ok and same
    big = [r for rs in by_key.values() for r in rs if r["backend"] == "cuda" and r["size"] >= a.min_size]
    best = max(big, key=rate, default=None)
    met = best is not None and rate(best) >= a.goal
    print(f"goal: cuda pi >= {a.goal:.3g} samples/s at N >= {a.min_size}: "
          f"{'met' if met else 'MISSED'} (best {rate(best) if best else 0:.4g} at N = {best['size'] if best else '-'})")
    if not ok:
        return 1
    return 0 if met else 3


if __name__ == "__main__":
    sys.exit(main())
