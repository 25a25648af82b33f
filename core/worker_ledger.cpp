#include "worker_ledger.hpp"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>

namespace parlab {
namespace {

thread_local int tls_worker = 0;

std::int64_t clock_ns(clockid_t id) noexcept {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
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

// The body's clock. The TSC where it runs at one rate whatever the CPU's state and is counted on
// in every CPU alike (constant_tsc and nonstop_tsc; the kernel then uses it as its own clock),
// calibrated once per process against CLOCK_MONOTONIC; else CLOCK_MONOTONIC itself.
struct TickClock {
  bool tsc = false;
  double ns_per_tick = 1.0;
};

#if defined(__x86_64__)
std::uint64_t read_tsc() noexcept { return __rdtsc(); }

bool tsc_invariant() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    line += ' ';
    return line.find(" constant_tsc ") != std::string::npos && line.find(" nonstop_tsc ") != std::string::npos;
  }
  return false;
}

// A TSC reading and the monotonic clock's between two of them, from the closest of a few tries
// (a preemption between the reads would otherwise skew the pair).
struct TickPair {
  std::uint64_t tick = 0;
  std::int64_t ns = 0;
};
TickPair tick_pair() noexcept {
  TickPair best;
  std::uint64_t best_gap = ~std::uint64_t{0};
  for (int i = 0; i < 7; ++i) {
    const std::uint64_t a = read_tsc();
    const std::int64_t ns = clock_ns(CLOCK_MONOTONIC);
    const std::uint64_t b = read_tsc();
    if (b >= a && b - a < best_gap) {
      best_gap = b - a;
      best = {a + (b - a) / 2, ns};
    }
  }
  return best;
}
#endif

const TickClock& tick_clock() {
  static const TickClock clock = [] {
    TickClock c;
#if defined(__x86_64__)
    if (!tsc_invariant()) return c;
    // 2 ms between the two pairs: a pair is within about 100 ns, so the rate within 1e-4.
    const TickPair a = tick_pair();
    while (clock_ns(CLOCK_MONOTONIC) - a.ns < 2000000) {
    }
    const TickPair b = tick_pair();
    if (b.tick > a.tick && b.ns > a.ns) {
      c.tsc = true;
      c.ns_per_tick = static_cast<double>(b.ns - a.ns) / static_cast<double>(b.tick - a.tick);
    }
#endif
    return c;
  }();
  return clock;
}

// An unsigned decimal that fits 64 bits, the whole of `digits`.
std::optional<std::uint64_t> parse_u64(std::string_view digits) noexcept {
  if (digits.empty() || digits.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (const char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(ch - '0');
    if (v > (~std::uint64_t{0} - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// The whole of a small /proc file (at most `cap` bytes; a longer one is not what it should be).
std::optional<std::string> read_small(const char* path, std::size_t cap) noexcept {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text(cap, '\0');
  std::size_t got = 0;
  for (;;) {
    const ssize_t n = read(fd, text.data() + got, cap - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
    if (got == cap) break;
  }
  close(fd);
  if (got == 0 || got == cap) return std::nullopt;
  text.resize(got);
  return text;
}

// A thread's CPU time, involuntary switches and run-queue delay at one moment.
// The CPU clock is read between two reads of the monotonic clock, so that a window taken from an
// opening's first read to a closing's last contains every nanosecond of CPU time it counts: a
// clock read as the window closes still runs the thread.
struct ThreadUsage {
  std::int64_t mono_ns = 0;        // before the CPU clock's read
  std::int64_t cpu_ns = 0;
  std::int64_t mono_after_ns = 0;  // after it
  std::uint64_t switches = 0;
  std::uint64_t run_delay_ns = 0;
  bool run_delay_ok = false;
};

// The calling thread's: its CPU clock, not getrusage's CPU time (rusage reads the scheduler's
// sum without bringing the running thread's up to date, so it lags by up to a tick), getrusage
// for the switches, and its schedstat through a descriptor the thread keeps (pread of a /proc
// file re-reads it) for the run-queue delay.
struct ThreadHooks;
ThreadHooks& hooks() noexcept;

ThreadUsage own_usage(ThreadHooks& h) noexcept;

// Another thread of this process, by its id: its CPU clock (the kernel's clock id for a thread),
// its schedstat and its status.
ThreadUsage usage_of(long tid) noexcept {
  if (tid == this_thread_id()) return own_usage(hooks());
  ThreadUsage u;
  u.mono_ns = clock_ns(CLOCK_MONOTONIC);
  // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of the kernel's posix-cpu-timers: what
  // pthread_getcpuclockid returns for that thread.
  const auto id = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 4u | 2u);
  timespec ts{};
  if (clock_gettime(id, &ts) == 0) u.cpu_ns = static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  u.mono_after_ns = clock_ns(CLOCK_MONOTONIC);
  const std::string dir = "/proc/self/task/" + std::to_string(tid);
  if (const auto text = read_small((dir + "/schedstat").c_str(), 256)) {
    if (const auto st = parse_schedstat(*text)) {
      u.run_delay_ns = st->run_delay_ns;
      u.run_delay_ok = true;
    }
  }
  if (const auto text = read_small((dir + "/status").c_str(), 16384)) {
    if (const auto n = parse_nonvoluntary_switches(*text)) u.switches = *n;
  }
  return u;
}

}  // namespace

std::optional<ThreadSchedstat> parse_schedstat(std::string_view text) noexcept {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::uint64_t v[3] = {};
  int fields = 0;
  while (!text.empty()) {
    if (fields == 3) return std::nullopt;
    const std::size_t end = text.find(' ');
    const auto x = parse_u64(text.substr(0, end));
    if (!x) return std::nullopt;
    v[fields++] = *x;
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
    if (text.empty()) return std::nullopt;  // a trailing blank: not the kernel's line
  }
  if (fields < 2) return std::nullopt;
  return ThreadSchedstat{v[0], v[1], v[2]};
}

std::optional<std::uint64_t> parse_nonvoluntary_switches(std::string_view status) noexcept {
  static constexpr std::string_view key = "nonvoluntary_ctxt_switches:";
  std::optional<std::uint64_t> found;
  while (!status.empty()) {
    const std::size_t eol = status.find('\n');
    std::string_view line = status.substr(0, eol);
    status.remove_prefix(eol == std::string_view::npos ? status.size() : eol + 1);
    if (line.substr(0, key.size()) != key) continue;
    if (found) return std::nullopt;
    line.remove_prefix(key.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    const auto v = parse_u64(line);
    if (!v) return std::nullopt;
    found = v;
  }
  return found;
}

namespace detail {

// The windows of one ledger: the open ones, by thread, and each worker's closed sums. Shared with
// the threads that opened a window, so that a thread that exits before its repetition ends closes
// its own (ThreadHooks) even where the ledger is gone by then. Every member under `mutex`.
struct WindowBook {
  struct Open {
    long tid = 0;
    int worker = 0;
    ThreadUsage at_open;
  };
  std::mutex mutex;
  std::vector<Open> open;
  std::vector<WorkerTotals> sums;  // cpu_ns, switches, run_delay_ns, window_ns, windows
  std::uint64_t closed = 0, delay_missing = 0;

  void close(const Open& o, const ThreadUsage& now) {
    WorkerTotals& s = sums[static_cast<std::size_t>(o.worker)];
    const auto diff = [](auto a, auto b) { return static_cast<std::uint64_t>(b > a ? b - a : 0); };
    s.cpu_ns += diff(o.at_open.cpu_ns, now.cpu_ns);
    s.switches += diff(o.at_open.switches, now.switches);
    s.window_ns += diff(o.at_open.mono_ns, now.mono_after_ns);
    if (o.at_open.run_delay_ok && now.run_delay_ok) {
      s.run_delay_ns += diff(o.at_open.run_delay_ns, now.run_delay_ns);
    } else {
      ++delay_missing;
    }
    ++closed;
  }
};

}  // namespace detail

namespace {

// What a thread keeps for the ledgers it works for: its schedstat descriptor, and the books in
// which it may hold an open window, closed when it exits.
struct ThreadHooks {
  int schedstat_fd = -2;  // -2: not opened yet; -1: could not be
  pid_t schedstat_pid = 0;  // the process it was opened in: a forked child's is its parent's thread
  std::vector<std::weak_ptr<detail::WindowBook>> books;
  ~ThreadHooks() {
    const long tid = this_thread_id();
    for (const auto& weak : books) {
      const auto book = weak.lock();
      if (!book) continue;
      std::lock_guard<std::mutex> lock(book->mutex);
      const auto it = std::find_if(book->open.begin(), book->open.end(), [&](const auto& o) { return o.tid == tid; });
      if (it == book->open.end()) continue;
      book->close(*it, own_usage(*this));
      book->open.erase(it);
    }
    if (schedstat_fd >= 0) close(schedstat_fd);
  }
};

ThreadHooks& hooks() noexcept {
  static thread_local ThreadHooks h;
  return h;
}

ThreadUsage own_usage(ThreadHooks& h) noexcept {
  ThreadUsage u;
  u.mono_ns = clock_ns(CLOCK_MONOTONIC);
  u.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  u.mono_after_ns = clock_ns(CLOCK_MONOTONIC);
  rusage ru{};
  if (getrusage(RUSAGE_THREAD, &ru) == 0) u.switches = static_cast<std::uint64_t>(ru.ru_nivcsw);
  if (const pid_t pid = getpid(); h.schedstat_fd == -2 || h.schedstat_pid != pid) {
    if (h.schedstat_fd >= 0) close(h.schedstat_fd);
    h.schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    h.schedstat_pid = pid;
  }
  if (h.schedstat_fd >= 0) {
    char buf[256];
    const ssize_t n = pread(h.schedstat_fd, buf, sizeof buf, 0);
    if (n > 0 && static_cast<std::size_t>(n) < sizeof buf) {
      if (const auto st = parse_schedstat(std::string_view(buf, static_cast<std::size_t>(n)))) {
        u.run_delay_ns = st->run_delay_ns;
        u.run_delay_ok = true;
      }
    }
  }
  return u;
}

}  // namespace

int current_worker() noexcept { return tls_worker; }

WorkerScope::WorkerScope(int index) noexcept : saved_(tls_worker) { tls_worker = index; }
WorkerScope::~WorkerScope() { tls_worker = saved_; }

// A worker's running sums and the CPUs it was seen on. Written only by the thread that is that
// worker during a loop, read between loops: the executor's join orders the two.
struct alignas(64) WorkerLedger::Slot {
  WorkerTotals sums;  // busy_ns holds ticks here (ticks_to_ns converts when read)
  std::uint64_t cpu_bits[kMaxCpus / 64] = {};
  // The thread's counter group (instructions leads, cycles follows), opened on its first chunk;
  // reopened when another thread becomes this worker (the threads backend starts new ones per loop).
  long owner_tid = 0;
  int group_fd = -1, cycles_fd = -1;
  // The thread that last opened (or found open) a window as this worker, and in which epoch: the
  // next chunk of the same thread in the same epoch has nothing to open.
  long window_tid = 0;
  std::uint64_t window_epoch = 0;
  void close_counters() noexcept {
    if (cycles_fd >= 0) close(cycles_fd);
    if (group_fd >= 0) close(group_fd);
    group_fd = cycles_fd = -1;
  }
  ~Slot() { close_counters(); }
};

bool WorkerLedger::tsc_timed() noexcept { return tick_clock().tsc; }
double WorkerLedger::ns_per_tick() noexcept { return tick_clock().ns_per_tick; }

WorkerLedger::WorkerLedger(int workers)
    : tsc_(tick_clock().tsc),
      ns_per_tick_(tick_clock().ns_per_tick),
      book_(std::make_shared<detail::WindowBook>()),
      trace_(new TraceEvent[kMaxTraceEvents]),
      counters_why_(probe_counters()) {
  for (int i = 0; i < std::max(1, workers); ++i) slots_.push_back(std::make_unique<Slot>());
  book_->sums.assign(slots_.size(), WorkerTotals{});
  at_rep_start_.assign(slots_.size(), WorkerTotals{});
}

WorkerLedger::~WorkerLedger() = default;

std::uint64_t WorkerLedger::ticks() const noexcept {
#if defined(__x86_64__)
  if (tsc_) return read_tsc();
#endif
  return static_cast<std::uint64_t>(clock_ns(CLOCK_MONOTONIC));
}

std::uint64_t WorkerLedger::ticks_to_ns(std::uint64_t ticks) const noexcept {
  return tsc_ ? static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * ns_per_tick_)) : ticks;
}

void WorkerLedger::reset() {
  for (auto& s : slots_) {
    s->sums = WorkerTotals{};
    std::fill(std::begin(s->cpu_bits), std::end(s->cpu_bits), 0);
  }
  {
    // The warm-up's windows are dropped unread: their threads open new ones in the next epoch.
    std::lock_guard<std::mutex> lock(book_->mutex);
    book_->open.clear();
    book_->sums.assign(slots_.size(), WorkerTotals{});
    book_->closed = book_->delay_missing = 0;
  }
  epoch_.fetch_add(1, std::memory_order_relaxed);
  reps_.clear();
  at_rep_start_.assign(slots_.size(), WorkerTotals{});
  trace_next_.store(0, std::memory_order_relaxed);
  trace_truncated_.store(false, std::memory_order_relaxed);
  unattributed_.store(0, std::memory_order_relaxed);
}

void WorkerLedger::open_window(int worker) noexcept {
  const long tid = this_thread_id();
  ThreadHooks& h = hooks();
  std::lock_guard<std::mutex> lock(book_->mutex);
  // One window per thread and repetition, whichever worker it serves next (TBB's arena slots).
  if (std::none_of(book_->open.begin(), book_->open.end(), [&](const auto& o) { return o.tid == tid; })) {
    book_->open.push_back({tid, worker, own_usage(h)});
    book_->sums[static_cast<std::size_t>(worker)].windows += 1;
    const bool known = std::any_of(h.books.begin(), h.books.end(), [&](const auto& b) { return b.lock() == book_; });
    if (!known) {
      std::erase_if(h.books, [](const auto& b) { return b.expired(); });
      h.books.push_back(book_);
    }
  }
}

void WorkerLedger::close_windows() {
  std::lock_guard<std::mutex> lock(book_->mutex);
  for (const auto& o : book_->open) book_->close(o, usage_of(o.tid));
  book_->open.clear();
}

void WorkerLedger::end_repetition(double wall_s) {
  close_windows();
  epoch_.fetch_add(1, std::memory_order_relaxed);
  std::vector<WorkerTotals> now = totals();
  RepetitionTotals r;
  r.wall_s = wall_s;
  // A window opens inside its repetition but closes after it: the runner takes the repetition's
  // wall time first, then the windows are closed (each a read of a thread's clocks), and an
  // executor's idle threads may meanwhile spin on a CPU (OpenMP's active wait). CPU time beyond
  // the repetition's wall time ran after the repetition, not in it: it is taken out of the sums,
  // so that a worker's CPU time in a repetition never exceeds the repetition.
  const double wall_ns = wall_s * 1e9;
  for (std::size_t w = 0; w < slots_.size(); ++w) {
    const std::uint64_t cpu = now[w].cpu_ns - at_rep_start_[w].cpu_ns;
    if (wall_ns > 0 && static_cast<double>(cpu) > wall_ns) {
      const std::uint64_t over = cpu - static_cast<std::uint64_t>(wall_ns);
      std::lock_guard<std::mutex> lock(book_->mutex);
      book_->sums[w].cpu_ns -= over;
      now[w].cpu_ns -= over;
    }
  }
  for (std::size_t w = 0; w < slots_.size(); ++w) {
    r.busy_ns.push_back(now[w].busy_ns - at_rep_start_[w].busy_ns);
    r.cpu_ns.push_back(now[w].cpu_ns - at_rep_start_[w].cpu_ns);
    r.run_delay_ns.push_back(now[w].run_delay_ns - at_rep_start_[w].run_delay_ns);
  }
  at_rep_start_ = now;
  reps_.push_back(std::move(r));
}

void WorkerLedger::start_trace() {
  trace_next_.store(0, std::memory_order_relaxed);
  trace_truncated_.store(false, std::memory_order_relaxed);
  trace_origin_ = ticks();
  tracing_.store(true, std::memory_order_relaxed);
}

void WorkerLedger::stop_trace() { tracing_.store(false, std::memory_order_relaxed); }

WorkerLedger::Chunk WorkerLedger::begin_chunk() noexcept {
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
  const std::uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  if (s.window_tid != tid || s.window_epoch != epoch) {
    open_window(w);
    s.window_tid = tid;
    s.window_epoch = epoch;
  }
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
  c.cpu = sched_getcpu();
  c.tick0 = ticks();
  return c;
}

void WorkerLedger::end_chunk(const Chunk& c, std::uint64_t items) noexcept {
  if (c.worker < 0) return;
  const std::uint64_t tick1 = ticks();
  const int cpu_end = sched_getcpu();
  Slot& s = *slots_[static_cast<std::size_t>(c.worker)];
  s.sums.busy_ns += tick1 > c.tick0 ? tick1 - c.tick0 : 0;  // ticks, converted when read
  s.sums.items += items;
  s.sums.chunks += 1;
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
      const auto since = [&](std::uint64_t t) {
        return t > trace_origin_ ? static_cast<double>(ticks_to_ns(t - trace_origin_)) * 1e-9 : 0.0;
      };
      trace_[i] = TraceEvent{c.worker, since(c.tick0), since(tick1), c.cpu};
    } else {
      trace_truncated_.store(true, std::memory_order_relaxed);
    }
  }
}

std::vector<WorkerTotals> WorkerLedger::totals() const {
  std::vector<WorkerTotals> t;
  std::lock_guard<std::mutex> lock(book_->mutex);
  for (std::size_t w = 0; w < slots_.size(); ++w) {
    WorkerTotals x = slots_[w]->sums;
    x.busy_ns = ticks_to_ns(x.busy_ns);
    const WorkerTotals& b = book_->sums[w];
    x.cpu_ns = b.cpu_ns;
    x.switches = b.switches;
    x.run_delay_ns = b.run_delay_ns;
    x.window_ns = b.window_ns;
    x.windows = b.windows;
    t.push_back(x);
  }
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
  {
    std::lock_guard<std::mutex> lock(book_->mutex);
    if (book_->closed > 0) v.run_delay_source = book_->delay_missing > 0 ? "unavailable" : "schedstat";
  }
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
  probe.end_chunk(probe.begin_chunk(), 1);  // the window opens on the first chunk: not a chunk's cost
  const std::int64_t t0 = clock_ns(CLOCK_MONOTONIC);
  for (int i = 0; i < samples; ++i) probe.end_chunk(probe.begin_chunk(), 1);
  const std::int64_t t1 = clock_ns(CLOCK_MONOTONIC);
  return static_cast<double>(t1 - t0) * 1e-9 / std::max(1, samples);
}

double WorkerLedger::window_cost_s(int samples) {
  WorkerLedger probe(1);
  probe.set_on(true);
  WorkerScope scope(0);
  own_usage(hooks());  // the thread's schedstat descriptor, opened once per thread
  // A window as a thread that exits costs it: opened on its first chunk, closed by its own reads.
  const std::int64_t t0 = clock_ns(CLOCK_MONOTONIC);
  for (int i = 0; i < samples; ++i) {
    probe.end_chunk(probe.begin_chunk(), 1);
    probe.close_windows();
    probe.epoch_.fetch_add(1, std::memory_order_relaxed);
  }
  const std::int64_t t1 = clock_ns(CLOCK_MONOTONIC);
  return static_cast<double>(t1 - t0) * 1e-9 / std::max(1, samples);
}

AccountedExecutor::AccountedExecutor(std::unique_ptr<Executor> inner)
    : Executor(inner->threads()), inner_(std::move(inner)), ledger_(threads()) {}

void AccountedExecutor::parallel_for(Index n, Index grain, RangeBody body) {
  if (!ledger_.on()) return inner_->parallel_for(n, grain, body);
  inner_->parallel_for(n, grain, [&](Index b, Index e) {
    const auto c = ledger_.begin_chunk();
    body(b, e);
    ledger_.end_chunk(c, e - b);
  });
}

std::uint64_t AccountedExecutor::parallel_sum(Index n, Index grain, RangeSumBody body) {
  if (!ledger_.on()) return inner_->parallel_sum(n, grain, body);
  return inner_->parallel_sum(n, grain, [&](Index b, Index e) {
    const auto c = ledger_.begin_chunk();
    const std::uint64_t v = body(b, e);
    ledger_.end_chunk(c, e - b);
    return v;
  });
}

void AccountedExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  if (!ledger_.on()) return inner_->parallel_for_2d(nx, ny, tile_x, tile_y, body);
  inner_->parallel_for_2d(nx, ny, tile_x, tile_y, [&](const Tile2D& t) {
    const auto c = ledger_.begin_chunk();
    body(t);
    ledger_.end_chunk(c, 1);
  });
}

}  // namespace parlab
