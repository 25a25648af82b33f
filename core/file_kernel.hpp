// A kernel named by a Python file (`parlab run -k path/to/file.py`, or `path/to/file.py:name`
// for a chunk function not called `chunk`): the one rule by which the plan, the runner, the
// record's roof and the Python part tell such a kernel from a catalogue or wing kernel. Plain C++,
// header-only: included where libpython is absent.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace parlab {

struct FileKernelName {
  std::string path;      // as given (the command line makes it absolute before planning)
  std::string function;  // the chunk function's name: "chunk" unless `:name` gave another
};

// The path and function of a file kernel's name, or nullopt for any other kernel name. A file
// kernel's name ends in ".py", or in ".py:" and a Python identifier.
inline std::optional<FileKernelName> parse_file_kernel(std::string_view kernel) {
  constexpr std::string_view ext = ".py";
  const auto identifier = [](std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (const char c : s) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      if (!ok) return false;
    }
    return true;
  };
  if (kernel.size() > ext.size() && kernel.substr(kernel.size() - ext.size()) == ext) {
    return FileKernelName{std::string(kernel), "chunk"};
  }
  const std::size_t colon = kernel.rfind(':');
  if (colon == std::string_view::npos || colon <= ext.size()) return std::nullopt;
  const std::string_view path = kernel.substr(0, colon), fn = kernel.substr(colon + 1);
  if (path.substr(path.size() - ext.size()) != ext || !identifier(fn)) return std::nullopt;
  return FileKernelName{std::string(path), std::string(fn)};
}

inline bool is_file_kernel(std::string_view kernel) { return parse_file_kernel(kernel).has_value(); }

// A file kernel's record's `family`: a person's own kernel, not parlab's catalogue nor a lab's.
inline constexpr const char* kOwnKernelFamily = "own";

// The Python executors a file kernel is planned on, available or not (an unavailable one's record
// says why): one worker and threads (py-pure-threads at 1..N threads), free-threaded threads,
// sub-interpreters, the thread pool, processes, dask.delayed and dask.distributed.
inline constexpr std::array<std::string_view, 7> kFileKernelBackends = {
    "py-pure-threads", "py-free-threaded", "py-subinterp", "py-thread-pool",
    "py-processes",    "py-dask-delayed",  "py-dask-distributed"};

inline bool runs_file_kernels(std::string_view backend) {
  return std::find(kFileKernelBackends.begin(), kFileKernelBackends.end(), backend) != kFileKernelBackends.end();
}

}  // namespace parlab
