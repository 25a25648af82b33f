#!/usr/bin/env bash
# Downloads the Debian packages an offline GPU node lacks (oneTBB, CLI11, nlohmann-json) into
# DIR, on a machine with Debian bookworm's apt. Carry DIR to the node and unpack it there with
# scripts/offline-unpack.sh (docs/design.md, "An offline GPU node").
#
# Usage: scripts/offline-bundle.sh [DIR] [--with-headers] [--with-test-libs] [--with-dask]   (default DIR: .deb, git-ignored)
#   (default)         oneTBB and its hwloc: what the Ubuntu 24.04 GPU nodes lack (seen there:
#                     CLI11 2.4.1, nlohmann-json 3.11.3, GoogleTest 1.14, Benchmark 1.8.3, Open MPI 4.1.6)
#   --with-headers    also bookworm's CLI11 and nlohmann-json, for a node without them (where the
#                     node has its own, carrying bookworm's would shadow the newer ones)
#   --with-test-libs  also GoogleTest and Google Benchmark, for a node that lacks them
#   --with-dask       also Debian 13 (trixie)'s Dask 2024.12 and dask.distributed with the pure-Python
#                     packages they need beyond what the node's venv has (NumPy, msgpack, psutil,
#                     PyYAML, Jinja2), into DIR/dask (about 3 MB; cloudpickle and toolz too, at the
#                     versions Dask wants). Fetched through a temporary apt configuration: the
#                     system's sources are left as they are. tools/node/device-study.sh pymodels unpacks
#                     them with dpkg -x and puts them on PYTHONPATH. Pure Python but tornado's
#                     optional speedups (abi3), so the node's Python 3.12 imports them.
set -euo pipefail
dir=${1:-.deb}
mkdir -p "$dir"
cd "$dir"
packages=(libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libhwloc15)
with_dask=0
for opt in "${@:2}"; do
  case "$opt" in
    --with-headers) packages+=(libcli11-dev nlohmann-json3-dev) ;;
    --with-test-libs) packages+=(libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian) ;;
    --with-dask) with_dask=1 ;;
    *) echo "offline-bundle.sh: unknown option '$opt' (accepted: --with-headers, --with-test-libs, --with-dask)" >&2; exit 2 ;;
  esac
done
if [ "$with_dask" = 1 ]; then
  # `import dask, distributed` and a LocalCluster on Python 3.12 (the node's): Depends of
  # python3-dask and python3-distributed minus what the node's venv has; importlib-metadata is
  # needed below 3.12 only.
  dask_packages=(python3-dask python3-distributed python3-partd python3-locket python3-tblib python3-zict
                 python3-tornado python3-sortedcontainers python3-fsspec python3-packaging python3-click
                 python3-urllib3 python3-cloudpickle python3-toolz)
  apt_tmp=$(mktemp -d)
  trap 'rm -rf "$apt_tmp"' EXIT
  mkdir -p "$apt_tmp/lists/partial" "$apt_tmp/cache/archives/partial"
  : >"$apt_tmp/status"  # no installed packages: nothing is skipped as already there
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    >"$apt_tmp/trixie.list"
  apt_opts=(-o Dir::Etc::sourcelist="$apt_tmp/trixie.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$apt_tmp/lists"
            -o Dir::Cache="$apt_tmp/cache" -o Dir::State::status="$apt_tmp/status")
  apt-get "${apt_opts[@]}" update -qq
  mkdir -p dask
  (cd dask && apt-get -q "${apt_opts[@]}" download "${dask_packages[@]}" >/dev/null)
  ls -1 dask/*.deb
fi
if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
  apt-get update -qq
  apt-get download "${packages[@]}"
fi
ls -1 ./*.deb
