#!/usr/bin/env bash
# The CUDA race detector's positive control: compute-sanitizer racecheck must report the race
# planted in tests/sanitizer/planted_race_cuda.cu. Needs a GPU.
#
# Usage: tools/node/gpu/racecheck-control.sh BINARY LOG
#   BINARY  the built planted_race_cuda; LOG  where the sanitizer's output goes
# Exit status: 0 the race was reported (racecheck exited 1 and named a hazard), 1 it was not
# (or BINARY is missing). Prints the sanitizer's summary lines and a verdict.
set -uo pipefail
control=${1:?usage: racecheck-control.sh BINARY LOG}
log=${2:?usage: racecheck-control.sh BINARY LOG}
if [ ! -x "$control" ]; then
  echo "racecheck control: $control was not built"
  exit 1
fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 300 "$sanitizer" --tool racecheck --error-exitcode 1 "$control" >"$log" 2>&1
rc=$?
grep -E "RACECHECK SUMMARY|hazard" "$log" | head -5
if [ $rc -eq 1 ] && grep -q "hazard" "$log"; then
  echo "racecheck control: the planted race was reported (exit $rc)"
  exit 0
fi
echo "racecheck control: FAILED, the planted race was not reported (exit $rc)"
exit 1
