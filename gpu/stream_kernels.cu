// The STREAM set on the GPU, with the element operations of core/stream.hpp. How each kernel is
// launched is a row of kStreamLaunch below, with the measurement that chose it.
//
// Array kernels: 16-byte vectors (double2, float4; cudaMalloc returns 256-byte aligned memory),
// the row's count of them a thread, over a grid that covers the array (a grid-stride loop only
// beyond 2^31 - 1 blocks), loading only the arrays a kernel reads and storing only those it
// writes, each element computed by core's stream_element; the n % width tail is scalar.
//
// dot reproduces the CPU's deterministic order, so the bits match the CPU (tests/gpu asserts it):
//   1. one CUDA block owns one 8192-element block, in chunks: every thread loads its 16-byte
//      vectors of a and b (all of them before any use), multiplies them element by element,
//      separately rounded (__fmul_rn/__dmul_rn: no FMA whatever the flags), and stores the
//      products in element order in shared memory; then thread l < 8 adds lane l's elements of
//      the chunk (l, l+8, l+16, ... from the block's start) in index order (__fadd_rn/__dadd_rn),
//      exactly as dot_block's lane l;
//   2. warp 0 gathers the eight lane sums by warp shuffles and its first thread combines them
//      with core's dot_combine_lanes;
//   3. the block partials are combined by the bottom-up neighbour-pair tree of
//      dot_pairwise_inplace. That tree is aligned: the node over partials [g*G, (g+1)*G) for a
//      power of two G depends only on those partials (a missing right child carries the left
//      one up, as the odd element does on the CPU). So the tree is cut into aligned groups of
//      G = 2 x the block's threads, and the CUDA block that writes a group's last missing value
//      (the last to arrive at the group's atomic counter) reduces that group in shared memory and
//      writes its value to the next level, until one group is left, whose tree is
//      dot_pairwise_inplace's over those values. All of it is one launch.
// Why a CUDA block a dot block: the order asks only that one thread add each lane's elements in
// turn, not that it load them. A warp a block (the layout before) kept a 128 KB job per warp
// (64 KB of each input), 32768 of them at 2^28 doubles over a few thousand resident warps, so the
// card drained on a tail of long jobs; eight 8-byte-load threads a block before that reached 76%
// of DRAM bandwidth in Nsight Compute (its threads waiting on their loads). With the block's
// threads loading a chunk in 16-byte vectors the job is 256 threads' for a few microseconds, and
// the 8 lanes' adds (128 a chunk) hide behind the other blocks' loads: the probe's figures are
// beside the dot row.
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

constexpr std::uint64_t kMaxGrid = 0x7fffffff;  // the largest gridDim.x; larger arrays loop

// How each STREAM kernel is launched: one row per kernel, in StreamKernel order, each chosen by
// measurement: tools/node/gpu/stream-probe.cu timed every shape below in one process on an H200
// (2^27 and 2^28 doubles, 100 iterations each over 4 interleaved rounds; shares of the
// theoretical DRAM peak, 4.814 TB/s, by the fastest iteration, at 2^28 unless said). Array
// kernels: `threads` a block, `vectors` 16-byte vectors a thread (all of a thread's loads issued
// before its first store), over a grid that covers the array. Cache hints (ld/st.global.cs,
// ld.global.nc, st.global.cs alone, ld.global.L2::256B) stayed within 0.3% of the plain loads
// and stores at these shapes, either way; add and triad take .cs on their loads and stores
// (`streaming`): it led plain by that much in both probes (9c35b5a: add +0.2-0.3%; at d32eeda,
// by the fastest at 2^28: add 0.9159 against 0.9153, triad 0.9166 against 0.9139), and they are
// the two kernels the issue's goal (0.915) sits within that margin of.
// dot: `threads` a block, one 8192-element dot block a CUDA block, `vectors` 16-byte vectors of
// each input a thread per chunk (step 1 of the header). The rows hold for float too (float4: the
// same 16 bytes a thread), which the probe did not time.
struct StreamLaunch {
  StreamKernel kernel;
  int threads;
  int vectors;
  bool streaming = false;  // ld/st.global.cs (evict first) for the array kernels
};
inline constexpr StreamLaunch kStreamLaunch[] = {
    // 0.8916 (2^27: 0.8854), beside cudaMemcpyAsync's 0.8857 (0.8782); 128 threads the same
    // (0.8919); 512: 0.8771; 1024 (the earlier shape): 0.8378; 2 or 4 vectors: 0.8517-0.8854.
    {StreamKernel::copy, 256, 1},
    // 0.8892 (2^27: 0.8805); 128 threads the same; 512: 0.8749; 1024: 0.8364; 2 or 4 vectors:
    // 0.8573-0.8825.
    {StreamKernel::mul, 256, 1},
    // Three arrays take the largest blocks: 0.9185 (2^27: 0.9174); 128 to 512 threads:
    // 0.9130-0.9167; 2 or 4 vectors: 0.9059-0.9150.
    {StreamKernel::add, 1024, 1, true},
    // 0.9197 (2^27: 0.9171); 128 to 512 threads: 0.9145-0.9173; 2 or 4 vectors: 0.9050-0.9154.
    {StreamKernel::triad, 1024, 1, true},
    // A CUDA block a dot block, 256 threads loading 2 vectors of each input a chunk, one buffer
    // of products: 0.9552 (2^27: 0.9402). Two buffers (one barrier a chunk): 0.9534 (0.9378); 1
    // or 4 vectors: 0.9381-0.9458; 128 threads: 0.9356-0.9520; 512 or 1024: 0.65-0.91 (the lanes'
    // adds, 8 threads a block, become the bound). A warp a dot block (the earlier layout, 8-byte
    // loads): 0.9433 (0.9325) with 8 steps' loads in flight, 0.9529 (0.9363) with 16; with 16-byte
    // loads, the lanes gathered by shuffles: 0.9175-0.9384. The reads alone, the order let go
    // (16-byte loads, each block's sum added atomically): 0.9623 (0.9557).
    {StreamKernel::dot, 256, 2},
    // 0.9317 (2^27: 0.9306); 2 vectors 0.9328 (0.9322), closer than the spread of either over the
    // hints (0.5%); 128 to 512 threads: 0.9288-0.9301; 4 vectors: 0.9193-0.9284.
    {StreamKernel::nstream, 1024, 1},
};
static_assert(std::size(kStreamLaunch) == kStreamKernels.size(), "one launch row per STREAM kernel");
static_assert([] {
  for (std::size_t i = 0; i < std::size(kStreamLaunch); ++i) {
    if (kStreamLaunch[i].kernel != static_cast<StreamKernel>(i)) return false;
  }
  return true;
}(), "kStreamLaunch lists the kernels in StreamKernel order");

template <StreamKernel K>
inline constexpr StreamLaunch kLaunch = kStreamLaunch[static_cast<std::size_t>(K)];

constexpr int kInitThreads = 1024;  // stream_init_kernel: untimed setup

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

// A vector load and store, with the row's cache hint.
template <StreamKernel K, class V>
__device__ __forceinline__ V load_vector(const V* p) {
  if constexpr (kLaunch<K>.streaming) {
    return __ldcs(p);
  } else {
    return *p;
  }
}
template <StreamKernel K, class V>
__device__ __forceinline__ void store_vector(V* p, const V& v) {
  if constexpr (kLaunch<K>.streaming) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// A block covers kLaunch<K>.threads * .vectors vectors: vector base + v * threads + threadIdx.x
// for v < vectors, so each v is one coalesced access of the whole block.
template <class T, StreamKernel K>
__global__ void __launch_bounds__(kLaunch<K>.threads)
    stream_kernel(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, T s, std::uint64_t n) {
  using V = typename Vector16<T>::type;
  using Acc = Access<K>;
  constexpr int W = Vector16<T>::width;
  constexpr int Threads = kLaunch<K>.threads, Vectors = kLaunch<K>.vectors;
  constexpr std::uint64_t per_block = static_cast<std::uint64_t>(Threads) * Vectors;
  const std::uint64_t vectors = n / W;

  V* av = reinterpret_cast<V*>(a);
  V* bv = reinterpret_cast<V*>(b);
  V* cv = reinterpret_cast<V*>(c);
  for (std::uint64_t base = blockIdx.x * per_block; base < vectors; base += gridDim.x * per_block) {
    T ra[Vectors][W] = {}, rb[Vectors][W] = {}, rc[Vectors][W] = {};
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
      const std::uint64_t v = base + k * Threads + threadIdx.x;
      if (v >= vectors) continue;
      if constexpr ((Acc::reads & kStreamA) != 0) Vector16<T>::split(load_vector<K>(av + v), ra[k]);
      if constexpr ((Acc::reads & kStreamB) != 0) Vector16<T>::split(load_vector<K>(bv + v), rb[k]);
      if constexpr ((Acc::reads & kStreamC) != 0) Vector16<T>::split(load_vector<K>(cv + v), rc[k]);
    }
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
      const std::uint64_t v = base + k * Threads + threadIdx.x;
      if (v >= vectors) continue;
#pragma unroll
      for (int w = 0; w < W; ++w) stream_element(K, ra[k], rb[k], rc[k], s, static_cast<std::uint64_t>(w));
      if constexpr ((Acc::writes & kStreamA) != 0) store_vector<K>(av + v, Vector16<T>::join(ra[k]));
      if constexpr ((Acc::writes & kStreamB) != 0) store_vector<K>(bv + v, Vector16<T>::join(rb[k]));
      if constexpr ((Acc::writes & kStreamC) != 0) store_vector<K>(cv + v, Vector16<T>::join(rc[k]));
    }
  }
  const std::uint64_t tail = vectors * W + static_cast<std::uint64_t>(blockIdx.x) * Threads + threadIdx.x;
  if (tail < n) stream_element(K, a, b, c, s, tail);
}

template <class T>
__global__ void __launch_bounds__(kInitThreads) stream_init_kernel(T* a, T* b, T* c, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    a[i] = StreamInit<T>::a;
    b[i] = StreamInit<T>::b;
    c[i] = StreamInit<T>::c;
  }
}

// The blocks of `per_block` work items that cover `work_items`, capped at the largest grid.
unsigned grid_for(std::uint64_t work_items, std::uint64_t per_block) {
  const std::uint64_t blocks = (work_items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(kMaxGrid, blocks)));
}

// ---------------------------------------------------------------- dot
__device__ __forceinline__ float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ float add_rn(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ double add_rn(double x, double y) { return __dadd_rn(x, y); }

constexpr int kWarp = 32;
constexpr int kDotThreads = kLaunch<StreamKernel::dot>.threads;
constexpr int kDotVectors = kLaunch<StreamKernel::dot>.vectors;
constexpr int kPairwiseGroup = 2 * kDotThreads;  // partials one CUDA block reduces
static_assert(kDotThreads % kWarp == 0 && kDotThreads >= kWarp, "whole warps: warp 0 gathers the lanes");
static_assert((kPairwiseGroup & (kPairwiseGroup - 1)) == 0, "the tree's groups are aligned powers of two");

// One chunk of a dot block: kDotThreads * kDotVectors vectors of each input, whose products
// dot_kernel stores in element order in shared memory (vector v of the chunk at prod[v]).
template <class T>
struct DotChunk {
  using V = typename Vector16<T>::type;
  static constexpr int vectors = kDotThreads * kDotVectors;
  static constexpr int elements = vectors * Vector16<T>::width;
  static_assert(kDotBlock % elements == 0, "a full block is whole chunks");
  static_assert(elements % kDotLanes == 0, "every lane has as many elements in a full chunk");
};

// The chunk's elements [i, i + W) of x (zeros past `end`). Full: the whole vector is below `end`.
template <class T>
__device__ __forceinline__ typename Vector16<T>::type chunk_load(const T* __restrict__ x, std::uint64_t i,
                                                                 std::uint64_t end, bool full) {
  using V = typename Vector16<T>::type;
  constexpr int W = Vector16<T>::width;
  if (full || i + W <= end) return reinterpret_cast<const V*>(x)[i / W];
  T r[W];
#pragma unroll
  for (int w = 0; w < W; ++w) r[w] = i + w < end ? x[i + w] : T(0);
  return Vector16<T>::join(r);
}

// x * y element by element, each product rounded on its own.
template <class T>
__device__ __forceinline__ typename Vector16<T>::type products(const typename Vector16<T>::type& x,
                                                               const typename Vector16<T>::type& y) {
  constexpr int W = Vector16<T>::width;
  T xs[W], ys[W], p[W];
  Vector16<T>::split(x, xs);
  Vector16<T>::split(y, ys);
#pragma unroll
  for (int w = 0; w < W; ++w) p[w] = mul_rn(xs[w], ys[w]);
  return Vector16<T>::join(p);
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
  if (t + kDotThreads < m0) s[t + kDotThreads] = __ldcg(src + base + t + kDotThreads);
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

// CUDA block w: dot block w (kDotBlock elements), its partial to values[w]; then the tree (step 3
// of the header). values: the partials, then each level's group values but the last level's (that
// one value is *result). arrivals: one counter per group of every level, zero before the launch;
// each group's last arrival sets it back to zero, so the launch leaves them zero for the next
// one (launches on one scratch must therefore be ordered: one stream).
template <class T>
__global__ void __launch_bounds__(kDotThreads)
    dot_kernel(const T* __restrict__ a, const T* __restrict__ b, std::uint64_t n, std::uint64_t blocks,
               T* values, unsigned* arrivals, T* result) {
  using Chunk = DotChunk<T>;
  using V = typename Vector16<T>::type;
  constexpr int W = Vector16<T>::width;
  __shared__ T tree[kPairwiseGroup];
  __shared__ bool completes;
  __shared__ V prod[Chunk::vectors];
  const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.x) * kDotBlock;
  const std::uint64_t end = begin + kDotBlock < n ? begin + kDotBlock : n;
  const int t = static_cast<int>(threadIdx.x);
  T sum = T(0);  // thread l < 8: lane l's sum
  for (std::uint64_t base = begin; base < end; base += Chunk::elements) {
    const bool full = base + Chunk::elements <= end;
    V x[kDotVectors], y[kDotVectors];
#pragma unroll
    for (int v = 0; v < kDotVectors; ++v) {
      const std::uint64_t i = base + static_cast<std::uint64_t>(v * kDotThreads + t) * W;
      x[v] = chunk_load(a, i, end, full);
      y[v] = chunk_load(b, i, end, full);
    }
#pragma unroll
    for (int v = 0; v < kDotVectors; ++v) prod[v * kDotThreads + t] = products<T>(x[v], y[v]);
    __syncthreads();  // the chunk's products are all stored
    if (t < kDotLanes) {
      const T* e = reinterpret_cast<const T*>(prod);
      if (full) {
#pragma unroll 16
        for (int i = t; i < Chunk::elements; i += kDotLanes) sum = add_rn(sum, e[i]);
      } else {
        for (int i = t; base + i < end; i += kDotLanes) sum = add_rn(sum, e[i]);
      }
    }
    __syncthreads();  // the lanes have read them: the next chunk may overwrite them
  }
  if (t < kWarp) {  // warp 0, whole: the shuffles
    T lanes[kDotLanes];
#pragma unroll
    for (int l = 0; l < kDotLanes; ++l) lanes[l] = __shfl_sync(0xffffffffu, sum, l);
    if (t == 0) values[blockIdx.x] = dot_combine_lanes(lanes);
  }
  // The tree. A producer (at level 0 a CUDA block with its partial, above it a group) arrives at
  // its group's counter once its values are written; the one that arrives last reduces the group
  // and is the producer of the next level.
  std::uint64_t producer = blockIdx.x, producers = gridDim.x;
  std::uint64_t per_group = kPairwiseGroup;
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
  stream_init_kernel<T><<<grid_for(n, kInitThreads), kInitThreads, 0, stream>>>(a, b, c, n);
  PARLAB_CUDA_CHECK(cudaPeekAtLastError());
}

template <class T>
void launch_stream(StreamKernel k, T* a, T* b, T* c, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return;
  const T s = StreamInit<T>::scalar;
  if (info(k).writes == 0) throw FailureError("launch_stream: " + std::string(info(k).name) + " has its own launcher");
  with_stream_kernel(k, [&](auto kernel) {
    constexpr StreamLaunch shape = kLaunch<decltype(kernel)::value>;
    // At least one block, whose first thread does the scalar tail of an array shorter than a vector.
    const unsigned grid = grid_for(n / Vector16<T>::width, static_cast<std::uint64_t>(shape.threads) * shape.vectors);
    stream_kernel<T, decltype(kernel)::value><<<grid, shape.threads, 0, stream>>>(a, b, c, s, n);
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
  dot_kernel<T><<<static_cast<unsigned>(blocks), kDotThreads, 0, stream>>>(a, b, n, blocks, scratch.values(),
                                                                          scratch.arrivals(), result);
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
