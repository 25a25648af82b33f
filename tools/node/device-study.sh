#!/usr/bin/env bash
# The study of the reference runs on the GPU node (16 cores + H200, offline, Python 3.12 with NumPy, Numba,
# CuPy and PyTorch in a virtual environment): every suite from one build of one commit, in
# parts that each fit one call of at most 10 minutes. Run from the repository root with the
# Debian packages in .deb/ (scripts/offline-bundle.sh .deb --with-test-libs --with-dask):
#
#   OUT=DIR VIRTUAL_ENV=VENV PARLAB_SOURCE_COMMIT=SHA tools/node/device-study.sh PART
#
#   study1  build (CPU, CUDA, embedded Python), the racecheck positive control, the whole test
#           suite, then the gil and libraries suites
#   study2  gpu, overhead, races and seed-examples suites + the overhead micro-benchmarks
#   study3  scaling and bandwidth suites
#   rerun SUITE...  the named suites again (after a fix; the results say which commit)
#   tests   every GPU and MPI test of the study build
#   stream-peers  the stream-peers suite (parlab beside BabelStream), after the GPU tests and
#           Nsight Compute on both dot kernels (carry build/deps/babelstream-src)
#   stream-cpu  the CPU half of stream-peers (openmp, openmp-static, pool, tbb, BabelStream's omp-stream,
#           likwid-bench's non-temporal copy and triad;
#           the suite's 3 rounds), after building what stream-peers needs (carry build/deps/babelstream-src)
#   ceilings  this node's roofs (`parlab ceilings --remeasure`, twice, and their spread), the roof
#           energy and in-core tests, GPU pi under Nsight Compute, and pi's AVX-512 loop at 4, 6 and 8
#           vectors in flight (parlab_bench pi_kernel_vectors/); `rerun quick` after it measures the
#           quick suite with those roofs (every record's share of its roof, the GPU records' energy)
#   pop     where the speedup went: the accounting's overhead (parlab_bench_accounting) and the
#           speedup suite (pi, triad, matmul on every CPU backend, 1..16 threads) with its
#           efficiency hierarchy (`parlab report --summary pop`)
#   stream-memory  the CPU STREAM set at 2^27 doubles beside BabelStream's omp-stream (the
#           stream-memory suite; carry build/deps/babelstream-src)
#   own-kernel  a person's C++ kernel from outside the tree (examples/cpp-triangular) built against
#           the installed package and run on every CPU executor at 1..16 threads
#   own-kernel-rounds  the triangular example on every kind of executor at 1 thread, in 4 rounds:
#           serial's one thread against the executors' with the node's drift spread over all
#   own-python  examples/python-gil and python-race (kernel files) at 1..16 threads on the node's
#           Python
#   own-python-ft  the same kernel files at 1..16 threads on a free-threaded CPython 3.13t (built
#           as the ft part builds it; carry build/deps/src), run by a parlab built against it
#   pop-jobs  where the speedup went over MPI ranks (mpi+pool, pi and triad, 1..16 ranks) and the
#           Python thread backends (GIL held and released, the thread pool, pure-Python threads)
#   roofs   copy and triad at 2^27 doubles on the CPU backends at all threads, 5 rounds, with the
#           bandwidth roofs measured again at the run's end (the share of the highest, its interval)
#   likwid-cpu  why likwid-bench's non-temporal copy and triad outran parlab's: its clock against
#           wall time, its rate at 1x and 4x the suite's working set, and parlab's at 16- and 64-byte
#           streaming stores (PARLAB_STREAM_ISA)
#   energy-cpu  the CPU's energy from the node's power PMU: pi and triad, serial, openmp and cuda
#   gpu     the GPU acceptance run (tools/node/gpu/device-run.sh)
#   multi   the multi-GPU comparison (run on 2+ GPUs)
#   pymodels  Python's ways around the GIL (threads, a thread pool, processes, dask.delayed,
#           dask.distributed, parlab.pi) at 1, 2 and all cores' workers (3 repetitions, not the
#           suite's 5, to leave room for Dask's cluster start-ups), and pi's convergence figure.
#           Dask comes from VIRTUAL_ENV when installed there, else from Debian 13's packages in
#           .deb/dask (offline-bundle.sh --with-dask), unpacked with dpkg -x and put on PYTHONPATH
#           (the embedded interpreter and its spawned workers honour it); without either, the
#           py-dask-* records say unavailable
#   distributed  the distributed suite (ranks x threads, probes, mixed mode) with the study
#           build's parlab when it has the MPI backends (the node's Open MPI), else as mpi-suite
#   mpi     MPI: build with MPI and CUDA, the MPI tests, and on 2+ GPUs mpi+cuda at 1 and
#           2 ranks against one GPU (pi 2^36, triad 2^28 double) in one run each
#   mpi-suite  the distributed suite (ranks x threads on the node's cores, probes, mixed mode)
#   ft      free-threaded CPython: builds it on the node (scripts/build-python-ft.sh: 3.13t from
#           the carried Debian tarball, or any CPython >= 3.13 source in PARLAB_PYTHON_FT_SRC), a
#           parlab against it (build/release-ft) and its embedded-Python tests, then the gil suite
#           measuring the node's Python 3.12 and the free-threaded one (no GIL and PYTHON_GIL=1)
#           in one run. Carry build/deps/src (python3.13_3.13.*.orig.tar.xz, made here by
#           `scripts/build-python-ft.sh --source-only`; a python.org Python-3.14.*.tgz put there
#           beside it is taken instead, the newest version wins), or point PARLAB_PYTHON_FT_SRC at it.
#   ft-races  the races suite on every interpreter (Python 3.12, free-threaded without a GIL and
#           with PYTHON_GIL=1) in one run, at 3 repetitions (the suite's 20 and 10 did not fit:
#           the free-threaded py_count_* at 16 threads take seconds each); reuses ft's builds
#           when the machine still has them, else makes them
#
# Retired parts, whose questions docs/history.md ("Investigations, condensed") summarises (their
# results and commands are in git history, `git show e7c0481:results/README.md`; run one from the commit named there, e.g. `git show
# 1e4557f:tools/node/device-study.sh`): pi-probe (one core's pi rate per SIMD path), dot and
# stream-probe (why the GPU dot and the openmp STREAM kernels trailed BabelStream), ft-probe (why
# pure-Python threads fell short of the cores on 3.13t; tools/node/ft-scaling-probe.py stays, to
# run by hand) and mpi-probe (why ranks fell behind threads on pi).
#
# The study parts share the build in build/h200-study (rebuilt only when out of date, so a
# later part on the same machine starts at once). VIRTUAL_ENV makes the Python libraries importable by
# the embedded interpreter; PARLAB_SOURCE_COMMIT records the commit in each result's context
# where the copied tree has no .git. Everything lands in DIR as two files (the device tool
# returns at most 8): study.tgz (logs and result directories) and summary.txt. Unpack locally
# with `tar xzf study.tgz`; the result directories are under results/<host>/.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1  # the repository root, two folders up
part=${1:?usage: device-study.sh study1|study2|study3|rerun SUITE...|tests|ceilings|stream-peers|stream-cpu|pop|own-kernel|own-kernel-rounds|own-python|own-python-ft|pop-jobs|stream-memory|roofs|likwid-cpu|energy-cpu|gpu|multi|ft|ft-races|pymodels|distributed|mpi|mpi-suite}
shift
# shellcheck source=tools/node/device-common.sh
. tools/node/device-common.sh
device_begin device-study study.log
jobs=$(nproc)
pack() { tar czf "$final/study.tgz" -C "$work" . && say "packed $(du -h "$final/study.tgz" | cut -f1) at t=${SECONDS}s"; }
trap pack EXIT

prefix=$(bash scripts/offline-unpack.sh "${PARLAB_DEB_DIR:-.deb}" build/offline-deps) || exit 1
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The bundle's pure-Python packages (jsonschema, which the report checks a run with).
export PYTHONPATH="$prefix/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
# likwid-bench for the likwid-bench-* peers, where the bundle carried Debian's likwid (the node has
# none); parlab puts the sbin beside it on PATH for likwid-accessD.
[ -x "$prefix/bin/likwid-bench" ] && export PARLAB_LIKWID_BENCH=$prefix/bin/likwid-bench
say "part $part; machine: $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(python3 --version 2>&1)"
say "commit ${PARLAB_SOURCE_COMMIT:-(not declared)}; VIRTUAL_ENV=${VIRTUAL_ENV:-(unset)}"

build=build/h200-study
# The roofs `parlab ceilings` measured, kept beside the build, so every later part on the same
# machine (a `rerun quick` after `ceilings`) uses the same ones.
export PARLAB_CEILINGS_CACHE=${PARLAB_CEILINGS_CACHE:-$PWD/build/ceilings-cache}
bin="$build/experiments/parlab"

# Configures once (every part explicitly ON, so a missing one fails here and not as a silent
# "unavailable" in the results) and builds whatever is out of date: every target, or the ones
# named (`ensure_build parlab`: what a suite run needs, without the tests and benchmarks).
ensure_build() {
  if [ ! -f "$build/build.ninja" ]; then
    step "configure (Release, sm_90, TBB, OpenMP, CUDA, Python ON)"
    # shellcheck disable=SC2086  # the extra arguments are meant to split
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DPARLAB_ENABLE_TBB=ON -DPARLAB_ENABLE_OPENMP=ON -DPARLAB_ENABLE_CUDA=ON -DPARLAB_ENABLE_PYTHON=ON \
      -DCMAKE_PREFIX_PATH="$prefix" ${PARLAB_DEVICE_CMAKE_ARGS:-} >"$work/configure.log" 2>&1 \
      || { tail -40 "$work/configure.log"; say "configure failed"; exit 1; }
    grep -E "parlab|backend|Python|CUDA" "$work/configure.log" | head -30
  fi
  step "build${1:+ ($*)}"
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$build" --parallel "$jobs" "${targets[@]}" >"$work/build.log" 2>&1 \
    || { grep -E "error|FAILED" -A5 "$work/build.log" | head -60; say "build failed"; exit 1; }
  say "built at t=${SECONDS}s"
}

# A person's kernel from outside the tree: the package installed into $work/prefix and
# examples/cpp-triangular built against it with find_package(parlab CONFIG) alone, in
# $work/triangular (both inside this invocation's own scratch folder).
build_triangular() {
  step "install the package and build examples/cpp-triangular against it"
  cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log"; exit 1; }
  cmake -S examples/cpp-triangular -B "$work/triangular" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
    >"$work/triangular-configure.log" 2>&1 && cmake --build "$work/triangular" >"$work/triangular-build.log" 2>&1 \
    || { tail -30 "$work/triangular-configure.log" "$work/triangular-build.log"; exit 1; }
}

# kernel_file_run TIMEOUT PARLAB ARGS...: a run of a kernel file (parlab run ARGS), written under
# the tree's own results/ (results/<host>/<stamp>/, where committed runs lie): its records hold
# the file's path relative to the run's folder, which stays true once the run is committed. The
# new run is copied into this part's results after, to come back with them.
kernel_file_run() {
  local limit=$1 parlab=$2 before rc=0 d host
  shift 2
  before=$(ls -d results/*/2*/ 2>/dev/null | sort)
  timeout "$limit" "$parlab" run "$@" --out "$PWD/results" -q --no-report || rc=$?
  for d in $(comm -13 <(echo "$before") <(ls -d results/*/2*/ 2>/dev/null | sort)); do
    host=$(basename "$(dirname "$d")")
    mkdir -p "$work/results/$host" && cp -a "${d%/}" "$work/results/$host/"
  done
  return "$rc"
}

# The free-threaded CPython (scripts/build-python-ft.sh from the carried source; kept per version,
# so a later part on the same machine finds it at once), a parlab against it (build/release-ft)
# and, with `test`, its embedded-Python tests. Sets ft_python (…/bin/python3t, whatever X.Y) and
# PARLAB_INTERPRETERS, so a run measures it beside the node's Python.
ensure_ft() {
  step "free-threaded CPython from the carried source (no network)"
  PARLAB_PYTHON_FT_SRC=${PARLAB_PYTHON_FT_SRC:-build/deps/src} PARLAB_JOBS=$jobs \
    bash scripts/build-python-ft.sh >"$work/python-ft.log" 2>&1 \
    || { tail -40 "$work/python-ft.log"; say "free-threaded CPython build failed"; exit 1; }
  ft_python="$(tail -1 "$work/python-ft.log")/bin/python3t"
  say "free-threaded CPython $("$ft_python" -c 'import sys; print(sys.version.split()[0])'): $ft_python at t=${SECONDS}s"
  step "parlab against it (build/release-ft: CPU and Python parts)"
  cmake --preset release-ft -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure-ft.log" 2>&1 \
    || { tail -40 "$work/configure-ft.log"; say "configure release-ft failed"; exit 1; }
  local targets=(parlab)
  [ "${1:-}" = test ] && targets+=(parlab_embed_tests)
  cmake --build build/release-ft --parallel "$jobs" --target "${targets[@]}" >"$work/build-ft.log" 2>&1 \
    || { grep -E "error|FAILED" -A5 "$work/build-ft.log" | head -40; say "build release-ft failed"; exit 1; }
  if [ "${1:-}" = test ]; then
    timeout 180 ctest --test-dir build/release-ft --parallel 8 --timeout 120 -L embed >"$work/ctest-ft.log" 2>&1
    say "ctest free-threaded (embedded Python): $(grep -E 'tests passed|tests failed' "$work/ctest-ft.log") at t=${SECONDS}s"
  fi
  export PARLAB_INTERPRETERS=$PWD/build/release-ft/experiments/parlab
}

# Dask for the embedded interpreter and the workers it spawns: the virtual environment's own when
# it has one; else Debian 13's packages carried in .deb/dask (scripts/offline-bundle.sh
# --with-dask), unpacked with dpkg -x and put first on PYTHONPATH, which the embedded interpreter
# (PyConfig's Python configuration) and every spawned worker honour. Byte-compiled once here, so
# 16 workers starting at once do not each compile distributed.
setup_dask() {
  local py=python3
  [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ] && py=$VIRTUAL_ENV/bin/python
  if "$py" -c 'import dask, distributed' >/dev/null 2>&1; then
    say "Dask: from $py's own environment"
    return 0
  fi
  local debs=${PARLAB_DASK_DEB_DIR:-${PARLAB_DEB_DIR:-.deb}/dask} usr
  usr=$(bash scripts/offline-unpack.sh "$debs" build/offline-dask) || { say "Dask: none in $py's environment nor in $debs"; return 0; }
  local site="$usr/lib/python3/dist-packages"
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  "$py" -m compileall -q -j "$jobs" "$site" >/dev/null 2>&1 || true
  say "Dask: $("$py" -c 'import dask, distributed; print("dask", dask.__version__, "distributed", distributed.__version__, "from", dask.__path__[0])' 2>&1 | tail -1)"
}

# One line per backend (per kernel for Python ones, per interpreter mode) of the newest run of
# suite $1 in this part: statuses, how many records passed validation (pi: the canonical count)
# and at which thread/worker counts.
summarize_suite() {
  python3 - "$work/results" "$1" <<'PY' | tee -a "$summary"
import collections, glob, json, os, sys
runs = [f for f in glob.glob(sys.argv[1] + "/*/*/results.json") if json.load(open(f)).get("suite") == sys.argv[2]]
if not runs:
    print(f"  {sys.argv[2]}: no results"); sys.exit()
d = json.load(open(max(runs, key=os.path.getmtime)))
by = collections.defaultdict(list)
for r in d["records"]:
    key = (r["kernel"] + " " if r.get("kind") == "python" and r["kernel"] != "pi" else "") + r["backend"] + (f" [{r['interpreter']}{', PYTHON_GIL=' + r['python_gil'] if r.get('python_gil') else ''}]" if r.get("interpreter") else "")
    by[key].append(r)
for key, rs in sorted(by.items()):
    ok = [r for r in rs if r["status"] == "ok"]
    passed = [r for r in ok if (r.get("validation") or {}).get("pass")]
    why = sorted({(r.get("reason") or r.get("error") or "")[:90] for r in rs if r["status"] != "ok"} - {""})
    print(f"  {key:60s} {dict(collections.Counter(r['status'] for r in rs))} valid {len(passed)}/{len(ok)}"
          f" at {sorted({r['threads'] for r in passed})}" + (f"  ({'; '.join(why)})" if why else ""))
PY
}

# BabelStream's omp-stream and cuda-stream for the babelstream-* peers, built once per machine
# from the carried source (build/deps/babelstream-src, a `git archive` of the commit in
# BABELSTREAM_COMMIT below; fetch it where there is a network) with scripts/build-babelstream.sh.
babelstream_commit=57637d572532fc028b6c0964944f1afc27ff5436
ensure_babelstream() {
  export PARLAB_BABELSTREAM_DIR=$PWD/build/babelstream
  if [ ! -x "$PARLAB_BABELSTREAM_DIR/omp-stream" ] || [ ! -x "$PARLAB_BABELSTREAM_DIR/cuda-stream" ]; then
    step "BabelStream $babelstream_commit (omp, cuda)"
    bash scripts/build-babelstream.sh --commit "$babelstream_commit" --jobs "$jobs" build/deps/babelstream-src \
      "$PARLAB_BABELSTREAM_DIR" >"$work/babelstream-build.log" 2>&1 \
      || { tail -30 "$work/babelstream-build.log"; say "BabelStream build failed"; exit 1; }
  fi
  say "BabelStream: $(cat "$PARLAB_BABELSTREAM_DIR/BABELSTREAM_COMMIT") in $PARLAB_BABELSTREAM_DIR"
}

# The GPU tests (dot's bits against the CPU's among them) and Nsight Compute on parlab's and
# BabelStream's dot kernels (2^28 doubles; --clock-control none leaves the clocks alone).
gpu_tests() {
  step "GPU tests (ctest -R ^Gpu)"
  timeout 240 ctest --test-dir "$build" -R '^Gpu' --timeout 200 >"$work/ctest-gpu.log" 2>&1
  say "GPU tests: exit $?; $(grep -E 'tests passed|tests failed' "$work/ctest-gpu.log")"
}
profile_dots() {
  local sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats
    --section WarpStateStats --section SchedulerStats)
  local keys="DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|Waves Per SM|Grid Size|Block Size|Issued Warp|No Eligible|Warp Cycles Per Issued"
  step "ncu: parlab cuda dot, 2^28 doubles"
  timeout 120 ncu --clock-control none -k regex:'dot_kernel' -s 3 -c 3 "${sections[@]}" \
    "$bin" run -k dot -b cuda -n 2^28 -p double -r 3 --quick --out "$work/ncu-results" -q --no-report \
    >"$work/ncu-parlab-dot.txt" 2>&1
  say "ncu parlab dot: exit $?"
  grep -E "^  [a-z_]+.*\(|$keys" "$work/ncu-parlab-dot.txt" | tee -a "$summary"
  step "ncu: BabelStream cuda dot (dot_kernel), 2^28 doubles"
  timeout 120 ncu --clock-control none -k regex:dot_kernel -s 2 -c 1 "${sections[@]}" \
    "$PARLAB_BABELSTREAM_DIR/cuda-stream" --arraysize $((1 << 28)) --numtimes 5 --only Dot \
    >"$work/ncu-babelstream-dot.txt" 2>&1
  say "ncu BabelStream dot: exit $?"
  grep -E "$keys" "$work/ncu-babelstream-dot.txt" | tee -a "$summary"
}

run_suite() {  # run_suite NAME SECONDS [args...]
  local name=$1 seconds=$2
  shift 2
  step "suite $name"
  timeout "$seconds" "$bin" run "$name" --out "$work/results" -q --no-report "$@"
  say "suite $name: exit $? at t=${SECONDS}s"
}

# The distributed suite needs parlab's MPI backends: the study build has them where the node's
# Open MPI (mpi.h, mpirun) was found at its configure, as on the GPU node; otherwise the
# suite runs from mpi-suite's own MPI build.
if [ "$part" = distributed ]; then
  ensure_build parlab
  # grep reads the whole listing (with -q it could stop early, and pipefail would see parlab's SIGPIPE).
  if "$bin" list 2>/dev/null | grep -E '^ +mpi\+serial +mpi +available' >/dev/null; then
    say "MPI backends: in $bin ($(command -v mpirun))"
  else
    say "no MPI backends in $bin: building mpi-suite's (build/h200-mpi)"
    part=mpi-suite
  fi
fi

case "$part" in
  distributed)
    # About 170 s on 16 cores (in-process strong scaling about 50 s, the rest one mpirun job per
    # point at about 0.5 s of launch each); the timeout leaves room for races before it in a call.
    run_suite distributed 240
    summarize_suite distributed
    ;;
  study1)
    ensure_build
    "$bin" list | tee "$work/list.txt"
    nvidia-smi -L | tee -a "$summary"
    step "compute-sanitizer racecheck positive control (the planted race must be reported)"
    bash tools/node/gpu/racecheck-control.sh "$build/tests/gpu/planted_race_cuda" "$work/racecheck-control.log" \
      | tee -a "$summary"
    step "tests (all of them, 16 cores)"
    timeout 300 ctest --test-dir "$build" --parallel 8 --timeout 240 --output-on-failure >"$work/ctest.log" 2>&1
    say "ctest: $(grep -E 'tests passed|tests failed' "$work/ctest.log")"
    grep -E "^\s+[0-9]+ - |\*\*\*Failed|Timeout" "$work/ctest.log" | head -20
    run_suite gil 150
    run_suite libraries 150
    ;;
  study2)
    ensure_build
    run_suite gpu 240
    run_suite overhead 60
    run_suite races 60
    run_suite seed-examples 60
    step "overhead micro-benchmarks"
    # pool, tbb and openmp (static) only: all seven backends did not fit in the 120 s once.
    timeout 180 "$build/bench/parlab_bench_overhead" --benchmark_filter='/(pool|tbb|openmp)/' \
      --benchmark_min_time=0.2 --benchmark_repetitions=5 \
      --benchmark_report_aggregates_only=true --benchmark_out="$work/bench_overhead.json" \
      --benchmark_out_format=json >"$work/bench_overhead.txt" 2>&1
    grep -E "_median" "$work/bench_overhead.txt" | grep -E "threads:16" | tee -a "$summary"
    ;;
  study3)
    ensure_build
    run_suite scaling 300
    run_suite bandwidth 150 --threads 1,16
    ;;
  rerun)
    [ $# -gt 0 ] || { echo "device-study.sh rerun: name at least one suite" >&2; exit 2; }
    ensure_build
    for suite in "$@"; do run_suite "$suite" 300; done
    ;;
  tests)
    # Every GPU and MPI test of the study build (the node is the only place they run).
    ensure_build
    step "GPU and MPI tests (ctest -R '^Gpu|^mpi_')"
    timeout 400 ctest --test-dir "$build" -R '^Gpu|^mpi_' --timeout 300 -j 4 --output-on-failure \
      >"$work/ctest-gpu-mpi.log" 2>&1
    say "GPU and MPI tests: exit $?; $(grep -E 'tests passed|tests failed' "$work/ctest-gpu-mpi.log")"
    grep -E "\(Failed\)|\*\*\*Failed|Not Run" "$work/ctest-gpu-mpi.log" | tee -a "$summary"
    ;;
  ceilings)
    ensure_build parlab parlab_tests parlab_bench
    for i in 1 2; do
      step "parlab ceilings --remeasure ($i of 2)"
      start=$SECONDS
      "$bin" ceilings --remeasure --json >"$work/ceilings-$i.json" 2>"$work/ceilings-$i.err"
      say "ceilings $i: exit $?, $((SECONDS - start)) s"
    done
    # The spread of each roof over the two measurements (the issue's bound: within 10%).
    python3 - "$work/ceilings-1.json" "$work/ceilings-2.json" <<'PY' | tee -a "$summary"
import json, sys
a, b = (json.load(open(f)).get("roofs", {}) for f in sys.argv[1:3])
for k in sorted(set(a) & set(b)):
    x, y = a[k]["value"], b[k]["value"]
    print(f"  {k:22s} {x:12.4g} {y:12.4g} {a[k]['unit']:8s} spread {abs(x - y) / max(x, y):6.1%}")
PY
    "$bin" ceilings | tee -a "$summary"
    step "roof and energy tests"
    timeout 120 ctest --test-dir "$build" -R 'RecordLimit|Ceilings|Energy|Incore|PiSimd|MatmulTile' --timeout 100 >"$work/ctest-roofs.log" 2>&1
    say "roof tests: exit $?; $(grep -E 'tests passed|tests failed' "$work/ctest-roofs.log")"
    # Where GPU pi stands against its integer-multiply roof, as Nsight Compute sees it: the pipes'
    # utilisation (the IMAD pipe is the multiply's) and issue slots, at the clocks as found.
    step "ncu: GPU pi kernel, 2^34 samples"
    timeout 150 ncu --clock-control none -k regex:'pi_hits_kernel' -s 2 -c 1 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats --section Occupancy \
      "$bin" run -k pi -b cuda -n 2^34 -r 2 --quick --out "$work/ncu-results" -q --no-report --no-ceilings \
      >"$work/ncu-pi.txt" 2>&1
    say "ncu pi: exit $?"
    grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc|IMA|ALU|FMA|Registers Per|Achieved Occupancy" \
      "$work/ncu-pi.txt" | head -30 | tee -a "$summary"
    # Why pi's AVX-512 loop keeps 6 vectors in flight (core/pi_simd.hpp): the same loop with 4, 6
    # and 8 on one pinned CPU, repetitions interleaved so a drifting clock hits all three alike.
    step "pi's AVX-512 loop at 4, 6 and 8 vectors (parlab_bench, CPU 2)"
    taskset -c 2 "$build/bench/parlab_bench" --benchmark_filter='pi_kernel_vectors/' --benchmark_repetitions=7 \
      --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
      --benchmark_out="$work/bench-pi-vectors.json" --benchmark_out_format=json >"$work/bench-pi-vectors.txt" 2>&1
    say "bench pi vectors: exit $?"
    grep -E "median|cv" "$work/bench-pi-vectors.txt" | tee -a "$summary"
    ;;
  stream-peers)
    # The stream-peers suite to commit, after the GPU tests and the dot profiles.
    ensure_build parlab parlab_gpu_tests
    ensure_babelstream
    gpu_tests
    profile_dots
    run_suite stream-peers 480
    summarize_suite stream-peers
    python3 scripts/stream-peers-ratios.py "$(ls -td "$work"/results/*/*/ | head -1)" | tee -a "$summary"
    ;;
  stream-cpu)
    # The CPU half of stream-peers alone (the openmp schedule and the streaming stores):
    # builds what the stream-peers part needs, then the suite's CPU kernels for openmp (dynamic),
    # openmp-static, pool, tbb, BabelStream's omp-stream and likwid-bench-nt in the suite's 3 rounds; the node's
    # transparent-huge-page mode and CPU beside them.
    ensure_build parlab parlab_gpu_tests
    ensure_babelstream
    say "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1); defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>&1)"
    say "CPU: $(lscpu | grep -E '^(Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|L3 cache):' | tr -s ' ' | paste -sd';')"
    run_suite stream-peers 300 -b openmp,openmp-static,pool,tbb,babelstream-omp,likwid-bench-nt
    summarize_suite stream-peers
    python3 scripts/stream-peers-ratios.py "$(ls -td "$work"/results/*/*/ | head -1)" | tee -a "$summary"
    ;;
  pop)
    # Where the speedup went: what per-worker accounting costs beside the plain loops at
    # all threads (parlab_bench_accounting), then the speedup suite (pi, triad, matmul on every CPU
    # backend over a power-of-two thread sweep, this node's roofs measured first) and its
    # efficiency hierarchy as `parlab report --summary pop` prints it. CPU parts only are needed:
    # PARLAB_DEVICE_CMAKE_ARGS="-DPARLAB_ENABLE_CUDA=OFF -DPARLAB_ENABLE_PYTHON=OFF" builds in half the time.
    ensure_build parlab parlab_bench_accounting
    step "accounting overhead (parlab_bench_accounting, $jobs threads)"
    timeout 90 "$build/bench/parlab_bench_accounting" --benchmark_filter="threads:$jobs/" --benchmark_repetitions=5 \
      --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
      --benchmark_out="$work/bench-accounting.json" --benchmark_out_format=json >"$work/bench-accounting.txt" 2>&1
    say "bench accounting: exit $?"
    grep -E "chunk_cost|_median" "$work/bench-accounting.txt" | tee -a "$summary"
    # What one accounted chunk and one worker window cost on their own (the 0.2 us goal's figure).
    timeout 60 "$build/bench/parlab_bench_accounting" --benchmark_filter='chunk_cost|window_cost' \
      --benchmark_repetitions=10 --benchmark_report_aggregates_only=true >"$work/bench-chunk-cost.txt" 2>&1
    say "bench chunk cost: exit $?"
    grep -E "_median|_cv" "$work/bench-chunk-cost.txt" | tee -a "$summary"
    run_suite speedup 330
    summarize_suite speedup
    timeout 60 "$bin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary pop 2>&1 | tee -a "$summary"
    ;;
  own-kernel)
    # A person's own C++ kernel from outside the tree: the package installed into a prefix, the
    # triangular example built against it with find_package(parlab CONFIG) alone, and run on every
    # CPU executor at 1..16 threads, its hierarchy (`--summary pop`) showing the static split's
    # imbalance.
    ensure_build parlab parlab_harness
    build_triangular
    timeout 240 "$work/triangular/triangular" run -k triangular -t 1,2,4,8,16 -n 40000 -r 3 \
      -b serial,threads,pool,tbb,openmp,openmp-static,openmp-dynamic,openmp-guided --out "$work/results" -q --no-report
    say "triangular: exit $? at t=${SECONDS}s"
    timeout 60 "$bin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary pop 2>&1 | tee -a "$summary"
    rm -rf "$work/prefix" "$work/triangular"
    ;;
  own-kernel-rounds)
    # Whether serial's one thread is slower than the executors' one thread on the triangular
    # kernel, or the node's CPU drifted while they ran in turn: every executor at 1 thread, in 4
    # rounds, so a slow minute falls on all of them alike; then the rounds apart (--summary table
    # of the pooled run, and each round's medians from the records).
    ensure_build parlab parlab_harness
    build_triangular
    timeout 200 "$work/triangular/triangular" run -k triangular -t 1 -n 40000 -r 5 --rounds 4 \
      -b serial,threads,pool,openmp-static,openmp-dynamic --out "$work/results" -q --no-report
    say "triangular rounds: exit $? at t=${SECONDS}s"
    latest=$(ls -td "$work"/results/*/*/ | head -1)
    timeout 60 "$bin" report "$latest" --summary table 2>&1 | tee -a "$summary"
    python3 - "$latest/results.json" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["records"]:
    if r.get("status") == "ok":
        print(f"round {r.get('round', 0)} {r['backend']:15s} cpus {r.get('workers', {}).get('cpus')} "
              f"median {r['time_s']['median']:.4f} s  reps {' '.join(f'{x:.3f}' for x in r['reps_s'])}")
PY
    rm -rf "$work/prefix" "$work/triangular"
    ;;
  own-python)
    # The Python kernel files of examples/ on the node's interpreter, 1..16 threads: the GIL-bound
    # kernel on pure-Python threads, the thread pool, sub-interpreters (each with a GIL of its
    # own, CPython 3.12+) and processes; the racing one on threads.
    ensure_build parlab
    kernel_file_run 240 "$bin" -k examples/python-gil/kernel.py -b py-pure-threads,py-thread-pool,py-subinterp,py-processes \
      -t 1,2,4,8,16 --size 2^16 -r 3
    say "python-gil: exit $? at t=${SECONDS}s"
    timeout 60 "$bin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary pop 2>&1 | tee -a "$summary"
    kernel_file_run 120 "$bin" -k examples/python-race/kernel.py -b py-pure-threads,py-processes -t 1,2,4,16 \
      --size 20000 -r 5
    say "python-race: exit $? at t=${SECONDS}s (1: a result differed between repetitions, as the example says)"
    timeout 60 "$bin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary table 2>&1 | tee -a "$summary"
    ;;
  own-python-ft)
    # The same kernel files on a free-threaded CPython (3.13t built from the carried source), by
    # a parlab built against it: the GIL-bound kernel's threads without a GIL, beside the thread
    # pool and processes, and the racing kernel's threads, which now race at once.
    ensure_ft
    unset PARLAB_INTERPRETERS  # the free-threaded parlab runs these itself
    ftbin=build/release-ft/experiments/parlab
    kernel_file_run 240 "$ftbin" -k examples/python-gil/kernel.py -b py-free-threaded,py-thread-pool,py-processes \
      -t 1,2,4,8,16 --size 2^16 -r 3
    say "python-gil on the free-threaded CPython: exit $? at t=${SECONDS}s"
    timeout 60 "$ftbin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary pop 2>&1 | tee -a "$summary"
    kernel_file_run 120 "$ftbin" -k examples/python-race/kernel.py -b py-free-threaded -t 1,2,4,16 \
      --size 20000 -r 5
    say "python-race on the free-threaded CPython: exit $? at t=${SECONDS}s (1: a result differed between repetitions)"
    timeout 60 "$ftbin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary table 2>&1 | tee -a "$summary"
    ;;
  stream-memory)
    # The CPU STREAM set at 2^27 doubles beside BabelStream's omp-stream: the
    # stream-memory suite (2 rounds), each record's share of the roof measured again at the end.
    ensure_build parlab
    ensure_babelstream
    run_suite stream-memory 480
    summarize_suite stream-memory
    timeout 60 "$bin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary table 2>&1 | tee -a "$summary"
    ;;
  pop-jobs)
    # Where the speedup went beyond one process's executors: an MPI job's workers are
    # every rank's threads (mpi+pool, pi 2^30 and triad 2^27 doubles at 1..16 ranks of 1 thread,
    # beside serial), and the Python thread backends' are their threads (pi 2^28 with the GIL held
    # and released and the parlab thread pool, beside serial; pure-Python threads at 2^18, where
    # the speedup's reference is their own 1 thread). Each run's `parlab report --summary pop`.
    # CUDA is not needed: PARLAB_DEVICE_CMAKE_ARGS=-DPARLAB_ENABLE_CUDA=OFF builds faster.
    ensure_build parlab
    latest() { ls -td "$work"/results/*/*/ | head -1; }
    if "$bin" list 2>/dev/null | grep -E '^ +mpi\+pool +mpi +available' >/dev/null; then
      step "mpi+pool over ranks ($(command -v mpirun))"
      timeout 150 "$bin" run --ranks 1,2,4,8,16 -k pi -b serial,mpi+pool -t 1 -n 2^30 -r 5 --out "$work/results" -q \
        --no-report
      say "ranks pi: exit $? at t=${SECONDS}s"
      timeout 60 "$bin" report "$(latest)" --summary pop 2>&1 | tee -a "$summary"
      timeout 150 "$bin" run --ranks 1,2,4,8,16 -k triad -p double -b serial,mpi+pool -t 1 -n 2^27 -r 5 \
        --out "$work/results" -q --no-report
      say "ranks triad: exit $? at t=${SECONDS}s"
      timeout 60 "$bin" report "$(latest)" --summary pop 2>&1 | tee -a "$summary"
    else
      say "no mpi+pool in $bin: the MPI runs are left out"
    fi
    step "Python threads"
    timeout 150 "$bin" run -k pi -b serial,py-parlab-gil-held,py-parlab-gil-released,py-thread-pool-parlab \
      -t 1,2,4,8,16 -n 2^28 -r 5 --out "$work/results" -q --no-report
    say "python threads pi: exit $? at t=${SECONDS}s"
    timeout 60 "$bin" report "$(latest)" --summary pop 2>&1 | tee -a "$summary"
    timeout 150 "$bin" run -k pi -b py-pure-threads -t 1,2,4,8,16 -n 2^18 -r 5 --out "$work/results" -q --no-report
    say "pure-Python threads pi: exit $? at t=${SECONDS}s"
    timeout 60 "$bin" report "$(latest)" --summary pop 2>&1 | tee -a "$summary"
    ;;
  roofs)
    # Bandwidth roofs that hold: copy and triad at 2^27 doubles (3 GiB, memory-resident)
    # on openmp, openmp-static, pool and tbb at all threads, 5 rounds, the run measuring its
    # bandwidth roofs again at its end; each record's share of the highest roof with its interval.
    ensure_build parlab
    timeout 420 "$bin" run -k copy,triad -b openmp,openmp-static,pool,tbb -t "$jobs" -n 2^27 -p double -r 20 --rounds 5 \
      --out "$work/results" -q --no-report
    say "roofs run: exit $? at t=${SECONDS}s"
    timeout 60 "$bin" report "$(ls -td "$work"/results/*/*/ | head -1)" --summary table 2>&1 | tee -a "$summary"
    ;;
  likwid-cpu)
    # Why likwid-bench's non-temporal copy and triad read faster than parlab's at 16 threads:
    # (1) likwid-bench's clock, by wall time: its reported Time against the wall time of two runs of
    # different iteration counts (the difference cancels start-up and first touch); (2) its rate
    # at the suite's working set; (3) parlab's copy and triad at the same sizes with
    # 16-byte (sse2) and 64-byte (avx512) streaming stores, pool and openmp (PARLAB_STREAM_ISA).
    ensure_build parlab
    say "CPU: $(lscpu | grep -E '^(Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|L3 cache):' | tr -s ' ' | paste -sd';')"
    lb=${PARLAB_LIKWID_BENCH:?no likwid-bench in the bundle}
    export PATH="$(dirname "$lb")/../sbin:$PATH"
    lrun() {  # lrun TEST BYTES [ITERS]: one likwid-bench run; prints wall seconds and its figures
      local t0 t1
      t0=$(date +%s.%N)
      "$lb" -t "$1" -W "N:${2}B:$jobs" ${3:+-i "$3"} >"$work/likwid-$1-$2-${3:-auto}.txt" 2>&1
      t1=$(date +%s.%N)
      printf '  %-20s %12s B iters %-5s wall %7.3f s; %s\n' "$1" "$2" "${3:-auto}" "$(awk "BEGIN { print $t1 - $t0 }")" \
        "$(grep -E '^(Time|MByte/s|Cycle Clock|CPU Clock|Iterations per thread):' "$work/likwid-$1-$2-${3:-auto}.txt" | tr -s '\t ' ' ' | paste -sd';')" \
        | tee -a "$summary"
    }
    step "likwid-bench: its clock against wall time, copy_mem_avx512 at 2^25 doubles per array"
    lrun copy_mem_avx512 $((2 * 8 << 25)) 20
    lrun copy_mem_avx512 $((2 * 8 << 25)) 220
    # Only the suite's working set: likwid-bench 5.2 reads a size in bytes as a 32-bit number
    # ("Stream size cannot be read" from 2 GiB up), and a power of two is no whole kB or MB.
    step "likwid-bench: the suite's working set"
    lrun copy_mem_avx512 $((2 * 8 << 25))
    lrun stream_mem_avx512 $((3 * 8 << 25))
    step "parlab: copy and triad, 16- and 64-byte streaming stores, 2^25 and 2^27"
    for isa in sse2 avx512; do
      PARLAB_STREAM_ISA=$isa timeout 200 "$bin" run -k copy,triad -b pool,openmp -t "$jobs" -n 2^25,2^27 -r 30 \
        --out "$work/isa-$isa" -q --no-report --no-ceilings >"$work/isa-$isa.log" 2>&1
      say "parlab PARLAB_STREAM_ISA=$isa: exit $?"
      python3 - "$work/isa-$isa" <<'PY' | tee -a "$summary"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/*/results.json"):
    for r in json.load(open(f))["records"]:
        if r.get("status") == "ok":
            b = r["work"]["bytes"]
            print(f"  {r['backend']:8s} {r['kernel']:6s} n={r['size']:>10d} median {b / r['time_s']['median']:.4g} B/s "
                  f"best {b / min(r['reps_s']):.4g} B/s")
PY
    done
    ;;
  energy-cpu)
    # The CPU's energy where the node tells it: its power PMU (no powercap on the node), read as
    # root; pi and triad on openmp at all cores and serial at one, beside the GPU's.
    ensure_build parlab
    say "power PMU: $(ls /sys/bus/event_source/devices/power/events 2>&1 | paste -sd' '); perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
    timeout 200 "$bin" run -k pi,triad -b serial,openmp,cuda -t "1,$jobs" -r 5 --out "$work/results" -q --no-report \
      >"$work/energy-cpu.log" 2>&1
    say "run: exit $?"
    python3 - "$work/results" <<'PY' | tee -a "$summary"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/*/results.json"):
    d = json.load(open(f))
    print("  context.energy:", json.dumps(d["context"]["energy"]))
    for r in d["records"]:
        m = {k: v for k, v in r.get("metrics", {}).items() if k.startswith(("j_", "energy"))}
        print(f"  {r['backend']:7s} {r['kernel']:6s} t={r['threads']:<3d} {r['status']:4s} {json.dumps(m)} {r.get('energy', '')}")
PY
    ;;
  gpu)
    step "GPU acceptance"
    OUT="$work/gpu" bash tools/node/gpu/device-run.sh
    say "device-run.sh: exit $?"
    grep -E "RESULT|FAILED|tests passed|ERROR SUMMARY|RACECHECK SUMMARY" "$work/gpu/device-run.log" | tee -a "$summary"
    ;;
  multi)
    build=build/h200
    step "configure + build the GPU bench"
    cmake --preset h200 -DCMAKE_PREFIX_PATH="$prefix" -DPARLAB_ENABLE_PYTHON=OFF >"$work/configure.log" 2>&1 || exit 1
    cmake --build "$build" --parallel "$jobs" --target parlab >"$work/build.log" 2>&1 \
      || { grep error -A3 "$work/build.log" | head -30; exit 1; }
    nvidia-smi -L | tee -a "$summary"
    bin="$build/experiments/parlab"
    # cuda on one GPU, cuda-multi / cuda-multi-seq on every visible one: the suite scales to
    # however many GPUs the machine has, and each record's metric "devices" says how many.
    run_suite multi-gpu 400
    ;;
  ft|ft-races)
    # ft: the builds (about 50 s for CPython, 1-2 min for the two parlabs on 16 cores) and the gil
    # suite (about 220 s at 3 repetitions over the three interpreter modes on the node; now two
    # rounds of 2, with the setups twice); ft-races: the races suite
    # at 3 repetitions (about 200 s; at the suite's 10, the free-threaded py_count_* kernels alone
    # outran a 100 s timeout). Both inside one 10-minute call each.
    if [ "$part" = ft ]; then ensure_ft test; else ensure_ft; fi
    ensure_build parlab
    "$bin" list | sed -n '/^interpreters/,/^kernels/p' | tee -a "$summary"
    if [ "$part" = ft ]; then
      run_suite gil 450
      summarize_suite gil
    else
      run_suite races 330 --reps 3
      summarize_suite races
    fi
    ;;
  pymodels)
    ensure_build parlab
    setup_dask
    # Whether the embedded interpreter can use Dask; if not, the py-dask-* records are
    # "unavailable" with the reason and the other models still run.
    for backend in py-dask-delayed py-dask-distributed; do
      if timeout 120 "$bin" pi --backend "$backend" --threads 2 --samples 4097 >"$work/$backend-probe.log" 2>&1; then
        say "$backend: works at 2 workers"
      else
        say "$backend: not usable here ($(tail -1 "$work/$backend-probe.log"))"
      fi
    done
    "$bin" list | grep -E "py-(thread-pool|processes|dask)" | tee -a "$summary"
    # Workers 1, 2 and all cores (the suite's "1,2,max"), 3 repetitions instead of the suite's 5:
    # without Dask the suite took 214 s on the node; dask.delayed adds about a thread pool's time
    # and dask.distributed a process pool's plus a cluster start per point (18 of them), about
    # 390 s in all at 5 repetitions, about 290 s at 3.
    run_suite python-models 420 --reps 3
    summarize_suite python-models
    run_suite convergence 90
    ;;
  mpi|mpi-suite)
    # MPI from its own build: CUDA and MPI ON, Python OFF. The node image has Open
    # MPI's runtime (/usr/bin/mpirun); without its headers, the carried libopenmpi-dev (unpacked
    # into $prefix from .deb/) is used through PARLAB_MPI_PREFIX.
    build=build/h200-mpi cuda=ON
    bin="$build/experiments/parlab"
    mpi_args=()
    if [ ! -e /usr/include/mpi.h ] && [ ! -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ]; then
      mpi_args+=("-DPARLAB_MPI_PREFIX=$prefix")
      say "no system mpi.h: using the carried headers under $prefix"
    fi
    say "launcher: $(command -v mpirun) ($(mpirun --version 2>&1 | head -1))"
    if [ ! -f "$build/build.ninja" ]; then
      step "configure (Release, sm_90, MPI ON, CUDA $cuda)"
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DPARLAB_ENABLE_MPI=ON -DPARLAB_ENABLE_CUDA=$cuda -DPARLAB_ENABLE_PYTHON=OFF -DPARLAB_BUILD_BENCHMARKS=OFF \
        -DCMAKE_PREFIX_PATH="$prefix" "${mpi_args[@]}" >"$work/configure.log" 2>&1 \
        || { tail -40 "$work/configure.log"; say "configure failed"; exit 1; }
      grep -E "MPI|CUDA|backend" "$work/configure.log" | tee -a "$summary"
    fi
    step "build"
    targets=(parlab parlab_mpi_tests mpi_rank_throws)
    cmake --build "$build" --parallel "$jobs" --target "${targets[@]}" >"$work/build.log" 2>&1 \
      || { grep -E "error|FAILED" -A5 "$work/build.log" | head -60; say "build failed"; exit 1; }
    "$bin" list | grep -E "^  mpi" | tee -a "$summary"
    if [ "$part" = mpi ]; then
      step "MPI tests (1-4 ranks, a rank that throws)"
      timeout 300 ctest --test-dir "$build" -R mpi --timeout 120 >"$work/ctest-mpi.log" 2>&1
      say "ctest mpi: $(grep -E 'tests passed|tests failed' "$work/ctest-mpi.log")"
      nvidia-smi -L | tee -a "$summary"
      if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
        # One GPU in this process against one rank per GPU at 1 and 2 ranks, in one run: the
        # issue asks pi >= 1.95x and triad >= 1.9x one GPU at 2 ranks, pi canonical.
        step "mpi+cuda against cuda"
        timeout 240 "$bin" run --ranks 1,2 -k pi -b cuda,mpi+cuda -n 2^36 --out "$work/results" -q --no-report
        say "mpi+cuda pi: exit $? at t=${SECONDS}s"
        timeout 240 "$bin" run --ranks 1,2 -k triad -b cuda,mpi+cuda -n 2^28 --precision double --out "$work/results" \
          -q --no-report
        say "mpi+cuda triad: exit $? at t=${SECONDS}s"
      else
        say "fewer than 2 GPUs: mpi+cuda at 2 ranks needs nvidia-h200-x2"
      fi
    else
      # The distributed suite on the node's cores: ranks x threads, probes, mixed mode.
      run_suite distributed 540
    fi
    ;;
  *)
    echo "device-study.sh: unknown part '$part' (accepted: study1, study2, study3, rerun, tests, ceilings, stream-peers, stream-cpu, pop, pop-jobs, stream-memory, roofs, likwid-cpu, energy-cpu, gpu, multi, ft, ft-races, pymodels, distributed, mpi, mpi-suite; retired parts: see the header)" >&2
    exit 2
    ;;
esac
