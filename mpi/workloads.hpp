// The rank workloads: one rank's share of each kernel, and the collectives that make the job's
// result exactly the single-process one (docs/records.md, "Dimensions that compose").
//
//   pi       CPU ranks take chunks of the canonical stream (pi_rank_chunk points, whole pairs)
//            from a counter on rank 0 until none is left, so slower cores count fewer; GPU
//            ranks count a contiguous part each (pi_share). Either way the counts are summed
//            exactly (uint64): the canonical integer whichever rank counted which point.
//   STREAM   each rank owns whole blocks of the deterministic reduction (kDotBlock elements) and
//            the arrays' elements in them. dot: the block partials are gathered on rank 0 in
//            index order and combined pairwise as the single-process path does, so its bits
//            are the CPU backends' at every rank and thread count. Every rank checks its part
//            against BabelStream's gold values; the verdict is their conjunction.
//   plus_one each rank owns a contiguous range; the checks combine as for STREAM.
//   overhead_reduce  EPCC mixed mode: each construct reduces one value per thread on every
//            rank, then over the ranks (MPI_Allreduce), so R ranks x 1 thread, 1 x R and hybrids
//            do the same reduction.
//   mpi_barrier, mpi_allreduce, mpi_bcast  OSU-style latency probes, `size` calls per run.
//
// A run that only computes ends with a barrier, so rank 0's clock covers every rank's share.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/kernel_table.hpp"
#include "runtime.hpp"

namespace parlab::mpi {

// The part [begin, end) of [0, n) a rank owns.
struct Share {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t size() const { return end - begin; }
};
// pi on GPUs: whole pairs split evenly, the last rank also takes an odd n's last point.
Share pi_share(std::uint64_t samples, int ranks, int rank);
// pi on CPU ranks: points per chunk handed out (a power of two, >= 2^12).
std::uint64_t pi_rank_chunk(std::uint64_t samples, int ranks, int threads);
// Arrays: whole dot blocks split evenly (block-aligned), so a rank's dot partials are the
// single-process ones.
Share block_share(std::uint64_t n, int ranks, int rank);

using ExecutorFactory = std::function<std::unique_ptr<Executor>(int threads)>;
using WorkloadFactory = std::function<std::unique_ptr<Workload>(const Problem&)>;

// A catalogue kernel's rank makers: this rank's share on a CPU executor (the mpi+<executor>
// entries), and on the GPU workload `gpu` makes on the device numbered by the node-local rank
// (mpi+cuda). A null maker: that entry does not implement the kernel.
struct RankRow {
  std::unique_ptr<RankWorkload> (*cpu)(const ExecutorFactory&, const Problem&, const Layout&) = nullptr;
  std::unique_ptr<RankWorkload> (*gpu)(const WorkloadFactory&, const Problem&, const Layout&) = nullptr;
};

// The MPI wing's kernel table (workloads.cpp), keyed by the catalogue (core/kernel_table.hpp).
const KernelTable<RankRow>& rank_kernel_table();

// This rank's share of p.kernel, from the table; UnavailableError for a kernel it leaves out.
std::unique_ptr<RankWorkload> make_cpu_rank_workload(const ExecutorFactory& executor, const Problem& p,
                                                     const Layout& layout);
std::unique_ptr<RankWorkload> make_gpu_rank_workload(const WorkloadFactory& gpu, const Problem& p,
                                                     const Layout& layout);

}  // namespace parlab::mpi
