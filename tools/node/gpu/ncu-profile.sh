#!/usr/bin/env bash
# The profile of the GPU pi kernel as a result: Nsight Compute on the default pi kernel
# and the kernel before its rework (v1), under the clocks the runs see (--clock-control none) and
# under ncu's locked base clock, and on the STREAM triad for contrast. Writes into OUT:
#
#   pi-variants.json        the same pi kernels timed in a plain run (no profiler), for the rate
#   pi-<clock>.ncu-rep      ncu reports (open with ncu-ui or ncu --import)
#   pi-<clock>.raw.csv      every collected metric, raw page, base units
#   pi-<clock>.details.txt  the details page (sections as ncu-ui shows them); ncu_summary.py reads
#                           from it the figures a raw page lacks
#   triad.ncu-rep, triad.raw.csv, triad.details.txt
#   ncu-summary.json/.csv   the figures that matter and the issue and pipe bounds (ncu_summary.py)
#   ncu-profile.log         this console
#
#   tools/node/gpu/ncu-profile.sh BUILD_DIR OUT [SAMPLES]      (SAMPLES default 2^34)
#
# BUILD_DIR holds gpu/parlab_pi_variants and experiments/parlab. Exit 0; 1 when ncu is missing
# or a step failed; 3 when the default kernel misses the profile goal (issue slots busy >= 80%
# or a pipe >= 85% of peak).
set -uo pipefail
build=${1:?usage: ncu-profile.sh BUILD_DIR OUT [SAMPLES]}
out=${2:?usage: ncu-profile.sh BUILD_DIR OUT [SAMPLES]}
samples=${3:-2^34}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
exec > >(tee "$out/ncu-profile.log") 2>&1

ncu=$(command -v ncu || true)
for c in /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [ -z "$ncu" ] && [ -x "$c" ] && ncu=$c
done
[ -n "$ncu" ] || { echo "ncu-profile: no ncu (Nsight Compute) found"; exit 1; }
echo "ncu: $ncu ($("$ncu" --version | tail -1))"
variants_bin="$build/gpu/parlab_pi_variants"
parlab="$build/experiments/parlab"
[ -x "$variants_bin" ] || { echo "ncu-profile: $variants_bin not built"; exit 1; }
status=0
n=$(python3 -c "import sys; s=sys.argv[1]; print(2**int(s[2:]) if s.startswith('2^') else int(s))" "$samples")
pi_variants=ilp4-occ8,v1

echo "=== plain run of the profiled kernels (N = $n, 5 reps)"
"$variants_bin" --samples "$n" --reps 5 --variants "$pi_variants" >"$out/pi-variants.json" || status=1

# The sections whose metrics the summary reads, plus pipe-cycle and thread-instruction metrics
# that no section collects. If this ncu rejects one of the extras, profile again without them.
# Issue slots busy and the SM clock are named as ncu 2025.3 (sm_90) names them, in its sections
# and so in its raw page: sm__inst_issued.avg.pct_of_peak_sustained_elapsed ("Issue Slots Busy";
# the _active form of older versions is not collected) and gpc__cycles_elapsed.avg.per_second
# ("SM Frequency"; no sm__/smsp__cycles_elapsed.avg.per_second). Asked for here so that a change
# of sections cannot drop them; ncu_summary.py also takes them from the details page.
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats
  --section SchedulerStats --section WarpStateStats --section InstructionStats)
extras=sm__inst_issued.avg.pct_of_peak_sustained_elapsed,gpc__cycles_elapsed.avg.per_second,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,device__attribute_multiprocessor_count

profile() {  # profile NAME CLOCK FILTER... -- COMMAND...
  local name=$1 clock=$2
  shift 2
  local filter=()
  while [ "$1" != "--" ]; do filter+=("$1"); shift; done
  shift
  echo "=== ncu $name (clock control $clock)"
  if ! "$ncu" --clock-control "$clock" --target-processes all "${filter[@]}" "${sections[@]}" --metrics "$extras" \
      -f -o "$out/$name" "$@" >"$out/$name.ncu.log" 2>&1; then
    echo "ncu with the extra metrics failed (tail of $name.ncu.log below); again with the sections only"
    tail -5 "$out/$name.ncu.log"
    "$ncu" --clock-control "$clock" --target-processes all "${filter[@]}" "${sections[@]}" \
      -f -o "$out/$name" "$@" >>"$out/$name.ncu.log" 2>&1 || { tail -20 "$out/$name.ncu.log"; status=1; return 1; }
  fi
  "$ncu" --import "$out/$name.ncu-rep" --page raw --csv --print-units base >"$out/$name.raw.csv" 2>>"$out/$name.ncu.log" \
    || { echo "ncu --import $name failed"; status=1; return 1; }
  echo "raw CSV: $(wc -l <"$out/$name.raw.csv") lines, $(head -1 "$out/$name.raw.csv" | tr ',' '\n' | wc -l) columns"
  # The profile's own details page, readable without ncu-ui.
  "$ncu" --import "$out/$name.ncu-rep" --page details --print-units base >"$out/$name.details.txt" 2>/dev/null || true
}

# One launch per variant (no warm-up): 2 kernels, each replayed once per metric pass.
for clock in none base; do
  profile "pi-$clock" "$clock" --kernel-name regex:pi_hits_kernel -- \
    "$variants_bin" --samples "$n" --reps 1 --warmup 0 --variants "$pi_variants"
done

triad_n=$((1 << 28))
if [ -x "$parlab" ]; then
  # The second triad launch (the first is the run's warm-up); stream_init_kernel does not match.
  profile triad none --kernel-name regex:stream_kernel --launch-skip 1 --launch-count 1 -- \
    "$parlab" run -k triad -b cuda -n "$triad_n" -p double -r 1 --quick -q --no-report --out "$out/triad-run"
else
  echo "ncu-profile: $parlab not built; no triad contrast"
fi

echo "=== summary"
args=(--samples "$n" --run-rates "$out/pi-variants.json" --json "$out/ncu-summary.json" --csv "$out/ncu-summary.csv")
for clock in none base; do [ -s "$out/pi-$clock.raw.csv" ] && args+=(--label "$clock=$out/pi-$clock.raw.csv"); done
[ -s "$out/triad.raw.csv" ] && args+=(--triad "$out/triad.raw.csv" --triad-bytes $((3 * 8 * triad_n)))
python3 "$here/ncu_summary.py" "${args[@]}"
rc=$?
if [ $rc -eq 3 ] && [ $status -eq 0 ]; then status=3; elif [ $rc -ne 0 ] && [ $rc -ne 3 ]; then status=1; fi
echo "ncu-profile: exit $status"
exit $status
