#include "experiments/wiring/python_part.hpp"

#include "parlab/build_info.hpp"

#if defined(PARLAB_HAVE_PYTHON)
#include "embed/backends.hpp"
#endif

namespace parlab {

void configure_python([[maybe_unused]] const std::string& python_home) {
#if defined(PARLAB_HAVE_PYTHON)
  embed::InterpreterOptions o;
  if (!python_home.empty()) o.python_home = python_home;
  set_python_options(std::move(o));
#endif
}

std::string python_context_or_reason() {
#if defined(PARLAB_HAVE_PYTHON)
  return python_context();
#else
  return std::string("not built: ") + build_info::kPythonWhy;
#endif
}

std::optional<PythonRecordFields> python_interpreter_fields() {
#if defined(PARLAB_HAVE_PYTHON)
  return python_record_fields();
#else
  return std::nullopt;
#endif
}

}  // namespace parlab
