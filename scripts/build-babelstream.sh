#!/usr/bin/env bash
# Builds BabelStream's STREAM binaries for parlab's external peers (babelstream-omp,
# babelstream-cuda; peers/backends.hpp) from a BabelStream source tree you have, with the CMake
# options its README documents (one build per model: cmake -DMODEL=<model>), and puts them in
# one directory for PARLAB_BABELSTREAM_DIR:
#
#   scripts/build-babelstream.sh [options] BABELSTREAM_SRC [OUT_DIR]
#
#   BABELSTREAM_SRC   a checkout of https://github.com/UoB-HPC/BabelStream (parlab reads its
#                     --csv output as of commit 57637d572532fc028b6c0964944f1afc27ff5436; it needs
#                     --only and --silence-errors, so a tree newer than v5.0)
#   OUT_DIR           where omp-stream and cuda-stream go (default: build/babelstream in parlab's
#                     tree); each model builds in OUT_DIR/build-<model>
#   --models LIST     comma list of omp, cuda (default: omp, and cuda when nvcc is found)
#   --cuda-arch SM    CUDA_ARCH of the cuda model, passed to nvcc as -arch (default sm_90: H100, H200)
#   --cxx COMPILER    CMAKE_CXX_COMPILER (default: CMake's choice)
#   --commit ID       the source tree's commit, when it is not a git checkout (a `git archive`)
#   --jobs N          parallel build jobs (default: every CPU)
#
# The models are built as BabelStream's README says: Release (its default: -O3, and -march=native
# with its BUILD_NATIVE=ON default); omp: -DMODEL=omp; cuda: -DMODEL=cuda
# -DCMAKE_CUDA_COMPILER=<nvcc> -DCUDA_ARCH=<sm>. The commit goes to OUT_DIR/BABELSTREAM_COMMIT
# (shown by `parlab list` and recorded in each run's context), the configure lines to
# OUT_DIR/BABELSTREAM_BUILD. Exits 1 if a model that was asked for (or omp) failed to build.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models="" cuda_arch="sm_90" cxx="" commit="" jobs="$(nproc 2>/dev/null || echo 2)"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit "${1:-2}"; }

args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models="${2:?--models needs a value}"; shift 2 ;;
    --cuda-arch) cuda_arch="${2:?--cuda-arch needs a value}"; shift 2 ;;
    --cxx) cxx="${2:?--cxx needs a value}"; shift 2 ;;
    --commit) commit="${2:?--commit needs a value}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a value}"; shift 2 ;;
    -h|--help) usage 0 ;;
    -*) echo "build-babelstream.sh: unknown option '$1'" >&2; usage 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[[ ${#args[@]} -ge 1 && ${#args[@]} -le 2 ]] || usage 2
src="$(cd "${args[0]}" && pwd)" || { echo "build-babelstream.sh: no directory ${args[0]}" >&2; exit 2; }
out="${args[1]:-$root/build/babelstream}"
if [[ ! -f "$src/CMakeLists.txt" || ! -f "$src/src/main.cpp" || ! -d "$src/src/omp" ]]; then
  echo "build-babelstream.sh: $src is not a BabelStream source tree (no CMakeLists.txt, src/main.cpp, src/omp)" >&2
  exit 2
fi
if ! grep -q -- '"--only"' "$src/src/main.cpp" || ! grep -q -- '"--silence-errors"' "$src/src/main.cpp"; then
  echo "build-babelstream.sh: $src/src/main.cpp has no --only or --silence-errors: parlab needs a BabelStream newer than v5.0" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

nvcc="${CUDACXX:-}"
[[ -n "$nvcc" ]] || nvcc="$(command -v nvcc 2>/dev/null || true)"
[[ -n "$nvcc" || ! -x /usr/local/cuda/bin/nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
# BabelStream's CUDA model includes nvml.h and links libnvidia-ml (the toolkit's cuda-nvml-dev).
nvml=""
if [[ -n "$nvcc" ]]; then
  cuda_root="$(cd "$(dirname "$nvcc")/.." && pwd)"
  for h in "$cuda_root"/include/nvml.h "$cuda_root"/targets/*/include/nvml.h /usr/include/nvml.h; do
    if [[ -f "$h" ]]; then nvml="$h"; break; fi
  done
fi
if [[ -z "$models" ]]; then
  models="omp"
  if [[ -z "$nvcc" ]]; then
    echo "build-babelstream.sh: no nvcc found: building omp only"
  elif [[ -z "$nvml" ]]; then
    echo "build-babelstream.sh: $nvcc has no nvml.h beside it (BabelStream's CUDA model needs NVML's header: the toolkit's cuda-nvml-dev): building omp only"
  else
    models="omp,cuda"
  fi
fi

if [[ -z "$commit" ]]; then
  commit="$(git -C "$src" rev-parse HEAD 2>/dev/null || true)"
  [[ -n "$commit" ]] || commit="unknown (not a git checkout; pass --commit)"
fi
echo "$commit" > "$out/BABELSTREAM_COMMIT"
: > "$out/BABELSTREAM_BUILD"

failed=()
IFS=, read -r -a wanted <<< "$models"
for model in "${wanted[@]}"; do
  flags=(-DMODEL="$model" -DCMAKE_BUILD_TYPE=Release)
  [[ -z "$cxx" ]] || flags+=(-DCMAKE_CXX_COMPILER="$cxx")
  case "$model" in
    omp) ;;
    cuda)
      if [[ -z "$nvcc" ]]; then
        echo "build-babelstream.sh: --models cuda but no nvcc (set CUDACXX or PATH)" >&2
        failed+=("$model"); continue
      fi
      if [[ -z "$nvml" ]]; then
        echo "build-babelstream.sh: --models cuda but no nvml.h under $cuda_root or /usr/include (BabelStream's CUDA model includes it: install the toolkit's cuda-nvml-dev)" >&2
        failed+=("$model"); continue
      fi
      flags+=(-DCMAKE_CUDA_COMPILER="$nvcc" -DCUDA_ARCH="$cuda_arch") ;;
    *) echo "build-babelstream.sh: model '$model' is not one parlab runs (omp, cuda)" >&2; failed+=("$model"); continue ;;
  esac
  build="$out/build-$model"
  echo "== BabelStream $model: cmake -S $src -B $build ${flags[*]}"
  echo "$model: cmake -S $src -B $build ${flags[*]}" >> "$out/BABELSTREAM_BUILD"
  rm -f "$out/$model-stream"
  log="$build.configure.log"
  if cmake -S "$src" -B "$build" "${flags[@]}" > "$log" 2>&1 &&
     log="$build.build.log" && cmake --build "$build" -j "$jobs" > "$log" 2>&1 &&
     [[ -x "$build/$model-stream" ]]; then
    cp "$build/$model-stream" "$out/$model-stream"
    echo "   built $out/$model-stream"
  else
    echo "build-babelstream.sh: the $model model did not build; the end of $log:" >&2
    tail -n 20 "$log" >&2
    failed+=("$model")
  fi
done

echo "BabelStream commit: $commit"
echo "binaries in $out:"
found=0
for b in "$out"/*-stream; do
  if [[ -x "$b" ]]; then echo "  $(basename "$b")"; found=1; fi
done
[[ $found -eq 1 ]] || echo "  (none)"
echo "use them with:  export PARLAB_BABELSTREAM_DIR=$out   (or parlab run --peer-dir $out)"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "build-babelstream.sh: failed: ${failed[*]}" >&2
  exit 1
fi
