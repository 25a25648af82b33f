"""docs/extending.md's "Add a kernel" recipe for a STREAM kernel, followed to the letter: a copy of
the tracked tree gets a scratch kernel (`scale2`, b = 2a) by the recipe's edits of core/stream.hpp
and nothing else, is built with the CPU part only, and the kernel must have its records (ok, with
`work` and `family` stream), its validation (BabelStream's gold values, on every record) and its
roof (the copy bandwidth roof, from its row). A recipe that needs another file fails here, not in
the hands of the next person who adds a kernel."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import ROOT, run_dir_of

RECIPE = os.path.join(ROOT, "docs", "extending.md")

# The recipe's three edits of core/stream.hpp, each anchored on the text it follows; an anchor
# that is not there exactly once fails the test (the recipe or the file moved).
EDITS = [
    # 1. Its enumerator at the end of StreamKernel.
    ("enum class StreamKernel { copy, mul, add, triad, dot, nstream };",
     "enum class StreamKernel { copy, mul, add, triad, dot, nstream, scale2 };"),
    # 2. Its row at the end of kStreamKernels: reads a, writes b, 2 words and 1 flop per element,
    #    one array read and one written (the copy roof).
    ('kStreamA | kStreamB | kStreamC, kStreamA, MemoryRoof::triad}  // a += b + s*c\n',
     'kStreamA | kStreamB | kStreamC, kStreamA, MemoryRoof::triad},  // a += b + s*c\n'
     '    {StreamKernel::scale2, "scale2", 2, 1, kStreamA, kStreamB, MemoryRoof::copy}  // b = 2a\n'),
    # 3. Its case in stream_element (a + a: exact, and defined for the vector types too).
    ("    case StreamKernel::nstream: a[i] += b[i] + s * c[i]; break;\n",
     "    case StreamKernel::nstream: a[i] += b[i] + s * c[i]; break;\n"
     "    case StreamKernel::scale2: b[i] = a[i] + a[i]; break;\n"),
]
EDITED = "core/stream.hpp"


def recipe_text():
    text = open(RECIPE).read()
    start = text.index("**A STREAM kernel**")
    return text[start:text.index("**Any other kernel:**", start)]


def tracked_files():
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True)
    return [f for f in r.stdout.decode().split("\0") if f]


def copy_tree(dest):
    files = tracked_files()
    for f in files:
        src = os.path.join(ROOT, f)
        if not os.path.isfile(src) or os.path.islink(src):
            continue  # a deleted, uncommitted file, or a link: nothing a build reads
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, f))
    return files


def differing(files, dest):
    """The tracked files whose copy in `dest` differs from the tree's, and files `dest` has that
    the tree does not track: what the recipe touched."""
    changed = []
    for f in files:
        a, b = os.path.join(ROOT, f), os.path.join(dest, f)
        if os.path.isfile(a) and not os.path.islink(a) and open(a, "rb").read() != open(b, "rb").read():
            changed.append(f)
    tracked = set(files)
    for d, _, names in os.walk(dest):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), dest)
            if rel not in tracked:
                changed.append(rel)
    return sorted(changed)


def build(src, tmp_path):
    """Configures the CPU part only and builds `parlab` unoptimised (-O0, no debug info: a third
    of an optimised build's time on CI's 2 cores, and nothing here is a measurement) as a unity
    build (CMake batches each target's sources into a few: the headers they share are parsed once
    a batch, which halves this build; the release build compiles each source alone, so a source
    that misses an include still fails there); returns its path."""
    b = tmp_path / "b"
    configure = ["cmake", "-S", str(src), "-B", str(b), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                 "-DCMAKE_CXX_FLAGS_DEBUG=-O0", "-DCMAKE_C_FLAGS_DEBUG=-O0", "-DCMAKE_UNITY_BUILD=ON",
                 "-DPARLAB_ENABLE_CUDA=OFF", "-DPARLAB_ENABLE_PYTHON=OFF", "-DPARLAB_ENABLE_MPI=OFF",
                 "-DPARLAB_BUILD_TESTS=OFF", "-DPARLAB_BUILD_BENCHMARKS=OFF"]
    env = dict(os.environ)
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        # Paths relative to the temporary directory, so a later run's copy hits this one's cache.
        env["CCACHE_BASEDIR"] = str(tmp_path)
    r = subprocess.run(configure, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = subprocess.run(["cmake", "--build", str(b), "--target", "parlab", "--parallel", str(os.cpu_count() or 2)],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-5000:] + r.stderr[-3000:]
    return b / "experiments" / "parlab"


def records(parlab, out, *args):
    """The records of `parlab run -k scale2 -n 2^12 -r 1 --no-report ARGS`."""
    r = subprocess.run([str(parlab), "run", "-k", "scale2", "-n", "2^12", "-r", "1", "--no-report", "--out", str(out),
                        *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.load(open(os.path.join(run_dir_of(out), "results.json")))["records"]


def test_a_stream_kernel_by_the_recipe_alone(tmp_path):
    if shutil.which("ninja") is None or shutil.which("git") is None:
        pytest.fail("the scratch-kernel test needs ninja and git (CI has both)")
    recipe = recipe_text()
    # The recipe names the file and the three things the edits below touch.
    for name in ("`core/stream.hpp`", "StreamKernel", "kStreamKernels", "stream_element", "MemoryRoof::copy"):
        assert name in recipe, f"the recipe no longer mentions {name}: update this test's edits to it"
    src = tmp_path / "src"
    files = copy_tree(src)
    text = (src / EDITED).read_text()
    for anchor, replacement in EDITS:
        assert text.count(anchor) == 1, f"{EDITED} no longer has, exactly once: {anchor!r}"
        text = text.replace(anchor, replacement)
    (src / EDITED).write_text(text)
    assert differing(files, src) == [EDITED]

    t0 = time.monotonic()
    parlab = build(src, tmp_path)
    built_s = time.monotonic() - t0
    print(f"scratch kernel: CPU-only parlab built in {built_s:.0f} s")

    # Its records: every CPU backend of the recipe's promise that this build has.
    listed = subprocess.run([str(parlab), "list"], capture_output=True, text=True, timeout=60).stdout
    available = {l.split()[0] for l in listed.splitlines() if len(l.split()) > 2 and l.split()[2] == "available"}
    backends = [b for b in ("serial", "pool", "threads", "tbb", "openmp") if b in available]
    assert {"serial", "pool"} <= set(backends), listed
    recs = records(parlab, tmp_path / "o", "-b", ",".join(backends), "-t", "1,2", "--no-ceilings")
    assert {(r["backend"], r["threads"]) for r in recs} >= {("serial", 1), ("pool", 1), ("pool", 2)}
    for r in recs:
        what = f'{r["backend"]} t={r["threads"]}'
        assert r["status"] == "ok", (what, r.get("reason"))
        assert r["kernel"] == "scale2" and r["family"] == "stream", what
        # 2 words of 8 bytes per element, 1 flop: the row's work model.
        assert r["work"]["bytes"] == 2 * 8 * 4096 and r["work"]["flops"] == 4096, (what, r["work"])
        # Its validation: the arrays against the gold values stream_element computes.
        assert r["validation"]["pass"] is True, (what, r["validation"])

    # Its roof, from the row: held against the copy bandwidth roof. Measured with the test probes
    # (conftest's PARLAB_CEILINGS_QUICK); arrays this small fit any last-level cache, which the
    # limit says only of a kernel with a memory roof, and without a cache size the roof is the
    # copy roof itself.
    (r,) = records(parlab, tmp_path / "c", "-b", "serial", "-t", "1")
    lim = r["limit"]
    assert (lim.get("roof") or "").startswith("cpu_bw_copy_nt") or "last-level cache" in lim["reason"] or \
        "cpu_bw_copy_nt" in lim["reason"], lim
    assert "names no bound resource" not in lim.get("reason", ""), lim
