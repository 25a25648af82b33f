// pool: a hand-written persistent thread pool with fork-join parallel_for / parallel_sum.
//
// Design
// ------
// * Team. A pool of n threads is the calling thread plus n-1 workers started once, in the
//   constructor, and joined in the destructor. Like an OpenMP team or a TBB arena with one
//   master slot, the caller works too, so "n threads" means n threads run bodies.
// * Queue. There is no task queue: the pool runs one fork-join job at a time. A job is a
//   pointer to a `void(int thread_index)` callable published in `job_`. The work inside a
//   job is shared through one atomic chunk counter (below), which is the whole "queue".
// * Wake-up. Workers wait on a 32-bit epoch counter. To start a job the caller publishes
//   the job, sets `pending_` to n-1, and increments `epoch_` (release) then calls
//   `epoch_.notify_all()`. A worker spins briefly on `epoch_` (a fork-join that follows
//   quickly finds it awake, which is what fine-grained loops need) and then blocks in
//   `epoch_.wait()` (a futex on Linux), so an idle pool costs no CPU. Spinning is skipped
//   when the pool has more threads than the machine has hardware threads, where it would
//   only steal time from the thread that has the work.
// * Join. Each worker decrements `pending_` when its share is done; the last one notifies.
//   The caller runs its own share, then spins and waits on `pending_` reaching 0.
// * Chunking. parallel_for hands out chunks of max(grain, ceil(n / (kGrabsPerThread * threads)))
//   indices through `next_.fetch_add(chunk)`: dynamic, so uneven bodies and unequal cores
//   balance to within one small chunk, and few enough chunks that the shared counter is not a
//   hot spot (core/executor.hpp). At 8 chunks a thread (before the comparison with BabelStream) a chunk was an eighth
//   of a thread's share, and a slow core's last one could lengthen the loop by as much.
// * Exceptions. A body's exception is caught on its thread; the first is kept, the other
//   threads stop taking chunks, and the caller rethrows it after the join. The pool stays
//   usable.
// * Nesting. A parallel_for called from inside a body of the same pool runs inline on the
//   calling thread, serially (detected with a thread-local marker): supported, never a
//   deadlock. Calls from several outside threads at once are serialised by a mutex.
// * Shutdown. The destructor sets `stop_`, bumps the epoch, wakes everyone and joins. It must
//   not run while a job is in flight (the job's caller is inside the pool then).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/executor.hpp"

namespace parlab {

class ThreadPool {
 public:
  // Starts threads-1 workers. Throws UsageError for threads < 1, FailureError if a thread
  // cannot be started (the ones that did are joined first).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const noexcept { return threads_; }

  // Runs task(i) once on each thread i in [0, threads) (0 is the caller) and returns when all
  // have returned; rethrows the first exception. Nested calls run task(0) only, inline.
  void run_on_all(FunctionRef<void(int thread_index)> task);

  // Dynamic chunked loop over [0, n); see the header comment.
  void parallel_for(Index n, Index grain, RangeBody body);
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body);

  // True on a thread that is running a body of this pool.
  bool in_worker() const noexcept;

 private:
  void worker_main(int index);
  void run_job(int index) noexcept;
  // Runs one job on the whole team. PRECONDITION: submit_mutex_ is held by the caller.
  void dispatch(FunctionRef<void(int)>& task);
  // Chunk loop shared by parallel_for and parallel_sum; `sum` may be null.
  template <class Fn>
  void chunked(Index n, Index grain, Fn&& fn);

  const int threads_;
  const bool spin_;  // false when oversubscribed
  std::vector<std::thread> workers_;

  std::mutex submit_mutex_;  // one job at a time from outside threads
  FunctionRef<void(int)>* job_ = nullptr;
  // The words every thread touches live on cache lines of their own: idle workers poll `epoch_`
  // while finishing ones decrement `pending_`, and sharing a line would make each decrement
  // invalidate every poller's copy.
  alignas(64) std::atomic<std::uint32_t> epoch_{0};
  alignas(64) std::atomic<std::uint32_t> pending_{0};
  std::atomic<bool> stop_{false};

  std::mutex error_mutex_;
  std::exception_ptr error_;
  alignas(64) std::atomic<bool> failed_{false};

  alignas(64) std::atomic<Index> next_{0};  // the chunk counter of the running loop
};

class PoolExecutor final : public Executor {
 public:
  explicit PoolExecutor(int threads) : Executor(threads), pool_(threads) {}
  std::string_view name() const override { return "pool"; }
  void parallel_for(Index n, Index grain, RangeBody body) override { pool_.parallel_for(n, grain, body); }
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override {
    return pool_.parallel_sum(n, grain, body);
  }
  // Tiles are numbered row-major and handed out one per chunk.
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;
  ThreadPool& pool() noexcept { return pool_; }

 private:
  ThreadPool pool_;
};

}  // namespace parlab
