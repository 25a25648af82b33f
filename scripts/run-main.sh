#!/usr/bin/env bash
# The README's main job: installs dependencies, builds the release preset, runs a suite
# (default: quick) and writes results/<host>/<UTC timestamp>/{results.json,results.csv,
# plots/,report.html}. Extra arguments go to `parlab run` (e.g. `scaling`, `--threads 1..4`).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --parallel "$(nproc)" --target parlab
exec build/release/experiments/parlab run "$@"
