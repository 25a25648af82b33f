#include "experiments/run/worker_accounting.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "experiments/io/numbers.hpp"

namespace parlab {

using nlohmann::json;

AccountingCost accounted_cost() {
  static const AccountingCost cost{WorkerLedger::chunk_cost_s(), WorkerLedger::window_cost_s()};
  return cost;
}

namespace {

// The busiest worker so far, by what accounting cost it: its chunks and windows, each at least
// `min_windows` (the warm-up's floor, decide_accounting).
struct Busiest {
  std::uint64_t chunks = 0, windows = 0;
  double cost_s = 0;
};
Busiest busiest(const LedgerView& ledger, AccountingCost cost, std::uint64_t min_windows) {
  Busiest b;
  for (const auto& t : ledger.totals) {
    const std::uint64_t windows = std::max(t.windows, min_windows);
    const double c = static_cast<double>(t.chunks) * cost.chunk_s + static_cast<double>(windows) * cost.window_s;
    if (c >= b.cost_s) b = {t.chunks, windows, c};
  }
  return b;
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

json machine_unmeasured_json(const MachineWindow& w, bool own_processes) {
  return {{"window_s", w.wall_s},
          {"unmeasured", own_processes ? "its work ran in processes of its own: other processes' time is not told from "
                                         "theirs"
                                       : "its work ran where parlab accounts no workers (processes of its own, a "
                                         "library's threads): other processes' time is not told from its own"}};
}

double accounting_overhead(const LedgerView& ledger, double runs, double run_s, AccountingCost cost) {
  if (!(runs > 0) || !(run_s > 0)) return 0;
  return busiest(ledger, cost, 0).cost_s / runs / run_s;
}

AccountingDecision decide_accounting(const LedgerView& warmed, int runs, double run_s, AccountingCost cost) {
  AccountingDecision d;
  if (runs <= 0) return d;
  const Busiest b = busiest(warmed, cost, static_cast<std::uint64_t>(runs));
  d.overhead = b.cost_s / runs / run_s;
  if (d.overhead > kAccountingBudget) {
    d.on = false;
    d.why = "one run takes " + fixed(run_s * 1e3, 3) + " ms and its busiest worker makes " +
            std::to_string(b.chunks / static_cast<std::uint64_t>(runs)) + " body calls, each " + fixed(cost.chunk_s * 1e6, 2) +
            " us to account, and opens " + fixed(static_cast<double>(b.windows) / runs, 0) + " window(s) a run, each " +
            fixed(cost.window_s * 1e6, 1) + " us: " + fixed(d.overhead * 100, 1) + "% of the run, over the " +
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
std::vector<double> per_worker(const std::vector<WorkerTotals>& t, double runs, F f) {
  std::vector<double> a;
  a.reserve(t.size());
  for (const auto& w : t) a.push_back(f(w) / runs);
  return a;
}

// The share of a worker's runnable time it spent waiting on a run queue, over its windows: run
// delay / (CPU time + run delay), from the kernel's schedstat. A body is runnable throughout, so
// this share of its time in the body was waiting, not running (the rest of a window's time was
// blocked: neither). 0 where schedstat was not read.
double waiting_share(std::uint64_t cpu_ns, std::uint64_t run_delay_ns, bool schedstat) {
  const double runnable = static_cast<double>(cpu_ns) + static_cast<double>(run_delay_ns);
  return schedstat && runnable > 0 ? static_cast<double>(run_delay_ns) / runnable : 0.0;
}

// POP's figures of one execution (one repetition): load balance mean/max useful time, communication
// efficiency max useful time/runtime, parallel efficiency their product. Useful time is a worker's
// time in the body only (busy_ns, timed per body call), running: the executor's dispatch and its
// waits between chunks are not useful, and so count against communication efficiency; the part of
// the body's time the worker waited runnable but not running is disturbance (disturbance_of),
// not imbalance, so a busy neighbour does not pass for a bad partition; it lowers communication
// efficiency, as any wait does. A worker's useful time in a repetition cannot
// exceed the repetition's wall time (the clocks' grain aside), so communication efficiency is
// held to 1.
struct Execution {
  double wall_s = 0, useful_s = 0;  // the repetition's wall time and its workers' summed useful time
  double load_balance = 1, communication = 1, parallel = 1;
};

Execution execution_of(const RepetitionTotals& r, bool schedstat) {
  Execution e;
  e.wall_s = r.wall_s;
  double max = 0;
  for (std::size_t w = 0; w < r.busy_ns.size(); ++w) {
    // The body's running time is at most its wall time and at most the thread's running time over
    // its whole window (cpu_ns): the smaller of the two. A thread that sleeps between chunks runs
    // nothing else, so its window's CPU time is the body's, exact however its waits for a CPU fall;
    // spreading the window's run-queue delay over the body by the CPU share instead read a planted
    // 3:1 imbalance as 0.40, not 0.50, on an oversubscribed machine, where a thread waits for a CPU
    // mostly outside its body. Without schedstat the window is not known to be the thread's alone,
    // and the body's time is all useful.
    const bool known = schedstat && w < r.cpu_ns.size() && w < r.run_delay_ns.size();
    const double busy_s = static_cast<double>(r.busy_ns[w]) * 1e-9;
    const double useful = known ? std::min(busy_s, static_cast<double>(r.cpu_ns[w]) * 1e-9) : busy_s;
    e.useful_s += useful;
    max = std::max(max, useful);
  }
  const double mean = e.useful_s / static_cast<double>(r.busy_ns.size());
  e.load_balance = max > 0 ? mean / max : 1.0;
  e.communication = std::min(1.0, max / r.wall_s);
  e.parallel = e.load_balance * e.communication;
  return e;
}

FactorRange range_of(const std::vector<Execution>& ex, double Execution::*field) {
  const auto [lo, hi] = std::minmax_element(ex.begin(), ex.end(), [&](const auto& a, const auto& b) { return a.*field < b.*field; });
  return {(*lo).*field, (*hi).*field};
}

// POP computes its factors per execution; a record is several. Each repetition's figures are kept
// (load_balance[], communication[]), and the record's figure, `pop`, is that of the repetition
// whose time is the median (of an even count, the faster of the two middle ones), so that the
// hierarchy explains the time the table's speedup is taken from; the range over the repetitions
// stands beside it. runtime_s and useful_s are that repetition's, per run of the kernel, for the
// computation scaling that the analysis takes against another record.
void add_hierarchy(Workers& w, const LedgerView& ledger, double runs) {
  std::vector<Execution> ex;
  for (const auto& r : ledger.repetitions) {
    if (r.busy_ns.empty() || !(r.wall_s > 0)) continue;
    ex.push_back(execution_of(r, ledger.run_delay_source == "schedstat"));
  }
  if (ex.empty()) return;  // account_workers turned accounting off: no repetition to grade
  for (const auto& e : ex) {
    w.load_balance.push_back(e.load_balance);
    w.communication.push_back(e.communication);
  }
  std::vector<std::size_t> order(ex.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ex[a].wall_s < ex[b].wall_s; });
  const std::size_t median = order[(order.size() - 1) / 2];
  const Execution& m = ex[median];
  // Runs of the kernel per repetition: a repetition may time several back to back.
  const double inner = runs > 0 ? runs / static_cast<double>(ledger.repetitions.size()) : 1.0;
  PopFigures p;
  p.per_execution = true;
  p.rep = static_cast<int>(median);
  p.runtime_s = m.wall_s / inner;
  p.useful_s = m.useful_s / inner;
  p.load_balance = m.load_balance;
  p.communication = m.communication;
  p.parallel = m.parallel;
  p.load_balance_range = range_of(ex, &Execution::load_balance);
  p.communication_range = range_of(ex, &Execution::communication);
  p.parallel_range = range_of(ex, &Execution::parallel);
  w.pop = p;
}

Disturbance disturbance_of(const LedgerView& ledger, const std::vector<WorkerTotals>& t, double runs,
                           const MachineWindow& w) {
  Disturbance d;
  d.window_s = w.wall_s;
  // Runnable, not running: the kernel's run-queue delay of each worker's threads over their
  // windows (/proc/<tid>/schedstat, read at the repetitions' edges); runnable_s is the worker's
  // time in the body times its waiting share (waiting_share), runnable_share their sum over the
  // workers' time in the body (run_delay_s keeps the delay itself). A thread blocked (on a lock,
  // the GIL, a futex) is not runnable and is not in it. Where schedstat could not be read, nothing
  // is known: zeros, and runnable_source says so.
  const bool schedstat = ledger.run_delay_source == "schedstat";
  std::vector<double> delay;
  double runnable_sum = 0, busy_sum = 0;
  for (const auto& x : t) {
    const double share = waiting_share(x.cpu_ns, x.run_delay_ns, schedstat);
    const double r = share * static_cast<double>(x.busy_ns) * 1e-9 / runs;
    d.runnable_s.push_back(r);
    runnable_sum += r;
    delay.push_back(schedstat ? static_cast<double>(x.run_delay_ns) * 1e-9 / runs : 0.0);
    busy_sum += static_cast<double>(x.busy_ns) * 1e-9 / runs;
    d.switches += static_cast<double>(x.switches) / runs;
  }
  d.runnable_share = busy_sum > 0 ? runnable_sum / busy_sum : 0.0;
  d.runnable_source = schedstat ? "schedstat" : "unavailable";
  d.run_delay_s = std::move(delay);
  // /proc/stat is this host's: the CPUs of workers on other hosts of a job are not its CPUs.
  std::set<int> used;
  for (std::size_t k = 0; k < ledger.cpus.size(); ++k) {
    if (k < ledger.hosts.size() && ledger.hosts[k] != 0) continue;
    used.insert(ledger.cpus[k].begin(), ledger.cpus[k].end());
  }
  for (const auto& a : w.after.cpus) {
    const auto b = std::find_if(w.before.cpus.begin(), w.before.cpus.end(), [&](const auto& c) { return c.id == a.id; });
    if (b == w.before.cpus.end() || a.total < b->total || !used.count(a.id)) continue;
    const double total = static_cast<double>(a.total - b->total);
    d.cpus.push_back(a.id);
    d.steal.push_back(total > 0 ? static_cast<double>(a.steal - b->steal) / total : 0.0);
    d.busy.push_back(total > 0 ? static_cast<double>(a.busy - b->busy) / total : 0.0);
  }
  d.others = others_cpus(w, ledger.peers_cpu_s);
  return d;
}

WorkersTrace trace_of(const LedgerView& ledger, int rep) {
  WorkersTrace t;
  t.rep = rep;
  t.truncated = ledger.trace_truncated;
  for (const auto& e : ledger.trace) {
    // Tenths of a microsecond: the clock's reads are no finer in meaning, and shorter numbers
    // keep the record small.
    const auto tenth_us = [](double s) { return std::round(s * 1e7) / 1e7; };
    t.events.push_back({e.worker, tenth_us(e.start_s), tenth_us(e.end_s), e.cpu});
    t.runtime_s = std::max(t.runtime_s, e.end_s);
  }
  return t;
}

}  // namespace

Workers account_workers(const LedgerView& ledger, const AccountingDecision& decision, double runs,
                        const MachineWindow& window, int traced_rep) {
  Workers w;
  w.accounting = decision.on;
  w.overhead = decision.overhead;
  w.count = ledger.workers;
  if (!decision.on) {
    w.why = decision.why;
    return w;
  }
  const bool graded = std::any_of(ledger.repetitions.begin(), ledger.repetitions.end(),
                                  [](const RepetitionTotals& r) { return !r.busy_ns.empty() && r.wall_s > 0; });
  if (!graded) {
    w.accounting = false;
    w.why = "no repetition was accounted (no worker's time, or no repetition's wall time, was recorded)";
    return w;
  }
  const auto& t = ledger.totals;
  // The mean, as busy_s and cpu_s are means; the factors are each repetition's (add_hierarchy).
  // busy_s is the time in the body (the useful time); cpu_s and switches are over the workers'
  // windows, dispatch and waits between chunks included (core/worker_ledger.hpp).
  double wall = 0;
  for (const auto& r : ledger.repetitions) wall += r.wall_s;
  w.runtime_s = runs > 0 ? wall / runs : 0.0;
  w.busy_s = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.busy_ns) * 1e-9; });
  w.cpu_s = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.cpu_ns) * 1e-9; });
  w.items = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.items); });
  w.chunks = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.chunks); });
  w.switches = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.switches); });
  w.cpus = ledger.cpus;
  w.ranks = ledger.ranks;
  w.hosts = ledger.hosts;
  add_hierarchy(w, ledger, runs);
  w.disturbance = disturbance_of(ledger, t, runs, window);
  WorkerCounters counters;
  counters.available = ledger.counters_why.empty();
  if (counters.available) {
    counters.instructions = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.instructions); });
    counters.cycles = per_worker(t, runs, [](const WorkerTotals& x) { return static_cast<double>(x.cycles); });
  } else {
    counters.why = ledger.counters_why;
  }
  w.counters = std::move(counters);
  if (traced_rep >= 0 && !ledger.trace.empty()) w.trace = trace_of(ledger, traced_rep);
  w.unattributed_chunks = ledger.unattributed;
  return w;
}

}  // namespace parlab
