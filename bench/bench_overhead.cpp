// EPCC-style micro-benchmarks of scheduling overhead, per CPU backend and thread count:
// an empty fork-join, a parallel for of 64 trivial iterations per thread, a reduction. Each
// iteration of the benchmark loop is one construct, so the time per iteration is the cost.
//
//   build/release/bench/parlab_bench_overhead --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <thread>

#include "core/lab.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace {

using namespace parlab;

template <class Construct>
void run_construct(benchmark::State& state, const BackendEntry& backend, int threads, Construct construct) {
  std::unique_ptr<Executor> ex;
  try {
    ex = backend.make_executor(threads);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  construct(*ex);  // warm-up: thread start, first wake-up
  for (auto _ : state) construct(*ex);
}

}  // namespace

int main(int argc, char** argv) {
  static const Registry registry = make_registry();
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> counts;
  for (int n = 1; n < hw; n *= 2) counts.push_back(n);
  counts.push_back(hw);
  for (const auto& backend : registry.entries()) {
    if (backend.kind != BackendKind::cpu || !backend.available) continue;
    for (int t : counts) {
      if (backend.name == "serial" && t != 1) continue;
      const std::string suffix = backend.name + "/threads:" + std::to_string(t);
      benchmark::RegisterBenchmark(("empty_region/" + suffix).c_str(), [&backend, t](benchmark::State& s) {
        run_construct(s, backend, t, [](Executor& ex) { lab::overhead_empty_regions(ex, 1); });
      })->UseRealTime();
      benchmark::RegisterBenchmark(("parallel_for/" + suffix).c_str(), [&backend, t](benchmark::State& s) {
        run_construct(s, backend, t, [](Executor& ex) { benchmark::DoNotOptimize(lab::overhead_parallel_for(ex, 1, 64)); });
      })->UseRealTime();
      benchmark::RegisterBenchmark(("reduction/" + suffix).c_str(), [&backend, t](benchmark::State& s) {
        run_construct(s, backend, t, [](Executor& ex) { benchmark::DoNotOptimize(lab::overhead_reduction(ex, 1)); });
      })->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
