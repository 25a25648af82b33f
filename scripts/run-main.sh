#!/usr/bin/env bash
# The README's main job: installs dependencies, builds the release preset, runs a suite
# (default: quick) and writes results/<host>/<UTC timestamp>/{results.json,results.csv,
# plots/,report.html}. Extra arguments go to `parlab run` (e.g. `scaling`, `--threads 1..4`).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --parallel "$(nproc)" --target parlab
# The free-threaded CPython 3.13t and a parlab against it, so the quick suite's short comparison
# of interpreters runs (experiments/interpreters.hpp); without them the run says it was skipped.
if bash scripts/build-python-ft.sh && cmake --preset release-ft >/dev/null &&
   cmake --build --preset release-ft --parallel "$(nproc)" --target parlab; then :; else
  echo "run-main.sh: warning: no free-threaded CPython build; the run measures this interpreter only" >&2
fi
exec build/release/experiments/parlab run "$@"
