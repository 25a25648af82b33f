// cuda-memcpy, the driver's copy as a peer of parlab's copy kernel: copy only, the same arrays,
// work and validation as cuda's copy, so the two records compare by rate alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/backends.hpp"
#include "gpu_test_support.hpp"

namespace parlab {
namespace {

const std::uint64_t kSizes[] = {0, 1, 2, 3, 5, 8191, 8193, 1000003};

TEST(GpuMemcpy, RunsCopyAloneAndIsNoneOfParlabsKernels) {
  Registry r;
  add_cuda_backends(r);
  const BackendEntry* e = r.find("cuda-memcpy");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kernels, std::vector<std::string>{"copy"});
  EXPECT_EQ(e->kind, BackendKind::gpu);
  EXPECT_FALSE(e->own_kernels) << "the driver's copy is not parlab's code";
  EXPECT_FALSE(e->in_default_set) << "a peer: measured where a suite or --backend names it";
}

TEST(GpuMemcpy, EveryOtherKernelIsNotImplementedByIt) {
  // As for any catalogue kernel an entry lacks (core/kernel_table.hpp): unavailable, with why.
  PARLAB_REQUIRE_CUDA_DEVICE();
  const BackendEntry& e = test::registry().get("cuda-memcpy");
  for (const char* k : {"mul", "add", "triad", "dot", "nstream", "pi", "matmul"}) {
    try {
      e.make(test::gpu_problem(k, Precision::f64, 1024));
      ADD_FAILURE() << k << " was made";
    } catch (const UnavailableError& err) {
      EXPECT_EQ(std::string(err.what()), "not implemented by cuda-memcpy") << k;
    }
  }
}

void expect_gold(Precision precision) {
  for (std::uint64_t n : kSizes) {
    const Validation v = test::run_and_validate("cuda-memcpy", test::gpu_problem("copy", precision, n), 3);
    EXPECT_TRUE(v.pass) << to_string(precision) << " n = " << n << ": " << v.detail;
  }
}

TEST(GpuMemcpy, CopyMatchesGoldDouble) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  expect_gold(Precision::f64);
}

TEST(GpuMemcpy, CopyMatchesGoldFloat) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  expect_gold(Precision::f32);
}

TEST(GpuMemcpy, ItsWorkIsParlabCopysWork) {
  // Read one array and write one: the bytes of cuda's copy record, so rates compare directly.
  PARLAB_REQUIRE_CUDA_DEVICE();
  for (Precision precision : {Precision::f64, Precision::f32}) {
    const Problem p = test::gpu_problem("copy", precision, 1000003);
    const WorkCount driver = test::registry().get("cuda-memcpy").make(p)->work();
    const WorkCount kernel = test::registry().get("cuda").make(p)->work();
    EXPECT_EQ(driver.bytes, kernel.bytes) << to_string(precision);
    EXPECT_EQ(driver.bytes, 2.0 * 1000003 * (precision == Precision::f64 ? 8 : 4)) << to_string(precision);
    EXPECT_EQ(driver.flops, 0.0);
  }
}

TEST(GpuMemcpy, TimesTheCopyOnTheDevice) {
  PARLAB_REQUIRE_CUDA_DEVICE();
  auto w = test::registry().get("cuda-memcpy").make(test::gpu_problem("copy", Precision::f64, 1 << 22));
  w->run();
  const auto t = w->last_timing();
  ASSERT_TRUE(t.has_value());
  EXPECT_GT(t->kernel_s, 0.0);
  EXPECT_EQ(t->transfer_s, 0.0);
  EXPECT_TRUE(w->validate().pass);
}

}  // namespace
}  // namespace parlab
