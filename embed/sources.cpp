#include "embed/sources.hpp"

#include <string>

#include "embed/interpreter.hpp"
#include "parlab/embedded_workloads.hpp"

namespace parlab::embed {
namespace {

// A finder and loader in Python, run once per interpreter. Kept tiny: everything it needs is in
// importlib, which every interpreter (sub-interpreters too) has.
constexpr const char* kFinderSource = R"py(
import importlib.abc, importlib.util, linecache, sys

class ParlabEmbeddedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves parlab's workload modules from the text compiled into the parlab binary."""

    def __init__(self, sources):
        self.sources = sources  # module name -> (filename, text)
        for filename, text in sources.values():
            linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)

    def find_spec(self, name, path=None, target=None):
        if name not in self.sources:
            return None
        return importlib.util.spec_from_loader(name, self, origin=self.sources[name][0])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        filename, text = self.sources[module.__name__]
        module.__file__ = filename
        exec(compile(text, filename, "exec"), module.__dict__)

if not any(type(f).__name__ == "ParlabEmbeddedFinder" for f in sys.meta_path):
    sys.meta_path.insert(0, ParlabEmbeddedFinder(_parlab_sources))
)py";

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
  if (PyDict_SetItemString(globals.get(), "__builtins__", PyEval_GetBuiltins()) != 0 ||
      PyDict_SetItemString(globals.get(), "_parlab_sources", sources.get()) != 0) {
    throw_python_error("install_workload_sources");
  }
  PyRef result =
      PyRef::steal_or_throw(PyRun_String(kFinderSource, Py_file_input, globals.get(), globals.get()),
                            "installing the import hook for parlab's workload modules");
}

PyObject* import_workload_module(const char* module) {
  install_workload_sources();
  PyObject* m = PyImport_ImportModule(module);
  if (m == nullptr) throw_python_error(std::string("import ") + module);
  return m;
}

}  // namespace parlab::embed
