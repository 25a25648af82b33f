#!/usr/bin/env bash
# The reference study on a GPU node (16 cores + H200, offline), in parts that each fit one
# call of at most 10 minutes. Run from the repository root with the Debian packages in .deb/
# (scripts/offline-bundle.sh .deb --with-test-libs):
#
#   OUT=DIR scripts/device-study.sh cpu     16-core CPU suites: scaling, overhead, races, gil,
#                                           seed-examples, bandwidth + overhead micro-benchmarks
#                                           + the non-GPU test suite
#   OUT=DIR scripts/device-study.sh gpu     GPU acceptance (gpu/scripts/device-run.sh) + gpu suite
#   OUT=DIR scripts/device-study.sh multi   the multi-GPU comparison (run on 2+ GPUs)
#
# Everything lands in DIR as few files (the device tool returns at most 8): study.tgz (logs and
# result directories) and summary.txt. Unpack locally with `tar xzf study.tgz`.
set -uo pipefail
cd "$(dirname "$0")/.."
part=${1:?usage: device-study.sh cpu|gpu|multi}
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
say "machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(python3 --version 2>&1)"

run_suite() {  # run_suite NAME SECONDS [args...]
  local name=$1 limit=$2
  shift 2
  step "suite $name"
  timeout "$limit" "$bin" run "$name" --out "$work/results" -q --no-report "$@"
  say "suite $name: exit $? at t=${SECONDS}s"
}

case "$part" in
  cpu)
    build=build/device-cpu
    step "configure + build (CPU and Python parts, no CUDA)"
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLAB_ENABLE_CUDA=OFF \
      -DCMAKE_PREFIX_PATH="$prefix" ${PARLAB_DEVICE_CMAKE_ARGS:-} >"$work/configure.log" 2>&1 \
      || { tail -30 "$work/configure.log"; exit 1; }
    grep -E "backend|Python|build type" "$work/configure.log"
    cmake --build "$build" --parallel "$jobs" >"$work/build.log" 2>&1 || { grep -E "error" -A3 "$work/build.log" | head -40; exit 1; }
    bin="$build/experiments/parlab"
    "$bin" list | tee "$work/list.txt"
    step "tests (16 cores)"
    ctest --test-dir "$build" --parallel 8 --timeout 300 >"$work/ctest.log" 2>&1
    say "ctest: $(grep -E 'tests passed|tests failed' "$work/ctest.log")"
    step "overhead micro-benchmarks"
    timeout 120 "$build/bench/parlab_bench_overhead" --benchmark_min_time=0.2 --benchmark_repetitions=5 \
      --benchmark_report_aggregates_only=true --benchmark_out="$work/bench_overhead.json" \
      --benchmark_out_format=json >"$work/bench_overhead.txt" 2>&1
    grep -E "_median" "$work/bench_overhead.txt" | grep -E "threads:16" | tee -a "$summary"
    run_suite scaling 200
    run_suite overhead 60
    run_suite races 60
    if [ -f experiments/suites/gil.json ]; then run_suite gil 150; fi
    run_suite seed-examples 60
    run_suite bandwidth 90 --threads 1,16
    ;;
  gpu)
    step "GPU acceptance"
    OUT="$work/gpu" bash gpu/scripts/device-run.sh
    say "device-run.sh: exit $?"
    grep -E "RESULT|FAILED|tests passed|ERROR SUMMARY|RACECHECK SUMMARY" "$work/gpu/device-run.log" | tee -a "$summary"
    bin=build/h200/experiments/parlab
    if [ -f experiments/suites/gpu.json ] && [ -x "$bin" ]; then run_suite gpu 150; fi
    ;;
  multi)
    build=build/h200
    step "configure + build the GPU bench"
    cmake --preset h200 -DCMAKE_PREFIX_PATH="$prefix" -DPARLAB_ENABLE_PYTHON=OFF >"$work/configure.log" 2>&1 || exit 1
    cmake --build "$build" --parallel "$jobs" --target parlab parlab_gpu_bench >"$work/build.log" 2>&1 \
      || { grep error -A3 "$work/build.log" | head -30; exit 1; }
    nvidia-smi -L | tee -a "$summary"
    bin="$build/experiments/parlab"
    step "multi-GPU"
    if [ -f experiments/suites/multi-gpu.json ]; then run_suite multi-gpu 240; fi
    if [ -f gpu/scripts/peers.py ]; then
      timeout 240 python3 gpu/scripts/peers.py --bench "$build/gpu/parlab_gpu_bench" --only multi \
        --out "$work/multi.json" 2>&1 | tail -20 | tee -a "$summary"
    fi
    ;;
  *)
    echo "device-study.sh: unknown part '$part' (accepted: cpu, gpu, multi)" >&2
    exit 2
    ;;
esac
