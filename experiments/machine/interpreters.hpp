// Several CPython interpreters in one run (docs/records.md, "Dimensions that compose").
//
// A process can host only one libpython, so each interpreter other than the one this binary
// embeds is reached through another `parlab` binary built against it (the release-ft preset
// builds one against scripts/build-python-ft.sh's 3.13t). The runner measures a spec naming such
// an interpreter in a child process of that binary (`parlab measure-spec`) and merges the record
// into the run's results.json. A free-threaded interpreter gives two modes: the GIL disabled
// (PYTHON_GIL=0) and re-enabled (PYTHON_GIL=1), each its own child process environment.
//
// Where the other binaries are: $PARLAB_INTERPRETERS, a ':'-separated list of parlab binaries;
// without it, those the build tree lists (data_dir.hpp: build/release-ft/experiments/parlab of
// the source tree); an installed parlab knows of none.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>


namespace parlab {

struct InterpreterMode {
  std::string interpreter;   // the records' `interpreter`: "3.11.2", "3.13.5 free-threaded"
  std::string python_build;  // "gil" or "free-threaded"
  std::string python_gil;    // PYTHON_GIL of the process running it: "" (inherited), "0" or "1"
  std::string parlab;        // the binary that hosts it; empty: this process
  bool available = true;
  std::string reason;  // why not, when unavailable
  // "3.13.5 free-threaded, PYTHON_GIL=1 (build/release-ft/experiments/parlab)"
  std::string describe() const;
};

// Every interpreter mode found, this process's own first (when it has the Python part); found
// once per process (other binaries are asked with `parlab interpreter-info`).
const std::vector<InterpreterMode>& interpreter_modes();

// The available mode whose (interpreter, python_gil) match, or nullptr.
const InterpreterMode* find_interpreter_mode(const std::string& interpreter, const std::string& python_gil);

// `parlab interpreter-info`: this binary's interpreter as one JSON object on `out`.
int cmd_interpreter_info(std::ostream& out);

// The environment a child runs `mode` in: PYTHON_GIL as the mode says (none: inherited).
std::vector<std::pair<std::string, std::string>> gil_env(const std::string& python_gil);

// For `parlab list`: one line per interpreter mode, with availability and reason.
void list_interpreters(std::ostream& out, std::size_t width);

}  // namespace parlab
