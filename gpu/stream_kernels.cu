// The STREAM set on the GPU, with the element operations of core/stream.hpp.
//
// Array kernels: one 16-byte vector (double2, float4; cudaMalloc returns 256-byte aligned
// memory) per thread over a grid that covers the array (a grid-stride loop only beyond 2^31
// blocks), loading only the arrays a kernel reads and storing only those it writes, each element
// computed by core's stream_element; the n % width tail is scalar.
//
// dot reproduces the CPU's deterministic order, so the bits match the CPU (tests/gpu asserts it):
//   1. eight consecutive threads own one 8192-element block; thread `lane` sums the elements
//      begin+lane, begin+lane+8, ... in index order from 0, with separately rounded multiply and
//      add (__fmul_rn/__fadd_rn: no FMA whatever the flags), exactly as dot_block's lane l;
//   2. the group's first thread gathers the eight lane sums by warp shuffles and combines them
//      with core's dot_combine_lanes;
//   3. the block partials are combined by the bottom-up neighbour-pair tree of
//      dot_pairwise_inplace. That tree is aligned: the node over partials [g*G, (g+1)*G) for a
//      power of two G depends only on those partials (a missing right child carries the left
//      one up, as the odd element does on the CPU). So each CUDA block reduces one aligned
//      group of 512 in shared memory, the group results are reduced the same way, and the last
//      few hundred values go through dot_pairwise_inplace itself on one thread.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/stream.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

namespace parlab::cuda {
namespace {

constexpr int kThreads = 256;        // dot's kernels
constexpr int kArrayThreads = 1024;  // the array kernels (see grid_for)
constexpr std::uint64_t kMaxGrid = 0x7fffffff;  // gridDim.x limit; larger arrays loop

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

// Which arrays each kernel reads and writes (the byte counts of kStreamKernels).
struct Access {
  bool read_a, read_b, read_c, write_a, write_b, write_c;
};
__host__ __device__ constexpr Access access(StreamKernel k) {
  switch (k) {
    case StreamKernel::copy: return {true, false, false, false, false, true};
    case StreamKernel::mul: return {false, false, true, false, true, false};
    case StreamKernel::add: return {true, true, false, false, false, true};
    case StreamKernel::triad: return {false, true, true, true, false, false};
    case StreamKernel::nstream: return {true, true, true, true, false, false};
    case StreamKernel::dot: return {true, true, false, false, false, false};
  }
  return {};
}

template <class T, StreamKernel K>
__global__ void __launch_bounds__(kArrayThreads)
    stream_kernel(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, T s, std::uint64_t n) {
  using V = typename Vector16<T>::type;
  constexpr int W = Vector16<T>::width;
  constexpr Access acc = access(K);
  const std::uint64_t vectors = n / W;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;

  V* av = reinterpret_cast<V*>(a);
  V* bv = reinterpret_cast<V*>(b);
  V* cv = reinterpret_cast<V*>(c);
  for (std::uint64_t v = first; v < vectors; v += stride) {
    T ra[W] = {}, rb[W] = {}, rc[W] = {};
    if constexpr (acc.read_a) Vector16<T>::split(av[v], ra);
    if constexpr (acc.read_b) Vector16<T>::split(bv[v], rb);
    if constexpr (acc.read_c) Vector16<T>::split(cv[v], rc);
#pragma unroll
    for (int w = 0; w < W; ++w) stream_element(K, ra, rb, rc, s, static_cast<std::uint64_t>(w));
    if constexpr (acc.write_a) av[v] = Vector16<T>::join(ra);
    if constexpr (acc.write_b) bv[v] = Vector16<T>::join(rb);
    if constexpr (acc.write_c) cv[v] = Vector16<T>::join(rc);
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
constexpr std::uint64_t kSerialTail = 512;    // at most this many left: one thread finishes

// Thread t: block (t / 8) of kDotBlock elements, lane t % 8. partials[block] := its partial.
template <class T>
__global__ void __launch_bounds__(kThreads)
    dot_blocks_kernel(const T* __restrict__ a, const T* __restrict__ b, std::uint64_t n,
                      std::uint64_t blocks, T* __restrict__ partials) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const std::uint64_t block = t / kDotLanes;
  const int lane = static_cast<int>(t % kDotLanes);
  T sum = T(0);
  if (block < blocks) {
    const std::uint64_t begin = block * kDotBlock;
    const std::uint64_t end = begin + kDotBlock < n ? begin + kDotBlock : n;
#pragma unroll 8
    for (std::uint64_t i = begin + lane; i < end; i += kDotLanes) sum = add_rn(sum, mul_rn(a[i], b[i]));
  }
  // Every thread of the warp takes part in the shuffles (kThreads is a multiple of 32 and of 8).
  T lanes[kDotLanes];
  const int group_base = static_cast<int>(threadIdx.x & 31u) & ~(kDotLanes - 1);
#pragma unroll
  for (int l = 0; l < kDotLanes; ++l) lanes[l] = __shfl_sync(0xffffffffu, sum, group_base + l);
  if (lane == 0 && block < blocks) partials[block] = dot_combine_lanes(lanes);
}

// CUDA block g reduces src[g*G, min((g+1)*G, count)), G = kPairwiseGroup, to dst[g] with the
// bottom-up neighbour-pair rule of dot_pairwise_inplace.
template <class T>
__global__ void __launch_bounds__(kThreads)
    pairwise_group_kernel(const T* __restrict__ src, std::uint64_t count, T* __restrict__ dst) {
  __shared__ T s[kPairwiseGroup];
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * kPairwiseGroup;
  const std::uint32_t m0 = static_cast<std::uint32_t>(
      count - base < static_cast<std::uint64_t>(kPairwiseGroup) ? count - base : kPairwiseGroup);
  const std::uint32_t t = threadIdx.x;
  if (t < m0) s[t] = src[base + t];
  if (t + kThreads < m0) s[t + kThreads] = src[base + t + kThreads];
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
  if (t == 0) dst[blockIdx.x] = s[0];
}

// The last values, by dot_pairwise_inplace itself.
template <class T>
__global__ void pairwise_serial_kernel(T* p, std::uint64_t count, T* result) {
  *result = dot_pairwise_inplace(p, count);
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
  switch (k) {
    case StreamKernel::copy: stream_kernel<T, StreamKernel::copy><<<grid, kArrayThreads, 0, stream>>>(a, b, c, s, n); break;
    case StreamKernel::mul: stream_kernel<T, StreamKernel::mul><<<grid, kArrayThreads, 0, stream>>>(a, b, c, s, n); break;
    case StreamKernel::add: stream_kernel<T, StreamKernel::add><<<grid, kArrayThreads, 0, stream>>>(a, b, c, s, n); break;
    case StreamKernel::triad: stream_kernel<T, StreamKernel::triad><<<grid, kArrayThreads, 0, stream>>>(a, b, c, s, n); break;
    case StreamKernel::nstream: stream_kernel<T, StreamKernel::nstream><<<grid, kArrayThreads, 0, stream>>>(a, b, c, s, n); break;
    case StreamKernel::dot: throw FailureError("launch_stream: dot has its own launcher (launch_dot)");
  }
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

std::uint64_t dot_scratch_elements(std::uint64_t n) {
  // The block partials, then the group results of each level launch_dot reduces on many threads.
  std::uint64_t count = dot_block_count(n), total = count;
  while (count > kSerialTail) {
    count = (count + kPairwiseGroup - 1) / kPairwiseGroup;
    total += count;
  }
  return total;
}

template <class T>
void launch_dot(const T* a, const T* b, std::uint64_t n, T* scratch, T* result, cudaStream_t stream) {
  const std::uint64_t blocks = dot_block_count(n);
  if (blocks == 0) {
    PARLAB_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));  // the empty sum, +0
    return;
  }
  const std::uint64_t threads = blocks * kDotLanes;
  dot_blocks_kernel<T><<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      a, b, n, blocks, scratch);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
  T* level = scratch;
  std::uint64_t count = blocks;
  while (count > kSerialTail) {
    const std::uint64_t groups = (count + kPairwiseGroup - 1) / kPairwiseGroup;
    T* next = level + count;
    pairwise_group_kernel<T><<<static_cast<unsigned>(groups), kThreads, 0, stream>>>(level, count, next);
    PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    level = next;
    count = groups;
  }
  pairwise_serial_kernel<T><<<1, 1, 0, stream>>>(level, count, result);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

template void launch_stream_init<float>(float*, float*, float*, std::uint64_t, cudaStream_t);
template void launch_stream_init<double>(double*, double*, double*, std::uint64_t, cudaStream_t);
template void launch_stream<float>(StreamKernel, float*, float*, float*, std::uint64_t, cudaStream_t);
template void launch_stream<double>(StreamKernel, double*, double*, double*, std::uint64_t, cudaStream_t);
template void launch_dot<float>(const float*, const float*, std::uint64_t, float*, float*, cudaStream_t);
template void launch_dot<double>(const double*, const double*, std::uint64_t, double*, double*, cudaStream_t);

}  // namespace parlab::cuda
