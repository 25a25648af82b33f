#!/usr/bin/env bash
# The reference study on a GPU node (16 cores + H200, offline, Python 3.12 with NumPy, Numba,
# CuPy and PyTorch in a virtual environment): every suite from one build of one commit, in
# parts that each fit one call of at most 10 minutes. Run from the repository root with the
# Debian packages in .deb/ (scripts/offline-bundle.sh .deb --with-test-libs):
#
#   OUT=DIR VIRTUAL_ENV=VENV PARLAB_SOURCE_COMMIT=SHA scripts/device-study.sh PART
#
#   study1  build (CPU, CUDA, embedded Python), the racecheck positive control, the whole test
#           suite, then the gil and peers suites
#   study2  gpu, overhead, races and seed-examples suites + the overhead micro-benchmarks
#   study3  scaling and bandwidth suites
#   rerun SUITE...  the named suites again (after a fix; the results say which commit)
#   pi-probe  one core's pi rate per SIMD path (Google Benchmark) and each CPU backend on one
#           thread over sizes, to explain per-core pi rates
#   gpu     the GPU acceptance run (gpu/scripts/device-run.sh)
#   multi   the multi-GPU comparison (run on 2+ GPUs)
#   pymodels  Python's ways around the GIL (threads, a thread pool, processes, dask.delayed,
#           dask.distributed, parlab.pi) at 1, 2 and all cores' workers, and pi's convergence figure; Dask
#           comes from VIRTUAL_ENV when installed there, else its records say unavailable
#   mpi     MPI (issue 15): build with MPI and CUDA, the MPI tests, and on 2+ GPUs mpi+cuda at 1 and
#           2 ranks against one GPU (pi 2^36, triad 2^28 double) in one run each
#   mpi-suite  the distributed suite (ranks x threads on the node's cores, probes, mixed mode)
#   mpi-probe  why ranks fall behind threads on pi (issue 15): tbb and pool at all cores against
#           mpi+serial over ranks, unbound and bound to cores (each rank's own counting time in
#           the records' metrics), and as many independent single-thread processes without MPI
#   ft-probe  why pure-Python threads fall short of the cores on 3.13t (issue 11):
#           scripts/ft-scaling-probe.py on 3.13t (no GIL, then PYTHON_GIL=1) and on the node's Python
#   ft      free-threaded CPython: builds 3.13t on the node (scripts/build-python-ft.sh) from the
#           carried upstream tarball, a parlab against it (build/release-ft), then the gil and
#           races suites measuring the node's Python 3.12 and 3.13t (PYTHON_GIL=1 and no GIL) in
#           one run each. Carry build/deps/src (python3.13_3.13.*.orig.tar.xz, made here by
#           `scripts/build-python-ft.sh --source-only`), or point PARLAB_PYTHON_FT_SRC at it.
#
# The study parts share the build in build/h200-study (rebuilt only when out of date, so a
# later part on the same machine starts at once). VIRTUAL_ENV makes the peers importable by
# the embedded interpreter; PARLAB_SOURCE_COMMIT records the commit in each result's context
# where the copied tree has no .git. Everything lands in DIR as two files (the device tool
# returns at most 8): study.tgz (logs and result directories) and summary.txt. Unpack locally
# with `tar xzf study.tgz`; the result directories are under results/<host>/.
set -uo pipefail
cd "$(dirname "$0")/.."
part=${1:?usage: device-study.sh study1|study2|study3|rerun SUITE...|pi-probe|gpu|multi|ft|ft-probe|pymodels|mpi|mpi-suite|mpi-probe}
shift
final=${OUT:-$PWD/build/device-study}
mkdir -p "$final"
work=$(mktemp -d)
summary="$final/summary.txt"
: >"$summary"
exec > >(tee "$work/study.log") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
jobs=$(nproc)
say() { printf '%s\n' "$*" | tee -a "$summary"; }
step() { printf '\n=== %s  [t=%ss]\n' "$*" "$SECONDS"; }
pack() { tar czf "$final/study.tgz" -C "$work" . && say "packed $(du -h "$final/study.tgz" | cut -f1) at t=${SECONDS}s"; }
trap pack EXIT

prefix=$(bash scripts/offline-unpack.sh "${PARLAB_DEB_DIR:-.deb}" build/offline-deps) || exit 1
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
say "part $part; machine: $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(python3 --version 2>&1)"
say "commit ${PARLAB_SOURCE_COMMIT:-(not declared)}; VIRTUAL_ENV=${VIRTUAL_ENV:-(unset)}"

build=build/h200-study
bin="$build/experiments/parlab"

# Configures once (every part explicitly ON, so a missing one fails here and not as a silent
# "unavailable" in the results) and builds whatever is out of date.
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
  step "build"
  cmake --build "$build" --parallel "$jobs" >"$work/build.log" 2>&1 \
    || { grep -E "error|FAILED" -A5 "$work/build.log" | head -60; say "build failed"; exit 1; }
  say "built at t=${SECONDS}s"
}

run_suite() {  # run_suite NAME SECONDS [args...]
  local name=$1 limit=$2
  shift 2
  step "suite $name"
  timeout "$limit" "$bin" run "$name" --out "$work/results" -q --no-report "$@"
  say "suite $name: exit $? at t=${SECONDS}s"
}

case "$part" in
  study1)
    ensure_build
    "$bin" list | tee "$work/list.txt"
    nvidia-smi -L | tee -a "$summary"
    step "compute-sanitizer racecheck positive control (the planted race must be reported)"
    bash gpu/scripts/racecheck-control.sh "$build/tests/gpu/planted_race_cuda" "$work/racecheck-control.log" \
      | tee -a "$summary"
    step "tests (all of them, 16 cores)"
    timeout 300 ctest --test-dir "$build" --parallel 8 --timeout 240 --output-on-failure >"$work/ctest.log" 2>&1
    say "ctest: $(grep -E 'tests passed|tests failed' "$work/ctest.log")"
    grep -E "^\s+[0-9]+ - |\*\*\*Failed|Timeout" "$work/ctest.log" | head -20
    run_suite gil 150
    run_suite peers 150
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
  pi-probe)
    ensure_build
    step "pi kernel per SIMD path, one core"
    timeout 120 "$build/bench/parlab_bench" --benchmark_filter='pi_kernel/' --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true >"$work/bench_pi.txt" 2>&1
    grep -E "_median" "$work/bench_pi.txt" | tee -a "$summary"
    step "pi on one thread per CPU backend and size"
    timeout 120 "$bin" run -k pi -b serial,threads,pool,tbb,openmp -t 1 -n 2^25,2^27,2^28 -r 5 \
      --out "$work/results" --no-report >"$work/pi-probe.txt" 2>&1
    say "pi probe: exit $?"
    ;;
  gpu)
    step "GPU acceptance"
    OUT="$work/gpu" bash gpu/scripts/device-run.sh
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
  ft)
    step "free-threaded CPython 3.13t from the carried source (no network)"
    PARLAB_PYTHON_FT_SRC=${PARLAB_PYTHON_FT_SRC:-build/deps/src} PARLAB_JOBS=$jobs \
      bash scripts/build-python-ft.sh >"$work/python-ft.log" 2>&1 \
      || { tail -40 "$work/python-ft.log"; say "3.13t build failed"; exit 1; }
    say "3.13t: $(tail -1 "$work/python-ft.log") at t=${SECONDS}s"
    step "parlab against 3.13t (build/release-ft: CPU and Python parts)"
    cmake --preset release-ft -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure-ft.log" 2>&1 \
      || { tail -40 "$work/configure-ft.log"; say "configure release-ft failed"; exit 1; }
    cmake --build build/release-ft --parallel "$jobs" --target parlab parlab_embed_tests >"$work/build-ft.log" 2>&1 \
      || { grep -E "error|FAILED" -A5 "$work/build-ft.log" | head -40; say "build release-ft failed"; exit 1; }
    timeout 240 ctest --test-dir build/release-ft --parallel 8 --timeout 120 -L embed >"$work/ctest-ft.log" 2>&1
    say "ctest 3.13t (embedded Python): $(grep -E 'tests passed|tests failed' "$work/ctest-ft.log")"
    ensure_build
    export PARLAB_INTERPRETERS=$PWD/build/release-ft/experiments/parlab
    "$bin" list | sed -n '/^interpreters/,/^kernels/p' | tee -a "$summary"
    # Limits that keep the whole part inside one 10-minute call after the three builds.
    run_suite gil 270
    run_suite races 100 --backend py-threads-race
    ;;
  pymodels)
    ensure_build
    # Whether the embedded interpreter can import Dask (from VIRTUAL_ENV); if not, the py-dask-*
    # records are "unavailable" with the reason and the other models still run.
    if "$bin" pi --backend py-dask-delayed --threads 2 --samples 4097 >"$work/dask-probe.log" 2>&1; then
      say "Dask: importable"
    else
      say "Dask: not importable here ($(tail -1 "$work/dask-probe.log"))"
    fi
    "$bin" list | grep -E "py-(thread-pool|processes|dask)" | tee -a "$summary"
    run_suite python-models 480  # workers 1, 2 and all cores (the suite's "1,2,max")
    run_suite convergence 90
    ;;
  ft-probe)
    step "free-threaded CPython 3.13t from the carried source (no network)"
    PARLAB_PYTHON_FT_SRC=${PARLAB_PYTHON_FT_SRC:-build/deps/src} PARLAB_JOBS=$jobs \
      bash scripts/build-python-ft.sh >"$work/python-ft.log" 2>&1 \
      || { tail -40 "$work/python-ft.log"; say "3.13t build failed"; exit 1; }
    ft=$(tail -1 "$work/python-ft.log")/bin/python3.13t
    say "3.13t: $ft at t=${SECONDS}s"
    step "scaling probe: 3.13t, no GIL"
    PYTHON_GIL=0 timeout 200 "$ft" scripts/ft-scaling-probe.py --json "$work/ft-probe-nogil.json" | tee -a "$summary"
    step "scaling probe: 3.13t, no GIL, private modules at 2^21 samples (fixed costs per run amortised)"
    PYTHON_GIL=0 timeout 90 "$ft" scripts/ft-scaling-probe.py --only threads-private --samples 2^21 --reps 1 \
      --json "$work/ft-probe-nogil-2e21.json" | tee -a "$summary"
    ;;
  mpi|mpi-suite|mpi-probe)
    # MPI (issue 15) from its own build: CUDA and MPI ON, Python OFF. The node image has Open
    # MPI's runtime (/usr/bin/mpirun); without its headers, the carried libopenmpi-dev (unpacked
    # into $prefix from .deb/) is used through PARLAB_MPI_PREFIX.
    build=build/h200-mpi cuda=ON
    [ "$part" = mpi-probe ] && build=build/h200-mpi-cpu cuda=OFF  # the probe runs on the CPUs only
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
    [ "$part" = mpi-probe ] && targets=(parlab)
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
    elif [ "$part" = mpi-probe ]; then
      step "pi 2^30: one process (tbb, pool) against ranks (mpi+serial), unbound, in one run"
      timeout 120 "$bin" run --ranks "1,4,8,$jobs" -k pi -b tbb,pool,mpi+serial -t "1,$jobs" -n 2^30 -r 5 \
        --out "$work/results" -q --no-report
      step "the same with every rank bound to a core of its own (--bind-to core --map-by core)"
      PARLAB_MPIRUN_ARGS="--bind-to core --map-by core" timeout 60 "$bin" run --ranks "4,8,$jobs" -k pi \
        -b tbb,mpi+serial -t "$jobs" -n 2^30 -r 5 --out "$work/results" -q --no-report
      step "pi 2^28 per process: one alone, then $jobs at once (no MPI)"
      timeout 60 "$bin" run -k pi -b serial -n 2^28 -r 5 --out "$work/indep/alone" -q --no-report
      pids=()
      for i in $(seq 1 "$jobs"); do
        timeout 120 "$bin" run -k pi -b serial -n 2^28 -r 5 --out "$work/indep/p$i" -q --no-report &
        pids+=($!)
      done
      wait "${pids[@]}"  # these only: a bare `wait` also waits for the log's tee, which never ends
      python3 - "$work" <<'PY' | tee -a "$summary"
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/results/*/*/results.json")):
    d = json.load(open(f))
    launch = [w for w in d["context"].get("warnings", []) if "launched as" in w]
    print(launch[0] if launch else "one process")
    for r in d["records"]:
        m = r.get("metrics", {})
        print(f"  {r['backend']:11s} ranks {r.get('ranks', 1):3d} threads {r['threads']:3d} median {r['time_s']['median']:.4f} s"
              + (f"  rank count max {m['rank_count_max_s']:.4f} min {m['rank_count_min_s']:.4f} s" if "rank_count_max_s" in m else "")
              + (f"  binding {r['binding'][:120]}" if r.get("binding") else ""))
times = []
for f in sorted(glob.glob(sys.argv[1] + "/indep/*/*/*/results.json")):
    d = json.load(open(f))
    times.append((f.split("/indep/")[1].split("/")[0], d["records"][0]["time_s"]["median"]))
alone = [t for n, t in times if n == "alone"]
others = sorted(t for n, t in times if n != "alone")
if alone and others:
    print(f"independent serial pi 2^28: alone {alone[0]:.4f} s; {len(others)} at once: median {others[len(others)//2]:.4f} s, "
          f"slowest {others[-1]:.4f} s")
PY
    else
      # The distributed suite on the node's cores: ranks x threads, probes, mixed mode.
      run_suite distributed 540
    fi
    ;;
  *)
    echo "device-study.sh: unknown part '$part' (accepted: study1, study2, study3, rerun, pi-probe, gpu, multi, ft, ft-probe, pymodels, mpi, mpi-suite, mpi-probe)" >&2
    exit 2
    ;;
esac
