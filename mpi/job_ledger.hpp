// Per-worker accounting of an MPI job (docs/records.md, "Workers"): every rank's CPU executor
// keeps its own WorkerLedger (core/worker_ledger.hpp), the runner on rank 0 drives them all
// through one WorkerAccounting, and the figures are gathered onto rank 0 when it reads them. A
// job's workers are its ranks x threads, rank-major: worker r * threads + t is thread t of rank r,
// so the POP factors are taken over every thread of every rank, as POP takes them over an
// MPI+threads trace. Useful time stays the body's thread CPU time: a rank waiting in a barrier, a
// reduction or a chunk fetch is not useful, so it lowers communication efficiency, as it should.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/worker_ledger.hpp"
#include "runtime.hpp"
#include "workloads.hpp"

namespace parlab::mpi {

// What rank 0 asks of every rank's ledger (the runner's WorkerAccounting calls).
enum class LedgerOp : std::int32_t { on = 1, off, reset, end_repetition, start_trace, stop_trace, view };

// One rank's side: its executor's ledger and this process's CPU time over the timed window
// (from reset to the accounting turned off), which rank 0's view of the host's CPUs must not
// count as another process's.
class RankLedger {
 public:
  explicit RankLedger(WorkerLedger& ledger) : ledger_(ledger) {}
  // The local effect of `op` (`value`: a repetition's wall time, from rank 0's clock). view does
  // nothing here: the gather is gather_view's.
  void apply(LedgerOp op, double value);
  // Collective, after apply(view) on every rank: rank 0 gets every rank's figures merged (the
  // others an empty view). `host_of_rank`: rank 0's Layout::host_of_rank.
  LedgerView gather_view(const Layout& layout);

 private:
  WorkerLedger& ledger_;
  double window_cpu0_s_ = 0, window_cpu_s_ = 0;
};

// Rank 0's WorkerAccounting over the job: each call is sent to the followers first (`send`, the
// runtime's command broadcast), then applied to rank 0's own ledger.
class JobLedger final : public WorkerAccounting {
 public:
  JobLedger(RankLedger& mine, std::function<void(LedgerOp, double)> send, const Layout& layout)
      : mine_(mine), send_(std::move(send)), layout_(layout) {}
  void set_on(bool on) override { both(on ? LedgerOp::on : LedgerOp::off, 0); }
  void reset() override { both(LedgerOp::reset, 0); }
  void end_repetition(double wall_s) override { both(LedgerOp::end_repetition, wall_s); }
  void start_trace() override { both(LedgerOp::start_trace, 0); }
  void stop_trace() override { both(LedgerOp::stop_trace, 0); }
  LedgerView view() override {
    send_(LedgerOp::view, 0);
    return mine_.gather_view(layout_);
  }

 private:
  void both(LedgerOp op, double value) {
    send_(op, value);
    mine_.apply(op, value);
  }
  RankLedger& mine_;
  std::function<void(LedgerOp, double)> send_;
  const Layout& layout_;
};

// The packed form of one rank's figures, and rank 0's merge of every rank's (exposed for tests:
// the merge is the part with arithmetic in it). `packed[r]` is rank r's pack_view.
std::vector<double> pack_view(const LedgerView& v, double window_cpu_s);
// PRECONDITION: packed.size() == host_of_rank.size() >= 1. Throws FailureError on a malformed pack
// or ranks that disagree on the repetitions.
LedgerView merge_views(const std::vector<std::vector<double>>& packed, const std::vector<int>& host_of_rank);

// This rank's share of p.kernel on `executor`'s executor wrapped in an AccountedExecutor, with that
// executor's ledger as RankWorkload::ledger (null for a kernel that makes no executor: the
// probes). The mpi+<executor> backends' builder. PRECONDITION: a rank maker makes one executor
// (FailureError otherwise: one ledger accounts one).
std::unique_ptr<RankWorkload> make_accounted_cpu_rank_workload(const ExecutorFactory& executor, const Problem& p,
                                                               const Layout& layout);

}  // namespace parlab::mpi
