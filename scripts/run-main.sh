#!/usr/bin/env bash
# The README's main job: installs dependencies, builds what the run needs, runs a suite (default:
# quick) and writes results/<host>/<UTC timestamp>/{results.json,results.csv,plots/,report.html}.
# Extra arguments go to `parlab run` (e.g. `scaling`, `--threads 1..4`).
#
# It builds only what the main job measures, in build/main (the release preset's configuration):
#   - the parlab binary alone (no tests, no benchmarks);
#   - the CUDA part only where a CUDA driver is installed (without one every CUDA record says
#     "unavailable", so compiling its kernels on such a machine costs minutes for nothing);
#   - the parlab of the free-threaded CPython (the quick suite's interpreter comparison) only when
#     that interpreter is already built (scripts/build-python-ft.sh, which scripts/run-tests.sh
#     also runs), or when asked with PARLAB_MAIN_FT=1: building CPython takes about 5 minutes on
#     2 cores. Without it the run says which interpreters it did not measure.
# Each phase is printed with its duration, and a table of them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
phases=()
phase_name="" phase_start=0 run_start=$(date +%s)
phase() {  # ends the current phase (if any) and starts the next
  local now; now=$(date +%s)
  if [ -n "$phase_name" ]; then
    phases+=("$(printf '%-34s %4d s' "$phase_name" $((now - phase_start)))")
    printf 'run-main.sh: %s took %d s\n' "$phase_name" $((now - phase_start)) >&2
  fi
  phase_name=$1 phase_start=$now
  [ -n "$1" ] && printf '\n=== run-main.sh: %s\n' "$1" >&2
  return 0
}
summary() {
  phase ""
  printf '\nrun-main.sh: phases\n' >&2
  printf '  %s\n' "${phases[@]}" >&2
  printf '  %-34s %4d s\n' "total" $(( $(date +%s) - run_start )) >&2
}

phase "install dependencies (apt)"
bash scripts/install-deps.sh

phase "configure (build/main)"
mkdir -p build
cuda=OFF
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then cuda=AUTO; fi
[ "$cuda" = OFF ] && echo "run-main.sh: no CUDA driver on this machine: the CUDA part is not built (its records say so)" >&2
cmake --preset release -B build/main -DPARLAB_ENABLE_CUDA=$cuda -DPARLAB_BUILD_TESTS=OFF \
  -DPARLAB_BUILD_BENCHMARKS=OFF >build/main-configure.log 2>&1 ||
  { tail -n 30 build/main-configure.log >&2; exit 1; }

phase "build parlab"
cmake --build build/main --parallel "$jobs" --target parlab

ft_python=build/deps/python-ft/bin/python3t
if [ ! -x "$ft_python" ] && [ "${PARLAB_MAIN_FT:-0}" = 1 ]; then
  phase "free-threaded CPython (PARLAB_MAIN_FT=1)"
  bash scripts/build-python-ft.sh || true
fi
interpreters=()  # the free-threaded parlab, when built
if [ -x "$ft_python" ]; then
  phase "parlab against the free-threaded CPython"
  if cmake --preset release-ft >build/main-ft-configure.log 2>&1 &&
     cmake --build --preset release-ft --parallel "$jobs" --target parlab; then
    interpreters=("$PWD/build/release-ft/experiments/parlab")
  else
    echo "run-main.sh: warning: the free-threaded parlab did not build (build/main-ft-configure.log); the run measures this interpreter only" >&2
  fi
else
  echo "run-main.sh: no free-threaded CPython built (build/deps/python-ft): the run measures this" \
       "interpreter only; PARLAB_MAIN_FT=1 builds one first (about 5 minutes on 2 cores)" >&2
fi

phase "measure and draw (parlab run ${*:-quick})"
code=0
# Without a free-threaded parlab the build tree's default (build/release-ft) is looked for, and the
# run's context records that it was not found.
if [ ${#interpreters[@]} -gt 0 ]; then export PARLAB_INTERPRETERS=${interpreters[0]}; fi
build/main/experiments/parlab run "$@" || code=$?
summary
exit "$code"
