// Kernels complete by construction (docs/design.md, "The registry"): the catalogue is the one
// kernel list, each wing says in one table keyed by it which kernels it implements, and every
// backend x catalogue kernel is either implemented (the entry lists it; test_work_model.cpp runs
// it) or "not implemented by <backend>" (an UnavailableError, so an unavailable record), never
// another kernel's workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/kernel_table.hpp"
#include "core/workload.hpp"
#include "test_support.hpp"
#include "work_model_check.hpp"

namespace parlab {
namespace {

bool lists(const BackendEntry& e, std::string_view kernel) {
  return std::find(e.kernels.begin(), e.kernels.end(), kernel) != e.kernels.end();
}

// Every available backend x every catalogue kernel: implemented, or "not implemented by <backend>".
TEST(KernelCoverage, EveryBackendEitherImplementsACatalogueKernelOrSaysItDoesNot) {
  std::ostringstream matrix;
  int implemented = 0, not_implemented = 0;
  for (const auto& e : test::registry().entries()) {
    if (!e.available) continue;  // its make() says why it cannot run at all
    for (const KernelSpec& k : kernel_specs()) {
      const std::string kernel(k.name);
      if (lists(e, kernel)) {
        matrix << e.name << " x " << kernel << ": implemented\n";
        ++implemented;
        continue;
      }
      Problem p = test::small_problem(kernel, k.precisions.front());
      try {
        (void)e.make(p);
        ADD_FAILURE() << e.name << " made a workload for '" << kernel << "', which it does not list";
      } catch (const UnavailableError& err) {
        EXPECT_EQ(std::string(err.what()), "not implemented by " + e.name) << kernel;
      } catch (const std::exception& err) {
        ADD_FAILURE() << e.name << " x " << kernel << ": expected \"not implemented by " << e.name
                      << "\", got " << err.what();
      }
      matrix << e.name << " x " << kernel << ": unavailable: not implemented by " << e.name << "\n";
      ++not_implemented;
    }
  }
  EXPECT_GT(implemented, 0);
  EXPECT_GT(not_implemented, 0);  // the communication probes, at least, are MPI's alone
  RecordProperty("matrix", matrix.str());
}

// The CPU executors all run the CPU wing's table, and it covers every family but communication.
TEST(KernelCoverage, CpuBackendsRunTheCpuTable) {
  const std::vector<std::string> table = cpu_kernel_table().names();
  for (const KernelSpec& k : kernel_specs()) {
    const bool in_table = std::find(table.begin(), table.end(), k.name) != table.end();
    EXPECT_EQ(in_table, k.family != KernelFamily::comm) << k.name;
  }
  for (const auto& e : test::registry().entries()) {
    if (e.kind == BackendKind::cpu && e.available) {
      EXPECT_EQ(e.kernels, table) << e.name;
    }
  }
}

// Every catalogue kernel is implemented by some wing's table (a row no wing runs is dead).
TEST(KernelCoverage, EveryCatalogueKernelIsImplementedSomewhere) {
  for (const KernelSpec& k : kernel_specs()) {
    bool somewhere = false;
    for (const auto& e : test::registry().entries()) somewhere = somewhere || lists(e, k.name);
    EXPECT_TRUE(somewhere) << k.name << " is in the catalogue but no backend lists it";
  }
}

// A table row is keyed by the catalogue: a name it lacks is refused when the table is built.
TEST(KernelCoverage, ATableRefusesAKernelOutsideTheCatalogue) {
  KernelTable<int> t;
  EXPECT_THROW(t.kernel("no_such_kernel", 1), FailureError);
  t.family(KernelFamily::stream, 1).without("dot");
  EXPECT_NE(t.find("triad"), nullptr);
  EXPECT_EQ(t.find("dot"), nullptr);
  EXPECT_THROW((void)t.at("dot", "somewhere"), UnavailableError);
}

}  // namespace
}  // namespace parlab
