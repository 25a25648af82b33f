#!/usr/bin/env python3
"""Instructions per loop in a SASS listing (cuobjdump -sass or nvdisasm output), by kernel.

Finds every loop as a backward branch (`BRA label` to a label above it) and prints, per loop,
its instruction count and the histogram of opcodes (mnemonic up to the first '.'). For the pi
kernel, the innermost hot loop's count divided by the pairs it handles per trip is the static
instructions per pair (the counts the rework compares; ncu measures the dynamic figure).

    sass_loops.py LISTING [--kernel SUBSTRING] [--json]
"""
import argparse
import collections
import json
import re
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+|\.L_\d+):")
FUNC = re.compile(r"(?:Function\s*:\s*|^\s*)(_Z\w+)\s*:?\s*$")
# nvdisasm names targets by label (`BRA `(.L_x_8)`), cuobjdump by address (`BRA 0x5f0`).
BRANCH = re.compile(r"\bBRA\b[^`(0]*(?:`?\(?(\.L_x_\d+|\.L_\d+)\)?`?|(0x[0-9a-f]+))")


def parse(text):
    """Yields (kernel, [(addr, text) ...], {label: index}) per function in the listing."""
    kernel, insns, labels = None, [], {}
    for line in text.splitlines():
        m = FUNC.search(line)
        if m and "/*" not in line:
            if kernel and insns:
                yield kernel, insns, labels
            kernel, insns, labels = m.group(1), [], {}
            continue
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = len(insns)
            continue
        m = INSN.search(line)
        if m and kernel:
            insns.append((int(m.group(1), 16), m.group(2)))
    if kernel and insns:
        yield kernel, insns, labels


def mnemonic(text):
    t = re.sub(r"^@!?U?P\w+\s+", "", text)
    return t.split()[0].split(".")[0] if t else "?"


def loops(insns, labels):
    found = []
    index_of = {addr: i for i, (addr, _) in enumerate(insns)}
    for i, (_, text) in enumerate(insns):
        m = BRANCH.search(text)
        if not m:
            continue
        target = labels.get(m.group(1)) if m.group(1) else index_of.get(int(m.group(2), 16))
        if target is not None and target <= i:
            body = insns[target: i + 1]
            found.append({"first": target, "last": i, "instructions": len(body),
                          "opcodes": dict(collections.Counter(mnemonic(t) for _, t in body).most_common())})
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("listing")
    ap.add_argument("--kernel", default="", help="only kernels whose mangled name contains this")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    text = open(a.listing, errors="replace").read() if a.listing != "-" else sys.stdin.read()
    out = []
    for kernel, insns, labels in parse(text):
        if a.kernel in kernel:
            out.append({"kernel": kernel, "instructions": len(insns), "loops": loops(insns, labels)})
    if a.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    for k in out:
        print(f"{k['kernel']}: {k['instructions']} instructions")
        for lp in k["loops"]:
            ops = " ".join(f"{o}:{n}" for o, n in lp["opcodes"].items())
            print(f"  loop [{lp['first']}, {lp['last']}]: {lp['instructions']} instructions  {ops}")


if __name__ == "__main__":
    main()
