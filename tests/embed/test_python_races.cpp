// The race lab's Python half: the locked counter is always exact, every kernel is exact on one
// thread, and a racy kernel never gains updates (it can only lose them).
#include <gtest/gtest.h>

#include <string>

#include "embed/race_workloads.hpp"
#include "embed_test_support.hpp"
#include "experiments/wiring/make_registry.hpp"
#include "validation_metric.hpp"

namespace parlab {
namespace {

using test::registry;

Validation run_race(const std::string& kernel, int threads, std::uint64_t n, int trials) {
  Problem p;
  p.kernel = kernel;
  p.precision = Precision::i32;
  p.size = n;
  p.threads = threads;
  auto w = registry().get("py-threads-race").make(p);
  for (int i = 0; i < trials; ++i) w->run();
  return w->validate();
}

using test::metric;

TEST(PythonRaces, LockedCounterIsExactOnAnyThreadCount) {
  for (int threads : {1, 2, 4}) {
    const Validation v = run_race("py_count_locked", threads, 20000, 3);
    EXPECT_TRUE(v.pass) << v.detail;
    EXPECT_EQ(metric(v, "deviating_trials"), 0.0);
  }
}

TEST(PythonRaces, RacyCountersAreExactOnOneThreadAndNeverGain) {
  for (const char* kernel : {"py_count_racy", "py_count_racy_call"}) {
    const Validation one = run_race(kernel, 1, 20000, 2);
    EXPECT_EQ(metric(one, "deviating_trials"), 0.0) << kernel << ": " << one.detail;
    const Validation two = run_race(kernel, 2, 20000, 2);
    EXPECT_TRUE(two.pass);  // racy by design: observed, not failed
    EXPECT_LE(two.checksum, 20000.0) << kernel;
  }
}

TEST(PythonRaces, NumpyInPlaceAddRunsOrIsUnavailable) {
  try {
    const Validation v = run_race("py_numpy_add_racy", 2, 4096, 2);
    EXPECT_LE(v.checksum, 4096.0 * 2 * 8);
  } catch (const UnavailableError& e) {
    GTEST_SKIP() << e.what();
  }
}

TEST(PythonRaces, UnknownKernelIsAUsageErrorAndACatalogueKernelNotImplemented) {
  EXPECT_THROW(run_race("no_such_kernel", 1, 10, 1), UsageError);
  EXPECT_THROW(run_race("pi", 1, 10, 1), UnavailableError);
}

}  // namespace
}  // namespace parlab
