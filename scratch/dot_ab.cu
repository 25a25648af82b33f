// Scratch A/B of GPU dot layouts (not committed). Wall time of launch + sync + result on host,
// as BabelStream times its dot.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/stream.hpp"

#define CU(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

using namespace parlab;
using T = double;
constexpr int kThreads = 256, kWarp = 32, kDotBatch = 8, kG = 512;

__device__ __forceinline__ void dot_step_u(T& sum, T product, int j) {
  T t[4] = {product, __shfl_down_sync(0xffffffffu, product, 8), __shfl_down_sync(0xffffffffu, product, 16),
            __shfl_down_sync(0xffffffffu, product, 24)};
  if (j < kDotLanes) {
#pragma unroll
    for (int m = 0; m < 4; ++m) sum = __dadd_rn(sum, t[m]);
  }
}
__device__ __forceinline__ void dot_step_c(T& sum, T product, int j, std::uint64_t base, std::uint64_t end) {
  T t[4] = {product, __shfl_down_sync(0xffffffffu, product, 8), __shfl_down_sync(0xffffffffu, product, 16),
            __shfl_down_sync(0xffffffffu, product, 24)};
  if (j < kDotLanes) {
#pragma unroll
    for (int m = 0; m < 4; ++m) if (base + j + m * kDotLanes < end) sum = __dadd_rn(sum, t[m]);
  }
}

template <int Hint>
__device__ __forceinline__ T ld(const T* p) {
  if constexpr (Hint == 1) return __ldcs(p);
  else if constexpr (Hint == 2) return __ldg(p);
  else return *p;
}

template <int Batch = kDotBatch, int Hint = 0>
__device__ __forceinline__ T warp_block_partial(const T* __restrict__ a, const T* __restrict__ b, std::uint64_t n,
                                                std::uint64_t block, int j) {
  const std::uint64_t begin = block * kDotBlock;
  const std::uint64_t end = begin + kDotBlock < n ? begin + kDotBlock : n;
  T sum = 0;
  std::uint64_t base = begin;
  for (; base + Batch * kWarp <= end; base += Batch * kWarp) {
    T x[Batch], y[Batch];
#pragma unroll
    for (int s = 0; s < Batch; ++s) { x[s] = ld<Hint>(a + base + s * kWarp + j); y[s] = ld<Hint>(b + base + s * kWarp + j); }
#pragma unroll
    for (int s = 0; s < Batch; ++s) dot_step_u(sum, __dmul_rn(x[s], y[s]), j);
  }
  for (; base < end; base += kWarp) {
    const std::uint64_t i = base + j;
    dot_step_c(sum, i < end ? __dmul_rn(a[i], b[i]) : T(0), j, base, end);
  }
  T lanes[kDotLanes];
#pragma unroll
  for (int l = 0; l < kDotLanes; ++l) lanes[l] = __shfl_sync(0xffffffffu, sum, l);
  return dot_combine_lanes(lanes);
}

// Block-wide group reduction (the production reduce_group).
__device__ T reduce_group(const T* src, std::uint64_t count, std::uint64_t g, T (&s)[kG]) {
  const std::uint64_t base = g * kG;
  const std::uint32_t m0 = static_cast<std::uint32_t>(count - base < kG ? count - base : kG);
  const std::uint32_t t = threadIdx.x;
  if (t < m0) s[t] = __ldcg(src + base + t);
  if (t + kThreads < m0) s[t + kThreads] = __ldcg(src + base + t + kThreads);
  __syncthreads();
  for (std::uint32_t m = m0; m > 1;) {
    const std::uint32_t half = m / 2;
    T v = 0;
    const bool writes = t < half || (t == half && (m & 1u));
    if (t < half) v = __dadd_rn(s[2 * t], s[2 * t + 1]);
    else if (writes) v = s[m - 1];
    __syncthreads();
    if (writes) s[t] = v;
    __syncthreads();
    m = half + (m & 1u);
  }
  return s[0];
}

// Warp-wide group reduction: lane l reduces [16l, 16l+16) of the group, then pairs by shuffles.
__device__ T warp_group(const T* src, std::uint64_t count, std::uint64_t g, int lane) {
  const std::uint64_t first = g * kG + 16 * static_cast<std::uint64_t>(lane);
  int m = first < count ? static_cast<int>(count - first < 16 ? count - first : 16) : 0;
  T v[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) v[i] = i < m ? __ldcg(src + first + i) : T(0);
  for (int w = 16; w > 1; w /= 2) {  // bottom-up with the odd last carried: as the full tree on a cut range
#pragma unroll
    for (int i = 0; i < w / 2; ++i) {
      if (2 * i + 1 < m) v[i] = __dadd_rn(v[2 * i], v[2 * i + 1]);
      else if (2 * i < m) v[i] = v[2 * i];
    }
    m = (m + 1) / 2;
  }
  T x = v[0];
  bool has = first < count;
  for (int off = 1; off < 32; off *= 2) {
    const T o = __shfl_down_sync(0xffffffffu, x, off);
    const bool oh = __shfl_down_sync(0xffffffffu, has, off);
    if ((lane & (2 * off - 1)) == 0 && oh) x = __dadd_rn(x, o);
  }
  return x;
}

// V0: fused, fence + atomicInc (production f6306c4).
// V1: fused, acq_rel atomic_ref.
template <int V>
__global__ void __launch_bounds__(kThreads) fused(const T* __restrict__ a, const T* __restrict__ b, std::uint64_t n,
                                                   std::uint64_t blocks, T* values, unsigned* arrivals, T* result) {
  __shared__ T tree[kG];
  __shared__ bool completes;
  const std::uint64_t block = (static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int j = threadIdx.x % kWarp;
  if (block < blocks) {
    const T p = warp_block_partial(a, b, n, block, j);
    if (j == 0) values[block] = p;
  }
  std::uint64_t producer = blockIdx.x, producers = gridDim.x, per_group = kG / (kThreads / kWarp);
  const T* src = values;
  T* dst = values + blocks;
  std::uint64_t count = blocks;
  for (;;) {
    const std::uint64_t g = producer / per_group;
    const std::uint64_t groups = (count + kG - 1) / kG;
    __syncthreads();
    if (threadIdx.x == 0) {
      const std::uint64_t left = producers - g * per_group;
      const unsigned members = static_cast<unsigned>(left < per_group ? left : per_group);
      if (V == 0) {
        __threadfence();
        completes = atomicInc(arrivals + g, members - 1) == members - 1;
        __threadfence();
      } else {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(arrivals[g]);
        completes = c.fetch_add(1, cuda::memory_order_acq_rel) == members - 1;
        if (completes) c.store(0, cuda::memory_order_relaxed);
      }
    }
    __syncthreads();
    if (!completes) return;
    const T v = reduce_group(src, count, g, tree);
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
    per_group = kG;
  }
}

template <int Threads = kThreads, int Batch = kDotBatch, int Hint = 0>
__global__ void __launch_bounds__(Threads) blocks_only(const T* __restrict__ a, const T* __restrict__ b,
                                                        std::uint64_t n, std::uint64_t blocks, T* partials) {
  const std::uint64_t block = (static_cast<std::uint64_t>(blockIdx.x) * Threads + threadIdx.x) / kWarp;
  if (block >= blocks) return;
  const int j = threadIdx.x % kWarp;
  const T p = warp_block_partial<Batch, Hint>(a, b, n, block, j);
  if (j == 0) partials[block] = p;
}

// V2: one launch of one CUDA block, warps reduce groups level by level.
__global__ void __launch_bounds__(1024) warp_tree(T* values, std::uint64_t count, T* result) {
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  const T* src = values;
  T* dst = values + count;
  for (;;) {
    const std::uint64_t groups = (count + kG - 1) / kG;
    for (std::uint64_t g = warp; g < groups; g += 32) {
      const T v = warp_group(src, count, g, lane);
      if (lane == 0) (groups == 1 ? result : dst)[g] = v;
    }
    if (groups == 1) return;
    __syncthreads();
    src = dst;
    dst += groups;
    count = groups;
  }
}

// V3: the old group kernel, level by level.
__global__ void __launch_bounds__(kThreads) group_kernel(const T* src, std::uint64_t count, T* dst) {
  __shared__ T s[kG];
  const T v = reduce_group(src, count, blockIdx.x, s);
  if (threadIdx.x == 0) dst[blockIdx.x] = v;
}

// BabelStream's.
__global__ void bs_dot(const T* a, const T* b, T* sums, size_t n) {
  __shared__ T smem[1024];
  T tmp = 0;
  const size_t t = threadIdx.x;
  for (size_t i = t + (size_t)blockDim.x * blockIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) tmp += a[i] * b[i];
  smem[t] = tmp;
  for (int off = blockDim.x / 2; off > 0; off /= 2) {
    __syncthreads();
    if (t < off) smem[t] += smem[t + off];
  }
  if (t == 0) sums[blockIdx.x] = smem[0];
}

__global__ void init(T* a, T* b, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * (std::uint64_t)blockDim.x + threadIdx.x; i < n; i += (std::uint64_t)gridDim.x * blockDim.x) {
    a[i] = 0.1 + 1e-9 * (i % 1000);
    b[i] = 0.2 - 1e-9 * (i % 777);
  }
}

int main() {
  const std::uint64_t n = std::uint64_t{1} << 28;
  const std::uint64_t blocks = dot_block_count(n);
  T *a, *b, *values, *host;
  unsigned* arrivals;
  CU(cudaMalloc(&a, n * sizeof(T)));
  CU(cudaMalloc(&b, n * sizeof(T)));
  CU(cudaMalloc(&values, (blocks + 4096) * sizeof(T)));
  CU(cudaMalloc(&arrivals, 4096 * sizeof(unsigned)));
  CU(cudaMemset(arrivals, 0, 4096 * sizeof(unsigned)));
  CU(cudaHostAlloc(&host, 4096 * sizeof(T), cudaHostAllocDefault));
  init<<<1024, 1024>>>(a, b, n);
  CU(cudaDeviceSynchronize());
  cudaStream_t st;
  CU(cudaStreamCreate(&st));
  int sms;
  CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned grid = static_cast<unsigned>((blocks * kWarp + kThreads - 1) / kThreads);
  constexpr int kV = 8;
  const char* names[kV] = {"fused-atomicInc", "fused-acqrel", "blocks256+groups", "blocks256-ldcs+groups",
                           "blocks256-b16+groups", "blocks128+groups", "blocks512+groups", "babelstream"};
  auto tree = [&] {
    T* level = values;
    std::uint64_t count = blocks;
    do {
      const std::uint64_t groups = (count + kG - 1) / kG;
      T* next = groups == 1 ? host : level + count;
      group_kernel<<<static_cast<unsigned>(groups), kThreads, 0, st>>>(level, count, next);
      level = next;
      count = groups;
    } while (count > 1);
  };
  auto grid_of = [&](int threads) { return static_cast<unsigned>((blocks * kWarp + threads - 1) / threads); };
  auto run = [&](int v) -> T {
    switch (v) {
      case 0: fused<0><<<grid, kThreads, 0, st>>>(a, b, n, blocks, values, arrivals, host); break;
      case 1: fused<1><<<grid, kThreads, 0, st>>>(a, b, n, blocks, values, arrivals, host); break;
      case 2: blocks_only<256, 8, 0><<<grid_of(256), 256, 0, st>>>(a, b, n, blocks, values); tree(); break;
      case 3: blocks_only<256, 8, 1><<<grid_of(256), 256, 0, st>>>(a, b, n, blocks, values); tree(); break;
      case 4: blocks_only<256, 16, 0><<<grid_of(256), 256, 0, st>>>(a, b, n, blocks, values); tree(); break;
      case 5: blocks_only<128, 8, 0><<<grid_of(128), 128, 0, st>>>(a, b, n, blocks, values); tree(); break;
      case 6: blocks_only<512, 8, 0><<<grid_of(512), 512, 0, st>>>(a, b, n, blocks, values); tree(); break;
      case 7: {
        bs_dot<<<sms * 4, 1024, 0, st>>>(a, b, host + 8, n);
        CU(cudaStreamSynchronize(st));
        T s = 0;
        for (int i = 0; i < sms * 4; ++i) s += host[8 + i];
        return s;
      }
    }
    CU(cudaStreamSynchronize(st));
    return host[0];
  };
  // GPU time of each variant's launches (events), as parlab's records time it.
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  std::vector<std::vector<double>> gpu_us(kV);
  std::vector<std::vector<double>> times(kV);
  T bits[kV] = {};
  for (int v = 0; v < kV; ++v) bits[v] = run(v);  // warm-up
  for (int round = 0; round < 5; ++round) {
    for (int v = 0; v < kV; ++v) {
      for (int it = 0; it < 40; ++it) {
        const auto t0 = std::chrono::steady_clock::now();
        const T r = run(v);
        const auto t1 = std::chrono::steady_clock::now();
        times[v].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        if (v < kV - 1 && std::memcmp(&r, &bits[v], sizeof(T)) != 0) { std::printf("%s: result changed\n", names[v]); return 1; }
      }
      if (v < kV - 1) {
        for (int it = 0; it < 20; ++it) {
          CU(cudaEventRecord(e0, st));
          run(v);
          CU(cudaEventRecord(e1, st));
          CU(cudaEventSynchronize(e1));
          float ms = 0;
          CU(cudaEventElapsedTime(&ms, e0, e1));
          gpu_us[v].push_back(ms * 1e3);
        }
      }
    }
  }
  for (int v = 0; v < kV - 1; ++v) {
    if (std::memcmp(&bits[v], &bits[2], sizeof(T)) != 0) std::printf("%s: bits differ\n", names[v]);
  }
  for (int v = 0; v < kV; ++v) {
    auto& t = times[v];
    std::sort(t.begin(), t.end());
    auto& g = gpu_us[v];
    std::sort(g.begin(), g.end());
    std::printf("%-24s wall min %8.2f us  p10 %8.2f  median %8.2f", names[v], t.front(), t[t.size() / 10], t[t.size() / 2]);
    if (!g.empty()) std::printf("  | events min %8.2f median %8.2f", g.front(), g[g.size() / 2]);
    std::printf("\n");
  }
  return 0;
}
