#!/usr/bin/env bash
# Downloads the Debian packages an offline GPU node lacks (oneTBB, CLI11, nlohmann-json) into
# DIR, on a machine with Debian bookworm's apt. Carry DIR to the node and unpack it there with
# scripts/offline-unpack.sh (docs/design.md, "An offline GPU node").
#
# Usage: scripts/offline-bundle.sh [DIR] [--with-headers] [--with-test-libs] [--with-dask]   (default DIR: .deb, git-ignored)
#        scripts/offline-bundle.sh --print-trixie-sources   (what --with-dask would fetch from; downloads nothing)
#   (default)         oneTBB and its hwloc: what the Ubuntu 24.04 GPU nodes lack (seen there:
#                     CLI11 2.4.1, nlohmann-json 3.11.3, GoogleTest 1.14, Benchmark 1.8.3, Open MPI 4.1.6)
#   --with-headers    also bookworm's CLI11 and nlohmann-json, for a node without them (where the
#                     node has its own, carrying bookworm's would shadow the newer ones)
#   --with-test-libs  also GoogleTest and Google Benchmark, for a node that lacks them
#   --with-dask       also Debian 13 (trixie)'s Dask 2024.12 and dask.distributed with the pure-Python
#                     packages they need beyond what the node's venv has (NumPy, msgpack, psutil,
#                     PyYAML, Jinja2), into DIR/dask (about 3 MB; cloudpickle and toolz too, at the
#                     versions Dask wants). Fetched through a temporary apt configuration made
#                     from the system's own Debian sources (/etc/apt/sources.list and
#                     sources.list.d/*.list and *.sources, deb822 too) with the suite swapped
#                     (bookworm -> trixie, bookworm-security -> trixie-security, ...), so it uses
#                     the mirror the machine is set up for and names no host; the system's sources
#                     are left as they are. tools/node/device-study.sh pymodels unpacks
#                     them with dpkg -x and puts them on PYTHONPATH. Pure Python but tornado's
#                     optional speedups (abi3), so the node's Python 3.12 imports them.
set -euo pipefail

# The system's Debian sources with the suite swapped, one-line format: every `deb` entry (of a
# .list file, or a deb822 paragraph of a .sources file that is not Enabled: no) whose suite is
# the system's release or one of its -updates/-security/... suites; other entries (other
# distributions, third-party repositories) are left out. PARLAB_APT_ETC (default /etc/apt) and
# PARLAB_DEBIAN_FROM (default: VERSION_CODENAME of /etc/os-release) are for tests.
trixie_sources() {
  local etc=${PARLAB_APT_ETC:-/etc/apt} from=${PARLAB_DEBIAN_FROM:-} to=trixie files=()
  if [ -z "$from" ]; then
    # shellcheck disable=SC1091  # the system's, read at run time
    from=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  fi
  [ -n "$from" ] || { echo "offline-bundle.sh: no Debian release named in /etc/os-release" >&2; return 1; }
  [ -f "$etc/sources.list" ] && files+=("$etc/sources.list")
  for f in "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] || { echo "offline-bundle.sh: no apt sources under $etc" >&2; return 1; }
  awk -v from="$from" -v to="$to" '
    function swap(suite) { return (suite == from || index(suite, from "-") == 1) ? to substr(suite, length(from) + 1) : "" }
    function emit(opts, uri, suite, comps,   s) {
      s = swap(suite)
      if (s != "" && !seen[uri " " s " " comps]++) print "deb " (opts == "" ? "" : "[" opts "] ") uri " " s " " comps
    }
    function flush(   n, i, j, k, u, su, opts) {
      if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no" && uris != "" && suites != "") {
        opts = signed == "" ? "" : "signed-by=" signed
        n = split(uris, u, " "); k = split(suites, su, " ")
        for (i = 1; i <= n; i++) for (j = 1; j <= k; j++) emit(opts, u[i], su[j], comps)
      }
      types = uris = suites = comps = signed = enabled = ""
    }
    FNR == 1 { flush(); deb822 = FILENAME ~ /\.sources$/ }
    deb822 {
      if ($0 ~ /^[ \t]*$/) { flush(); next }
      if ($0 ~ /^#/) next
      key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
      if (key == "types") types = val; else if (key == "uris") uris = val; else if (key == "suites") suites = val
      else if (key == "components") comps = val; else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = val
      next
    }
    {
      sub(/#.*/, ""); if ($1 != "deb") next
      opts = ""; i = 2
      if ($2 ~ /^\[/) {  # [options], possibly over several fields
        opts = $2; while (opts !~ /\]$/ && i < NF) { i++; opts = opts " " $i }
        gsub(/^\[|\]$/, "", opts); i++
      }
      comps = ""; for (j = i + 2; j <= NF; j++) comps = comps (comps == "" ? "" : " ") $j
      emit(opts, $i, $(i + 1), comps)
    }
    END { flush() }
  ' "${files[@]}"
}

if [ "${1:-}" = --print-trixie-sources ]; then
  out=$(trixie_sources)
  [ -n "$out" ] || { echo "offline-bundle.sh: no Debian entry in the apt sources to swap" >&2; exit 1; }
  printf '%s\n' "$out"
  exit 0
fi

dir=${1:-.deb}
mkdir -p "$dir"
cd "$dir"
# likwid (likwid-bench, the likwid-bench-* peers) needs lua5.3 and liblua5.3-0, which the node lacks.
# python3-jsonschema (with attrs and pyrsistent, pure Python) checks a results file before the
# analysis reads it (analysis/validate.py): `parlab report` on the node needs it.
packages=(libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libhwloc15 likwid lua5.3 liblua5.3-0
          python3-jsonschema python3-attr python3-pyrsistent)
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
  trixie_sources >"$apt_tmp/trixie.list"
  [ -s "$apt_tmp/trixie.list" ] || { echo "offline-bundle.sh: no Debian entry in the apt sources to swap" >&2; exit 1; }
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
