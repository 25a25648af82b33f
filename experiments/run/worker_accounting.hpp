// The record's `workers` block (docs/records.md, "Workers"; its type, experiments/record/workers.hpp):
// whether a CPU record's loops are accounted per worker, and what the ledger (core/worker_ledger.hpp)
// and /proc/stat (experiments/machine/cpu_stat.hpp) saw over its timed repetitions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/worker_ledger.hpp"
#include "experiments/machine/cpu_stat.hpp"
#include "experiments/record/workers.hpp"

namespace parlab {

// The most of a run's time the accounting may cost before the runner turns it off for a record.
inline constexpr double kAccountingBudget = 0.01;

struct AccountingDecision {
  bool on = true;
  double overhead = 0;  // estimated share of a run's time the accounting costs
  std::string why;      // when off
};

// What accounting costs: one chunk, and one window (a worker thread's per repetition, opened on
// its first chunk; WorkerLedger::window_cost_s).
struct AccountingCost {
  double chunk_s = 0, window_s = 0;
};

// From the accounted warm-up: `runs` runs, the last taking `run_s` seconds, and what accounting
// costs. The busiest worker's chunks and windows per run times their costs, over the run's time,
// is the overhead; on when it is within kAccountingBudget. The warm-up is one repetition, so a
// worker is taken to open a window every run (as an executor that starts threads per loop does;
// fewer where a repetition is several runs). With no warm-up to go by (runs 0), on, and the
// overhead is estimated after the repetitions.
AccountingDecision decide_accounting(const LedgerView& warmed, int runs, double run_s, AccountingCost cost);

// Where accounting is off at `overhead` for a problem of `size`: "; -n 2^K or more would keep it
// within the budget", the size whose longer runs carry the same body calls within
// kAccountingBudget; empty where it is within, or no size would be.
std::string size_within_budget(std::uint64_t size, double overhead);

// WorkerLedger::chunk_cost_s and window_cost_s, measured once per process (a few milliseconds).
AccountingCost accounted_cost();

// The overhead estimate from the ledger's own totals (chunks and windows): `runs` runs of `run_s`
// seconds each.
double accounting_overhead(const LedgerView& ledger, double runs, double run_s, AccountingCost cost);

// The window of the timed repetitions, as the machine saw it: read before and after.
struct MachineWindow {
  CpuTicks before, after;
  double process_cpu_before = 0, process_cpu_after = 0;
  double wall_s = 0;
};

// CPUs' worth of time other processes used over the window: every CPU's busy time less this
// process's CPU time and `peers_cpu_s` (an MPI job's other ranks on this host); nullopt where
// /proc/stat was not read.
std::optional<double> others_cpus(const MachineWindow& w, double peers_cpu_s);

// How finely others_cpus is known: one tick on every CPU over the window, in CPUs.
double others_grain(const MachineWindow& w);

// A record shared its CPUs where it ran more workers than CPUs, where other processes' time and
// its workers did not fit the CPUs together (beyond this slack, the runner's own threads, or
// others_grain where that is coarser), or where its accounted workers waited runnable this share of their time.
inline constexpr double kSharedSlack = 0.25;
inline constexpr double kSharedRunnable = 0.05;

// The record's `machine` block (docs/records.md): the window of its timed repetitions, the
// CPUs' worth of other processes' time over it, and `shared` (why it shared its CPUs) where it
// did; `runnable_share` from its accounted workers (0 without).
nlohmann::json machine_json(const MachineWindow& w, double peers_cpu_s, int workers, int cpus, double runnable_share);

// The `machine` block of a record whose work ran on the CPU where parlab accounts no workers:
// processes of its own (`own_processes`: a peer's program, a process pool's or Dask's workers)
// or a library's threads. /proc/stat cannot tell their CPU time from other programs', so nothing
// is judged: the window and `unmeasured`, why.
nlohmann::json machine_unmeasured_json(const MachineWindow& w, bool own_processes);

// The `workers` block, with POP's factors per execution and the disturbance derived: `runs` =
// repetitions x inner; `traced_rep` the repetition traced. Its cause is the caller's to add
// (worker_shortfall), which needs the record's kind and metrics.
Workers account_workers(const LedgerView& ledger, const AccountingDecision& decision, double runs,
                        const MachineWindow& window, int traced_rep);

}  // namespace parlab
