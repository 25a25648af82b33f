#!/usr/bin/env bash
# Unpacks the .deb files of DIR into PREFIX with dpkg -x (no root, no apt, no network) and
# prints the CMAKE_PREFIX_PATH to configure with. Idempotent.
#
# Usage: scripts/offline-unpack.sh DIR PREFIX
#   cmake --preset h200 -DCMAKE_PREFIX_PATH="$(scripts/offline-unpack.sh .deb /tmp/parlab-deps)"
set -euo pipefail
dir=${1:?usage: offline-unpack.sh DIR PREFIX}
prefix=${2:?usage: offline-unpack.sh DIR PREFIX}
shopt -s nullglob
debs=("$dir"/*.deb)
if [ ${#debs[@]} -eq 0 ]; then
  echo "offline-unpack.sh: no .deb files in '$dir' (make them with scripts/offline-bundle.sh)" >&2
  exit 2
fi
mkdir -p "$prefix"
for deb in "${debs[@]}"; do dpkg -x "$deb" "$prefix"; done
prefix=$(cd "$prefix" && pwd)
echo "$prefix/usr"
