#!/usr/bin/env python3
"""A stand-in for likwid-bench (tests/python/test_likwid_peer.py points PARLAB_LIKWID_BENCH at a
wrapper that runs it).

It takes likwid-bench's command line as parlab gives it (-t TEST -W N:<bytes>B:<threads>) and
prints what likwid-bench 5.2.2 (Debian 12's likwid package) printed for
`likwid-bench -t stream_mem_avx512 -W N:402653184B:2` on a 2-core VM, with the numbers worked
out for the test and size asked for: Time = FAKE_LIKWID_SECONDS (default 0.5) over 64
iterations per thread, data volume = iterations x vector length per thread x bytes per element,
MByte/s = volume / time / 1e6, flops likewise. The real run's output, verbatim:

    Allocate: Process running on hwthread 0 (Domain N) - Vector length 16777216/134217728 Offset 0 Alignment 512
    (twice more)
    Initialization: Each thread in domain initializes its own stream chunks
    --------------------------------------------------------------------------------
    LIKWID MICRO BENCHMARK
    Test: stream_mem_avx512
    --------------------------------------------------------------------------------
    Using 1 work groups
    Using 2 threads
    --------------------------------------------------------------------------------
    --------------------------------------------------------------------------------
    Group: 0 Thread 0 Global Thread 0 running on hwthread 0 - Vector length 8388608 Offset 0
    Group: 0 Thread 1 Global Thread 1 running on hwthread 1 - Vector length 8388608 Offset 8388608
    --------------------------------------------------------------------------------
    Cycles:\t\t\t5524646659
    CPU Clock:\t\t2596108943
    Cycle Clock:\t\t2596108943
    Time:\t\t\t2.128049e+00 sec
    Iterations:\t\t128
    Iterations per thread:\t64
    Inner loop executions:\t262144
    Size (Byte):\t\t402653184
    Size per thread:\t201326592
    Number of Flops:\t2147483648
    MFlops/s:\t\t1009.13
    Data volume (Byte):\t25769803776
    MByte/s:\t\t12109.59
    Cycles per update:\t5.145228
    Cycles per cacheline:\t41.161825
    Loads per update:\t2
    Stores per update:\t1
    Load bytes per element:\t16
    Store bytes per elem.:\t8
    Load/store ratio:\t2.00
    Instructions:\t\t637534225
    UOPs:\t\t\t872415232
    --------------------------------------------------------------------------------

and on stderr "Running without Marker API. Activate Marker API with -m on commandline."

FAKE_LIKWID_LOG: a file to which each invocation appends {argv, PATH} as JSON.
FAKE_LIKWID_FAULT: ok, garbled (not its report), exit1 (an error on stderr, exit 1), crash
(SIGSEGV), empty (nothing printed), nombyte (no MByte/s line), badrate (MByte/s that is not
volume / time), sanitized (the size rounded, as likwid-bench does for a vector length that is no
multiple of its loop stride), threads (another thread count), hang (sleeps for an hour)."""
import json
import os
import signal
import sys
import time

# Per element: bytes moved, flops, streams (likwid-bench -l TEST).
TESTS = {"copy_mem": (16, 0, 2), "stream_mem": (24, 2, 3), "peakflops": (8, 30, 1)}
ITERATIONS = 64


def main(argv):
    fault = os.environ.get("FAKE_LIKWID_FAULT", "ok")
    log = os.environ.get("FAKE_LIKWID_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({"argv": argv, "PATH": os.environ.get("PATH", "")}) + "\n")
    test = argv[argv.index("-t") + 1]
    domain, size, threads = argv[argv.index("-W") + 1].split(":")
    assert size.endswith("B"), size
    size, threads = int(size[:-1]), int(threads)
    per_elem, flops_per_elem, streams = next(v for k, v in TESTS.items() if test.startswith(k))
    print("Running without Marker API. Activate Marker API with -m on commandline.", file=sys.stderr)
    if fault == "hang":
        time.sleep(3600)
    if fault == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if fault == "exit1":
        print("ERROR: Unknown test case", file=sys.stderr)
        return 1
    if fault == "empty":
        return 0
    if fault == "garbled":
        print("\x00\x7fsegments 12 of 9 ??? LIKWID\nMByte/s = lots")
        return 0
    if fault == "sanitized":
        stride = 16 * threads
        length = size // 8 // streams // stride * stride - stride
        print(f"Warning: Sanitizing vector length to a multiple of the loop stride 16 and thread count {threads} "
              f"from {size // 8 // streams} elements ({size // streams} bytes) to {length} elements "
              f"({length * 8} bytes)")
        size = length * 8 * streams
    length = size // 8 // streams  # elements per stream
    per_thread = length // threads
    seconds = float(os.environ.get("FAKE_LIKWID_SECONDS", "0.5"))
    volume = ITERATIONS * threads * per_thread * per_elem
    flops = ITERATIONS * threads * per_thread * flops_per_elem
    mbyte = volume / seconds / 1e6 * (1.5 if fault == "badrate" else 1)
    for _ in range(streams):
        print(f"Allocate: Process running on hwthread 0 (Domain {domain}) - Vector length {length}/{length * 8} "
              "Offset 0 Alignment 512")
    print("Initialization: Each thread in domain initializes its own stream chunks")
    rule = "-" * 80
    print(rule, "LIKWID MICRO BENCHMARK", f"Test: {test}", rule, "Using 1 work groups",
          f"Using {threads + (1 if fault == 'threads' else 0)} threads", rule, rule, sep="\n")
    for t in range(threads):
        print(f"Group: 0 Thread {t} Global Thread {t} running on hwthread {t} - Vector length {per_thread} "
              f"Offset {t * per_thread}")
    print(rule)
    lines = [("Cycles", "\t\t\t", int(seconds * 2.6e9)), ("CPU Clock", "\t\t", 2596108943),
             ("Cycle Clock", "\t\t", 2596108943), ("Time", "\t\t\t", f"{seconds:e} sec"),
             ("Iterations", "\t\t", ITERATIONS * threads), ("Iterations per thread", "\t", ITERATIONS),
             ("Inner loop executions", "\t", per_thread // 32), ("Size (Byte)", "\t\t", size),
             ("Size per thread", "\t", size // threads), ("Number of Flops", "\t", flops),
             ("MFlops/s", "\t\t", f"{flops / seconds / 1e6:.2f}"), ("Data volume (Byte)", "\t", volume),
             ("MByte/s", "\t\t", f"{mbyte:.2f}"), ("Cycles per update", "\t", "5.145228")]
    for key, tabs, value in lines:
        if key == "MByte/s" and fault == "nombyte":
            continue
        print(f"{key}:{tabs}{value}")
    print(rule)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
