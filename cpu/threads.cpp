#include "threads.hpp"

#include <algorithm>

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "backends.hpp"
#include "core/worker_ledger.hpp"

namespace parlab {
namespace {

// Runs part(i) for i in [0, threads) on `threads` threads: part 0 on the caller, the rest on
// new std::threads. Joins them all, then rethrows the first exception any part threw.
template <class Part>
void fork_join(int threads, Part&& part) {
  std::exception_ptr first;
  std::mutex first_mutex;
  auto guarded = [&](int i) {
    WorkerScope worker(i);  // part i is worker i (core/worker_ledger.hpp)
    try {
      part(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(first_mutex);
      if (!first) first = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(threads - 1));
  try {
    for (int i = 1; i < threads; ++i) workers.emplace_back(guarded, i);
  } catch (...) {
    // Could not start a thread (resource limits): join those that started, then report.
    for (auto& w : workers) w.join();
    throw FailureError("backend 'threads' could not start " + std::to_string(threads) + " threads");
  }
  guarded(0);
  for (auto& w : workers) w.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace

void ThreadsExecutor::parallel_for(Index n, Index /*grain*/, RangeBody body) {
  const Index parts = static_cast<Index>(threads());
  fork_join(threads(), [&](int i) {
    const Index b = static_split(n, parts, static_cast<Index>(i));
    const Index e = static_split(n, parts, static_cast<Index>(i) + 1);
    if (b < e) body(b, e);
  });
}

std::uint64_t ThreadsExecutor::parallel_sum(Index n, Index /*grain*/, RangeSumBody body) {
  const Index parts = static_cast<Index>(threads());
  // One cache line per partial, so threads do not share lines while they write.
  struct alignas(64) Partial {
    std::uint64_t value = 0;
  };
  std::vector<Partial> partial(static_cast<std::size_t>(threads()));
  fork_join(threads(), [&](int i) {
    const Index b = static_split(n, parts, static_cast<Index>(i));
    const Index e = static_split(n, parts, static_cast<Index>(i) + 1);
    if (b < e) partial[static_cast<std::size_t>(i)].value = body(b, e);
  });
  std::uint64_t sum = 0;
  for (const auto& p : partial) sum += p.value;
  return sum;
}

void ThreadsExecutor::thread_grid(int threads, int& px, int& py) {
  py = 1;
  for (int d = 1; d * d <= threads; ++d) {
    if (threads % d == 0) py = d;
  }
  px = threads / py;
}

void ThreadsExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  int px = 1, py = 1;
  thread_grid(threads(), px, py);
  // Each thread of the px-by-py grid takes a block of whole tiles (the executor's one tile grid), so
  // its tiles are everyone's: cutting the elements among threads instead gave tiles that started
  // anywhere, and matmul read none of them from its packed bands.
  const Index tiles_x = (nx + tile_x - 1) / tile_x, tiles_y = (ny + tile_y - 1) / tile_y;
  fork_join(threads(), [&](int i) {
    const Index tx = static_cast<Index>(i % px), ty = static_cast<Index>(i / px);
    const Index x0 = static_split(tiles_x, static_cast<Index>(px), tx);
    const Index x1 = static_split(tiles_x, static_cast<Index>(px), tx + 1);
    const Index y0 = static_split(tiles_y, static_cast<Index>(py), ty);
    const Index y1 = static_split(tiles_y, static_cast<Index>(py), ty + 1);
    for (Index j = y0; j < y1; ++j) {
      for (Index k = x0; k < x1; ++k) {
        body(Tile2D{k * tile_x, std::min((k + 1) * tile_x, nx), j * tile_y, std::min((j + 1) * tile_y, ny)});
      }
    }
  });
}

void add_threads_backends(Registry& registry) {
  registry.add(cpu_entry("threads", "std::thread per call, static partition",
                         [](int t) { return std::make_unique<ThreadsExecutor>(t); }));
}

}  // namespace parlab
