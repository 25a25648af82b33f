// The name of every CUDA backend, whether or not this build has the CUDA part. A build without
// gpu/ (no CUDA toolkit) registers each as unavailable with the reason (experiments/wiring/make_registry.cpp),
// so a suite that names them, such as multi-gpu, plans everywhere and its records say why they did
// not run. Plain C++: it is included where the CUDA runtime is absent. gpu/backends.cpp registers
// exactly these, and tests/gpu checks it.
#pragma once

#include <array>
#include <string_view>

namespace parlab::cuda {

inline constexpr std::array<std::string_view, 5> kBackendNames = {"cuda", "cuda-cublas", "cuda-multi",
                                                                  "cuda-multi-seq", "cuda-memcpy"};

// Variants that "all" and "gpu" leave out: the baseline of the multi-GPU concurrency study, and
// the driver's copy, a peer measured where a suite or --backend names it (stream-peers).
inline constexpr bool in_default_set(std::string_view name) {
  return name != "cuda-multi-seq" && name != "cuda-memcpy";
}

}  // namespace parlab::cuda
