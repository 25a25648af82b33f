#include "openmp.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>

#include "register.hpp"

namespace parlab {

const char* to_string(OmpSchedule s) {
  switch (s) {
    case OmpSchedule::static_: return "static";
    case OmpSchedule::dynamic: return "dynamic";
    case OmpSchedule::guided: return "guided";
  }
  return "static";
}

std::optional<OmpSchedule> omp_schedule_from_name(std::string_view name) {
  if (name == "static") return OmpSchedule::static_;
  if (name == "dynamic") return OmpSchedule::dynamic;
  if (name == "guided") return OmpSchedule::guided;
  return std::nullopt;
}

namespace {

// Exceptions must not leave an OpenMP region: each iteration catches, the first exception is
// kept, later iterations are skipped, and the caller rethrows after the region.
class RegionErrors {
 public:
  template <class Fn>
  void guard(Fn&& fn) noexcept {
    if (failed_) return;
    try {
      fn();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_ = true;
    }
  }
  void rethrow() {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
  // Read without the lock to skip work once something failed; a stale read only means one
  // more iteration runs, so relaxed atomic semantics are enough.
  std::atomic<bool> failed_{false};
};

}  // namespace

OpenMpExecutor::OpenMpExecutor(int threads, OmpSchedule schedule, int chunk)
    : Executor(threads), schedule_(schedule), chunk_(chunk) {
  if (chunk < 1) throw UsageError("OpenMP schedule chunk must be >= 1, got " + std::to_string(chunk));
  omp_set_dynamic(0);
  // num_threads() is a request: the runtime may give fewer (OMP_THREAD_LIMIT, a nested region
  // past OMP_MAX_ACTIVE_LEVELS) without a word, and a record would then say n threads of work
  // done by fewer. Checked once here, for every region this executor opens.
  if (const int got = team_size(); got != threads) {
    const char* limit = std::getenv("OMP_THREAD_LIMIT");
    throw FailureError("OpenMP ran a team of " + std::to_string(got) + " thread" + (got == 1 ? "" : "s") + " where " +
                       std::to_string(threads) + " were asked (omp_get_thread_limit() = " +
                       std::to_string(omp_get_thread_limit()) + (limit ? ", OMP_THREAD_LIMIT=" + std::string(limit) : "") +
                       ")");
  }
}

void OpenMpExecutor::apply_schedule() const {
  // schedule(runtime) reads the calling thread's run-sched-var, set here before each region.
  omp_sched_t kind = omp_sched_static;
  if (schedule_ == OmpSchedule::dynamic) kind = omp_sched_dynamic;
  if (schedule_ == OmpSchedule::guided) kind = omp_sched_guided;
  // For static, chunk 0 means "one contiguous block per thread", the classic default.
  omp_set_schedule(kind, schedule_ == OmpSchedule::static_ ? 0 : chunk_);
}

void OpenMpExecutor::parallel_for(Index n, Index grain, RangeBody body) {
  if (n == 0) return;
  const Index g = std::max<Index>(grain, 1);
  const Index chunks = (n + g - 1) / g;
  apply_schedule();
  RegionErrors errors;
#pragma omp parallel for num_threads(threads()) schedule(runtime)
  for (Index c = 0; c < chunks; ++c) {
    errors.guard([&] { body(c * g, std::min(n, (c + 1) * g)); });
  }
  errors.rethrow();
}

std::uint64_t OpenMpExecutor::parallel_sum(Index n, Index grain, RangeSumBody body) {
  if (n == 0) return 0;
  const Index g = std::max<Index>(grain, 1);
  const Index chunks = (n + g - 1) / g;
  apply_schedule();
  RegionErrors errors;
  std::uint64_t sum = 0;
#pragma omp parallel for num_threads(threads()) schedule(runtime) reduction(+ : sum)
  for (Index c = 0; c < chunks; ++c) {
    errors.guard([&] { sum += body(c * g, std::min(n, (c + 1) * g)); });
  }
  errors.rethrow();
  return sum;
}

void OpenMpExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  if (nx == 0 || ny == 0) return;
  const Index tiles_x = (nx + tile_x - 1) / tile_x;
  const Index tiles_y = (ny + tile_y - 1) / tile_y;
  apply_schedule();
  RegionErrors errors;
#pragma omp parallel for collapse(2) num_threads(threads()) schedule(runtime)
  for (Index ty = 0; ty < tiles_y; ++ty) {
    for (Index tx = 0; tx < tiles_x; ++tx) {
      errors.guard([&] {
        const Index x = tx * tile_x, y = ty * tile_y;
        body(Tile2D{x, std::min(x + tile_x, nx), y, std::min(y + tile_y, ny)});
      });
    }
  }
  errors.rethrow();
}

int OpenMpExecutor::team_size() const {
  int size = 0;
#pragma omp parallel num_threads(threads())
  {
#pragma omp single
    size = omp_get_num_threads();
  }
  return size;
}

std::string openmp_version() {
  std::string runtime =
#if defined(__clang__)
      "libomp";
#else
      "libgomp";
#endif
  return "OpenMP " + std::to_string(_OPENMP) + " (" + runtime + ")";
}

void register_openmp(Registry& registry) {
  // The schedule is part of the backend's name: "openmp" is static, the default; the
  // dynamic and guided variants are named explicitly and left out of "all backends".
  registry.add(cpu_entry("openmp", openmp_version() + ", num_threads(n), schedule(static)",
                         [](int t) { return std::make_unique<OpenMpExecutor>(t); }));
  for (OmpSchedule s : {OmpSchedule::dynamic, OmpSchedule::guided}) {
    BackendEntry e = cpu_entry(std::string("openmp-") + to_string(s),
                               openmp_version() + ", num_threads(n), schedule(" + to_string(s) + ", 1)",
                               [s](int t) { return std::make_unique<OpenMpExecutor>(t, s, 1); });
    e.in_default_set = false;
    registry.add(std::move(e));
  }
}

}  // namespace parlab
