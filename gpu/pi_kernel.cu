// Monte Carlo pi on the GPU: the canonical stream of core/pi.hpp, counted exactly.
//
// Structure: a grid-stride loop over pair indices (64-bit, so N > 2^33 uses the counter's high
// word as the CPU does), core's Philox4x32-10 (fully unrolled, in registers) and core's integer
// hit test pi_hit, per-thread 32-bit counts flushed to 64 bits, a warp-shuffle + shared-memory
// block reduction and ONE unsigned 64-bit atomicAdd per block. Integer sums are associative, so
// the result equals pi_hits_points(seed, 0, N) on the CPU for every grid shape.
//
// Measured on an H200 at N = 2^36: 6.2e11 samples/s when core's Philox rounds use __umulhi on
// the device (ptxas then emits one IMAD.WIDE per product; the 64-bit product form adds integer
// adds to the loop and gives 4.9e11). Alternatives measured and dropped: a hit test on the high
// halves with a rare exact branch (slower: the branch breaks scheduling), separate 32-bit
// counter words (no gain), more than one wave of blocks or more blocks per SM (no gain).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/pi.hpp"
#include "cuda_check.hpp"
#include "device.hpp"
#include "launch.hpp"

namespace parlab::cuda {
namespace {

constexpr int kPiThreads = 256;
constexpr int kWarps = kPiThreads / 32;
// Pairs per 32-bit flush: 2 hits per pair, so 2^30 pairs cannot overflow.
constexpr std::uint64_t kFlushPairs = std::uint64_t{1} << 30;

static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t), "atomicAdd width");

__device__ __forceinline__ std::uint32_t pair_hits(std::uint64_t j, std::uint32_t k0, std::uint32_t k1) {
  std::uint32_t x0 = static_cast<std::uint32_t>(j), x1 = static_cast<std::uint32_t>(j >> 32);
  std::uint32_t x2 = 0, x3 = 0;
  philox4x32_10_inplace(x0, x1, x2, x3, k0, k1);
  return pi_hit(x0, x1) + pi_hit(x2, x3);
}

// Sum over the block; the result is valid in thread 0.
__device__ __forceinline__ unsigned long long block_sum(unsigned long long v) {
  __shared__ unsigned long long warp_sums[kWarps];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kWarps ? warp_sums[lane] : 0ull;
    for (int offset = kWarps / 2; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

__global__ void __launch_bounds__(kPiThreads)
    pi_hits_kernel(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pairs,
                   bool with_tail_point, unsigned long long* hits) {
  const std::uint32_t k0 = static_cast<std::uint32_t>(seed);
  const std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * kPiThreads;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * kPiThreads + threadIdx.x;

  // This thread's pairs are pair_begin + first + i*stride for i < iterations.
  std::uint64_t iterations = first < pairs ? (pairs - 1 - first) / stride + 1 : 0;
  std::uint64_t j = pair_begin + first;
  unsigned long long total = 0;
  while (iterations > 0) {
    const std::uint32_t chunk =
        static_cast<std::uint32_t>(iterations < kFlushPairs ? iterations : kFlushPairs);
    std::uint32_t count = 0;
#pragma unroll 4
    for (std::uint32_t i = 0; i < chunk; ++i) {
      count += pair_hits(j, k0, k1);
      j += stride;
    }
    total += count;
    iterations -= chunk;
  }
  if (with_tail_point && first == 0) {  // the first point of pair pair_begin + pairs
    const std::uint64_t t = pair_begin + pairs;
    std::uint32_t x0 = static_cast<std::uint32_t>(t), x1 = static_cast<std::uint32_t>(t >> 32);
    std::uint32_t x2 = 0, x3 = 0;
    philox4x32_10_inplace(x0, x1, x2, x3, k0, k1);
    total += pi_hit(x0, x1);
  }
  const unsigned long long block_total = block_sum(total);
  if (threadIdx.x == 0 && block_total != 0) atomicAdd(hits, block_total);
}

}  // namespace

int pi_grid_blocks(int device, std::uint64_t pairs) {
  int per_sm = 0;
  PARLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pi_hits_kernel, kPiThreads, 0));
  // One full wave: every thread runs the same number of iterations (+-1), so more blocks than
  // fit at once would only add a tail. Fewer when there are too few pairs to fill them.
  const std::uint64_t full = static_cast<std::uint64_t>(std::max(per_sm, 1)) *
                             static_cast<std::uint64_t>(multiprocessor_count(device));
  const std::uint64_t needed = (pairs + kPiThreads - 1) / kPiThreads;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min(full, needed)));
}

void launch_pi_hits(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end,
                    bool with_tail_point, unsigned long long* hits, int device, cudaStream_t stream) {
  const std::uint64_t pairs = pair_end > pair_begin ? pair_end - pair_begin : 0;
  if (pairs == 0 && !with_tail_point) return;
  const int blocks = pi_grid_blocks(device, pairs);
  pi_hits_kernel<<<blocks, kPiThreads, 0, stream>>>(seed, pair_begin, pairs, with_tail_point, hits);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

}  // namespace parlab::cuda
