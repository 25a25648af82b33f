// The CPU executor interface: the one thing that differs between CPU backends.
//
// A kernel body works on an index range [begin, end) (or a 2-D tile) and may return a partial
// result. An executor partitions the range, runs the bodies on exactly `threads()` threads and
// combines the partials. Kernels (core/kernels.hpp) are written once against this interface, so
// two CPU figures differ only in the parallel model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "error.hpp"
#include "function_ref.hpp"

namespace parlab {

using Index = std::uint64_t;

struct Tile2D {
  Index x0, x1;  // columns [x0, x1)
  Index y0, y1;  // rows    [y0, y1)
};

using RangeBody = FunctionRef<void(Index begin, Index end)>;
using RangeSumBody = FunctionRef<std::uint64_t(Index begin, Index end)>;
using TileBody = FunctionRef<void(const Tile2D& tile)>;

class Executor {
 public:
  // Throws UsageError unless threads >= 1. Oversubscription (more threads than cores) is allowed.
  explicit Executor(int threads) : threads_(check_threads(threads)) {}
  virtual ~Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  virtual std::string_view name() const = 0;
  int threads() const noexcept { return threads_; }

  // Calls body on disjoint ranges that cover [0, n) exactly once, each at least `grain` long
  // except possibly the last, and returns when all calls have returned. An exception thrown by
  // a body is rethrown here (the first one, if several threads throw).
  // PRECONDITION: body may be called concurrently on disjoint ranges; grain >= 1.
  virtual void parallel_for(Index n, Index grain, RangeBody body) = 0;

  // As parallel_for, and returns the sum of what the bodies returned. Integer addition is
  // associative, so the result does not depend on the partition.
  virtual std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) = 0;

  // Calls body once on each tile of the nx-by-ny grid cut in both dimensions on one fixed grid:
  // tile (i, j) is columns [i tile_x, min((i + 1) tile_x, nx)) by rows [j tile_y, min((j + 1)
  // tile_y, ny)), whichever thread runs it (a grid of threads takes whole tiles). Every backend
  // runs the same tiles, so the same cache blocking, and a kernel may rely on a whole tile's
  // alignment (matmul reads B packed by whole column bands): the 2-D partitioning of
  // docs/design.md, "Kernels and their work model".
  // PRECONDITION: as parallel_for; tile_x, tile_y >= 1.
  virtual void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) = 0;

  static int check_threads(int threads) {
    if (threads < 1) {
      throw UsageError("thread count must be a positive integer, got " + std::to_string(threads));
    }
    return threads;
  }

 private:
  int threads_;
};

// How many grabs a dynamic hand-out (pool, openmp) cuts a loop into per thread. A thread that
// runs slow (a shared or throttled core) holds up the loop by at most its last grab, so grabs
// are small: at 64 a thread, one is under 2% of its share; and few enough that the one shared
// counter they come from is not a hot spot (a thousand atomic increments over a 16-thread loop
// that moves half a gigabyte).
inline constexpr Index kGrabsPerThread = 64;

// Splits [0, n) into `parts` contiguous ranges whose sizes differ by at most one; returns the
// begin of part p (p in [0, parts]). Used by the static partitions.
inline Index static_split(Index n, Index parts, Index p) {
  const Index q = n / parts, r = n % parts;
  return p * q + (p < r ? p : r);
}

}  // namespace parlab
