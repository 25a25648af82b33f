#!/usr/bin/env bash
# Unpacks the development packages of Debian 13 (trixie) that parlab builds against - CLI11,
# nlohmann-json, GoogleTest and Google Benchmark - into a prefix, for the `compat` preset:
# building and testing against them here catches the next API change of a dependency before a
# user on a newer distribution does (CLI11 2.4 once made every `parlab` command abort at start).
#
# Usage: scripts/fetch-compat-deps.sh [PREFIX]   (default build/deps/compat)
#
# Nothing is installed into the system: apt runs with a private source list, package lists and
# cache under PREFIX, so bookworm's own sources and packages stay as they are, and the .debs are
# unpacked with dpkg -x. Trixie's compiled GoogleTest and Google Benchmark libraries need its
# glibc 2.38 (__isoc23_strtol) and libstdc++, so those two are built here from trixie's sources
# (the googletest package's /usr/src/googletest, the benchmark source package) with this
# machine's compiler: the API under test is the same. Idempotent: a stamp names what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-build/deps/compat}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
packages=(libcli11-dev nlohmann-json3-dev googletest)
sources=(benchmark)
cxx=${CXX:-clang++}
cc=${CC:-clang}
stamp="$prefix/.stamp"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${packages[*]} ${sources[*]} $cxx" ]; then
  echo "fetch-compat-deps: $prefix is up to date"
  exit 0
fi

apt_dir="$prefix/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The mirror of the machine's own Debian source, trixie instead of bookworm.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
printf 'deb [signed-by=%s] %s trixie main\ndeb-src [signed-by=%s] %s trixie main\n' \
  "$keyring" "$mirror" "$keyring" "$mirror" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Dir::State::status=/dev/null
  -o APT::Sandbox::User=root -o Debug::NoLocking=1)
echo "fetch-compat-deps: trixie package lists from $mirror"
apt-get "${apt_opts[@]}" -qq update
(cd "$apt_dir/debs" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -qq download "${packages[@]}")
rm -rf "$prefix/usr" "$prefix/src"
for deb in "$apt_dir"/debs/*.deb; do
  dpkg -x "$deb" "$prefix"
  echo "fetch-compat-deps: unpacked $(basename "$deb")"
done
mkdir -p "$prefix/src"
(cd "$prefix/src" && apt-get "${apt_opts[@]}" -qq --download-only source "${sources[@]}")
for s in "${sources[@]}"; do
  tarball=$(ls "$prefix"/src/"${s}"_*.orig.tar.* | head -1)
  mkdir -p "$prefix/src/$s" && tar xf "$tarball" -C "$prefix/src/$s" --strip-components=1
done

# Both install into PREFIX/usr, beside the headers, so one CMAKE_PREFIX_PATH finds everything.
build_lib() {  # NAME SOURCE-DIR CMAKE-ARGS...
  local name=$1 src=$2
  shift 2
  echo "fetch-compat-deps: building $name from trixie's source with $cxx"
  cmake -S "$src" -B "$prefix/build/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" -DCMAKE_INSTALL_PREFIX="$prefix/usr" \
    -DCMAKE_INSTALL_LIBDIR=lib "$@" >"$prefix/build-$name.log" 2>&1 &&
    cmake --build "$prefix/build/$name" --parallel "$(nproc)" >>"$prefix/build-$name.log" 2>&1 &&
    cmake --install "$prefix/build/$name" >>"$prefix/build-$name.log" 2>&1 ||
    { tail -30 "$prefix/build-$name.log"; echo "fetch-compat-deps: building $name failed" >&2; exit 1; }
}
build_lib googletest "$prefix/usr/src/googletest" -DBUILD_GMOCK=ON -DINSTALL_GTEST=ON
build_lib benchmark "$prefix/src/benchmark" -DBENCHMARK_ENABLE_TESTING=OFF -DBENCHMARK_ENABLE_GTEST_TESTS=OFF \
  -DBENCHMARK_ENABLE_WERROR=OFF -DBENCHMARK_INSTALL_DOCS=OFF
rm -rf "$prefix/build"
echo "${packages[*]} ${sources[*]} $cxx" >"$stamp"
