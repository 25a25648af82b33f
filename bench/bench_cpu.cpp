// Micro-benchmarks: pi and triad per CPU backend per thread count, registered dynamically
// from the runtime registry so every backend of this build is measured in the same process.
//
//   build/release/bench/parlab_bench --benchmark_filter='pi/' --benchmark_repetitions=5
//   build/release/bench/parlab_bench --benchmark_filter='pi_kernel/'   (one core, per SIMD path)
//   build/release/bench/parlab_bench --benchmark_filter='pi_kernel_vectors/'   (AVX-512 loop's width)
//   build/release/bench/parlab_bench --benchmark_filter='matmul_layout/'   (B packed or in place)
//
// Counters: samples_per_second (pi), bytes_per_second (triad, BabelStream's byte count),
// flops_per_second (matmul).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <thread>

#include "core/kernels.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace {

using namespace parlab;

void run_workload(benchmark::State& state, const BackendEntry& backend, Problem problem) {
  std::unique_ptr<Workload> w;
  try {
    w = backend.make(problem);
    w->run();  // warm-up: first touch, thread start, caches
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) {
    w->run();
  }
  const Validation v = w->validate();
  if (!v.pass) {
    state.SkipWithError(("validation failed: " + v.detail).c_str());
    return;
  }
  const WorkCount work = w->work();
  const auto iters = static_cast<double>(state.iterations());
  if (work.samples > 0) {
    state.counters["samples_per_second"] = benchmark::Counter(work.samples * iters, benchmark::Counter::kIsRate);
  }
  if (work.bytes > 0) state.SetBytesProcessed(static_cast<std::int64_t>(work.bytes * iters));
  if (v.hits) state.counters["hits"] = static_cast<double>(*v.hits);
}

std::vector<int> thread_counts() {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> t;
  for (int n = 1; n < hw; n *= 2) t.push_back(n);
  t.push_back(hw);
  return t;
}

}  // namespace

// Times `pairs(seed, begin, end)` over 2^24 pairs on the calling thread: samples per second.
template <class Pairs>
void time_pi_pairs(benchmark::State& state, Pairs pairs) {
  constexpr std::uint64_t kPairs = std::uint64_t{1} << 24;
  for (auto _ : state) benchmark::DoNotOptimize(pairs(42, 0, kPairs));
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(2 * kPairs), benchmark::Counter::kIsIterationInvariantRate);
}

// The pi kernel alone, one thread, per SIMD path of core/pi_simd.hpp (the scalar one is
// pi.hpp's scalar loop as this compiler builds it): what the path choice is worth.
void pi_kernel_path(benchmark::State& state, PiIsa isa) {
  if (!pi_isa_supported(isa)) {
    state.SkipWithError("this CPU cannot run this path");
    return;
  }
  time_pi_pairs(state, [isa](std::uint64_t s, std::uint64_t b, std::uint64_t e) { return pi_hits_pairs_isa(isa, s, b, e); });
}

// The AVX-512 loop with 4, 6 or 8 vectors in flight per trip (core/pi_simd.hpp, kPiVectors512):
// fewer leave the vector ports waiting on the rounds' latency, more spill registers.
void pi_kernel_vectors(benchmark::State& state, int vectors) {
  if (!pi_isa_supported(PiIsa::avx512)) {
    state.SkipWithError("this CPU cannot run the avx512 path");
    return;
  }
  time_pi_pairs(state, [vectors](std::uint64_t s, std::uint64_t b, std::uint64_t e) {
    return pi_hits_pairs_avx512_vectors(vectors, s, b, e);
  });
}

// matmul on one thread with B packed by column bands (the serial backend's workload: what parlab
// runs) or read in place (each tile's k-block of B a slab of rows n floats apart: matmul_blocked
// before it packed B, the same tile update on the same tiles). What the copy is worth at sizes
// whose rows straddle cache lines (1000, 2000) or share cache sets (1024, 2048).
void matmul_layout(benchmark::State& state, const BackendEntry& serial, bool packed, std::uint64_t n) {
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  if (packed) {
    Problem p;
    p.kernel = "matmul";
    p.precision = Precision::f32;
    p.size = n;
    p.threads = 1;
    run_workload(state, serial, p);
  } else {
    AlignedBuffer<float> A(n * n), B(n * n), C(n * n);
    for (std::uint64_t i = 0; i < n * n; ++i) {
      A[i] = basic_input(i, 2);
      B[i] = basic_input(i, 3);
    }
    for (auto _ : state) {
      for (Index y0 = 0; y0 < n; y0 += kTile2D) {
        for (Index x0 = 0; x0 < n; x0 += kTile2D) {
          const Index y1 = std::min<Index>(y0 + kTile2D, n), x1 = std::min<Index>(x0 + kTile2D, n);
          for (Index i = y0; i < y1; ++i) std::fill(C.data() + i * n + x0, C.data() + i * n + x1, 0.0f);
          for (Index kb = 0; kb < n; kb += kMatmulKBlock) {
            matmul_tile_update(C.data() + y0 * n, n, A.data() + y0 * n, n, B.data(), n, y1 - y0, kb,
                               std::min<Index>(kb + kMatmulKBlock, n), x0, x1);
          }
        }
      }
      benchmark::DoNotOptimize(C.data());
      benchmark::ClobberMemory();
    }
  }
  state.counters["flops_per_second"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

int main(int argc, char** argv) {
  static const Registry registry = make_registry();
  for (PiIsa isa : {PiIsa::scalar, PiIsa::avx2, PiIsa::avx512}) {
    benchmark::RegisterBenchmark(("pi_kernel/" + std::string(to_string(isa))).c_str(),
                                 [isa](benchmark::State& s) { pi_kernel_path(s, isa); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (int vectors : {4, 6, 8}) {
    benchmark::RegisterBenchmark(("pi_kernel_vectors/avx512/" + std::to_string(vectors)).c_str(),
                                 [vectors](benchmark::State& s) { pi_kernel_vectors(s, vectors); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& backend : registry.entries()) {
    if (backend.name != "serial") continue;
    for (const std::uint64_t n : {1000, 1024, 2000, 2048}) {
      for (const bool packed : {false, true}) {
        benchmark::RegisterBenchmark(
            ("matmul_layout/" + std::string(packed ? "packed/" : "in_place/") + std::to_string(n)).c_str(),
            [&backend, packed, n](benchmark::State& s) { matmul_layout(s, backend, packed, n); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
  for (const auto& backend : registry.entries()) {
    if (backend.kind != BackendKind::cpu || !backend.available) continue;
    for (int threads : thread_counts()) {
      if (backend.name == "serial" && threads != 1) continue;
      const Problem pi = pi_problem(std::uint64_t{1} << 28, threads, 42);
      benchmark::RegisterBenchmark(("pi/" + backend.name + "/threads:" + std::to_string(threads)).c_str(),
                                   [&backend, pi](benchmark::State& s) { run_workload(s, backend, pi); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      Problem triad;
      triad.kernel = "triad";
      triad.precision = Precision::f64;
      triad.size = std::uint64_t{1} << 25;
      triad.threads = threads;
      benchmark::RegisterBenchmark(("triad/" + backend.name + "/threads:" + std::to_string(threads)).c_str(),
                                   [&backend, triad](benchmark::State& s) { run_workload(s, backend, triad); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
