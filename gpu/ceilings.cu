// GPU probes (gpu/ceilings.hpp). Bandwidth is measured with gpu/stream_kernels.cu's launcher, the
// compute roofs with kernels of their own below. Every CUDA call is checked (PARLAB_CUDA_CHECK); every resource is
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
#include <vector>

#include "core/stream.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

namespace parlab {
namespace {

constexpr int kBlock = 256;

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
// Counted: one multiply (one IMAD.WIDE.U32) per step (docs/ceilings.md, "How the probes measure").
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

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  PARLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

// Read-only and write-only sweeps for the bandwidth roof: kernels that are not the STREAM kernels
// the roof grades, each thread one 16-byte vector (the shape launch_stream takes) so that the
// loads and stores are as wide as the STREAM kernels' own.
__global__ void read_sweep(const double2* a, std::uint64_t n2, double* out) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= n2) return;
  const double2 v = a[i];
  if (v.x + v.y == -1.0) out[0] = v.x;  // never true for the filled values: keeps the load
}

__global__ void fill_sweep(double2* a, std::uint64_t n2, double value) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n2) a[i] = make_double2(value, value);
}

// Seconds per launch of `launch` on `stream`, one per repetition: launches repeated until an
// interval lasts >= min_s (or 1000 launches), `reps` such intervals. The roof is the fastest; the
// others are its spread.
std::vector<double> seconds_per_launch(const cuda::Stream& stream, const std::function<void()>& launch, double min_s,
                                       int reps) {
  cuda::Event start, stop;
  launch();  // warm-up
  PARLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  int n = 1;
  std::vector<double> each;
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
    each.push_back(t / n);
    ++r;
  }
  return each;
}

// A candidate from `bytes` moved per launch and each repetition's seconds.
RoofCandidate candidate(std::string label, double bytes, const std::vector<double>& seconds) {
  RoofCandidate c{std::move(label), 0, {}};
  for (const double t : seconds) {
    c.samples.push_back(bytes / t);
    c.value = std::max(c.value, c.samples.back());
  }
  return c;
}

// Per clock and SM, from the CUDA C++ Programming Guide's table "Throughput of Native Arithmetic
// Instructions" (operations per clock cycle per multiprocessor): 64-bit and 32-bit floating-point
// fused multiply-add, and 32-bit integer multiply-add. The guide gives no row for the 32x32->64
// IMAD.WIDE the pi kernel issues; it is taken as half the 32-bit rate (it writes a register pair),
// an assumption, labelled as one in the roof, that gpu_imul's measured probe checks.
struct SmRates {
  int major, minor;
  double fma_f64, fma_f32, imad32;
};
constexpr SmRates kSmRates[] = {
    {7, 0, 32, 64, 64},  {7, 5, 2, 64, 64},   {8, 0, 32, 64, 64},    {8, 6, 2, 128, 64},
    {8, 9, 2, 128, 64},  {9, 0, 64, 128, 64}, {10, 0, 64, 128, 64},  {12, 0, 2, 128, 64},
};

const SmRates* sm_rates(int major, int minor) {
  for (const SmRates& r : kSmRates) {
    if (r.major == major && r.minor == minor) return &r;
  }
  return nullptr;
}

// The theoretical peaks (docs/ceilings.md, "How the probes measure"): products of the driver's figures
// and the guide's per-SM rates, each with its inputs by name. They bound what any kernel can do;
// the measured roofs beside them say what a probe did.
void add_peaks(RoofSet& set, int device, const std::string& dev, const std::string& name, double sms, double clock_hz) {
  const double mem_khz = attribute(cudaDevAttrMemoryClockRate, device);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  if (mem_khz > 0 && bus_bits > 0) {
    // Double data rate: two transfers per memory clock, bus_bits / 8 bytes each.
    set.roofs.push_back({RoofKey::gpu_bw_peak, 2 * 1e3 * mem_khz * bus_bits / 8, "bytes/s", "theoretical",
                         "2 transfers per memory clock x bus width / 8, from the driver (cudaDevAttrMemoryClockRate, "
                         "cudaDevAttrGlobalMemoryBusWidth) of " + name,
                         1, dev, {{"memory_clock_hz", 1e3 * mem_khz}, {"bus_width_bits", bus_bits}}, {}});
  } else {
    set.unavailable.emplace_back(RoofKey::gpu_bw_peak, "the driver reports no memory clock or bus width for " + name);
  }
  const int major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  const int minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
  const SmRates* rates = sm_rates(major, minor);
  const RoofKey peak_keys[] = {RoofKey::gpu_fma_f64_peak, RoofKey::gpu_fma_f32_peak, RoofKey::gpu_imul_peak};
  if (rates == nullptr) {
    for (const RoofKey k : peak_keys) {
      set.unavailable.emplace_back(k, "compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                                          " is not in parlab's table of per-SM rates (gpu/ceilings.cu, kSmRates)");
    }
    return;
  }
  const std::string cc = "compute capability " + std::to_string(major) + "." + std::to_string(minor);
  const auto peak = [&](RoofKey key, const char* unit, double per_sm_clock, double ops_each, const std::string& how) {
    set.roofs.push_back({key, sms * clock_hz * per_sm_clock * ops_each, unit, "theoretical", how + " (" + cc + ")", 1,
                         dev, {{"sm_count", sms}, {"clock_hz", clock_hz}, {"per_sm_per_clock", per_sm_clock},
                               {"ops_each", ops_each}}, {}});
  };
  peak(RoofKey::gpu_fma_f64_peak, "flops/s", rates->fma_f64, 2,
       "SMs x peak SM clock x fp64 FMAs per SM per clock (CUDA C++ Programming Guide, arithmetic throughput table) x 2");
  peak(RoofKey::gpu_fma_f32_peak, "flops/s", rates->fma_f32, 2,
       "SMs x peak SM clock x fp32 FMAs per SM per clock (CUDA C++ Programming Guide, arithmetic throughput table) x 2");
  peak(RoofKey::gpu_imul_peak, "muls/s", rates->imad32 / 2, 1,
       "SMs x peak SM clock x 32x32->64 multiplies per SM per clock: ASSUMED half the guide's 32-bit integer "
       "multiply-add rate (the guide has no IMAD.WIDE row); gpu_imul measures it");
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
  set.roofs.push_back({RoofKey::gpu_sm_count, static_cast<double>(sms), "count", "measured",
                       "driver: cudaDevAttrMultiProcessorCount of " + name, 1, dev, {}, {}});
  set.roofs.push_back({RoofKey::gpu_clock_hz, clock_hz, "hz", "measured", "driver: cudaDevAttrClockRate (peak SM clock) of " + name,
                       1, dev, {}, {}});
  add_peaks(set, device, dev, name, sms, clock_hz);
  cuda::Stream stream;
  const double min_s = quick ? 1e-3 : 0.05;
  const int reps = quick ? 1 : 3;

  // DRAM bandwidth, measured by probes that are not the kernels it grades, launched in the shape
  // the STREAM launcher takes (one thread per 16-byte vector, blocks of 1024): an earlier
  // grid-stride probe at 8 blocks per SM gave 2.87 TB/s on an H100 where launch_stream's triad gave
  // 3.08, so the shape matters; PyTorch's fill reached 3.25 there. Beside it, gpu_bw_peak, the
  // theoretical figure. Three arrays of 2^28 doubles (2 GiB each, many times any L2), fewer where a
  // sixth of free memory is less.
  std::size_t free_b = 0, total_b = 0;
  PARLAB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  std::uint64_t n = quick ? (std::uint64_t{1} << 20) : (std::uint64_t{1} << 28);
  n = std::min<std::uint64_t>(n, free_b / 6 / sizeof(double));
  {
    cuda::DeviceBuffer<double> a(n, device, "ceilings a"), b(n, device, "ceilings b"), c(n, device, "ceilings c");
    cuda::launch_stream_init(a.get(), b.get(), c.get(), n, stream.get());
    std::vector<RoofCandidate> candidates;
    // Probes that are not the kernels the roof grades (a roof made of parlab's own STREAM kernels
    // graded them against themselves): a read-only sweep, a write-only fill and the runtime's
    // device-to-device copy. A STREAM record above the best of them is reported as above its roof.
    const std::uint64_t n2 = n / 2;
    const unsigned grid = static_cast<unsigned>((n2 + 1023) / 1024);
    const double array_bytes = static_cast<double>(n2) * 2 * sizeof(double);
    candidates.push_back(candidate("read-only sweep", array_bytes, seconds_per_launch(stream, [&] {
      read_sweep<<<grid, 1024, 0, stream.get()>>>(reinterpret_cast<const double2*>(a.get()), n2, c.get());
      PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    }, min_s, reps)));
    candidates.push_back(candidate("write-only fill", array_bytes, seconds_per_launch(stream, [&] {
      fill_sweep<<<grid, 1024, 0, stream.get()>>>(reinterpret_cast<double2*>(b.get()), n2, 1.0);
      PARLAB_CUDA_CHECK(cudaPeekAtLastError());
    }, min_s, reps)));
    candidates.push_back(candidate("cudaMemcpyAsync device to device (read + write)", 2 * array_bytes,
                                   seconds_per_launch(stream, [&] {
      PARLAB_CUDA_CHECK(cudaMemcpyAsync(c.get(), a.get(), static_cast<std::size_t>(array_bytes),
                                        cudaMemcpyDeviceToDevice, stream.get()));
    }, min_s, reps)));
    std::ostringstream what;
    what << "probes other than the STREAM kernels it grades, arrays of " << n << " doubles ("
         << static_cast<double>(n) * sizeof(double) / (1 << 20) << " MiB each, L2 " << l2 / (1 << 20)
         << " MiB), best of " << reps << " intervals of >= " << min_s * 1e3 << " ms";
    const ProbeResult best = best_bandwidth_candidate(what.str(), candidates);
    // GPU threads launched by the sweeps: one per 16-byte vector, in blocks of 1024.
    const std::uint64_t launched = static_cast<std::uint64_t>(grid) * 1024;
    set.roofs.push_back({RoofKey::gpu_bw, best.value, "bytes/s", "measured", best.how + note,
                         static_cast<int>(std::min<std::uint64_t>(launched, 0x7fffffff)), dev, {}, best.samples});
  }

  // Compute: enough warps to fill every SM several times over (32 blocks of 256 per SM).
  const int blocks = sms * 32;
  const double threads = static_cast<double>(blocks) * kBlock;
  cuda::DeviceBuffer<double> sink(1, device, "ceilings sink");
  const auto compute_roof = [&](RoofKey roof, const char* unit, double ops_per_step, const std::string& what,
                                const std::function<void(std::uint64_t)>& launch) {
    const std::uint64_t iters = quick ? 256 : 8192;
    const RoofCandidate c = candidate("", ops_per_step * kChains * static_cast<double>(iters) * threads,
                                      seconds_per_launch(stream, [&] { launch(iters); }, min_s, reps));
    set.roofs.push_back({roof, c.value, unit, "measured",
                         what + ", " + std::to_string(kChains) + " independent chains per thread, " +
                             std::to_string(blocks) + " blocks of " + std::to_string(kBlock) + ", best of " +
                             std::to_string(reps) + note,
                         static_cast<int>(threads), dev, {}, c.samples});
  };
  compute_roof(RoofKey::gpu_fma_f64, "flops/s", 2, "fp64 fma, 2 flops each", [&](std::uint64_t it) {
    fma_peak<double><<<blocks, kBlock, 0, stream.get()>>>(0.999999, 1e-6, it, sink.get());
    PARLAB_CUDA_CHECK(cudaPeekAtLastError());
  });
  compute_roof(RoofKey::gpu_fma_f32, "flops/s", 2, "fp32 fma, 2 flops each", [&](std::uint64_t it) {
    fma_peak<float><<<blocks, kBlock, 0, stream.get()>>>(0.999f, 1e-3f, it, reinterpret_cast<float*>(sink.get()));
    PARLAB_CUDA_CHECK(cudaPeekAtLastError());
  });
  compute_roof(RoofKey::gpu_imul, "muls/s", 1, "32x32->64 multiplies (mad.wide.u32: one IMAD.WIDE.U32 each, as the pi kernel issues them)",
               [&](std::uint64_t it) {
                 imul_peak<<<blocks, kBlock, 0, stream.get()>>>(it, reinterpret_cast<unsigned*>(sink.get()));
                 PARLAB_CUDA_CHECK(cudaPeekAtLastError());
               });
  PARLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  return set;
}

}  // namespace

RoofSet measure_gpu_ceilings(int device, bool quick) {
  const auto none = [&](const std::string& why) {
    RoofSet set;
    for (const RoofKey k : kGpuRoofKeys) set.unavailable.emplace_back(k, why);
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

std::string gpu_imul_probe_function() {
  // imul_peak(unsigned long, unsigned*) in this file's unnamed namespace: "...9imul_peakEmPj".
  return "9imul_peakEmPj";
}

}  // namespace parlab
