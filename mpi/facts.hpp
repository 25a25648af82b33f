// What the results' context records about MPI (experiments/wiring/mpi_job.hpp fills it, from
// mpi/backends.hpp's mpi_job::facts() where the MPI part is built). Plain C++: included where
// mpi.h is absent.
#pragma once

#include <string>

namespace parlab::mpi_job {

struct Facts {
  bool built = true;    // false: this build has no MPI part
  std::string why;      // why the part is not built
  std::string library;  // MPI_Get_library_version's first line
  bool in_job = false;  // MPI started in this process (a rank of a launched job)
  int ranks = 1, ranks_per_node = 1, hosts = 1;
  std::string binding;  // every rank's CPU affinity (rank 0's view), "r0:0-1 r1:0-1"
};

}  // namespace parlab::mpi_job
