#include "embed/sources.hpp"

#include <string>
#include <string_view>

#include "embed/interpreter.hpp"
#include "parlab/embedded_workloads.hpp"

namespace parlab::embed {
namespace {

// The import hook (embed/workloads/parlab_finder.py) is itself one of the embedded modules: its
// text is executed here, before anything can be imported from the binary, and its install()
// called with every module.
constexpr const char* kFinderModule = "parlab_finder";

const EmbeddedSource& finder_source() {
  for (const EmbeddedSource& s : workload_sources()) {
    if (std::string_view(s.module) == kFinderModule) return s;
  }
  throw FailureError(std::string("the embedded workloads lack ") + kFinderModule + " (embed/CMakeLists.txt)");
}

}  // namespace

std::span<const EmbeddedSource> workload_sources() {
  return generated::kWorkloadSources;
}

void install_workload_sources() {
  PyRef sources = PyRef::steal_or_throw(PyDict_New(), "install_workload_sources");
  for (const EmbeddedSource& s : workload_sources()) {
    PyRef entry =
        PyRef::steal_or_throw(Py_BuildValue("(ss)", s.filename, s.text), "install_workload_sources");
    if (PyDict_SetItemString(sources.get(), s.module, entry.get()) != 0) {
      throw_python_error("install_workload_sources");
    }
  }
  PyRef globals = PyRef::steal_or_throw(PyDict_New(), "install_workload_sources");
  if (PyDict_SetItemString(globals.get(), "__builtins__", PyEval_GetBuiltins()) != 0) {
    throw_python_error("install_workload_sources");
  }
  const EmbeddedSource& finder = finder_source();
  const char* what = "installing the import hook for parlab's workload modules";
  PyRef code = PyRef::steal_or_throw(Py_CompileString(finder.text, finder.filename, Py_file_input), what);
  PyRef done = PyRef::steal_or_throw(PyEval_EvalCode(code.get(), globals.get(), globals.get()), what);
  PyObject* install = PyDict_GetItemString(globals.get(), "install");  // borrowed
  if (install == nullptr) throw FailureError(std::string(what) + ": " + kFinderModule + " defines no install()");
  PyRef installed = PyRef::steal_or_throw(PyObject_CallOneArg(install, sources.get()), what);
}

PyObject* import_workload_module(const char* module) {
  install_workload_sources();
  PyObject* m = PyImport_ImportModule(module);
  if (m == nullptr) throw_python_error(std::string("import ") + module);
  return m;
}

}  // namespace parlab::embed
