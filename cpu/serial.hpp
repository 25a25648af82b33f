// serial: the baseline executor (scaling's speedups are over it). One thread, the caller's; ranges run in index order.
#pragma once

#include "core/executor.hpp"

namespace parlab {

class SerialExecutor final : public Executor {
 public:
  // threads must be 1: a serial run at any other count would be mislabelled in the results.
  explicit SerialExecutor(int threads = 1);
  std::string_view name() const override { return "serial"; }
  void parallel_for(Index n, Index grain, RangeBody body) override;
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override;
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;
};

}  // namespace parlab
