#include "experiments/plan/estimate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/spread.hpp"
#include "experiments/io/read.hpp"

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
  const KernelSpec* k = find_kernel(m.problem.kernel);
  if (k == nullptr) return 0.0;  // GPU and Python studies: no work model, no claim
  const bool gpu = backend.kind == BackendKind::gpu;
  const double lanes = gpu ? 1.0 : static_cast<double>(std::max(1, m.problem.threads));
  const WorkCount w = kernel_work(m.problem.kernel, m.problem.precision, m.problem.size, m.problem.size_y);
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

namespace {

using nlohmann::json;

// The fields that make two measurements the same work (a spec's, as records carry them), the
// repetitions and seed apart: the estimate scales by repetitions, and the seed changes no time.
std::string history_key(const json& r) {
  json k = json::object();
  for (const char* f : {"kernel", "backend", "threads", "size", "size_y", "precision", "device", "interpreter",
                        "python_gil", "ranks", "min_rep_seconds"}) {
    k[f] = r.contains(f) ? r[f] : json();
  }
  return k.dump();
}


}  // namespace

HistoryEstimate estimate_from_history(const Plan& plan, const Registry& registry, const std::filesystem::path& host_dir) {
  HistoryEstimate h;
  std::map<std::string, std::vector<double>> per_rep;  // key -> elapsed_s / (warmup + reps)
  std::vector<double> draws;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(host_dir, ec)) {
    // The `latest` link names a run already listed; a run being written has no finished records yet.
    if (entry.is_symlink(ec) || !entry.is_directory(ec)) continue;
    const std::filesystem::path file = entry.path() / "results.json";
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    json doc;
    try {
      doc = read_json_file(file, "earlier run");
    } catch (const Error&) {
      continue;  // an unreadable earlier run is no history, and no reason to refuse this plan
    }
    if (!doc.is_object() || !doc.contains("records") || !doc["records"].is_array() || !doc.contains("plan") ||
        !doc["plan"].is_array()) {
      continue;
    }
    ++h.runs_seen;
    if (doc.contains("report_s") && doc["report_s"].is_number()) draws.push_back(doc["report_s"].get<double>());
    const json& specs = doc["plan"];
    for (const json& r : doc["records"]) {
      // Keyed by the plan entry the record measured (its `id`), not by the record: a record of a
      // Python backend names the interpreter that ran it where its plan entry named none.
      if (!r.is_object() || !r.contains("elapsed_s") || !r["elapsed_s"].is_number() || !r.contains("id") ||
          !r["id"].is_number_unsigned() || r["id"].get<std::size_t>() >= specs.size()) {
        continue;
      }
      const json& spec = specs[r["id"].get<std::size_t>()];
      if (!spec.is_object()) continue;
      const json warmup = spec.value("warmup", json()), reps = spec.value("reps", json());
      const double runs = warmup.is_number() && reps.is_number() ? warmup.get<double>() + reps.get<double>() : 0.0;
      if (runs > 0) per_rep[history_key(spec)].push_back(r["elapsed_s"].get<double>() / runs);
    }
  }
  for (const auto& m : plan.specs) {
    const BackendEntry* be = registry.find(m.backend);
    if (be == nullptr || !be->available) continue;
    ++h.planned;
    json spec = to_json(m);
    const auto it = per_rep.find(history_key(spec));
    if (it != per_rep.end()) {
      ++h.matched;
      h.measure_s += spread_of(it->second)->median * static_cast<double>(m.warmup + m.reps);
    } else {
      h.measure_s += min_seconds(m, *be);
    }
  }
  if (!draws.empty()) h.draw_s = spread_of(draws)->median;
  return h;
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
