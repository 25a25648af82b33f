#!/usr/bin/env bash
# One fuzz_<name> ctest (tests/fuzz/CMakeLists.txt): run_fuzzer.sh FUZZER SEEDS WORK [libFuzzer flags...]
# Fuzzes a copy of the committed corpus SEEDS made in WORK (libFuzzer adds what it finds to its
# first corpus directory, which must not be the source tree), crash inputs going to WORK too. On
# success prints libFuzzer's last status line and "Done N runs in S second(s)", which the fuzz step
# of scripts/run-tests.sh shows; on a finding prints the end of libFuzzer's report and fails.
set -uo pipefail
fuzzer=$1 seeds=$2 work=$3
shift 3
name=$(basename "$fuzzer")
rm -rf "$work" && mkdir -p "$work/corpus" || exit 1
cp "$seeds"/* "$work/corpus/" || exit 1
"$fuzzer" -artifact_prefix="$work/" "$@" "$work/corpus" >"$work/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  tail -n 60 "$work/log"
  echo "$name: FINDING (exit $rc); its log: $work/log, the input: $(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null | tr '\n' ' ')"
  echo "Reproduce: $fuzzer INPUT; once fixed, commit INPUT under tests/fuzz/regressions/${name#fuzz_}/"
  exit $rc
fi
last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
done_line=$(grep -E '^Done [0-9]+ runs' "$work/log" | tail -n 1)
if [ -z "$done_line" ]; then
  tail -n 20 "$work/log"
  echo "$name: libFuzzer ended without its 'Done N runs' line"
  exit 1
fi
echo "$name: $done_line; corpus $(ls "$work/corpus" | wc -l) inputs; last: $last"
