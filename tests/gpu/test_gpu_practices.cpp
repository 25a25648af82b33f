// The GPU practices (transfers, logging) and the multi-GPU triad: valid results, and time reported
// in the right column.
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"

namespace parlab {
namespace {

TEST(GpuPractices, TransfersCopyEveryByteAndReportTransferTimeOnly) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (const char* kernel : {"transfer_pageable", "transfer_pinned", "transfer_many_small", "transfer_one_large"}) {
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{4096},
                                (std::uint64_t{1} << 20) + 3}) {
      auto w = test::registry().get("cuda").make(test::gpu_problem(kernel, Precision::f64, bytes));
      w->run();
      w->run();
      const Validation v = w->validate();
      EXPECT_TRUE(v.pass) << kernel << " " << bytes << ": " << v.detail;
      const auto t = w->last_timing();
      ASSERT_TRUE(t.has_value());
      EXPECT_EQ(t->kernel_s, 0.0);
      if (bytes > 0) {
        EXPECT_GT(t->transfer_s, 0.0) << kernel;
      }
      EXPECT_EQ(w->work().bytes, 2.0 * static_cast<double>(bytes));
    }
  }
}

TEST(GpuPractices, LoggingKeepsTheNormAndBothVariantsRecordTheSameBits) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  Validation every, once;
  for (const char* kernel : {"logging_every_step", "logging_on_device"}) {
    auto w = test::registry().get("cuda").make(test::gpu_problem(kernel, Precision::f32, 1000));
    w->run();
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << kernel << ": " << v.detail;
    const auto t = w->last_timing();
    ASSERT_TRUE(t.has_value());
    EXPECT_GT(t->kernel_s, 0.0) << kernel;
    EXPECT_GT(t->transfer_s, 0.0) << kernel;
    (std::string(kernel) == "logging_every_step" ? every : once) = v;
  }
  EXPECT_EQ(every.checksum, once.checksum);
}

TEST(GpuPractices, LoggingShortRunsAgree) {
  // The logging study's kernels on a few steps: what the sanitizer runs check.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const Validation every = test::run_and_validate("cuda", test::gpu_problem("logging_every_step", Precision::f32, 5));
  const Validation once = test::run_and_validate("cuda", test::gpu_problem("logging_on_device", Precision::f32, 5));
  EXPECT_TRUE(every.pass) << every.detail;
  EXPECT_TRUE(once.pass) << once.detail;
  EXPECT_EQ(every.checksum, once.checksum);
}

TEST(GpuPractices, MultiDeviceTriadMatchesGold) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (const char* backend : {"cuda-multi", "cuda-multi-seq"}) {
    for (Precision precision : {Precision::f64, Precision::f32}) {
      for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000003}}) {
        const Validation v = test::run_and_validate(backend, test::gpu_problem("triad", precision, n), 3);
        EXPECT_TRUE(v.pass) << backend << " " << to_string(precision) << " n = " << n << ": " << v.detail;
      }
    }
  }
}

}  // namespace
}  // namespace parlab
