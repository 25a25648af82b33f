#include "backends.hpp"

#include "cpu/backends.hpp"
#include "parlab/build_info.hpp"

#if defined(PARLAB_HAVE_CUDA)
#include "gpu/register.hpp"
#endif
#if defined(PARLAB_HAVE_PYTHON)
#include "embed/register.hpp"
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
  r.add_unavailable("python", "python", build_info::kPythonWhy);
  r.add_unavailable("py-threads-race", "python", build_info::kPythonWhy);
#endif
  return r;
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

}  // namespace parlab
