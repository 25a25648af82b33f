// Which interpreter ran a process's Python records, as record fields (docs/records.md,
// "Dimensions that compose"). Plain C++: included where libpython is absent.
#pragma once

#include <string>

namespace parlab {

// `interpreter` is the version and build ("3.11.2", "3.13.5 free-threaded"), `python_build`
// "gil" or "free-threaded", `gil_enabled` the run-time state (sys._is_gil_enabled() once the
// interpreter runs; a GIL build's is always true).
struct PythonRecordFields {
  std::string interpreter;
  std::string python_build;
  bool gil_enabled = true;
};

}  // namespace parlab
