// The kernel catalogue: every canonical kernel parlab knows, its precisions and what --size
// counts, plus precision names.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stream.hpp"
#include "workload.hpp"

namespace parlab {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::f32: return "float";
    case Precision::f64: return "double";
    case Precision::i32: return "int32";
  }
  return "double";
}

std::optional<Precision> precision_from_name(std::string_view name) {
  if (name == "float" || name == "f32") return Precision::f32;
  if (name == "double" || name == "f64") return Precision::f64;
  if (name == "int32" || name == "i32") return Precision::i32;
  return std::nullopt;
}

const std::vector<KernelSpec>& kernel_specs() {
  static const std::vector<KernelSpec> specs = [] {
    std::vector<KernelSpec> s;
    s.push_back({"pi", KernelFamily::pi, {Precision::i32}, "samples"});
    for (const auto& k : kStreamKernels) {
      s.push_back({k.name, KernelFamily::stream, {Precision::f64, Precision::f32}, "elements"});
    }
    s.push_back({"plus_one", KernelFamily::seed, {Precision::i32}, "elements"});
    s.push_back({"add2d", KernelFamily::seed, {Precision::f32}, "nx (grid nx-by-ny, square by default)"});
    s.push_back({"matmul", KernelFamily::seed, {Precision::f32}, "n (n-by-n matrices)"});
    // The race lab: racy kernels and their always-exact counterparts (core/lab.hpp).
    s.push_back({"count_racy", KernelFamily::race, {Precision::i32}, "increments (load+store, loses updates)"});
    s.push_back({"count_atomic", KernelFamily::race, {Precision::i32}, "increments (atomic fetch_add)"});
    s.push_back({"count_local", KernelFamily::race, {Precision::i32}, "increments (per-chunk counters)"});
    s.push_back({"rng_shared", KernelFamily::race, {Precision::i32}, "pi samples from one shared generator"});
    s.push_back({"rng_counter", KernelFamily::race, {Precision::i32}, "pi samples from the counter-based stream"});
    s.push_back({"sum_order", KernelFamily::race, {Precision::f64}, "elements summed in completion order"});
    s.push_back({"sum_canonical", KernelFamily::race, {Precision::f64}, "elements summed by the canonical reduction"});
    // Scheduling overhead (EPCC style): `size` constructs per run.
    s.push_back({"overhead_empty", KernelFamily::overhead, {Precision::i32}, "empty fork-join regions"});
    s.push_back({"overhead_for", KernelFamily::overhead, {Precision::i32}, "parallel fors of 64 trivial iterations per thread"});
    s.push_back({"overhead_reduce", KernelFamily::overhead, {Precision::i32}, "reductions of one index per thread"});
    // Communication probes, OSU-style (mpi/): `size` operations per run over every rank.
    s.push_back({"mpi_barrier", KernelFamily::comm, {Precision::i32}, "MPI_Barrier calls"});
    s.push_back({"mpi_allreduce", KernelFamily::comm, {Precision::i32}, "8-byte MPI_Allreduce (sum) calls"});
    s.push_back({"mpi_bcast", KernelFamily::comm, {Precision::i32}, "8-byte MPI_Bcast calls from rank 0"});
    return s;
  }();
  return specs;
}

const KernelSpec* find_kernel(std::string_view name) {
  for (const auto& k : kernel_specs()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::vector<std::string> cpu_kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : kernel_specs()) {
    if (k.family != KernelFamily::comm) names.emplace_back(k.name);
  }
  return names;
}
}  // namespace parlab
