#include "experiments/run/worker_accounting.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "experiments/io/numbers.hpp"

namespace parlab {

using nlohmann::json;

double accounted_chunk_cost_s() {
  static const double cost = WorkerLedger::chunk_cost_s();
  return cost;
}

namespace {

// The chunks of the busiest worker so far: what the accounting's cost scales with.
std::uint64_t busiest_chunks(const LedgerView& ledger) {
  std::uint64_t most = 0;
  for (const auto& t : ledger.totals) most = std::max(most, t.chunks);
  return most;
}

}  // namespace

std::optional<double> others_cpus(const MachineWindow& w, double peers_cpu_s) {
  return others_cpus_between(w.before, w.after, w.process_cpu_after - w.process_cpu_before + peers_cpu_s, w.wall_s);
}

double others_grain(const MachineWindow& w) {
  return w.wall_s > 0 ? static_cast<double>(w.after.cpus.size()) * CpuTicks::tick_s() / w.wall_s : 0.0;
}

json machine_json(const MachineWindow& w, double peers_cpu_s, int workers, int cpus, double runnable_share) {
  json m = {{"window_s", w.wall_s}};
  const std::optional<double> others = others_cpus(w, peers_cpu_s);
  if (others) m["others"] = *others;
  std::string why;
  if (cpus > 0 && workers > cpus) {
    why = std::to_string(workers) + " workers on " + std::to_string(cpus) + " CPUs";
  } else if (others && cpus > 0 && workers + *others > cpus + std::max(kSharedSlack, others_grain(w))) {
    why = "other processes used " + fixed(*others, 2) + " CPUs' worth of time beside its " + std::to_string(workers) +
          (workers == 1 ? " worker" : " workers") + ", on " + std::to_string(cpus) + " CPUs";
  } else if (runnable_share >= kSharedRunnable) {
    why = "its workers were runnable but not running " + fixed(runnable_share * 100, 1) + "% of their busy time";
  }
  if (!why.empty()) m["shared"] = why;
  return m;
}

double accounting_overhead(const LedgerView& ledger, double runs, double run_s, double chunk_cost_s) {
  if (!(runs > 0) || !(run_s > 0)) return 0;
  return static_cast<double>(busiest_chunks(ledger)) / runs * chunk_cost_s / run_s;
}

AccountingDecision decide_accounting(const LedgerView& warmed, int runs, double run_s, double chunk_cost_s) {
  AccountingDecision d;
  if (runs <= 0) return d;
  d.overhead = accounting_overhead(warmed, runs, run_s, chunk_cost_s);
  if (d.overhead > kAccountingBudget) {
    d.on = false;
    d.why = "one run takes " + fixed(run_s * 1e3, 3) + " ms and its busiest worker makes " +
            std::to_string(busiest_chunks(warmed) / static_cast<std::uint64_t>(runs)) + " body calls, each " + fixed(chunk_cost_s * 1e6, 2) +
            " us to account: " + fixed(d.overhead * 100, 1) + "% of the run, over the " +
            fixed(kAccountingBudget * 100, 0) + "% allowed";
  }
  return d;
}

std::string size_within_budget(std::uint64_t size, double overhead) {
  if (size == 0 || !(overhead > kAccountingBudget)) return {};
  // A loop's body calls do not grow with its size, its time does: the size at which the same
  // calls would cost the budget, as the power of two a person would pass to -n.
  const double wanted = static_cast<double>(size) * overhead / kAccountingBudget;
  const int bits = static_cast<int>(std::ceil(std::log2(wanted)));
  return bits < 63 ? "; -n 2^" + std::to_string(bits) + " or more would keep it within the budget" : std::string();
}

namespace {

template <class F>
json per_worker(const std::vector<WorkerTotals>& t, double runs, F f) {
  json a = json::array();
  for (const auto& w : t) a.push_back(f(w) / runs);
  return a;
}

// POP's figures of one execution (one repetition): load balance mean/max useful time, communication
// efficiency max useful time/runtime, parallel efficiency their product. Useful time is the
// workers' CPU time in the body: time a worker was runnable but not running is disturbance
// (disturbance_json), not imbalance, so a busy neighbour does not pass for a bad partition; it
// lowers communication efficiency, as any wait does. A worker's CPU time in a repetition cannot
// exceed its wall time, so communication efficiency is held to 1 against the two clocks' grain.
struct Execution {
  double wall_s = 0, useful_s = 0;  // the repetition's wall time and its workers' summed useful time
  double load_balance = 1, communication = 1, parallel = 1;
};

Execution execution_of(const RepetitionTotals& r) {
  Execution e;
  e.wall_s = r.wall_s;
  const double max = static_cast<double>(*std::max_element(r.cpu_ns.begin(), r.cpu_ns.end())) * 1e-9;
  e.useful_s = static_cast<double>(std::accumulate(r.cpu_ns.begin(), r.cpu_ns.end(), std::uint64_t{0})) * 1e-9;
  const double mean = e.useful_s / static_cast<double>(r.cpu_ns.size());
  e.load_balance = max > 0 ? mean / max : 1.0;
  e.communication = std::min(1.0, max / r.wall_s);
  e.parallel = e.load_balance * e.communication;
  return e;
}

json range_of(const std::vector<Execution>& ex, double Execution::*field) {
  const auto [lo, hi] = std::minmax_element(ex.begin(), ex.end(), [&](const auto& a, const auto& b) { return a.*field < b.*field; });
  return json::array({(*lo).*field, (*hi).*field});
}

// POP computes its factors per execution; a record is several. Each repetition's figures are kept
// (load_balance[], communication[]), and the record's figure, `pop`, is that of the repetition
// whose time is the median (of an even count, the faster of the two middle ones), so that the
// hierarchy explains the time the table's speedup is taken from; the range over the repetitions
// stands beside it. runtime_s and useful_s are that repetition's, per run of the kernel, for the
// computation scaling that the analysis takes against another record.
void add_hierarchy(json& j, const LedgerView& ledger, double runs) {
  std::vector<Execution> ex;
  for (const auto& r : ledger.repetitions) {
    if (r.cpu_ns.empty() || !(r.wall_s > 0)) continue;
    ex.push_back(execution_of(r));
  }
  json lb = json::array(), ce = json::array();
  if (ex.empty()) return;  // workers_json turned accounting off: no repetition to grade
  for (const auto& e : ex) {
    lb.push_back(e.load_balance);
    ce.push_back(e.communication);
  }
  j["load_balance"] = lb;
  j["communication"] = ce;
  std::vector<std::size_t> order(ex.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ex[a].wall_s < ex[b].wall_s; });
  const std::size_t median = order[(order.size() - 1) / 2];
  const Execution& m = ex[median];
  // Runs of the kernel per repetition: a repetition may time several back to back.
  const double inner = runs > 0 ? runs / static_cast<double>(ledger.repetitions.size()) : 1.0;
  j["pop"] = {{"definition", "per-execution"},
              {"rep", median},
              {"runtime_s", m.wall_s / inner},
              {"useful_s", m.useful_s / inner},
              {"load_balance", m.load_balance},
              {"communication", m.communication},
              {"parallel", m.parallel},
              {"range",
               {{"load_balance", range_of(ex, &Execution::load_balance)},
                {"communication", range_of(ex, &Execution::communication)},
                {"parallel", range_of(ex, &Execution::parallel)}}}};
}

json disturbance_json(const LedgerView& ledger, const std::vector<WorkerTotals>& t, double runs,
                      const MachineWindow& w) {
  json d = {{"window_s", w.wall_s}};
  json runnable = json::array();
  double runnable_sum = 0, busy_sum = 0, switches = 0;
  for (const auto& x : t) {
    const double r = std::max(0.0, static_cast<double>(x.busy_ns) - static_cast<double>(x.cpu_ns)) * 1e-9 / runs;
    runnable.push_back(r);
    runnable_sum += r;
    busy_sum += static_cast<double>(x.busy_ns) * 1e-9 / runs;
    switches += static_cast<double>(x.switches) / runs;
  }
  d["runnable_s"] = runnable;
  d["runnable_share"] = busy_sum > 0 ? runnable_sum / busy_sum : 0.0;
  d["switches"] = switches;
  // /proc/stat is this host's: the CPUs of workers on other hosts of a job are not its CPUs.
  std::set<int> used;
  for (std::size_t k = 0; k < ledger.cpus.size(); ++k) {
    if (k < ledger.hosts.size() && ledger.hosts[k] != 0) continue;
    used.insert(ledger.cpus[k].begin(), ledger.cpus[k].end());
  }
  json cpus = json::array(), steal = json::array(), busy = json::array();
  for (const auto& a : w.after.cpus) {
    const auto b = std::find_if(w.before.cpus.begin(), w.before.cpus.end(), [&](const auto& c) { return c.id == a.id; });
    if (b == w.before.cpus.end() || a.total < b->total || !used.count(a.id)) continue;
    const double total = static_cast<double>(a.total - b->total);
    cpus.push_back(a.id);
    steal.push_back(total > 0 ? static_cast<double>(a.steal - b->steal) / total : 0.0);
    busy.push_back(total > 0 ? static_cast<double>(a.busy - b->busy) / total : 0.0);
  }
  d["cpus"] = cpus;
  d["steal"] = steal;
  d["busy"] = busy;
  if (const std::optional<double> others = others_cpus(w, ledger.peers_cpu_s)) d["others"] = *others;
  return d;
}

json trace_json(const LedgerView& ledger, const std::vector<TraceEvent>& trace, int rep) {
  json events = json::array();
  double end = 0;
  for (const auto& e : trace) {
    // Tenths of a microsecond: the clock's reads are no finer in meaning, and shorter numbers
    // keep the record small.
    const auto tenth_us = [](double t) { return std::round(t * 1e7) / 1e7; };
    events.push_back({e.worker, tenth_us(e.start_s), tenth_us(e.end_s), e.cpu});
    end = std::max(end, e.end_s);
  }
  return {{"rep", rep}, {"runtime_s", end}, {"events", events}, {"truncated", ledger.trace_truncated}};
}

}  // namespace

json workers_json(const LedgerView& ledger, const AccountingDecision& decision, double runs,
                  const MachineWindow& window, int traced_rep) {
  json j = {{"accounting", decision.on ? "on" : "off"}, {"overhead", decision.overhead}, {"count", ledger.workers}};
  if (!decision.on) {
    j["why"] = decision.why;
    return j;
  }
  const bool graded = std::any_of(ledger.repetitions.begin(), ledger.repetitions.end(),
                                  [](const RepetitionTotals& r) { return !r.cpu_ns.empty() && r.wall_s > 0; });
  if (!graded) {
    j["accounting"] = "off";
    j["why"] = "no repetition was accounted (no worker's time, or no repetition's wall time, was recorded)";
    return j;
  }
  const auto& t = ledger.totals;
  // The mean, as busy_s and cpu_s are means; the factors are each repetition's (add_hierarchy).
  double wall = 0;
  for (const auto& r : ledger.repetitions) wall += r.wall_s;
  j["runtime_s"] = runs > 0 ? wall / runs : 0.0;
  j["busy_s"] = per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.busy_ns) * 1e-9; });
  j["cpu_s"] = per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.cpu_ns) * 1e-9; });
  j["items"] = per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.items); });
  j["chunks"] = per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.chunks); });
  j["switches"] = per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.switches); });
  j["cpus"] = ledger.cpus;
  if (!ledger.ranks.empty()) {
    j["ranks"] = ledger.ranks;
    j["hosts"] = ledger.hosts;
  }
  add_hierarchy(j, ledger, runs);
  j["disturbance"] = disturbance_json(ledger, t, runs, window);
  if (ledger.counters_why.empty()) {
    j["counters"] = {{"available", true},
                     {"instructions", per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.instructions); })},
                     {"cycles", per_worker(t, runs, [](const WorkerTotals& w) { return static_cast<double>(w.cycles); })}};
  } else {
    j["counters"] = {{"available", false}, {"why", ledger.counters_why}};
  }
  if (traced_rep >= 0 && !ledger.trace.empty()) j["trace"] = trace_json(ledger, ledger.trace, traced_rep);
  if (ledger.unattributed > 0) j["unattributed_chunks"] = ledger.unattributed;
  return j;
}

}  // namespace parlab
