#include "experiments/run/worker_accounting.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
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

namespace {

template <class F>
json per_worker(const std::vector<WorkerTotals>& t, double runs, F f) {
  json a = json::array();
  for (const auto& w : t) a.push_back(f(w) / runs);
  return a;
}

// Load balance and communication efficiency of each repetition (POP: mean/max useful time,
// max useful time/runtime). Useful time is the workers' CPU time in the body: time a worker was
// runnable but not running is disturbance (disturbance_json), not imbalance, so a busy neighbour
// does not pass for a bad partition; it lowers communication efficiency, as any wait does.
// `pop` is taken from the per-run means over the repetitions (cpu_s against runtime_s), as the
// analysis takes it (experiments/analysis/pop.py), so a cause quotes the table's figure; the
// per-repetition values show its spread.
void add_hierarchy(json& j, const LedgerView& ledger, const std::vector<WorkerTotals>& t, double runs, double runtime_s) {
  std::vector<double> lb, ce;
  for (const auto& r : ledger.repetitions) {
    if (r.cpu_ns.empty() || !(r.wall_s > 0)) continue;
    const double max = static_cast<double>(*std::max_element(r.cpu_ns.begin(), r.cpu_ns.end())) * 1e-9;
    const double mean = static_cast<double>(std::accumulate(r.cpu_ns.begin(), r.cpu_ns.end(), std::uint64_t{0})) *
                        1e-9 / static_cast<double>(r.cpu_ns.size());
    lb.push_back(max > 0 ? mean / max : 1.0);
    ce.push_back(std::min(1.0, max / r.wall_s));
  }
  j["load_balance"] = lb;
  j["communication"] = ce;
  double max = 0, sum = 0;
  for (const auto& w : t) {
    const double c = static_cast<double>(w.cpu_ns) * 1e-9 / runs;
    max = std::max(max, c);
    sum += c;
  }
  const double mean = t.empty() ? 0 : sum / static_cast<double>(t.size());
  const double lb_all = max > 0 ? mean / max : 1.0, ce_all = runtime_s > 0 ? std::min(1.0, max / runtime_s) : 1.0;
  j["pop"] = {{"load_balance", lb_all}, {"communication", ce_all}, {"parallel", lb_all * ce_all}};
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
  double busy_ticks = 0;
  for (const auto& a : w.after.cpus) {
    const auto b = std::find_if(w.before.cpus.begin(), w.before.cpus.end(), [&](const auto& c) { return c.id == a.id; });
    if (b == w.before.cpus.end() || a.total < b->total) continue;
    busy_ticks += static_cast<double>(a.busy - b->busy);
    if (!used.count(a.id)) continue;
    const double total = static_cast<double>(a.total - b->total);
    cpus.push_back(a.id);
    steal.push_back(total > 0 ? static_cast<double>(a.steal - b->steal) / total : 0.0);
    busy.push_back(total > 0 ? static_cast<double>(a.busy - b->busy) / total : 0.0);
  }
  d["cpus"] = cpus;
  d["steal"] = steal;
  d["busy"] = busy;
  if (!w.after.cpus.empty() && w.wall_s > 0) {
    const double ours = w.process_cpu_after - w.process_cpu_before + ledger.peers_cpu_s;
    d["others"] = std::max(0.0, busy_ticks * CpuTicks::tick_s() - ours) / w.wall_s;
  }
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
  const auto& t = ledger.totals;
  // The mean, as busy_s and cpu_s are means: a worker's CPU time in a repetition never exceeds the
  // repetition's wall time, so no factor made of them reads above 1 (against the median, a run of
  // uneven repetitions read a communication efficiency of 1.03 on the node).
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
  add_hierarchy(j, ledger, t, runs, j["runtime_s"].get<double>());
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
