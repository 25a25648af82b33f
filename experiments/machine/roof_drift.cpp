// The end probe: a run's CPU bandwidth roofs measured again, and its records graded against the
// highest measurement with an interval (docs/ceilings.md, "The end probe").
#include "experiments/machine/roof_drift.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "core/ceilings_cpu.hpp"
#include "core/error.hpp"
#include "core/roof.hpp"
#include "experiments/io/numbers.hpp"
#include "experiments/io/terminal.hpp"
#include "experiments/machine/ceilings.hpp"
#include "experiments/machine/limit.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The CPU bandwidth roof a name spells, as its base and scope; nullopt for any other name.
std::optional<std::pair<CpuRoof, ThreadScope>> bandwidth_roof(const std::string& name) {
  const std::optional<RoofKey> key = roof_key_from_name(name);
  if (!key) return std::nullopt;
  for (const CpuRoof base : kCpuRoofs) {
    if (!bandwidth_kernel(base)) continue;
    for (const ThreadScope scope : kThreadScopes) {
      if (roof_key(base, scope) == *key) return std::pair{base, scope};
    }
  }
  return std::nullopt;
}

// A positive finite number at `key` of object `j`, else nullopt: a context read back by resume is
// the user's file.
std::optional<double> positive(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

// A measured roof entry of `ceilings` by name, with a positive value; null otherwise.
const json* measured(const json& ceilings, const std::string& name) {
  if (!ceilings.is_object() || !ceilings.contains("roofs") || !ceilings["roofs"].is_object()) return nullptr;
  const json& roofs = ceilings["roofs"];
  const auto it = roofs.find(name);
  if (it == roofs.end() || !it->is_object() || it->value("method", "") != "measured" || !positive(*it, "value")) {
    return nullptr;
  }
  return &*it;
}

// The measured bandwidth roofs among `names`, by the threads each was measured at.
std::map<int, std::vector<std::string>> by_threads(const json& ceilings, const std::vector<std::string>& names) {
  std::map<int, std::vector<std::string>> out;
  for (const std::string& name : names) {
    if (const json* r = measured(ceilings, name); r != nullptr && bandwidth_roof(name)) {
      out[std::max(1, r->value("threads", 1))].push_back(name);
    }
  }
  return out;
}

// Seconds the end probe should take, from the start's values: each thread count's arrays first
// touched (page faults: taken at a quarter of the roof's rate) and every sweep of each kernel.
double estimate_seconds(const json& ceilings, const std::map<int, std::vector<std::string>>& groups,
                        const BandwidthProbePlan& plan) {
  double s = 0, sum_sets = 0;
  for (const std::uint64_t ws : plan.working_sets) sum_sets += static_cast<double>(ws);
  const double largest = static_cast<double>(plan.working_sets.back());
  for (const auto& [threads, names] : groups) {
    double slowest = 0;
    for (const std::string& name : names) {
      const double v = (*measured(ceilings, name))["value"].get<double>();
      slowest = slowest == 0 ? v : std::min(slowest, v);
      s += (plan.reps + 1) * sum_sets / v;
    }
    s += (1 + 1.0 / 2 + 1.0 / 3) * largest / (slowest / 4);  // a, c and b (BandwidthProbe)
  }
  return s;
}

}  // namespace

std::vector<std::string> binding_bandwidth_roofs(const std::vector<Record>& records, const json& ceilings) {
  std::set<std::string> out;
  for (const Record& r : records) {
    if (r.status != RecordStatus::ok || !r.limit.is_object()) continue;
    const json& limit = r.limit;
    if (!limit.contains("roof") || !limit["roof"].is_string()) continue;
    const auto roof = bandwidth_roof(limit["roof"].get<std::string>());
    if (!roof) continue;
    // A scaled roof is min(all-cores, threads x one-core) (limit.cpp, cpu_roof_at): either may bind
    // once measured again.
    if (limit.contains("basis")) {
      for (const ThreadScope scope : kThreadScopes) out.insert(std::string(to_string(roof_key(roof->first, scope))));
    } else {
      out.insert(limit["roof"].get<std::string>());
    }
  }
  std::vector<std::string> names;
  for (const std::string& n : out) {
    if (measured(ceilings, n) != nullptr) names.push_back(n);
  }
  return names;
}

json measure_roofs_again(const json& ceilings, const std::vector<std::string>& names, std::ostream& log) {
  const auto t0 = Clock::now();
  const std::string when = utc_now_text();
  const bool quick = ceilings.value("quick", false);
  const BandwidthProbePlan plan = bandwidth_probe_plan(last_level_cache_sysfs(), quick);
  // One probe (its arrays allocated and touched once) per thread count, as `parlab ceilings` does.
  json roofs = json::object(), unavailable = json::object();
  for (const auto& [threads, group] : by_threads(ceilings, names)) {
    try {
      BandwidthProbe probe(threads, plan.working_sets.back());
      for (const std::string& name : group) {
        const auto [base, scope] = *bandwidth_roof(name);
        const ProbeResult p = probe.measure(*bandwidth_kernel(base), plan.working_sets, plan.reps);
        const Roof roof{roof_key(base, scope), p.value, "bytes/s", "measured",
                        p.how + plan.note + "; measured again at the run's end",
                        threads, "cpu", {}, p.samples};
        json j = roof_json(roof, when);
        const double start = (*measured(ceilings, name))["value"].get<double>();
        j["start"] = start;
        j["drift"] = p.value / start - 1;
        roofs[name] = j;
        log << "parlab: " << name << ": " << human_figure(start, "bytes/s") << " at the start, "
            << human_figure(p.value, "bytes/s") << " at the end (" << (p.value >= start ? "+" : "")
            << fixed(100 * (p.value / start - 1), 1) << "%)";
        // A roof that moved this much within one run was not the machine's: the cached set, or
        // this end, was measured beside other work.
        if (std::abs(p.value / start - 1) > kRoofDriftRemeasure) {
          log << ": over " << fixed(100 * kRoofDriftRemeasure, 0)
              << "%; measure the roofs again on a quiet machine (parlab ceilings --remeasure)";
        }
        log << "\n";
      }
    } catch (const std::exception& e) {
      // Pinning or memory refused: the start's roofs stand, and the block says why.
      for (const std::string& name : group) {
        if (!roofs.contains(name)) unavailable[name] = std::string("not measured again: ") + e.what();
      }
    }
  }
  json block = {{"measured_utc", when},
                {"seconds", std::chrono::duration<double>(Clock::now() - t0).count()},
                {"roofs", roofs},
                {"unavailable", unavailable}};
  if (quick) block["quick"] = true;
  return block;
}

json ceilings_at(const json& ceilings, const json& ceilings_end, RoofEnd which) {
  json out = ceilings;
  if (!ceilings_end.is_object() || !ceilings_end.contains("roofs") || !ceilings_end["roofs"].is_object()) return out;
  for (const auto& [name, end] : ceilings_end["roofs"].items()) {
    const json* start = measured(ceilings, name);
    const std::optional<double> v = positive(end, "value");
    if (start == nullptr || !v) continue;
    const double s = (*start)["value"].get<double>();
    if (which == RoofEnd::highest ? *v > s : *v < s) {
      json roof = end;
      roof.erase("start");
      roof.erase("drift");
      out["roofs"][name] = roof;
    }
  }
  return out;
}

json graded_limit(const Record& r, const json& context) {
  const auto c = context.find("ceilings");
  if (c == context.end() || !c->is_object()) return json();
  const json& ceilings = *c;
  const auto end_it = context.find("ceilings_end");
  if (end_it == context.end() || !end_it->is_object()) return record_limit(r, ceilings);
  const json& end = *end_it;
  json limit = record_limit(r, ceilings_at(ceilings, end, RoofEnd::highest));
  if (!limit.is_object() || !limit.contains("roof") || !limit["roof"].is_string()) return limit;
  if (!end.contains("roofs") || !end["roofs"].is_object() || !end["roofs"].contains(limit["roof"].get<std::string>())) {
    return limit;  // its roof was not measured again: no drift to widen the share by
  }
  const json low_roof = record_limit(r, ceilings_at(ceilings, end, RoofEnd::lowest));
  const Spread t = r.times ? r.times->time_s : Spread{};
  const std::optional<double> value = positive(limit, "value"), attained = positive(limit, "attained");
  const std::optional<double> roof_low = positive(low_roof, "value");
  if (!(t.median > 0) || !(t.q1 > 0) || !(t.q3 > 0) || !value || !attained || !roof_low) return limit;
  // The rate at a time's quartile is work / that time: attained (work / median) x median / q.
  const double low = *attained * t.median / t.q3 / *value;
  const double high = *attained * t.median / t.q1 / *roof_low;
  limit["interval"] = {{"low", low}, {"high", high}, {"roof_low", *roof_low}};
  if (limit.contains("above_roof")) {
    if (low > 1) {
      limit["above_roof"] = limit["above_roof"].get<std::string>() + "; its whole interval (" + fixed(low, 2) +
                            " to " + fixed(high, 2) + ") is above the highest roof measured in the run";
    } else {
      limit.erase("above_roof");  // its interval reaches 1: it does not read above its roof
    }
  }
  return limit;
}

bool grade_with_end_probe(std::vector<Record>& records, json& context, std::ostream& log, bool quiet) {
  if (!context.is_object() || !context.contains("ceilings") || !context["ceilings"].is_object()) return false;
  const json& ceilings = context["ceilings"];
  const std::vector<std::string> names = binding_bandwidth_roofs(records, ceilings);
  if (names.empty()) return false;
  const double estimate =
      estimate_seconds(ceilings, by_threads(ceilings, names),
                       bandwidth_probe_plan(last_level_cache_sysfs(), ceilings.value("quick", false)));
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  std::ostringstream quiet_log;
  std::ostream& out = quiet ? quiet_log : log;
  out << hanging("parlab: ",
                 "measuring the bandwidth roofs again (about " + fixed(std::max(estimate, 0.1), 1) + " s): " + list +
                     "; each record is graded against the higher of the two measurements",
                 terminal_width())
      << "\n";
  context["ceilings_end"] = measure_roofs_again(ceilings, names, out);
  for (Record& r : records) r.limit = graded_limit(r, context);
  return true;
}

}  // namespace parlab
