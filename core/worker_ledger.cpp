#include "worker_ledger.hpp"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace parlab {
namespace {

thread_local int tls_worker = 0;

std::int64_t clock_ns(clockid_t id) noexcept {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The calling thread's CPU time (ns) and involuntary context switches. The CPU time is the
// thread CPU clock's, not getrusage's: rusage reads the scheduler's sum without bringing the
// running thread's up to date, so it lags by up to a tick (4 ms), and on the 2-core VM an 80 us
// chunk read 1.4 us of CPU time. The two calls cost about 0.8 and 0.45 us there.
struct ThreadUsage {
  std::int64_t cpu_ns = 0, switches = 0;
};
ThreadUsage thread_usage() noexcept {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return {clock_ns(CLOCK_THREAD_CPUTIME_ID), ru.ru_nivcsw};
}

long this_thread_id() noexcept {
  static thread_local const long tid = syscall(SYS_gettid);
  return tid;
}

long perf_open(std::uint64_t config, int group_fd) noexcept {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP;
  // This thread only (pid 0), on whichever CPU it runs.
  return syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, 0);
}

// Empty where this thread can count instructions and cycles; else why not, as a user can act on it.
std::string probe_counters() {
  const long fd = perf_open(PERF_COUNT_HW_INSTRUCTIONS, -1);
  if (fd >= 0) {
    close(static_cast<int>(fd));
    return {};
  }
  std::string why = std::string("perf_event_open(instructions): ") + std::strerror(errno);
  std::ifstream paranoid("/proc/sys/kernel/perf_event_paranoid");
  if (int level = 0; paranoid >> level) why += " (kernel.perf_event_paranoid = " + std::to_string(level) + ")";
  return why;
}

}  // namespace

int current_worker() noexcept { return tls_worker; }

WorkerScope::WorkerScope(int index) noexcept : saved_(tls_worker) { tls_worker = index; }
WorkerScope::~WorkerScope() { tls_worker = saved_; }

// A worker's running sums and the CPUs it was seen on. Written only by the thread that is that
// worker during a loop, read between loops: the executor's join orders the two.
struct alignas(64) WorkerLedger::Slot {
  WorkerTotals sums;
  std::uint64_t cpu_bits[kMaxCpus / 64] = {};
  // The thread's counter group (instructions leads, cycles follows), opened on its first chunk;
  // reopened when another thread becomes this worker (the threads backend starts new ones per loop).
  long owner_tid = 0;
  int group_fd = -1, cycles_fd = -1;
  // The usage read at this worker's last chunk end: the next chunk of the same loop on the same
  // thread starts from it (one system call a chunk, not two; what lies between is the grab of
  // the next chunk, a hundred nanoseconds against chunks the budget keeps over 50 us).
  std::uint64_t last_region = 0;
  long last_tid = 0;
  ThreadUsage last_usage;
  void close_counters() noexcept {
    if (cycles_fd >= 0) close(cycles_fd);
    if (group_fd >= 0) close(group_fd);
    group_fd = cycles_fd = -1;
  }
  ~Slot() { close_counters(); }
};

WorkerLedger::WorkerLedger(int workers)
    : trace_(new TraceEvent[kMaxTraceEvents]), counters_why_(probe_counters()) {
  for (int i = 0; i < std::max(1, workers); ++i) slots_.push_back(std::make_unique<Slot>());
  busy_at_rep_start_.assign(slots_.size(), 0);
  cpu_at_rep_start_.assign(slots_.size(), 0);
}

WorkerLedger::~WorkerLedger() = default;

void WorkerLedger::reset() {
  for (auto& s : slots_) {
    s->sums = WorkerTotals{};
    std::fill(std::begin(s->cpu_bits), std::end(s->cpu_bits), 0);
  }
  reps_.clear();
  busy_at_rep_start_.assign(slots_.size(), 0);
  cpu_at_rep_start_.assign(slots_.size(), 0);
  trace_next_.store(0, std::memory_order_relaxed);
  trace_truncated_.store(false, std::memory_order_relaxed);
  unattributed_.store(0, std::memory_order_relaxed);
}

void WorkerLedger::end_repetition(double wall_s) {
  RepetitionTotals r;
  r.wall_s = wall_s;
  for (std::size_t w = 0; w < slots_.size(); ++w) {
    r.busy_ns.push_back(slots_[w]->sums.busy_ns - busy_at_rep_start_[w]);
    r.cpu_ns.push_back(slots_[w]->sums.cpu_ns - cpu_at_rep_start_[w]);
    busy_at_rep_start_[w] = slots_[w]->sums.busy_ns;
    cpu_at_rep_start_[w] = slots_[w]->sums.cpu_ns;
  }
  reps_.push_back(std::move(r));
}

void WorkerLedger::start_trace() {
  trace_next_.store(0, std::memory_order_relaxed);
  trace_truncated_.store(false, std::memory_order_relaxed);
  trace_origin_ = clock_ns(CLOCK_MONOTONIC);
  tracing_.store(true, std::memory_order_relaxed);
}

void WorkerLedger::begin_region() noexcept { region_.fetch_add(1, std::memory_order_relaxed); }

void WorkerLedger::stop_trace() { tracing_.store(false, std::memory_order_relaxed); }

WorkerLedger::Chunk WorkerLedger::begin_chunk(Usage usage) noexcept {
  Chunk c;
  if (!on()) return c;
  const int w = current_worker();
  if (w < 0 || w >= workers()) {
    unattributed_.fetch_add(1, std::memory_order_relaxed);
    return c;
  }
  c.worker = w;
  Slot& s = *slots_[static_cast<std::size_t>(w)];
  const long tid = this_thread_id();
  if (counters_available()) {
    if (s.owner_tid != tid) {
      s.close_counters();
      s.owner_tid = tid;
      s.group_fd = static_cast<int>(perf_open(PERF_COUNT_HW_INSTRUCTIONS, -1));
      if (s.group_fd >= 0) s.cycles_fd = static_cast<int>(perf_open(PERF_COUNT_HW_CPU_CYCLES, s.group_fd));
    }
    std::uint64_t v[3] = {};  // nr, instructions, cycles
    if (s.cycles_fd >= 0 && read(s.group_fd, v, sizeof v) == static_cast<ssize_t>(sizeof v)) {
      c.instructions0 = v[1];
      c.cycles0 = v[2];
    }
  }
  const std::uint64_t region = region_.load(std::memory_order_relaxed);
  const bool reuse = usage == Usage::reuse_within_region && s.last_region == region && s.last_tid == tid;
  const ThreadUsage u = reuse ? s.last_usage : thread_usage();
  c.region = region;
  c.switches0 = u.switches;
  c.cpu0 = u.cpu_ns;
  c.cpu = sched_getcpu();
  c.wall0 = clock_ns(CLOCK_MONOTONIC);
  return c;
}

void WorkerLedger::end_chunk(const Chunk& c, std::uint64_t items) noexcept {
  if (c.worker < 0) return;
  const std::int64_t wall1 = clock_ns(CLOCK_MONOTONIC);
  const int cpu_end = sched_getcpu();
  const ThreadUsage u = thread_usage();
  const std::int64_t cpu1 = u.cpu_ns, switches1 = u.switches;
  Slot& s = *slots_[static_cast<std::size_t>(c.worker)];
  s.last_usage = u;
  s.last_region = c.region;
  s.last_tid = this_thread_id();
  s.sums.busy_ns += static_cast<std::uint64_t>(std::max<std::int64_t>(0, wall1 - c.wall0));
  s.sums.cpu_ns += static_cast<std::uint64_t>(std::max<std::int64_t>(0, cpu1 - c.cpu0));
  s.sums.items += items;
  s.sums.chunks += 1;
  s.sums.switches += static_cast<std::uint64_t>(std::max<std::int64_t>(0, switches1 - c.switches0));
  for (int cpu : {c.cpu, cpu_end}) {
    if (cpu >= 0 && cpu < kMaxCpus) s.cpu_bits[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
  }
  if (s.cycles_fd >= 0) {
    std::uint64_t v[3] = {};
    if (read(s.group_fd, v, sizeof v) == static_cast<ssize_t>(sizeof v)) {
      s.sums.instructions += v[1] - c.instructions0;
      s.sums.cycles += v[2] - c.cycles0;
    }
  }
  if (tracing_.load(std::memory_order_relaxed)) {
    const std::size_t i = trace_next_.fetch_add(1, std::memory_order_relaxed);
    if (i < kMaxTraceEvents) {
      trace_[i] = TraceEvent{c.worker, static_cast<double>(c.wall0 - trace_origin_) * 1e-9,
                             static_cast<double>(wall1 - trace_origin_) * 1e-9, c.cpu};
    } else {
      trace_truncated_.store(true, std::memory_order_relaxed);
    }
  }
}

std::vector<WorkerTotals> WorkerLedger::totals() const {
  std::vector<WorkerTotals> t;
  for (const auto& s : slots_) t.push_back(s->sums);
  return t;
}

std::vector<std::vector<int>> WorkerLedger::cpus() const {
  std::vector<std::vector<int>> out;
  for (const auto& s : slots_) {
    std::vector<int> v;
    for (int cpu = 0; cpu < kMaxCpus; ++cpu) {
      if (s->cpu_bits[cpu / 64] >> (cpu % 64) & 1) v.push_back(cpu);
    }
    out.push_back(std::move(v));
  }
  return out;
}

LedgerView WorkerLedger::view() {
  LedgerView v;
  v.workers = workers();
  v.totals = totals();
  v.repetitions = reps_;
  v.cpus = cpus();
  v.trace = trace();
  v.trace_truncated = trace_truncated();
  v.unattributed = unattributed();
  v.counters_why = counters_why_;
  return v;
}

std::vector<TraceEvent> WorkerLedger::trace() const {
  const std::size_t n = std::min(trace_next_.load(), kMaxTraceEvents);
  return {trace_.get(), trace_.get() + n};
}

double WorkerLedger::chunk_cost_s(int samples) {
  WorkerLedger probe(1);
  probe.set_on(true);
  WorkerScope scope(0);
  const std::int64_t t0 = clock_ns(CLOCK_MONOTONIC);
  // Chunks in loops of kGrabsPerThread, as the dynamic executors hand them out: a worker's
  // first chunk of a loop reads its usage twice, the others once.
  for (int i = 0; i < samples; ++i) {
    if (i % static_cast<int>(kGrabsPerThread) == 0) probe.begin_region();
    probe.end_chunk(probe.begin_chunk(), 1);
  }
  const std::int64_t t1 = clock_ns(CLOCK_MONOTONIC);
  return static_cast<double>(t1 - t0) * 1e-9 / std::max(1, samples);
}

AccountedExecutor::AccountedExecutor(std::unique_ptr<Executor> inner)
    : Executor(inner->threads()), inner_(std::move(inner)), ledger_(threads()) {}

void AccountedExecutor::parallel_for(Index n, Index grain, RangeBody body) {
  if (!ledger_.on()) return inner_->parallel_for(n, grain, body);
  ledger_.begin_region();
  inner_->parallel_for(n, grain, [&](Index b, Index e) {
    const auto c = ledger_.begin_chunk();
    body(b, e);
    ledger_.end_chunk(c, e - b);
  });
}

std::uint64_t AccountedExecutor::parallel_sum(Index n, Index grain, RangeSumBody body) {
  if (!ledger_.on()) return inner_->parallel_sum(n, grain, body);
  ledger_.begin_region();
  return inner_->parallel_sum(n, grain, [&](Index b, Index e) {
    const auto c = ledger_.begin_chunk();
    const std::uint64_t v = body(b, e);
    ledger_.end_chunk(c, e - b);
    return v;
  });
}

void AccountedExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  if (!ledger_.on()) return inner_->parallel_for_2d(nx, ny, tile_x, tile_y, body);
  ledger_.begin_region();
  inner_->parallel_for_2d(nx, ny, tile_x, tile_y, [&](const Tile2D& t) {
    const auto c = ledger_.begin_chunk();
    body(t);
    ledger_.end_chunk(c, 1);
  });
}

}  // namespace parlab
