// The work-model check shared by tests/test_work_model.cpp (CPU and GPU backends) and
// tests/embed/test_work_model_python.cpp (Python backends, run where the embedded interpreter's
// tests are configured: one CPython per process, its LeakSanitizer suppressions).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/workload.hpp"

namespace parlab::test {

// Small odd shapes: every code path (tails, partial tiles) and a quick run on every backend.
inline Problem small_problem(const std::string& kernel, Precision precision) {
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

inline void expect_work_eq(const WorkCount& got, const WorkCount& want, const std::string& what) {
  EXPECT_EQ(got.samples, want.samples) << what;
  EXPECT_EQ(got.bytes, want.bytes) << what;
  EXPECT_EQ(got.flops, want.flops) << what;
}

// Every catalogue kernel an available backend of `kind` runs, at each of its precisions: the
// workload's work after one run equals the catalogue's model. Returns how many were checked.
inline int check_backends_of_kind(const Registry& registry, BackendKind kind,
                                  const std::vector<std::string>& skip = {}) {
  int checked = 0;
  for (const auto& e : registry.entries()) {
    if (e.kind != kind || !e.available) continue;
    if (std::find(skip.begin(), skip.end(), e.name) != skip.end()) continue;
    for (const std::string& kernel : e.kernels) {
      const KernelSpec* spec = find_kernel(kernel);
      if (spec == nullptr) continue;  // a wing's own study: no catalogue model
      for (const Precision precision : spec->precisions) {
        Problem p = small_problem(kernel, precision);
        p.threads = e.sweeps_threads ? 3 : 1;
        const std::string what = e.name + " " + kernel + " " + to_string(precision);
        // As the runner does: a backend that finds at make() or run() that it cannot run here
        // (NumPy missing from a free-threaded interpreter) is unavailable, not wrong.
        std::unique_ptr<Workload> w;
        try {
          w = e.make(p);
          if (w != nullptr) w->run();
        } catch (const UnavailableError&) {
          continue;
        }
        if (w == nullptr) {
          ADD_FAILURE() << what << ": no workload";
          continue;
        }
        expect_work_eq(w->work(), kernel_work(p), what);
        EXPECT_TRUE(w->validate().pass) << what;
        ++checked;
      }
    }
  }
  return checked;
}

}  // namespace parlab::test
