// The pi rank workloads: CPU ranks that take chunks of the canonical stream dynamically (one-
// sided from a counter window, or dealt two-sided by rank 0 where no window can be made), and
// GPU ranks that count a contiguous share each. The kernel table (workloads.cpp) calls the
// factories declared in rank_common.hpp.
#include "rank_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "core/kernels.hpp"
#include "workloads.hpp"

namespace parlab::mpi {

namespace {

using rank_common::over;
using rank_common::ranks_failing;

// Adds `name`_max, _min and _mean (over the ranks) of this rank's `mine` to v's metrics: how
// the ranks' own figures spread. Collective: every rank calls it with its value.
void rank_spread(Validation& v, const std::string& name, double mine, int ranks) {
  double slowest = 0, fastest = 0, sum = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &fastest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const bool seconds = name == "rank_count";
  v.metrics.emplace_back(name + "_max" + (seconds ? "_s" : ""), slowest);
  v.metrics.emplace_back(name + "_min" + (seconds ? "_s" : ""), fastest);
  v.metrics.emplace_back(name + "_mean" + (seconds ? "_s" : ""), sum / ranks);
}

// ---------------------------------------------------------------- pi
// The canonical count of the job from this rank's part, however the part is counted; `describe`
// (optional, collective) adds what the counting itself measured to the verdict.
class PiRank final : public RankWorkload {
 public:
  PiRank(std::function<std::uint64_t()> count_part, const Problem& p, const Layout& l,
         std::function<void(Validation&)> describe = {})
      : count_(std::move(count_part)), describe_(std::move(describe)), samples_(p.size), layout_(l) {}
  void run() override {
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t part = count_(), total = 0;
    compute_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++runs_;
    MPI_Allreduce(&part, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    hits_.record(total);
  }
  // Besides the count: each rank's mean time counting its part, as the slowest, fastest and mean
  // rank. Rank 0's wall clock minus the slowest rank's count is what distributing cost (the
  // command's broadcast, the reduction, ranks that start late); a slowest count well above
  // (one rank's time on 1 rank) / ranks means the ranks themselves ran slower than alone.
  Validation validate() override {
    Validation v = hits_.validate(samples_, over(layout_));
    rank_spread(v, "rank_count", runs_ > 0 ? compute_s_ / static_cast<double>(runs_) : 0.0, layout_.ranks);
    if (describe_) describe_(v);
    return v;
  }
  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

 private:
  std::function<std::uint64_t()> count_;
  std::function<void(Validation&)> describe_;
  std::uint64_t samples_;
  Layout layout_;
  PiHitsTracker hits_;
  double compute_s_ = 0;  // this rank's counting time, summed over its runs
  std::uint64_t runs_ = 0;
};

// pi on CPU ranks: chunks of the stream handed out one at a time from a counter on rank 0
// (MPI one-sided fetch-and-add), so a rank on a slower core counts fewer of them. A static split
// (pi_share) waits for the slowest rank: on the 16-core GPU node, ranks bound to a core each
// took 0.063 to 0.114 s for the same 1/16 of 2^30 points (docs/history.md, "Investigations, condensed"),
// and 16 ranks reached 0.56x tbb, which hands out work as threads ask. Which rank counts which
// chunk changes nothing: the hits of the chunks are summed exactly (uint64), so the count is
// canonical.
//
// The counter is never reset: every rank fetches until it gets a chunk past the end, so run k
// takes exactly chunks + ranks values and starts at k * (chunks + ranks) on every rank.
//
// Where no one-sided component can make the window (Open MPI 4.1 over TCP between hosts: osc rdma
// needs RDMA atomics, osc sm one host, osc pt2pt MPI_THREAD_MULTIPLE), the same chunks are handed
// out by rank 0 over two-sided messages (deal_two_sided). The window is made on a duplicate of
// the world communicator whose errors return, so that failure is a result to act on, not an
// abort. PARLAB_PI_SCHEME=two-sided forces the fallback, so it is tested where one-sided works.
class ChunkCounter {
 public:
  ChunkCounter(std::shared_ptr<Executor> ex, const Problem& p, const Layout& l)
      : ex_(std::move(ex)), seed_(p.seed), samples_(p.size), ranks_(static_cast<std::uint64_t>(l.ranks)),
        rank_(l.rank), chunk_(pi_rank_chunk(p.size, l.ranks, p.threads)), chunks_((p.size + chunk_ - 1) / chunk_) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    comm_ = std::make_unique<Communicator>(dup);
    MPI_Comm_set_errhandler(comm_->get(), MPI_ERRORS_RETURN);
    const char* forced = std::getenv("PARLAB_PI_SCHEME");
    const std::string want = forced != nullptr ? forced : "";
    if (!want.empty() && want != "one-sided" && want != "two-sided") {
      throw UsageError("PARLAB_PI_SCHEME='" + want + "': expected one-sided or two-sided");
    }
    bool made = false;
    if (want != "two-sided") {
      std::uint64_t* base = nullptr;
      const MPI_Aint bytes = l.rank == 0 ? static_cast<MPI_Aint>(sizeof(std::uint64_t)) : 0;
      made = MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, comm_->get(), &base, &win_) == MPI_SUCCESS;
      // The component choice depends on the whole communicator, so ranks agree; a window made on
      // some ranks only could not even be freed (MPI_Win_free is collective), hence a failure.
      const int ranks_made = ranks_failing(!made);
      if (ranks_made != 0 && ranks_made != l.ranks) {
        throw FailureError("MPI_Win_allocate for the pi chunk counter succeeded on " + std::to_string(ranks_made) +
                           " of " + std::to_string(l.ranks) + " ranks only");
      }
      if (made && l.rank == 0) *base = 0;
      if (!made && want == "one-sided") {
        throw FailureError("PARLAB_PI_SCHEME=one-sided, but MPI_Win_allocate for the pi chunk counter failed");
      }
    }
    if (made) {
      // A passive-target epoch for the counter's life; the local store above is made visible
      // before any rank fetches (MPI_Win_sync, then the barrier).
      MPI_Win_lock_all(0, win_);
      MPI_Win_sync(win_);
    } else {
      win_ = MPI_WIN_NULL;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~ChunkCounter() {
    if (win_ != MPI_WIN_NULL) {
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);  // collective: every rank destroys its workload on the same command
    }
  }
  ChunkCounter(const ChunkCounter&) = delete;
  ChunkCounter& operator=(const ChunkCounter&) = delete;

  bool one_sided() const { return win_ != MPI_WIN_NULL; }

  // This rank's hits of one run: chunks fetched until none is left.
  std::uint64_t count() {
    const std::uint64_t hits = one_sided() ? fetch_one_sided() : deal_two_sided();
    ++runs_;
    return hits;
  }

  // How the chunks fell: the fewest and most one rank took per run. Collective.
  void describe(Validation& v) const {
    v.detail += ", " + std::to_string(chunks_) + " chunks of " + std::to_string(chunk_) + " taken dynamically (" +
                (one_sided() ? "one-sided counter" : "two-sided: rank 0 deals them") + ")";
    rank_spread(v, "rank_chunks", static_cast<double>(taken_) / static_cast<double>(std::max<std::uint64_t>(runs_, 1)),
                static_cast<int>(ranks_));
    v.metrics.emplace_back("chunks", static_cast<double>(chunks_));
    v.metrics.emplace_back("pi_two_sided", one_sided() ? 0.0 : 1.0);  // which scheme handed the chunks out
  }

 private:
  std::uint64_t count_chunk(std::uint64_t c) {
    const std::uint64_t begin = c * chunk_;
    ++taken_;
    return pi_hits_range(*ex_, seed_, begin, std::min(samples_, begin + chunk_));
  }

  std::uint64_t fetch_one_sided() {
    const std::uint64_t first = runs_ * (chunks_ + ranks_);
    const std::uint64_t one = 1;
    std::uint64_t hits = 0;
    for (;;) {
      std::uint64_t ticket = 0;
      MPI_Fetch_and_op(&one, &ticket, MPI_UINT64_T, 0, 0, MPI_SUM, win_);
      MPI_Win_flush(0, win_);
      const std::uint64_t c = ticket - first;
      if (c >= chunks_) break;
      hits += count_chunk(c);
    }
    return hits;
  }

  // Two-sided: rank 0 deals chunk numbers in answer to requests and counts chunks itself between
  // answers (only its main thread calls MPI: MPI_THREAD_FUNNELED). A worker asks for its next
  // chunk before counting the one it holds, so the answer arrives while it counts. Each worker
  // gets exactly one "none left" (chunks_) and then asks no more, so no message outlives the run.
  std::uint64_t deal_two_sided() {
    const MPI_Comm comm = comm_->get();
    constexpr int kAsk = 1, kDeal = 2;
    std::uint64_t hits = 0;
    if (rank_ == 0) {
      std::uint64_t next = 0;
      const std::uint64_t workers = ranks_ - 1;
      std::uint64_t finished = 0;
      const auto answer = [&](int to) {
        const std::uint64_t c = next < chunks_ ? next++ : chunks_;
        if (c == chunks_) ++finished;
        check(MPI_Send(&c, 1, MPI_UINT64_T, to, kDeal, comm), "MPI_Send of a chunk");
      };
      while (finished < workers || next < chunks_) {
        if (next < chunks_) {
          for (int pending = 1; pending;) {  // every request waiting now, then a chunk of its own
            MPI_Status st;
            check(MPI_Iprobe(MPI_ANY_SOURCE, kAsk, comm, &pending, &st), "MPI_Iprobe");
            if (!pending) break;
            char none = 0;
            check(MPI_Recv(&none, 1, MPI_CHAR, st.MPI_SOURCE, kAsk, comm, MPI_STATUS_IGNORE), "MPI_Recv of a request");
            answer(st.MPI_SOURCE);
          }
          if (next < chunks_) hits += count_chunk(next++);
        } else {
          MPI_Status st;
          char none = 0;
          check(MPI_Recv(&none, 1, MPI_CHAR, MPI_ANY_SOURCE, kAsk, comm, &st), "MPI_Recv of a request");
          answer(st.MPI_SOURCE);
        }
      }
      return hits;
    }
    const char ask = 0;
    std::uint64_t held = 0;
    check(MPI_Send(&ask, 1, MPI_CHAR, 0, kAsk, comm), "MPI_Send of a request");
    check(MPI_Recv(&held, 1, MPI_UINT64_T, 0, kDeal, comm, MPI_STATUS_IGNORE), "MPI_Recv of a chunk");
    while (held < chunks_) {
      std::uint64_t following = 0;
      MPI_Request req;
      check(MPI_Irecv(&following, 1, MPI_UINT64_T, 0, kDeal, comm, &req), "MPI_Irecv of a chunk");
      check(MPI_Send(&ask, 1, MPI_CHAR, 0, kAsk, comm), "MPI_Send of a request");
      hits += count_chunk(held);
      check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait for a chunk");
      held = following;
    }
    return hits;
  }

  // The duplicate communicator returns errors; one is fatal to the job all the same (the rank
  // throws, and the runtime aborts the job naming it).
  static void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw FailureError(std::string("pi two-sided chunk dealing: ") + what + " failed");
  }

  std::shared_ptr<Executor> ex_;
  std::uint64_t seed_, samples_, ranks_;
  int rank_;
  std::uint64_t chunk_, chunks_;
  std::unique_ptr<Communicator> comm_;
  MPI_Win win_ = MPI_WIN_NULL;
  std::uint64_t runs_ = 0, taken_ = 0;
};

}  // namespace

std::uint64_t pi_rank_chunk(std::uint64_t samples, int ranks, int threads) {
  // About 4 ms on the rank's threads (2^22 points a thread at ~1e9 points/s a core), fewer
  // where that would leave under 16 chunks a rank; a power of two >= 2^12, so chunks hold whole
  // pairs and a fetch (a few microseconds) stays small next to one.
  const std::uint64_t want = std::uint64_t{1} << 22;
  const std::uint64_t per_rank = samples / (16 * static_cast<std::uint64_t>(std::max(ranks, 1)));
  std::uint64_t chunk = std::uint64_t{1} << 12;
  while (chunk < want * static_cast<std::uint64_t>(std::max(threads, 1)) && chunk * 2 <= per_rank) chunk *= 2;
  return chunk;
}

Share pi_share(std::uint64_t samples, int ranks, int rank) {
  const std::uint64_t pairs = samples / 2;
  Share s;
  s.begin = 2 * static_split(pairs, static_cast<Index>(ranks), static_cast<Index>(rank));
  s.end = rank + 1 == ranks ? samples : 2 * static_split(pairs, static_cast<Index>(ranks), static_cast<Index>(rank + 1));
  return s;
}

namespace rank_common {

std::unique_ptr<RankWorkload> cpu_pi(const ExecutorFactory& executor, const Problem& p, const Layout& l) {
  auto chunks = std::make_shared<ChunkCounter>(std::shared_ptr<Executor>(executor(p.threads)), p, l);
  return std::make_unique<PiRank>([chunks] { return chunks->count(); }, p, l,
                                  [chunks](Validation& v) { chunks->describe(v); });
}

std::unique_ptr<RankWorkload> gpu_pi(const WorkloadFactory& gpu, const Problem& p, const Layout& l) {
  Problem part = p;
  part.device = l.node_rank;  // one rank per GPU of its host
  const Share s = pi_share(p.size, l.ranks, l.rank);
  part.first = s.begin;
  part.size = s.size();
  auto w = std::shared_ptr<Workload>(gpu(part));
  return std::make_unique<PiRank>(
      [w] {
        w->run();
        return w->validate().hits.value_or(0);
      },
      p, l);
}

}  // namespace rank_common

}  // namespace parlab::mpi
