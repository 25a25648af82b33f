// Per-worker accounting of the Python thread backends (docs/records.md, "Workers"): each thread of
// a team is a worker of the workload's WorkerLedger, each parlab.pi call or pure-Python block a
// chunk, through the one path the C++ executors use (core/worker_ledger.hpp). The runs are driven
// as the runner drives them (experiments/run/runner.cpp): on for a warm-up, reset, repetitions
// closed, the middle one's first run traced.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/pi.hpp"
#include "core/worker_ledger.hpp"
#include "embed/kernel_workloads.hpp"
#include "embed/model_workloads.hpp"
#include "embed/module.hpp"
#include "embed_test_support.hpp"
#include "experiments/plan/suite.hpp"
#include "experiments/run/runner.hpp"

namespace parlab {
namespace {

using test::pi_problem;
using test::registry;
using test::SharedPython;

constexpr std::uint64_t kSeed = 0xC0FFEE;

// What the ledger kept of `reps` repetitions of one run each, and the workload's verdict.
struct Accounted {
  int workers = 0;
  std::vector<WorkerTotals> totals;
  std::vector<RepetitionTotals> reps;
  std::vector<TraceEvent> trace;
  std::uint64_t unattributed = 0;
  Validation validation;
};

// The workload of `backend` for `p`, or null with `skip` saying why it cannot run here.
std::unique_ptr<Workload> make_or_skip(const std::string& backend, const Problem& p, std::string& skip) {
  const BackendEntry* e = registry().find(backend);
  if (e == nullptr) {
    skip = backend + " is not registered";
    return nullptr;
  }
  if (!e->available) {
    skip = backend + " is unavailable: " + e->reason;
    return nullptr;
  }
  try {
    return e->make(p);
  } catch (const UnavailableError& u) {  // a library not installed here
    skip = u.what();
    return nullptr;
  }
}

// The runner's sequence on the workload's ledger: a warm-up run accounted, reset, `reps` timed
// repetitions of one run each (the middle one traced), off, validated.
Accounted account(Workload& w, int reps) {
  auto* ledger = dynamic_cast<WorkerLedger*>(w.worker_ledger());
  EXPECT_NE(ledger, nullptr) << "a Python thread backend's workload exposes its ledger";
  Accounted a;
  if (ledger == nullptr) return a;
  ledger->set_on(true);
  w.run();
  ledger->reset();
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    if (rep == reps / 2) ledger->start_trace();
    w.run();
    if (rep == reps / 2) ledger->stop_trace();
    ledger->end_repetition(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  ledger->set_on(false);
  a.workers = ledger->workers();
  a.totals = ledger->totals();
  a.reps = ledger->repetitions();
  a.trace = ledger->trace();
  a.unattributed = ledger->unattributed();
  a.validation = w.validate();
  return a;
}

double sum_busy_s(const std::vector<WorkerTotals>& t) {
  double s = 0;
  for (const auto& w : t) s += static_cast<double>(w.busy_ns) * 1e-9;
  return s;
}

// ---------------------------------------------------------------- which backends
TEST(PythonWorkers, TheThreadBackendsAreAccountedAndNoOther) {
  for (const auto& spec : embed::python_backend_specs()) {
    const bool expected = !spec.one_thread && spec.runner != embed::PyRunner::numba_prange;
    EXPECT_EQ(embed::python_backend_accounts_workers(spec), expected) << spec.name;
  }
  for (const auto& spec : embed::python_model_specs()) {
    const std::string name = spec.name;
    EXPECT_EQ(embed::python_model_accounts_workers(spec), name == "py-thread-pool" || name == "py-thread-pool-parlab")
        << name;
  }
}

// ---------------------------------------------------------------- the module's part
class PythonWorkerModule : public SharedPython {};

// parlab.pi and parlab.accounted account a chunk only on a thread that declared a worker index,
// while a ledger is installed; elsewhere nothing.
TEST_F(PythonWorkerModule, OnlyADeclaredWorkerAccountsAndOnlyIntoTheInstalledLedger) {
  WorkerLedger ledger(2);
  ledger.set_on(true);
  embed::GilAcquire gil;
  embed::PyRef ns = test::new_namespace();
  test::exec("import parlab\n"
             "def block(n):\n"
             "    return n * 2\n",
             ns.get());
  // No ledger installed: a declared worker accounts nothing.
  test::exec("parlab.set_worker(1)\nparlab.pi(1000, 7)\nparlab.set_worker(-1)\n", ns.get());
  {
    const embed::AccountingLedger installed(&ledger);
    // Installed, but this thread declared no index: nothing (current_worker() would read 0 here).
    EXPECT_EQ(test::eval_u64("parlab.pi(1000, 7)", ns.get()), pi_hits_points(7, 0, 1000));
    EXPECT_EQ(test::eval_u64("parlab.accounted(5, block, 21)", ns.get()), 42u);
    for (const auto& t : ledger.totals()) {
      EXPECT_EQ(t.chunks, 0u);
    }
    // Worker 1: pi (GIL held and released), triad, dot and a pure-Python block are one chunk each.
    test::exec("import array\n"
               "a = array.array('d', [0.0] * 100)\n"
               "b = array.array('d', [1.0] * 100)\n"
               "parlab.set_worker(1)\n"
               "h = parlab.pi(1000, 7, 0, False) + parlab.pi(500, 7, 1000, True)\n"
               "parlab.triad(a, b, b, 2.0)\n"
               "d = parlab.dot(a, b)\n"
               "r = parlab.accounted(5, block, 21)\n"
               "parlab.spin(0.0)\n"  // a calibration, never a chunk
               "parlab.set_worker(-1)\n",
               ns.get());
    EXPECT_EQ(test::eval_u64("h", ns.get()), pi_hits_points(7, 0, 1500));
    EXPECT_EQ(test::eval_u64("r", ns.get()), 42u);
  }
  // Uninstalled: the worker's calls account nothing again.
  test::exec("parlab.set_worker(1)\nparlab.pi(1000, 7)\nparlab.set_worker(-1)\n", ns.get());
  const auto t = ledger.totals();
  EXPECT_EQ(t[0].chunks, 0u);
  EXPECT_EQ(t[1].chunks, 5u);
  EXPECT_EQ(t[1].items, 1000u + 500u + 100u + 100u + 5u);
  EXPECT_EQ(ledger.unattributed(), 0u);
}

TEST_F(PythonWorkerModule, AccountedPassesResultsAndErrorsThroughAndChecksItsArguments) {
  embed::GilAcquire gil;
  embed::PyRef ns = test::new_namespace();
  test::exec("import parlab\n"
             "def boom():\n"
             "    raise KeyError('x')\n"
             "def check(call, error):\n"
             "    try:\n"
             "        call()\n"
             "    except error:\n"
             "        return 1\n"
             "    return 0\n",
             ns.get());
  EXPECT_EQ(test::eval_u64("parlab.accounted(3, max, 4, 9, 2)", ns.get()), 9u);
  EXPECT_EQ(test::eval_u64("check(lambda: parlab.accounted(1, boom), KeyError)", ns.get()), 1u);
  EXPECT_EQ(test::eval_u64("check(lambda: parlab.accounted(1), TypeError)", ns.get()), 1u);
  EXPECT_EQ(test::eval_u64("check(lambda: parlab.accounted(-1, max, 1, 2), ValueError)", ns.get()), 1u);
  EXPECT_EQ(test::eval_u64("check(lambda: parlab.set_worker(-2), ValueError)", ns.get()), 1u);
  EXPECT_EQ(test::eval_u64("check(lambda: parlab.set_worker('0'), TypeError)", ns.get()), 1u);
}

// ---------------------------------------------------------------- every thread backend
struct Case {
  std::string backend;
  int threads;
  std::uint64_t samples;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.backend << " t=" << c.threads << " n=" << c.samples; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = info.param.backend + "_t" + std::to_string(info.param.threads);
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

std::vector<Case> cases() {
  // Pure Python counts about a million points a second, in blocks of 256 (tasks of a third of
  // the points for the pure thread pool); parlab.pi in calls (tasks) of 2^21: sizes of several
  // units per thread, odd so the last is cut.
  const std::vector<std::pair<std::string, std::uint64_t>> backends = {
      {"py-pure-threads", 5001},       {"py-pure-private", 5001},         {"py-free-threaded", 5001},
      {"py-subinterp", 5001},          {"py-parlab-gil-held", 6291457},   {"py-parlab-gil-released", 6291457},
      {"py-numpy-threads", 300007},    {"py-numba-nogil", 300007},        {"py-thread-pool", 5001},
      {"py-thread-pool-parlab", 6291457},
  };
  std::vector<Case> out;
  for (const auto& [backend, samples] : backends) {
    for (int t : {1, 2, 3}) out.push_back({backend, t, samples});
  }
  return out;
}

class PythonWorkerBackend : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override { shared_python_interpreter(); }
};

TEST_P(PythonWorkerBackend, EachThreadIsAWorkerAndEveryPointIsAccountedOnce) {
  const Case& c = GetParam();
  std::string skip;
  std::unique_ptr<Workload> w = make_or_skip(c.backend, pi_problem(c.samples, c.threads, kSeed), skip);
  if (w == nullptr) GTEST_SKIP() << skip;
  constexpr int kReps = 3;
  const Accounted a = account(*w, kReps);
  ASSERT_EQ(a.workers, c.threads) << "one worker per thread";
  ASSERT_EQ(a.totals.size(), static_cast<std::size_t>(c.threads));
  EXPECT_EQ(a.unattributed, 0u) << "every chunk ran on a thread of the team";

  std::uint64_t items = 0;
  for (std::size_t i = 0; i < a.totals.size(); ++i) {
    const WorkerTotals& t = a.totals[i];
    items += t.items;
    // A worker that had work did it in chunks; one that had none (a dynamic split, or the GIL
    // held by the others throughout) has neither.
    EXPECT_EQ(t.chunks > 0, t.items > 0) << "worker " << i;
    // Its CPU time and its time in the body both lie within its windows' wall time (each thread's
    // part of a repetition, from its first chunk on, core/worker_ledger.hpp): the Python between
    // two chunks is in the window's CPU time, never in the body's; what is left is the clocks' grain.
    if (t.chunks > 0) {
      EXPECT_LE(static_cast<double>(t.cpu_ns), 1.02 * static_cast<double>(t.window_ns) + 1e5)
          << "worker " << i << ": cpu " << t.cpu_ns << " ns, windows " << t.window_ns << " ns";
      EXPECT_LE(static_cast<double>(t.busy_ns), 1.02 * static_cast<double>(t.window_ns) + 1e5)
          << "worker " << i << ": busy " << t.busy_ns << " ns, windows " << t.window_ns << " ns";
    }
  }
  if (c.threads == 1) {
    EXPECT_GT(a.totals[0].chunks, 0u) << "the one worker did everything";
  }
  EXPECT_EQ(items, c.samples * kReps) << "each point of each run accounted once";
  ASSERT_EQ(a.reps.size(), static_cast<std::size_t>(kReps));
  for (const auto& r : a.reps) {
    EXPECT_EQ(r.cpu_ns.size(), static_cast<std::size_t>(c.threads));
  }
  ASSERT_FALSE(a.trace.empty()) << "the traced run's chunks";
  for (const TraceEvent& e : a.trace) {
    EXPECT_GE(e.worker, 0);
    EXPECT_LT(e.worker, c.threads);
    EXPECT_LE(e.start_s, e.end_s);
  }

  EXPECT_TRUE(a.validation.pass) << a.validation.detail;
  ASSERT_TRUE(a.validation.hits.has_value());
  EXPECT_EQ(*a.validation.hits, pi_hits_points(kSeed, 0, c.samples)) << "the canonical count";
}

INSTANTIATE_TEST_SUITE_P(Pi, PythonWorkerBackend, ::testing::ValuesIn(cases()), case_name);

// The one-thread library backends and the models whose workers are not threads of ours have no
// ledger: their records carry no `workers`. (Named for NumPy, which it imports: the ASan build's
// filter of the tests that need the slow unwinder, tests/embed/CMakeLists.txt.)
TEST_F(PythonWorkerModule, NumpyOnOneThreadAndProcessesHaveNoLedger) {
  for (const char* backend : {"py-numpy", "py-processes"}) {
    std::string skip;
    std::unique_ptr<Workload> w = make_or_skip(backend, pi_problem(4096, 1, kSeed), skip);
    if (w == nullptr) continue;
    EXPECT_EQ(w->worker_ledger(), nullptr) << backend;
  }
}

// ---------------------------------------------------------------- what the GIL does
// parlab.pi with the GIL held: the threads take turns, so each call is a chunk that overlaps no
// other, the workers' summed useful (CPU) time is what one thread needs for the same points, and
// the run is not shortened: parallel efficiency (mean useful time over runtime) is at most about
// 1/threads. Judged on CPU time and on the order of the chunks, which the machine's load does not
// change; no wall-clock threshold.
TEST(PythonWorkers, TheGilHeldRunsItsWorkersOneAtATime) {
  shared_python_interpreter();
  if (!test::gil_at_run_time()) GTEST_SKIP() << "no GIL at run time: parlab.pi holds nothing";
  // 16 calls of 2^21 points: tens of milliseconds, so the threads hand the GIL over (every 5 ms
  // of sys.getswitchinterval) several times a run.
  constexpr std::uint64_t kSamples = std::uint64_t{1} << 25;
  constexpr int kReps = 3;
  std::string skip;
  std::unique_ptr<Workload> one = make_or_skip("py-parlab-gil-held", pi_problem(kSamples, 1, kSeed), skip);
  if (one == nullptr) GTEST_SKIP() << skip;
  const Accounted serial = account(*one, kReps);
  one.reset();
  for (int threads : {2, 3}) {
    std::unique_ptr<Workload> w = make_or_skip("py-parlab-gil-held", pi_problem(kSamples, threads, kSeed), skip);
    ASSERT_NE(w, nullptr) << skip;
    const Accounted a = account(*w, kReps);
    ASSERT_EQ(a.workers, threads);
    EXPECT_TRUE(a.validation.pass) << a.validation.detail;

    // No two chunks overlap: each holds the GIL from its first instruction to its last.
    std::vector<TraceEvent> events = a.trace;
    ASSERT_GE(events.size(), 2u);
    std::sort(events.begin(), events.end(), [](const auto& x, const auto& y) { return x.start_s < y.start_s; });
    for (std::size_t i = 1; i < events.size(); ++i) {
      EXPECT_GE(events[i].start_s, events[i - 1].end_s)
          << "chunk " << i << " (worker " << events[i].worker << ") began before chunk " << i - 1 << " (worker "
          << events[i - 1].worker << ") ended";
    }
    // Hence in every repetition the workers' summed wall time in chunks fits in the repetition.
    for (const auto& r : a.reps) {
      const double busy = static_cast<double>(std::accumulate(r.busy_ns.begin(), r.busy_ns.end(), std::uint64_t{0})) * 1e-9;
      EXPECT_LE(busy, r.wall_s) << "the chunks ran one at a time";
    }
    // The same useful work as one thread's, within generous bounds (the time in the body, which
    // holds the GIL throughout, so no other thread ran Python beside it).
    const double ratio = sum_busy_s(a.totals) / sum_busy_s(serial.totals);
    EXPECT_GT(ratio, 0.6) << threads << " threads";
    EXPECT_LT(ratio, 1.6) << threads << " threads";
    // Parallel efficiency = mean(useful) / runtime <= 1/threads (+ slack): the GIL's cost, as the
    // POP hierarchy shows it.
    double runtime = 0;
    for (const auto& r : a.reps) runtime += r.wall_s;
    const double pe = sum_busy_s(a.totals) / threads / runtime;
    EXPECT_LT(pe, 1.0 / threads + 0.1) << threads << " threads: parallel efficiency " << pe;
    std::ostringstream note;
    note << "gil-held t=" << threads << ": parallel efficiency " << pe << ", useful time x" << ratio
         << " of one thread's";
    RecordProperty("t" + std::to_string(threads), note.str());
  }
}

// ---------------------------------------------------------------- the record
// Through the runner: a Python thread backend's record carries `workers` with a worker per thread.
TEST(PythonWorkers, TheRecordCarriesAWorkerPerThread) {
  shared_python_interpreter();
  for (const char* backend : {"py-parlab-gil-released", "py-pure-threads"}) {
    const BackendEntry* e = registry().find(backend);
    ASSERT_NE(e, nullptr);
    if (!e->available) continue;
    MeasurementSpec s;
    s.problem.kernel = "pi";
    s.backend = backend;
    s.problem.precision = Precision::i32;
    s.problem.threads = 2;
    s.problem.size = std::string(backend) == "py-pure-threads" ? 8192 : std::uint64_t{1} << 23;
    s.problem.seed = kSeed;
    s.reps = 3;
    std::ostringstream log;
    Runner runner(registry(), log, RunOptions{});
    const std::optional<Record> measured = runner.measure_one(s, 0);
    ASSERT_TRUE(measured);
    const nlohmann::json r = to_json(*measured);
    ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
    ASSERT_TRUE(r.contains("workers")) << backend;
    const nlohmann::json& w = r["workers"];
    EXPECT_EQ(w.value("count", 0), 2) << w.dump(2);
    if (w.value("accounting", "") != "on") {
      // Too short a run to carry it here (a sanitizer build): the record says why.
      EXPECT_FALSE(w.value("why", "").empty()) << w.dump(2);
      continue;
    }
    ASSERT_EQ(w["items"].size(), 2u);
    double items = 0;
    for (const auto& x : w["items"]) items += x.get<double>();
    EXPECT_DOUBLE_EQ(items, static_cast<double>(s.problem.size)) << "the points of a run, per run";
    EXPECT_EQ(w["cpu_s"].size(), 2u);
    EXPECT_TRUE(w.contains("pop")) << w.dump(2);
  }
}

}  // namespace
}  // namespace parlab
