# shellcheck shell=bash
# Sourced by the scripts that run on a GPU node (tools/node/device-study.sh, tools/node/gpu/pi-study.sh),
# from the repository root: where their output goes and what every one of them sets.
#
#   device_begin DEFAULT_OUT LOG   OUT (or build/DEFAULT_OUT) made and its summary.txt emptied; a
#                                  scratch folder in $work; everything printed also kept in
#                                  $work/LOG; the environment below
#   say TEXT                       print, and add to summary.txt
#   step TEXT                      print a step's heading with the seconds so far
device_begin() {
  final=${OUT:-$PWD/build/$1}
  mkdir -p "$final"
  work=$(mktemp -d)
  summary="$final/summary.txt"
  : >"$summary"
  exec > >(tee "$work/$2") 2>&1
  # NVLink multicast stays off in NCCL, PyTorch and NVSHMEM: on the lent nodes a program that uses
  # it can put the host's shared GPUs out of service.
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  export PYTHONUNBUFFERED=1
}
say() { printf '%s\n' "$*" | tee -a "$summary"; }
step() { printf '\n=== %s  [t=%ss]\n' "$*" "$SECONDS"; }
