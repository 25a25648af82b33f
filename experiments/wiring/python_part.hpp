// The embedded-Python part as the rest of experiments/ sees it: its configuration, its context
// line and the record fields of this process's interpreter. No-ops (or "not built: why") in a
// build without the part.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A person's Python kernel file (`parlab run -k path/to/file.py[:name]`) as the run planned it.
struct PythonFileKernel {
  std::string name;    // the kernel's name in the plan and records: absolute path [":" function]
  std::string path;    // absolute (a record's kernel_file is it relative to the run's directory)
  std::string sha256;  // of the file as checked
};

// Checks each file kernel among `kernels` (parse_file_kernel) with Python's ast, nothing of it
// run, and registers it for the Python backends: call before make_registry. Throws UsageError (exit 2, before anything is
// written) for a path that does not exist, a file that does not parse or defines no chunk
// function, a file whose sha256 is no longer `expected_sha256` (when given), or a build without
// the embedded interpreter. A file kernel's name stays as given: its path relative to the working
// directory, or absolute.
// `file`, when given, is where the (one) file kernel's file is, whatever its name says.
void register_python_file_kernels(const std::vector<std::string>& kernels, const std::string& expected_sha256 = {},
                                  const std::string& file = {});

// A registered file kernel, or nullopt.
std::optional<PythonFileKernel> python_file_kernel(std::string_view name);

// The environment variables by which a run hands a child measuring one point of a file kernel
// the run's directory (its working directory) and the hash the file had when the run checked it.
inline constexpr const char* kRunDirEnv = "PARLAB_RUN_DIR";
inline constexpr const char* kKernelSha256Env = "PARLAB_KERNEL_SHA256";
inline constexpr const char* kKernelFileEnv = "PARLAB_KERNEL_FILE";

}  // namespace parlab
