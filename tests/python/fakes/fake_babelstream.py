#!/usr/bin/env python3
"""A stand-in for BabelStream's omp-stream / cuda-stream (tests/python/test_babelstream_peer.py
puts a wrapper of that name in a directory for PARLAB_BABELSTREAM_DIR).

It takes BabelStream's command line (src/main.cpp at 57637d5: --arraysize/-s, --numtimes/-n,
--only/-o, --float, --csv, --silence-errors, --device, --mibibytes/--gibibytes/...; anything
else is "Unrecognized argument", exit 1) and prints its --csv output: the header
function,num_times,n_elements,sizeof,max_<unit>_per_sec,min_runtime,max_runtime,avg_runtime and
one row per kernel run, numbers as C++'s default ostream prints them (%g). Times are made up:
min = FAKE_BABELSTREAM_SECONDS (default 0.001), avg = 1.5 min, max = 2 min; the bandwidth is
BabelStream's weight * sizeof * n / min in the unit. FAKE_BABELSTREAM_FIRST_SECONDS, with
FAKE_BABELSTREAM_LOG, is the min of the log's first invocation instead.

FAKE_BABELSTREAM_MODEL=cuda prints what the CUDA model prints on stdout before the CSV.
FAKE_BABELSTREAM_UNIT names the default unit (MB; GiB, or v5's mbytes, to test the header).
FAKE_BABELSTREAM_LOG: a file to which each invocation appends {argv, OMP_NUM_THREADS} as JSON.
FAKE_BABELSTREAM_FAULT says how it goes wrong: ok, garbled (not CSV), exit3 (a message on stderr,
exit 3), crash (SIGSEGV), empty (exit 0, nothing printed), gold (its gold check fails: FAILED
validation lines on stderr, then exit 1 unless --silence-errors), wrongsize (a row for another
n_elements), norow (no row for the kernel asked for), badheader (a header of other columns),
badbandwidth (a bandwidth that is not weight * sizeof * n / min), shortrow (a row of 7 fields),
hang (sleeps for an hour)."""
import json
import os
import signal
import sys
import time

WEIGHTS = {"Copy": 2, "Mul": 2, "Add": 3, "Triad": 3, "Dot": 2, "Nstream": 4}
UNITS = {"MB": 1e-6, "GB": 1e-9, "TB": 1e-12, "MiB": 2.0 ** -20, "GiB": 2.0 ** -30, "TiB": 2.0 ** -40,
         "mbytes": 1e-6, "mibytes": 2.0 ** -20}
UNIT_FLAGS = {"--megabytes": "MB", "--gigabytes": "GB", "--terabytes": "TB", "--mibibytes": "MiB",
              "--gibibytes": "GiB", "--tebibytes": "TiB"}


def fail(message):
    sys.stderr.write(message + "\n")
    sys.exit(1)


args = sys.argv[1:]
if os.environ.get("FAKE_BABELSTREAM_LOG"):
    with open(os.environ["FAKE_BABELSTREAM_LOG"], "a") as log:
        log.write(json.dumps({"argv": args, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}) + "\n")

n, num_times, only, use_float, csv, silence, unit = 33554432, 100, "Classic", False, False, False, None
i = 0
while i < len(args):
    a = args[i]
    if a in ("--arraysize", "-s", "--numtimes", "-n", "--only", "-o", "--device"):
        if i + 1 >= len(args):
            fail(f"missing value after {a}")
        v = args[i + 1]
        i += 1
        if a in ("--arraysize", "-s"):
            n = int(v)
        elif a in ("--numtimes", "-n"):
            num_times = int(v)
            if num_times < 2:
                fail("Number of times must be 2 or more")
        elif a in ("--only", "-o"):
            if v not in WEIGHTS and v not in ("Classic", "All"):
                fail(f'Unknown benchmark name "{v}" after --only')
            only = v
    elif a == "--float":
        use_float = True
    elif a == "--csv":
        csv = True
    elif a == "--silence-errors":
        silence = True
    elif a in UNIT_FLAGS:
        unit = UNIT_FLAGS[a]
    else:
        fail(f"Unrecognized argument '{a}' (try '--help')")
    i += 1
if not csv:
    fail("fake_babelstream.py prints only the --csv form")

unit = unit or os.environ.get("FAKE_BABELSTREAM_UNIT", "MB")
fault = os.environ.get("FAKE_BABELSTREAM_FAULT", "ok")
size_of = 4 if use_float else 8
t = float(os.environ.get("FAKE_BABELSTREAM_SECONDS", "0.001"))
if os.environ.get("FAKE_BABELSTREAM_FIRST_SECONDS") and os.environ.get("FAKE_BABELSTREAM_LOG"):
    with open(os.environ["FAKE_BABELSTREAM_LOG"]) as log:
        if sum(1 for _ in log) == 1:  # this is the first invocation (the warm-up of a one-record run)
            t = float(os.environ["FAKE_BABELSTREAM_FIRST_SECONDS"])
kernels = [only] if only in WEIGHTS else ["Copy", "Mul", "Add", "Triad", "Dot"] + (["Nstream"] if only == "All" else [])

if os.environ.get("FAKE_BABELSTREAM_MODEL") == "cuda":
    print("CUDA Driver: 13000")
    print('CUDA Device 0: "Fake H100" 0000:00:00.0')
    print("Memory Allocation: DEFAULT")
    print("Parallel for kernel config: thread blocks of size 1024")
    print("Reduction kernel config: 1056 groups of (fixed) size 1024")

sys.stderr.write(f"fake babelstream: {fault} on {only} n={n} sizeof={size_of}\n")
sys.stderr.flush()
if fault == "garbled":
    print("Segmentation fault? ###,,not,a,csv")
    sys.exit(0)
if fault == "exit3":
    sys.exit(3)
if fault == "crash":
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
if fault == "empty":
    sys.exit(0)
if fault == "hang":
    time.sleep(3600)
if fault == "gold":
    for name in "abc":
        sys.stderr.write(f"FAILED validation of {name}[0]: 0.5 (is) != 0.1 (should), diff=0.4 > 2.22045e-14 "
                         f"(largest=0.5, max_rel=2.22045e-14)\n")
    if not silence:
        sys.exit(1)

header = ["function", "num_times", "n_elements", "sizeof", f"max_{unit}_per_sec", "min_runtime", "max_runtime",
          "avg_runtime"]
if fault == "badheader":
    header[1] = "repetitions"
print(",".join(header))
for k in kernels:
    if fault == "norow":
        k = "Copy" if k != "Copy" else "Mul"
    bandwidth = WEIGHTS[k] * size_of * n / t * UNITS[unit]
    if fault == "badbandwidth":
        bandwidth *= 1.5
    row = [k, str(num_times), str(n + (1 if fault == "wrongsize" else 0)), str(size_of), "%g" % bandwidth,
           "%g" % t, "%g" % (2 * t), "%g" % (1.5 * t)]
    if fault == "shortrow":
        row = row[:7]
    print(",".join(row))
