#include "experiments/io/data_dir.hpp"

#include <cstdlib>
#include <sstream>

#include "experiments/io/child_process.hpp"
#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/text.hpp"

namespace parlab {

namespace {
constexpr std::size_t kMaxListBytes = std::size_t{1} << 16;  // a few paths
}  // namespace

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("PARLAB_DATA_DIR"); env != nullptr && *env != '\0') {
    std::error_code ec;
    if (!std::filesystem::is_directory(env, ec)) {
      throw UsageError("PARLAB_DATA_DIR='" + quoted_value(env) + "' is not a directory; unset it, or set it to " +
                       "a share/parlab directory (the one beside an installed parlab's bin/)");
    }
    return env;
  }
  const std::filesystem::path exe = self_executable();
  std::string tried;
  if (!exe.empty()) {
    for (const auto& candidate : {exe.parent_path() / ".." / "share" / "parlab",
                                  exe.parent_path() / ".." / ".." / "share" / "parlab"}) {
      std::error_code ec;
      if (std::filesystem::is_directory(candidate / "suites", ec)) return std::filesystem::weakly_canonical(candidate, ec);
      tried += (tried.empty() ? "" : ", ") + candidate.lexically_normal().string();
    }
  }
  // An environment error (exit 2): the installation is incomplete, nothing was measured.
  throw UsageError("parlab's data (suites, plot scripts) not found: looked in " +
                     (tried.empty() ? std::string("nothing (/proc/self/exe unreadable)") : tried) +
                     "; set PARLAB_DATA_DIR to a share/parlab directory");
}

std::vector<std::string> default_interpreter_binaries() {
  std::vector<std::string> paths;
  std::error_code ec;
  std::filesystem::path file;
  try {
    file = data_dir() / "interpreters";
  } catch (const Error&) {
    return paths;
  }
  if (!std::filesystem::exists(file, ec)) return paths;
  std::istringstream in(read_regular_file(file, "the build tree's interpreters list", kMaxListBytes));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') paths.push_back(line);
  }
  return paths;
}

}  // namespace parlab
