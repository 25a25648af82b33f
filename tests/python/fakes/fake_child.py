#!/usr/bin/env python3
"""A misbehaving stand-in for another process parlab measures in: another interpreter's parlab
(`fake_child.py interpreter-info`, `fake_child.py measure-spec SPEC`) or an MPI launcher
(`fake_child.py --version`, `fake_child.py [options] -np R PARLAB measure-spec SPEC`).

FAKE_CHILD_FAULT says how a measurement goes wrong: garbled (not JSON), exit3, sigkill, hang,
empty (exit 0, no output), null (reports an interruption nobody sent), wrongshape (a record for
another measurement), notrecord (a JSON list), badbytes (bytes that are not UTF-8 on stderr and
stdout, then exit 3), ok (a well-formed record, so a test can tell the
fake works). Each fault writes a line to stderr first, which the failed record must carry."""
import json
import os
import signal
import sys
import time

args = sys.argv[1:]
if args == ["interpreter-info"]:
    print(json.dumps({"available": True, "interpreter": "9.99.0 fake", "python_build": "gil"}))
    sys.exit(0)
if args == ["--version"]:
    print("fake launcher 1.0")
    sys.exit(0)
if "measure-spec" not in args:
    sys.exit(f"fake_child.py: unexpected arguments {args}")

spec = json.loads(args[-1])
fault = os.environ.get("FAKE_CHILD_FAULT", "ok")
sys.stderr.write(f"fake child: about to {fault} on {spec['kernel']} {spec['backend']}\n")
sys.stderr.flush()
if fault == "garbled":
    print("Segmentation fault? {not json")
elif fault == "exit3":
    sys.exit(3)
elif fault == "sigkill":
    os.kill(os.getpid(), signal.SIGKILL)
elif fault == "hang":
    time.sleep(3600)
elif fault == "empty":
    pass
elif fault == "null":
    print("null")
elif fault == "wrongshape":
    print(json.dumps({**spec, "kernel": "triad", "status": "ok"}))
elif fault == "notrecord":
    print(json.dumps([1, 2, 3]))
elif fault == "badbytes":
    sys.stderr.buffer.write(b"\xff\xfe\x80 not utf-8 \xc3\x28 \xed\xa0\x80\n")
    sys.stderr.flush()
    sys.stdout.buffer.write(b"{\"kernel\": \"\xff\"}\n")
    sys.stdout.flush()
    sys.exit(3)
elif fault == "ok":
    rec = dict(spec)
    rec.update({"status": "ok", "kind": "python", "reps_s": [0.01, 0.011], "inner": 1,
                "time_s": {"n": 2, "min": 0.01, "q1": 0.01, "median": 0.0105, "q3": 0.011, "max": 0.011,
                           "mean": 0.0105, "stddev": 0.0007, "cv": 0.067, "median_ci": [0.01, 0.011], "ci_level": 0.5},
                "rate": {}, "work": {"samples": spec["size"], "bytes": 0, "flops": 0},
                "validation": {"pass": True, "detail": "fake"}, "checksum": 0.0,
                "interpreter": "9.99.0 fake", "python_build": "gil", "gil_enabled": True})
    if "ranks" not in rec and "-np" in args:
        rec["kind"] = "mpi"
    print(json.dumps(rec))
sys.exit(0)
