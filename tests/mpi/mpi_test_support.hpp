// What the MPI wing's test files share: the registry, the executors an MPI rank may run its share
// with, the thread counts each is checked at, a problem, and this job's layout. main() is
// test_mpi_kernels.cpp's: it starts MPI before any test runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/kernels.hpp"
#include "experiments/wiring/make_registry.hpp"
#include "mpi/runtime.hpp"
#include "mpi/workloads.hpp"

namespace parlab::mpi {

inline const Registry& registry() {
  static const Registry r = make_registry();
  return r;
}

// The CPU executors an MPI rank may run its share with, in this build: those of the available
// mpi+<executor> backends the registry lists (mpi/backends.cpp names them), not a list kept here.
inline std::vector<std::string> executors() {
  std::vector<std::string> out;
  for (const auto& e : registry().entries()) {
    if (e.kind != BackendKind::mpi || e.name == "mpi+cuda" || !e.available) continue;
    out.push_back(e.name.substr(std::string_view("mpi+").size()));
  }
  return out;
}

// Thread counts each executor is checked at (serial runs one thread only).
inline std::vector<int> thread_counts(const std::string& executor) {
  if (executor == "serial") return {1};
  return {1, 2};
}

inline Problem problem(const std::string& kernel, std::uint64_t n, int threads, Precision p = Precision::i32) {
  Problem pr;
  pr.kernel = kernel;
  pr.size = n;
  pr.threads = threads;
  pr.precision = p;
  pr.seed = 0x5eed;
  return pr;
}

inline const Layout& layout() { return Runtime::instance().layout(); }

}  // namespace parlab::mpi
