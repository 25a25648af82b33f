#!/usr/bin/env bash
# The GPU STREAM kernels' launch shapes on a GPU node (an H200): the probe that chose each row of
# gpu/stream_kernels.cu's kStreamLaunch, and the run that holds the chosen kernels against
# BabelStream's cuda-stream and the driver's copy. Run from the repository root, with
# BabelStream's source carried in build/deps/babelstream-src (a `git archive` of the commit
# below; no .deb needed: the build leaves out oneTBB, MPI and the embedded Python, which no GPU
# record uses):
#
#   OUT=DIR bash tools/node/gpu/stream-tuning.sh PART...
#   bash tools/node/gpu/stream-tuning.sh carry     (here, before the call: what to carry)
#
#   carry   builds the probe (build/probe/stream-probe) and a parlab without -march=native (oneTBB,
#           MPI and Python off; build/node-lean) here, and puts parlab and parlab_gpu_tests in
#           build/node-carry/bin beside a share/parlab of relative links into the checkout;
#           carry build/probe, build/node-carry and build/deps/babelstream-src (and copy an
#           earlier call's cuda-stream and BABELSTREAM_* from DIR into build/node-carry)
#   probe   tools/node/gpu/stream-probe.cu (every launch shape, dot layout and the driver's copy
#           at 2^27 and 2^28 doubles in one process; its header says what and how): the binary
#           carried in build/probe/stream-probe when it runs there, else built there with nvcc.
#           Full table to DIR/probe.txt, the best rows per kernel to the summary
#   build   parlab and its GPU tests, and BabelStream's cuda-stream. Carried ones are used when
#           they run there (build/node-carry/bin: parlab and parlab_gpu_tests built elsewhere with
#           -DPARLAB_NATIVE=OFF, cuda-stream from an earlier call's DIR; a build there costs
#           minutes of the lease), else built there: parlab Release for sm_90 in build/h200-gpu,
#           BabelStream with scripts/build-babelstream.sh --models cuda in build/babelstream.
#           BabelStream's binary is copied to DIR, to carry next time
#   tests   the GPU tests: ctest -R '^Gpu' (JUnit XML in DIR/gpu-tests.xml) on a build made there;
#           a carried parlab_gpu_tests runs each case in a process of its own, as ctest does
#   run     the GPU half of the stream-peers suite: cuda, cuda-memcpy and babelstream-cuda at
#           2^27 and 2^28 doubles, in the suite's 3 rounds, or as STREAM_RUN_ARGS says
#           ('--rounds 1': a round took about 250 s on the H200, most of it each in-process
#           record's energy window of up to 10 s and BabelStream's start-ups, so 3 rounds and the
#           tests do not fit one 10-minute call); DIR/results.json, and per kernel each side's
#           share of the theoretical DRAM peak, parlab over BabelStream and over the driver's copy
#           (tools/node/gpu/stream_ratios.py)
#
# Everything printed is also in DIR/stream-tuning.log; DIR/summary.txt holds the short form.
# Exit status: 0 when every part passed, 1 when one failed (the later parts still run where they can).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1  # the repository root
if [ "${1:-}" = carry ]; then
  set -e
  mkdir -p build/probe build/node-carry/bin build/node-carry/share/parlab
  nvcc -O3 -std=c++20 -arch=sm_90 --fmad=false -Xcompiler -ffp-contract=off -I. tools/node/gpu/stream-probe.cu \
    -o build/probe/stream-probe
  [ -f build/node-lean/build.ninja ] || cmake -S . -B build/node-lean -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPARLAB_NATIVE=OFF -DPARLAB_ENABLE_CUDA=ON -DPARLAB_ENABLE_OPENMP=ON \
    -DPARLAB_ENABLE_TBB=OFF -DPARLAB_ENABLE_MPI=OFF -DPARLAB_ENABLE_PYTHON=OFF -DPARLAB_BUILD_BENCHMARKS=OFF
  cmake --build build/node-lean --target parlab parlab_gpu_tests
  cp build/node-lean/experiments/parlab build/node-lean/tests/gpu/parlab_gpu_tests build/node-carry/bin/
  for d in suites schema analysis; do ln -sfn "../../../../experiments/$d" "build/node-carry/share/parlab/$d"; done
  du -sh build/probe build/node-carry build/deps/babelstream-src
  exit 0
fi
# shellcheck source=tools/node/device-common.sh
. tools/node/device-common.sh
device_begin stream-tuning stream-tuning.log
trap 'cp "$work/stream-tuning.log" "$final/" 2>/dev/null' EXIT
jobs=$(nproc)
status=0
build=build/h200-gpu
bin=$build/experiments/parlab
babelstream_commit=57637d572532fc028b6c0964944f1afc27ff5436

say "parts: $*; $(nproc) cpus; $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"
# The card as found (METHOD.md: measured as it is, its settings left alone).
nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit \
  --format=csv 2>&1 | tee -a "$summary"

probe() {
  step "stream probe"
  local exe=build/probe/stream-probe
  if ! [ -x "$exe" ] || ldd "$exe" 2>&1 | grep -q "not found"; then
    say "the carried probe does not run here: building it with $(command -v nvcc)"
    mkdir -p build/probe-node
    exe=build/probe-node/stream-probe
    nvcc -O3 -std=c++20 -arch=sm_90 --fmad=false -Xcompiler -ffp-contract=off -I. \
      tools/node/gpu/stream-probe.cu -o "$exe" >"$work/probe-build.log" 2>&1 \
      || { tail -20 "$work/probe-build.log"; say "probe build failed"; status=1; return; }
  fi
  timeout 420 "$exe" --out "$final/probe.txt"
  say "probe: exit $? at t=${SECONDS}s"
  # The five best by the fastest iteration per kernel and size, with today's shape and the driver's copy.
  python3 - "$final/probe.txt" <<'PY' | tee -a "$summary"
import collections, re, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if line.startswith("#"):
        print(line.rstrip()); continue
    m = re.match(r"(\w+)\s+(.+?)\s+n=2\^(\d+)\s+regs\s+(\d+)\s+median\s+([\d.]+) us ([\d.]+)\s+fastest\s+([\d.]+) us ([\d.]+)", line)
    if not m:
        print(line.rstrip()); continue
    rows[(m[1], m[3])].append((float(m[8]), float(m[6]), m[2].strip(), m[4]))
for (kernel, e), rs in rows.items():
    rs.sort(reverse=True)
    keep = rs[:6] + [r for r in rs[6:] if r[2] in ("t1024 v1 plain", "warp t256 b8", "cudaMemcpyAsync D2D")]
    for share, med, name, regs in keep:
        print(f"  {kernel:6s} 2^{e} {name:32s} fastest {share:.4f}  median {med:.4f}  regs {regs}")
PY
}

# Whether the carried binaries run here (their libraries: the C++ runtime, libgomp and the CUDA
# runtime of the toolkit here); they read parlab's data from build/node-carry/share/parlab, whose
# links point into this checkout.
carried() {
  local cuda=${CUDA_HOME:-/usr/local/cuda}
  export LD_LIBRARY_PATH=$cuda/lib64:$cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  [ -x build/node-carry/bin/parlab ] && [ -x build/node-carry/bin/parlab_gpu_tests ] &&
    build/node-carry/bin/parlab list >"$work/carried-list.txt" 2>&1
}

build() {
  step "parlab and its GPU tests"
  if carried; then
    bin=build/node-carry/bin/parlab
    say "parlab: the carried build ($(grep -E '^ +cuda ' "$work/carried-list.txt" | head -1 | cut -c1-100))"
  else
    say "the carried parlab does not run here ($(tail -1 "$work/carried-list.txt" 2>/dev/null)): building"
    if [ ! -f "$build/build.ninja" ]; then
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DPARLAB_ENABLE_CUDA=ON -DPARLAB_ENABLE_OPENMP=ON -DPARLAB_ENABLE_TBB=OFF -DPARLAB_ENABLE_MPI=OFF \
        -DPARLAB_ENABLE_PYTHON=OFF -DPARLAB_BUILD_BENCHMARKS=OFF >"$work/configure.log" 2>&1 \
        || { tail -40 "$work/configure.log"; say "configure failed"; status=1; return 1; }
    fi
    cmake --build "$build" --parallel "$jobs" --target parlab parlab_gpu_tests >"$work/build.log" 2>&1 \
      || { grep -E "error|FAILED" -A5 "$work/build.log" | head -60; say "build failed"; status=1; return 1; }
    say "built at t=${SECONDS}s"
  fi
  step "BabelStream $babelstream_commit (cuda)"
  export PARLAB_BABELSTREAM_DIR=$PWD/build/babelstream
  mkdir -p "$PARLAB_BABELSTREAM_DIR"
  if [ -x build/node-carry/cuda-stream ] && build/node-carry/cuda-stream --list >/dev/null 2>&1; then
    cp build/node-carry/cuda-stream build/node-carry/BABELSTREAM_* "$PARLAB_BABELSTREAM_DIR/"
  elif [ ! -x "$PARLAB_BABELSTREAM_DIR/cuda-stream" ]; then
    bash scripts/build-babelstream.sh --commit "$babelstream_commit" --models cuda --jobs "$jobs" \
      build/deps/babelstream-src "$PARLAB_BABELSTREAM_DIR" >"$work/babelstream-build.log" 2>&1 \
      || { tail -30 "$work/babelstream-build.log"; say "BabelStream build failed"; status=1; return 1; }
  fi
  cp "$PARLAB_BABELSTREAM_DIR"/cuda-stream "$PARLAB_BABELSTREAM_DIR"/BABELSTREAM_* "$final/" 2>/dev/null
  say "BabelStream: $(cat "$PARLAB_BABELSTREAM_DIR/BABELSTREAM_COMMIT") at t=${SECONDS}s"
}

tests() {
  step "GPU tests"
  local rc
  if [ "$bin" = build/node-carry/bin/parlab ]; then
    # One process a case, as gtest_discover_tests runs them (the cuBLAS case needs a fresh one).
    local t=build/node-carry/bin/parlab_gpu_tests suite="" case passed=0 failed=0
    while IFS= read -r line; do
      if [[ $line != " "* ]]; then suite=${line%%.*}; continue; fi
      case=${line# }; case=${case%%#*}; case=${case// /}
      if timeout 240 "$t" --gtest_filter="$suite.$case" >>"$work/gpu-tests.log" 2>&1; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1)); say "  FAILED $suite.$case"
      fi
    done < <("$t" --gtest_list_tests | grep -v '^Running')
    say "GPU tests (carried binary, one process a case): $passed passed, $failed failed"
    grep -hE "^\[  SKIPPED|^\[  FAILED" "$work/gpu-tests.log" | sort -u | head -20 | tee -a "$summary"
    cp "$work/gpu-tests.log" "$final/"
    rc=$failed
  else
    timeout 300 ctest --test-dir "$build" -R '^Gpu' --timeout 240 -j 4 --output-on-failure \
      --output-junit "$final/gpu-tests.xml" >"$work/ctest-gpu.log" 2>&1
    rc=$?
    say "GPU tests: exit $rc; $(grep -E 'tests passed|tests failed' "$work/ctest-gpu.log")"
    grep -E "\(Failed\)|\*\*\*Failed|Not Run|Timeout" "$work/ctest-gpu.log" | tee -a "$summary"
  fi
  [ "$rc" -eq 0 ] || status=1
}

run() {
  step "stream-peers, GPU half: cuda, cuda-memcpy, babelstream-cuda at 2^27 and 2^28 doubles"
  export PARLAB_BABELSTREAM_DIR=$PWD/build/babelstream
  export PARLAB_CEILINGS_CACHE=$PWD/build/ceilings-cache
  # shellcheck disable=SC2086  # STREAM_RUN_ARGS (e.g. --rounds 1) is meant to split
  timeout 420 "$bin" run stream-peers -b cuda,cuda-memcpy,babelstream-cuda --out "$work/results" -q --no-report \
    ${STREAM_RUN_ARGS:-}
  local rc=$?
  say "run: exit $rc at t=${SECONDS}s"
  [ $rc -eq 0 ] || status=1
  local res
  res=$(ls -t "$work"/results/*/*/results.json 2>/dev/null | head -1)
  [ -n "$res" ] || { say "no results.json"; status=1; return; }
  cp "$res" "$final/results.json"
  python3 tools/node/gpu/stream_ratios.py "$res" | tee -a "$summary"
}

for part in "$@"; do
  case "$part" in
    probe) probe ;;
    build) build ;;
    tests) tests ;;
    run) run ;;
    *) echo "stream-tuning.sh: unknown part '$part' (probe, build, tests, run)" >&2; exit 2 ;;
  esac
done
say "done at t=${SECONDS}s, exit $status"
exit $status
