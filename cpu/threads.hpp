// threads: plain std::thread, created and joined on every call, with a static partition.
//
// The baseline that shows what thread start-up costs: n threads run each call (the caller and
// n-1 new ones), range [0, n) cut into n contiguous parts of near-equal size. No pool, no
// work stealing; a thread whose part is empty still starts, so the count is exact.
#pragma once

#include "core/executor.hpp"

namespace parlab {

class ThreadsExecutor final : public Executor {
 public:
  explicit ThreadsExecutor(int threads) : Executor(threads) {}
  std::string_view name() const override { return "threads"; }
  void parallel_for(Index n, Index grain, RangeBody body) override;
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override;
  // Threads form a px-by-py grid (px*py == threads, as square as the count allows); thread
  // (tx, ty) takes one rectangle, visited in tiles of tile_x by tile_y.
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;

  // The thread grid parallel_for_2d uses: px * py == threads, px >= py, px - py minimal.
  static void thread_grid(int threads, int& px, int& py);
};

}  // namespace parlab
