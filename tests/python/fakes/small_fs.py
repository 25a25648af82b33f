#!/usr/bin/env python3
"""A full or read-only filesystem for one command, in a mount namespace of its own (run under
`unshare -m`, as root: the mount is seen by this process and its children only, and goes with them).

    unshare -m small_fs.py SPEC_JSON

SPEC: {"mount": DIR, "copy": {SRC: DEST_REL}, "mode": "full"|"readonly", "cmd": [...], "env": {...}}.
Mounts a tmpfs at DIR, copies the inputs in, then fills it to the last byte ("full") or remounts it
read-only, runs cmd (a "{mnt}" in an argument is DIR) and prints on stdout one JSON object: the
command's exit code and stderr, and every file left under DIR with its size and whether it is
whole (a PNG ends with its IEND chunk, an SVG with </svg>, a JSON file parses)."""
import json
import os
import shutil
import subprocess
import sys


def whole(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".png"):
        return data.endswith(b"IEND\xaeB`\x82")
    if path.endswith(".svg"):
        return data.rstrip().endswith(b"</svg>")
    if path.endswith(".json"):
        try:
            json.loads(data)
            return True
        except ValueError:
            return False
    return True


def fill(mnt):
    """Writes until the filesystem refuses a byte, then removes nothing: ENOSPC for what follows."""
    with open(os.path.join(mnt, ".filler"), "wb", buffering=0) as f:  # unbuffered: nothing left to flush
        for size in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError:
                continue


def main():
    spec = json.loads(sys.argv[1])
    mnt = spec["mount"]
    os.makedirs(mnt, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt], check=True)
    for src, rel in spec.get("copy", {}).items():
        dest = os.path.join(mnt, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, dest)
    if spec["mode"] == "full":
        fill(mnt)
    else:
        subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
    cmd = [a.replace("{mnt}", mnt) for a in spec["cmd"]]
    r = subprocess.run(cmd, capture_output=True, timeout=120, env={**os.environ, **spec.get("env", {})})
    files = {}
    for d, _, names in os.walk(mnt):
        for n in names:
            p = os.path.join(d, n)
            if n != ".filler":
                files[os.path.relpath(p, mnt)] = {"size": os.path.getsize(p), "whole": whole(p)}
    json.dump({"rc": r.returncode, "stderr": r.stderr.decode("utf-8", "replace"), "files": files}, sys.stdout)


if __name__ == "__main__":
    main()
