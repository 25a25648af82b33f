// parlab/kernel.hpp: the contract a kernel of another project is written against.
//
// A project that installs parlab (`cmake --install`, or the .deb) writes its kernel in one source
// file against this header, links the CMake package's target and gets a binary with parlab's
// whole command line (`list`, `run`, `report`, ...), where its kernel runs on every CPU executor
// parlab has (serial, threads, pool, tbb, openmp and each openmp-* schedule) and its records carry
// the same spread, roof share, workers block and efficiency hierarchy as parlab's own:
//
//   find_package(parlab CONFIG REQUIRED)
//   add_executable(mykernel mykernel.cpp)
//   target_link_libraries(mykernel PRIVATE parlab::harness)
//
//   int main(int argc, char** argv) { return parlab::main(argc, argv, {my_kernel()}); }
//
// This header is the whole contract: it includes nothing else of parlab's, and nothing a person
// writes depends on parlab's internal headers. docs/your-kernel.md describes it with an example
// (examples/cpp-triangular/).
//
// How a run goes, for one executor, thread count and size n:
//   1. setup(n, seed) makes an Instance, outside any timed region. parlab then computes the
//      one-worker result: every block's body on the calling thread, combined as in 3.
//   2. Each timed run cuts [0, n) into fixed blocks of `block` items, whatever the executor and
//      thread count, and hands whole blocks to the executor; body(begin, end) is called once per
//      block, concurrently on disjoint blocks.
//   3. The block partials are summed pairwise in block order (((p0+p1)+(p2+p3))+...), the tree
//      parlab's own deterministic dot uses, so the result does not depend on the partition: a
//      kernel whose body is a pure function of its block gives the same bits on every executor.
//   4. Every run's result is held against the one-worker result: bit for bit when `tolerance` is
//      0, else within that relative tolerance. A run that differs fails the record (a kernel that
//      races: FAILED, exit 1), with the spread of its results over the repetitions as metrics.
//      Then check(result) judges the last result against what the kernel knows it must be.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace parlab {

// The version of this contract; a binary built against another is refused at start-up.
inline constexpr int kKernelApiVersion = 1;

// The measured roof that binds the kernel (docs/ceilings.md, "Which roof"): the bandwidth of its
// access pattern (read only; one stream read and one written; two or more read and one written),
// or the double-precision FMA rate. `none` needs a reason (Work::no_bound).
enum class Bound { none, memory_read, memory_copy, memory_triad, flops };

// How the arithmetic grows with n: `linear`, flops_per_item per item; `triangular`, item i costs
// i + 1 units of flops_per_item each (n (n + 1) / 2 units in all: an inner loop over j <= i).
// Bytes always count per item.
enum class Growth { linear, triangular };

// The work model: what one run must do, so that its rate is a rate of work and a roof applies.
struct Work {
  double bytes_per_item = 0;       // bytes read + written per item (the bandwidth roofs' work)
  double flops_per_item = 0;       // floating-point operations per item (or per unit, triangular)
  Growth growth = Growth::linear;
  Bound bound = Bound::none;
  std::string no_bound;            // why no roof bounds it; required when bound is none
  double host_bytes_per_item = 0;  // memory setup allocates per item (the plan's memory check)
};

// A check's verdict: `detail` says what was checked, or why it failed.
struct Verdict {
  bool pass = true;
  std::string detail;
};

// One prepared instance of the kernel at one size: its data, allocated and filled by setup.
// Destroyed when the measurement ends (RAII: release everything in the destructor).
class Instance {
 public:
  virtual ~Instance() = default;
  // The work of items [begin, end), returning the range's partial of the reduction (0 when the
  // kernel reduces nothing). Called concurrently on disjoint ranges by parlab's executors, and
  // again for every repetition: it must be safe to repeat. An exception thrown here fails the
  // record with its message.
  virtual double body(std::uint64_t begin, std::uint64_t end) = 0;
  // Whether `result` (the whole run's reduction) is right: against a closed form, a sample of the
  // output, or whatever the kernel knows.
  virtual Verdict check(double result) = 0;
};

struct Kernel {
  std::string name;                    // its name in `list kernels` and records: [a-z0-9_]+
  std::string size_meaning = "items";  // what --size counts
  std::string validation;              // how check() judges a result (shown by `list kernels`)
  Work work;
  std::uint64_t block = 1024;          // items per fixed block: the reduction's grain, >= 1
  double tolerance = 0;                // allowed relative deviation from the one-worker result
  // Makes the instance for n items and the run's --seed. May throw std::exception: the record
  // fails with its message.
  std::function<std::unique_ptr<Instance>(std::uint64_t n, std::uint64_t seed)> setup;
};

namespace harness {
// What parlab::main calls; `data_dir` is the installed share/parlab the package was found with.
int run_main(int argc, char** argv, std::vector<Kernel> kernels, const char* data_dir, int api_version);
}  // namespace harness

// Where the package's data (suites, report scripts, schema) lies; the CMake package defines it.
#ifndef PARLAB_PACKAGE_DATA_DIR
#define PARLAB_PACKAGE_DATA_DIR ""
#endif

// parlab's command line with `kernels` added to its catalogue: call it from the binary's main.
// Exit codes are parlab's (0 ok, 1 a failed or unavailable measurement, 2 usage); a kernel that
// is not well formed (an empty or taken name, no setup, block 0, a negative tolerance, no bound and
// no reason) is refused with exit 2 before anything runs.
inline int main(int argc, char** argv, std::vector<Kernel> kernels) {
  return harness::run_main(argc, argv, std::move(kernels), PARLAB_PACKAGE_DATA_DIR, kKernelApiVersion);
}

}  // namespace parlab
