#include "core/incore_probe.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <sstream>
#include <thread>

#include "core/aligned_buffer.hpp"
#include "core/ceilings_cpu.hpp"
#include "core/kernels.hpp"
#include "core/matmul_tile.hpp"
#include "core/philox.hpp"

#include "core/x86_simd.hpp"
#if PARLAB_X86_SIMD && defined(__x86_64__)  // the clock's chain is 64-bit assembly
#define PARLAB_INCORE_X86 1
#endif

namespace parlab {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<std::uint64_t> g_sink{0};  // keeps each probe's result alive
void consume(std::uint64_t v) { g_sink.fetch_xor(v, std::memory_order_relaxed); }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Iterations of `kernel` that take about `seconds`: doubled until one call lasts 2 ms, then scaled.
template <class Kernel>
std::uint64_t calibrate(Kernel kernel, double seconds) {
  std::uint64_t iters = 1 << 10;
  for (;;) {
    const auto t0 = Clock::now();
    consume(kernel(iters));
    const double t = seconds_since(t0);
    if (t >= 2e-3 || iters >= (std::uint64_t{1} << 40)) {
      return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(iters) * seconds / std::max(t, 1e-9)));
    }
    iters *= 2;
  }
}

// The shortest of `reps` timed calls of kernel(iters), and every call's time.
template <class Kernel>
double best_seconds(Kernel kernel, std::uint64_t iters, int reps, std::vector<double>& times) {
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    consume(kernel(iters));
    times.push_back(seconds_since(t0));
    best = r == 0 ? times.back() : std::min(best, times.back());
  }
  return best;
}

#if defined(PARLAB_INCORE_X86)
constexpr int kAddsPerIteration = 100;

// 100 dependent adds per trip; the loop's own increment, compare and branch go to other ports
// and overlap them, so one trip is 100 cycles. Register plus register, never an immediate: a
// Sapphire Rapids core (Golden Cove) folds chains of small immediate adds at rename, and a chain of
// `add $1` read its clock as 17.6 GHz on the H200 node.
std::uint64_t add_chain(std::uint64_t iters) {
  std::uint64_t x = 0, step = iters | 1;  // a value the core cannot know before it runs
  for (std::uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(step));
  }
  return x;
}

// Chains of the mix probes: a round's dependency chain (multiply, shift, logic) is at most about 8
// cycles long, and 16 (AVX-512) or 10 (AVX2) chains of 3 or 4 instructions each keep more in
// flight than any core's vector ports take in that time. Each has a symbol of its own (asm label)
// for the disassembler, like pi's loops (the bodies are always inlined into them, so the symbol
// holds the loop, not a jump to it). The same bodies with fewer chains (mix512<12>) measure
// what latency leaves of the ports when a loop keeps only that many in flight.
constexpr int kMixChains512 = 16;
constexpr int kMixChains256 = 10;

template <int Chains>
__attribute__((target("avx512f"), always_inline)) inline std::uint64_t mix512(std::uint64_t iters) {
  __m512i x[Chains];
  for (int j = 0; j < Chains; ++j) x[j] = _mm512_set1_epi64(2 * j + 1);
  const __m512i m = _mm512_set1_epi64(philox_detail::kMul0);
  const __m512i k = _mm512_set1_epi64(philox_detail::kWeyl0);
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < Chains; ++j) {
      const __m512i p = _mm512_mul_epu32(x[j], m);
      x[j] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p, 32), p, k, 0x96);
    }
  }
  __m512i s = x[0];
  for (int j = 1; j < Chains; ++j) s = _mm512_xor_si512(s, x[j]);
  return static_cast<std::uint64_t>(_mm512_reduce_add_epi64(s));
}

template <int Chains>
__attribute__((target("avx2"), always_inline)) inline std::uint64_t mix256(std::uint64_t iters) {
  __m256i x[Chains];
  for (int j = 0; j < Chains; ++j) x[j] = _mm256_set1_epi64x(2 * j + 1);
  const __m256i m = _mm256_set1_epi64x(philox_detail::kMul0);
  const __m256i k = _mm256_set1_epi64x(philox_detail::kWeyl0);
  for (std::uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < Chains; ++j) {
      const __m256i p = _mm256_mul_epu32(x[j], m);
      x[j] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p, 32), p), k);
    }
  }
  __m256i s = x[0];
  for (int j = 1; j < Chains; ++j) s = _mm256_xor_si256(s, x[j]);
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), s);
  return lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3];
}

// noinline for the same reason as pi's loops (core/pi_simd.cpp): the symbol must exist.
__attribute__((noinline)) std::uint64_t mix_avx512(std::uint64_t iters) __asm__("parlab_incore_mix_avx512");
__attribute__((noinline)) std::uint64_t mix_avx2(std::uint64_t iters) __asm__("parlab_incore_mix_avx2");
__attribute__((target("avx512f"))) std::uint64_t mix_avx512(std::uint64_t iters) { return mix512<kMixChains512>(iters); }
__attribute__((target("avx2"))) std::uint64_t mix_avx2(std::uint64_t iters) { return mix256<kMixChains256>(iters); }

// The chain counts the chains probe takes: those pi's loops keep in flight, two per vector
// (core/pi_simd.hpp).
constexpr int kLoopChains512 = 2 * kPiVectors512;
constexpr int kLoopChains256 = 2 * kPiVectors256;
__attribute__((noinline, target("avx512f"))) std::uint64_t mix512_loop(std::uint64_t iters) {
  return mix512<kLoopChains512>(iters);
}
__attribute__((noinline, target("avx2"))) std::uint64_t mix256_loop(std::uint64_t iters) {
  return mix256<kLoopChains256>(iters);
}
#endif  // PARLAB_INCORE_X86

}  // namespace

std::optional<double> measure_core_clock_hz(int reps, double window_s) {
#if defined(PARLAB_INCORE_X86)
  const std::uint64_t iters = calibrate(add_chain, window_s);
  std::vector<double> times;
  const double best = best_seconds(add_chain, iters, std::max(1, reps), times);
  return kAddsPerIteration * static_cast<double>(iters) / best;
#else
  (void)reps;
  return std::nullopt;
#endif
}

namespace {

// The mix probe's kernel for `isa` and what one source iteration issues; kernel null where there
// is none (scalar, or off x86-64).
struct MixKernel {
  std::uint64_t (*kernel)(std::uint64_t) = nullptr;
  std::string_view symbol;
  double instructions = 0;
  std::string what;
};

// The same round step with `chains` chains (the loop's: 12 for AVX-512, 8 for AVX2), nothing
// where there is no such body.
MixKernel chain_kernel(PiIsa isa, int chains) {
#if defined(PARLAB_INCORE_X86)
  const bool wide = isa == PiIsa::avx512;
  if ((isa != PiIsa::avx512 && isa != PiIsa::avx2) || chains != (wide ? kLoopChains512 : kLoopChains256)) return {};
  return {wide ? mix512_loop : mix256_loop, "", (wide ? 3.0 : 4.0) * chains,
          std::to_string(chains) + " independent copies of pi's " + (wide ? "AVX-512" : "AVX2") + " round step"};
#else
  (void)isa;
  (void)chains;
  return {};
#endif
}

MixKernel mix_kernel(PiIsa isa) {
#if defined(PARLAB_INCORE_X86)
  if (isa == PiIsa::avx512) {
    return {mix_avx512, "parlab_incore_mix_avx512", 3.0 * kMixChains512,
            std::to_string(kMixChains512) + " independent copies of pi's AVX-512 round step (vpmuludq, vpsrlq, vpternlogq)"};
  }
  if (isa == PiIsa::avx2) {
    return {mix_avx2, "parlab_incore_mix_avx2", 4.0 * kMixChains256,
            std::to_string(kMixChains256) + " independent copies of pi's AVX2 round step (vpmuludq, vpsrlq, 2 vpxor)"};
  }
#else
  (void)isa;
#endif
  return {};
}

}  // namespace

std::optional<MixProbe> measure_round_mix(PiIsa isa, int reps, int chains, double window_s) {
  const MixKernel k = chains == 0 ? mix_kernel(isa) : chain_kernel(isa, chains);
  if (k.kernel == nullptr) return std::nullopt;
  MixProbe p;
  p.symbol = k.symbol;
  p.instructions_per_iteration = k.instructions;
  const std::uint64_t iters = calibrate(k.kernel, window_s);
  std::vector<double> times;
  const double best = best_seconds(k.kernel, iters, std::max(1, reps), times);
  p.seconds_per_iteration = best / static_cast<double>(iters);
  for (const double t : times) p.samples.push_back(k.instructions * static_cast<double>(iters) / t);
  std::ostringstream how;
  how << k.what << ", one thread, " << iters << " iterations, best of " << times.size();
  p.how = how.str();
  return p;
}

namespace {

// Each CPU of `cpus` runs a kernel made by make_kernel() (one per thread: its own buffers) on a
// thread pinned to it, all started together, in windows of `iters` calls until every thread has
// run `reps` windows; only windows that ended before the first thread could stop count, so each
// counted window ran with all the others busy. Returns each CPU's best window in `work_per_call`
// units per second, in the order of `cpus`. Throws UnavailableError where pinning is refused.
template <class MakeKernel>
std::vector<double> best_rates_on_all_cpus(MakeKernel make_kernel, double work_per_call, std::uint64_t iters,
                                           const std::vector<int>& cpus, int reps) {
  reps = std::max(1, reps);
  const std::size_t n = cpus.size();
  struct Window {
    Clock::time_point end;
    double seconds;
  };
  std::vector<std::vector<Window>> windows(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> ready{0}, finished{0};
  std::atomic<bool> go{false}, stop{false};
  std::atomic<Clock::rep> stop_at{Clock::time_point::max().time_since_epoch().count()};
  {
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        // Every thread counts itself ready and finished even when pinning (or its buffers) fail,
        // so none waits forever on it; the first error is rethrown below.
        std::optional<CpuPin> pin;
        std::optional<decltype(make_kernel())> kernel;
        try {
          pin.emplace(cpus[i]);
          kernel.emplace(make_kernel());
        } catch (...) {
          errors[i] = std::current_exception();
        }
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        bool counted = false;
        while (errors[i] == nullptr && !stop.load(std::memory_order_acquire)) {
          const auto t0 = Clock::now();
          consume((*kernel)(iters));
          const auto t1 = Clock::now();
          windows[i].push_back({t1, std::chrono::duration<double>(t1 - t0).count()});
          if (!counted && static_cast<int>(windows[i].size()) >= reps) {
            counted = true;
            if (finished.fetch_add(1) + 1 == n) {  // the last to reach `reps`: all stop now
              stop_at.store(t1.time_since_epoch().count());
              stop.store(true, std::memory_order_release);
            }
          }
        }
        if (!counted && finished.fetch_add(1) + 1 == n) stop.store(true, std::memory_order_release);
      });
    }
    while (ready.load() < n) std::this_thread::yield();
    go.store(true, std::memory_order_release);
    for (std::thread& t : threads) t.join();
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  const Clock::time_point end{Clock::duration{stop_at.load()}};
  std::vector<double> best(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const Window& w : windows[i]) {
      if (w.end <= end && w.seconds > 0) best[i] = std::max(best[i], work_per_call * static_cast<double>(iters) / w.seconds);
    }
  }
  return best;
}

}  // namespace

std::optional<std::vector<double>> measure_round_mix_all(PiIsa isa, const std::vector<int>& cpus, int reps, double window_s) {
  const MixKernel k = mix_kernel(isa);
  if (k.kernel == nullptr || cpus.empty()) return std::nullopt;
  const std::uint64_t iters = calibrate(k.kernel, window_s);
  return best_rates_on_all_cpus([&k] { return k.kernel; }, k.instructions, iters, cpus, reps);
}

namespace {

// The matmul probe's kernel: its buffers (MatmulShape says which) and a call that runs the tile
// update `iters` times over them.
class MatmulTileKernel {
 public:
  explicit MatmulTileKernel(MatmulShape shape)
      : tile_(shape == MatmulShape::tile),
        rows_(tile_ ? kTile2D : kMatmulRowBlock),
        c_(rows_ * kTile2D),
        a_(rows_ * kMatmulKBlock),
        b_((tile_ ? kMatmulKBlock : 1) * kTile2D) {
    for (Index i = 0; i < c_.size(); ++i) c_[i] = 1.0f;
    for (Index i = 0; i < a_.size(); ++i) a_[i] = 0.0f;
    for (Index i = 0; i < b_.size(); ++i) b_[i] = 1.0f;
  }
  std::uint64_t operator()(std::uint64_t iters) {
    for (std::uint64_t it = 0; it < iters; ++it) {
      matmul_tile_update(c_.data(), kTile2D, a_.data(), kMatmulKBlock, b_.data(), tile_ ? kTile2D : 0, rows_, 0,
                         kMatmulKBlock, 0, kTile2D);
    }
    std::uint32_t bits = 0;
    std::memcpy(&bits, c_.data(), sizeof bits);
    return bits;
  }
  double flops_per_call() const { return 2.0 * static_cast<double>(rows_ * kMatmulKBlock * kTile2D); }
  Index rows() const { return rows_; }
  bool tile() const { return tile_; }

 private:
  bool tile_;
  Index rows_;
  AlignedBuffer<float> c_, a_, b_;
};

}  // namespace

MatmulProbe measure_matmul_tile(MatmulShape shape, int reps, double window_s) {
  MatmulTileKernel kernel(shape);
  const auto call = [&kernel](std::uint64_t iters) { return kernel(iters); };
  MatmulProbe p;
  p.flops_per_call = kernel.flops_per_call();
  const std::uint64_t iters = calibrate(call, window_s);
  std::vector<double> times;
  p.seconds_per_call = best_seconds(call, iters, std::max(1, reps), times) / static_cast<double>(iters);
  for (const double t : times) p.samples.push_back(p.flops_per_call * static_cast<double>(iters) / t);
  std::ostringstream how;
  how << "matmul's tile update (" << kMatmulTileSymbol << ") over " << kernel.rows() << " rows of " << kTile2D
      << " columns and a k-block of " << kMatmulKBlock
      << (kernel.tile() ? ", B's slab of " + std::to_string(kMatmulKBlock * kTile2D * sizeof(float) / 1024) + " KiB read from L2"
                        : ", every operand in L1 (one B row for every k)")
      << ", best of " << std::max(1, reps) << " windows of " << iters << " calls";
  p.how = how.str();
  return p;
}

std::optional<std::vector<double>> measure_matmul_tile_all(MatmulShape shape, const std::vector<int>& cpus, int reps,
                                                           double window_s) {
  if (cpus.empty()) return std::nullopt;
  MatmulTileKernel sizing(shape);
  const std::uint64_t iters = calibrate([&sizing](std::uint64_t i) { return sizing(i); }, window_s);
  return best_rates_on_all_cpus([shape] { return MatmulTileKernel(shape); }, sizing.flops_per_call(), iters, cpus, reps);
}

}  // namespace parlab
