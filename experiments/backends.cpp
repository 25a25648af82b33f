#include "backends.hpp"

#include "cpu/backends.hpp"
#include "embed/backend_names.hpp"
#include "parlab/build_info.hpp"

#if defined(PARLAB_HAVE_CUDA)
#include "gpu/register.hpp"
#endif
#if defined(PARLAB_HAVE_PYTHON)
#include "embed/register.hpp"
#endif
#if defined(PARLAB_HAVE_MPI)
#include "mpi/register.hpp"
#endif

namespace parlab {

Registry make_registry() {
  Registry r;
  register_serial(r);
  register_threads(r);
  register_pool(r);
#if defined(PARLAB_HAVE_TBB)
  register_tbb(r);
#else
  r.add_unavailable("tbb", "cpu", build_info::kTbbWhy);
#endif
#if defined(PARLAB_HAVE_OPENMP)
  register_openmp(r);
#else
  r.add_unavailable("openmp", "cpu", build_info::kOpenMpWhy);
#endif
#if defined(PARLAB_HAVE_CUDA)
  register_cuda(r);
#else
  r.add_unavailable("cuda", "gpu", build_info::kCudaWhy);
#endif
#if defined(PARLAB_HAVE_PYTHON)
  register_python(r);
#else
  for (const std::string_view name : embed::kPythonBackendNames) {
    r.add_unavailable(std::string(name), "python", build_info::kPythonWhy);
  }
#endif
#if defined(PARLAB_HAVE_MPI)
  register_mpi(r);  // after the CPU and GPU parts: it composes with their factories
#else
  for (const char* name : {"mpi+serial", "mpi+pool", "mpi+tbb", "mpi+openmp", "mpi+cuda"}) {
    r.add_unavailable(name, "mpi", build_info::kMpiWhy);
  }
#endif
  return r;
}

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

MpiFacts mpi_facts() {
  MpiFacts f;
#if defined(PARLAB_HAVE_MPI)
  const mpi_job::Facts m = mpi_job::facts();
  f.built = true;
  f.library = m.library;
  f.in_job = m.in_job;
  f.ranks = m.ranks;
  f.ranks_per_node = m.ranks_per_node;
  f.hosts = m.hosts;
  f.binding = m.binding;
#else
  f.why = build_info::kMpiWhy;
#endif
  return f;
}

void configure_python([[maybe_unused]] const std::string& python_home) {
#if defined(PARLAB_HAVE_PYTHON)
  embed::InterpreterOptions o;
  if (!python_home.empty()) o.python_home = python_home;
  set_python_options(std::move(o));
#endif
}

std::string python_context_line() {
#if defined(PARLAB_HAVE_PYTHON)
  return python_context();
#else
  return std::string("not built: ") + build_info::kPythonWhy;
#endif
}

std::optional<InterpreterFields> python_interpreter_fields() {
#if defined(PARLAB_HAVE_PYTHON)
  const PythonRecordFields f = python_record_fields();
  return InterpreterFields{f.interpreter, f.python_build, f.gil_enabled};
#else
  return std::nullopt;
#endif
}

}  // namespace parlab
