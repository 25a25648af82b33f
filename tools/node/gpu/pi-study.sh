#!/usr/bin/env bash
# The GPU pi kernel's goals on a GPU node, in one call of at most 10 minutes: the GPU pi kernel's rate, its
# correctness, its machine code and its profile. Run from the repository root with the Debian
# packages in .deb/ (scripts/offline-bundle.sh) and the peers' virtual environment:
#
#   OUT=DIR VIRTUAL_ENV=/opt/torch/.venv PARLAB_SOURCE_COMMIT=SHA bash tools/node/gpu/pi-study.sh
#
# Steps (each with its own timeout, so a slow one cannot take the others' time):
#   1. the machine; unpack .deb/; configure Release for sm_90 (TBB, OpenMP, CUDA, the embedded
#      Python for the PyTorch/CuPy peers) in build/h200-gpupi and build only the targets used;
#   2. the pi kernel's registers and hot-loop instructions per pair from the real SASS
#      (cuobjdump -res-usage / -sass, tools/node/gpu/sass_loops.py);
#   3. the A/B figure: every kernel variant at 2^36 in one process (parlab_pi_variants);
#   4. `parlab run tools/node/gpu/gpupi-suite.json`: cuda pi at 2^36..2^38, the PyTorch and CuPy
#      peers in the same run, cuda-multi on all GPUs; `parlab pi` on the CPU threads at 2^36;
#      the acceptance check (cuda >= 6.5e11 samples/s at N >= 2^36, hits equal to the CPU's and
#      the peers') by tools/node/gpu/gpupi_check.py;
#   5. the GPU pi tests (ctest -R '^Gpu(Pi|Registry)');
#   6. tools/node/gpu/ncu-profile.sh (Nsight Compute, pi and triad, issue- and pipe-bound ceilings);
#   7. compute-sanitizer memcheck and racecheck on the pi tests, and racecheck's positive control.
# Everything lands in OUT as two files (the device tool returns few): pi-study.tgz (logs, JSON,
# SASS, ncu reports, the run's result directory under results/<host>/) and summary.txt.
# Exit status: 0 all passed; 1 a build, test, sanitizer or correctness step failed; 3 only a
# performance goal was missed.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1  # the repository root
# shellcheck source=tools/node/device-common.sh
. tools/node/device-common.sh
device_begin pi-study pi-study.log
jobs=$(nproc)
status=0
perf=0
# Every step's timeout is also cut to what is left of the call (PARLAB_PI_STUDY_SECONDS, default
# 570 of the device tool's 600), so the archive is always written before the call is killed.
budget=${PARLAB_PI_STUDY_SECONDS:-570}
step_timeout() {  # step_timeout SECONDS: the step's own timeout, or less when the budget is nearly spent
  local left=$((budget - SECONDS - 15))
  if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}
failed() { say "FAILED: $*"; status=1; }
# shellcheck disable=SC2317  # called by the EXIT trap
pack() {
  tar czf "$final/pi-study.tgz" -C "$work" . && say "packed $(du -h "$final/pi-study.tgz" | cut -f1) at t=${SECONDS}s"
  if [ "$status" -ne 0 ]; then say "RESULT: FAILED"; elif [ "$perf" -ne 0 ]; then say "RESULT: correct, performance goal missed"; else say "RESULT: all passed"; fi
}
trap pack EXIT

step "machine"
say "machine: $(nproc) cpus; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | head -8 | tr '\n' ';')"
say "commit ${PARLAB_SOURCE_COMMIT:-(not declared)}; VIRTUAL_ENV=${VIRTUAL_ENV:-(unset)}"
nvcc --version | tail -1
cmake --version | head -1

prefix=$(bash scripts/offline-unpack.sh "${PARLAB_DEB_DIR:-.deb}" build/offline-deps) || { failed "offline-unpack.sh"; exit 1; }
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
build=build/h200-gpupi
bin="$build/experiments/parlab"

step "configure + build (Release, sm_90, warnings as errors)"
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086  # the extra arguments are meant to split
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPARLAB_WERROR=ON \
    -DPARLAB_ENABLE_TBB=ON -DPARLAB_ENABLE_OPENMP=ON -DPARLAB_ENABLE_CUDA=ON -DPARLAB_ENABLE_PYTHON=ON \
    -DCMAKE_PREFIX_PATH="$prefix" ${PARLAB_DEVICE_CMAKE_ARGS:-} >"$work/configure.log" 2>&1 \
    || { tail -40 "$work/configure.log"; failed "configure"; exit 1; }
fi
grep -E "backend|Python|CUDA" "$work/configure.log" 2>/dev/null | head -12
timeout "$(step_timeout 330)" cmake --build "$build" --parallel "$jobs" \
  --target parlab parlab_gpu_tests parlab_pi_variants planted_race_cuda >"$work/build.log" 2>&1 \
  || { grep -E "error|FAILED" -A5 "$work/build.log" | head -60; failed "build"; exit 1; }
say "built at t=${SECONDS}s"

step "SASS: registers and hot-loop instructions per pair"
mkdir -p "$work/sass"
obj=$(find "$build/gpu" -name 'pi_kernel.cu.o' | head -1)
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$cuobjdump" -res-usage "$obj" >"$work/sass/pi_kernel.res-usage" 2>&1
"$cuobjdump" -sass "$obj" >"$work/sass/pi_kernel.sass" 2>&1
grep -E "Function|REG" "$work/sass/pi_kernel.res-usage" | paste - - | sed -E 's/ +/ /g' | cut -c1-220 | tee -a "$summary"
python3 tools/node/gpu/sass_loops.py "$work/sass/pi_kernel.sass" --json >"$work/sass/pi_kernel.loops.json"
python3 tools/node/gpu/sass_loops.py "$work/sass/pi_kernel.sass" | grep -E "^_Z|loop" | cut -c1-200 | tee -a "$summary"

step "A/B: every pi kernel variant, 2^36 samples, one process"
timeout "$(step_timeout 120)" "$build/gpu/parlab_pi_variants" --samples 2^36 --reps 5 >"$work/pi-variants.json" \
  || failed "parlab_pi_variants (hits differ between variants, or an error)"
python3 - "$work/pi-variants.json" <<'EOF' | tee -a "$summary"
import json, sys
d = json.load(open(sys.argv[1]))
base = {v["variant"]: v for v in d["variants"]}.get("v1")
for v in d["variants"]:
    ratio = f"  {v['samples_per_s'] / base['samples_per_s']:.2f}x v1" if base else ""
    print(f"variant {v['variant']:<10} {v['samples_per_s']:.4g} samples/s  blocks {v['blocks']}  hits {v['hits']}  pass {v['pass']}{ratio}")
print("all hits equal:", d["all_hits_equal"])
EOF

step "parlab run gpupi suite (cuda 2^36..2^38, PyTorch and CuPy peers, cuda-multi)"
timeout "$(step_timeout 240)" "$bin" run tools/node/gpu/gpupi-suite.json --out "$work/results" -q --no-report
rc=$?
say "parlab run gpupi: exit $rc"
[ $rc -eq 0 ] || failed "parlab run gpupi (exit $rc)"
# The canonical count at 2^36 from the CPU (about 5 s on 16 cores), for gpupi_check.py.
timeout "$(step_timeout 120)" "$bin" pi --backend threads --threads "$jobs" --samples 2^36 --seed 42 --json >"$work/cpu-pi-2^36.json" \
  || failed "parlab pi on the CPU at 2^36"
results=$(find "$work/results" -name results.json | head -1)
if [ -n "$results" ]; then
  python3 tools/node/gpu/gpupi_check.py "$results" --cpu-pi "$work/cpu-pi-2^36.json" | tee -a "$summary"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 3 ]; then perf=3; elif [ "$rc" -ne 0 ]; then failed "gpupi_check.py (exit $rc)"; fi
else
  failed "no results.json from parlab run"
fi

step "GPU pi tests"
timeout "$(step_timeout 240)" ctest --test-dir "$build" -R '^Gpu(Pi|Registry)' --output-on-failure --timeout "$(step_timeout 200)" \
  --output-junit "$work/gpu-pi-tests.xml" >"$work/ctest.log" 2>&1 || failed "GPU pi tests"
say "ctest: $(grep -E 'tests passed|tests failed' "$work/ctest.log")"

step "ncu profile"
timeout "$(step_timeout 200)" bash tools/node/gpu/ncu-profile.sh "$build" "$work/ncu" 2^34
rc=$?
say "ncu-profile.sh: exit $rc"
grep -E "^ *(none|base) |^triad" "$work/ncu/ncu-profile.log" | cut -c1-400 | tee -a "$summary"
if [ $rc -eq 3 ]; then perf=3; elif [ $rc -ne 0 ]; then say "ncu profile incomplete (exit $rc; see ncu/ncu-profile.log)"; perf=3; fi

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
tests="$build/tests/gpu/parlab_gpu_tests"
step "compute-sanitizer memcheck on the pi tests"
# Not the whole-stream 2^33 comparison: a CPU-bound minute under the sanitizer, no new device path.
timeout "$(step_timeout 150)" "$sanitizer" --tool memcheck --leak-check full --error-exitcode 1 "$tests" \
  --gtest_filter='GpuPi.*:-GpuPi.HitCountEqualsCpuBeyond2To33' >"$work/memcheck.log" 2>&1 || failed "memcheck"
say "memcheck: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$work/memcheck.log" | tr '\n' ' ') $(grep -cE '^\[       OK \]' "$work/memcheck.log") tests OK"

step "compute-sanitizer racecheck on the pi kernels (the block reduction's shared memory)"
timeout "$(step_timeout 120)" "$sanitizer" --tool racecheck --error-exitcode 1 "$tests" \
  --gtest_filter='GpuPi.PairIndices*:GpuPi.WindowsAcrossHighWordChanges*' >"$work/racecheck.log" 2>&1 || failed "racecheck"
say "racecheck: $(grep -E 'RACECHECK SUMMARY' "$work/racecheck.log" | tr '\n' ' ') $(grep -cE '^\[       OK \]' "$work/racecheck.log") tests OK"
if [ "$(step_timeout 90)" -ge 90 ]; then  # the control has its own 300 s timeout: run it only with time left
  bash tools/node/gpu/racecheck-control.sh "$build/tests/gpu/planted_race_cuda" "$work/racecheck-control.log" \
    | tail -1 | tee -a "$summary" || failed "racecheck did not report the planted race"
else
  say "racecheck positive control skipped: out of time"
fi

step "done"
[ $status -eq 0 ] || exit 1
[ $perf -eq 0 ] || exit 3
exit 0
