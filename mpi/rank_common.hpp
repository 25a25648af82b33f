// What the rank workload files (workloads.cpp, pi_ranks.cpp) share: the collective verdict
// helpers both use, and the pi factories the kernel table in workloads.cpp names. Internal to
// mpi/: the public interface is workloads.hpp.
#pragma once

#include <memory>
#include <string>

#include "workloads.hpp"

namespace parlab::mpi::rank_common {

// How many ranks did not pass (`mine` false). Collective: every rank calls it with its verdict.
inline int ranks_failing(bool mine) {
  int in = mine ? 0 : 1, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

// The end of a verdict's detail: how many ranks it covers.
inline std::string over(const Layout& l) {
  return "over " + std::to_string(l.ranks) + " rank" + (l.ranks == 1 ? "" : "s");
}

// pi's rows of rank_kernel_table() (pi_ranks.cpp).
std::unique_ptr<RankWorkload> cpu_pi(const ExecutorFactory& executor, const Problem& p, const Layout& l);
std::unique_ptr<RankWorkload> gpu_pi(const WorkloadFactory& gpu, const Problem& p, const Layout& l);

}  // namespace parlab::mpi::rank_common
