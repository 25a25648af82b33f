#include "workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/kernels.hpp"
#include "core/lab.hpp"
#include "core/stream_validation.hpp"

namespace parlab::mpi {

namespace {

template <class T>
MPI_Datatype datatype();
template <>
MPI_Datatype datatype<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype datatype<double>() { return MPI_DOUBLE; }

bool all_ranks(bool mine) {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out != 0;
}

// The verdict of a counting probe: it ran, and no run came out wrong (`wrong` says how).
Validation probe_verdict(std::uint64_t runs, bool wrong, const std::string& how_wrong, const std::string& done) {
  Validation v;
  v.pass = runs > 0 && !wrong;
  v.detail = runs == 0 ? "never ran" : wrong ? how_wrong : done;
  return v;
}

int ranks_failing(bool mine) {
  int in = mine ? 0 : 1, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

std::string over(const Layout& l) { return "over " + std::to_string(l.ranks) + " rank" + (l.ranks == 1 ? "" : "s"); }

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
// took 0.063 to 0.114 s for the same 1/16 of 2^30 points (results/README.md, "Unequal cores"),
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

// ---------------------------------------------------------------- STREAM
template <class T>
class StreamRank final : public RankWorkload {
 public:
  StreamRank(std::unique_ptr<Executor> ex, StreamKernel k, std::uint64_t n, const Layout& l)
      : ex_(std::move(ex)), kernel_(k), n_(n), layout_(l), share_(block_share(n, l.ranks, l.rank)),
        a_(share_.size()), b_(share_.size()), c_(share_.size()),
        partials_(k == StreamKernel::dot ? dot_block_count(share_.size()) : 0) {
    T* a = a_.data();
    T* b = b_.data();
    T* c = c_.data();
    ex_->parallel_for(share_.size(), kArrayGrain, [=](Index lo, Index hi) {  // first touch by the threads that use it
      for (Index i = lo; i < hi; ++i) {
        a[i] = StreamInit<T>::a;
        b[i] = StreamInit<T>::b;
        c[i] = StreamInit<T>::c;
      }
    });
    if (k == StreamKernel::dot) {
      // Blocks per rank and where each rank's start in the gathered, index-ordered partials.
      counts_.resize(static_cast<std::size_t>(l.ranks));
      displs_.resize(static_cast<std::size_t>(l.ranks));
      const std::uint64_t blocks = dot_block_count(n);
      for (int r = 0; r < l.ranks; ++r) {
        const Share s = block_share(n, l.ranks, r);
        counts_[static_cast<std::size_t>(r)] = static_cast<int>(dot_block_count(s.size()));
        displs_[static_cast<std::size_t>(r)] = static_cast<int>(s.begin / kDotBlock);
      }
      if (blocks > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        throw UsageError("dot over MPI: more than 2^31 blocks");
      }
      if (l.rank == 0) all_partials_ = AlignedBuffer<T>(blocks);
    }
  }

  void run() override {
    if (kernel_ == StreamKernel::dot) {
      // Block b of this rank's arrays is global block begin/kDotBlock + b, and only the last
      // rank's last block is short, so these partials are the single-process ones.
      const std::uint64_t local = share_.size();
      T* partials = partials_.data();
      const T* a = a_.data();
      const T* b = b_.data();
      ex_->parallel_for(dot_block_count(local), 1, [=](Index lo, Index hi) {
        for (Index blk = lo; blk < hi; ++blk) partials[blk] = dot_block(a, b, local, blk);
      });
      MPI_Gatherv(partials, static_cast<int>(dot_block_count(local)), datatype<T>(),
                  layout_.rank == 0 ? all_partials_.data() : nullptr, counts_.data(), displs_.data(), datatype<T>(), 0,
                  MPI_COMM_WORLD);
      T sum = T(0);
      if (layout_.rank == 0) sum = dot_pairwise_inplace(all_partials_.data(), dot_block_count(n_));
      MPI_Bcast(&sum, 1, datatype<T>(), 0, MPI_COMM_WORLD);
      dot_.record(sum);
    } else {
      // Stores chosen from the whole job's arrays, as one process of n elements chooses them: the
      // ranks of a node share its caches, and ranks and threads must be compared on one path.
      stream_run(*ex_, kernel_, a_.data(), b_.data(), c_.data(), share_.size(), stream_stores_for<T>(kernel_, n_));
      MPI_Barrier(MPI_COMM_WORLD);
    }
    gold_.apply(kernel_);
    ++runs_;
  }

  Validation validate() override {
    // Each rank checks its part of the arrays; the dot value (the same on every rank) is checked
    // against the whole job's gold.
    const StreamCheck<T> mine = check_stream_arrays(a_.data(), b_.data(), c_.data(), share_.size(), gold_);
    const int failing = ranks_failing(mine.pass);
    Validation v;
    std::vector<std::string> why;
    if (failing > 0) {
      why.push_back(std::to_string(failing) + " of " + std::to_string(layout_.ranks) +
                    " ranks' arrays differ from BabelStream gold" +
                    (mine.pass ? "" : " (rank " + std::to_string(layout_.rank) + ": " + mine.detail + ")"));
    }
    if (kernel_ == StreamKernel::dot) {
      v.checksum = static_cast<double>(dot_.last());
      const auto dot_why = dot_.failures(gold_, n_);
      why.insert(why.end(), dot_why.begin(), dot_why.end());
    } else {
      // The single-process fingerprint: each array's first and last element of the whole job.
      double ends[2] = {0, 0};
      if (share_.size() > 0 && share_.begin == 0) ends[0] = static_cast<double>(a_[0]) + b_[0] + c_[0];
      if (share_.size() > 0 && share_.end == n_) {
        const std::uint64_t e = share_.size() - 1;
        ends[1] = static_cast<double>(a_[e]) + b_[e] + c_[e];
      }
      double both[2] = {0, 0};
      MPI_Allreduce(ends, both, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      v.checksum = n_ > 0 ? both[0] + both[1] : 0.0;
      if (runs_ == 0) why.emplace_back("never ran");
    }
    v.pass = why.empty();
    v.detail = v.pass ? "matches BabelStream gold values on every rank, " + over(layout_) : join_reasons({}, why);
    note_stream_stores<T>(v, kernel_, n_);
    return v;
  }

  WorkCount work() const override { return stream_work<T>(kernel_, n_); }

 private:
  std::unique_ptr<Executor> ex_;
  StreamKernel kernel_;
  std::uint64_t n_;
  Layout layout_;
  Share share_;
  AlignedBuffer<T> a_, b_, c_, partials_, all_partials_;
  std::vector<int> counts_, displs_;
  StreamGold<T> gold_;
  DotRuns<T> dot_;
  std::uint64_t runs_ = 0;
};

// ---------------------------------------------------------------- plus_one
class PlusOneRank final : public RankWorkload {
 public:
  PlusOneRank(std::unique_ptr<Executor> ex, std::uint64_t n, const Layout& l)
      : ex_(std::move(ex)), n_(n), layout_(l), share_(block_share(n, l.ranks, l.rank)), x_(share_.size()), y_(share_.size()) {
    std::int32_t* x = x_.data();
    std::int32_t* y = y_.data();
    const std::uint64_t first = share_.begin;
    ex_->parallel_for(share_.size(), kArrayGrain, [=](Index lo, Index hi) {
      for (Index i = lo; i < hi; ++i) {
        x[i] = plus_one_init(first + i);
        y[i] = 0;
      }
    });
  }
  void run() override {
    plus_one(*ex_, x_.data(), y_.data(), share_.size());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  Validation validate() override {
    std::string bad;
    std::int64_t sum = 0;
    for (std::uint64_t i = 0; i < share_.size(); ++i) {
      const std::int32_t want = plus_one_init(share_.begin + i) + 1;
      if (y_[i] != want && bad.empty()) {
        bad = "y[" + std::to_string(share_.begin + i) + "] = " + std::to_string(y_[i]) + ", expected " + std::to_string(want);
      }
      sum += y_[i];
    }
    std::int64_t total = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    const int failing = ranks_failing(bad.empty());
    Validation v;
    v.checksum = static_cast<double>(total);
    v.pass = failing == 0;
    v.detail = v.pass ? "every y[i] == x[i] + 1 on every rank, " + over(layout_)
                      : std::to_string(failing) + " of " + std::to_string(layout_.ranks) + " ranks differ" +
                            (bad.empty() ? "" : " (rank " + std::to_string(layout_.rank) + ": " + bad + ")");
    return v;
  }
  WorkCount work() const override { return kernel_work("plus_one", Precision::i32, n_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::uint64_t n_;
  Layout layout_;
  Share share_;
  AlignedBuffer<std::int32_t> x_, y_;
};

// ---------------------------------------------------------------- EPCC mixed mode
// Each of `size` constructs: every thread of every rank contributes 1, reduced over the threads
// (the executor) and then over the ranks. The count must be size * threads * ranks.
class ReduceRank final : public RankWorkload {
 public:
  ReduceRank(std::unique_ptr<Executor> ex, std::uint64_t constructs, const Layout& l)
      : ex_(std::move(ex)), constructs_(constructs), layout_(l) {}
  void run() override {
    std::uint64_t total = 0;
    for (std::uint64_t k = 0; k < constructs_; ++k) {
      std::uint64_t mine = lab::overhead_reduction(*ex_, 1), all = 0;
      MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      total += all;
    }
    if (total != constructs_ * static_cast<std::uint64_t>(ex_->threads()) * static_cast<std::uint64_t>(layout_.ranks)) {
      wrong_ = true;
    }
    ++runs_;
  }
  Validation validate() override {
    return probe_verdict(runs_, wrong_, "a reduction over threads and ranks returned the wrong count",
                         "constructs completed, " + over(layout_));
  }
  WorkCount work() const override { return kernel_work("overhead_reduce", Precision::i32, constructs_); }

 private:
  std::unique_ptr<Executor> ex_;
  std::uint64_t constructs_;
  Layout layout_;
  std::uint64_t runs_ = 0;
  bool wrong_ = false;
};

// ---------------------------------------------------------------- OSU-style probes
class ProbeRank final : public RankWorkload {
 public:
  ProbeRank(std::string kernel, std::uint64_t calls, const Layout& l) : kernel_(std::move(kernel)), calls_(calls), layout_(l) {}
  void run() override {
    const std::uint64_t rank = static_cast<std::uint64_t>(layout_.rank);
    const std::uint64_t ranks = static_cast<std::uint64_t>(layout_.ranks);
    for (std::uint64_t k = 0; k < calls_; ++k) {
      if (kernel_ == "mpi_barrier") {
        MPI_Barrier(MPI_COMM_WORLD);
      } else if (kernel_ == "mpi_allreduce") {
        std::uint64_t in = rank + k, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (out != ranks * (ranks - 1) / 2 + ranks * k) wrong_ = true;
      } else {
        std::uint64_t v = rank == 0 ? k + 1 : 0;
        MPI_Bcast(&v, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (v != k + 1) wrong_ = true;
      }
    }
    ++runs_;
  }
  Validation validate() override {
    return probe_verdict(runs_, !all_ranks(!wrong_), "a rank received a wrong value",
                         kernel_ + " calls completed, " + over(layout_));
  }
  WorkCount work() const override { return kernel_work(kernel_, Precision::i32, calls_); }

 private:
  std::string kernel_;
  std::uint64_t calls_;
  Layout layout_;
  std::uint64_t runs_ = 0;
  bool wrong_ = false;
};

// ---------------------------------------------------------------- one rank per GPU
// This rank's part runs as an ordinary GPU workload on its device; the verdict is the
// conjunction of every rank's, the work the sum.
class GpuPartRank final : public RankWorkload {
 public:
  GpuPartRank(std::unique_ptr<Workload> part, const Layout& l) : part_(std::move(part)), layout_(l) {
    const WorkCount mine = part_->work();
    double in[3] = {mine.samples, mine.bytes, mine.flops}, out[3] = {0, 0, 0};
    MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    work_.samples = out[0];
    work_.bytes = out[1];
    work_.flops = out[2];
  }
  void run() override {
    part_->run();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  Validation validate() override {
    const Validation mine = part_->validate();
    const int failing = ranks_failing(mine.pass);
    double sum = 0;
    MPI_Allreduce(&mine.checksum, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    Validation v;
    v.pass = failing == 0;
    v.checksum = sum;
    v.detail = v.pass ? "every rank's part valid (" + mine.detail + "), " + over(layout_)
                      : std::to_string(failing) + " of " + std::to_string(layout_.ranks) + " ranks failed" +
                            (mine.pass ? "" : " (rank " + std::to_string(layout_.rank) + ": " + mine.detail + ")");
    return v;
  }
  WorkCount work() const override { return work_; }

 private:
  std::unique_ptr<Workload> part_;
  Layout layout_;
  WorkCount work_;
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

Share block_share(std::uint64_t n, int ranks, int rank) {
  const std::uint64_t blocks = dot_block_count(n);
  Share s;
  s.begin = std::min(n, static_split(blocks, static_cast<Index>(ranks), static_cast<Index>(rank)) * kDotBlock);
  s.end = std::min(n, static_split(blocks, static_cast<Index>(ranks), static_cast<Index>(rank + 1)) * kDotBlock);
  return s;
}

namespace {

std::unique_ptr<RankWorkload> cpu_pi(const ExecutorFactory& executor, const Problem& p, const Layout& l) {
  auto chunks = std::make_shared<ChunkCounter>(std::shared_ptr<Executor>(executor(p.threads)), p, l);
  return std::make_unique<PiRank>([chunks] { return chunks->count(); }, p, l,
                                  [chunks](Validation& v) { chunks->describe(v); });
}

std::unique_ptr<RankWorkload> cpu_stream(const ExecutorFactory& executor, const Problem& p, const Layout& l) {
  const StreamKernel k = *stream_kernel_from_name(p.kernel);
  if (p.precision == Precision::f32) return std::make_unique<StreamRank<float>>(executor(p.threads), k, p.size, l);
  return std::make_unique<StreamRank<double>>(executor(p.threads), k, p.size, l);
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

// An array kernel over one rank per GPU: each rank's GPU runs its block-aligned share.
std::unique_ptr<RankWorkload> gpu_part(const WorkloadFactory& gpu, const Problem& p, const Layout& l) {
  Problem part = p;
  part.device = l.node_rank;  // one rank per GPU of its host
  part.size = block_share(p.size, l.ranks, l.rank).size();
  return std::make_unique<GpuPartRank>(gpu(part), l);
}

}  // namespace

// The MPI wing's table. dot has no GPU-rank form: its bits would not be the CPU's.
const KernelTable<RankRow>& rank_kernel_table() {
  static const KernelTable<RankRow> table = [] {
    KernelTable<RankRow> t;
    t.family(KernelFamily::pi, {cpu_pi, gpu_pi})
        .family(KernelFamily::stream, {cpu_stream, gpu_part})
        .kernel("dot", {cpu_stream, nullptr})
        .kernel("plus_one", {[](const ExecutorFactory& executor, const Problem& p, const Layout& l) -> std::unique_ptr<RankWorkload> {
                               return std::make_unique<PlusOneRank>(executor(p.threads), p.size, l);
                             },
                             gpu_part})
        .kernel("overhead_reduce", {[](const ExecutorFactory& executor, const Problem& p, const Layout& l) -> std::unique_ptr<RankWorkload> {
                  return std::make_unique<ReduceRank>(executor(p.threads), p.size, l);
                }})
        .family(KernelFamily::comm, {[](const ExecutorFactory&, const Problem& p, const Layout& l) -> std::unique_ptr<RankWorkload> {
                  return std::make_unique<ProbeRank>(p.kernel, p.size, l);
                }});
    return t;
  }();
  return table;
}

std::unique_ptr<RankWorkload> make_cpu_rank_workload(const ExecutorFactory& executor, const Problem& p,
                                                     const Layout& l) {
  return rank_kernel_table().at(p.kernel, "mpi ranks").cpu(executor, p, l);
}

std::unique_ptr<RankWorkload> make_gpu_rank_workload(const WorkloadFactory& gpu, const Problem& p, const Layout& l) {
  const RankRow& row = rank_kernel_table().at(p.kernel, "mpi+cuda");
  if (row.gpu == nullptr) throw UnavailableError("not implemented by mpi+cuda");
  return row.gpu(gpu, p, l);
}

}  // namespace parlab::mpi
