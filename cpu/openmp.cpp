#include "openmp.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <string>

#include "backends.hpp"
#include "core/worker_ledger.hpp"

namespace parlab {

const char* to_string(OmpSchedule s) {
  switch (s) {
    case OmpSchedule::static_: return "static";
    case OmpSchedule::dynamic: return "dynamic";
    case OmpSchedule::guided: return "guided";
  }
  return "static";
}

namespace {

// Exceptions must not leave an OpenMP region: each iteration catches, the first exception is
// kept, later iterations are skipped, and the caller rethrows after the region.
class RegionErrors {
 public:
  template <class Fn>
  void guard(Fn&& fn) noexcept {
    if (failed_) return;
    WorkerScope worker(omp_get_thread_num());  // the team's thread number (core/worker_ledger.hpp)
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
  if (chunk < 0) throw UsageError("OpenMP schedule chunk must be >= 1 (or 0: balanced), got " + std::to_string(chunk));
  if (schedule == OmpSchedule::static_ && chunk != kBalancedChunk) {
    throw UsageError("OpenMP static schedule takes no chunk (one contiguous block per thread), got " + std::to_string(chunk));
  }
  omp_set_dynamic(0);
  // num_threads() is a request: the runtime may give fewer (OMP_THREAD_LIMIT, a nested region
  // past OMP_MAX_ACTIVE_LEVELS) without a word, and a record would then say n threads of work
  // done by fewer. Checked once here, for every region this executor opens.
  if (const int got = team_size(); got != threads) {
    const char* env_cap = std::getenv("OMP_THREAD_LIMIT");
    throw FailureError("OpenMP ran a team of " + std::to_string(got) + " thread" + (got == 1 ? "" : "s") + " where " +
                       std::to_string(threads) + " were asked (omp_get_thread_limit() = " +
                       std::to_string(omp_get_thread_limit()) + (env_cap ? ", OMP_THREAD_LIMIT=" + std::string(env_cap) : "") +
                       ")");
  }
}

int OpenMpExecutor::grab_size(Index chunks) const noexcept {
  if (schedule_ == OmpSchedule::static_) return 0;
  if (chunk_ != kBalancedChunk) return chunk_;
  const Index grabs = kGrabsPerThread * static_cast<Index>(threads());
  return static_cast<int>(std::clamp<Index>(chunks / grabs, 1, std::numeric_limits<int>::max()));
}

void OpenMpExecutor::apply_schedule(Index chunks) const {
  // schedule(runtime) reads the calling thread's run-sched-var, set here before each region.
  omp_sched_t kind = omp_sched_static;
  if (schedule_ == OmpSchedule::dynamic) kind = omp_sched_dynamic;
  if (schedule_ == OmpSchedule::guided) kind = omp_sched_guided;
  // For static, chunk 0 means "one contiguous block per thread", the classic default.
  omp_set_schedule(kind, grab_size(chunks));
}

OpenMpExecutor::Units OpenMpExecutor::plan_loop(Index chunks) const {
  // The loop runs over units of whole chunks, one body call each: a body is then given a whole
  // grab (or a static block) as one range, so what it does once per call (the store fence of
  // the streaming STREAM kernels, a loop's peel) is paid once per grab, not once per grain. The
  // schedule over the units is then the same hand-out as the named schedule over the chunks:
  // static over min(threads, chunks) near-equal blocks, one a thread; dynamic with grabs of one
  // unit of grab_size() chunks; guided's shrinking grabs are the runtime's, over single chunks.
  Units u;
  u.chunks = chunks;
  if (schedule_ == OmpSchedule::dynamic) {
    u.per = static_cast<Index>(grab_size(chunks));
    u.count = (chunks + u.per - 1) / u.per;
    omp_set_schedule(omp_sched_dynamic, 1);  // one unit is one grab
    return u;
  }
  u.static_blocks = schedule_ == OmpSchedule::static_;
  u.count = u.static_blocks ? std::min<Index>(static_cast<Index>(threads()), chunks) : chunks;
  apply_schedule(chunks);  // static: one block a thread; guided: the runtime's grabs of chunks
  return u;
}

Index OpenMpExecutor::Units::first_chunk(Index unit) const noexcept {
  if (static_blocks) return static_split(chunks, count, unit);
  return std::min(chunks, unit * per);
}

void OpenMpExecutor::parallel_for(Index n, Index grain, RangeBody body) {
  if (n == 0) return;
  const Index g = std::max<Index>(grain, 1);
  const Units u = plan_loop((n + g - 1) / g);
  RegionErrors errors;
#pragma omp parallel for num_threads(threads()) schedule(runtime)
  for (Index i = 0; i < u.count; ++i) {
    errors.guard([&] { body(u.first_chunk(i) * g, std::min(n, u.first_chunk(i + 1) * g)); });
  }
  errors.rethrow();
}

std::uint64_t OpenMpExecutor::parallel_sum(Index n, Index grain, RangeSumBody body) {
  if (n == 0) return 0;
  const Index g = std::max<Index>(grain, 1);
  const Units u = plan_loop((n + g - 1) / g);
  RegionErrors errors;
  std::uint64_t sum = 0;
#pragma omp parallel for num_threads(threads()) schedule(runtime) reduction(+ : sum)
  for (Index i = 0; i < u.count; ++i) {
    errors.guard([&] { sum += body(u.first_chunk(i) * g, std::min(n, u.first_chunk(i + 1) * g)); });
  }
  errors.rethrow();
  return sum;
}

void OpenMpExecutor::parallel_for_2d(Index nx, Index ny, Index tile_x, Index tile_y, TileBody body) {
  if (nx == 0 || ny == 0) return;
  const Index tiles_x = (nx + tile_x - 1) / tile_x;
  const Index tiles_y = (ny + tile_y - 1) / tile_y;
  apply_schedule(tiles_x * tiles_y);
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

void add_openmp_backends(Registry& registry) {
  // The schedule is part of the backend's name: "openmp" is dynamic with balanced grabs, the
  // default (openmp.hpp says why). The classic static split ("openmp-static"), the one-chunk
  // dynamic and the guided variants are named explicitly and left out of "all backends" (the
  // `threads` backend's static split stays in it, so every study still shows what one costs).
  const std::string version = openmp_version();
  registry.add(cpu_entry("openmp",
                         version + ", num_threads(n), schedule(dynamic, c), c = max(1, chunks / (" +
                             std::to_string(kGrabsPerThread) + " n))",
                         [](int t) { return std::make_unique<OpenMpExecutor>(t); }));
  for (OmpSchedule s : {OmpSchedule::static_, OmpSchedule::dynamic, OmpSchedule::guided}) {
    const bool split = s == OmpSchedule::static_;
    BackendEntry e = cpu_entry(std::string("openmp-") + to_string(s),
                               version + ", num_threads(n), schedule(" + to_string(s) + (split ? ")" : ", 1)"),
                               [s, split](int t) {
                                 return std::make_unique<OpenMpExecutor>(t, s, split ? OpenMpExecutor::kBalancedChunk : 1);
                               });
    e.in_default_set = false;
    registry.add(std::move(e));
  }
}

}  // namespace parlab
