// This process's part in an MPI job, and what the results' context says about MPI. No-ops in a
// build without the MPI part.
#pragma once

#include "mpi/facts.hpp"

namespace parlab {

// RAII. Under an MPI launcher the constructor starts MPI; on ranks other than 0 the caller then
// only serve()s rank 0's distributed workloads, so output and result files come from rank 0
// alone. Without a launcher MPI starts when a distributed workload is first made. The destructor
// ends the job (rank 0 releases the other ranks) and finalizes MPI if it started.
class MpiJobScope {
 public:
  MpiJobScope();  // throws FailureError when MPI cannot start under a launcher
  ~MpiJobScope();
  MpiJobScope(const MpiJobScope&) = delete;
  MpiJobScope& operator=(const MpiJobScope&) = delete;
  bool follower() const;
  static bool in_job();  // MPI was started by a launcher in this process
  int serve();  // returns the exit code once rank 0 ends the job
};

// The MPI library, and when this process is a rank of a started job, its layout and binding; in
// a build without the part, built = false and why.
mpi_job::Facts mpi_facts();

}  // namespace parlab
