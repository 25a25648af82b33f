#!/usr/bin/env bash
# Builds a free-threaded CPython ("3.13t", "3.14t", ...: --disable-gil --enable-shared, rpath to
# its own lib/) so the embedded-Python part can be built and tested against an interpreter without
# a GIL. By default from the upstream tarball inside Debian 13 (trixie)'s python3.13 source
# package; any CPython >= 3.13 source (a python.org tarball or a source tree) through
# PARLAB_PYTHON_FT_SRC. Plain ./configure && make (not debian/rules): no PGO, no LTO, no test
# run, test modules left out, so it takes minutes, not an hour. Nothing is downloaded but
# Debian's source package (and nothing at all with PARLAB_PYTHON_FT_SRC).
#
# Usage: scripts/build-python-ft.sh [--tsan] [--print-prefix] [--source-only]
#        scripts/build-python-ft.sh --detect-version SRC
#   --tsan          clang with --with-thread-sanitizer, as CPython's CI builds its TSan
#                   free-threaded job; installs into a separate prefix (…-tsan)
#   --print-prefix  print the install prefix (building nothing) and exit
#   --source-only   fetch the source tarball into build/deps/src and exit (to carry it offline;
#                   with PARLAB_PYTHON_FT_SRC a tarball, copy that one there)
#   --detect-version SRC  print the CPython version of SRC (a tarball or a source tree) and exit:
#                   0 for >= 3.13, 2 (with the reason) for an older one, 1 when it cannot tell
#
# Environment:
#   PARLAB_PYTHON_FT_SRC  the source to build instead of Debian's python3.13: an upstream tarball
#                         (Python-3.14.0.tgz, Python-3.14.0rc1.tar.xz, python3.13_3.13.5.orig.tar.xz,
#                         ...), a folder holding such tarballs (the newest version is taken), or an
#                         unpacked source tree. CPython >= 3.13 (the first with free-threading);
#                         older ones are refused (exit 2). With it the script needs no network and
#                         no root (the offline GPU node).
#   PARLAB_JOBS           make -j (default: nproc)
#   PARLAB_DEPS           where prefixes go (default: build/deps)
#
# The version comes from the tree's Include/patchlevel.h (PY_MAJOR_VERSION, PY_MINOR_VERSION,
# PY_MICRO_VERSION, PY_VERSION) or the tarball's name, else the patchlevel.h inside the tarball.
# Installs into $PARLAB_DEPS/python-ft-<version>[-tsan]/ (bin/python3.Yt, lib/libpython3.Yt.so)
# with a version-independent link bin/python3t -> python3.Yt, links $PARLAB_DEPS/python-ft[-tsan]
# to the prefix (the presets release-ft and tsan-ft use …/python-ft[-tsan]/bin/python3t) and
# prints the prefix on its last line. Idempotent per version: a stamp file names the version and
# the configure flags, and a prefix holding the same stamp is reused (only the links are renewed).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

log() { echo "build-python-ft: $*" >&2; }

# --- which CPython a source is ----------------------------------------------------------------
# Each sets `version` (the full label: 3.14.0, 3.14.0rc1, 3.15.0a1+) and `xy` (3.14), or returns 1.
version_from_patchlevel() {  # stdin: Include/patchlevel.h
  local text major minor micro full
  text=$(cat)
  major=$(sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}PY_MAJOR_VERSION[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' <<<"$text" | head -n 1)
  minor=$(sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}PY_MINOR_VERSION[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' <<<"$text" | head -n 1)
  micro=$(sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}PY_MICRO_VERSION[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' <<<"$text" | head -n 1)
  full=$(sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}PY_VERSION[[:space:]]\{1,\}"\([^"]*\)".*/\1/p' <<<"$text" | head -n 1)
  [ -n "$major" ] && [ -n "$minor" ] && [ -n "$micro" ] || return 1
  xy="$major.$minor"
  # PY_VERSION adds the release level ("3.14.0rc1"); it must agree with the numbers.
  if [[ "$full" == "$major.$minor.$micro"* ]]; then version=$full; else version="$major.$minor.$micro"; fi
}

version_from_name() {  # $1: a tarball's file name
  local re_upstream='^Python-([0-9]+)\.([0-9]+)\.([0-9]+)((a|b|rc)[0-9]+)?\.(tgz|tar\.(gz|xz|bz2|zst))$'
  local re_debian='^python[0-9]+\.[0-9]+_([0-9]+)\.([0-9]+)\.([0-9]+)(~?((a|b|rc)[0-9]+))?\.orig\.tar\.(gz|xz|bz2)$'
  if [[ "$1" =~ $re_upstream ]]; then
    xy="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"; version="$xy.${BASH_REMATCH[3]}${BASH_REMATCH[4]}"
  elif [[ "$1" =~ $re_debian ]]; then
    xy="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"; version="$xy.${BASH_REMATCH[3]}${BASH_REMATCH[5]}"
  else
    return 1
  fi
}

# detect_version SRC: a source tree (its Include/patchlevel.h) or a tarball (its name, else the
# patchlevel.h inside it). Sets version and xy; exits 2 for a CPython older than 3.13, 1 when the
# version cannot be told.
detect_version() {
  local src=$1
  version=""; xy=""
  if [ -d "$src" ]; then
    if [ -f "$src/Include/patchlevel.h" ]; then version_from_patchlevel <"$src/Include/patchlevel.h" || true; fi
  elif [ -f "$src" ]; then
    if ! version_from_name "$(basename "$src")"; then
      # GNU tar tells the compression (gz, xz, bz2, zst) from the file itself.
      local inside
      inside=$(tar -xOf "$src" --wildcards '*/Include/patchlevel.h' 2>/dev/null || true)
      version_from_patchlevel <<<"$inside" || true
    fi
  fi
  [ -n "$version" ] || { log "cannot tell the CPython version of $src (no Include/patchlevel.h, not a Python-X.Y.Z tarball)"; exit 1; }
  version=$(printf '%s' "$version" | tr -cd '0-9A-Za-z.+')  # a path component
  local major=${xy%%.*} minor=${xy#*.}
  if [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -lt 13 ]; }; then
    log "$src is CPython $version: free-threading (--disable-gil) needs CPython 3.13 or newer"
    exit 2
  fi
}

# A folder's upstream tarballs of any version (all = 1) or Debian's python3.13 only (all = 0);
# prints the one of the highest version, if any.
find_tarball() {  # $1: a folder, $2: all
  local f best="" best_v="" version xy
  shopt -s nullglob
  local candidates=("$1"/python3.13_3.13.*.orig.tar.* "$1"/Python-3.13.*.t*z*)
  if [ "$2" = 1 ]; then candidates=("$1"/python3.*_*.orig.tar.* "$1"/Python-*.t*z*); fi
  shopt -u nullglob
  for f in "${candidates[@]}"; do
    version_from_name "$(basename "$f")" || continue
    # A pre-release before its release: 3.14.0~rc1 < 3.14.0 in sort -V.
    version=$(sed -E 's/(a|b|rc)([0-9]+)$/~\1\2/' <<<"$version")
    if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best_v" "$version" | sort -V | tail -n 1)" = "$version" ]; then
      best=$f; best_v=$version
    fi
  done
  echo "$best"
}

tsan=0; print_prefix=0; source_only=0; detect=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tsan) tsan=1 ;;
    --print-prefix) print_prefix=1 ;;
    --source-only) source_only=1 ;;
    --detect-version)
      [ $# -ge 2 ] || { echo "build-python-ft.sh: --detect-version needs a tarball or a source tree" >&2; exit 2; }
      detect=$2; shift ;;
    *) echo "build-python-ft.sh: unknown argument '$1' (accepted: --tsan, --print-prefix, --source-only, --detect-version SRC)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$detect" ]; then
  [ -e "$detect" ] || { log "$detect does not exist"; exit 1; }
  detect_version "$detect"
  echo "$version"
  exit 0
fi

deps=${PARLAB_DEPS:-$root/build/deps}
mkdir -p "$deps/src"
deps=$(cd "$deps" && pwd)
jobs=${PARLAB_JOBS:-$(nproc)}

# --- the source: a given tarball/tree/folder, one fetched before, or Debian's source package ----
src=${PARLAB_PYTHON_FT_SRC:-}
if [ -n "$src" ]; then
  [ -e "$src" ] || { log "PARLAB_PYTHON_FT_SRC=$src does not exist"; exit 1; }
  if [ -d "$src" ] && [ ! -f "$src/configure" ]; then
    tarball=$(find_tarball "$src" 1)
    [ -n "$tarball" ] || { log "no CPython source tarball (Python-X.Y.Z.tgz/.tar.xz, python3.Y_*.orig.tar.xz) in $src"; exit 1; }
    src=$tarball
  fi
else
  src=$(find_tarball "$deps/src" 0)
  if [ -z "$src" ]; then
    # A deb-src entry for trixie only, mirroring the existing apt source: source packages come
    # from trixie, binaries keep coming from the system's own suites (no trixie .deb installed).
    SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    list=/etc/apt/sources.list.d/parlab-trixie-src.sources
    if [ ! -f "$list" ]; then
      printf '%s\n' \
        "# parlab scripts/build-python-ft.sh: trixie source packages only (python3.13's upstream tarball)." \
        "Types: deb-src" "URIs: http://deb.debian.org/debian" "Suites: trixie" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" | $SUDO tee "$list" >/dev/null
    fi
    # Update this list alone: quick, and it leaves the other sources' indexes as they are.
    $SUDO apt-get update -qq -o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=- \
      -o APT::Get::List-Cleanup=0
    # --download-only: apt checks the files against the signed Sources index; the Debian patch
    # set is not applied (plain upstream CPython).
    (cd "$deps/src" && apt-get source -qq --download-only python3.13 >/dev/null 2>&1)
    src=$(find_tarball "$deps/src" 0)
    [ -n "$src" ] || { log "apt-get source python3.13 gave no upstream tarball"; exit 1; }
  fi
fi
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")
detect_version "$src"  # version, xy; refuses (exit 2) anything older than 3.13
if [ "$source_only" = 1 ]; then
  [ -f "$src" ] && { [ "$(dirname "$src")" = "$deps/src" ] || cp "$src" "$deps/src/"; }
  log "source: $src (CPython $version)"; echo "$src"; exit 0
fi

suffix=""; [ "$tsan" = 1 ] && suffix="-tsan"
prefix="$deps/python-ft-$version$suffix"
if [ "$print_prefix" = 1 ]; then echo "$prefix"; exit 0; fi
python="$prefix/bin/python${xy}t"  # make altinstall's name for a free-threaded build

# The version-independent names: bin/python3t in the prefix, and $deps/python-ft[-tsan] -> the
# prefix, so the presets and scripts name …/python-ft[-tsan]/bin/python3t whatever X.Y was built.
link_prefix() {
  ln -sfn "python${xy}t" "$prefix/bin/python3t"
  ln -sfn "$(basename "$prefix")" "$deps/python-ft$suffix"
}

# --disable-test-modules: no _testcapi & co and no test package installed (smaller, quicker).
# --without-ensurepip: no bundled pip (the node has no network; wheels come another way).
flags=(--disable-gil --enable-shared --disable-test-modules --without-ensurepip
       --without-doc-strings "--prefix=$prefix" "LDFLAGS=-Wl,-rpath,$prefix/lib")
if [ "$tsan" = 1 ]; then
  flags+=(--with-thread-sanitizer CC=clang CXX=clang++)
fi
stamp="$prefix/.parlab-python-ft"
want="$version ${flags[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$python" ]; then
  supp="$prefix/share/parlab/tsan-suppressions_free_threading.txt"
  if [ ! -f "$supp" ]; then  # a prefix from before the suppressions were installed with it
    mkdir -p "$(dirname "$supp")"
    if [ -d "$src" ]; then cp "$src/Tools/tsan/suppressions_free_threading.txt" "$supp"
    else tar -xf "$src" -O --wildcards '*/Tools/tsan/suppressions_free_threading.txt' >"$supp"; fi
  fi
  log "$prefix already holds CPython $version free-threaded${suffix:+ (TSan)}"
  link_prefix
  echo "$prefix"; exit 0
fi

# Build dependencies from the system's own suites (bookworm here), where apt and root exist;
# on a node without them, modules whose headers are missing are simply not built.
if [ -z "${PARLAB_PYTHON_FT_SRC:-}" ] && command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
  need=()
  for p in build-essential libssl-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev libsqlite3-dev \
           libreadline-dev uuid-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
  done
  [ "$tsan" = 1 ] && { command -v clang >/dev/null || need+=(clang); }
  if [ ${#need[@]} -gt 0 ]; then
    log "installing build dependencies: ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

work="$deps/python-ft-$version$suffix.build"
rm -rf "$work"; mkdir -p "$work"
if [ -d "$src" ]; then
  cp -a "$src" "$work/src"
else
  mkdir -p "$work/src"
  tar -xf "$src" -C "$work/src" --strip-components=1
fi
rm -rf "$prefix"
log "building CPython $version free-threaded${suffix:+ with TSan} into $prefix (make -j$jobs)"
start=$(date +%s)
(
  cd "$work/src"
  nice ./configure -q "${flags[@]}" >"$work/configure.log" 2>&1 ||
    { tail -n 30 "$work/configure.log" >&2; exit 1; }
  nice make -s -j"$jobs" >"$work/make.log" 2>&1 || { tail -n 40 "$work/make.log" >&2; exit 1; }
  # altinstall: bin/python3.Yt only (no python3 link that could shadow another interpreter).
  # COMPILEALL_OPTS with -l: byte-compile the standard library's top level only, not every
  # package at three optimization levels. The interpreter that compiles is the one just built,
  # and under TSan that took over a minute; a module imported later is compiled then, once, into
  # its __pycache__ (the prefix is ours and writable).
  nice make -s altinstall COMPILEALL_OPTS="-j0 -l" >"$work/install.log" 2>&1 ||
    { tail -n 40 "$work/install.log" >&2; exit 1; }
  # CPython's own TSan suppressions for its free-threaded build (each entry with its reason), for
  # the tests of a TSan-instrumented interpreter (tests/embed/CMakeLists.txt appends them).
  mkdir -p "$prefix/share/parlab"
  cp Tools/tsan/suppressions_free_threading.txt "$prefix/share/parlab/tsan-suppressions_free_threading.txt"
)
"$python" -c 'import sys, sysconfig
assert sysconfig.get_config_var("Py_GIL_DISABLED") == 1, "not a free-threaded build"
assert not sys._is_gil_enabled(), "the GIL is enabled at run time"' ||
  { log "the installed interpreter ($python) is not free-threaded"; exit 1; }
echo "$want" >"$stamp"
rm -rf "$work"
# The stable names for the CMake presets (release-ft, tsan-ft): the version built last.
link_prefix
log "built in $(( $(date +%s) - start )) s"
echo "$prefix"
