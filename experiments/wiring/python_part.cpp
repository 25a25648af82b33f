#include "experiments/wiring/python_part.hpp"

#include "parlab/build_info.hpp"

#include "core/error.hpp"
#include "core/file_kernel.hpp"

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

void register_python_file_kernels(const std::vector<std::string>& kernels,
                                  [[maybe_unused]] const std::string& expected_sha256,
                                  [[maybe_unused]] const std::string& file) {
  for (const std::string& k : kernels) {
    if (!is_file_kernel(k)) continue;
#if defined(PARLAB_HAVE_PYTHON)
    register_own_kernel(k, expected_sha256, file);
#else
    throw UsageError("kernel file '" + k + "': this parlab has no embedded Python to run it (" +
                     build_info::kPythonWhy + ")");
#endif
  }
}

std::optional<PythonFileKernel> python_file_kernel([[maybe_unused]] std::string_view name) {
#if defined(PARLAB_HAVE_PYTHON)
  if (const embed::OwnKernel* k = registered_own_kernel(name)) return PythonFileKernel{k->name, k->path, k->sha256};
#endif
  return std::nullopt;
}

}  // namespace parlab
