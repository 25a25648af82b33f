// openmp: `#pragma omp parallel for num_threads(n)` with a selectable schedule.
//
// The loop runs over chunks of `grain` indices; the schedule decides how chunks go to threads:
// static (contiguous blocks of chunks, the default), dynamic or guided (with `chunk` chunks per
// grab). Dynamic adjustment of the team size is switched off, and the constructor throws a
// FailureError when the runtime still gives a team other than n (OMP_THREAD_LIMIT), so the team
// is exactly n.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/executor.hpp"

namespace parlab {

enum class OmpSchedule { static_, dynamic, guided };

const char* to_string(OmpSchedule s);
// "static", "dynamic", "guided"; nullopt otherwise.
std::optional<OmpSchedule> omp_schedule_from_name(std::string_view name);

class OpenMpExecutor final : public Executor {
 public:
  explicit OpenMpExecutor(int threads, OmpSchedule schedule = OmpSchedule::static_, int chunk = 1);
  std::string_view name() const override { return "openmp"; }
  void parallel_for(Index n, Index grain, RangeBody body) override;
  std::uint64_t parallel_sum(Index n, Index grain, RangeSumBody body) override;
  // collapse(2) over the tile grid.
  void parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) override;
  OmpSchedule schedule() const noexcept { return schedule_; }
  // The team size OpenMP reports from inside a region (omp_get_num_threads).
  int team_size() const;

 private:
  void apply_schedule() const;
  OmpSchedule schedule_;
  int chunk_;
};

// The OpenMP version the compiler implements (_OPENMP, e.g. 201811) and the runtime's name.
std::string openmp_version();

}  // namespace parlab
