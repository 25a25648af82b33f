#include "experiments/plan/estimate.hpp"

#include <algorithm>
#include <cstdio>

namespace parlab {
namespace {

// Optimistic rates, each several times the best parlab has measured (one AVX-512 core counts
// 2.7e9 pi samples/s, an H200 4.8e11; one core streams under 5e10 B/s, an H200 4.4e12), so the
// estimate stays a lower bound on faster machines too.
constexpr double kPiSamplesPerThread = 1e10;
constexpr double kPiSamplesPerGpu = 5e12;
constexpr double kBytesPerThread = 2e11;
constexpr double kBytesPerGpu = 5e13;
constexpr double kFlopsPerThread = 2e11;
constexpr double kFlopsPerGpu = 5e15;
constexpr double kCountsPerThread = 1e10;  // race-lab increments, overhead probes

// Seconds of one run of the kernel at the optimistic rate: the catalogue's work model (kernel_work)
// over the fastest rate of each kind of work it does, the slowest of them bounding the run.
double one_run_seconds(const MeasurementSpec& m, const BackendEntry& backend) {
  const KernelSpec* k = find_kernel(m.kernel);
  if (k == nullptr) return 0.0;  // GPU and Python studies: no work model, no claim
  const bool gpu = backend.kind == BackendKind::gpu;
  const double lanes = gpu ? 1.0 : static_cast<double>(std::max(1, m.threads));
  const WorkCount w = kernel_work(m.kernel, m.precision, m.size, m.size_y);
  const double samples_rate =
      k->family == KernelFamily::pi ? (gpu ? kPiSamplesPerGpu : kPiSamplesPerThread) : kCountsPerThread;
  return std::max({w.samples / samples_rate, w.bytes / (gpu ? kBytesPerGpu : kBytesPerThread),
                   w.flops / (gpu ? kFlopsPerGpu : kFlopsPerThread)}) /
         lanes;
}

}  // namespace

double min_seconds(const MeasurementSpec& m, const BackendEntry& backend) {
  const double run = one_run_seconds(m, backend);
  const double timed = std::max(run, m.min_rep_seconds) * m.reps;
  return static_cast<double>(m.warmup) * run + timed;
}

double min_seconds(const Plan& plan, const Registry& registry) {
  double total = 0;
  for (const auto& m : plan.specs) {
    if (const BackendEntry* be = registry.find(m.backend); be != nullptr && be->available) total += min_seconds(m, *be);
  }
  return total;
}

std::string format_duration(double s) {
  char buf[64];
  if (s < 120) {
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  } else if (s < 7200) {
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  } else if (s < 2 * 86400) {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  } else if (s < 365.25 * 86400) {
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  } else {
    std::snprintf(buf, sizeof buf, "%.2g years", s / (365.25 * 86400));
  }
  return buf;
}

}  // namespace parlab
