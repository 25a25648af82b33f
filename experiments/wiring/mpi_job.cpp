#include "experiments/wiring/mpi_job.hpp"

#include "parlab/build_info.hpp"
#include "experiments/wiring/make_registry.hpp"

#if defined(PARLAB_HAVE_MPI)
#include "mpi/backends.hpp"
#endif

namespace parlab {

MpiJobScope::MpiJobScope() {
#if defined(PARLAB_HAVE_MPI)
  mpi_job::start_if_launched();
#endif
}

MpiJobScope::~MpiJobScope() {
#if defined(PARLAB_HAVE_MPI)
  mpi_job::finish();
#endif
}

bool MpiJobScope::follower() const {
#if defined(PARLAB_HAVE_MPI)
  return mpi_job::is_follower();
#else
  return false;
#endif
}

bool MpiJobScope::in_job() {
#if defined(PARLAB_HAVE_MPI)
  return mpi_job::facts().in_job;
#else
  return false;
#endif
}

int MpiJobScope::serve() {
#if defined(PARLAB_HAVE_MPI)
  const Registry registry = make_registry();  // registers the builders this rank serves with
  return mpi_job::serve();
#else
  return 1;
#endif
}

mpi_job::Facts mpi_facts() {
#if defined(PARLAB_HAVE_MPI)
  return mpi_job::facts();
#else
  mpi_job::Facts f;
  f.built = false;
  f.why = build_info::kMpiWhy;
  return f;
#endif
}

}  // namespace parlab
