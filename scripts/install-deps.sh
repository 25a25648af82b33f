#!/usr/bin/env bash
# Installs parlab's build, test and plotting dependencies from Debian's packages.
# Idempotent: packages already present are left alone, and apt-get update runs only
# when something is missing. Needs root (or sudo).
#
# Usage: scripts/install-deps.sh [--build]
#   --build   only what configuring and compiling the release build needs (the compilers and the
#             libraries parlab links), so that the rest can install while it compiles
#             (scripts/run-tests.sh does): the rest is needed from its tests on
set -euo pipefail

group=all
case "${1:-}" in
  "") ;;
  --build) group=build ;;
  *) echo "install-deps: unknown option '$1' (accepted: --build)" >&2; exit 2 ;;
esac

build_packages=(
  build-essential cmake ninja-build pkg-config git
  libtbb-dev                                # oneTBB
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  python3-dev                               # embedding CPython (libpython3.X)
  libopenmpi-dev openmpi-bin                # the mpi/ wing (ranks x executors)
)
packages=(
  "${build_packages[@]}"
  clang libomp-dev libclang-rt-dev          # TSan/ASan runtimes, libomp + Archer
  python3-matplotlib python3-pytest python3-numpy python3-jsonschema
  python3-jinja2                            # results/README.md rendered from its template (tools/findings/)
  python3-pytest-xdist                      # the Python tests on every core (pytest -n)
  python3-hypothesis                        # property tests: hostile results files (test_untrusted_results.py)
  python3-numba                             # the Numba peers (prange, nogil) beside parlab
  python3-dask python3-distributed          # the Dask variants (delayed, a local distributed cluster)
  iproute2 iputils-ping util-linux          # scripts/sim-cluster.sh: simulated hosts (netns, veth, tc netem)
  chromium                                  # the report's first screen, rendered headless in a test
  dpkg-dev                                  # apt-get source / dpkg-source for the TSan oneTBB build
  likwid                                    # likwid-bench, the NT-store and peak-flops peer (likwid-accessD in /usr/sbin)
  binutils llvm-19                          # objdump and llvm-mca: the in-core bound of pi's compiled loop
                                            # (llvm 19 models Zen 4/5 and Sapphire Rapids; 14 does not)
)

[ "$group" = build ] && packages=("${build_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
