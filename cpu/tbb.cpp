#include "tbb.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/version.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "backends.hpp"
#include "core/worker_ledger.hpp"

namespace parlab {
namespace {

// TBB caps its worker pool at the hardware concurrency unless a global_control raises the cap;
// an arena of 16 on 2 cores would otherwise get only 2 threads. The cap only bounds how many
// workers TBB may create: each arena still admits exactly its own concurrency. The active
// value of max_allowed_parallelism is the smallest among live controls, so this one control
// lives for the whole process and only ever grows.
void allow_parallelism(int threads) {
  static std::mutex mutex;
  static std::unique_ptr<oneapi::tbb::global_control> control;
  static int allowed = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (threads <= allowed) return;
  const int hw = static_cast<int>(oneapi::tbb::info::default_concurrency());
  allowed = std::max({threads, hw, 64});
  control = std::make_unique<oneapi::tbb::global_control>(
      oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(allowed));
}

// The calling thread's slot in the arena it works in: which worker it is (core/worker_ledger.hpp).
int arena_slot() noexcept { return oneapi::tbb::this_task_arena::current_thread_index(); }

}  // namespace

struct TbbExecutor::Impl {
  explicit Impl(int threads) : arena(threads) {}
  oneapi::tbb::task_arena arena;
};

TbbExecutor::TbbExecutor(int threads) : Executor(threads) {
  allow_parallelism(threads);
  impl_ = std::make_unique<Impl>(threads);
  impl_->arena.initialize();
}

TbbExecutor::~TbbExecutor() = default;

void TbbExecutor::parallel_for(Index n, Index grain, RangeBody body) {
  if (n == 0) return;
  impl_->arena.execute([&] {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<Index>(0, n, std::max<Index>(grain, 1)),
                              [&](const oneapi::tbb::blocked_range<Index>& r) {
                                WorkerScope worker(arena_slot());
                                body(r.begin(), r.end());
                              });
  });
}

std::uint64_t TbbExecutor::parallel_sum(Index n, Index grain, RangeSumBody body) {
  if (n == 0) return 0;
  std::uint64_t sum = 0;
  impl_->arena.execute([&] {
    sum = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<Index>(0, n, std::max<Index>(grain, 1)), std::uint64_t{0},
        [&](const oneapi::tbb::blocked_range<Index>& r, std::uint64_t acc) {
          WorkerScope worker(arena_slot());
          return acc + body(r.begin(), r.end());
        },
        [](std::uint64_t x, std::uint64_t y) { return x + y; });
  });
  return sum;
}

void TbbExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  if (nx == 0 || ny == 0) return;
  // blocked_range2d over tile indices, not elements: split by elements, its ranges start anywhere
  // (n = 2000 halves into 1000, 500, 250, 125, ...), and every backend must run the executor's one
  // tile grid (executor.hpp).
  const Index tiles_x = (nx + tile_x - 1) / tile_x, tiles_y = (ny + tile_y - 1) / tile_y;
  impl_->arena.execute([&] {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range2d<Index>(0, tiles_y, 1, 0, tiles_x, 1),
                              [&](const oneapi::tbb::blocked_range2d<Index>& r) {
                                WorkerScope worker(arena_slot());
                                for (Index j = r.rows().begin(); j < r.rows().end(); ++j) {
                                  for (Index i = r.cols().begin(); i < r.cols().end(); ++i) {
                                    body(Tile2D{i * tile_x, std::min((i + 1) * tile_x, nx), j * tile_y,
                                                std::min((j + 1) * tile_y, ny)});
                                  }
                                }
                              });
  });
}

void add_tbb_backends(Registry& registry) {
  registry.add(cpu_entry("tbb",
                         std::string("oneTBB ") + TBB_VERSION_STRING +
                             ", task_arena(n), auto_partitioner",
                         [](int t) { return std::make_unique<TbbExecutor>(t); }));
}

}  // namespace parlab
