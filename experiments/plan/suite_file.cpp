// The suite files: finding and reading a suite by name or path (load_suite), and the kernel
// files a suite given by path names. Expanding a suite into a plan is suite.cpp; a plan entry's
// JSON form is record/spec.cpp.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <utility>

#include "core/error.hpp"
#include "core/file_kernel.hpp"
#include "experiments/io/data_dir.hpp"
#include "experiments/io/read.hpp"
#include "experiments/io/text.hpp"
#include "experiments/plan/suggest.hpp"
#include "experiments/plan/suite.hpp"

namespace parlab {

using nlohmann::json;

namespace {
// A suite is a few kilobytes; a file far larger is not one.
constexpr std::size_t kMaxSuiteBytes = std::size_t{4} << 20;
}  // namespace

std::string format_size(std::uint64_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::uint64_t{1} << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}



std::filesystem::path suites_dir() {
  if (const char* env = std::getenv("PARLAB_SUITES_DIR"); env != nullptr && *env != '\0') return env;
  return data_dir() / "suites";
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(suites_dir(), ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Suites renamed, old name -> new: the old name still runs the suite, with a one-line note, so
// scripts and habits that name it keep working. `peers` became `libraries` when "peer" came to
// mean only an external program measured beside parlab (docs/design.md, "Glossary").
const std::pair<const char*, const char*> kRenamedSuites[] = {{"peers", "libraries"}};

bool suite_given_by_path(const std::string& name_or_path) {
  const std::filesystem::path path = name_or_path;
  std::error_code no_throw;  // a path that cannot be looked at (a symlink loop) is read, and refused there
  return name_or_path.find('/') != std::string::npos ||
         (path.extension() == ".json" && std::filesystem::exists(path, no_throw));
}

json load_suite(const std::string& name_or_path) {
  std::filesystem::path path = name_or_path;
  std::error_code no_throw;  // a path that cannot be looked at (a symlink loop) is read below, and refused there
  const bool looks_like_path = suite_given_by_path(name_or_path);
  if (!looks_like_path) {
    path = suites_dir() / (name_or_path + ".json");
    for (const auto& [old_name, new_name] : kRenamedSuites) {
      if (name_or_path == old_name && !std::filesystem::exists(path, no_throw)) {
        std::cerr << "parlab: the suite '" << old_name << "' is now called '" << new_name << "'; running '"
                  << new_name << "'\n";
        path = suites_dir() / (std::string(new_name) + ".json");
      }
    }
  }
  if (std::filesystem::is_directory(path, no_throw)) {
    throw UsageError("suite '" + name_or_path + "' is a directory; expected a suite name or a .json file");
  }
  if (!std::filesystem::exists(path, no_throw) && !std::filesystem::is_symlink(path, no_throw)) {
    if (looks_like_path) throw UsageError("suite file '" + path.string() + "' does not exist");
    throw UsageError("unknown suite '" + quoted_value(name_or_path, 60) + "'" + did_you_mean(name_or_path, suite_names()) +
                     " (`parlab list` names them; or a path to a .json)");
  }
  return parse_suite_text(read_regular_file(path, "suite file", kMaxSuiteBytes), path.string());
}

namespace {

// The plan's name of kernel file `given` of a suite in `dir`: its path resolved against `dir`,
// with the ":function" it was given, if any.
std::string resolved_kernel_name(const std::string& given, const FileKernelName& parsed,
                                 const std::filesystem::path& dir) {
  std::string name = (dir / parsed.path).lexically_normal().string();
  if (given.size() > parsed.path.size()) name += ":" + parsed.function;
  return name;
}

}  // namespace

std::vector<SuiteKernelFile> resolve_suite_kernel_files(json& suite, const std::string& name_or_path) {
  std::vector<SuiteKernelFile> files;
  if (!suite.is_object() || !suite.contains("experiments") || !suite["experiments"].is_array()) return files;
  const bool by_path = suite_given_by_path(name_or_path);
  const std::filesystem::path dir = std::filesystem::path(name_or_path).parent_path();
  json& experiments = suite["experiments"];
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    json& e = experiments[i];
    if (!e.is_object() || !e.contains("kernel")) continue;
    json& kernel = e["kernel"];
    // "kernel" is a name or a list of names; each list entry is a json reference into the suite.
    std::vector<json*> names;
    if (kernel.is_string()) names.push_back(&kernel);
    if (kernel.is_array()) {
      for (json& k : kernel) {
        if (k.is_string()) names.push_back(&k);
      }
    }
    for (json* k : names) {
      const std::string given = k->get<std::string>();
      const std::optional<FileKernelName> parsed = parse_file_kernel(given);
      if (!parsed) continue;
      const std::string experiment = " experiment " + std::to_string(i + 1) + " kernel '" + valid_utf8(given) + "'";
      if (!by_path) {
        // A relative path would be looked for beside parlab's own suites, and a built-in suite
        // naming a person's file would be a packaging mistake: refused, with the way that works.
        throw UsageError("suite '" + name_or_path + "'" + experiment +
                         ": only a suite given by path may name a kernel file (parlab run path/to/suite.json), "
                         "its relative paths then found beside it");
      }
      *k = resolved_kernel_name(given, *parsed, dir);
      files.push_back({"suite file '" + valid_utf8(name_or_path) + "'" + experiment, k->get<std::string>()});
    }
  }
  return files;
}

json parse_suite_text(std::string_view text, const std::string& path) {
  json j = parse_json_text(text, "suite file '" + valid_utf8(path) + "'", ReadLimits{}.max_depth);
  if (!j.is_object()) throw UsageError("suite file '" + path + "': expected a JSON object");
  return j;
}

}  // namespace parlab
