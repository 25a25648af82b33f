#!/usr/bin/env python3
"""Where pure-Python threads lose speedup on a free-threaded CPython: one interpreter, no parlab.

Runs parlab's pure-Python pi (embed/workloads/parlab_philox.py, the canonical stream) and two
allocation probes at 1, 2, 4, ... threads and the same split over worker processes, and prints
each variant's time and speedup over its own one-worker time:

  threads-shared    every thread calls one module's functions (py-pure-threads)
  threads-private   each thread runs its own copy of the module, made by that thread, on one
                    range of the points per thread (a static split)
  threads-private-blocks  the same, threads taking blocks of 1024 points from a shared counter
                    (py-pure-private): the split that does not wait for the slowest core
  threads-smallint  each thread a private loop on small (cached, immortal) ints: no allocation,
                    no shared object touched; the interpreter's own bound for threads
  threads-bigint    the same loop on 32-bit ints (a new int object per operation, as pi's
                    arithmetic does): what object allocation costs when many threads do it
  processes-private the pi split over spawned processes, each with its own interpreter; the
                    machine's bound for this interpreter, with nothing shared at all

Usage: python3.13t tools/node/ft-scaling-probe.py [--samples N] [--threads 1,2,4,8,16] [--reps 3]
       [--json FILE]
Run it with the interpreter to measure (a free-threaded build for the GIL-free figures; the same
command on a GIL build shows the GIL's 1x). PYTHON_GIL is passed through to the worker processes.
"""

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "..", "..", "embed", "workloads")
sys.path.insert(0, WORKLOADS)

import parlab_philox  # noqa: E402  (after the path is set)

SEED = 20240601
LOOP_SOURCE = """
from itertools import repeat
def smallint(n):
    x = 0
    for _ in repeat(None, n):
        x = (x * 5 + 1) & 255
    return x
def bigint(n):
    x = 1
    for _ in repeat(None, n):
        x = (x * 0xD2511F53 + 0x9E3779B9) & 0xFFFFFFFF
    return x
"""


def private_philox():
    import importlib.util
    spec = importlib.util.find_spec("parlab_philox")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def private_loops():
    namespace = {}
    exec(compile(LOOP_SOURCE, "<probe loops>", "exec"), namespace)
    return namespace


def time_threads(threads, make_state, work):
    """Seconds from a barrier all `threads` wait at to the last one's end; `make_state` runs on
    each thread before the barrier (untimed), `work(state, t)` after it."""
    start, done = threading.Barrier(threads + 1), threading.Barrier(threads + 1)
    results = [None] * threads

    def body(t):
        state = make_state()
        start.wait()
        results[t] = work(state, t)
        done.wait()

    pool = [threading.Thread(target=body, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    start.wait()
    t0 = time.perf_counter()
    done.wait()
    elapsed = time.perf_counter() - t0
    for th in pool:
        th.join()
    return elapsed, results


def time_processes(threads, samples):
    """The pi split over `threads` worker processes of this interpreter, started and ready before
    the clock starts; seconds until the last one reports."""
    workers = []
    for t in range(threads):
        b, e = parlab_philox.split(samples, threads, t), parlab_philox.split(samples, threads, t + 1)
        workers.append(subprocess.Popen([sys.executable, __file__, "--worker", str(b), str(e)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for w in workers:
        assert w.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    for w in workers:
        w.stdin.write("go\n")
        w.stdin.flush()
    hits = [int(w.stdout.readline()) for w in workers]
    elapsed = time.perf_counter() - t0
    for w in workers:
        w.stdin.close()
        w.wait()
    return elapsed, hits


def worker(begin, end):
    module = private_philox()
    print("ready", flush=True)
    sys.stdin.readline()
    print(module.hits_points(SEED, begin, end), flush=True)


def variants(samples, loop_iterations):
    def split(threads, t):
        return parlab_philox.split(samples, threads, t), parlab_philox.split(samples, threads, t + 1)

    def pi_shared(threads):
        return time_threads(threads, lambda: parlab_philox,
                            lambda m, t: m.hits_points(SEED, *split(threads, t)))

    def pi_private(threads):
        return time_threads(threads, private_philox, lambda m, t: m.hits_points(SEED, *split(threads, t)))

    def pi_private_blocks(threads):
        lock, state = threading.Lock(), {"next": 0}

        def count(m, t):
            hits = 0
            while True:
                with lock:
                    b = state["next"]
                    state["next"] = b + 1024
                if b >= samples:
                    return hits
                hits += m.hits_points(SEED, b, min(b + 1024, samples))
        return time_threads(threads, private_philox, count)

    def loop(name):
        def run(threads):
            per = loop_iterations // threads
            return time_threads(threads, private_loops, lambda ns, t: ns[name](per))
        return run

    return {
        "threads-shared": (pi_shared, True),
        "threads-private": (pi_private, True),
        "threads-private-blocks": (pi_private_blocks, True),
        "threads-smallint": (loop("smallint"), False),
        "threads-bigint": (loop("bigint"), False),
        "processes-private": (lambda threads: time_processes(threads, samples), True),
    }


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=lambda s: int(eval(s.replace("^", "**"), {})), default=1 << 19,
                    help="pi samples per run (default 2^19; '2^20' accepted)")
    ap.add_argument("--threads", default=None, help="worker counts, comma-separated (default 1,2,4,... up to the CPUs)")
    ap.add_argument("--reps", type=int, default=3, help="runs per point; the median is reported")
    ap.add_argument("--only", default=None, help="variants to run, comma-separated")
    ap.add_argument("--json", default=None, help="also write every run to this file")
    args = ap.parse_args()
    cpus = os.cpu_count() or 1
    counts = ([int(x) for x in args.threads.split(",")] if args.threads
              else [c for c in (1, 2, 4, 8, 16, 32, 64) if c <= cpus] + ([cpus] if cpus & (cpus - 1) else []))
    canonical = parlab_philox.hits_points(SEED, 0, 1 << 12)  # a cheap self-check of the stream module
    assert canonical == private_philox().hits_points(SEED, 0, 1 << 12)
    gil = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True
    build = "free-threaded" if sysconfig.get_config_var("Py_GIL_DISABLED") else "gil"
    print(f"# {sys.version.split()[0]} {build}, GIL {'enabled' if gil else 'disabled'}; {cpus} CPUs; "
          f"pi samples {args.samples}; runs per point {args.reps} (median)", flush=True)
    loop_iterations = args.samples * 32  # about as long as the pi run on one thread
    chosen = variants(args.samples, loop_iterations)
    if args.only:
        chosen = {k: v for k, v in chosen.items() if k in args.only.split(",")}
    rows = []
    expected_hits = None
    for name, (run, counts_pi) in chosen.items():
        base = None
        run(1)  # untimed: imports, first calls and the interpreter's caches before the clock
        for threads in counts:
            times = []
            for _ in range(args.reps):
                elapsed, parts = run(threads)
                times.append(elapsed)
                if counts_pi:
                    hits = sum(parts)
                    expected_hits = hits if expected_hits is None else expected_hits
                    if hits != expected_hits:
                        raise SystemExit(f"{name} at {threads}: {hits} hits, not {expected_hits}")
            median = sorted(times)[len(times) // 2]
            base = median if threads == 1 or base is None else base
            row = {"variant": name, "workers": threads, "median_s": median, "runs_s": times,
                   "speedup": base / median, "python": sys.version.split()[0], "build": build, "gil": gil}
            rows.append(row)
            print(f"{name:22s} {threads:3d} workers  {median:8.4f} s  {base / median:6.2f}x", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"samples": args.samples, "cpus": cpus, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
