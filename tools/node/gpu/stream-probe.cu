// The launch shapes of the GPU STREAM kernels, side by side in ONE process: what chose each row of
// gpu/stream_kernels.cu's kStreamLaunch table. Built and run by tools/node/gpu/stream-tuning.sh
// (`probe`); standalone (the CUDA runtime and core/stream.hpp's element bodies and dot order):
//
//   nvcc -O3 -std=c++20 -arch=sm_90 --fmad=false -I. tools/node/gpu/stream-probe.cu -o stream-probe
//   stream-probe [--sizes 27,28] [--rounds 4] [--iters 25] [--out FILE]
//
// For each size (2^k doubles an array) it times, with CUDA events around each launch:
//   - copy, mul, add, triad, nstream: threads a block {128, 256, 512, 1024} x 16-byte vectors a thread
//     {1, 2, 4} (all of a thread's loads issued before its first store) x cache hints {plain,
//     cs (ld.global.cs + st.global.cs), nc (ld.global.nc), stcs (st.global.cs only), l2pf
//     (ld.global.L2::256B)}, each over a grid that covers the array;
//   - dot, deterministic and in the CPU's order (core/stream.hpp): `warp` (one warp a 8192-element
//     block, 8-byte loads: today's kernel, at several block sizes and batches), `wide` (a warp a
//     block, 16-byte loads, the lane sums gathered by shuffles), `cta` (one CUDA block a block,
//     16-byte loads, products through shared memory, eight threads keeping the lane sums), each
//     with the one-launch pairwise tree of the partials;
//   - dot `atomic`: 16-byte loads over a covering grid, summed in any order (atomicAdd): NOT
//     deterministic, a reference for what the reads alone reach;
//   - cudaMemcpyAsync device to device of one array (the driver's copy).
// Rounds are interleaved (every variant once a round, in a shuffled order) and each variant is
// timed `iters` times a round after two untimed launches, so a drift of the card falls on all.
// Each line gives the median and the fastest iteration, in time and as a share of the theoretical
// DRAM peak, 2 x memory clock x bus width / 8 from the driver (as gpu/ceilings.cu's gpu_bw_peak).
// Correctness before speed: every array variant is checked bit for bit against the CPU's element
// bodies on random data at sizes that end mid-vector and mid-block, and every deterministic dot
// against the CPU's order (dot_block + dot_pairwise_inplace) at the test suite's sizes and at the
// probe's own; a variant that fails is printed FAILED and never ranked.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/stream.hpp"

using parlab::StreamKernel;

#define CK(expr)                                                                                  \
  do {                                                                                            \
    const cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, #expr); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

// ------------------------------------------------------------------ array kernels
enum Hint { kPlain, kCs, kNc, kStcs, kL2pf, kHints };
const char* const kHintNames[kHints] = {"plain", "cs", "nc", "stcs", "l2pf"};

template <int H>
__device__ __forceinline__ double2 load(const double2* p) {
  if constexpr (H == kCs) {
    return __ldcs(p);
  } else if constexpr (H == kNc) {
    return __ldg(p);
  } else if constexpr (H == kL2pf) {
    double2 v;
    asm("ld.global.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    return v;
  } else {
    return *p;
  }
}

template <int H>
__device__ __forceinline__ void store(double2* p, double2 v) {
  if constexpr (H == kCs || H == kStcs) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

template <StreamKernel K>
struct Access {
  static constexpr unsigned reads = parlab::kStreamKernels[static_cast<std::size_t>(K)].reads;
  static constexpr unsigned writes = parlab::kStreamKernels[static_cast<std::size_t>(K)].writes;
};

// A block covers Threads * Vectors vectors: vector base + k * Threads + threadIdx.x for k <
// Vectors, so each k is one coalesced access of the whole block; every load of the thread is
// issued before its first store. A grid-stride loop only beyond 2^31 - 1 blocks.
template <StreamKernel K, int Threads, int Vectors, int H>
__global__ void __launch_bounds__(Threads)
    array_kernel(double* __restrict__ a, double* __restrict__ b, double* __restrict__ c, double s, std::uint64_t n) {
  using Acc = Access<K>;
  const std::uint64_t vectors = n / 2;
  constexpr std::uint64_t per_block = std::uint64_t(Threads) * Vectors;
  double2* av = reinterpret_cast<double2*>(a);
  double2* bv = reinterpret_cast<double2*>(b);
  double2* cv = reinterpret_cast<double2*>(c);
  for (std::uint64_t base = blockIdx.x * per_block; base < vectors; base += std::uint64_t(gridDim.x) * per_block) {
    double ra[Vectors][2] = {}, rb[Vectors][2] = {}, rc[Vectors][2] = {};
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
      const std::uint64_t v = base + k * Threads + threadIdx.x;
      if (v < vectors) {
        if constexpr ((Acc::reads & parlab::kStreamA) != 0) { const double2 x = load<H>(av + v); ra[k][0] = x.x; ra[k][1] = x.y; }
        if constexpr ((Acc::reads & parlab::kStreamB) != 0) { const double2 x = load<H>(bv + v); rb[k][0] = x.x; rb[k][1] = x.y; }
        if constexpr ((Acc::reads & parlab::kStreamC) != 0) { const double2 x = load<H>(cv + v); rc[k][0] = x.x; rc[k][1] = x.y; }
      }
    }
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
      const std::uint64_t v = base + k * Threads + threadIdx.x;
      if (v < vectors) {
        parlab::stream_element(K, ra[k], rb[k], rc[k], s, 0);
        parlab::stream_element(K, ra[k], rb[k], rc[k], s, 1);
        if constexpr ((Acc::writes & parlab::kStreamA) != 0) store<H>(av + v, make_double2(ra[k][0], ra[k][1]));
        if constexpr ((Acc::writes & parlab::kStreamB) != 0) store<H>(bv + v, make_double2(rb[k][0], rb[k][1]));
        if constexpr ((Acc::writes & parlab::kStreamC) != 0) store<H>(cv + v, make_double2(rc[k][0], rc[k][1]));
      }
    }
  }
  const std::uint64_t tail = vectors * 2 + blockIdx.x * std::uint64_t(Threads) + threadIdx.x;
  if (tail < n) parlab::stream_element(K, a, b, c, s, tail);
}

template <StreamKernel K, int Threads, int Vectors, int H>
void launch_array(double* a, double* b, double* c, std::uint64_t n, cudaStream_t st) {
  const std::uint64_t per_block = std::uint64_t(Threads) * Vectors;
  const std::uint64_t blocks = std::max<std::uint64_t>(1, (n / 2 + per_block - 1) / per_block);
  const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(blocks, 0x7fffffff));
  array_kernel<K, Threads, Vectors, H><<<grid, Threads, 0, st>>>(a, b, c, parlab::StreamInit<double>::scalar, n);
}

// ------------------------------------------------------------------ dot: the deterministic tree
__device__ __forceinline__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ double add_rn(double x, double y) { return __dadd_rn(x, y); }
constexpr int kWarp = 32;
constexpr std::uint64_t kBlock = parlab::kDotBlock;
constexpr int kLanes = parlab::kDotLanes;

// gpu/stream_kernels.cu's reduce_group, for a group of 2 * Threads partials.
template <int Threads>
__device__ double reduce_group(const double* src, std::uint64_t count, std::uint64_t g, double (&s)[2 * Threads]) {
  constexpr int G = 2 * Threads;
  const std::uint64_t base = g * G;
  const std::uint32_t m0 = static_cast<std::uint32_t>(count - base < std::uint64_t(G) ? count - base : G);
  const std::uint32_t t = threadIdx.x;
  if (t < m0) s[t] = __ldcg(src + base + t);
  if (t + Threads < m0) s[t + Threads] = __ldcg(src + base + t + Threads);
  __syncthreads();
  for (std::uint32_t m = m0; m > 1;) {
    const std::uint32_t half = m / 2;
    double v = 0;
    const bool writes = t < half || (t == half && (m & 1u));
    if (t < half) v = add_rn(s[2 * t], s[2 * t + 1]);
    else if (writes) v = s[m - 1];
    __syncthreads();
    if (writes) s[t] = v;
    __syncthreads();
    m = half + (m & 1u);
  }
  return s[0];
}

// gpu/stream_kernels.cu's tree, after this CUDA block's partials (values[first .. first + mine))
// are written; `partials_per_cta` of them a full CUDA block. Every thread calls it.
template <int Threads>
__device__ void finish_tree(std::uint64_t blocks, std::uint64_t partials_per_cta, double* values, unsigned* arrivals,
                            double* result) {
  constexpr int G = 2 * Threads;
  __shared__ double tree[G];
  __shared__ bool completes;
  std::uint64_t producer = blockIdx.x, producers = gridDim.x;
  std::uint64_t per_group = G / partials_per_cta;
  const double* src = values;
  double* dst = values + blocks;
  std::uint64_t count = blocks;
  for (;;) {
    const std::uint64_t g = producer / per_group;
    const std::uint64_t groups = (count + G - 1) / G;
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
    const double v = reduce_group<Threads>(src, count, g, tree);
    if (groups == 1) {
      if (threadIdx.x == 0) *result = v;
      return;
    }
    if (threadIdx.x == 0) dst[g] = v;
    arrivals += groups;
    src = dst;
    dst += groups;
    count = groups;
    producer = g;
    producers = groups;
    per_group = G;
  }
}

// Lane sums of thread j < 8 gathered to thread 0 and combined as the CPU does. Whole warp.
__device__ __forceinline__ double combine_lanes(double sum) {
  double lanes[kLanes];
#pragma unroll
  for (int l = 0; l < kLanes; ++l) lanes[l] = __shfl_sync(0xffffffffu, sum, l);
  return parlab::dot_combine_lanes(lanes);
}

// ---- layout `warp`: today's kernel (gpu/stream_kernels.cu), block size and batch as parameters
template <bool Checked>
__device__ __forceinline__ void narrow_step(double& sum, double product, int j, std::uint64_t base, std::uint64_t end) {
  double terms[4] = {product, __shfl_down_sync(0xffffffffu, product, 8), __shfl_down_sync(0xffffffffu, product, 16),
                     __shfl_down_sync(0xffffffffu, product, 24)};
  if (j < kLanes) {
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      if (!Checked || base + j + m * kLanes < end) sum = add_rn(sum, terms[m]);
    }
  }
}

template <int Threads, int Batch>
__global__ void __launch_bounds__(Threads)
    dot_warp(const double* __restrict__ a, const double* __restrict__ b, std::uint64_t n, std::uint64_t blocks,
             double* values, unsigned* arrivals, double* result) {
  const std::uint64_t block = (std::uint64_t(blockIdx.x) * Threads + threadIdx.x) / kWarp;
  const int j = threadIdx.x % kWarp;
  if (block < blocks) {
    const std::uint64_t begin = block * kBlock;
    const std::uint64_t end = begin + kBlock < n ? begin + kBlock : n;
    double sum = 0;
    std::uint64_t base = begin;
    for (; base + Batch * kWarp <= end; base += Batch * kWarp) {
      double x[Batch], y[Batch];
#pragma unroll
      for (int s = 0; s < Batch; ++s) {
        x[s] = a[base + s * kWarp + j];
        y[s] = b[base + s * kWarp + j];
      }
#pragma unroll
      for (int s = 0; s < Batch; ++s) narrow_step<false>(sum, mul_rn(x[s], y[s]), j, base + s * kWarp, end);
    }
    for (; base < end; base += kWarp) {
      const std::uint64_t i = base + j;
      narrow_step<true>(sum, i < end ? mul_rn(a[i], b[i]) : 0.0, j, base, end);
    }
    const double v = combine_lanes(sum);
    if (j == 0) values[block] = v;
  }
  finish_tree<Threads>(blocks, Threads / kWarp, values, arrivals, result);
}

// ---- layout `wide`: a warp a block, 16-byte loads. A step is 64 elements: thread j holds the
// products of elements 2j and 2j + 1, so lane l's elements l + 8m (m = 0..7) are in thread
// l/2 + 4m, component l % 2: thread l < 8 fetches both components of each by shuffles.
template <bool Checked>
__device__ __forceinline__ void wide_step(double& sum, double p0, double p1, int j, std::uint64_t base, std::uint64_t end) {
  const int l = j & (kLanes - 1);
#pragma unroll
  for (int m = 0; m < 8; ++m) {
    const int src = (l >> 1) + 4 * m;
    const double x = __shfl_sync(0xffffffffu, p0, src);
    const double y = __shfl_sync(0xffffffffu, p1, src);
    if (j < kLanes && (!Checked || base + l + 8 * m < end)) sum = add_rn(sum, (l & 1) ? y : x);
  }
}

template <int Threads, int Batch>
__global__ void __launch_bounds__(Threads)
    dot_wide(const double* __restrict__ a, const double* __restrict__ b, std::uint64_t n, std::uint64_t blocks,
             double* values, unsigned* arrivals, double* result) {
  const std::uint64_t block = (std::uint64_t(blockIdx.x) * Threads + threadIdx.x) / kWarp;
  const int j = threadIdx.x % kWarp;
  constexpr int kStep = 2 * kWarp;
  if (block < blocks) {
    const std::uint64_t begin = block * kBlock;
    const std::uint64_t end = begin + kBlock < n ? begin + kBlock : n;
    const double2* av = reinterpret_cast<const double2*>(a);
    const double2* bv = reinterpret_cast<const double2*>(b);
    double sum = 0;
    std::uint64_t base = begin;
    for (; base + Batch * kStep <= end; base += Batch * kStep) {
      double2 x[Batch], y[Batch];
#pragma unroll
      for (int s = 0; s < Batch; ++s) {
        x[s] = av[(base + s * kStep) / 2 + j];
        y[s] = bv[(base + s * kStep) / 2 + j];
      }
#pragma unroll
      for (int s = 0; s < Batch; ++s) {
        wide_step<false>(sum, mul_rn(x[s].x, y[s].x), mul_rn(x[s].y, y[s].y), j, base + s * kStep, end);
      }
    }
    for (; base < end; base += kStep) {
      const std::uint64_t i = base + 2 * j;
      const double p0 = i < end ? mul_rn(a[i], b[i]) : 0.0;
      const double p1 = i + 1 < end ? mul_rn(a[i + 1], b[i + 1]) : 0.0;
      wide_step<true>(sum, p0, p1, j, base, end);
    }
    const double v = combine_lanes(sum);
    if (j == 0) values[block] = v;
  }
  finish_tree<Threads>(blocks, Threads / kWarp, values, arrivals, result);
}

// ---- layout `cta`: one CUDA block a 8192-element block. A chunk is Threads * 2 * Stage
// elements: every thread loads Stage 16-byte vectors of a and b (all before any use), stores their
// products in element order in shared memory, and threads 0..7 of warp 0 add their lane's
// elements of the chunk in index order. Buffers 2: the next chunk's products go to the other
// buffer, so one barrier a chunk.
template <int Threads, int Stage, int Buffers>
__global__ void __launch_bounds__(Threads)
    dot_cta(const double* __restrict__ a, const double* __restrict__ b, std::uint64_t n, std::uint64_t blocks,
            double* values, unsigned* arrivals, double* result) {
  constexpr int C = Threads * 2 * Stage;
  static_assert(kBlock % C == 0, "a block is whole chunks");
  __shared__ double2 prod[Buffers][C / 2];
  const std::uint64_t block = blockIdx.x;
  const std::uint64_t begin = block * kBlock;
  const std::uint64_t end = begin + kBlock < n ? begin + kBlock : n;
  const double2* av = reinterpret_cast<const double2*>(a);
  const double2* bv = reinterpret_cast<const double2*>(b);
  const int t = threadIdx.x;
  double sum = 0;
  int buf = 0;
  for (std::uint64_t base = begin; base < end; base += C) {
    double2 x[Stage], y[Stage];
    const bool full = base + C <= end;
#pragma unroll
    for (int s = 0; s < Stage; ++s) {
      const std::uint64_t i = base + 2 * (s * Threads + t);
      if (full || i + 1 < end) {
        x[s] = av[i / 2];
        y[s] = bv[i / 2];
      } else if (i < end) {
        x[s] = make_double2(a[i], 0.0);
        y[s] = make_double2(b[i], 0.0);
      } else {
        x[s] = y[s] = make_double2(0.0, 0.0);
      }
    }
#pragma unroll
    for (int s = 0; s < Stage; ++s) prod[buf][s * Threads + t] = make_double2(mul_rn(x[s].x, y[s].x), mul_rn(x[s].y, y[s].y));
    __syncthreads();
    if (t < kLanes) {
      const double* p = reinterpret_cast<const double*>(prod[buf]);
      if (full) {
#pragma unroll 16
        for (int e = t; e < C; e += kLanes) sum = add_rn(sum, p[e]);
      } else {
        for (int e = t; base + e < end; e += kLanes) sum = add_rn(sum, p[e]);
      }
    }
    if constexpr (Buffers == 1) {
      __syncthreads();
    } else {
      buf ^= 1;
    }
  }
  if (t < kWarp) {
    const double v = combine_lanes(sum);
    if (t == 0) values[block] = v;
  }
  finish_tree<Threads>(blocks, 1, values, arrivals, result);
}

// ---- `atomic`: not deterministic; what the reads alone reach.
template <int Threads, int Vectors>
__global__ void __launch_bounds__(Threads)
    dot_atomic(const double* __restrict__ a, const double* __restrict__ b, std::uint64_t n, double* result) {
  __shared__ double warp_sums[Threads / kWarp];
  const std::uint64_t vectors = n / 2;
  const double2* av = reinterpret_cast<const double2*>(a);
  const double2* bv = reinterpret_cast<const double2*>(b);
  const std::uint64_t base = std::uint64_t(blockIdx.x) * Threads * Vectors;
  double2 x[Vectors], y[Vectors];
#pragma unroll
  for (int k = 0; k < Vectors; ++k) {
    const std::uint64_t v = base + k * Threads + threadIdx.x;
    x[k] = v < vectors ? av[v] : make_double2(0.0, 0.0);
    y[k] = v < vectors ? bv[v] : make_double2(0.0, 0.0);
  }
  double sum = 0;
#pragma unroll
  for (int k = 0; k < Vectors; ++k) sum += x[k].x * y[k].x + x[k].y * y[k].y;
  if (blockIdx.x == 0 && threadIdx.x == 0 && (n & 1)) sum += a[n - 1] * b[n - 1];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x % kWarp == 0) warp_sums[threadIdx.x / kWarp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    double s = 0;
    for (int w = 0; w < Threads / kWarp; ++w) s += warp_sums[w];
    atomicAdd(result, s);
  }
}

// ------------------------------------------------------------------ host side
struct DotScratch {
  double* values = nullptr;
  unsigned* arrivals = nullptr;
  double* result = nullptr;
};

// Values and counters of the tree over `blocks` partials in groups of G, as gpu/stream_kernels.cu
// sizes them.
DotScratch make_scratch(std::uint64_t blocks, std::uint64_t G) {
  std::vector<std::uint64_t> levels;
  for (std::uint64_t count = blocks; count > 0;) {
    count = (count + G - 1) / G;
    levels.push_back(count);
    if (count == 1) break;
  }
  std::uint64_t values = blocks, counters = 0;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    counters += levels[l];
    if (l + 1 < levels.size()) values += levels[l];
  }
  DotScratch s;
  CK(cudaMalloc(&s.values, std::max<std::uint64_t>(1, values) * sizeof(double)));
  CK(cudaMalloc(&s.arrivals, std::max<std::uint64_t>(1, counters) * sizeof(unsigned)));
  CK(cudaMalloc(&s.result, sizeof(double)));
  CK(cudaMemset(s.arrivals, 0, std::max<std::uint64_t>(1, counters) * sizeof(unsigned)));
  return s;
}

struct Variant {
  std::string kernel, name;
  int words = 2;           // array elements moved an index (for the bytes)
  bool deterministic_dot = false;
  int threads = 0;         // threads a CUDA block of the dot (its tree's group is 2x)
  int regs = 0;
  // Launches over (a, b, c, n); a dot writes its result to *result.
  std::function<void(double*, double*, double*, std::uint64_t, DotScratch&, cudaStream_t)> launch;
  std::function<std::uint64_t(std::uint64_t)> dot_group;  // G for the scratch, by n (dots only)
  std::vector<float> ms;
  bool ok = true;
  std::string why;
};

template <class F>
int regs_of(F* f) {
  cudaFuncAttributes at{};
  CK(cudaFuncGetAttributes(&at, reinterpret_cast<const void*>(f)));
  return at.numRegs;
}

template <StreamKernel K, int Threads, int Vectors, int H>
void add_array(std::vector<Variant>& out) {
  Variant v;
  v.kernel = std::string(parlab::info(K).name);
  v.name = "t" + std::to_string(Threads) + " v" + std::to_string(Vectors) + " " + kHintNames[H];
  v.words = parlab::info(K).words;
  v.regs = regs_of(array_kernel<K, Threads, Vectors, H>);
  v.launch = [](double* a, double* b, double* c, std::uint64_t n, DotScratch&, cudaStream_t st) {
    launch_array<K, Threads, Vectors, H>(a, b, c, n, st);
  };
  out.push_back(std::move(v));
}

template <StreamKernel K, int Threads, int Vectors>
void add_hints(std::vector<Variant>& out) {
  add_array<K, Threads, Vectors, kPlain>(out);
  add_array<K, Threads, Vectors, kCs>(out);
  add_array<K, Threads, Vectors, kNc>(out);
  add_array<K, Threads, Vectors, kStcs>(out);
  add_array<K, Threads, Vectors, kL2pf>(out);
}

template <StreamKernel K, int Threads>
void add_vectors(std::vector<Variant>& out) {
  add_hints<K, Threads, 1>(out);
  add_hints<K, Threads, 2>(out);
  add_hints<K, Threads, 4>(out);
}

template <StreamKernel K>
void add_kernel(std::vector<Variant>& out) {
  add_vectors<K, 128>(out);
  add_vectors<K, 256>(out);
  add_vectors<K, 512>(out);
  add_vectors<K, 1024>(out);
}

template <int Threads, int Batch>
void add_dot_warp(std::vector<Variant>& out) {
  Variant v;
  v.kernel = "dot";
  v.name = "warp t" + std::to_string(Threads) + " b" + std::to_string(Batch);
  v.deterministic_dot = true;
  v.threads = Threads;
  v.regs = regs_of(dot_warp<Threads, Batch>);
  v.launch = [](double* a, double* b, double*, std::uint64_t n, DotScratch& s, cudaStream_t st) {
    const std::uint64_t blocks = parlab::dot_block_count(n);
    const unsigned grid = static_cast<unsigned>((blocks * kWarp + Threads - 1) / Threads);
    dot_warp<Threads, Batch><<<grid, Threads, 0, st>>>(a, b, n, blocks, s.values, s.arrivals, s.result);
  };
  out.push_back(std::move(v));
}

template <int Threads, int Batch>
void add_dot_wide(std::vector<Variant>& out) {
  Variant v;
  v.kernel = "dot";
  v.name = "wide t" + std::to_string(Threads) + " b" + std::to_string(Batch);
  v.deterministic_dot = true;
  v.threads = Threads;
  v.regs = regs_of(dot_wide<Threads, Batch>);
  v.launch = [](double* a, double* b, double*, std::uint64_t n, DotScratch& s, cudaStream_t st) {
    const std::uint64_t blocks = parlab::dot_block_count(n);
    const unsigned grid = static_cast<unsigned>((blocks * kWarp + Threads - 1) / Threads);
    dot_wide<Threads, Batch><<<grid, Threads, 0, st>>>(a, b, n, blocks, s.values, s.arrivals, s.result);
  };
  out.push_back(std::move(v));
}

template <int Threads, int Stage, int Buffers>
void add_dot_cta(std::vector<Variant>& out) {
  Variant v;
  v.kernel = "dot";
  v.name = "cta t" + std::to_string(Threads) + " s" + std::to_string(Stage) + " buf" + std::to_string(Buffers);
  v.deterministic_dot = true;
  v.threads = Threads;
  v.regs = regs_of(dot_cta<Threads, Stage, Buffers>);
  v.launch = [](double* a, double* b, double*, std::uint64_t n, DotScratch& s, cudaStream_t st) {
    const std::uint64_t blocks = parlab::dot_block_count(n);
    dot_cta<Threads, Stage, Buffers><<<static_cast<unsigned>(blocks), Threads, 0, st>>>(a, b, n, blocks, s.values,
                                                                                          s.arrivals, s.result);
  };
  out.push_back(std::move(v));
}

template <int Threads, int Vectors>
void add_dot_atomic(std::vector<Variant>& out) {
  Variant v;
  v.kernel = "dot";
  v.name = "atomic t" + std::to_string(Threads) + " v" + std::to_string(Vectors) + " (any order)";
  v.regs = regs_of(dot_atomic<Threads, Vectors>);
  v.launch = [](double* a, double* b, double*, std::uint64_t n, DotScratch& s, cudaStream_t st) {
    const std::uint64_t per = std::uint64_t(Threads) * Vectors;
    const unsigned grid = static_cast<unsigned>(std::max<std::uint64_t>(1, (n / 2 + per - 1) / per));
    dot_atomic<Threads, Vectors><<<grid, Threads, 0, st>>>(a, b, n, s.result);
  };
  out.push_back(std::move(v));
}

std::vector<Variant> make_variants() {
  std::vector<Variant> v;
  add_kernel<StreamKernel::copy>(v);
  add_kernel<StreamKernel::mul>(v);
  add_kernel<StreamKernel::add>(v);
  add_kernel<StreamKernel::triad>(v);
  add_kernel<StreamKernel::nstream>(v);
  add_dot_warp<128, 8>(v);
  add_dot_warp<256, 4>(v);
  add_dot_warp<256, 8>(v);  // today's
  add_dot_warp<256, 16>(v);
  add_dot_warp<512, 8>(v);
  add_dot_warp<1024, 8>(v);
  add_dot_wide<128, 4>(v);
  add_dot_wide<256, 2>(v);
  add_dot_wide<256, 4>(v);
  add_dot_wide<256, 8>(v);
  add_dot_wide<512, 4>(v);
  add_dot_cta<128, 1, 1>(v);
  add_dot_cta<128, 2, 2>(v);
  add_dot_cta<128, 4, 2>(v);
  add_dot_cta<256, 1, 1>(v);
  add_dot_cta<256, 1, 2>(v);
  add_dot_cta<256, 2, 1>(v);
  add_dot_cta<256, 2, 2>(v);
  add_dot_cta<256, 4, 2>(v);
  add_dot_cta<512, 1, 2>(v);
  add_dot_cta<512, 2, 2>(v);
  add_dot_cta<512, 4, 1>(v);
  add_dot_cta<1024, 1, 1>(v);
  add_dot_atomic<256, 1>(v);
  add_dot_atomic<256, 2>(v);
  add_dot_atomic<1024, 1>(v);
  Variant m;
  m.kernel = "copy";
  m.name = "cudaMemcpyAsync D2D";
  m.launch = [](double* a, double*, double* c, std::uint64_t n, DotScratch&, cudaStream_t st) {
    CK(cudaMemcpyAsync(c, a, n * sizeof(double), cudaMemcpyDeviceToDevice, st));
  };
  v.push_back(std::move(m));
  return v;
}

// Values in [0.5, 1.5) and of mixed sign and magnitude for the dot (so its order shows in the bits).
double value(std::uint64_t i, std::uint64_t salt) {
  std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xD1B54A32D192ED03ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  const double u = static_cast<double>(x >> 11) * 0x1.0p-53;
  return salt >= 10 ? (u - 0.5) * std::ldexp(1.0, static_cast<int>(x % 23) - 11) : 0.5 + u;
}

// The CPU's deterministic dot (core/stream.hpp), blocks on every core.
double cpu_dot(const double* a, const double* b, std::uint64_t n) {
  const std::uint64_t blocks = parlab::dot_block_count(n);
  std::vector<double> p(blocks + 1);
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      for (std::uint64_t k = w; k < blocks; k += workers) p[k] = parlab::dot_block(a, b, n, k);
    });
  }
  for (auto& t : pool) t.join();
  return parlab::dot_pairwise_inplace(p.data(), blocks);
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Every array variant on random data against the CPU's element bodies, bit for bit.
void check_arrays(std::vector<Variant>& vs, cudaStream_t st) {
  for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{5}, std::uint64_t{4099}, std::uint64_t{1000003}}) {
    std::vector<double> a0(n), b0(n), c0(n);
    for (std::uint64_t i = 0; i < n; ++i) a0[i] = value(i, 1), b0[i] = value(i, 2), c0[i] = value(i, 3);
    double *a, *b, *c;
    CK(cudaMalloc(&a, n * 8));
    CK(cudaMalloc(&b, n * 8));
    CK(cudaMalloc(&c, n * 8));
    DotScratch none;
    for (auto& v : vs) {
      if (v.kernel == "dot" || !v.ok) continue;
      const StreamKernel k = *parlab::stream_kernel_from_name(v.kernel);
      CK(cudaMemcpy(a, a0.data(), n * 8, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(b, b0.data(), n * 8, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(c, c0.data(), n * 8, cudaMemcpyHostToDevice));
      v.launch(a, b, c, n, none, st);
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(st));
      std::vector<double> ea = a0, eb = b0, ec = c0, ga(n), gb(n), gc(n);
      for (std::uint64_t i = 0; i < n; ++i) {
        parlab::stream_element(k, ea.data(), eb.data(), ec.data(), parlab::StreamInit<double>::scalar, i);
      }
      CK(cudaMemcpy(ga.data(), a, n * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(gb.data(), b, n * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(gc.data(), c, n * 8, cudaMemcpyDeviceToHost));
      if (std::memcmp(ea.data(), ga.data(), n * 8) || std::memcmp(eb.data(), gb.data(), n * 8) ||
          std::memcmp(ec.data(), gc.data(), n * 8)) {
        v.ok = false;
        v.why = "arrays differ from the CPU's at n = " + std::to_string(n);
      }
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
  }
}

// Every deterministic dot against the CPU's order at the test suite's sizes (tests/gpu) and n,
// twice on one scratch (the second launch relies on the first leaving the counters at zero).
void check_dots(std::vector<Variant>& vs, const std::vector<std::uint64_t>& sizes, cudaStream_t st) {
  for (const std::uint64_t n : sizes) {
    std::vector<double> ha(n), hb(n);
    {
      const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
      std::vector<std::thread> pool;
      for (unsigned w = 0; w < workers; ++w) {
        pool.emplace_back([&, w] {
          for (std::uint64_t i = w; i < n; i += workers) ha[i] = value(i, 11), hb[i] = value(i, 12);
        });
      }
      for (auto& t : pool) t.join();
    }
    const double want = cpu_dot(ha.data(), hb.data(), n);
    double *a, *b;
    CK(cudaMalloc(&a, std::max<std::uint64_t>(1, n) * 8));
    CK(cudaMalloc(&b, std::max<std::uint64_t>(1, n) * 8));
    CK(cudaMemcpy(a, ha.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), n * 8, cudaMemcpyHostToDevice));
    for (auto& v : vs) {
      if (!v.deterministic_dot || !v.ok || n == 0) continue;
      DotScratch s = make_scratch(parlab::dot_block_count(n), 2 * v.threads);
      double got[2];
      for (double& g : got) {
        CK(cudaMemsetAsync(s.result, 0xff, sizeof(double), st));
        v.launch(a, b, nullptr, n, s, st);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(&g, s.result, sizeof(double), cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
      }
      if (!same_bits(got[0], want) || !same_bits(got[1], want)) {
        v.ok = false;
        char buf[160];
        std::snprintf(buf, sizeof buf, "n = %" PRIu64 ": GPU %.17g, %.17g, CPU %.17g", n, got[0], got[1], want);
        v.why = buf;
      }
      CK(cudaFree(s.values));
      CK(cudaFree(s.arrivals));
      CK(cudaFree(s.result));
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
}

__global__ void fill(double* x, std::uint64_t n, double v0, double dv) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    x[i] = v0 + dv * static_cast<double>(i % 1021);
  }
}

double percentile_sorted(const std::vector<float>& s, double q) {
  const double pos = q * (s.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

void time_size(std::vector<Variant>& vs, std::uint64_t n, int rounds, int iters, double peak, cudaStream_t st,
               FILE* out) {
  double *a, *b, *c;
  CK(cudaMalloc(&a, n * 8));
  CK(cudaMalloc(&b, n * 8));
  CK(cudaMalloc(&c, n * 8));
  // Not zeros (METHOD.md: zeros can run faster than data), in [0.1, 0.3): no value drifts towards
  // a denormal or infinity over repeated launches of one kernel.
  fill<<<1024, 256, 0, st>>>(a, n, 0.1, 1e-4);
  fill<<<1024, 256, 0, st>>>(b, n, 0.2, 1e-4);
  fill<<<1024, 256, 0, st>>>(c, n, 0.15, 1e-4);
  CK(cudaStreamSynchronize(st));
  std::vector<DotScratch> scratch(vs.size());
  for (std::size_t i = 0; i < vs.size(); ++i) {
    vs[i].ms.clear();
    if (vs[i].kernel == "dot") {
      scratch[i] = make_scratch(parlab::dot_block_count(n), vs[i].threads ? 2 * vs[i].threads : 512);
    }
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::mt19937 rng(static_cast<unsigned>(n));
  std::vector<std::size_t> order(vs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (const std::size_t i : order) {
      Variant& v = vs[i];
      if (!v.ok) continue;
      for (int w = 0; w < 2; ++w) v.launch(a, b, c, n, scratch[i], st);
      CK(cudaGetLastError());
      for (int it = 0; it < iters; ++it) {
        if (v.name.rfind("atomic", 0) == 0) CK(cudaMemsetAsync(scratch[i].result, 0, 8, st));
        CK(cudaEventRecord(e0, st));
        v.launch(a, b, c, n, scratch[i], st);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        v.ms.push_back(ms);
      }
      CK(cudaGetLastError());
    }
  }
  for (std::size_t i = 0; i < vs.size(); ++i) {
    Variant& v = vs[i];
    if (!v.ok) {
      std::fprintf(out, "%-6s %-30s n=2^%-2d FAILED %s\n", v.kernel.c_str(), v.name.c_str(),
                   static_cast<int>(std::log2(static_cast<double>(n))), v.why.c_str());
      continue;
    }
    std::vector<float> s = v.ms;
    std::sort(s.begin(), s.end());
    const double bytes = static_cast<double>(v.words) * 8.0 * static_cast<double>(n);
    const double med = percentile_sorted(s, 0.5) * 1e-3, best = s.front() * 1e-3;
    std::fprintf(out, "%-6s %-30s n=2^%-2d regs %3d  median %9.2f us %.4f  fastest %9.2f us %.4f  (%zu iterations)\n",
                 v.kernel.c_str(), v.name.c_str(), static_cast<int>(std::log2(static_cast<double>(n))), v.regs, med * 1e6,
                 bytes / med / peak, best * 1e6, bytes / best / peak, s.size());
  }
  std::fflush(out);
  for (std::size_t i = 0; i < vs.size(); ++i) {
    if (scratch[i].values) {
      CK(cudaFree(scratch[i].values));
      CK(cudaFree(scratch[i].arrivals));
      CK(cudaFree(scratch[i].result));
    }
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> exps = {27, 28};
  int rounds = 4, iters = 25;
  const char* out_path = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--sizes") exps = parse_list(argv[i + 1]);
    else if (k == "--rounds") rounds = std::atoi(argv[i + 1]);
    else if (k == "--iters") iters = std::atoi(argv[i + 1]);
    else if (k == "--out") out_path = argv[i + 1];
    else { std::fprintf(stderr, "stream-probe: unknown option %s\n", argv[i]); return 2; }
  }
  FILE* out = out_path ? std::fopen(out_path, "w") : stdout;
  if (!out) { std::perror(out_path); return 2; }
  CK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int mem_khz = 0, bus_bits = 0, sm_khz = 0;
  CK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0));
  CK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  CK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0));
  const double peak = 2.0 * 1e3 * mem_khz * bus_bits / 8.0;
  std::fprintf(out, "# %s, %d SMs, L2 %d MiB, memory clock %d kHz x %d bits: theoretical peak %.4g B/s; SM clock %d kHz\n",
               prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, mem_khz, bus_bits, peak, sm_khz);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  std::vector<Variant> vs = make_variants();
  check_arrays(vs, st);
  std::vector<std::uint64_t> dot_sizes = {1, 7, 8, 9, 8191, 8192, 8193, 5 * 8192 + 3, 37 * 8192 + 1001, 513 * 8192 + 17,
                                          1100 * 8192 + 4097, 4097 * 8192 + 5};
  for (int e : exps) dot_sizes.push_back(std::uint64_t{1} << e);
  check_dots(vs, dot_sizes, st);
  int failed = 0;
  for (const auto& v : vs) {
    if (!v.ok) {
      ++failed;
      std::fprintf(out, "# FAILED check: %s %s: %s\n", v.kernel.c_str(), v.name.c_str(), v.why.c_str());
    }
  }
  std::fprintf(out, "# %zu variants, %d failed their check; %d rounds x %d iterations each, after 2 untimed a round\n",
               vs.size(), failed, rounds, iters);
  for (int e : exps) time_size(vs, std::uint64_t{1} << e, rounds, iters, peak, st, out);
  CK(cudaStreamDestroy(st));
  if (out != stdout) std::fclose(out);
  return failed ? 1 : 0;
}
