// The MPI backends (kind "mpi"), registered by experiments/wiring/make_registry.cpp after the CPU and GPU
// backends, whose factories they compose with (mpi/ includes no other wing):
//
//   mpi+serial, mpi+pool, mpi+tbb, mpi+openmp   every rank runs its share with that CPU
//                      executor (the registry's make_executor) and the record's thread count
//   mpi+cuda           one rank per GPU: each rank runs its share as the registry's `cuda`
//                      workload on the device numbered by its rank on the host
//
// The number of ranks is the job's (mpirun -np R, or `parlab run --ranks`), recorded in each
// record's `ranks`, `ranks_per_node` and `hosts`; names are labels only. Not in the default set:
// a suite or --backend names them.
#pragma once

#include <string>

#include "core/workload.hpp"
#include "facts.hpp"

namespace parlab {

void add_mpi_backends(Registry& registry);

namespace mpi_job {

// Under an MPI launcher: starts MPI (every rank must, before anything else collective).
// Throws FailureError when MPI cannot start.
void start_if_launched();
// True on ranks other than 0 of a started job.
bool is_follower();
// Followers: serve rank 0 until it ends the job. PRECONDITION: add_mpi_backends ran in this process.
int serve();
// Ends the job (rank 0 releases the followers) and finalizes MPI, if it was started. noexcept.
void finish() noexcept;

// What the results' context records about MPI.
Facts facts();

}  // namespace mpi_job

}  // namespace parlab
