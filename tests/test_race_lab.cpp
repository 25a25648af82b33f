// The race lab's exact kernels are exact on every backend and thread count; the racy ones are
// exact where no two threads can interleave (one thread), and never exceed the exact answer.
#include <gtest/gtest.h>

#include <cstring>

#include "core/lab.hpp"
#include "test_support.hpp"
#include "validation_metric.hpp"

namespace parlab {
namespace {

class RaceLab : public ::testing::TestWithParam<test::BackendThreads> {};

Validation run_lab(const std::string& kernel, const test::BackendThreads& bt, std::uint64_t n, int trials) {
  Problem p;
  p.kernel = kernel;
  p.precision = find_kernel(kernel)->precisions.front();
  p.size = n;
  p.seed = 11;
  p.threads = bt.threads;
  auto w = test::registry().get(bt.backend).make(p);
  for (int i = 0; i < trials; ++i) w->run();
  return w->validate();
}

using test::metric;

TEST_P(RaceLab, ExactCounterpartsNeverDeviate) {
  for (const char* kernel : {"count_atomic", "count_local", "rng_counter", "sum_canonical"}) {
    for (std::uint64_t n : {0ull, 1ull, 255ull, 4097ull, 20001ull}) {
      const Validation v = run_lab(kernel, GetParam(), n, 5);
      EXPECT_TRUE(v.pass) << kernel << " n=" << n << ": " << v.detail;
      EXPECT_EQ(metric(v, "deviating_trials"), 0.0) << kernel;
      EXPECT_EQ(metric(v, "trials"), 5.0);
    }
  }
}

TEST_P(RaceLab, RacyKernelsAreExactOnOneThreadAndNeverOvercount) {
  const Validation racy = run_lab("count_racy", GetParam(), 20000, 5);
  EXPECT_TRUE(racy.pass);  // observational: a racy kernel's result is data, not a failure
  EXPECT_LE(racy.checksum, 20000.0);
  if (GetParam().threads == 1) {
    EXPECT_EQ(metric(racy, "deviating_trials"), 0.0) << racy.detail;
    EXPECT_EQ(metric(run_lab("rng_shared", GetParam(), 20000, 3), "deviating_trials"), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, RaceLab, ::testing::ValuesIn(test::backend_thread_params()),
                         [](const auto& tp) { return test::name_of(tp.param); });

TEST(RaceLabSerial, SumOrderOnOneSerialThreadIsLeftToRight) {
  const Validation v = run_lab("sum_order", {"serial", 1}, 100003, 3);
  EXPECT_EQ(metric(v, "deviating_trials"), 0.0) << v.detail;
}

TEST(RaceLabSerial, CanonicalSumHasTheSameBitsAtEveryThreadCount) {
  double first = 0;
  bool have = false;
  for (const auto& bt : test::backend_thread_params()) {
    const Validation v = run_lab("sum_canonical", bt, 70001, 1);
    if (!have) {
      first = v.checksum;
      have = true;
    }
    EXPECT_EQ(std::memcmp(&first, &v.checksum, sizeof(double)), 0) << test::name_of(bt);
  }
}

TEST(OverheadProbes, RunOnEveryBackend) {
  for (const auto& bt : test::backend_thread_params()) {
    for (const char* kernel : {"overhead_empty", "overhead_for", "overhead_reduce"}) {
      const Validation v = run_lab(kernel, bt, 50, 2);
      EXPECT_TRUE(v.pass) << kernel << " " << test::name_of(bt) << ": " << v.detail;
    }
  }
}

}  // namespace
}  // namespace parlab
