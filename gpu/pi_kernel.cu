// Monte Carlo pi on the GPU: the canonical stream of core/pi.hpp, counted exactly.
//
// Structure (reworked for the issue bound; tools/node/gpu/pi-study.sh measures it, ncu-profile.sh profiles it):
//  - the pairs are cut where the counter's high word changes (every 2^32 pairs), and each such
//    segment is split over the grid with 32-bit low words: the high word is loop-invariant, so
//    the compiler folds Philox's first round and a half out of the loop (pi_device.cuh), and no
//    64-bit index arithmetic is left in it;
//  - each thread runs Streams independent Philox streams per iteration (instruction-level
//    parallelism: a Philox round is a chain of dependent multiplies and xors, so one stream per
//    thread leaves the scheduler idle unless occupancy is very high), and __launch_bounds__
//    holds the registers to what MinBlocks blocks per SM need;
//  - misses are counted as carries in a 32-bit register (no compare, no select, no shuffle per
//    iteration), converted to hits once per segment, and the block sums its threads once at the
//    end: one warp-shuffle + shared-memory reduction and ONE 64-bit atomicAdd per block.
// Integer sums are associative, so the result equals pi_hits_points(seed, 2 * pair_begin,
// 2 * pair_end [+ 1]) on the CPU for every grid shape and every start.
//
// Static figures for sm_90 (nvcc 13.0; tools/node/gpu/sass_loops.py on the SASS): the default
// shape (4 streams, 8 blocks of 256 per SM) uses 30 registers, no spills, and its hot loop is
// 176 instructions for 4 pairs, 44 per pair (22 per sample): 18 IMAD.WIDE + 19 LOP3 of Philox,
// 4 IMAD.WIDE + 0.5 IADD3.X of hit test, the rest loop control. The kernel before the rework
// ("v1" below, kept for the A/B figure) used 46 registers and 252 instructions for 4 pairs,
// 63 per pair.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/pi.hpp"
#include "cuda_check.hpp"
#include "device.hpp"
#include "ceilings.hpp"
#include "launch.hpp"
#include "pi_device.cuh"

namespace parlab::cuda {
namespace {

constexpr int kPiThreads = 256;
constexpr int kWarps = kPiThreads / 32;
constexpr std::uint64_t kSegmentPairs = std::uint64_t{1} << 32;  // pairs per counter high word

static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t), "atomicAdd width");

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

// Misses of this thread's pairs of one segment: low words lo, lo + stride, ... (count of them),
// all under high word hi. PRECONDITIONS: lo + (count - 1) * stride < 2^32 (the pairs lie in the
// segment), and 2 * count < 2^32 (the 32-bit miss counter cannot wrap: count <= 2^32 / stride
// + 1 with stride >= kPiThreads).
template <std::uint32_t Streams>
__device__ __forceinline__ std::uint32_t segment_misses(std::uint32_t lo, std::uint32_t hi, std::uint32_t count,
                                                        std::uint32_t stride, const pi_device::PhiloxRoundKeys& keys) {
  // Stream s of a group handles low word lo + s * stride, whose round-1 product M0 * (lo + s *
  // stride) is M0 * lo + offset[s] exactly (no 32-bit wrap inside a segment): one multiply-add
  // per pair, no index add.
  std::uint64_t offset[Streams];
#pragma unroll
  for (std::uint32_t s = 0; s < Streams; ++s) offset[s] = static_cast<std::uint64_t>(pi_device::kMul0) * (s * stride);
  std::uint32_t misses = 0;
  const std::uint32_t step = Streams * stride;  // may wrap after the last full group: unused then
  for (std::uint32_t groups = count / Streams; groups != 0; --groups) {
#pragma unroll
    for (std::uint32_t s = 0; s < Streams; ++s) {
      pi_device::add_pair_misses(pi_device::mul0_wide_add(lo, offset[s]), hi, keys, misses);
    }
    lo += step;
  }
  for (std::uint32_t rest = count % Streams; rest != 0; --rest) {
    pi_device::add_pair_misses(pi_device::mul0_wide_add(lo, 0), hi, keys, misses);
    lo += stride;
  }
  return misses;
}

// Adds the hits of pairs [pair_begin, pair_begin + pairs) (plus, when with_tail_point, the first
// point of the next pair) to *hits. PRECONDITIONS: blockDim.x == kPiThreads, and the grid has
// fewer than 2^32 / Streams threads (pi_grid_blocks keeps it so).
template <std::uint32_t Streams, int MinBlocks>
__global__ void __launch_bounds__(kPiThreads, MinBlocks)
    pi_hits_kernel(const pi_device::PhiloxRoundKeys keys, std::uint64_t pair_begin, std::uint64_t pairs,
                   bool with_tail_point, unsigned long long* hits) {
  const std::uint32_t stride = gridDim.x * kPiThreads;
  const std::uint32_t first = blockIdx.x * kPiThreads + threadIdx.x;
  const std::uint64_t pair_end = pair_begin + pairs;

  unsigned long long total = 0;
  for (std::uint64_t seg = pair_begin; seg < pair_end;) {
    const std::uint32_t hi = static_cast<std::uint32_t>(seg >> 32);
    // Pairs left in this high word; never past 2^64 - 1 (pair_end itself is representable).
    const std::uint64_t room = kSegmentPairs - static_cast<std::uint32_t>(seg);
    const std::uint64_t len = pair_end - seg < room ? pair_end - seg : room;  // 1 .. 2^32
    // This thread's pairs of the segment: seg + first + i * stride for i < count.
    const std::uint32_t count = first < len ? static_cast<std::uint32_t>((len - 1 - first) / stride) + 1 : 0;
    const std::uint32_t misses =
        segment_misses<Streams>(static_cast<std::uint32_t>(seg) + first, hi, count, stride, keys);
    total += 2ull * count - misses;
    seg += len;
  }
  if (with_tail_point && first == 0) {  // the first point of pair pair_end (an odd N's last point)
    std::uint32_t r0, r1, r2, r3, misses = 0;
    pi_device::philox_pair(static_cast<std::uint32_t>(pair_end), static_cast<std::uint32_t>(pair_end >> 32), keys,
                           r0, r1, r2, r3);
    pi_device::add_miss(r0, r1, misses);
    total += 1u - misses;
  }
  const unsigned long long block_total = block_sum(total);
  if (threadIdx.x == 0 && block_total != 0) atomicAdd(hits, block_total);
}

// ---------------------------------------------------------------- v1: the kernel before the rework
// Kept only as the baseline of the A/B figure (one run measures both): one stream per thread,
// 64-bit grid-stride indices, core's Philox and pi_hit as written for the CPU. Same count.
constexpr std::uint64_t kV1FlushPairs = std::uint64_t{1} << 30;  // 2 hits per pair: no 32-bit wrap

__global__ void __launch_bounds__(kPiThreads)
    pi_hits_kernel_v1(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pairs, bool with_tail_point,
                      unsigned long long* hits) {
  const std::uint32_t k0 = static_cast<std::uint32_t>(seed);
  const std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * kPiThreads;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * kPiThreads + threadIdx.x;
  std::uint64_t iterations = first < pairs ? (pairs - 1 - first) / stride + 1 : 0;
  std::uint64_t j = pair_begin + first;
  unsigned long long total = 0;
  while (iterations > 0) {
    const std::uint32_t chunk = static_cast<std::uint32_t>(iterations < kV1FlushPairs ? iterations : kV1FlushPairs);
    std::uint32_t count = 0;
#pragma unroll 4
    for (std::uint32_t i = 0; i < chunk; ++i) {
      count += pi_pair_hits(seed, j);
      j += stride;
    }
    total += count;
    iterations -= chunk;
  }
  if (with_tail_point && first == 0) {
    const std::uint64_t t = pair_begin + pairs;
    std::uint32_t x0 = static_cast<std::uint32_t>(t), x1 = static_cast<std::uint32_t>(t >> 32);
    std::uint32_t x2 = 0, x3 = 0;
    philox4x32_10_inplace(x0, x1, x2, x3, k0, k1);
    total += pi_hit(x0, x1);
  }
  const unsigned long long block_total = block_sum(total);
  if (threadIdx.x == 0 && block_total != 0) atomicAdd(hits, block_total);
}

// ---------------------------------------------------------------- variants and launch
// The shapes one run can compare (pi_kernel_variants); the first is the one launch_pi_hits uses.
// 4 streams at 8 blocks per SM: 30 registers, full occupancy, no spills; the others bracket it
// (fewer streams, fewer blocks with more registers, more streams).
using PiKernel = void (*)(pi_device::PhiloxRoundKeys, std::uint64_t, std::uint64_t, bool, unsigned long long*);
using PiKernelV1 = void (*)(std::uint64_t, std::uint64_t, std::uint64_t, bool, unsigned long long*);

struct PiVariant {
  const char* name;
  PiKernel kernel;        // null for v1
  std::uint32_t streams;  // pairs per thread and trip of the hot loop
};

// The shape launch_pi_hits uses (kVariants[0]); gpu_pi_loop names it for `parlab ceilings`.
constexpr std::uint32_t kDefaultStreams = 4;
constexpr int kDefaultMinBlocks = 8;

const PiVariant kVariants[] = {
    {"ilp4-occ8", pi_hits_kernel<kDefaultStreams, kDefaultMinBlocks>, kDefaultStreams},
    {"ilp2-occ8", pi_hits_kernel<2, 8>, 2},
    {"ilp4-occ6", pi_hits_kernel<4, 6>, 4},
    {"ilp8-occ5", pi_hits_kernel<8, 5>, 8},
    {"v1", nullptr, 1},
};

const PiVariant& find_variant(const std::string& name) {
  for (const PiVariant& v : kVariants) {
    if (name == v.name) return v;
  }
  std::string accepted;
  for (const PiVariant& v : kVariants) accepted += std::string(accepted.empty() ? "" : ", ") + v.name;
  throw UsageError("pi kernel variant '" + name + "' is unknown (accepted: " + accepted + ")");
}

template <class Kernel>
int grid_blocks(Kernel kernel, std::uint32_t streams, int device, std::uint64_t pairs) {
  int per_sm = 0;
  PARLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPiThreads, 0));
  // One full wave: every thread runs the same number of pairs (+-1 per segment), so more blocks
  // than fit at once would only add a tail. Fewer when there are too few pairs to fill them.
  const std::uint64_t full = static_cast<std::uint64_t>(std::max(per_sm, 1)) *
                             static_cast<std::uint64_t>(multiprocessor_count(device));
  const std::uint64_t needed = (pairs + kPiThreads - 1) / kPiThreads;
  // The kernel's 32-bit low-word arithmetic needs streams * threads < 2^32 (a bound no real
  // GPU's single wave comes near: 132 SMs x 2048 threads is 2^18).
  const std::uint64_t max_blocks = (std::uint64_t{1} << 32) / (std::uint64_t{streams} * kPiThreads) - 1;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min({full, needed, max_blocks})));
}

int variant_grid_blocks(const PiVariant& v, int device, std::uint64_t pairs) {
  return v.kernel != nullptr ? grid_blocks(v.kernel, v.streams, device, pairs)
                             : grid_blocks(static_cast<PiKernelV1>(pi_hits_kernel_v1), 1, device, pairs);
}

}  // namespace

std::vector<std::string> pi_kernel_variants() {
  std::vector<std::string> names;
  for (const PiVariant& v : kVariants) names.emplace_back(v.name);
  return names;
}

int pi_grid_blocks(int device, std::uint64_t pairs) { return variant_grid_blocks(kVariants[0], device, pairs); }

int pi_variant_grid_blocks(const std::string& variant, int device, std::uint64_t pairs) {
  return variant_grid_blocks(find_variant(variant), device, pairs);
}

void launch_pi_hits_variant(const std::string& variant, std::uint64_t seed, std::uint64_t pair_begin,
                            std::uint64_t pair_end, bool with_tail_point, unsigned long long* hits, int device,
                            cudaStream_t stream) {
  const PiVariant& v = find_variant(variant);
  const std::uint64_t pairs = pair_end > pair_begin ? pair_end - pair_begin : 0;
  if (pairs == 0 && !with_tail_point) return;
  const int blocks = variant_grid_blocks(v, device, pairs);
  if (v.kernel != nullptr) {
    v.kernel<<<blocks, kPiThreads, 0, stream>>>(pi_device::round_keys(seed), pair_begin, pairs, with_tail_point,
                                                hits);
  } else {
    pi_hits_kernel_v1<<<blocks, kPiThreads, 0, stream>>>(seed, pair_begin, pairs, with_tail_point, hits);
  }
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

void launch_pi_hits(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end, bool with_tail_point,
                    unsigned long long* hits, int device, cudaStream_t stream) {
  launch_pi_hits_variant(kVariants[0].name, seed, pair_begin, pair_end, with_tail_point, hits, device, stream);
}

}  // namespace parlab::cuda

namespace parlab {

GpuPiLoop gpu_pi_loop() {
  // Itanium mangling of the template arguments <4u, 8>: "ILj4ELi8EE".
  return {"pi_hits_kernelILj" + std::to_string(cuda::kDefaultStreams) + "ELi" +
              std::to_string(cuda::kDefaultMinBlocks) + "EE",
          static_cast<int>(cuda::kDefaultStreams)};
}

}  // namespace parlab
