// The catalogue's work model is the one place a kernel's work is written (issue 20, item 2):
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

namespace parlab {
namespace {

// Small odd shapes: every code path (tails, partial tiles) and a quick run on every backend.
Problem small_problem(const std::string& kernel, Precision precision) {
  Problem p;
  p.kernel = kernel;
  p.precision = precision;
  p.seed = 7;
  const KernelSpec* k = find_kernel(kernel);
  if (kernel == "add2d") {
    p.size = 67;
    p.size_y = 45;
  } else if (kernel == "matmul") {
    p.size = 37;
  } else if (k != nullptr && k->family == KernelFamily::overhead) {
    p.size = 3;
  } else {
    p.size = 1001;
  }
  return p;
}

void expect_work_eq(const WorkCount& got, const WorkCount& want, const std::string& what) {
  EXPECT_EQ(got.samples, want.samples) << what;
  EXPECT_EQ(got.bytes, want.bytes) << what;
  EXPECT_EQ(got.flops, want.flops) << what;
}

// Every catalogue kernel an available backend of `kind` runs, at each of its precisions: the
// workload's work after one run equals the catalogue's model. Returns how many were checked.
int check_backends_of_kind(const std::string& kind, const std::vector<std::string>& skip = {}) {
  int checked = 0;
  for (const auto& e : test::registry().entries()) {
    if (e.kind != kind || !e.available) continue;
    if (std::find(skip.begin(), skip.end(), e.name) != skip.end()) continue;
    for (const std::string& kernel : e.kernels) {
      const KernelSpec* spec = find_kernel(kernel);
      if (spec == nullptr) continue;  // a wing's own study: no catalogue model
      for (const Precision precision : spec->precisions) {
        Problem p = small_problem(kernel, precision);
        p.threads = e.sweeps_threads ? 3 : 1;
        const std::string what = e.name + " " + kernel + " " + to_string(precision);
        std::unique_ptr<Workload> w = e.make(p);
        if (w == nullptr) {
          ADD_FAILURE() << what << ": no workload";
          continue;
        }
        w->run();
        expect_work_eq(w->work(), kernel_work(p), what);
        EXPECT_TRUE(w->validate().pass) << what;
        ++checked;
      }
    }
  }
  return checked;
}

TEST(WorkModel, EveryCpuBackendsWorkIsTheCatalogues) {
  EXPECT_GT(check_backends_of_kind("cpu"), 0);
}

TEST(WorkModel, EveryGpuBackendsWorkIsTheCatalogues) {
  bool any = false;
  for (const auto& e : test::registry().entries()) any = any || (e.kind == "gpu" && e.available);
  if (!any) GTEST_SKIP() << "no CUDA device here: the GPU backends are checked on a GPU node";
  EXPECT_GT(check_backends_of_kind("gpu"), 0);
}

// The Python backends that run a catalogue kernel (pi, triad) in this process, cheaply: not those
// that spawn processes or clusters, compile with Numba, or need a GPU.
TEST(WorkModel, CheapPythonBackendsWorkIsTheCatalogues) {
  const std::vector<std::string> costly = {"py-processes", "py-dask-distributed", "py-numba-prange", "py-numba-nogil",
                                           "py-cupy", "py-torch"};
  bool any = false;
  for (const auto& e : test::registry().entries()) any = any || (e.kind == "python" && e.available);
  if (!any) GTEST_SKIP() << "no Python backend in this build";
  EXPECT_GT(check_backends_of_kind("python", costly), 0);
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
    expect_work_eq(kernel_work(c.kernel, c.precision, c.size, c.size_y), want, c.kernel);
  }
  // Host memory of a CPU workload (the suite's memory check).
  EXPECT_EQ(kernel_host_bytes("triad", Precision::f64, 1001), 3 * 8 * n);
  EXPECT_EQ(kernel_host_bytes("plus_one", Precision::i32, 1001), 2 * 4 * n);
  EXPECT_EQ(kernel_host_bytes("add2d", Precision::f32, 67, 45), 3.0 * 67 * 45 * 4);
  EXPECT_EQ(kernel_host_bytes("matmul", Precision::f32, 37), 3.0 * 37 * 37 * 4);
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
  study.study_family = "study";
  EXPECT_EQ(kernel_family("transfer_pinned", &study), "study");
  EXPECT_EQ(kernel_family("transfer_pinned", nullptr), "");
}

}  // namespace
}  // namespace parlab
