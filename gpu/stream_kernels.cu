// The STREAM set on the GPU, with the element operations of core/stream.hpp.
//
// Array kernels: one 16-byte vector (double2, float4; cudaMalloc returns 256-byte aligned
// memory) per thread over a grid that covers the array (a grid-stride loop only beyond 2^31
// blocks), loading only the arrays a kernel reads and storing only those it writes, each element
// computed by core's stream_element; the n % width tail is scalar.
//
// dot reproduces the CPU's deterministic order, so the bits match the CPU (tests/gpu asserts it):
//   1. one warp owns one 8192-element block. Each step the warp reads 32 consecutive elements
//      (one coalesced 256-byte load per array); thread j's element belongs to lane j % 8, so the
//      lane's thread (j < 8) gathers the step's other three products by warp shuffles and adds
//      its four in index order, with separately rounded multiply and add (__fmul_rn/__fadd_rn:
//      no FMA whatever the flags), exactly as dot_block's lane l. Each thread issues the loads
//      of 8 steps before it uses any.
//   2. the warp's first thread gathers the eight lane sums by warp shuffles and combines them
//      with core's dot_combine_lanes;
//   3. the block partials are combined by the bottom-up neighbour-pair tree of
//      dot_pairwise_inplace. That tree is aligned: the node over partials [g*G, (g+1)*G) for a
//      power of two G depends only on those partials (a missing right child carries the left
//      one up, as the odd element does on the CPU). So the tree is cut into aligned groups of
//      512, and the CUDA block that writes a group's last missing value (the last to arrive at
//      the group's atomic counter) reduces that group in shared memory and writes its value to
//      the next level, until one group is left, whose tree is dot_pairwise_inplace's over those
//      values. All of it is one launch.
// Why a warp per block (Nsight Compute on an H200, 2^28 doubles): the earlier layout, eight
// threads per block each striding by 8 elements, kept 32768 blocks' streams open at once,
// 64 bytes per block per step, and its threads waited on their loads: 76% of DRAM bandwidth
// (3.66 TB/s, 1.17 ms), 376 cycles between issued instructions of a warp, 90% of them stalled on
// L1TEX; BabelStream's grid-stride dot reached 95% (4.58 TB/s). With a warp per block the
// kernel reached 95.5% (935 us; BabelStream's 937 us in the same call), and what was left was
// the tree's own launches (3.4 + 2.9 us of a 965 us dot): the last-arriving block reduces the
// groups instead, inside the one launch.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/stream.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

namespace parlab::cuda {
namespace {

constexpr int kThreads = 256;        // dot's kernels
constexpr int kArrayThreads = 1024;  // the array kernels (see grid_for)
constexpr std::uint64_t kMaxGrid = 0x7fffffff;  // the largest gridDim.x; larger arrays loop

template <class T>
struct Vector16;
template <>
struct Vector16<double> {
  using type = double2;
  static constexpr int width = 2;
  __device__ static void split(const double2& v, double (&r)[2]) { r[0] = v.x; r[1] = v.y; }
  __device__ static double2 join(const double (&r)[2]) { return make_double2(r[0], r[1]); }
};
template <>
struct Vector16<float> {
  using type = float4;
  static constexpr int width = 4;
  __device__ static void split(const float4& v, float (&r)[4]) { r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w; }
  __device__ static float4 join(const float (&r)[4]) { return make_float4(r[0], r[1], r[2], r[3]); }
};

// Which arrays kernel K reads and writes: its row of kStreamKernels.
template <StreamKernel K>
struct Access {
  static constexpr unsigned reads = kStreamKernels[static_cast<std::size_t>(K)].reads;
  static constexpr unsigned writes = kStreamKernels[static_cast<std::size_t>(K)].writes;
};

template <class T, StreamKernel K>
__global__ void __launch_bounds__(kArrayThreads)
    stream_kernel(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, T s, std::uint64_t n) {
  using V = typename Vector16<T>::type;
  constexpr int W = Vector16<T>::width;
  using Acc = Access<K>;
  const std::uint64_t vectors = n / W;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;

  V* av = reinterpret_cast<V*>(a);
  V* bv = reinterpret_cast<V*>(b);
  V* cv = reinterpret_cast<V*>(c);
  for (std::uint64_t v = first; v < vectors; v += stride) {
    T ra[W] = {}, rb[W] = {}, rc[W] = {};
    if constexpr ((Acc::reads & kStreamA) != 0) Vector16<T>::split(av[v], ra);
    if constexpr ((Acc::reads & kStreamB) != 0) Vector16<T>::split(bv[v], rb);
    if constexpr ((Acc::reads & kStreamC) != 0) Vector16<T>::split(cv[v], rc);
#pragma unroll
    for (int w = 0; w < W; ++w) stream_element(K, ra, rb, rc, s, static_cast<std::uint64_t>(w));
    if constexpr ((Acc::writes & kStreamA) != 0) av[v] = Vector16<T>::join(ra);
    if constexpr ((Acc::writes & kStreamB) != 0) bv[v] = Vector16<T>::join(rb);
    if constexpr ((Acc::writes & kStreamC) != 0) cv[v] = Vector16<T>::join(rc);
  }
  const std::uint64_t tail = vectors * W + first;
  if (tail < n) stream_element(K, a, b, c, s, tail);
}

template <class T>
__global__ void __launch_bounds__(kArrayThreads) stream_init_kernel(T* a, T* b, T* c, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    a[i] = StreamInit<T>::a;
    b[i] = StreamInit<T>::b;
    c[i] = StreamInit<T>::c;
  }
}

// One work item per thread: the whole array in one grid, every thread issuing its loads at once.
// Measured on an H200, triad (double, 2^28): 4.39 TB/s with blocks of 1024 threads, 4.37 with
// 256 (a CuPy ElementwiseKernel: 4.37), 4.0-4.2 for a grid-stride loop over one resident wave
// (8 to 64 blocks per SM, 1 to 4 vectors per thread per step); streaming or L2 prefetch-size
// load hints gain nothing.
unsigned grid_for(std::uint64_t work_items) {
  return static_cast<unsigned>(
      std::max<std::uint64_t>(1, std::min(kMaxGrid, (work_items + kArrayThreads - 1) / kArrayThreads)));
}

// ---------------------------------------------------------------- dot
__device__ __forceinline__ float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ float add_rn(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ double add_rn(double x, double y) { return __dadd_rn(x, y); }

constexpr int kPairwiseGroup = 2 * kThreads;  // partials one CUDA block reduces

constexpr int kWarp = 32;
constexpr int kDotBatch = 8;  // steps whose loads a thread issues before it uses any
static_assert(kThreads % kWarp == 0 && kWarp == 4 * kDotLanes, "a step is four elements of each lane");
static_assert(kDotBlock % (kDotBatch * kWarp) == 0, "a full block is whole batches");

// Adds one step's elements [base, base + 32) (those below `end`) to the lane sums: thread j
// holds the product of element base + j; thread l < 8 adds base+l, base+l+8, base+l+16,
// base+l+24 in that order. Every thread of the warp calls it (the shuffles need the whole warp).
// Checked: the step may reach past `end` (only the last block's remainder does).
template <bool Checked, class T>
__device__ __forceinline__ void dot_step(T& sum, T product, int j, std::uint64_t base, std::uint64_t end) {
  T terms[4] = {product, __shfl_down_sync(0xffffffffu, product, 8), __shfl_down_sync(0xffffffffu, product, 16),
                __shfl_down_sync(0xffffffffu, product, 24)};
  if (j < kDotLanes) {
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      if (!Checked || base + j + m * kDotLanes < end) sum = add_rn(sum, terms[m]);
    }
  }
}

// The partial tree's group g: the CUDA block reduces src[g*G, min((g+1)*G, count)), G =
// kPairwiseGroup, with the bottom-up neighbour-pair rule of dot_pairwise_inplace; thread 0
// returns the value. Every thread of the block calls it. src was written by other CUDA blocks
// of this grid, so it is read through L2 (__ldcg), never from a line this SM's L1 may hold.
template <class T>
__device__ T reduce_group(const T* src, std::uint64_t count, std::uint64_t g, T (&s)[kPairwiseGroup]) {
  const std::uint64_t base = g * kPairwiseGroup;
  const std::uint32_t m0 = static_cast<std::uint32_t>(
      count - base < static_cast<std::uint64_t>(kPairwiseGroup) ? count - base : kPairwiseGroup);
  const std::uint32_t t = threadIdx.x;
  if (t < m0) s[t] = __ldcg(src + base + t);
  if (t + kThreads < m0) s[t + kThreads] = __ldcg(src + base + t + kThreads);
  __syncthreads();
  for (std::uint32_t m = m0; m > 1;) {
    const std::uint32_t half = m / 2;
    T v = T(0);
    const bool writes = t < half || (t == half && (m & 1u));
    if (t < half) v = add_rn(s[2 * t], s[2 * t + 1]);
    else if (writes) v = s[m - 1];  // the odd last element is carried up unchanged
    __syncthreads();
    if (writes) s[t] = v;
    __syncthreads();
    m = half + (m & 1u);
  }
  return s[0];
}

// Warp w: block w of kDotBlock elements, its partial to values[w]; then the tree (step 3 of the
// header). values: the partials, then each level's group values but the last level's (that one
// value is *result). arrivals: one counter per group of every level, zero before the launch;
// each group's last arrival sets it back to zero, so the launch leaves them zero for the next
// one (launches on one scratch must therefore be ordered: one stream).
template <class T>
__global__ void __launch_bounds__(kThreads)
    dot_kernel(const T* __restrict__ a, const T* __restrict__ b, std::uint64_t n, std::uint64_t blocks,
               T* values, unsigned* arrivals, T* result) {
  __shared__ T tree[kPairwiseGroup];
  __shared__ bool completes;
  const std::uint64_t block = (static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int j = static_cast<int>(threadIdx.x % kWarp);
  if (block < blocks) {  // a whole warp: the shuffles below always see full warps
    const std::uint64_t begin = block * kDotBlock;
    const std::uint64_t end = begin + kDotBlock < n ? begin + kDotBlock : n;
    T sum = T(0);  // thread l < 8: lane l's sum
    std::uint64_t base = begin;
    for (; base + kDotBatch * kWarp <= end; base += kDotBatch * kWarp) {
      T x[kDotBatch], y[kDotBatch];
#pragma unroll
      for (int s = 0; s < kDotBatch; ++s) {
        x[s] = a[base + s * kWarp + j];
        y[s] = b[base + s * kWarp + j];
      }
#pragma unroll
      for (int s = 0; s < kDotBatch; ++s) dot_step<false>(sum, mul_rn(x[s], y[s]), j, base + s * kWarp, end);
    }
    for (; base < end; base += kWarp) {  // the last block's remainder, step by step
      const std::uint64_t i = base + j;
      dot_step<true>(sum, i < end ? mul_rn(a[i], b[i]) : T(0), j, base, end);
    }
    T lanes[kDotLanes];
#pragma unroll
    for (int l = 0; l < kDotLanes; ++l) lanes[l] = __shfl_sync(0xffffffffu, sum, l);
    if (j == 0) values[block] = dot_combine_lanes(lanes);
  }
  // The tree. A producer (at level 0 a CUDA block with its kThreads / kWarp partials, above it a
  // group) arrives at its group's counter once its values are written; the one that arrives
  // last reduces the group and is the producer of the next level.
  std::uint64_t producer = blockIdx.x, producers = gridDim.x;
  std::uint64_t per_group = kPairwiseGroup / (kThreads / kWarp);
  const T* src = values;
  T* dst = values + blocks;
  std::uint64_t count = blocks;
  for (;;) {
    const std::uint64_t g = producer / per_group;
    const std::uint64_t groups = (count + kPairwiseGroup - 1) / kPairwiseGroup;
    // The block's values are written, and `completes` is free, once every thread is here; then
    // thread 0 arrives with acquire-release order at device scope: release publishes the
    // block's stores (the barrier orders the other threads' stores before it, as cooperative
    // groups' grid sync publishes a block's writes), acquire orders the completing block's
    // reads of the group after every member's release. The completing block resets the counter
    // for the next launch: every member has arrived, and launches on one scratch are ordered.
    // (Acquire-release rather than two full fences around an atomicInc: the same order for
    // less, and on the H200 it was no slower in an A/B of the two in one process.)
    __syncthreads();
    if (threadIdx.x == 0) {
      const std::uint64_t left = producers - g * per_group;
      const unsigned members = static_cast<unsigned>(left < per_group ? left : per_group);
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> arrived(arrivals[g]);
      completes = arrived.fetch_add(1, ::cuda::memory_order_acq_rel) == members - 1;
      if (completes) arrived.store(0, ::cuda::memory_order_relaxed);
    }
    __syncthreads();
    if (!completes) return;
    const T v = reduce_group(src, count, g, tree);
    if (groups == 1) {
      if (threadIdx.x == 0) *result = v;
      return;
    }
    if (threadIdx.x == 0) dst[g] = v;  // published by the fence before the next arrival
    arrivals += groups;
    src = dst;
    dst += groups;
    count = groups;
    producer = g;
    producers = groups;
    per_group = kPairwiseGroup;
  }
}

template <class T>
__global__ void store_zero_kernel(T* result) {
  *result = T(0);
}

}  // namespace

template <class T>
void launch_stream_init(T* a, T* b, T* c, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return;
  stream_init_kernel<T><<<grid_for(n), kArrayThreads, 0, stream>>>(a, b, c, n);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

template <class T>
void launch_stream(StreamKernel k, T* a, T* b, T* c, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned grid = grid_for(n / Vector16<T>::width + 1);
  const T s = StreamInit<T>::scalar;
  if (info(k).writes == 0) throw FailureError("launch_stream: " + std::string(info(k).name) + " has its own launcher");
  with_stream_kernel(k, [&](auto kernel) {
    stream_kernel<T, decltype(kernel)::value><<<grid, kArrayThreads, 0, stream>>>(a, b, c, s, n);
  });
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

namespace {
// The tree's group count per level for n elements, from the partials up to the level of one group.
std::vector<std::uint64_t> dot_tree_levels(std::uint64_t n) {
  std::vector<std::uint64_t> groups;
  for (std::uint64_t count = dot_block_count(n); count > 0;) {
    count = (count + kPairwiseGroup - 1) / kPairwiseGroup;
    groups.push_back(count);
    if (count == 1) break;
  }
  return groups;
}

std::uint64_t dot_value_elements(std::uint64_t n) {
  const auto levels = dot_tree_levels(n);
  std::uint64_t total = dot_block_count(n);
  for (std::size_t l = 0; l + 1 < levels.size(); ++l) total += levels[l];  // the last level writes *result
  return total;
}

std::uint64_t dot_counter_elements(std::uint64_t n) {
  std::uint64_t total = 0;
  for (const auto g : dot_tree_levels(n)) total += g;
  return total;
}
}  // namespace

template <class T>
DotScratch<T>::DotScratch(std::uint64_t n, int device)
    : n_(n), values_(dot_value_elements(n), device, "dot partials"),
      arrivals_(dot_counter_elements(n), device, "dot arrival counters") {
  if (arrivals_.size() > 0) {
    DeviceGuard guard(device);
    PARLAB_CUDA_CHECK(cudaMemset(arrivals_.get(), 0, arrivals_.bytes()));  // dot_kernel's precondition
  }
}

template <class T>
void launch_dot(const T* a, const T* b, std::uint64_t n, DotScratch<T>& scratch, T* result, cudaStream_t stream) {
  if (scratch.elements() != n) {
    throw FailureError("launch_dot: scratch made for " + std::to_string(scratch.elements()) + " elements, not " +
                       std::to_string(n));
  }
  const std::uint64_t blocks = dot_block_count(n);
  if (blocks == 0) {  // the empty sum, +0, stored by a kernel: result may be host memory
    store_zero_kernel<T><<<1, 1, 0, stream>>>(result);
    PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    return;
  }
  const std::uint64_t threads = blocks * kWarp;
  dot_kernel<T><<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      a, b, n, blocks, scratch.values(), scratch.arrivals(), result);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

template class DotScratch<float>;
template class DotScratch<double>;
template void launch_stream_init<float>(float*, float*, float*, std::uint64_t, cudaStream_t);
template void launch_stream_init<double>(double*, double*, double*, std::uint64_t, cudaStream_t);
template void launch_stream<float>(StreamKernel, float*, float*, float*, std::uint64_t, cudaStream_t);
template void launch_stream<double>(StreamKernel, double*, double*, double*, std::uint64_t, cudaStream_t);
template void launch_dot<float>(const float*, const float*, std::uint64_t, DotScratch<float>&, float*, cudaStream_t);
template void launch_dot<double>(const double*, const double*, std::uint64_t, DotScratch<double>&, double*,
                                 cudaStream_t);

}  // namespace parlab::cuda
