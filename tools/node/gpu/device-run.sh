#!/usr/bin/env bash
# The GPU acceptance run, on the GPU node itself (Ubuntu 24.04, g++ 13, CMake 4, CUDA 13, an
# H100/H200; offline). From the repository root, with the Debian packages of oneTBB, CLI11 and
# nlohmann-json in .deb/ (scripts/offline-bundle.sh makes them):
#
#   OUT=/path/to/logs bash tools/node/gpu/device-run.sh
#
# Steps, logged under $OUT (default build/device-run): device-run.log (this console), build.log,
# ctest.log, gpu-tests.xml, results/ (the libraries and multi-gpu suites' result directories),
# memcheck.log, racecheck.log, extras.tar.gz (SASS,
# register use, `parlab list`, CLI outputs):
#   1. the machine (nvidia-smi, nvcc, cmake, g++);
#   2. unpack .deb/ with scripts/offline-unpack.sh, configure the h200 preset (sm_90,
#      warnings as errors), build the GPU tests and the CLI;
#   3. ctest -R '^Gpu' (every GPU test), JUnit XML in $OUT/gpu-tests.xml;
#   4. `parlab run libraries` (pi and triad against CuPy and PyTorch in the same run) and, on 2+
#      GPUs, `parlab run multi-gpu` -> $OUT/results/<host>/<run>/results.json;
#   5. compute-sanitizer memcheck (with leak check) and racecheck on parlab_gpu_tests.
# Exit status: 0 when every step passed, 1 when a build, test, suite or sanitizer step failed.
# About 5 minutes on an H200.
#
# Environment: PARLAB_DEB_DIR            where the .deb files are (default .deb)
#              PARLAB_DEVICE_CMAKE_ARGS  extra configure arguments (e.g. -DPARLAB_ENABLE_PYTHON=OFF)
#              PARLAB_DEVICE_QUICK=1     skip the suites' long runs (tests and sanitizers only)
set -uo pipefail
cd "$(dirname "$0")/../../.."  # the repository root
OUT=${OUT:-$PWD/build/device-run}
mkdir -p "$OUT"
exec > >(tee "$OUT/device-run.log") 2>&1

status=0
step() { printf '\n=== %s  [t=%ss]\n' "$*" "$SECONDS"; }
failed() { echo "FAILED: $*"; status=1; }
jobs=$(nproc)
build=build/h200

step "machine"
nvidia-smi || failed "nvidia-smi"
nvcc --version | tail -2
cmake --version | head -1
g++ --version | head -1
python3 --version

deb_dir=${PARLAB_DEB_DIR:-.deb}
step "dependencies ($deb_dir -> build/offline-deps)"
prefix=$(bash scripts/offline-unpack.sh "$deb_dir" build/offline-deps) || { failed "offline-unpack.sh"; exit 1; }
[ -n "$prefix" ] || prefix=$PWD/build/offline-deps/usr
echo "CMAKE_PREFIX_PATH=$prefix"

step "configure (preset h200)"
# shellcheck disable=SC2086  # the extra arguments are meant to split
cmake --preset h200 -DPARLAB_WERROR=ON -DCMAKE_PREFIX_PATH="$prefix" ${PARLAB_DEVICE_CMAKE_ARGS:-} \
  >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; failed "configure"; exit 1; }
grep -E "CUDA backend|build type|warnings as errors" "$OUT/build.log"

step "build"
cmake --build "$build" --parallel "$jobs" --target parlab_gpu_tests parlab planted_race_cuda \
  >>"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -80; failed "build"; exit 1; }
echo "built: $(ls "$build"/tests/gpu/parlab_gpu_tests "$build"/experiments/parlab)"
# Secondary outputs go to $OUT/extras, packed into one archive at the end.
mkdir -p "$OUT/extras"
# The kernels' machine code and register use, for reading the hot loops.
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$build/gpu/libparlab_gpu.a" >"$OUT/extras/parlab_gpu.sass" 2>&1 || true
  cuobjdump -res-usage "$build/gpu/libparlab_gpu.a" >"$OUT/extras/parlab_gpu.res-usage" 2>&1 || true
fi
"$build/experiments/parlab" list | tee "$OUT/extras/parlab-list.txt" | grep -E "^  cuda"

step "GPU tests (ctest -R ^Gpu)"
ctest --test-dir "$build" -R '^Gpu' --output-on-failure --timeout 600 --output-junit "$OUT/gpu-tests.xml" \
  >"$OUT/ctest.log" 2>&1 || failed "GPU tests"
tail -15 "$OUT/ctest.log"

step "CLI pi on the GPU, checked against the CPU"
"$build/experiments/parlab" pi --backend cuda --samples 1073741825 --seed 7 --json | tee "$OUT/extras/cli-pi-cuda.json"
"$build/experiments/parlab" pi --backend threads --threads "$jobs" --samples 1073741825 --seed 7 --json \
  | tee "$OUT/extras/cli-pi-threads.json"
python3 - "$OUT/extras/cli-pi-cuda.json" "$OUT/extras/cli-pi-threads.json" <<'EOF' || failed "CLI pi hits differ between cuda and threads"
import json, sys
gpu, cpu = (json.load(open(p)) for p in sys.argv[1:3])
print("cuda hits", gpu["hits"], "threads hits", cpu["hits"])
sys.exit(0 if gpu["hits"] == cpu["hits"] and gpu["pass"] else 1)
EOF

if [ "${PARLAB_DEVICE_QUICK:-0}" != 1 ]; then
  step "libraries: PyTorch and CuPy beside parlab, same run (the runner's libraries suite)"
  "$build/experiments/parlab" run libraries --out "$OUT/results" --no-report -q || failed "parlab run libraries"
  if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
    step "all GPUs against one (the runner's multi-gpu suite)"
    "$build/experiments/parlab" run multi-gpu --out "$OUT/results" --no-report -q || failed "parlab run multi-gpu"
  fi
  # The headline rates of every run, from the result files (plot.py makes the figures later).
  python3 - "$OUT/results" <<'EOF'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*/*/results.json")):
    doc = json.load(open(path))
    for r in doc["records"]:
        if r["status"] == "ok":
            rate = r.get("rate", {})
            v = rate.get("samples_per_s") or rate.get("bytes_per_s")
            print(f"{doc['suite']:10} {r['kernel']:6} {r['backend']:16} t={r['threads']:<3} N={r['size']:<12} {v:.4g} "
                  f"{r.get('validation', {}).get('detail', '')[:60]}")
        elif r["status"] != "unavailable":
            print(f"{doc['suite']:10} {r['kernel']:6} {r['backend']:16} {r['status']}: {r.get('reason', '')}")
EOF
fi

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
tests="$build/tests/gpu/parlab_gpu_tests"
summary='ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|\[  (PASSED|FAILED|SKIPPED) |\[       OK \]'
# memcheck: every test but the whole-stream 2^33 comparison (a CPU-bound minute under the
# sanitizer that adds no device code path). The out-of-memory test provokes API errors on
# purpose, so it runs on its own with API-error reports off; its kernels are still checked.
step "compute-sanitizer memcheck"
timeout 600 "$sanitizer" --tool memcheck --leak-check full --error-exitcode 1 "$tests" \
  --gtest_filter='-GpuPi.HitCountEqualsCpuBeyond2To33:GpuErrors.HugeAllocation*' >"$OUT/memcheck.log" 2>&1 \
  || failed "memcheck"
timeout 300 "$sanitizer" --tool memcheck --report-api-errors no --leak-check full --error-exitcode 1 "$tests" \
  --gtest_filter='GpuErrors.HugeAllocation*' >>"$OUT/memcheck.log" 2>&1 || failed "memcheck (out-of-memory test)"
grep -E "$summary" "$OUT/memcheck.log" | grep -v "OK \]" | head -20

# racecheck: the kernels that share memory between threads (pi's block sum, dot's pairwise
# tree, the tiled matmul, the norm), each on small inputs: racecheck is slow.
step "compute-sanitizer racecheck"
timeout 600 "$sanitizer" --tool racecheck --error-exitcode 1 "$tests" \
  --gtest_filter='GpuPi.PairIndices*:GpuStream.DotBitsEqualCpuFloat:GpuBasicKernels.TiledMatmulIsBitIdentical*:GpuPractices.LoggingShortRunsAgree' \
  >"$OUT/racecheck.log" 2>&1 || failed "racecheck"
grep -E "$summary" "$OUT/racecheck.log" | head -20

step "compute-sanitizer racecheck positive control (a planted shared-memory race must be reported)"
bash tools/node/gpu/racecheck-control.sh "$build/tests/gpu/planted_race_cuda" "$OUT/racecheck-control.log" \
  || failed "racecheck did not report the planted race"

step "done"
tar -czf "$OUT/extras.tar.gz" -C "$OUT" extras && rm -rf "$OUT/extras"
if [ $status -ne 0 ]; then
  echo "RESULT: FAILED (see the FAILED lines above and the logs in $OUT)"
  exit 1
fi
echo "RESULT: all passed"
