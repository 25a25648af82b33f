// The Python backends as the runner sees them: registry entries (kind "python"), workloads made
// from a Problem, run, validated against the canonical count; missing peers are unavailable with
// a reason, never errors; usage errors come before the interpreter starts.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "core/pi.hpp"
#include "embed/backend_names.hpp"
#include "embed/kernel_workloads.hpp"
#include "embed_test_support.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace parlab {
namespace {

using test::pi_problem;
using test::registry;


TEST(PythonRegistry, EveryPythonBackendIsListedWithKindAndReason) {
  for (const auto& spec : embed::python_backend_specs()) {
    const BackendEntry* e = registry().find(spec.name);
    ASSERT_NE(e, nullptr) << spec.name;
    EXPECT_EQ(e->kind, BackendKind::python);
    if (e->available) {
      const std::vector<std::string> want = embed::python_backend_runs_triad(spec)
                                                ? std::vector<std::string>{"pi", "triad"}
                                                : std::vector<std::string>{"pi"};
      EXPECT_EQ(e->kernels, want) << spec.name;
      EXPECT_TRUE(e->make) << spec.name;
    } else {
      EXPECT_FALSE(e->reason.empty()) << spec.name;
    }
  }
  for (const char* name :
       {"py-pure-threads", "py-parlab-gil-held", "py-parlab-gil-released", "py-subinterp", "py-free-threaded",
        "py-numpy", "py-numpy-threads", "py-numba-prange", "py-numba-nogil", "py-cupy", "py-torch"}) {
    EXPECT_NE(registry().find(name), nullptr) << name;
  }
}

// A build without embed/ lists embed::kPythonBackendNames as unavailable: the list must be
// exactly what this part registers, or a suite naming a backend would load in one build only.
TEST(PythonRegistry, TheNameListOfBuildsWithoutPythonIsComplete) {
  std::vector<std::string> registered, listed;
  for (const auto& e : registry().entries()) {
    if (e.kind == BackendKind::python) registered.push_back(e.name);
  }
  for (const std::string_view n : embed::kPythonBackendNames) listed.emplace_back(n);
  std::sort(registered.begin(), registered.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(registered, listed);
}

TEST(PythonRegistry, ReasonsWhereTheBuildCannotRunThem) {
#if PY_VERSION_HEX < 0x030C0000
  const BackendEntry* sub = registry().find("py-subinterp");
  ASSERT_NE(sub, nullptr);
  EXPECT_FALSE(sub->available);
  EXPECT_EQ(sub->reason, "per-interpreter GIL needs Python >= 3.12, this build has " +
                             std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION));
#endif
#if !defined(Py_GIL_DISABLED)
  const BackendEntry* ft = registry().find("py-free-threaded");
  ASSERT_NE(ft, nullptr);
  EXPECT_FALSE(ft->available);
  EXPECT_NE(ft->reason.find("free-threaded"), std::string::npos) << ft->reason;
#endif
}

TEST(PythonRegistry, UsageErrorsBeforeAnyInterpreterStarts) {
  Problem triad = pi_problem(100, 1);
  triad.kernel = "triad";
  // A catalogue kernel the backend does not implement is unavailable there, not a usage error.
  EXPECT_THROW(registry().get("py-parlab-gil-released").make(triad), UnavailableError);
  EXPECT_THROW(registry().get("py-numpy").make(pi_problem(100, 2)), UsageError);
  EXPECT_THROW(registry().get("py-pure-threads").make(pi_problem(100, 0)), UsageError);
}

struct Case {
  std::string backend;
  int threads;
  std::uint64_t samples;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.backend << " threads=" << c.threads << " samples=" << c.samples;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = info.param.backend + "_t" + std::to_string(info.param.threads);
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& spec : embed::python_backend_specs()) {
    // Pure Python runs about a million points a second; parlab.pi(2, ...) is a call per 2 points.
    const bool slow = spec.runner == embed::PyRunner::pure_threads || spec.runner == embed::PyRunner::pure_private ||
                      spec.runner == embed::PyRunner::free_threaded ||
                      spec.runner == embed::PyRunner::subinterpreters ||
                      spec.runner == embed::PyRunner::parlab_call_overhead;
    const std::uint64_t samples = slow ? 20011 : 300007;
    for (int t : {1, 2, 3}) {
      if (spec.one_thread && t != 1) continue;
      out.push_back({spec.name, t, samples});
    }
  }
  return out;
}

class PythonBackend : public ::testing::TestWithParam<Case> {};

TEST_P(PythonBackend, RunsAndValidatesAgainstTheCanonicalCount) {
  const Case& c = GetParam();
  const BackendEntry& e = *registry().find(c.backend);
  if (!e.available) GTEST_SKIP() << c.backend << " is unavailable: " << e.reason;
  std::unique_ptr<Workload> w;
  try {
    w = e.make(pi_problem(c.samples, c.threads));
  } catch (const UnavailableError& u) {  // a peer that is not installed here
    GTEST_SKIP() << u.what();
  }
  w->run();
  w->run();
  const Validation v = w->validate();
  EXPECT_TRUE(v.pass) << v.detail;
  ASSERT_TRUE(v.hits.has_value());
  EXPECT_EQ(*v.hits, pi_hits_points(0xC0FFEE, 0, c.samples)) << v.detail;
  EXPECT_NE(v.detail.find("canonical"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("GIL"), std::string::npos) << "the contention figure is reported: " << v.detail;
  EXPECT_EQ(w->work().samples, static_cast<double>(c.samples));

  auto* py = dynamic_cast<embed::PythonPiWorkload*>(w.get());
  ASSERT_NE(py, nullptr);
  const embed::GilContention g = py->gil_contention();
  if (g.measured) {
    const auto has_metric = [&](const char* name) {
      return v.metric(name).has_value();
    };
    EXPECT_TRUE(has_metric("gil_wait_share")) << "the figure goes into the record's metrics";
    EXPECT_TRUE(has_metric("gil_reacquire_share"));
    EXPECT_EQ(g.threads, c.threads);
    EXPECT_GT(g.wall_s, 0.0);
    // Shares are shares: a negative GIL wait (CPU time read outside the wall-clock interval) was
    // once recorded for py-parlab-call-overhead.
    for (const char* name : {"gil_wait_share", "gil_reacquire_share", "off_cpu_share"}) {
      ASSERT_TRUE(v.metric(name).has_value()) << name;
      EXPECT_GE(*v.metric(name), 0.0) << name;
      EXPECT_LE(*v.metric(name), 1.0) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Pi, PythonBackend, ::testing::ValuesIn(cases()), case_name);

// The suite planner refuses sizes below a backend's work unit (BackendEntry::work_unit); the C++
// side states it, the Python runners use it: they must agree.
TEST(PythonRegistry, WorkUnitsAreTheOnesThePythonRunnersUse) {
  shared_python_interpreter();
  embed::GilAcquire gil;
  embed::PyRef ns = test::new_namespace();
  test::exec("import parlab_threads", ns.get());
  const std::uint64_t call = test::eval_u64("parlab_threads.CALL_SAMPLES", ns.get());
  const std::uint64_t block = test::eval_u64("parlab_threads.PURE_BLOCK", ns.get());
  for (const auto& spec : embed::python_backend_specs()) {
    const std::uint64_t unit = embed::python_backend_work_unit(spec);
    switch (spec.runner) {
      case embed::PyRunner::parlab_gil_held:
      case embed::PyRunner::parlab_gil_released: EXPECT_EQ(unit, call) << spec.name; break;
      case embed::PyRunner::pure_threads:
      case embed::PyRunner::pure_private:
      case embed::PyRunner::free_threaded: EXPECT_EQ(unit, block) << spec.name; break;
      default: break;
    }
  }
}

TEST(PythonBackendPeers, MissingPeersAreUnavailableNotErrors) {
  // Whatever is installed here, making a peer either works or says why it cannot.
  for (const char* name : {"py-numpy", "py-numba-prange", "py-numba-nogil", "py-cupy", "py-torch"}) {
    const BackendEntry& e = *registry().find(name);
    try {
      auto w = e.make(pi_problem(1001, 1));
    } catch (const UnavailableError& u) {
      EXPECT_FALSE(std::string(u.what()).empty()) << name;
    }
  }
}

TEST(PythonBackendPeers, TheGilHeldVariantReportsContention) {
  auto w = registry().get("py-parlab-gil-held").make(pi_problem(1 << 20, 2));
  w->run();
  PARLAB_SKIP_WITHOUT_GIL();  // test_free_threaded.cpp checks what the record says without one
  auto* py = dynamic_cast<embed::PythonPiWorkload*>(w.get());
  ASSERT_NE(py, nullptr);
  const embed::GilContention g = py->gil_contention();
  EXPECT_TRUE(g.measured);
  EXPECT_EQ(g.threads, 2);
  EXPECT_NE(g.describe().find("GIL wait"), std::string::npos) << g.describe();
}

// What a team's time off the CPU is called, and what the record's gil_wait_share holds: a wait
// only where the threads share one GIL.
TEST(GilContention, OffCpuTimeIsAGilWaitOnlyWhereOneGilIsShared) {
  embed::GilContention g;
  g.measured = true;
  g.threads = 4;
  g.wall_s = 10;
  g.cpu_s = 4;
  EXPECT_DOUBLE_EQ(g.gil_wait_share(), 0.6);
  EXPECT_NE(g.describe().find("GIL wait 60.0%"), std::string::npos) << g.describe();
  g.own_gil = true;  // sub-interpreters, a GIL each
  EXPECT_DOUBLE_EQ(g.gil_wait_share(), 0.0);
  EXPECT_DOUBLE_EQ(g.wait_share(), 0.6);
  EXPECT_EQ(g.describe().find("GIL wait"), std::string::npos) << g.describe();
  EXPECT_NE(g.describe().find("a GIL per sub-interpreter"), std::string::npos) << g.describe();
  g.own_gil = false;
  g.gil_enabled = false;  // a free-threaded build running without one
  EXPECT_DOUBLE_EQ(g.gil_wait_share(), 0.0);
  EXPECT_NE(g.describe().find("no GIL at run time"), std::string::npos) << g.describe();
}

// The peers' STREAM triad (NumPy, Numba prange; CuPy on a GPU): BabelStream gold after several
// runs, at sizes 1 and odd, float and double, on the thread counts each runs; missing peers skip.
struct TriadCase {
  const char* backend;
  int threads;
  Precision precision;
  std::uint64_t n;
};

void PrintTo(const TriadCase& c, std::ostream* os) {
  *os << c.backend << " threads=" << c.threads << " " << to_string(c.precision) << " n=" << c.n;
}

class PythonTriad : public ::testing::TestWithParam<TriadCase> {};

TEST_P(PythonTriad, MatchesBabelStreamGoldAfterSeveralRuns) {
  const TriadCase c = GetParam();
  Problem p;
  p.kernel = "triad";
  p.precision = c.precision;
  p.size = c.n;
  p.threads = c.threads;
  std::unique_ptr<Workload> w;
  try {
    w = registry().get(c.backend).make(p);
  } catch (const UnavailableError& e) {
    GTEST_SKIP() << e.what();
  }
  for (int r = 0; r < 3; ++r) w->run();
  const Validation v = w->validate();
  EXPECT_TRUE(v.pass) << v.detail;
  EXPECT_EQ(w->work().bytes, 3.0 * (c.precision == Precision::f64 ? 8 : 4) * static_cast<double>(c.n));
}

INSTANTIATE_TEST_SUITE_P(
    Peers, PythonTriad,
    ::testing::Values(TriadCase{"py-numpy", 1, Precision::f64, 1}, TriadCase{"py-numpy", 1, Precision::f64, 100003},
                      TriadCase{"py-numpy", 1, Precision::f32, 100003},
                      TriadCase{"py-numba-prange", 1, Precision::f64, 1},
                      TriadCase{"py-numba-prange", 2, Precision::f64, 100003},
                      TriadCase{"py-numba-prange", 2, Precision::f32, 100003},
                      TriadCase{"py-cupy", 1, Precision::f64, 1}, TriadCase{"py-cupy", 1, Precision::f64, 100003},
                      TriadCase{"py-cupy", 1, Precision::f32, 100003}),
    [](const ::testing::TestParamInfo<TriadCase>& i) {
      std::string name = std::string(i.param.backend).substr(3);
      for (char& ch : name) ch = ch == '-' ? '_' : ch;
      return name + "_t" + std::to_string(i.param.threads) + "_" + to_string(i.param.precision) + "_n" +
             std::to_string(i.param.n);
    });

TEST(PythonTriad, KernelsAPeerDoesNotRunAreNotImplementedAndBadProblemsUsageErrors) {
  Problem p;
  p.kernel = "triad";
  p.precision = Precision::f64;
  p.size = 10;
  p.threads = 1;
  try {
    (void)registry().get("py-pure-threads").make(p);  // pi only
    ADD_FAILURE() << "py-pure-threads made a triad";
  } catch (const UnavailableError& e) {
    EXPECT_STREQ(e.what(), "not implemented by py-pure-threads");
  }
  p.precision = Precision::i32;
  EXPECT_THROW(registry().get("py-numpy").make(p), UsageError);  // triad in float or double
  // CuPy's usage errors come before its import, where it is listed at all: on a machine whose cuda
  // backend found no GPU it is unavailable before any problem is looked at (no_gpu_reason).
  const BackendEntry& cupy = *registry().find("py-cupy");
  if (cupy.available) {
    EXPECT_THROW(registry().get("py-cupy").make(p), UsageError);  // CuPy's triad too
    p.precision = Precision::f64;
    p.threads = 2;
    EXPECT_THROW(registry().get("py-cupy").make(p), UsageError);  // one host thread
  } else {
    EXPECT_EQ(cupy.reason.rfind("needs a GPU: ", 0), 0u) << cupy.reason;
    EXPECT_THROW((void)registry().get("py-cupy"), UnavailableError);
  }
  p.precision = Precision::f64;
  p.threads = 1;
  p.kernel = "copy";  // a STREAM kernel other than triad
  p.precision = Precision::f64;
  EXPECT_THROW(registry().get("py-numpy").make(p), UnavailableError);
  p.kernel = "no_such_kernel";  // a name outside the catalogue
  EXPECT_THROW(registry().get("py-numpy").make(p), UsageError);
}

}  // namespace
}  // namespace parlab
