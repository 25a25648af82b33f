#!/usr/bin/env bash
# Downloads the Debian packages an offline GPU node lacks (oneTBB, CLI11, nlohmann-json) into
# DIR, on a machine with Debian bookworm's apt. Carry DIR to the node and unpack it there with
# scripts/offline-unpack.sh (DESIGN.md, "Building on an offline GPU node").
#
# Usage: scripts/offline-bundle.sh [DIR] [--with-test-libs]   (default DIR: .deb, which git ignores)
#   --with-test-libs  also GoogleTest and Google Benchmark, for a node that lacks them
set -euo pipefail
dir=${1:-.deb}
mkdir -p "$dir"
cd "$dir"
packages=(libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libhwloc15 libcli11-dev nlohmann-json3-dev)
if [ "${2:-}" = "--with-test-libs" ]; then
  packages+=(libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian)
fi
if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
  apt-get update -qq
  apt-get download "${packages[@]}"
fi
ls -1 ./*.deb
