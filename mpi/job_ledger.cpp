#include "job_ledger.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace parlab::mpi {

namespace {

double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The pack (pack_view writes it, merge_views reads it): a header of 8 (workers, repetitions,
// events, truncated, unattributed, counters, the window's process CPU seconds, the run delay's
// source: 0 none, 1 schedstat, 2 unavailable), then each worker's 10 totals (busy, cpu, items,
// chunks, switches, instructions, cycles, run delay, window, windows), each repetition (its wall
// time, then every worker's busy, then every worker's cpu, then every worker's run delay), each
// worker's CPUs (a count, then
// the CPUs), and the trace's events of 4 (worker, start, end, cpu). Doubles throughout: counts and
// nanoseconds stay exact below 2^53 (104 days of nanoseconds).

// Reads a pack front to back, refusing to run past its end.
class Reader {
 public:
  Reader(const std::vector<double>& p, int rank) : p_(p), rank_(rank) {}
  double next() {
    if (at_ >= p_.size()) throw FailureError("rank " + std::to_string(rank_) + "'s accounting ended early");
    return p_[at_++];
  }
  // A count: a finite, non-negative integer below `limit`.
  std::size_t count(double limit) {
    const double v = next();
    if (!(v >= 0) || !(v <= limit) || v != std::floor(v)) {
      throw FailureError("rank " + std::to_string(rank_) + "'s accounting holds a malformed count");
    }
    return static_cast<std::size_t>(v);
  }
  std::uint64_t u64() { return static_cast<std::uint64_t>(std::max(0.0, next())); }
  bool done() const { return at_ == p_.size(); }

 private:
  const std::vector<double>& p_;
  int rank_;
  std::size_t at_ = 0;
};

}  // namespace

void RankLedger::apply(LedgerOp op, double value) {
  switch (op) {
    case LedgerOp::on:
      ledger_.set_on(true);
      break;
    case LedgerOp::off:
      ledger_.set_on(false);
      window_cpu_s_ = process_cpu_s() - window_cpu0_s_;
      break;
    case LedgerOp::reset:
      ledger_.reset();
      window_cpu0_s_ = process_cpu_s();
      window_cpu_s_ = 0;
      break;
    case LedgerOp::end_repetition:
      ledger_.end_repetition(value);
      break;
    case LedgerOp::start_trace:
      ledger_.start_trace();
      break;
    case LedgerOp::stop_trace:
      ledger_.stop_trace();
      break;
    case LedgerOp::view:
      break;
  }
}

std::vector<double> pack_view(const LedgerView& v, double window_cpu_s) {
  std::vector<double> p = {static_cast<double>(v.workers),
                           static_cast<double>(v.repetitions.size()),
                           static_cast<double>(v.trace.size()),
                           v.trace_truncated ? 1.0 : 0.0,
                           static_cast<double>(v.unattributed),
                           v.counters_why.empty() ? 1.0 : 0.0,
                           window_cpu_s,
                           v.run_delay_source == "schedstat" ? 1.0 : v.run_delay_source.empty() ? 0.0 : 2.0};
  for (const WorkerTotals& t : v.totals) {
    for (const std::uint64_t x : {t.busy_ns, t.cpu_ns, t.items, t.chunks, t.switches, t.instructions, t.cycles,
                                  t.run_delay_ns, t.window_ns, t.windows}) {
      p.push_back(static_cast<double>(x));
    }
  }
  for (const RepetitionTotals& r : v.repetitions) {
    p.push_back(r.wall_s);
    for (const std::uint64_t x : r.busy_ns) p.push_back(static_cast<double>(x));
    for (const std::uint64_t x : r.cpu_ns) p.push_back(static_cast<double>(x));
    // A view made by hand may carry no run delays: zeros, as many as the workers.
    for (std::size_t w = 0; w < r.busy_ns.size(); ++w) {
      p.push_back(w < r.run_delay_ns.size() ? static_cast<double>(r.run_delay_ns[w]) : 0.0);
    }
  }
  for (const auto& cpus : v.cpus) {
    p.push_back(static_cast<double>(cpus.size()));
    for (const int c : cpus) p.push_back(c);
  }
  for (const TraceEvent& e : v.trace) {
    p.insert(p.end(), {static_cast<double>(e.worker), e.start_s, e.end_s, static_cast<double>(e.cpu)});
  }
  return p;
}

LedgerView merge_views(const std::vector<std::vector<double>>& packed, const std::vector<int>& host_of_rank) {
  if (packed.empty() || packed.size() != host_of_rank.size()) {
    throw FailureError("the job's accounting: " + std::to_string(packed.size()) + " ranks' figures for " +
                       std::to_string(host_of_rank.size()) + " ranks");
  }
  LedgerView job;
  std::size_t reps = 0;
  std::vector<std::vector<std::uint64_t>> rep_busy, rep_cpu, rep_delay;
  bool delay_schedstat = false, delay_unavailable = false;
  for (std::size_t r = 0; r < packed.size(); ++r) {
    const int rank = static_cast<int>(r);
    Reader in(packed[r], rank);
    const auto workers = in.count(WorkerLedger::kMaxCpus * 64.0);
    const auto rank_reps = in.count(1e7);
    const auto events = in.count(static_cast<double>(WorkerLedger::kMaxTraceEvents));
    const bool truncated = in.next() != 0;
    const std::uint64_t unattributed = in.u64();
    const bool counters = in.next() != 0;
    const double window_cpu_s = in.next();
    const auto delay_source = in.count(2);
    delay_schedstat = delay_schedstat || delay_source == 1;
    delay_unavailable = delay_unavailable || delay_source == 2;
    if (r == 0) {
      reps = rank_reps;
      rep_busy.resize(reps);
      rep_cpu.resize(reps);
      rep_delay.resize(reps);
      job.repetitions.resize(reps);
    } else if (rank_reps != reps) {
      throw FailureError("the job's accounting: rank " + std::to_string(r) + " closed " + std::to_string(rank_reps) +
                         " repetitions, rank 0 " + std::to_string(reps));
    }
    const int first = job.workers;
    job.workers += static_cast<int>(workers);
    job.trace_truncated = job.trace_truncated || truncated;
    job.unattributed += unattributed;
    if (!counters && job.counters_why.empty()) {
      job.counters_why = "rank " + std::to_string(r) + " counted no instructions and cycles";
    }
    if (r != 0 && host_of_rank[r] == 0 && std::isfinite(window_cpu_s)) job.peers_cpu_s += std::max(0.0, window_cpu_s);
    for (std::size_t w = 0; w < workers; ++w) {
      WorkerTotals t;
      for (std::uint64_t* x : {&t.busy_ns, &t.cpu_ns, &t.items, &t.chunks, &t.switches, &t.instructions, &t.cycles,
                               &t.run_delay_ns, &t.window_ns, &t.windows}) {
        *x = in.u64();
      }
      job.totals.push_back(t);
      job.ranks.push_back(rank);
      job.hosts.push_back(host_of_rank[r]);
    }
    for (std::size_t k = 0; k < reps; ++k) {
      const double wall = in.next();
      if (r == 0) job.repetitions[k].wall_s = wall;  // rank 0's clock times the job's repetitions
      for (std::size_t w = 0; w < workers; ++w) rep_busy[k].push_back(in.u64());
      for (std::size_t w = 0; w < workers; ++w) rep_cpu[k].push_back(in.u64());
      for (std::size_t w = 0; w < workers; ++w) rep_delay[k].push_back(in.u64());
    }
    for (std::size_t w = 0; w < workers; ++w) {
      std::vector<int> cpus(in.count(WorkerLedger::kMaxCpus));
      for (int& c : cpus) c = static_cast<int>(in.count(WorkerLedger::kMaxCpus));
      job.cpus.push_back(std::move(cpus));
    }
    for (std::size_t e = 0; e < events; ++e) {
      TraceEvent ev;
      ev.worker = first + static_cast<int>(in.count(static_cast<double>(workers) - 1));
      ev.start_s = in.next();
      ev.end_s = in.next();
      ev.cpu = static_cast<int>(in.next());
      job.trace.push_back(ev);
    }
    if (!in.done()) throw FailureError("rank " + std::to_string(r) + "'s accounting is longer than it says");
  }
  for (std::size_t k = 0; k < reps; ++k) {
    job.repetitions[k].busy_ns = std::move(rep_busy[k]);
    job.repetitions[k].cpu_ns = std::move(rep_cpu[k]);
    job.repetitions[k].run_delay_ns = std::move(rep_delay[k]);
  }
  // The job's run delay is known only where every rank that closed a window read it.
  job.run_delay_source = delay_unavailable ? "unavailable" : delay_schedstat ? "schedstat" : "";
  // One run's trace over every rank, within the one-process bound: the earliest chunks kept.
  std::stable_sort(job.trace.begin(), job.trace.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.start_s < b.start_s; });
  if (job.trace.size() > WorkerLedger::kMaxTraceEvents) {
    job.trace.resize(WorkerLedger::kMaxTraceEvents);
    job.trace_truncated = true;
  }
  return job;
}

LedgerView RankLedger::gather_view(const Layout& layout) {
  const LedgerView local = ledger_.view();
  const std::vector<double> mine = pack_view(local, window_cpu_s_);
  int size = static_cast<int>(mine.size());
  const bool root = layout.rank == 0;
  std::vector<int> sizes(root ? static_cast<std::size_t>(layout.ranks) : 0), displs;
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<double> all;
  if (root) {
    int at = 0;
    for (const int s : sizes) {
      displs.push_back(at);
      at += s;
    }
    all.resize(static_cast<std::size_t>(at));
  }
  MPI_Gatherv(mine.data(), size, MPI_DOUBLE, all.data(), sizes.data(), displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (!root) return {};
  std::vector<std::vector<double>> packed;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    const auto from = all.begin() + displs[r];
    packed.emplace_back(from, from + sizes[r]);
  }
  LedgerView job = merge_views(packed, layout.host_of_rank);
  if (!local.counters_why.empty()) job.counters_why = local.counters_why;  // rank 0's own reason, in its words
  return job;
}

namespace {

class AccountedRank final : public RankWorkload {
 public:
  AccountedRank(std::unique_ptr<RankWorkload> inner, WorkerLedger& ledger) : inner_(std::move(inner)), ledger_(ledger) {}
  void run() override { inner_->run(); }
  Validation validate() override { return inner_->validate(); }
  WorkCount work() const override { return inner_->work(); }
  WorkerLedger* ledger() override { return &ledger_; }

 private:
  std::unique_ptr<RankWorkload> inner_;
  WorkerLedger& ledger_;
};

}  // namespace

std::unique_ptr<RankWorkload> make_accounted_cpu_rank_workload(const ExecutorFactory& executor, const Problem& p,
                                                               const Layout& layout) {
  WorkerLedger* ledger = nullptr;
  const ExecutorFactory accounted = [&](int threads) -> std::unique_ptr<Executor> {
    if (ledger != nullptr) throw FailureError("a rank workload made two executors; one ledger accounts one");
    auto ex = std::make_unique<AccountedExecutor>(executor(threads));
    ledger = &ex->ledger();
    return ex;
  };
  std::unique_ptr<RankWorkload> w = make_cpu_rank_workload(accounted, p, layout);
  if (ledger == nullptr) return w;
  return std::make_unique<AccountedRank>(std::move(w), *ledger);
}

}  // namespace parlab::mpi
