// The embedded-Python part as the rest of experiments/ sees it: its configuration, its context
// line and the record fields of this process's interpreter. No-ops (or "not built: why") in a
// build without the part.
#pragma once

#include <optional>
#include <string>

#include "embed/record_fields.hpp"

namespace parlab {

// Options for the embedded Python interpreter, taken before the first Python workload starts it:
// `python_home` overrides PYTHONHOME and the prefix derived from the interpreter (--python-home).
// Throws FailureError once it has started.
void configure_python(const std::string& python_home);

// The Python line of the results' context block (embed/backends.hpp's python_context(): version,
// GIL mode, per-interpreter GIL, and sys.executable/prefix/virtual environment once started), or
// "not built: <why>".
std::string python_context_or_reason();

// Which interpreter ran this process's Python records, or nullopt in a build without the part.
std::optional<PythonRecordFields> python_interpreter_fields();

}  // namespace parlab
