// What per-worker accounting (core/worker_ledger.hpp) costs: each CPU backend's workload at the
// quick suite's sizes (pi 2^27, triad 2^25 doubles) with the ledger on and off, one benchmark
// iteration one run, back to back in one process; and one accounted chunk of an empty body alone.
// The runner keeps accounting on for a record only where it costs at most 1% of a run
// (experiments/run/worker_accounting.hpp); these pairs show what it costs where it is on.
//
//   build/release/bench/parlab_bench_accounting --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true --benchmark_min_time=0.5s   (one command line)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <thread>

#include "core/worker_ledger.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace {

using namespace parlab;

void run_workload(benchmark::State& state, const BackendEntry& backend, const Problem& p, bool on) {
  std::unique_ptr<Workload> w;
  try {
    w = backend.make(p);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  WorkerAccounting* ledger = w->worker_ledger();
  if (ledger == nullptr) {
    state.SkipWithError("no ledger: not a CPU executor workload");
    return;
  }
  ledger->set_on(on);
  w->run();  // warm-up: pages, thread start
  for (auto _ : state) w->run();
  state.counters["chunks_per_run"] = 0;
  if (on && state.iterations() > 0) {
    std::uint64_t most = 0;
    for (const auto& t : ledger->view().totals) most = std::max(most, t.chunks);
    state.counters["chunks_per_run"] = static_cast<double>(most) / static_cast<double>(state.iterations() + 1);
  }
}

Problem problem(const std::string& kernel, std::uint64_t size, int threads) {
  Problem p = kernel == "pi" ? pi_problem(size, threads, 42) : Problem{};
  if (kernel != "pi") {
    p.kernel = kernel;
    p.precision = Precision::f64;
    p.size = size;
    p.threads = threads;
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  static const Registry registry = make_registry();
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  benchmark::RegisterBenchmark("chunk_cost/empty_body", [](benchmark::State& s) {
    WorkerLedger ledger(1);
    ledger.set_on(true);
    WorkerScope scope(0);
    for (auto _ : s) ledger.end_chunk(ledger.begin_chunk(), 1);
  });
  // A worker thread's window a repetition: opened on its first chunk, closed at the repetition's
  // end (here on the same thread, as a thread that exits closes its own).
  // Timed by the window alone (manual time), not the probe ledger it is measured in.
  benchmark::RegisterBenchmark("window_cost/open_and_close", [](benchmark::State& s) {
    for (auto _ : s) s.SetIterationTime(WorkerLedger::window_cost_s(1));
  })->UseManualTime();
  // The same chunk on every CPU at once, each thread its own worker of one ledger, as an
  // executor's workers are: what a chunk costs where the workers' ends meet in shared memory.
  static WorkerLedger shared_ledger(hw);
  shared_ledger.set_on(true);
  benchmark::RegisterBenchmark("chunk_cost/empty_body/all_cpus", [](benchmark::State& s) {
    WorkerScope scope(s.thread_index());
    for (auto _ : s) shared_ledger.end_chunk(shared_ledger.begin_chunk(), 1);
  })->Threads(hw)->UseRealTime();
  const std::pair<const char*, std::uint64_t> kernels[] = {{"pi", std::uint64_t{1} << 27}, {"triad", std::uint64_t{1} << 25}};
  for (const auto& backend : registry.entries()) {
    if (backend.kind != BackendKind::cpu || !backend.available || !backend.in_default_set) continue;
    for (int t : {1, hw}) {
      if (backend.name == "serial" && t != 1) continue;
      for (const auto& [kernel, size] : kernels) {
        for (bool on : {false, true}) {
          const std::string name = std::string(kernel) + "/" + backend.name + "/threads:" + std::to_string(t) +
                                   (on ? "/accounted" : "/plain");
          const Problem p = problem(kernel, size, t);
          benchmark::RegisterBenchmark(name.c_str(), [&backend, p, on](benchmark::State& s) {
            run_workload(s, backend, p, on);
          })->UseRealTime()->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
