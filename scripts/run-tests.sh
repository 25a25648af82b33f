#!/usr/bin/env bash
# The README's test command: installs dependencies, then builds and tests every configuration
# CI checks, warnings as errors:
#   release     g++, -O3 -march=native, every part found (CUDA compiles even without a GPU)
#   tsan        clang + libomp with Archer, oneTBB rebuilt with -DTBB_SANITIZE=thread
#   asan-ubsan  clang, AddressSanitizer + UndefinedBehaviorSanitizer
# plus the Python tests of the plot scripts. Stops at the first failure.
#
# Usage: scripts/run-tests.sh [release] [tsan] [asan-ubsan] [python]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then configs=(release python tsan asan-ubsan); fi
jobs=$(nproc)
# Debian's interpreter, where install-deps.sh put matplotlib, pandas and pytest (a pyenv or
# venv python3 earlier on PATH would not have them).
PYTHON=${PARLAB_PYTHON:-/usr/bin/python3}

bash scripts/install-deps.sh

step() { printf '\n=== %s ===\n' "$*"; }

for config in "${configs[@]}"; do
  case "$config" in
    release|tsan|asan-ubsan)
      if [ "$config" = tsan ]; then
        step "oneTBB with ThreadSanitizer (Debian source package)"
        bash scripts/build-tbb-tsan.sh build/deps/tbb-tsan
      fi
      step "configure $config"
      cmake --preset "$config" -DPARLAB_WERROR=ON
      step "build $config"
      cmake --build --preset "$config" --parallel "$jobs"
      step "test $config"
      ctest --preset "$config" --parallel "$jobs" --timeout 600
      ;;
    python)
      if [ -d tests/python ]; then
        step "test plot scripts (pytest)"
        [ -x build/release/experiments/parlab ] || { cmake --preset release -DPARLAB_WERROR=ON && cmake --build --preset release --parallel "$jobs"; }
        PARLAB_BIN="$PWD/build/release/experiments/parlab" "$PYTHON" -m pytest -q tests/python
      fi
      ;;
    *)
      echo "run-tests.sh: unknown configuration '$config' (accepted: release, tsan, asan-ubsan, python)" >&2
      exit 2
      ;;
  esac
done
step "all requested configurations passed: ${configs[*]}"
