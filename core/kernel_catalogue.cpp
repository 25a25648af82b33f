// The kernel catalogue: every canonical kernel parlab knows, its family, precisions, what --size
// counts, its work model, its roofs and how it is validated, plus precision and family names.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "file_kernel.hpp"
#include "stream.hpp"
#include "user_kernels.hpp"
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

const char* to_string(KernelFamily f) {
  switch (f) {
    case KernelFamily::pi: return "pi";
    case KernelFamily::stream: return "stream";
    case KernelFamily::basic: return "basic";
    case KernelFamily::race: return "race";
    case KernelFamily::overhead: return "overhead";
    case KernelFamily::comm: return "comm";
    case KernelFamily::own: return kOwnKernelFamily;
  }
  return "pi";
}

double word_bytes(Precision p) { return p == Precision::f64 ? 8.0 : 4.0; }

// The catalogue: one entry per kernel, the one place its work model and its roofs (docs/ceilings.md,
// "Which roof") are written. STREAM's words, flops and roof per element are BabelStream's kernel
// table (kStreamKernels, stream.hpp), which the device code shares; the entries take them from there.
const std::vector<KernelSpec>& builtin_kernel_specs() {
  static const std::vector<KernelSpec> specs = [] {
    constexpr WorkShape line = WorkShape::line, grid = WorkShape::grid, cube = WorkShape::cube;
    // A count's work: `samples` per unit, nothing moved or computed for the rates.
    const WorkModel count{line, 1, 0, 0, 0};
    std::vector<KernelSpec> s;
    // pi is held against its multiplies: Philox4x32-10 makes 2 32x32->64-bit multiplies per round,
    // 10 rounds per call, one call per pair of points (10 per point, core/philox.hpp), and the hit
    // test squares both coordinates (2 per point, core/pi.hpp).
    s.push_back({"pi", KernelFamily::pi, {Precision::i32}, "samples", count,
                 "3 sigma; the same count every repetition and in every record of (seed, N)",
                 RoofModel::multiplies(10 + 2)});
    for (const auto& k : kStreamKernels) {
      // Three arrays of n words each are allocated, whatever the kernel touches.
      s.push_back({k.name, KernelFamily::stream, {Precision::f64, Precision::f32}, "elements",
                   {line, 0, static_cast<double>(k.words), static_cast<double>(k.flops), 3},
                   k.kernel == StreamKernel::dot ? "gold a.b.n within the type's tolerance; same bits every repetition"
                                                 : "arrays against BabelStream gold values",
                   RoofModel::bandwidth(k.roof)});
    }
    // The basic array kernels are held against bandwidth, as STREAM's: their flops never bind.
    // plus_one: read x, write y (int32); one integer add per element, counted as an operation.
    s.push_back({"plus_one", KernelFamily::basic, {Precision::i32}, "elements", {line, 0, 2, 1, 2}, "every element exact",
                 RoofModel::bandwidth(MemoryRoof::copy)});
    // add2d: read a and b, write res, one add per cell.
    s.push_back({"add2d", KernelFamily::basic, {Precision::f32}, "nx (grid nx-by-ny, square by default)", {grid, 0, 3, 1, 3},
                 "every element exact", RoofModel::bandwidth(MemoryRoof::triad)});
    // matmul: compulsory traffic (read A and B, write C: 3n^2 words) and 2n^3 flops; held against
    // its flops (n^2 words for n^3 flops: memory never binds). It allocates 4n^2: A, B, C and B's
    // packed copy (kernels.hpp, matmul_blocked).
    s.push_back({"matmul", KernelFamily::basic, {Precision::f32}, "n (n-by-n matrices)", {cube, 0, 3, 2, 4},
                 "sampled elements bit-equal to the naive k-ascending sum", RoofModel::fma()});
    // The race lab: racy kernels and their always-exact counterparts (core/lab.hpp). A racy
    // kernel passes whatever it returns; its exact counterpart fails on any deviation.
    const std::string_view racy = "trials against the exact answer; passes regardless (the race is the point)";
    const std::string_view exact = "trials against the exact answer; fails on any deviation";
    const RoofModel lab = RoofModel::none("a lab kernel: its rate is not the point");
    // The summing kernels allocate the values and a vector of ones (doubles).
    const WorkModel summed{line, 1, 0, 0, 2};
    s.push_back({"count_racy", KernelFamily::race, {Precision::i32}, "increments (load+store, loses updates)", count, racy, lab});
    s.push_back({"count_atomic", KernelFamily::race, {Precision::i32}, "increments (atomic fetch_add)", count, exact, lab});
    s.push_back({"count_local", KernelFamily::race, {Precision::i32}, "increments (per-chunk counters)", count, exact, lab});
    s.push_back({"rng_shared", KernelFamily::race, {Precision::i32}, "pi samples from one shared generator", count, racy, lab});
    s.push_back({"rng_counter", KernelFamily::race, {Precision::i32}, "pi samples from the counter-based stream", count, exact, lab});
    s.push_back({"sum_order", KernelFamily::race, {Precision::f64}, "elements summed in completion order", summed, racy, lab});
    s.push_back({"sum_canonical", KernelFamily::race, {Precision::f64}, "elements summed by the canonical reduction", summed, exact, lab});
    // Scheduling overhead (EPCC style): `size` constructs per run.
    const std::string_view done = "constructs completed (a reduction's count exact)";
    const RoofModel overhead = RoofModel::none("an overhead probe: its time is the runtime's, no resource's");
    s.push_back({"overhead_empty", KernelFamily::overhead, {Precision::i32}, "empty fork-join regions", count, done, overhead});
    s.push_back({"overhead_for", KernelFamily::overhead, {Precision::i32}, "parallel fors of 64 trivial iterations per thread", count, done, overhead});
    s.push_back({"overhead_reduce", KernelFamily::overhead, {Precision::i32}, "reductions of one index per thread", count, done, overhead});
    // Communication probes, OSU-style (mpi/): `size` operations per run over every rank.
    const std::string_view calls = "every call completed with the expected value";
    const RoofModel comm = RoofModel::none("a communication probe: its latency is the network's, no measured roof");
    s.push_back({"mpi_barrier", KernelFamily::comm, {Precision::i32}, "MPI_Barrier calls", count, calls, comm});
    s.push_back({"mpi_allreduce", KernelFamily::comm, {Precision::i32}, "8-byte MPI_Allreduce (sum) calls", count, calls, comm});
    s.push_back({"mpi_bcast", KernelFamily::comm, {Precision::i32}, "8-byte MPI_Bcast calls from rank 0", count, calls, comm});
    return s;
  }();
  return specs;
}

// parlab's own kernels, then those another project added before the catalogue was first read
// (core/user_kernels.hpp): from then on the catalogue, and every wing's table sized by it, is fixed.
const std::vector<KernelSpec>& kernel_specs() {
  static const std::vector<KernelSpec> specs = [] {
    std::vector<KernelSpec> s = builtin_kernel_specs();
    for (KernelSpec& k : user_kernel_specs()) s.push_back(std::move(k));
    freeze_user_kernels();
    return s;
  }();
  return specs;
}

namespace {

// Units of memory and of arithmetic of a shape at (size, size_y).
double memory_units(WorkShape shape, std::uint64_t size, std::uint64_t size_y) {
  const double n = static_cast<double>(size);
  switch (shape) {
    case WorkShape::line: return n;
    case WorkShape::grid: return n * static_cast<double>(size_y ? size_y : size);
    case WorkShape::cube: return n * n;
    case WorkShape::triangle: return n;
  }
  return n;
}

double arithmetic_units(WorkShape shape, std::uint64_t size, std::uint64_t size_y) {
  const double n = static_cast<double>(size);
  if (shape == WorkShape::triangle) return n * (n + 1) / 2;
  return shape == WorkShape::cube ? n * n * n : memory_units(shape, size, size_y);
}

}  // namespace

WorkCount kernel_work(std::string_view kernel, Precision precision, std::uint64_t size, std::uint64_t size_y) {
  const KernelSpec* k = find_kernel(kernel);
  if (k == nullptr) throw UsageError("unknown kernel '" + std::string(kernel) + "': no work model");
  const WorkModel& m = k->work;
  const double units = memory_units(m.shape, size, size_y);
  WorkCount w;
  w.samples = m.samples * units;
  w.bytes = m.words * word_bytes(precision) * units;
  w.flops = m.flops * arithmetic_units(m.shape, size, size_y);
  return w;
}

WorkCount kernel_work(const Problem& p) { return kernel_work(p.kernel, p.precision, p.size, p.size_y); }

double kernel_host_bytes(std::string_view kernel, Precision precision, std::uint64_t size, std::uint64_t size_y) {
  const KernelSpec* k = find_kernel(kernel);
  if (k == nullptr) return 0;
  return k->work.host_words * word_bytes(precision) * memory_units(k->work.shape, size, size_y);
}

std::optional<std::size_t> kernel_id(std::string_view name) {
  const auto& specs = kernel_specs();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == name) return i;
  }
  return std::nullopt;
}

const KernelSpec* find_kernel(std::string_view name) {
  const auto i = kernel_id(name);
  return i ? &kernel_specs()[*i] : nullptr;
}

std::string kernel_family(std::string_view kernel, const BackendEntry* backend) {
  if (const KernelSpec* k = find_kernel(kernel)) return to_string(k->family);
  // A person's own Python kernel file: drawn beside parlab's kernels, never with the labs'.
  if (is_file_kernel(kernel)) return kOwnKernelFamily;
  // A wing's own family covers only the kernels that backend runs: a record of another (an old
  // one given to `parlab migrate`, or one the backend does not implement) gets none.
  if (backend == nullptr) return {};
  const auto& runs = backend->kernels;
  return std::find(runs.begin(), runs.end(), kernel) != runs.end() ? backend->own_family : std::string();
}
}  // namespace parlab
