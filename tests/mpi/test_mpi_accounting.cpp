// Per-worker accounting of an MPI job (mpi/job_ledger.hpp), at this job's rank count (ctest runs
// the binary under mpirun with 1 to 4 ranks; every rank runs every test, since each is collective):
// - every mpi+<executor> backend x threads {1, 2} x sizes {0, 1, odd, larger}: the gathered view
//   has ranks x threads workers, rank-major, each repetition closed on every rank, the elements of
//   each run accounted exactly once over the whole job, a bounded trace, and the canonical pi
//   count unchanged;
// - the merge on given packs (no MPI in it): worker numbering, hosts, the job's own CPU time on
//   the writing host, the trace's bound, and hostile packs refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/pi.hpp"
#include "mpi/job_ledger.hpp"
#include "mpi_test_support.hpp"

namespace parlab::mpi {
namespace {

// Drives one rank's ledger as the runner drives the job's: on, reset, `reps` repetitions (the
// middle one's run traced), off; then the gathered view (rank 0's; empty elsewhere).
LedgerView account_runs(RankWorkload& w, int reps) {
  RankLedger mine(*w.ledger());
  mine.apply(LedgerOp::on, 0);
  mine.apply(LedgerOp::reset, 0);
  for (int rep = 0; rep < reps; ++rep) {
    if (rep == reps / 2) mine.apply(LedgerOp::start_trace, 0);
    w.run();
    if (rep == reps / 2) mine.apply(LedgerOp::stop_trace, 0);
    mine.apply(LedgerOp::end_repetition, 0.001 * (rep + 1));
  }
  mine.apply(LedgerOp::off, 0);
  mine.apply(LedgerOp::view, 0);
  return mine.gather_view(layout());
}

void expect_job_shape(const LedgerView& v, int threads, int reps, const std::string& what) {
  const int workers = layout().ranks * threads;
  ASSERT_EQ(v.workers, workers) << what;
  ASSERT_EQ(v.totals.size(), static_cast<std::size_t>(workers)) << what;
  ASSERT_EQ(v.ranks.size(), static_cast<std::size_t>(workers)) << what;
  ASSERT_EQ(v.hosts.size(), static_cast<std::size_t>(workers)) << what;
  for (int w = 0; w < workers; ++w) {
    EXPECT_EQ(v.ranks[static_cast<std::size_t>(w)], w / threads) << what << " worker " << w;
    EXPECT_EQ(v.hosts[static_cast<std::size_t>(w)], layout().host_of_rank[static_cast<std::size_t>(w / threads)]) << what;
  }
  ASSERT_EQ(v.repetitions.size(), static_cast<std::size_t>(reps)) << what;
  for (int k = 0; k < reps; ++k) {
    const RepetitionTotals& r = v.repetitions[static_cast<std::size_t>(k)];
    EXPECT_EQ(r.busy_ns.size(), static_cast<std::size_t>(workers)) << what;
    EXPECT_EQ(r.cpu_ns.size(), static_cast<std::size_t>(workers)) << what;
    EXPECT_DOUBLE_EQ(r.wall_s, 0.001 * (k + 1)) << what << ": rank 0's clock closes each repetition";
  }
  EXPECT_LE(v.trace.size(), WorkerLedger::kMaxTraceEvents) << what;
  for (const TraceEvent& e : v.trace) {
    EXPECT_GE(e.worker, 0) << what;
    EXPECT_LT(e.worker, workers) << what;
    EXPECT_LE(e.start_s, e.end_s) << what;
  }
  EXPECT_TRUE(std::is_sorted(v.trace.begin(), v.trace.end(),
                             [](const TraceEvent& a, const TraceEvent& b) { return a.start_s < b.start_s; }))
      << what;
  EXPECT_GE(v.peers_cpu_s, 0) << what;
  EXPECT_EQ(v.unattributed, 0u) << what << ": every chunk ran on a worker its executor named";
}

std::uint64_t items(const LedgerView& v) {
  return std::accumulate(v.totals.begin(), v.totals.end(), std::uint64_t{0},
                         [](std::uint64_t s, const WorkerTotals& t) { return s + t.items; });
}

TEST(MpiAccounting, TriadElementsAccountedOnceOverTheJob) {
  constexpr int kReps = 3;
  for (const auto& name : executors()) {
    const ExecutorFactory make = registry().find(name)->make_executor;
    for (int threads : thread_counts(name)) {
      for (std::uint64_t n : {0ull, 1ull, 8193ull, 70001ull}) {
        auto w = make_accounted_cpu_rank_workload(make, problem("triad", n, threads, Precision::f64), layout());
        ASSERT_NE(w->ledger(), nullptr) << name;
        const LedgerView v = account_runs(*w, kReps);
        const std::string what = name + " threads=" + std::to_string(threads) + " n=" + std::to_string(n) +
                                 " ranks=" + std::to_string(layout().ranks);
        EXPECT_TRUE(w->validate().pass) << what;
        if (layout().rank != 0) continue;
        expect_job_shape(v, threads, kReps, what);
        EXPECT_EQ(items(v), kReps * n) << what << ": each element of each run, on exactly one worker";
        if (n > 0) {
          EXPECT_FALSE(v.trace.empty()) << what;
        }
      }
    }
  }
}

TEST(MpiAccounting, PiCountUnchangedAndEveryRankAccounted) {
  constexpr int kReps = 2;
  for (const auto& name : executors()) {
    const ExecutorFactory make = registry().find(name)->make_executor;
    for (int threads : thread_counts(name)) {
      for (std::uint64_t n : {0ull, 1ull, 1000003ull}) {
        auto w = make_accounted_cpu_rank_workload(make, problem("pi", n, threads), layout());
        ASSERT_NE(w->ledger(), nullptr) << name;
        const LedgerView v = account_runs(*w, kReps);
        const Validation check = w->validate();
        const std::string what = name + " threads=" + std::to_string(threads) + " n=" + std::to_string(n) +
                                 " ranks=" + std::to_string(layout().ranks);
        ASSERT_TRUE(check.hits.has_value()) << what;
        EXPECT_EQ(*check.hits, pi_hits_points(0x5eed, 0, n)) << what;
        if (layout().rank != 0) continue;
        expect_job_shape(v, threads, kReps, what);
        if (n >= 2) {
          EXPECT_GT(items(v), 0u) << what;
        }
      }
    }
  }
}

TEST(MpiAccounting, ProbesKeepNoLedger) {
  auto w = make_accounted_cpu_rank_workload(registry().find("serial")->make_executor, problem("mpi_barrier", 3, 1), layout());
  EXPECT_EQ(w->ledger(), nullptr) << "a kernel that makes no executor has no loops to account";
  w->run();
  EXPECT_TRUE(w->validate().pass);
}

// ---------------------------------------------------------------- the merge, on given packs

LedgerView rank_view(int workers, int reps, std::uint64_t busy, int events, double event_start) {
  LedgerView v;
  v.workers = workers;
  for (int w = 0; w < workers; ++w) {
    WorkerTotals t;
    t.busy_ns = busy;
    t.cpu_ns = busy / 2;
    t.items = 10;
    t.chunks = 2;
    v.totals.push_back(t);
    v.cpus.push_back({w, w + 4});
  }
  for (int k = 0; k < reps; ++k) {
    RepetitionTotals r;
    r.wall_s = 0.5 * (k + 1);
    r.busy_ns.assign(static_cast<std::size_t>(workers), busy / static_cast<std::uint64_t>(std::max(reps, 1)));
    r.cpu_ns.assign(static_cast<std::size_t>(workers), busy / 2 / static_cast<std::uint64_t>(std::max(reps, 1)));
    v.repetitions.push_back(r);
  }
  for (int e = 0; e < events; ++e) v.trace.push_back({e % workers, event_start + e * 1e-6, event_start + e * 1e-6 + 5e-7, 3});
  return v;
}

TEST(MpiAccountingMerge, NumbersWorkersRankMajorAndCountsOnlyTheWritingHostsPeers) {
  LedgerView r0 = rank_view(2, 3, 1000, 4, 0.0), r1 = rank_view(2, 3, 3000, 4, 0.5e-6), r2 = rank_view(2, 3, 2000, 0, 0);
  r2.counters_why = "perf_event_open: ENOENT";  // a follower's reason stays on its host
  r1.repetitions[1].wall_s = 99;  // a follower's wall time is not the job's: rank 0's clock is
  const LedgerView v = merge_views({pack_view(r0, 7.0), pack_view(r1, 1.5), pack_view(r2, 4.0)}, {0, 0, 1});
  EXPECT_EQ(v.workers, 6);
  EXPECT_EQ(v.ranks, (std::vector<int>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(v.hosts, (std::vector<int>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(v.totals[2].busy_ns, 3000u);
  EXPECT_EQ(v.totals[5].busy_ns, 2000u);
  EXPECT_EQ(v.cpus[3], (std::vector<int>{1, 5}));
  ASSERT_EQ(v.repetitions.size(), 3u);
  EXPECT_DOUBLE_EQ(v.repetitions[1].wall_s, 1.0);
  EXPECT_EQ(v.repetitions[0].busy_ns.size(), 6u);
  EXPECT_EQ(v.repetitions[0].busy_ns[2], 1000u);
  // Rank 1 shares rank 0's host, rank 2 does not; rank 0's own time is the runner's to count.
  EXPECT_DOUBLE_EQ(v.peers_cpu_s, 1.5);
  EXPECT_EQ(v.counters_why, "rank 2 counted no instructions and cycles");
  ASSERT_EQ(v.trace.size(), 8u);
  EXPECT_TRUE(std::is_sorted(v.trace.begin(), v.trace.end(),
                             [](const TraceEvent& a, const TraceEvent& b) { return a.start_s < b.start_s; }));
  EXPECT_EQ(v.trace[1].worker, 2) << "rank 1's first event, numbered after rank 0's workers";
  EXPECT_FALSE(v.trace_truncated);
}

TEST(MpiAccountingMerge, KeepsTheEarliestChunksWithinTheOneProcessBound) {
  const int each = static_cast<int>(WorkerLedger::kMaxTraceEvents);
  const LedgerView v = merge_views({pack_view(rank_view(1, 1, 10, each, 1.0), 0), pack_view(rank_view(1, 1, 10, each, 0.0), 0)}, {0, 0});
  ASSERT_EQ(v.trace.size(), WorkerLedger::kMaxTraceEvents);
  EXPECT_TRUE(v.trace_truncated);
  EXPECT_EQ(v.trace.front().worker, 1) << "rank 1's chunks started first";
}

TEST(MpiAccountingMerge, RefusesMalformedPacks) {
  const std::vector<double> good = pack_view(rank_view(2, 2, 100, 3, 0), 0);
  EXPECT_NO_THROW(merge_views({good}, {0}));
  EXPECT_THROW(merge_views({}, {}), FailureError);
  EXPECT_THROW(merge_views({good}, {0, 0}), FailureError) << "figures for fewer ranks than the job has";
  std::vector<double> shorter(good.begin(), good.end() - 1);
  EXPECT_THROW(merge_views({shorter}, {0}), FailureError) << "a pack cut short";
  std::vector<double> longer = good;
  longer.push_back(1);
  EXPECT_THROW(merge_views({longer}, {0}), FailureError) << "a pack with more than it says";
  EXPECT_THROW(merge_views({good, pack_view(rank_view(2, 3, 100, 0, 0), 0)}, {0, 0}), FailureError)
      << "ranks that closed different numbers of repetitions";
  for (std::size_t field : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    for (double bad : {-1.0, 0.5, std::nan(""), 1e300}) {
      std::vector<double> p = good;
      p[field] = bad;
      EXPECT_THROW(merge_views({p}, {0}), FailureError) << "header field " << field << " = " << bad;
    }
  }
  std::vector<double> event_worker = good;
  event_worker[event_worker.size() - 4] = 2;  // the last event names worker 2 of 2
  EXPECT_THROW(merge_views({event_worker}, {0}), FailureError);
}

}  // namespace
}  // namespace parlab::mpi
