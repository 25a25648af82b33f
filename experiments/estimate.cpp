#include "estimate.hpp"

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

// Seconds of one run of the kernel at the optimistic rate.
double one_run_seconds(const MeasurementSpec& m, const BackendEntry& backend) {
  const bool gpu = backend.kind == "gpu";
  const double lanes = gpu ? 1.0 : static_cast<double>(std::max(1, m.threads));
  const double n = static_cast<double>(m.size);
  const double elem = m.precision == Precision::f64 ? 8.0 : 4.0;
  const KernelSpec* k = find_kernel(m.kernel);
  if (k == nullptr) return 0.0;  // GPU and Python studies: no work model, no claim
  switch (k->family) {
    case KernelFamily::pi: return n / ((gpu ? kPiSamplesPerGpu : kPiSamplesPerThread) * lanes);
    case KernelFamily::race:
    case KernelFamily::overhead:
    case KernelFamily::comm: return n / (kCountsPerThread * lanes);
    case KernelFamily::stream:  // every STREAM kernel moves at least two words per element
      return 2.0 * elem * n / ((gpu ? kBytesPerGpu : kBytesPerThread) * lanes);
    case KernelFamily::seed: {
      const double rate = (gpu ? kBytesPerGpu : kBytesPerThread) * lanes;
      if (m.kernel == "plus_one") return 8.0 * n / rate;
      if (m.kernel == "add2d") return 12.0 * n * static_cast<double>(m.size_y ? m.size_y : m.size) / rate;
      return 2.0 * n * n * n / ((gpu ? kFlopsPerGpu : kFlopsPerThread) * lanes);  // matmul
    }
  }
  return 0.0;
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
