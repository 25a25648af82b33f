#include "serial.hpp"

#include <string>

#include "backends.hpp"

namespace parlab {

SerialExecutor::SerialExecutor(int threads) : Executor(threads) {
  if (threads != 1) {
    throw UsageError("backend 'serial' runs on exactly 1 thread, got " + std::to_string(threads));
  }
}

void SerialExecutor::parallel_for(Index n, Index /*grain*/, RangeBody body) {
  if (n > 0) body(0, n);
}

std::uint64_t SerialExecutor::parallel_sum(Index n, Index /*grain*/, RangeSumBody body) {
  return n > 0 ? body(0, n) : 0;
}

void SerialExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  // Tiles, not one whole-grid call, so the serial figure has the same cache blocking as the
  // parallel ones (matmul depends on it).
  for (Index y = 0; y < ny; y += tile_y) {
    for (Index x = 0; x < nx; x += tile_x) {
      body(Tile2D{x, x + tile_x < nx ? x + tile_x : nx, y, y + tile_y < ny ? y + tile_y : ny});
    }
  }
}

void add_serial_backends(Registry& registry) {
  BackendEntry e = cpu_entry("serial", "one thread, no parallel runtime",
                             [](int t) { return std::make_unique<SerialExecutor>(t); });
  e.sweeps_threads = false;
  registry.add(std::move(e));
}

}  // namespace parlab
