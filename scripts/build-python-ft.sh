#!/usr/bin/env bash
# Builds a free-threaded CPython 3.13 ("3.13t": --disable-gil --enable-shared, rpath to its own
# lib/) from the upstream tarball inside Debian 13 (trixie)'s python3.13 source package, so the
# embedded-Python part can be built and tested against an interpreter without a GIL. Plain
# ./configure && make (not debian/rules): no PGO, no LTO, no test run, test modules left out, so
# it takes minutes, not an hour. Nothing is downloaded but Debian's source package.
#
# Usage: scripts/build-python-ft.sh [--tsan] [--print-prefix] [--source-only]
#   --tsan          clang with --with-thread-sanitizer, as CPython's CI builds its TSan
#                   free-threaded job; installs into a separate prefix (…-tsan)
#   --print-prefix  print the install prefix (building nothing) and exit
#   --source-only   fetch the source tarball into build/deps/src and exit (to carry it offline)
#
# Environment:
#   PARLAB_PYTHON_FT_SRC  the source to build instead of fetching it: an upstream tarball
#                         (python3.13_*.orig.tar.xz or Python-3.13.*.tar.xz), a folder holding
#                         one, or an unpacked source tree. With it the script needs no network
#                         and no root (the offline GPU node).
#   PARLAB_JOBS           make -j (default: nproc)
#   PARLAB_DEPS           where prefixes go (default: build/deps)
#
# Installs into $PARLAB_DEPS/python-ft-<version>[-tsan]/ (bin/python3.13t, lib/libpython3.13t.so),
# links $PARLAB_DEPS/python-ft[-tsan] to it (the presets release-ft and tsan-ft use that name) and
# prints the prefix on its last line. Idempotent: a stamp file names the version and the
# configure flags, and a prefix holding the same stamp is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

tsan=0; print_prefix=0; source_only=0
for arg in "$@"; do
  case "$arg" in
    --tsan) tsan=1 ;;
    --print-prefix) print_prefix=1 ;;
    --source-only) source_only=1 ;;
    *) echo "build-python-ft.sh: unknown argument '$arg' (accepted: --tsan, --print-prefix, --source-only)" >&2; exit 2 ;;
  esac
done

deps=${PARLAB_DEPS:-$root/build/deps}
mkdir -p "$deps/src"
deps=$(cd "$deps" && pwd)
jobs=${PARLAB_JOBS:-$(nproc)}
log() { echo "build-python-ft: $*" >&2; }

# --- the source: a given tarball/tree, one fetched before, or Debian's source package ---------
find_tarball() {  # $1: a folder; prints the newest 3.13 upstream tarball in it, if any
  ls -1 "$1"/python3.13_3.13.*.orig.tar.xz "$1"/Python-3.13.*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true
}

src=${PARLAB_PYTHON_FT_SRC:-}
if [ -n "$src" ]; then
  [ -e "$src" ] || { log "PARLAB_PYTHON_FT_SRC=$src does not exist"; exit 1; }
  if [ -d "$src" ] && [ ! -f "$src/configure" ]; then
    tarball=$(find_tarball "$src")
    [ -n "$tarball" ] || { log "no python3.13_*.orig.tar.xz or Python-3.13.*.tar.xz in $src"; exit 1; }
    src=$tarball
  fi
else
  src=$(find_tarball "$deps/src")
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
    src=$(find_tarball "$deps/src")
    [ -n "$src" ] || { log "apt-get source python3.13 gave no upstream tarball"; exit 1; }
  fi
fi
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")
if [ "$source_only" = 1 ]; then
  [ -f "$src" ] && { [ "$(dirname "$src")" = "$deps/src" ] || cp "$src" "$deps/src/"; }
  log "source: $src"; echo "$src"; exit 0
fi

# The upstream version, from the tarball's name or the tree's patchlevel.h.
if [ -d "$src" ]; then
  version=$(sed -n 's/^#define PY_VERSION[[:space:]]*"\([^"]*\)".*/\1/p' "$src/Include/patchlevel.h")
else
  version=$(basename "$src" | sed -E 's/^python3\.13_([0-9.a-z]+)\.orig\.tar\.xz$/\1/; s/^Python-([0-9.a-z]+)\.tar\.xz$/\1/')
fi
[ -n "$version" ] || { log "cannot tell the version of $src"; exit 1; }

suffix=""; [ "$tsan" = 1 ] && suffix="-tsan"
prefix="$deps/python-ft-$version$suffix"
if [ "$print_prefix" = 1 ]; then echo "$prefix"; exit 0; fi

# --disable-test-modules: no _testcapi & co and no test package installed (smaller, quicker).
# --without-ensurepip: no bundled pip (the node has no network; wheels come another way).
flags=(--disable-gil --enable-shared --disable-test-modules --without-ensurepip
       --without-doc-strings "--prefix=$prefix" "LDFLAGS=-Wl,-rpath,$prefix/lib")
if [ "$tsan" = 1 ]; then
  flags+=(--with-thread-sanitizer CC=clang CXX=clang++)
fi
stamp="$prefix/.parlab-python-ft"
want="$version ${flags[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$prefix/bin/python3.13t" ]; then
  supp="$prefix/share/parlab/tsan-suppressions_free_threading.txt"
  if [ ! -f "$supp" ]; then  # a prefix from before the suppressions were installed with it
    mkdir -p "$(dirname "$supp")"
    if [ -d "$src" ]; then cp "$src/Tools/tsan/suppressions_free_threading.txt" "$supp"
    else tar -xJf "$src" -O --wildcards '*/Tools/tsan/suppressions_free_threading.txt' >"$supp"; fi
  fi
  log "$prefix already holds CPython $version free-threaded${suffix:+ (TSan)}"
  ln -sfn "$(basename "$prefix")" "$deps/python-ft$suffix"
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
  tar -xJf "$src" -C "$work/src" --strip-components=1
fi
rm -rf "$prefix"
log "building CPython $version free-threaded${suffix:+ with TSan} into $prefix (make -j$jobs)"
start=$(date +%s)
(
  cd "$work/src"
  nice ./configure -q "${flags[@]}" >"$work/configure.log" 2>&1 ||
    { tail -n 30 "$work/configure.log" >&2; exit 1; }
  nice make -s -j"$jobs" >"$work/make.log" 2>&1 || { tail -n 40 "$work/make.log" >&2; exit 1; }
  # altinstall: bin/python3.13t only (no python3 link that could shadow another interpreter).
  nice make -s altinstall >"$work/install.log" 2>&1 || { tail -n 40 "$work/install.log" >&2; exit 1; }
  # CPython's own TSan suppressions for its free-threaded build (each entry with its reason), for
  # the tests of a TSan-instrumented interpreter (tests/embed/CMakeLists.txt appends them).
  mkdir -p "$prefix/share/parlab"
  cp Tools/tsan/suppressions_free_threading.txt "$prefix/share/parlab/tsan-suppressions_free_threading.txt"
)
"$prefix/bin/python3.13t" -c 'import sys, sysconfig
assert sysconfig.get_config_var("Py_GIL_DISABLED") == 1, "not a free-threaded build"
assert not sys._is_gil_enabled(), "the GIL is enabled at run time"' ||
  { log "the installed interpreter is not free-threaded"; exit 1; }
echo "$want" >"$stamp"
rm -rf "$work"
# A stable name for the CMake presets (release-ft, tsan-ft): the version built last.
ln -sfn "$(basename "$prefix")" "$deps/python-ft$suffix"
log "built in $(( $(date +%s) - start )) s"
echo "$prefix"
