// The Python workloads (embed/workloads/*.py), compiled into the binary by a generated header,
// and the import hook that serves them to any interpreter, sub-interpreters included.
#pragma once

#include <span>

#include "embed/python.hpp"

namespace parlab::embed {

struct EmbeddedSource {
  const char* module;    // "parlab_philox"
  const char* filename;  // the source file's path at build time, for tracebacks
  const char* text;
};

// Every embedded workload module.
std::span<const EmbeddedSource> workload_sources();

// Makes the embedded modules importable by name in the current interpreter: a finder on
// sys.meta_path that compiles them from the embedded text, and linecache entries so tracebacks
// show their source lines even where the source tree is absent. Idempotent per interpreter.
// PRECONDITION: the GIL of the current interpreter is held. Throws PythonError on failure.
void install_workload_sources();

// import `module` (after install_workload_sources). PRECONDITION: the GIL is held.
PyObject* import_workload_module(const char* module);

}  // namespace parlab::embed
