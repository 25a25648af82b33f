#include "pool.hpp"

#include <algorithm>
#include <string>

#include "backends.hpp"
#include "core/worker_ledger.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace parlab {
namespace {

thread_local const ThreadPool* tls_current_pool = nullptr;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// How long a waiting thread polls before it blocks in the kernel: roughly tens of
// microseconds, long enough to catch the next region of a tight loop of fork-joins.
constexpr int kSpinIterations = 4000;

// Waits until `word` differs from `old`, spinning first when `spin`. Returns the new value.
std::uint32_t wait_change(const std::atomic<std::uint32_t>& word, std::uint32_t old, bool spin) {
  std::uint32_t v = word.load(std::memory_order_acquire);
  if (spin) {
    for (int i = 0; v == old && i < kSpinIterations; ++i) {
      cpu_relax();
      v = word.load(std::memory_order_acquire);
    }
  }
  while (v == old) {
    word.wait(old, std::memory_order_acquire);
    v = word.load(std::memory_order_acquire);
  }
  return v;
}

// Marks the current thread as running a body of `pool` for the scope's lifetime.
class InPoolScope {
 public:
  explicit InPoolScope(const ThreadPool* pool) noexcept : saved_(tls_current_pool) {
    tls_current_pool = pool;
  }
  ~InPoolScope() { tls_current_pool = saved_; }
  InPoolScope(const InPoolScope&) = delete;
  InPoolScope& operator=(const InPoolScope&) = delete;

 private:
  const ThreadPool* saved_;
};

struct alignas(64) PaddedSum {
  std::uint64_t value = 0;
};

}  // namespace

ThreadPool::ThreadPool(int threads)
    : threads_(Executor::check_threads(threads)),
      spin_(static_cast<unsigned>(threads) <= std::max(1u, std::thread::hardware_concurrency())) {
  workers_.reserve(static_cast<std::size_t>(threads_ - 1));
  try {
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker_main(i); });
  } catch (...) {
    stop_.store(true, std::memory_order_release);
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
    for (auto& w : workers_) w.join();
    throw FailureError("thread pool could not start " + std::to_string(threads_) + " threads");
  }
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
  for (auto& w : workers_) w.join();
}

bool ThreadPool::in_worker() const noexcept { return tls_current_pool == this; }

void ThreadPool::worker_main(int index) {
  std::uint32_t seen = 0;
  for (;;) {
    seen = wait_change(epoch_, seen, spin_);
    if (stop_.load(std::memory_order_acquire)) return;
    run_job(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

void ThreadPool::run_job(int index) noexcept {
  InPoolScope scope(this);
  WorkerScope worker(index);  // thread i of the team is worker i (core/worker_ledger.hpp)
  try {
    (*job_)(index);
  } catch (...) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
    failed_.store(true, std::memory_order_relaxed);
  }
}

void ThreadPool::run_on_all(FunctionRef<void(int)> task) {
  if (in_worker()) {
    throw UsageError("ThreadPool::run_on_all called from inside a task of the same pool "
                     "(nested fork-join of the whole team is not supported; nested "
                     "parallel_for runs inline)");
  }
  std::lock_guard<std::mutex> submit(submit_mutex_);
  dispatch(task);
}

void ThreadPool::dispatch(FunctionRef<void(int)>& task) {
  error_ = nullptr;
  failed_.store(false, std::memory_order_relaxed);
  job_ = &task;
  if (threads_ > 1) {
    pending_.store(static_cast<std::uint32_t>(threads_ - 1), std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);  // publishes job_, pending_, next_
    epoch_.notify_all();
  }
  run_job(0);
  if (threads_ > 1) {
    std::uint32_t left = pending_.load(std::memory_order_acquire);
    for (int i = 0; left != 0 && spin_ && i < kSpinIterations; ++i) {
      cpu_relax();
      left = pending_.load(std::memory_order_acquire);
    }
    while (left != 0) {
      pending_.wait(left, std::memory_order_acquire);
      left = pending_.load(std::memory_order_acquire);
    }
  }
  job_ = nullptr;
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

template <class Fn>
void ThreadPool::chunked(Index n, Index grain, Fn&& fn) {
  const Index grabs = static_cast<Index>(threads_) * kGrabsPerThread;
  const Index chunk = std::max<Index>(std::max<Index>(grain, 1), (n + grabs - 1) / grabs);
  auto loop = [&](int t) {
    while (!failed_.load(std::memory_order_relaxed)) {
      const Index b = next_.fetch_add(chunk, std::memory_order_relaxed);
      if (b >= n) break;
      fn(t, b, n - b > chunk ? b + chunk : n);
    }
  };
  FunctionRef<void(int)> task(loop);
  // The counter belongs to the job: reset it only while holding the submission lock.
  std::lock_guard<std::mutex> submit(submit_mutex_);
  next_.store(0, std::memory_order_relaxed);  // published by the epoch's release in dispatch
  dispatch(task);
}

void ThreadPool::parallel_for(Index n, Index grain, RangeBody body) {
  if (n == 0) return;
  if (in_worker() || threads_ == 1) {  // nested, or nothing to share: inline
    body(0, n);
    return;
  }
  chunked(n, grain, [&](int, Index b, Index e) { body(b, e); });
}

std::uint64_t ThreadPool::parallel_sum(Index n, Index grain, RangeSumBody body) {
  if (n == 0) return 0;
  if (in_worker() || threads_ == 1) return body(0, n);
  std::vector<PaddedSum> partial(static_cast<std::size_t>(threads_));
  chunked(n, grain, [&](int t, Index b, Index e) { partial[static_cast<std::size_t>(t)].value += body(b, e); });
  std::uint64_t sum = 0;
  for (const auto& p : partial) sum += p.value;
  return sum;
}

void PoolExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  const Index tiles_x = (nx + tile_x - 1) / tile_x;
  const Index tiles_y = (ny + tile_y - 1) / tile_y;
  pool_.parallel_for(tiles_x * tiles_y, 1, [&](Index lo, Index hi) {
    for (Index t = lo; t < hi; ++t) {
      const Index x = (t % tiles_x) * tile_x, y = (t / tiles_x) * tile_y;
      body(Tile2D{x, std::min(x + tile_x, nx), y, std::min(y + tile_y, ny)});
    }
  });
}

void add_pool_backends(Registry& registry) {
  registry.add(cpu_entry("pool", "persistent hand-written pool, dynamic chunks, spin-then-futex wake-up",
                         [](int t) { return std::make_unique<PoolExecutor>(t); }));
}

}  // namespace parlab
