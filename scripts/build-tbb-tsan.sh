#!/usr/bin/env bash
# Builds oneTBB from Debian's source package with -DTBB_SANITIZE=thread, so ThreadSanitizer
# sees every atomic and futex TBB synchronises with (the system libtbb is not instrumented, and
# TSan then reports false races between a task and its spawner).
#
# Usage: scripts/build-tbb-tsan.sh PREFIX
# Idempotent: does nothing when PREFIX already holds the build for the same source version.
set -euo pipefail

prefix=${1:?usage: build-tbb-tsan.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# A deb-src entry mirroring the existing binary source, so `apt-get source` works.
src_list=/etc/apt/sources.list.d/parlab-deb-src.sources
if [ ! -f "$src_list" ]; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $SUDO tee "$src_list" >/dev/null
  else
    grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee "$src_list" >/dev/null
  fi
  $SUDO apt-get update -qq
fi

version=$(dpkg-query -W -f='${Version}' libtbb-dev 2>/dev/null || true)
stamp="$prefix/.parlab-tbb-tsan-$version"
if [ -n "$version" ] && [ -f "$stamp" ]; then
  echo "build-tbb-tsan: $prefix already holds oneTBB $version built with TSan"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq --download-only "onetbb=$version" >/dev/null 2>&1 || apt-get source -qq --download-only onetbb >/dev/null)
(cd "$work" && dpkg-source -x --no-check ./*.dsc src >/dev/null)

cmake -S "$work/src" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTBB_SANITIZE=thread -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBB_STRICT=OFF \
  -DTBBMALLOC_BUILD=OFF -DTBB_ENABLE_IPO=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$work/build" --parallel "$(nproc)"
cmake --install "$work/build" >/dev/null
touch "$stamp"
echo "build-tbb-tsan: installed oneTBB ${version:-source} with TSan into $prefix"
