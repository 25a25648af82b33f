// Per-worker accounting of a CPU executor's parallel loops: the measurements behind the POP
// efficiency hierarchy (docs/records.md, "Workers").
//
// One path for every CPU backend: AccountedExecutor wraps any Executor and times each body call
// (a "chunk") on the thread that runs it, in the WorkerLedger's slot of that worker. A backend's
// only part is to say which worker a thread is (WorkerScope, below), which it knows anyway: the
// threads backend's part i, the pool's worker i, OpenMP's thread number, TBB's arena slot.
//
// What one chunk costs to account (two monotonic reads, one or two thread-CPU and rusage reads, two
// sched_getcpu) is measured at run time (WorkerLedger::chunk_cost_s) and the runner turns
// accounting off for a record whose runs are too short to carry it within 1% (runner.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "executor.hpp"

namespace parlab {

// The worker index of the calling thread, as the executor running it set it (0 outside any
// parallel loop, and on the caller's own share).
int current_worker() noexcept;

// Marks the calling thread as worker `index` for the scope's lifetime (nests: restores the outer
// index). Executors put one around each worker's share of a loop.
class WorkerScope {
 public:
  explicit WorkerScope(int index) noexcept;
  ~WorkerScope();
  WorkerScope(const WorkerScope&) = delete;
  WorkerScope& operator=(const WorkerScope&) = delete;

 private:
  int saved_;
};

// What one worker did over the repetitions accounted so far (sums, in nanoseconds and counts).
struct WorkerTotals {
  std::uint64_t busy_ns = 0;   // wall time inside the body
  std::uint64_t cpu_ns = 0;    // thread CPU time inside the body
  std::uint64_t items = 0;     // indices (or tiles) the body was given
  std::uint64_t chunks = 0;    // body calls
  std::uint64_t switches = 0;  // involuntary context switches inside the body
  std::uint64_t instructions = 0, cycles = 0;  // where counters are available
};

// One repetition's figures, kept for the per-repetition load balance and communication efficiency.
struct RepetitionTotals {
  std::vector<std::uint64_t> busy_ns;  // per worker
  std::vector<std::uint64_t> cpu_ns;   // per worker
  double wall_s = 0;                   // the repetition's wall time (all its runs)
};

// One chunk of the traced run: which worker, when (from the run's start), on which CPU.
struct TraceEvent {
  int worker = 0;
  double start_s = 0, end_s = 0;
  int cpu = -1;
};

// What the runner reads of an accounting once the repetitions are done: one process's ledger, or
// a job's ranks gathered onto rank 0 (mpi/job_ledger.hpp). Worker w's figures are element w of
// each per-worker vector.
struct LedgerView {
  int workers = 0;
  std::vector<WorkerTotals> totals;
  std::vector<RepetitionTotals> repetitions;
  std::vector<std::vector<int>> cpus;  // the CPUs each worker ran on, ascending
  std::vector<TraceEvent> trace;
  bool trace_truncated = false;
  std::uint64_t unattributed = 0;
  std::string counters_why;  // empty where instruction and cycle counters were counted
  // A job of several processes: each worker's rank, and its host's index in the record's
  // host_names (0: the host that writes the record). Empty within one process.
  std::vector<int> ranks, hosts;
  // CPU seconds the job's other processes on host 0 used over the timed window: the host's CPU
  // time that is the job's own, not another program's (0 within one process).
  double peers_cpu_s = 0;
};

// The accounting of a workload's workers as the runner drives it: on or off, reset after the
// warm-up, a repetition closed, one run traced, then read. WorkerLedger is one process's; a job
// of MPI ranks drives every rank's ledger through the same calls (mpi/job_ledger.hpp).
class WorkerAccounting {
 public:
  virtual ~WorkerAccounting() = default;
  virtual void set_on(bool on) = 0;
  virtual void reset() = 0;
  virtual void end_repetition(double wall_s) = 0;
  virtual void start_trace() = 0;
  virtual void stop_trace() = 0;
  // Between loops only. Collective for a job: every rank sends its figures.
  virtual LedgerView view() = 0;
};

class WorkerLedger final : public WorkerAccounting {
 public:
  // PRECONDITION: workers >= 1 (the executor's thread count).
  explicit WorkerLedger(int workers);
  ~WorkerLedger();
  WorkerLedger(const WorkerLedger&) = delete;
  WorkerLedger& operator=(const WorkerLedger&) = delete;

  int workers() const noexcept { return static_cast<int>(slots_.size()); }

  // Accounting on or off. Off, a chunk costs one relaxed load. Set between loops only.
  void set_on(bool on) noexcept override { on_.store(on, std::memory_order_relaxed); }
  bool on() const noexcept { return on_.load(std::memory_order_relaxed); }

  // Clears every total (the warm-up's, before the timed repetitions).
  void reset() override;
  // Closes a repetition of `wall_s` seconds: its per-worker busy time joins repetitions().
  void end_repetition(double wall_s) override;
  // Keeps the chunks of what runs until stop_trace() (one run), at most kMaxTraceEvents.
  void start_trace() override;
  void stop_trace() override;
  LedgerView view() override;

  // A new loop begins (AccountedExecutor, before handing it to the executor).
  void begin_region() noexcept;

  // The chunk protocol, on the thread that runs the body (AccountedExecutor).
  struct Chunk {
    int worker = -1;  // -1: not accounted
    std::uint64_t region = 0;
    std::int64_t wall0 = 0, cpu0 = 0;
    std::int64_t switches0 = 0;
    int cpu = -1;
    std::uint64_t instructions0 = 0, cycles0 = 0;
  };
  // Within one region a thread's chunks follow each other with only the executor's dispatch
  // between them, so a chunk may start from the thread's CPU time and switches read at its
  // previous chunk's end (one read fewer a chunk). Where other work runs between a thread's
  // chunks (Python between two parlab.pi calls), each chunk reads them afresh, so that work is
  // not counted as the chunk's.
  enum class Usage { reuse_within_region, fresh };
  Chunk begin_chunk(Usage usage = Usage::reuse_within_region) noexcept;
  void end_chunk(const Chunk& c, std::uint64_t items) noexcept;

  // Read between loops (after the executor's join, which orders the workers' writes before).
  std::vector<WorkerTotals> totals() const;
  const std::vector<RepetitionTotals>& repetitions() const noexcept { return reps_; }
  // The CPUs each worker ran on, ascending.
  std::vector<std::vector<int>> cpus() const;
  std::vector<TraceEvent> trace() const;
  bool trace_truncated() const noexcept { return trace_truncated_.load(std::memory_order_relaxed); }
  // Chunks run by a thread whose worker index lay outside [0, workers): not accounted.
  std::uint64_t unattributed() const noexcept { return unattributed_.load(std::memory_order_relaxed); }

  // Whether instruction and cycle counters are counted, and why not where they are not.
  bool counters_available() const noexcept { return counters_why_.empty(); }
  const std::string& counters_why() const noexcept { return counters_why_; }

  // Seconds one accounted chunk adds, measured on the calling thread over `samples` empty chunks.
  static double chunk_cost_s(int samples = 2000);

  // 512 chunks keep a record within 64 KiB as results.json writes it (an event is about 50 bytes
  // there, one number a line); a run of more chunks is cut and says so (trace_truncated).
  static constexpr std::size_t kMaxTraceEvents = 512;
  static constexpr int kMaxCpus = 1024;

 private:
  struct Slot;
  std::vector<std::unique_ptr<Slot>> slots_;  // one per worker, each on its own cache lines
  std::atomic<bool> on_{false};
  std::atomic<std::uint64_t> region_{1};  // a slot's last_region 0 is never a region
  std::vector<RepetitionTotals> reps_;
  std::vector<std::uint64_t> busy_at_rep_start_, cpu_at_rep_start_;
  // The trace: a fixed array filled through an atomic cursor while tracing is on.
  std::atomic<bool> tracing_{false};
  std::int64_t trace_origin_ = 0;
  std::unique_ptr<TraceEvent[]> trace_;
  std::atomic<std::size_t> trace_next_{0};
  std::atomic<bool> trace_truncated_{false};
  std::atomic<std::uint64_t> unattributed_{0};
  std::string counters_why_;
};

// Any executor, with its loops accounted in a ledger. The body calls it makes are the inner
// executor's, unchanged: only timed.
class AccountedExecutor final : public Executor {
 public:
  explicit AccountedExecutor(std::unique_ptr<Executor> inner);
  std::string_view name() const override { return inner_->name(); }
  void parallel_for(Index n, Index grain, RangeBody body) override;
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override;
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;
  WorkerLedger& ledger() noexcept { return ledger_; }

 private:
  std::unique_ptr<Executor> inner_;
  WorkerLedger ledger_;
};

}  // namespace parlab
