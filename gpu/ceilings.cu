// GPU probes (gpu/ceilings.hpp). Every CUDA call is checked (PARLAB_CUDA_CHECK); every resource is
// an owner of gpu/cuda_check.hpp. Each probe launches its kernel repeatedly between two events
// until the timed interval is long (>= 50 ms) against the launch and event overheads, and keeps
// the best of a few such intervals: a roof is what the device can do.
#include "ceilings.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <sstream>
#include <string>

#include "cuda_check.hpp"

namespace parlab {
namespace {

constexpr int kBlock = 256;

// DRAM: grid-stride sweeps with 16-byte accesses, so a warp moves 512 bytes per instruction and
// enough loads are in flight to cover DRAM latency. Arrays of many times the L2.
__global__ void bw_copy(const double2* __restrict__ a, double2* __restrict__ c, std::uint64_t n2) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n2; i += stride) {
    c[i] = a[i];
  }
}

__global__ void bw_triad(double2* __restrict__ a, const double2* __restrict__ b, const double2* __restrict__ c,
                         double s, std::uint64_t n2) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n2; i += stride) {
    const double2 x = b[i], y = c[i];
    a[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
  }
}

__global__ void bw_fill(double* p, std::uint64_t n, double v) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = v;
}

// FMA: kChains independent chains per thread cover the FMA latency with the warps of an SM. The
// accumulators converge (m < 1), so no value overflows or goes denormal; the store is taken only
// when the sum is impossible, so the compiler keeps the work and memory sees none.
constexpr int kChains = 8;
template <class T>
__global__ void fma_peak(T m, T c, std::uint64_t iters, T* out) {
  T acc[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) acc[j] = T(1) + T(threadIdx.x + j) * T(1e-3);
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) acc[j] = fma(acc[j], m, c);
  }
  T s = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) s += acc[j];
  if (s == T(-1)) out[0] = s;
}

// 32x32->64-bit multiplies in the form the pi kernel issues them (gpu/pi_device.cuh). On sm_90 a
// PTX mul.wide.u32 is ONE SASS instruction, IMAD.WIDE.U32 (both halves of the product in a
// register pair, multiplier as an immediate), and Philox folds the halves with a LOP3 xor: the pi
// kernel's loop issues per 4 pairs 89 IMAD.WIDE.U32 (72 Philox + 16 hit test + 1 counter step)
// and 74 LOP3, about one LOP3 per multiply. Each step here is the same pair: one IMAD.WIDE.U32,
// one LOP3 folding hi ^ lo into the next multiplicand; the 8 chains per thread and 64 warps per
// SM cover the pair's latency. SASS of this loop (unrolled 4x by the compiler): 32 IMAD.WIDE.U32,
// 32 LOP3 and 7 instructions of loop control per 32 multiplies. The multiply is inline PTX on
// purpose: written in C++ (a 64-bit product whose halves were xor-folded), the front end merged
// the steps into 64-bit mul.lo.s64 and the loop issued 32 IMAD.WIDE.U32, 32 LOP3 and about 40
// more instructions per 32 counted multiplies, so it measured less than the pi kernel reached.
// Counted: one multiply (one IMAD.WIDE.U32) per step (docs/ceilings.md, "gpu_imul").
__device__ __forceinline__ std::uint32_t imul_step(std::uint32_t x) {
  std::uint64_t p;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(x), "r"(0xD2511F53u));
  return static_cast<std::uint32_t>(p >> 32) ^ static_cast<std::uint32_t>(p);
}

__global__ void imul_peak(std::uint64_t iters, unsigned* out) {
  std::uint32_t x[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) x[j] = threadIdx.x * 2654435761u + j;
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) x[j] = imul_step(x[j]);
  }
  std::uint32_t s = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) s ^= x[j];
  if (s == 0xFFFFFFFFu) out[0] = s;  // almost never true: keeps the loop, stores (almost) nothing
}

// Seconds per launch of `launch` on `stream`: launches repeated until an interval lasts
// >= min_s (or 1000 launches), the best interval of `reps`.
double seconds_per_launch(const cuda::Stream& stream, const std::function<void()>& launch, double min_s, int reps) {
  cuda::Event start, stop;
  launch();  // warm-up
  PARLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  int n = 1;
  double best = 0;
  for (int r = 0; r < reps;) {
    start.record(stream);
    for (int i = 0; i < n; ++i) launch();
    stop.record(stream);
    stop.synchronize();
    const double t = cuda::elapsed_seconds(start, stop);
    if (t < min_s && n < 1000) {
      n = std::min(1000, std::max(n * 2, static_cast<int>(n * min_s / std::max(t, 1e-6))));
      continue;  // calibrating: not a repetition
    }
    const double per = t / n;
    best = best == 0 ? per : std::min(best, per);
    ++r;
  }
  return best;
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  PARLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

RoofSet measure(int device, bool quick) {
  RoofSet set;
  const std::string dev = "gpu" + std::to_string(device);
  const std::string note = quick ? " (PARLAB_CEILINGS_QUICK: test sizes, not a roof)" : "";
  cuda::DeviceGuard guard(device);
  cudaDeviceProp prop{};
  PARLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int sms = attribute(cudaDevAttrMultiProcessorCount, device);
  const double clock_hz = 1e3 * attribute(cudaDevAttrClockRate, device);  // the driver's kHz
  const std::uint64_t l2 = static_cast<std::uint64_t>(attribute(cudaDevAttrL2CacheSize, device));
  const std::string name = prop.name;
  set.roofs.push_back({"gpu_sm_count", static_cast<double>(sms), "count", "measured",
                       "driver: cudaDevAttrMultiProcessorCount of " + name, 1, dev, {}});
  set.roofs.push_back({"gpu_clock_hz", clock_hz, "hz", "measured", "driver: cudaDevAttrClockRate (peak SM clock) of " + name,
                       1, dev, {}});
  cuda::Stream stream;
  const double min_s = quick ? 1e-3 : 0.05;
  const int reps = quick ? 1 : 3;

  // DRAM bandwidth: three arrays of max(8 x L2, 512 MiB) each, at most a sixth of free memory.
  std::size_t free_b = 0, total_b = 0;
  PARLAB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  std::uint64_t bytes = quick ? (std::uint64_t{8} << 20) : std::max<std::uint64_t>(8 * l2, std::uint64_t{512} << 20);
  bytes = std::min<std::uint64_t>(bytes, free_b / 6) / 16 * 16;
  const std::uint64_t n = bytes / sizeof(double), n2 = n / 2;
  {
    cuda::DeviceBuffer<double> a(n, device, "ceilings a"), b(n, device, "ceilings b"), c(n, device, "ceilings c");
    const int fill_blocks = sms * 8;
    for (auto* p : {a.get(), b.get(), c.get()}) {
      bw_fill<<<fill_blocks, kBlock, 0, stream.get()>>>(p, n, 1.0);
      PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    }
    const int blocks = sms * 8;  // several resident blocks per SM, each sweeping a grid stride
    const auto* a2 = reinterpret_cast<double2*>(a.get());
    auto* b2 = reinterpret_cast<double2*>(b.get());
    auto* c2 = reinterpret_cast<double2*>(c.get());
    const double t_copy = seconds_per_launch(stream, [&] {
      bw_copy<<<blocks, kBlock, 0, stream.get()>>>(a2, c2, n2);
      PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    }, min_s, reps);
    const double t_triad = seconds_per_launch(stream, [&] {
      bw_triad<<<blocks, kBlock, 0, stream.get()>>>(reinterpret_cast<double2*>(a.get()), b2, c2, 0.4, n2);
      PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    }, min_s, reps);
    const double copy_bw = 2.0 * 16 * n2 / t_copy, triad_bw = 3.0 * 16 * n2 / t_triad;
    std::ostringstream how;
    how.precision(4);
    how << "best of copy (" << copy_bw / 1e9 << " GB/s) and triad (" << triad_bw / 1e9 << " GB/s), 16-byte accesses, "
        << "arrays of " << bytes / (1 << 20) << " MiB (L2 " << l2 / (1 << 20) << " MiB), " << blocks << " blocks of "
        << kBlock << ", best of " << reps << note;
    set.roofs.push_back({"gpu_bw", std::max(copy_bw, triad_bw), "bytes/s", "measured", how.str(), blocks * kBlock, dev, {}});
  }

  // Compute: enough warps to fill every SM several times over (32 blocks of 256 per SM).
  const int blocks = sms * 32;
  const double threads = static_cast<double>(blocks) * kBlock;
  cuda::DeviceBuffer<double> sink(1, device, "ceilings sink");
  const auto compute_roof = [&](const char* roof, const char* unit, double ops_per_step, const std::string& what,
                                const std::function<void(std::uint64_t)>& launch) {
    const std::uint64_t iters = quick ? 256 : 8192;
    const double t = seconds_per_launch(stream, [&] { launch(iters); }, min_s, reps);
    const double rate = ops_per_step * kChains * static_cast<double>(iters) * threads / t;
    set.roofs.push_back({roof, rate, unit, "measured",
                         what + ", " + std::to_string(kChains) + " independent chains per thread, " +
                             std::to_string(blocks) + " blocks of " + std::to_string(kBlock) + ", best of " +
                             std::to_string(reps) + note,
                         static_cast<int>(threads), dev, {}});
  };
  compute_roof("gpu_fma_f64", "flops/s", 2, "fp64 fma, 2 flops each", [&](std::uint64_t it) {
    fma_peak<double><<<blocks, kBlock, 0, stream.get()>>>(0.999999, 1e-6, it, sink.get());
    PARLAB_CUDA_CHECK(cudaPeekAtLastError());
  });
  compute_roof("gpu_fma_f32", "flops/s", 2, "fp32 fma, 2 flops each", [&](std::uint64_t it) {
    fma_peak<float><<<blocks, kBlock, 0, stream.get()>>>(0.999f, 1e-3f, it, reinterpret_cast<float*>(sink.get()));
    PARLAB_CUDA_CHECK(cudaPeekAtLastError());
  });
  compute_roof("gpu_imul", "muls/s", 1, "32x32->64 multiplies (mad.wide.u32: one IMAD.WIDE.U32 each, as the pi kernel issues them)",
               [&](std::uint64_t it) {
                 imul_peak<<<blocks, kBlock, 0, stream.get()>>>(it, reinterpret_cast<unsigned*>(sink.get()));
                 PARLAB_CUDA_CHECK(cudaPeekAtLastError());
               });
  PARLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  return set;
}

}  // namespace

RoofSet measure_gpu_ceilings(int device, bool quick) {
  const char* names[] = {"gpu_bw", "gpu_fma_f64", "gpu_fma_f32", "gpu_imul", "gpu_sm_count", "gpu_clock_hz"};
  const auto none = [&](const std::string& why) {
    RoofSet set;
    for (const char* n : names) set.unavailable.emplace_back(n, why);
    return set;
  };
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear it: the CPU part goes on
    return none("no CUDA device (" + cuda::describe(err) + ")");
  }
  if (device >= count) return none("no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " found)");
  try {
    return measure(device, quick);
  } catch (const std::exception& e) {
    return none(std::string("GPU probe failed: ") + e.what());
  }
}

}  // namespace parlab
