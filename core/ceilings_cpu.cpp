// The CPU probes of core/ceilings_cpu.hpp. The compute kernels are written with intrinsics in
// functions compiled for their own target (as core/pi_simd.cpp's are): the project builds with
// -ffp-contract=off, so a fused multiply-add must be asked for by name, and a portable build
// (PARLAB_NATIVE=OFF) must still reach the widest vectors the CPU has at run time.
#include "ceilings_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <exception>
#include <functional>
#include <thread>
#include <cstring>
#include <fstream>
#include <sstream>

#if defined(__linux__)
#include <sched.h>
#endif

#include "aligned_buffer.hpp"
#include "error.hpp"
#include "stream_store.hpp"

#include "x86_simd.hpp"
#define PARLAB_CEILINGS_X86 PARLAB_X86_SIMD

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
// One function per instruction set, alike on purpose: each must be compiled with its own target
// attribute and register width, and a template over the intrinsics' types would hide which
// instructions each one issues, which is what a roof's `how` states.
// The read roof's sweep of a[lo, hi): 64-byte loads into 8 independent sums (the adds' latency
// must not bound the loads).
__attribute__((target("avx512f"))) double sum_avx512(const double* a, std::uint64_t lo, std::uint64_t hi) {
  constexpr int kSums = 8;
  __m512d acc[kSums];
  for (auto& x : acc) x = _mm512_setzero_pd();
  std::uint64_t i = lo;
  for (; i + 8 * kSums <= hi; i += 8 * kSums) {
#pragma GCC unroll 8
    for (int j = 0; j < kSums; ++j) acc[j] = _mm512_add_pd(acc[j], _mm512_loadu_pd(a + i + 8 * j));
  }
  double sum = 0;
  for (; i < hi; ++i) sum += a[i];
  for (auto& x : acc) sum += _mm512_reduce_add_pd(x);
  return sum;
}

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

// fma_avx512's twin at 256 bits, kept apart for the reason above fma_avx512.
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
// One function per instruction set, alike on purpose, as the FMA chains are (above fma_avx512).
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

// imul_avx512's twin at 256 bits, kept apart for the same reason.
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
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    ex.parallel_for(items, 1, [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) consume(kernel(iters));
    });
    const double t = seconds_since(t0);
    samples.push_back(ops_per_iter * static_cast<double>(iters) * static_cast<double>(items) / t);
    best = std::max(best, samples.back());
  }
  std::ostringstream how;
  how << what << ", " << ex.threads() << " thread(s) on " << ex.name() << ", " << items << " items of " << iters
      << " iterations, best of " << reps;
  return {best, how.str(), samples};
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

ProbeResult best_bandwidth_candidate(const std::string& what, const std::vector<RoofCandidate>& candidates) {
  if (candidates.empty()) throw FailureError("bandwidth roof: " + what + ": no candidate was measured");
  const RoofCandidate* best = &candidates.front();
  std::ostringstream how;
  how.precision(4);
  how << what << ": ";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const RoofCandidate& c = candidates[i];
    if (!(c.value > 0) || !std::isfinite(c.value)) {
      throw FailureError("bandwidth roof: " + what + ": candidate " + c.label + " gave " + std::to_string(c.value));
    }
    if (c.value > best->value) best = &c;
    how << (i == 0 ? "" : ", ") << c.label << " " << c.value / 1e9 << " GB/s";
  }
  how << "; the roof is " << best->label << "'s";
  return {best->value, how.str(), best->samples};
}

// --- Pinning --------------------------------------------------------------------------------
CpuPin::CpuPin(int cpu) {
#if defined(__linux__)
  cpu_set_t old;
  CPU_ZERO(&old);
  if (sched_getaffinity(0, sizeof old, &old) != 0) {
    throw UnavailableError("CPU pinning: sched_getaffinity failed: " + std::string(std::strerror(errno)));
  }
  if (cpu < 0 || cpu >= CPU_SETSIZE) throw UsageError("CPU pinning: no logical CPU " + std::to_string(cpu));
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) {
    throw UnavailableError("CPU pinning: sched_setaffinity to CPU " + std::to_string(cpu) +
                           " failed: " + std::strerror(errno));
  }
  saved_.resize(sizeof old);
  std::memcpy(saved_.data(), &old, sizeof old);
#else
  (void)cpu;
  throw UnavailableError("CPU pinning: this OS has no sched_setaffinity");
#endif
}

CpuPin::~CpuPin() {
#if defined(__linux__)
  cpu_set_t old;
  std::memcpy(&old, saved_.data(), sizeof old);
  // A destructor cannot throw; the mask was the thread's own a moment ago, so the kernel accepts
  // it unless the process's cpuset shrank meanwhile, and then the thread keeps its one CPU.
  (void)sched_setaffinity(0, sizeof old, &old);
#endif
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int i = 0; i < CPU_SETSIZE; ++i) {
      if (CPU_ISSET(i, &set)) cpus.push_back(i);
    }
  }
#endif
  return cpus;
}

// --- Memory bandwidth -----------------------------------------------------------------------
// The probe's team: member 0 is the calling thread (pinned for the length of each call by a
// CpuPin, so it is left as it was found), members 1.. are threads of the probe's own, pinned for
// their lifetime. Between sweeps the members spin on a generation counter: a sweep of the
// smallest arrays lasts a few milliseconds on a fast node, and waking sleeping threads through a
// condition variable would add tens of microseconds to every timed sweep.
struct BandwidthProbe::Team {
  Team(int threads, std::uint64_t max_working_set)
      : cpus(pinned_cpus(threads)), errors(static_cast<std::size_t>(threads)),
        a(max_working_set / sizeof(double)), b(max_working_set / (3 * sizeof(double))),
        c(max_working_set / (2 * sizeof(double))) {
    workers.reserve(static_cast<std::size_t>(threads - 1));
    try {
      for (int i = 1; i < threads; ++i) workers.emplace_back([this, i] { work(i); });
    } catch (...) {
      stop_workers();
      throw;
    }
  }
  ~Team() { stop_workers(); }

  static std::vector<int> pinned_cpus(int threads) {
    if (threads < 1) throw UsageError("bandwidth probe: threads must be >= 1, not " + std::to_string(threads));
    const std::vector<int> allowed = allowed_cpus();
    if (allowed.empty()) throw UnavailableError("bandwidth probe: the OS names no CPU this process may run on");
    std::vector<int> cpus;
    for (int i = 0; i < threads; ++i) cpus.push_back(allowed[static_cast<std::size_t>(i) % allowed.size()]);
    return cpus;
  }

  void stop_workers() noexcept {
    stop.store(true, std::memory_order_release);
    for (auto& w : workers) {
      if (w.joinable()) w.join();
    }
    workers.clear();
  }

  void work(int i) {
    std::optional<CpuPin> pin;
    try {
      pin.emplace(cpus[static_cast<std::size_t>(i)]);
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();  // reported by the next run()
    }
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t g = 0;
      while ((g = generation.load(std::memory_order_acquire)) == seen) {
        if (stop.load(std::memory_order_acquire)) return;
        std::this_thread::yield();
      }
      seen = g;
      if (!errors[static_cast<std::size_t>(i)]) {
        try {
          (*job)(i);
        } catch (...) {
          errors[static_cast<std::size_t>(i)] = std::current_exception();
        }
      }
      done.fetch_add(1, std::memory_order_release);
    }
  }

  // Runs f(member) on every member, the caller as member 0; returns when all are done, rethrowing
  // a member's exception (a worker that could not be pinned included).
  void run(const std::function<void(int)>& f) {
    job = &f;
    done.store(0, std::memory_order_relaxed);
    generation.fetch_add(1, std::memory_order_release);
    try {
      f(0);
    } catch (...) {
      errors[0] = std::current_exception();
    }
    while (done.load(std::memory_order_acquire) != static_cast<int>(workers.size())) std::this_thread::yield();
    job = nullptr;
    for (auto& e : errors) {
      if (e) {
        const std::exception_ptr first = e;
        std::fill(errors.begin(), errors.end(), nullptr);
        std::rethrow_exception(first);
      }
    }
  }

  // Every member takes chunks of [0, n) from one counter until none is left.
  void sweep(std::uint64_t n, const std::function<void(std::uint64_t, std::uint64_t)>& body) {
    next.store(0, std::memory_order_relaxed);
    run([&](int) {
      for (;;) {
        const std::uint64_t lo = next.fetch_add(kGrain, std::memory_order_relaxed);
        if (lo >= n) return;
        body(lo, std::min(n, lo + kGrain));
      }
    });
  }

  // Chunks of 2^16 doubles (512 KiB): hundreds of them over arrays near the cache's size, so the
  // dynamic hand-out balances CPUs of unequal speed, and each chunk is long enough that taking
  // it costs nothing.
  static constexpr std::uint64_t kGrain = std::uint64_t{1} << 16;

  std::vector<int> cpus;  // member i's CPU
  std::vector<std::exception_ptr> errors;
  AlignedBuffer<double> a, b, c;
  const std::function<void(int)>* job = nullptr;  // written before the generation's release
  std::atomic<std::uint64_t> generation{0};
  std::atomic<int> done{0};
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> workers;
};

BandwidthProbe::BandwidthProbe(int threads, std::uint64_t max_working_set)
    : team_(std::make_unique<Team>(threads, max_working_set)) {
  // First touch on the pinned members, so pages land near the CPUs that sweep them; this run
  // also reports a worker that could not be pinned.
  CpuPin pin(team_->cpus.front());
  Team& t = *team_;
  t.sweep(t.a.size(), [&t](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      t.a[i] = StreamInit<double>::a;
      if (i < t.b.size()) t.b[i] = StreamInit<double>::b;
      if (i < t.c.size()) t.c[i] = StreamInit<double>::c;
    }
  });
}

BandwidthProbe::~BandwidthProbe() = default;

int BandwidthProbe::threads() const noexcept { return static_cast<int>(team_->cpus.size()); }

ProbeResult BandwidthProbe::measure(BandwidthKernel kernel, const std::vector<std::uint64_t>& working_sets, int reps) {
  Team& t = *team_;
  CpuPin pin(t.cpus.front());
  const double words = kernel == BandwidthKernel::read ? 1 : kernel == BandwidthKernel::copy_nt ? 2 : 3;
  const int arrays = static_cast<int>(words);
  const double s = StreamInit<double>::scalar;
  // A read roof under the copy roof would be no roof: the reads take the widest loads there are,
  // as the streaming stores do (core/stream_store.hpp).
  [[maybe_unused]] const bool wide_reads = ceiling_isa() == CeilingIsa::avx512;
  const StreamStoreIsa store_isa = stream_store_isa();  // outside the body, read once
  // copy and triad are parlab's own: core/stream_store.hpp's streaming path over core/stream.hpp's
  // element bodies, the code a STREAM record of arrays past the cache runs.
  const std::function<void(std::uint64_t, std::uint64_t)> body = [&](std::uint64_t lo, std::uint64_t hi) {
    switch (kernel) {
      case BandwidthKernel::read: {
#if PARLAB_CEILINGS_X86
        if (wide_reads) {
          consume(sum_avx512(t.a.data(), lo, hi));
          break;
        }
#endif
        double acc[8] = {};  // independent sums: the adds' latency must not bound the reads
        std::uint64_t i = lo;
        for (; i + 8 <= hi; i += 8) {
          for (int j = 0; j < 8; ++j) acc[j] += t.a[i + j];
        }
        for (; i < hi; ++i) acc[0] += t.a[i];
        double sum = 0;
        for (double x : acc) sum += x;
        consume(sum);
        break;
      }
      case BandwidthKernel::copy_nt:
        stream_range_streaming<double>(StreamKernel::copy, t.a.data(), t.b.data(), t.c.data(), s, lo, hi, store_isa);
        break;
      case BandwidthKernel::triad_nt:
        stream_range_streaming<double>(StreamKernel::triad, t.a.data(), t.b.data(), t.c.data(), s, lo, hi, store_isa);
        break;
    }
  };
  std::vector<RoofCandidate> candidates;
  // The last array the kernel uses is the shortest of those it uses (a, then c, then b).
  const std::uint64_t capacity = arrays == 1 ? t.a.size() : arrays == 2 ? t.c.size() : t.b.size();
  for (const std::uint64_t ws : working_sets) {
    const std::uint64_t n = ws / (static_cast<std::uint64_t>(arrays) * sizeof(double));
    if (n == 0 || n > capacity) {
      throw UsageError("bandwidth probe: a working set of " + std::to_string(ws) + " bytes is outside the arrays (" +
                       std::to_string(capacity) + " doubles each for " + std::to_string(arrays) + " array(s))");
    }
    t.sweep(n, body);  // warm-up: page tables, the members spinning
    double best = 0;
    std::vector<double> samples;
    const double bytes = words * sizeof(double) * static_cast<double>(n);
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      t.sweep(n, body);
      samples.push_back(bytes / seconds_since(t0));
      best = std::max(best, samples.back());
    }
    std::ostringstream label;
    label.precision(4);
    const double mib = static_cast<double>(n) * sizeof(double) / (1 << 20);
    label << mib * arrays << " MiB (" << arrays << " x " << mib << " MiB)";
    candidates.push_back({label.str(), best, samples});
  }
  const char* name = kernel == BandwidthKernel::read ? (wide_reads ? "read (sum of a, avx512 loads)" : "read (sum of a)")
                     : kernel == BandwidthKernel::copy_nt ? "copy c = a"
                                                          : "triad a = b + s*c";
  std::ostringstream what;
  what << name;
  // The store width matters to the roof: a 64-byte store writes a whole line at once.
  if (kernel != BandwidthKernel::read) what << ", non-temporal " << to_string(store_isa) << " stores";
  what << ", " << arrays << " array(s), " << threads() << " thread(s) pinned one per logical CPU in chunks of "
       << Team::kGrain << " doubles, best of " << reps << " per working set";
  return best_bandwidth_candidate(what.str(), candidates);
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
