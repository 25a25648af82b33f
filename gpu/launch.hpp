// Host-side launchers of the CUDA kernels, callable from plain C++ (the workloads, the tests).
// Each enqueues its kernel(s) on `stream` and checks the launch with cudaPeekAtLastError; none
// synchronises. PRECONDITION for all: the device that owns the pointers and the stream is
// current, and the pointers hold the element counts stated.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/stream.hpp"
#include "cuda_check.hpp"

namespace parlab::cuda {

// ---------------------------------------------------------------- pi (pi_kernel.cu)
// Adds to *hits the hit count of both points of every pair in [pair_begin, pair_end), plus,
// when with_tail_point, the first point of pair `pair_end` (an odd N's last point). One
// atomicAdd per block, so *hits must be zeroed (or hold a running total) before the launch.
// Returns without launching when there is nothing to count.
void launch_pi_hits(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end,
                    bool with_tail_point, unsigned long long* hits, int device, cudaStream_t stream);

// The grid launch_pi_hits uses on `device` for `pairs` pairs (for the record; not needed to call).
int pi_grid_blocks(int device, std::uint64_t pairs);

// Other shapes of the pi kernel, for an A/B comparison inside one run (gpu/pi_variants.cpp,
// tools/node/gpu/ncu-profile.sh): each adds exactly what launch_pi_hits adds. The first name is
// the shape launch_pi_hits uses; "v1" is the kernel before its rework for the issue bound. An unknown name throws
// UsageError listing the accepted ones.
std::vector<std::string> pi_kernel_variants();
void launch_pi_hits_variant(const std::string& variant, std::uint64_t seed, std::uint64_t pair_begin,
                            std::uint64_t pair_end, bool with_tail_point, unsigned long long* hits, int device,
                            cudaStream_t stream);
int pi_variant_grid_blocks(const std::string& variant, int device, std::uint64_t pairs);

// ---------------------------------------------------------------- STREAM (stream_kernels.cu)
// a, b, c := StreamInit values over n elements.
template <class T>
void launch_stream_init(T* a, T* b, T* c, std::uint64_t n, cudaStream_t stream);

// One array kernel (not dot) over n elements with BabelStream's scalar.
template <class T>
void launch_stream(StreamKernel k, T* a, T* b, T* c, std::uint64_t n, cudaStream_t stream);

// The deterministic dot's device scratch for n elements: the block partials, the partial tree's
// group values, and one arrival counter per group (zeroed here; every launch leaves them zero).
// Launches that share one scratch must be ordered (one stream): they share the counters.
template <class T>
class DotScratch {
 public:
  DotScratch(std::uint64_t n, int device);
  std::uint64_t elements() const noexcept { return n_; }
  T* values() const noexcept { return values_.get(); }
  unsigned* arrivals() const noexcept { return arrivals_.get(); }

 private:
  std::uint64_t n_;
  DeviceBuffer<T> values_;
  DeviceBuffer<unsigned> arrivals_;
};

// The deterministic dot of a and b (docs/design.md, "Deterministic reduction"): per-8192-block
// lane sums, the lanes combined by dot_combine_lanes, the block partials by the bottom-up
// pairwise tree of dot_pairwise_inplace, in one launch. Writes the result to *result: device
// memory, or page-locked host memory (cudaMallocHost: the kernel's last block stores it there
// directly, and it is the host's once the stream has passed the launch). scratch was made for
// n elements (else FailureError).
template <class T>
void launch_dot(const T* a, const T* b, std::uint64_t n, DotScratch<T>& scratch, T* result, cudaStream_t stream);

// ---------------------------------------------------------------- basic kernels (basic_kernels.cu)
void launch_plus_one(const std::int32_t* x, std::int32_t* y, std::uint64_t n, cudaStream_t stream);

// res[y*nx + x] = a[..] + b[..] on a 2-D grid of 2-D blocks.
void launch_add2d(const float* a, const float* b, float* res, std::uint64_t nx, std::uint64_t ny,
                  cudaStream_t stream);

// C = A * B, n-by-n row-major floats, with the shared-memory tiled kernel. Each C element is
// accumulated over k in ascending order with separately rounded multiply and add, so it is
// bit-identical to the naive k-ascending sum (and to the CPU's blocked kernel).
void launch_matmul_tiled(const float* A, const float* B, float* C, std::uint64_t n,
                         cudaStream_t stream);

// ---------------------------------------------------------------- practices (practice_kernels.cu)
// norm[0] := Frobenius norm of x[0..count), accumulated in double.
void launch_frobenius_norm(const float* x, std::uint64_t count, float* norm, cudaStream_t stream);

}  // namespace parlab::cuda
