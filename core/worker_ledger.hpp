// Per-worker accounting of a CPU executor's parallel loops: the measurements behind the POP
// efficiency hierarchy (docs/records.md, "Workers").
//
// One path for every CPU backend: AccountedExecutor wraps any Executor and times each body call
// (a "chunk") on the thread that runs it, in the WorkerLedger's slot of that worker. A backend's
// only part is to say which worker a thread is (WorkerScope, below), which it knows anyway: the
// threads backend's part i, the pool's worker i, OpenMP's thread number, TBB's arena slot.
//
// Two grains of measurement, chosen by what each read costs (medians on the 2-core VM, in batches
// short enough to run unpreempted: a CLOCK_MONOTONIC read 18 ns through the vDSO, rdtsc 8 ns,
// rdtscp 14 ns, sched_getcpu 1 ns through rseq; but the thread's CPU clock 200 ns and getrusage
// 145 ns, both system calls, a pread of the thread's schedstat 290 ns, and opening and reading it
// 1.6 us, its status 4 us):
// * per chunk, only what must be exact per body call: the time in the body from the invariant
//   TSC (CLOCK_MONOTONIC where there is none), the items, and the CPU at its two ends (and the
//   instruction and cycle counters, two reads, where perf_event_open lets this process count);
// * per worker thread and repetition, a "window" from the thread's first chunk of the repetition
//   to the repetition's end (or the thread's exit, where an executor starts threads per loop):
//   its CPU time, involuntary switches and run-queue delay, read at those two edges only.
//
// What one chunk and one window cost to account is measured at run time (chunk_cost_s,
// window_cost_s) and the runner turns accounting off for a record whose runs are too short to
// carry it within 1% (runner.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
// busy_ns, items and chunks are exact sums over its body calls; the window figures are sums over
// its threads' windows (see above) closed so far: they include the executor's dispatch and waits
// between its chunks, which busy_ns does not.
struct WorkerTotals {
  std::uint64_t busy_ns = 0;       // wall time inside the body (its running part is useful time)
  std::uint64_t cpu_ns = 0;        // thread CPU time over its windows
  std::uint64_t items = 0;         // indices (or tiles) the body was given
  std::uint64_t chunks = 0;        // body calls
  std::uint64_t switches = 0;      // involuntary context switches over its windows
  std::uint64_t run_delay_ns = 0;  // time runnable but not running (schedstat) over its windows
  std::uint64_t window_ns = 0;     // wall time of its windows
  std::uint64_t windows = 0;       // windows opened (closed or not)
  std::uint64_t instructions = 0, cycles = 0;  // where counters are available
};

// One repetition's figures, kept for the per-repetition load balance and communication efficiency.
struct RepetitionTotals {
  std::vector<std::uint64_t> busy_ns;       // per worker: wall time in the body
  std::vector<std::uint64_t> cpu_ns;        // per worker: CPU time over its windows
  std::vector<std::uint64_t> run_delay_ns;  // per worker: run-queue delay over its windows
  double wall_s = 0;                        // the repetition's wall time (all its runs)
};

// One line of /proc/<pid>/task/<tid>/schedstat: the thread's time on a CPU, its time runnable but
// waiting on a run queue (both ns), and its timeslices. nullopt for anything but two or three
// unsigned decimal numbers that fit 64 bits, separated by blanks, with at most a newline after.
struct ThreadSchedstat {
  std::uint64_t exec_ns = 0, run_delay_ns = 0, timeslices = 0;
};
std::optional<ThreadSchedstat> parse_schedstat(std::string_view text) noexcept;
// The `nonvoluntary_ctxt_switches:` line of /proc/<pid>/task/<tid>/status; nullopt where it is
// missing, repeated, or not one unsigned decimal number that fits 64 bits.
std::optional<std::uint64_t> parse_nonvoluntary_switches(std::string_view status) noexcept;

namespace detail {
struct WindowBook;  // the open windows and their sums, shared with the threads' exit (worker_ledger.cpp)
}

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
  // Where run_delay_ns came from: "schedstat" where every closed window read the kernel's
  // run-queue delay at both edges, "unavailable" where one could not, empty where none closed.
  std::string run_delay_source;
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

  // The chunk protocol, on the thread that runs the body (AccountedExecutor). A thread's first
  // chunk of a repetition also opens its window (a few system calls, once).
  struct Chunk {
    int worker = -1;  // -1: not accounted
    std::uint64_t tick0 = 0;
    int cpu = -1;
    std::uint64_t instructions0 = 0, cycles0 = 0;
  };
  Chunk begin_chunk() noexcept;
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
  // Seconds one window adds to the runs: its opening on a worker thread and its closing there
  // (a thread that exits); measured on the calling thread over `samples` windows.
  static double window_cost_s(int samples = 20);
  // Whether the body is timed by the TSC, and its nanoseconds per tick (1 where it is not).
  static bool tsc_timed() noexcept;
  static double ns_per_tick() noexcept;

  // 512 chunks keep a record within 64 KiB as results.json writes it (an event is about 50 bytes
  // there, one number a line); a run of more chunks is cut and says so (trace_truncated).
  static constexpr std::size_t kMaxTraceEvents = 512;
  static constexpr int kMaxCpus = 1024;

 private:
  struct Slot;
  std::vector<std::unique_ptr<Slot>> slots_;  // one per worker, each on its own cache lines
  std::uint64_t ticks() const noexcept;
  std::uint64_t ticks_to_ns(std::uint64_t ticks) const noexcept;
  void open_window(int worker) noexcept;
  void close_windows();
  std::atomic<bool> on_{false};
  // Bumped at every repetition's edge: a thread whose slot saw it last in an older epoch opens a
  // window. Changed between loops only.
  std::atomic<std::uint64_t> epoch_{1};
  const bool tsc_;
  const double ns_per_tick_;
  std::shared_ptr<detail::WindowBook> book_;
  std::vector<RepetitionTotals> reps_;
  std::vector<WorkerTotals> at_rep_start_;
  // The trace: a fixed array filled through an atomic cursor while tracing is on.
  std::atomic<bool> tracing_{false};
  std::uint64_t trace_origin_ = 0;  // ticks
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
