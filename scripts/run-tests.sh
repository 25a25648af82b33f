#!/usr/bin/env bash
# The README's test command: installs dependencies (all but the build's own while the release build
# compiles), then builds and tests every configuration CI checks, warnings as errors:
#   release     g++, -O3 -march=native, every part found (CUDA compiles even without a GPU)
#   tsan        clang + libomp with Archer, oneTBB rebuilt with -DTBB_SANITIZE=thread
#   asan-ubsan  clang, AddressSanitizer + UndefinedBehaviorSanitizer, built against Debian 13's
#               CLI11 2.4, nlohmann-json, GoogleTest and Google Benchmark (scripts/fetch-compat-deps.sh:
#               a newer dependency's API change shows here first, while release builds against this
#               machine's), with the parsers' libFuzzer targets (tests/fuzz/): every committed input
#               replayed among its tests, then each target fuzzed for 30 s (its own step, test preset
#               asan-ubsan-fuzz), then `parlab list` and a short run
#   ft          the embedded-Python tests against a free-threaded CPython 3.13t built from Debian's
#               source package (scripts/build-python-ft.sh), and a run measuring both interpreters
#   tsan-ft     the same tests under ThreadSanitizer, against a TSan-built 3.13t
#   multihost   2 simulated hosts (scripts/sim-cluster.sh; root): the MPI tests and pi, dot, triad at
#               1, 2, 4 ranks across them over TCP (--mca btl tcp,self, no one-sided component named),
#               equal to one host's with the hosts in the records, the host fault cases, and the
#               allreduce probe across links delayed by 50 us (at least 50 us per call); and
#               dask.distributed with a worker on each host: pi and a kernel file as on one host,
#               and a host lost mid-measurement named in a failed record
# plus the Python tests of the plot scripts, then the reference runs' figures drawn again from
# their committed data (scripts/reproduce-figures.sh --reference). Stops at the first failure.
#
# Each configuration states what it must have, so a machine that lost a package fails instead of
# passing with fewer tests: its preset sets PARLAB_ENABLE_<PART>=ON for every part installed for it
# (configure fails naming the missing dependency), the promised_backends test fails naming any
# promised backend that is unavailable, the free-threaded ones fail on a CPython with a GIL, and
# pytest fails on a skip outside tests/python/conftest.py's allow-list (PARLAB_STRICT_SKIPS=1).
# CUDA is not installed by install-deps.sh: release promises it compiled (nvcc; no GPU needed) on
# CI's machine; PARLAB_CI_CUDA=AUTO (build it if found) or OFF runs release on a machine without
# the CUDA toolkit.
#
# Usage: scripts/run-tests.sh [release] [tsan] [asan-ubsan] [ft] [tsan-ft] [python] [multihost]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then configs=(release python tsan asan-ubsan ft tsan-ft multihost); fi
jobs=$(nproc)
# Debian's interpreter, where install-deps.sh put matplotlib, pandas and pytest (a pyenv or
# venv python3 earlier on PATH would not have them).
PYTHON=${PARLAB_PYTHON:-/usr/bin/python3}
# pytest: list every skip with its reason (-rs); one not allowed by conftest.py fails the run.
export PARLAB_STRICT_SKIPS=1
cuda=${PARLAB_CI_CUDA:-ON}

step() { printf '\n=== %s (%s) ===\n' "$*" "$(date -u +%H:%M:%S)"; }

# What the release build compiles against first; the rest of the packages (the Python libraries,
# Chromium, llvm-19, likwid: minutes of downloading and unpacking on a fresh machine) install in
# the background while it compiles, and everything after that build waits for them. A failed
# install fails the run with its log, and an early exit still waits for apt rather than leave
# dpkg half done.
step "install the build's dependencies"
bash scripts/install-deps.sh --build
deps_log=$(mktemp "${TMPDIR:-/tmp}/parlab-install-deps.XXXXXX")
bash scripts/install-deps.sh >"$deps_log" 2>&1 &
deps_pid=$!
need_deps() {
  [ -n "$deps_pid" ] || return 0
  local rc=0
  wait "$deps_pid" || rc=$?
  deps_pid=""
  step "the rest of the dependencies (installed in the background)"
  cat "$deps_log"; rm -f "$deps_log"
  if [ "$rc" -ne 0 ]; then echo "run-tests.sh: scripts/install-deps.sh failed (exit $rc)" >&2; exit "$rc"; fi
}
trap 'need_deps >/dev/null 2>&1 || true' EXIT

for config in "${configs[@]}"; do
  # Only the release build itself goes ahead of the background install.
  [ "$config" = release ] || need_deps
  case "$config" in
    release|tsan|asan-ubsan)
      if [ "$config" = tsan ]; then
        step "oneTBB with ThreadSanitizer (Debian source package)"
        bash scripts/build-tbb-tsan.sh build/deps/tbb-tsan
      fi
      if [ "$config" = asan-ubsan ]; then
        step "Debian 13's CLI11, nlohmann-json, GoogleTest, Google Benchmark"
        bash scripts/fetch-compat-deps.sh build/deps/compat
      fi
      step "configure $config"
      extra=()
      [ "$config" = release ] && extra=(-DPARLAB_ENABLE_CUDA="$cuda")
      cmake --preset "$config" -DPARLAB_WERROR=ON "${extra[@]}"
      step "build $config"
      cmake --build --preset "$config" --parallel "$jobs"
      need_deps
      step "test $config"
      ctest --preset "$config" --parallel "$jobs" --timeout 600
      if [ "$config" = asan-ubsan ]; then
        # Label fuzz, left out of the tests above: each parser's libFuzzer target for 30 s from a
        # copy of its committed corpus; the preset's verbose output shows each one's "Done N runs".
        step "fuzz the parsers (30 s each)"
        ctest --preset asan-ubsan-fuzz --parallel "$jobs"
      fi
      if [ "$config" = asan-ubsan ]; then
        # The CLI itself, as a user starts it: a newer CLI11 once aborted every command at start.
        # The embedded interpreter that `list` probes imports with is never finalized: its objects
        # are LeakSanitizer's suppressions (tests/lsan.supp), as in the tests.
        step "parlab list and a short run (asan-ubsan build, Debian 13's libraries)"
        export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
        build/asan-ubsan/experiments/parlab list >/dev/null
        build/asan-ubsan/experiments/parlab run quick -k pi -b serial,pool -t 1,2 -n 2^20 -r 1 \
          --out build/asan-ubsan/smoke --no-report --quiet
        unset LSAN_OPTIONS UBSAN_OPTIONS
      fi
      ;;
    ft|tsan-ft)
      # Only what runs against 3.13t: parlab (the child binary a run measures 3.13t with) and the
      # embedded-Python tests; the CPU and GPU parts are the same as in release and tsan.
      flag=""; preset=release-ft
      if [ "$config" = tsan-ft ]; then flag="--tsan"; preset=tsan-ft; fi
      step "free-threaded CPython 3.13t $flag (Debian source package)"
      bash scripts/build-python-ft.sh $flag
      step "configure $config"
      cmake --preset "$preset" -DPARLAB_WERROR=ON
      step "build $config"
      targets=(parlab_embed_tests parlab_promise_tests)
      if [ "$config" = ft ]; then targets+=(parlab); else targets+=(planted_race_python); fi
      cmake --build --preset "$preset" --parallel "$jobs" --target "${targets[@]}"
      step "test $config (embedded Python on 3.13t)"
      # Under TSan the task models (process pools and Dask spawning TSan-built interpreters, about
      # six minutes there) are left to the ft configuration: nothing of theirs runs threads without a GIL.
      exclude=(); [ "$config" = tsan-ft ] && exclude=(-E '^Models/')
      ctest --preset "$preset" --parallel "$jobs" --timeout 600 -L '^(embed|promise)$' "${exclude[@]}"
      if [ "$config" = ft ]; then
        step "test one run over both interpreters (pytest)"
        # The run's own parlab is the release one (Debian's CPython), up to date with this tree.
        [ -f build/release/build.ninja ] || cmake --preset release -DPARLAB_WERROR=ON
        cmake --build --preset release --parallel "$jobs" --target parlab
        PARLAB_BIN="$PWD/build/release/experiments/parlab" PARLAB_INTERPRETERS="$PWD/build/release-ft/experiments/parlab" \
          "$PYTHON" -m pytest -q -rs tests/python/test_interpreters.py
      fi
      ;;
    python)
      if [ -d tests/python ]; then
        step "test the CLI, the analysis and the docs (pytest; test_docs.py checks what the docs quote)"
        [ -x build/release/experiments/parlab ] || { cmake --preset release -DPARLAB_WERROR=ON && cmake --build --preset release --parallel "$jobs"; }
        # The harness the installed CMake package ships (test_user_kernel_package.py builds against it).
        cmake --build --preset release --parallel "$jobs" --target parlab_harness
        # On pytest-xdist's workers, one per core up to 4 (each test's parlab runs threads of its
        # own): 8.3 minutes instead of 11.2 on the 2-core CI machine.
        pyjobs=$(( jobs < 4 ? jobs : 4 ))
        PARLAB_BIN="$PWD/build/release/experiments/parlab" "$PYTHON" -m pytest -q -rs -n "$pyjobs" tests/python
        # results/ commits data only: the figures and reports are drawn from it, so CI draws the
        # reference runs' as a user would (every committed run takes longer; the tests draw one).
        step "reproduce the reference runs' figures"
        PARLAB_PYTHON="$PYTHON" bash scripts/reproduce-figures.sh --reference --out build/reproduced-ci
      fi
      ;;
    multihost)
      # Fails (never skips) where the hosts cannot be made: without root, or without namespaces.
      step "build release (parlab, MPI tests) for multihost"
      [ -f build/release/build.ninja ] || cmake --preset release -DPARLAB_WERROR=ON -DPARLAB_ENABLE_CUDA="$cuda"
      cmake --build --preset release --parallel "$jobs" --target parlab parlab_mpi_tests
      step "bring up 2 simulated hosts"
      sim=scripts/sim-cluster.sh
      trap 'bash scripts/sim-cluster.sh down >/dev/null 2>&1 || true' EXIT
      bash "$sim" up 2
      hostfile=/run/sim-cluster/hostfile
      mh=build/release/multihost
      rm -rf "$mh" && mkdir -p "$mh"
      parlab="$PWD/build/release/experiments/parlab"
      tcp="--mca btl tcp,self"
      # 2 ranks, one on each host (the 4-rank gtest run took over 10 minutes here over TCP on 2
      # loaded cores; 4 ranks across the hosts are covered by the identity run below).
      step "MPI tests across the hosts (2 ranks, TCP)"
      bash "$sim" exec sim0 mpirun --allow-run-as-root --oversubscribe --bind-to none --hostfile "$hostfile" $tcp \
        -np 2 build/release/tests/mpi/parlab_mpi_tests --gtest_brief=1
      PARLAB_MPIRUN_ARGS="--hostfile $hostfile $tcp" PARLAB_BIN="$parlab" \
        bash "$sim" exec sim0 "$PYTHON" -m pytest -q -rs tests/python/test_mpi_ranks.py -k "scheme"
      step "pi, dot, triad at 1, 2, 4 ranks: one host, then across 2 hosts"
      # --no-ceilings here and in check.py's runs: what they check is answers and faults, never a
      # roof, and measuring the roofs (then the bandwidth roofs again at each run's end) took about
      # half a minute of this stage.
      run=(run -k pi,dot,triad --ranks 1,2,4 -t 1,2 -n 2^20 --quick --no-report -q --no-ceilings --timeout 120)
      bash "$sim" exec sim0 "$parlab" "${run[@]}" --out "$mh/one-host"
      PARLAB_MPIRUN_ARGS="$tcp" bash "$sim" exec sim0 "$parlab" "${run[@]}" --hostfile "$hostfile" --out "$mh/across"
      "$PYTHON" tests/multihost/check.py identity "$mh/one-host" "$mh/across" 2
      step "dask.distributed across the hosts: pi and a kernel file, equal to one host's"
      "$PYTHON" tests/multihost/check.py dask "$parlab" examples/python-gil/kernel.py "$mh/dask"
      step "host faults: unreachable host, far daemon killed, link down"
      "$PYTHON" tests/multihost/check.py faults "$parlab" "$hostfile"
      # A delay of 50 us one way on every link (tc netem, or sim-wire.py where the kernel has no
      # netem, as here and on CI's kernel); `netem` fails, and so does this run, if it cannot be made.
      step "delayed links (50 us one way): the allreduce probe across the hosts"
      bash "$sim" netem --delay 50us
      "$PYTHON" tests/multihost/check.py delay "$parlab" "$hostfile" 50 "$mh/delay"
      step "tear down the simulated hosts"
      bash "$sim" down
      trap - EXIT
      ;;
    *)
      echo "run-tests.sh: unknown configuration '$config' (accepted: release, tsan, asan-ubsan, ft, tsan-ft, python, multihost)" >&2
      exit 2
      ;;
  esac
done
need_deps
step "all requested configurations passed: ${configs[*]}"
