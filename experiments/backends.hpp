// Builds the runtime registry: every backend that was compiled registers itself; every one
// that was not is listed as unavailable with the configure-time reason.
#pragma once

#include <string>

#include "core/workload.hpp"

namespace parlab {

Registry make_registry();

// Options for the embedded Python interpreter, taken before the first Python workload starts it:
// `python_home` overrides PYTHONHOME and the prefix derived from the interpreter (--python-home).
// A no-op in a build without the Python part. Throws FailureError once it has started.
void configure_python(const std::string& python_home);

// The Python line of the results' context block (version, GIL mode, per-interpreter GIL, and
// sys.executable/prefix/virtual environment once started), or why the part is not built.
std::string python_context_line();

}  // namespace parlab
