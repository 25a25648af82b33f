// The catalogue's work model is the one place a kernel's work is written:
// every backend's Workload::work() must equal kernel_work() for its problem, and the model must
// give the figures records have always carried (docs/design.md, "Kernels and their work model").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "test_support.hpp"
#include "work_model_check.hpp"

namespace parlab {
namespace {

TEST(WorkModel, EveryCpuBackendsWorkIsTheCatalogues) {
  EXPECT_GT(test::check_backends_of_kind(test::registry(), BackendKind::cpu), 0);
}

TEST(WorkModel, EveryGpuBackendsWorkIsTheCatalogues) {
  bool any = false;
  for (const auto& e : test::registry().entries()) any = any || (e.kind == BackendKind::gpu && e.available);
  if (!any) GTEST_SKIP() << "no CUDA device here: the GPU backends are checked on a GPU node";
  EXPECT_GT(test::check_backends_of_kind(test::registry(), BackendKind::gpu), 0);
}

// The figures records have always carried, written out: the model must not move them (records
// from before stay comparable). A word is sizeof of the precision.
TEST(WorkModel, GivesTheFiguresRecordsHaveAlwaysCarried) {
  const double n = 1001;
  struct Case {
    const char* kernel;
    Precision precision;
    std::uint64_t size, size_y;
    double samples, bytes, flops;
  };
  const std::vector<Case> cases = {
      {"pi", Precision::i32, 1001, 0, n, 0, 0},
      {"copy", Precision::f64, 1001, 0, 0, 2 * 8 * n, 0},
      {"mul", Precision::f32, 1001, 0, 0, 2 * 4 * n, n},
      {"add", Precision::f64, 1001, 0, 0, 3 * 8 * n, n},
      {"triad", Precision::f32, 1001, 0, 0, 3 * 4 * n, 2 * n},
      {"dot", Precision::f64, 1001, 0, 0, 2 * 8 * n, 2 * n},
      {"nstream", Precision::f64, 1001, 0, 0, 4 * 8 * n, 3 * n},
      {"plus_one", Precision::i32, 1001, 0, 0, 8 * n, n},
      {"add2d", Precision::f32, 67, 45, 0, 12.0 * 67 * 45, 67.0 * 45},
      {"add2d", Precision::f32, 67, 0, 0, 12.0 * 67 * 67, 67.0 * 67},
      {"matmul", Precision::f32, 37, 0, 0, 12.0 * 37 * 37, 2.0 * 37 * 37 * 37},
      {"count_racy", Precision::i32, 1001, 0, n, 0, 0},
      {"sum_canonical", Precision::f64, 1001, 0, n, 0, 0},
      {"overhead_for", Precision::i32, 1001, 0, n, 0, 0},
      {"mpi_bcast", Precision::i32, 1001, 0, n, 0, 0},
  };
  for (const auto& c : cases) {
    WorkCount want;
    want.samples = c.samples;
    want.bytes = c.bytes;
    want.flops = c.flops;
    test::expect_work_eq(kernel_work(c.kernel, c.precision, c.size, c.size_y), want, c.kernel);
  }
  // Host memory of a CPU workload (the suite's memory check).
  EXPECT_EQ(kernel_host_bytes("triad", Precision::f64, 1001), 3 * 8 * n);
  EXPECT_EQ(kernel_host_bytes("plus_one", Precision::i32, 1001), 2 * 4 * n);
  EXPECT_EQ(kernel_host_bytes("add2d", Precision::f32, 67, 45), 3.0 * 67 * 45 * 4);
  EXPECT_EQ(kernel_host_bytes("matmul", Precision::f32, 37), 4.0 * 37 * 37 * 4);  // A, B, C, B packed
  EXPECT_EQ(kernel_host_bytes("sum_order", Precision::f64, 1001), 2 * 8 * n);
  EXPECT_EQ(kernel_host_bytes("pi", Precision::i32, 1001), 0);
  EXPECT_EQ(kernel_host_bytes("no_such_kernel", Precision::i32, 1001), 0);
  EXPECT_THROW(kernel_work("no_such_kernel", Precision::i32, 1), UsageError);
}

TEST(WorkModel, EveryEntryHasAFamilyAndAValidation) {
  for (const auto& k : kernel_specs()) {
    EXPECT_FALSE(std::string(to_string(k.family)).empty()) << k.name;
    EXPECT_FALSE(k.validation.empty()) << k.name;
    EXPECT_FALSE(k.precisions.empty()) << k.name;
    EXPECT_EQ(kernel_family(k.name, nullptr), to_string(k.family)) << k.name;
  }
  // A wing's own studies take their backend's family.
  BackendEntry study;
  study.own_family = "study";
  study.kernels = {"transfer_pinned"};
  EXPECT_EQ(kernel_family("transfer_pinned", &study), "study");
  EXPECT_EQ(kernel_family("transfer_pinned", nullptr), "");
  // Only the kernels it runs: another wing's kernel is not given this backend's family.
  EXPECT_EQ(kernel_family("py_count_racy", &study), "");
}

}  // namespace
}  // namespace parlab
