#include "experiments/run/pool_rounds.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>

#include "core/error.hpp"
#include "core/spread.hpp"
#include "experiments/io/spread_json.hpp"
#include "experiments/machine/roof_drift.hpp"
#include "experiments/machine/worker_causes.hpp"

namespace parlab {

using nlohmann::json;

namespace {

// What the records of one measurement have in common but their round: its plan entry but the
// round, and the kernel file's identity where the kernel is a file.
std::string measurement_key(const Record& r) {
  MeasurementSpec spec = r.spec;
  spec.round = 0;
  return to_json(spec).dump() + "\x1f" + r.kernel_file;
}

bool finite_positive(double x) { return std::isfinite(x) && x > 0; }

// A round's repetitions, each a finite positive time, or nothing.
std::optional<std::vector<double>> reps_of(const Record& r) {
  if (!r.times || r.times->reps_s.empty()) return std::nullopt;
  for (double x : r.times->reps_s) {
    if (!finite_positive(x)) return std::nullopt;
  }
  return r.times->reps_s;
}

// Runs per repetition: a count from 1 to 2^53 (any double holds it exactly), else 1.
double inner_of(const Record& r) {
  const double x = r.times ? static_cast<double>(r.times->inner) : 1.0;
  return x >= 1 && x <= 9007199254740992.0 ? x : 1.0;
}

bool failed(const Record& r) {
  return r.status != RecordStatus::ok || (r.validation && !r.validation->pass);
}

// The rounds' medians differ by more than kUnstableCv: the slowest over the fastest.
std::string rounds_disagree(const std::vector<double>& medians) {
  if (medians.size() < 2) return {};
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  const double by = *hi / *lo - 1;
  if (!(by > kUnstableCv)) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "rounds differ by %.0f%%, over %.0f%%", 100 * by, 100 * kUnstableCv);
  return buf;
}

// Each round's per-worker array, weighted by the rounds' runs; empty where a round's has another length.
std::vector<double> weighted(const std::vector<RoundWorkers>& rounds, double total_runs,
                             const std::vector<double>& (*get)(const RoundWorkers&)) {
  const std::size_t n = get(rounds.front()).size();
  std::vector<double> out(n, 0.0);
  for (const auto& r : rounds) {
    const auto& a = get(r);
    if (a.size() != n) return {};
    for (std::size_t i = 0; i < n; ++i) out[i] += a[i] * r.runs / total_runs;
  }
  return out;
}

FactorRange range_of(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

std::optional<Disturbance> pool_disturbance(const std::vector<RoundWorkers>& rounds, double total_runs,
                                            const std::vector<double>& busy_s) {
  for (const auto& r : rounds) {
    if (!r.workers.disturbance) return std::nullopt;
  }
  const auto& first = *rounds.front().workers.disturbance;
  Disturbance d;
  d.runnable_source = first.runnable_source;
  bool delays = true, others = true;
  double window = 0;
  for (const auto& r : rounds) {
    const auto& x = *r.workers.disturbance;
    if (x.runnable_source != first.runnable_source) d.runnable_source = "unavailable";
    delays = delays && x.run_delay_s.has_value();
    others = others && x.others.has_value();
    window += x.window_s;
  }
  d.window_s = window;
  d.runnable_s = weighted(rounds, total_runs, [](const RoundWorkers& r) -> const std::vector<double>& {
    return r.workers.disturbance->runnable_s;
  });
  if (delays) {
    d.run_delay_s = weighted(rounds, total_runs, [](const RoundWorkers& r) -> const std::vector<double>& {
      return *r.workers.disturbance->run_delay_s;
    });
  }
  for (const auto& r : rounds) d.switches += r.workers.disturbance->switches * r.runs / total_runs;
  // Rounds measured with different sources say nothing together.
  if (d.runnable_source == "unavailable" && first.runnable_source != "unavailable") {
    d.runnable_s.assign(d.runnable_s.size(), 0.0);
    if (d.run_delay_s) d.run_delay_s->assign(d.run_delay_s->size(), 0.0);
  }
  const double runnable = std::accumulate(d.runnable_s.begin(), d.runnable_s.end(), 0.0);
  const double busy = std::accumulate(busy_s.begin(), busy_s.end(), 0.0);
  d.runnable_share = busy > 0 ? runnable / busy : 0.0;
  // Each CPU's shares over the windows of the rounds that ran on it; others over every window.
  std::map<int, std::array<double, 3>> cpus;  // id -> {window, steal x window, busy x window}
  for (const auto& r : rounds) {
    const auto& x = *r.workers.disturbance;
    for (std::size_t k = 0; k < x.cpus.size() && k < x.steal.size() && k < x.busy.size(); ++k) {
      auto& c = cpus[x.cpus[k]];
      c[0] += x.window_s;
      c[1] += x.steal[k] * x.window_s;
      c[2] += x.busy[k] * x.window_s;
    }
  }
  for (const auto& [id, c] : cpus) {
    d.cpus.push_back(id);
    d.steal.push_back(c[0] > 0 ? c[1] / c[0] : 0.0);
    d.busy.push_back(c[0] > 0 ? c[2] / c[0] : 0.0);
  }
  if (others && window > 0) {
    double sum = 0;
    for (const auto& r : rounds) sum += *r.workers.disturbance->others * r.workers.disturbance->window_s;
    d.others = sum / window;
  }
  return d;
}

}  // namespace

std::optional<Workers> pool_workers(const std::vector<RoundWorkers>& rounds) {
  if (rounds.empty()) return std::nullopt;
  const Workers& first = rounds.front().workers;
  bool any_on = false, all_on = true;
  double total_runs = 0;
  for (const auto& r : rounds) {
    if (r.workers.count != first.count) return std::nullopt;
    any_on = any_on || r.workers.accounting;
    all_on = all_on && r.workers.accounting;
    total_runs += r.runs;
  }
  if (!any_on) return first;
  if (!all_on || !(total_runs > 0)) return std::nullopt;

  Workers w;
  w.accounting = true;
  w.count = first.count;
  for (const auto& r : rounds) {
    if (r.workers.overhead) w.overhead = std::max(w.overhead.value_or(0.0), *r.workers.overhead);
    w.runtime_s += r.workers.runtime_s * r.runs / total_runs;
    w.unattributed_chunks += r.workers.unattributed_chunks;
  }
  using Get = const std::vector<double>& (*)(const RoundWorkers&);
  const auto per_worker = [&](Get get) { return weighted(rounds, total_runs, get); };
  w.busy_s = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.busy_s; });
  w.cpu_s = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.cpu_s; });
  w.items = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.items; });
  w.chunks = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.chunks; });
  w.switches = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.switches; });
  const auto n = static_cast<std::size_t>(first.count);
  if (w.busy_s.size() != n || w.cpu_s.size() != n) return std::nullopt;
  // The CPUs each worker ran on, in any round.
  w.cpus.resize(first.cpus.size());
  for (const auto& r : rounds) {
    for (std::size_t k = 0; k < r.workers.cpus.size() && k < w.cpus.size(); ++k) {
      std::set<int> ids(w.cpus[k].begin(), w.cpus[k].end());
      ids.insert(r.workers.cpus[k].begin(), r.workers.cpus[k].end());
      w.cpus[k].assign(ids.begin(), ids.end());
    }
  }
  w.ranks = first.ranks;
  w.hosts = first.hosts;

  // POP per execution over the pooled repetitions.
  bool paired = true;
  std::vector<double> reps;
  for (const auto& r : rounds) {
    paired = paired && !r.reps_s.empty() && r.workers.load_balance.size() == r.reps_s.size() &&
             r.workers.communication.size() == r.reps_s.size();
    w.load_balance.insert(w.load_balance.end(), r.workers.load_balance.begin(), r.workers.load_balance.end());
    w.communication.insert(w.communication.end(), r.workers.communication.begin(), r.workers.communication.end());
    reps.insert(reps.end(), r.reps_s.begin(), r.reps_s.end());
  }
  if (paired && !reps.empty()) {
    std::vector<std::size_t> order(reps.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return reps[a] < reps[b]; });
    const std::size_t m = order[(order.size() - 1) / 2];
    std::vector<double> parallel(reps.size());
    for (std::size_t i = 0; i < reps.size(); ++i) parallel[i] = w.load_balance[i] * w.communication[i];
    PopFigures p;
    p.per_execution = true;
    p.rep = static_cast<int>(m);
    p.runtime_s = reps[m];
    p.load_balance = w.load_balance[m];
    p.communication = w.communication[m];
    p.parallel = parallel[m];
    p.useful_s = p.parallel * static_cast<double>(w.count) * p.runtime_s;
    p.load_balance_range = range_of(w.load_balance);
    p.communication_range = range_of(w.communication);
    p.parallel_range = range_of(parallel);
    w.pop = p;
  }
  w.disturbance = pool_disturbance(rounds, total_runs, w.busy_s);

  bool counted = true;
  for (const auto& r : rounds) counted = counted && r.workers.counters && r.workers.counters->available;
  if (counted) {
    WorkerCounters c;
    c.available = true;
    c.instructions = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.counters->instructions; });
    c.cycles = per_worker([](const RoundWorkers& r) -> const std::vector<double>& { return r.workers.counters->cycles; });
    w.counters = std::move(c);
  } else {
    for (const auto& r : rounds) {
      if (r.workers.counters && !r.workers.counters->available) {
        w.counters = r.workers.counters;
        break;
      }
    }
  }
  return w;
}

bool has_rounds(const std::vector<Record>& records) {
  return std::any_of(records.begin(), records.end(), [](const Record& r) { return r.spec.round != 0; });
}

json pool_rounds(const std::vector<Record>& records, const json& context) {
  json out = json::array();
  if (!has_rounds(records)) return out;
  // The measurements, in the order of their first rounds.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (r.spec.round == 0) continue;
    if (r.spec.round < 1) {
      throw UsageError("record " + std::to_string(i) + ": its round is " + std::to_string(r.spec.round) +
                       ", not a number from 1");
    }
    const std::string key = measurement_key(r);
    if (!groups.count(key)) keys.push_back(key);
    groups[key].push_back(i);
  }
  for (const auto& key : keys) {
    std::vector<std::size_t> idx = groups[key];
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return records[a].spec.round < records[b].spec.round; });
    json entry = {{"records", idx}, {"rounds", idx.size()}};
    const auto bad = std::find_if(idx.begin(), idx.end(), [&](std::size_t i) { return failed(records[i]); });
    if (bad != idx.end()) {
      entry["failed"] = *bad;
      out.push_back(std::move(entry));
      continue;
    }
    std::vector<double> reps, medians, runs;
    double inner = 1;
    for (std::size_t i : idx) {
      const auto r = reps_of(records[i]);
      if (!r) {
        throw UsageError("record " + std::to_string(i) + " (round " + std::to_string(records[i].spec.round) +
                         "): its reps_s are not finite positive times");
      }
      reps.insert(reps.end(), r->begin(), r->end());
      medians.push_back(spread_of(*r)->median);
      runs.push_back(static_cast<double>(r->size()) * inner_of(records[i]));
      inner = std::max(inner, inner_of(records[i]));
    }
    const Spread s = *spread_of(reps);
    entry["time_s"] = spread_json(s);
    std::string unstable = unstable_reason(s);
    if (unstable.empty()) unstable = rounds_disagree(medians);
    if (!unstable.empty()) entry["unstable"] = unstable;
    entry["inner"] = static_cast<long long>(inner);
    // The pooled record: the first round's, with the pooled times and workers. Its rate, limit and
    // cause are made as the runner makes a record's.
    Record pooled = records[idx.front()];
    pooled.times->reps_s = reps;
    pooled.times->time_s = s;
    pooled.times->unstable = unstable;
    pooled.times->inner = static_cast<long>(inner);
    pooled.rate = pooled.work ? rates_of(*pooled.work, s.median) : RecordRates{};
    entry["rate"] = to_json(*pooled.rate);
    std::vector<RoundWorkers> round_workers;
    for (std::size_t k = 0; k < idx.size() && records[idx[k]].workers; ++k) {
      round_workers.push_back({*records[idx[k]].workers, *reps_of(records[idx[k]]), runs[k]});
    }
    std::optional<Workers> workers;
    if (round_workers.size() == idx.size()) workers = pool_workers(round_workers);
    pooled.workers = workers;
    if (workers && workers->accounting && workers->count > 1) pooled.workers->cause = worker_shortfall(pooled);
    if (json limit = graded_limit(pooled, context); !limit.is_null()) entry["limit"] = std::move(limit);
    if (pooled.workers) entry["workers"] = to_json(*pooled.workers);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace parlab
