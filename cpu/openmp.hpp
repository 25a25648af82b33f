// openmp: `#pragma omp parallel for num_threads(n)` with a selectable schedule.
//
// The loop runs over chunks of `grain` indices; the schedule decides how chunks go to threads:
// dynamic (the default, `openmp`), static (contiguous blocks of chunks, `openmp-static`) or
// guided. `chunk` is how many chunks one grab takes; kBalancedChunk sizes it per loop so each
// thread makes about kGrabsPerThread grabs (core/executor.hpp says why that many). Why dynamic
// is the default: on a machine whose cores run at unequal speeds (a shared VM, SMT siblings, a
// hybrid CPU) a static split waits for the slowest core, while grabs hand the slow cores less
// work. Static keeps each thread on the
// same contiguous part of the arrays in every loop, which first-touch NUMA placement needs on a
// multi-socket machine: that is what `openmp-static` is for. Dynamic adjustment of the team size
// is switched off, and the constructor throws a FailureError when the runtime still gives a team
// other than n (OMP_THREAD_LIMIT), so the team is exactly n.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/executor.hpp"

namespace parlab {

enum class OmpSchedule { static_, dynamic, guided };

const char* to_string(OmpSchedule s);

class OpenMpExecutor final : public Executor {
 public:
  // A grab size chosen per loop: max(1, chunks / (kGrabsPerThread * threads)) (executor.hpp).
  static constexpr int kBalancedChunk = 0;

  // Throws UsageError for chunk < 0, and for a chunk given with the static schedule (static
  // always splits into one contiguous block per thread).
  explicit OpenMpExecutor(int threads, OmpSchedule schedule = OmpSchedule::dynamic, int chunk = kBalancedChunk);
  std::string_view name() const override { return "openmp"; }
  void parallel_for(Index n, Index grain, RangeBody body) override;
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override;
  // collapse(2) over the tile grid.
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;
  OmpSchedule schedule() const noexcept { return schedule_; }
  // The grab size, in chunks, of a loop over `chunks` chunks (0 for static: one block a thread).
  int grab_size(Index chunks) const noexcept;
  // The team size OpenMP reports from inside a region (omp_get_num_threads).
  int team_size() const;

 private:
  void apply_schedule(Index chunks) const;
  // The units a 1-D loop over `chunks` chunks runs over (openmp.cpp says why). Sets the calling
  // thread's runtime schedule (omp_set_schedule) to the hand-out over them.
  struct Units {
    Index chunks = 0, count = 0, per = 1;
    bool static_blocks = false;
    // The first chunk of unit `unit`; first_chunk(count) == chunks.
    Index first_chunk(Index unit) const noexcept;
  };
  Units plan_loop(Index chunks) const;
  OmpSchedule schedule_;
  int chunk_;
};

// The OpenMP version the compiler implements (_OPENMP, e.g. 201811) and the runtime's name.
std::string openmp_version();

}  // namespace parlab
