#!/usr/bin/env bash
# Downloads the Debian packages an offline GPU node lacks (oneTBB, CLI11, nlohmann-json) into
# DIR, on a machine with Debian bookworm's apt. Carry DIR to the node and unpack it there with
# scripts/offline-unpack.sh (DESIGN.md, "Building on an offline GPU node").
#
# Usage: scripts/offline-bundle.sh [DIR] [--with-headers] [--with-test-libs]   (default DIR: .deb, git-ignored)
#   (default)         oneTBB and its hwloc: what the Ubuntu 24.04 GPU nodes lack (seen there:
#                     CLI11 2.4.1, nlohmann-json 3.11.3, GoogleTest 1.14, Benchmark 1.8.3, Open MPI 4.1.6)
#   --with-headers    also bookworm's CLI11 and nlohmann-json, for a node without them (where the
#                     node has its own, carrying bookworm's would shadow the newer ones)
#   --with-test-libs  also GoogleTest and Google Benchmark, for a node that lacks them
set -euo pipefail
dir=${1:-.deb}
mkdir -p "$dir"
cd "$dir"
packages=(libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libhwloc15)
for opt in "${@:2}"; do
  case "$opt" in
    --with-headers) packages+=(libcli11-dev nlohmann-json3-dev) ;;
    --with-test-libs) packages+=(libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian) ;;
    *) echo "offline-bundle.sh: unknown option '$opt' (accepted: --with-headers, --with-test-libs)" >&2; exit 2 ;;
  esac
done
if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
  apt-get update -qq
  apt-get download "${packages[@]}"
fi
ls -1 ./*.deb
