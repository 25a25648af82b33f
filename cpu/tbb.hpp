// tbb: oneTBB's parallel_for / parallel_reduce inside a task_arena of exactly n threads
// (the caller takes the arena's master slot, n-1 TBB workers join it).
#pragma once

#include <memory>

#include "core/executor.hpp"

namespace parlab {

class TbbExecutor final : public Executor {
 public:
  explicit TbbExecutor(int threads);
  ~TbbExecutor() override;
  std::string_view name() const override { return "tbb"; }
  void parallel_for(Index n, Index grain, RangeBody body) override;
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override;
  // tbb::blocked_range2d over the tile grid's indices (executor.hpp: one grid for every backend).
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;

 private:
  struct Impl;  // keeps TBB's headers out of everyone else's includes
  std::unique_ptr<Impl> impl_;
};

}  // namespace parlab
