// The CPU probes of core/ceilings_cpu.hpp. The compute kernels are written with intrinsics in
// functions compiled for their own target (as core/pi_simd.cpp's are): the project builds with
// -ffp-contract=off, so a fused multiply-add must be asked for by name, and a portable build
// (PARLAB_NATIVE=OFF) must still reach the widest vectors the CPU has at run time.
#include "ceilings_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aligned_buffer.hpp"
#include "stream_store.hpp"

#if defined(__x86_64__) || defined(__i386__)
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() as the unused merge source and then warn
// about it: GCC bug 105593, fixed in GCC 13 (as in core/pi_simd.cpp).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#define PARLAB_CEILINGS_X86 1
#else
#define PARLAB_CEILINGS_X86 0
#endif

namespace parlab {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Keeps a result alive so the compiler cannot drop the loop that made it.
std::atomic<std::uint64_t> g_sink{0};
void consume(std::uint64_t v) { g_sink.fetch_xor(v, std::memory_order_relaxed); }
void consume(double v) { consume(std::bit_cast<std::uint64_t>(v)); }

// --- FP64 FMA -------------------------------------------------------------------------------
// Chains: an FMA's latency is 4-5 cycles on current x86 cores and two ports may issue one each
// per cycle, so at least 10 independent accumulators keep both busy; 16 zmm (AVX-512 has 32
// registers) and 12 ymm (AVX2 has 16, two hold the constants). The accumulators converge to
// c / (1 - m), far from overflow and denormals, so the rate does not depend on the values.
constexpr double kFmaM = 0.999999, kFmaC = 1e-6;

#if PARLAB_CEILINGS_X86
constexpr int kFmaChains512 = 16;
__attribute__((target("avx512f"))) double fma_avx512(std::uint64_t iters) {
  __m512d acc[kFmaChains512];
  for (int j = 0; j < kFmaChains512; ++j) acc[j] = _mm512_set1_pd(1.0 + 1e-3 * j);
  const __m512d m = _mm512_set1_pd(kFmaM), c = _mm512_set1_pd(kFmaC);
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kFmaChains512; ++j) acc[j] = _mm512_fmadd_pd(acc[j], m, c);
  }
  __m512d s = acc[0];
  for (int j = 1; j < kFmaChains512; ++j) s = _mm512_add_pd(s, acc[j]);
  // Through memory, not _mm512_reduce_add_pd, which GCC 12's header warns about (-Wuninitialized).
  double lanes[8];
  _mm512_storeu_pd(lanes, s);
  double t = 0;
  for (double x : lanes) t += x;
  return t;
}

constexpr int kFmaChains256 = 12;
__attribute__((target("avx2,fma"))) double fma_avx2(std::uint64_t iters) {
  __m256d acc[kFmaChains256];
  for (int j = 0; j < kFmaChains256; ++j) acc[j] = _mm256_set1_pd(1.0 + 1e-3 * j);
  const __m256d m = _mm256_set1_pd(kFmaM), c = _mm256_set1_pd(kFmaC);
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kFmaChains256; ++j) acc[j] = _mm256_fmadd_pd(acc[j], m, c);
  }
  __m256d s = acc[0];
  for (int j = 1; j < kFmaChains256; ++j) s = _mm256_add_pd(s, acc[j]);
  double lanes[4];
  _mm256_storeu_pd(lanes, s);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#endif

// Scalar: a multiply and an add (2 flops) per chain step; no FMA is assumed on such a CPU.
constexpr int kFmaChainsScalar = 8;
double fma_scalar(std::uint64_t iters) {
  double acc[kFmaChainsScalar];
  for (int j = 0; j < kFmaChainsScalar; ++j) acc[j] = 1.0 + 1e-3 * j;
  for (std::uint64_t i = 0; i < iters; ++i) {
    for (double& a : acc) a = a * kFmaM + kFmaC;
  }
  double s = 0;
  for (double a : acc) s += a;
  return s;
}

// Flops of one iteration (chains x lanes x 2) on an ISA.
double fma_flops_per_iter(CeilingIsa isa) {
#if PARLAB_CEILINGS_X86
  if (isa == CeilingIsa::avx512) return kFmaChains512 * 8.0 * 2.0;
  if (isa == CeilingIsa::avx2) return kFmaChains256 * 4.0 * 2.0;
#endif
  return kFmaChainsScalar * 2.0;
}

double run_fma(CeilingIsa isa, std::uint64_t iters) {
#if PARLAB_CEILINGS_X86
  if (isa == CeilingIsa::avx512) return fma_avx512(iters);
  if (isa == CeilingIsa::avx2) return fma_avx2(iters);
#endif
  return fma_scalar(iters);
}

// --- 32x32->64-bit multiplies -------------------------------------------------------------------
// Each chain step multiplies the low 32 bits of every 64-bit lane by Philox's first multiplier
// (vpmuludq), and the next step uses the low 32 bits of the product: a dependent chain of real
// multiplies the compiler cannot fold. 12 chains cover a 5-cycle latency on two ports.
constexpr std::uint64_t kImulK = 0xD2511F53u;
constexpr int kImulChains = 12;

#if PARLAB_CEILINGS_X86
__attribute__((target("avx512f"))) std::uint64_t imul_avx512(std::uint64_t iters) {
  __m512i x[kImulChains];
  for (int j = 0; j < kImulChains; ++j) x[j] = _mm512_set_epi64(8 * j + 1, 8 * j + 3, 8 * j + 5, 8 * j + 7, 8 * j + 9, 8 * j + 11, 8 * j + 13, 8 * j + 15);
  const __m512i k = _mm512_set1_epi64(static_cast<long long>(kImulK));
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kImulChains; ++j) x[j] = _mm512_mul_epu32(x[j], k);
  }
  __m512i s = x[0];
  for (int j = 1; j < kImulChains; ++j) s = _mm512_xor_si512(s, x[j]);
  std::uint64_t lanes[8];
  _mm512_storeu_si512(lanes, s);
  std::uint64_t t = 0;
  for (auto lane : lanes) t ^= lane;
  return t;
}

__attribute__((target("avx2"))) std::uint64_t imul_avx2(std::uint64_t iters) {
  __m256i x[kImulChains];
  for (int j = 0; j < kImulChains; ++j) x[j] = _mm256_set_epi64x(4 * j + 1, 4 * j + 3, 4 * j + 5, 4 * j + 7);
  const __m256i k = _mm256_set1_epi64x(static_cast<long long>(kImulK));
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kImulChains; ++j) x[j] = _mm256_mul_epu32(x[j], k);
  }
  __m256i s = x[0];
  for (int j = 1; j < kImulChains; ++j) s = _mm256_xor_si256(s, x[j]);
  std::uint64_t lanes[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), s);
  return lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3];
}
#endif

std::uint64_t imul_scalar(std::uint64_t iters) {
  std::uint64_t x[kImulChains];
  for (int j = 0; j < kImulChains; ++j) x[j] = 2 * j + 1;
  for (std::uint64_t i = 0; i < iters; ++i) {
    for (auto& v : x) v = (v & 0xFFFFFFFFu) * kImulK;
  }
  std::uint64_t s = 0;
  for (auto v : x) s ^= v;
  return s;
}

double imul_per_iter(CeilingIsa isa) {
#if PARLAB_CEILINGS_X86
  if (isa == CeilingIsa::avx512) return kImulChains * 8.0;
  if (isa == CeilingIsa::avx2) return kImulChains * 4.0;
#endif
  return kImulChains;
}

std::uint64_t run_imul(CeilingIsa isa, std::uint64_t iters) {
#if PARLAB_CEILINGS_X86
  if (isa == CeilingIsa::avx512) return imul_avx512(iters);
  if (isa == CeilingIsa::avx2) return imul_avx2(iters);
#endif
  return imul_scalar(iters);
}

// A compute probe on every thread of `ex`: `kItemsPerThread` items per thread handed out by the
// executor, so a thread that starts late does not leave the others idle at the end. The iteration
// count is calibrated on one thread so a repetition lasts about `seconds_per_rep`.
template <class Kernel>
ProbeResult compute_probe(Executor& ex, double ops_per_iter, Kernel kernel, double seconds_per_rep, int reps,
                          const std::string& what) {
  constexpr int kItemsPerThread = 4;
  const Index items = static_cast<Index>(ex.threads()) * kItemsPerThread;
  std::uint64_t iters = 1 << 14;
  for (;;) {  // calibrate: double until one item takes a measurable time (>= 5 ms)
    const auto t0 = Clock::now();
    consume(kernel(iters));
    const double t = seconds_since(t0);
    if (t >= 5e-3 || iters >= (std::uint64_t{1} << 40)) {
      const double per_item = seconds_per_rep / kItemsPerThread;
      iters = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(iters) * per_item / std::max(t, 1e-9)));
      break;
    }
    iters *= 2;
  }
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    ex.parallel_for(items, 1, [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) consume(kernel(iters));
    });
    const double t = seconds_since(t0);
    best = std::max(best, ops_per_iter * static_cast<double>(iters) * static_cast<double>(items) / t);
  }
  std::ostringstream how;
  how << what << ", " << ex.threads() << " thread(s) on " << ex.name() << ", " << items << " items of " << iters
      << " iterations, best of " << reps;
  return {best, how.str()};
}

}  // namespace

std::string_view to_string(CeilingIsa isa) noexcept {
  switch (isa) {
    case CeilingIsa::scalar: return "scalar";
    case CeilingIsa::avx2: return "avx2+fma";
    case CeilingIsa::avx512: return "avx512f";
  }
  return "scalar";
}

CeilingIsa ceiling_isa() noexcept {
#if PARLAB_CEILINGS_X86
  // __builtin_cpu_supports also checks that the OS saves the vector state (XCR0).
  if (__builtin_cpu_supports("avx512f")) return CeilingIsa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CeilingIsa::avx2;
#endif
  return CeilingIsa::scalar;
}

ProbeResult measure_fma_f64(Executor& ex, double seconds_per_rep, int reps) {
  const CeilingIsa isa = ceiling_isa();
  const int chains = isa == CeilingIsa::avx512 ? 16 : isa == CeilingIsa::avx2 ? 12 : kFmaChainsScalar;
  return compute_probe(ex, fma_flops_per_iter(isa), [isa](std::uint64_t n) { return run_fma(isa, n); }, seconds_per_rep,
                       reps,
                       std::string(isa == CeilingIsa::scalar ? "scalar fp64 mul+add" : "fp64 FMA") + " on " +
                           std::string(to_string(isa)) + ", " + std::to_string(chains) +
                           " independent chains, 2 flops per lane");
}

ProbeResult measure_imul(Executor& ex, double seconds_per_rep, int reps) {
  const CeilingIsa isa = ceiling_isa();
  return compute_probe(ex, imul_per_iter(isa), [isa](std::uint64_t n) { return run_imul(isa, n); }, seconds_per_rep,
                       reps,
                       std::string(isa == CeilingIsa::scalar ? "scalar 32x32->64 multiplies" : "vpmuludq lanes") +
                           " on " + std::string(to_string(isa)) + ", " + std::to_string(kImulChains) +
                           " independent chains");
}

ProbeResult measure_bandwidth(Executor& ex, BandwidthKernel kernel, std::uint64_t elements, int reps) {
  // Chunks of 2^16 doubles (512 KiB): thousands of them over arrays past the cache, so dynamic
  // hand-out balances the threads, and each chunk is long enough that the hand-out costs nothing.
  constexpr Index kGrain = Index{1} << 16;
  const int arrays = kernel == BandwidthKernel::read ? 1 : kernel == BandwidthKernel::copy_nt ? 2 : 3;
  const double words = kernel == BandwidthKernel::read ? 1 : kernel == BandwidthKernel::copy_nt ? 2 : 3;
  AlignedBuffer<double> a(elements), b(arrays == 3 ? elements : 0), c(arrays >= 2 ? elements : 0);
  // First touch on the probe's own threads, so pages land where the threads that sweep them run.
  ex.parallel_for(elements, kGrain, [&](Index lo, Index hi) {
    for (Index i = lo; i < hi; ++i) {
      a[i] = 1.0;
      if (arrays == 3) b[i] = 2.0;
      if (arrays >= 2) c[i] = 0.5;
    }
  });
  const double s = StreamInit<double>::scalar;
  const auto sweep = [&] {
    switch (kernel) {
      case BandwidthKernel::read:
        ex.parallel_for(elements, kGrain, [&](Index lo, Index hi) {
          double acc[8] = {};  // independent sums: the adds' latency must not bound the reads
          Index i = lo;
          for (; i + 8 <= hi; i += 8) {
            for (int j = 0; j < 8; ++j) acc[j] += a[i + j];
          }
          for (; i < hi; ++i) acc[0] += a[i];
          double t = 0;
          for (double x : acc) t += x;
          consume(t);
        });
        break;
      case BandwidthKernel::copy_nt:
        ex.parallel_for(elements, kGrain, [&](Index lo, Index hi) {
          stream_range_streaming<double>(StreamKernel::copy, a.data(), b.data(), c.data(), s, lo, hi);
        });
        break;
      case BandwidthKernel::triad_nt:
        ex.parallel_for(elements, kGrain, [&](Index lo, Index hi) {
          stream_range_streaming<double>(StreamKernel::triad, a.data(), b.data(), c.data(), s, lo, hi);
        });
        break;
    }
  };
  sweep();  // warm-up: page tables, the pool's threads awake
  double best = 0;
  const double bytes = words * sizeof(double) * static_cast<double>(elements);
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    sweep();
    best = std::max(best, bytes / seconds_since(t0));
  }
  const char* name = kernel == BandwidthKernel::read ? "read (sum of a)"
                     : kernel == BandwidthKernel::copy_nt ? "copy c = a, non-temporal stores"
                                                          : "triad a = b + s*c, non-temporal stores";
  std::ostringstream how;
  how << name << ", " << arrays << " array(s) of " << (static_cast<double>(elements) * 8 / (1 << 20)) << " MiB, "
      << ex.threads() << " thread(s) on " << ex.name() << " in chunks of " << kGrain << " doubles, best of " << reps;
  return {best, how.str()};
}

std::optional<std::uint64_t> last_level_cache_sysfs(const std::string& dir) {
  int best_level = 0;
  std::optional<std::uint64_t> bytes;
  for (int i = 0; i < 16; ++i) {
    const std::string base = dir + "/index" + std::to_string(i) + "/";
    std::ifstream lf(base + "level"), tf(base + "type"), sf(base + "size");
    int level = 0;
    std::string type, size;
    if (!(lf >> level) || !(sf >> size)) continue;
    tf >> type;
    if (type == "Instruction" || level < best_level) continue;
    std::uint64_t v = 0;
    try {
      v = std::stoull(size);
    } catch (...) {
      continue;
    }
    if (size.back() == 'K') v <<= 10;
    if (size.back() == 'M') v <<= 20;
    if (size.back() == 'G') v <<= 30;
    best_level = level;
    bytes = v;
  }
  return bytes;
}

}  // namespace parlab
