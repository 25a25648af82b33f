// The rank workloads besides pi (pi_ranks.cpp): STREAM, plus_one, EPCC mixed mode, the
// OSU-style probes and one rank per GPU, with the MPI wing's kernel table that names them all.
// What each computes and how its result stays the single-process one: workloads.hpp.
#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/kernels.hpp"
#include "core/lab.hpp"
#include "core/stream_validation.hpp"
#include "rank_common.hpp"

namespace parlab::mpi {

namespace {

using rank_common::over;
using rank_common::ranks_failing;

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

// ---------------------------------------------------------------- STREAM
// Holds what core's StreamWorkload (core/cpu_workloads.cpp) holds, over this rank's share, and is
// its own class on purpose: its validation and dot gather across ranks, which core cannot do.
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

Share block_share(std::uint64_t n, int ranks, int rank) {
  const std::uint64_t blocks = dot_block_count(n);
  Share s;
  s.begin = std::min(n, static_split(blocks, static_cast<Index>(ranks), static_cast<Index>(rank)) * kDotBlock);
  s.end = std::min(n, static_split(blocks, static_cast<Index>(ranks), static_cast<Index>(rank + 1)) * kDotBlock);
  return s;
}

namespace {

std::unique_ptr<RankWorkload> cpu_stream(const ExecutorFactory& executor, const Problem& p, const Layout& l) {
  const StreamKernel k = *stream_kernel_from_name(p.kernel);
  if (p.precision == Precision::f32) return std::make_unique<StreamRank<float>>(executor(p.threads), k, p.size, l);
  return std::make_unique<StreamRank<double>>(executor(p.threads), k, p.size, l);
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
    t.family(KernelFamily::pi, {rank_common::cpu_pi, rank_common::gpu_pi})
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
  return rank_kernel_table().at(p.kernel, "mpi ranks", &RankRow::cpu).cpu(executor, p, l);
}

std::unique_ptr<RankWorkload> make_gpu_rank_workload(const WorkloadFactory& gpu, const Problem& p, const Layout& l) {
  const RankRow& row = rank_kernel_table().at(p.kernel, "mpi+cuda", &RankRow::gpu);
  return row.gpu(gpu, p, l);
}

}  // namespace parlab::mpi