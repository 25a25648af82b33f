// The committed runs a test reads: every results.json under results/ and tests/fixtures/ of the
// source tree (PARLAB_SOURCE_DIR, tests/CMakeLists.txt), parsed.
#pragma once

#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#ifndef PARLAB_SOURCE_DIR
#error "PARLAB_SOURCE_DIR names the source tree (tests/CMakeLists.txt)"
#endif

namespace parlab::test {

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

inline std::vector<std::filesystem::path> committed_runs() {
  std::vector<std::filesystem::path> out;
  for (const char* top : {"results", "tests/fixtures"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(PARLAB_SOURCE_DIR) / top)) {
      if (e.is_regular_file() && e.path().filename() == "results.json") out.push_back(e.path());
    }
  }
  return out;
}

}  // namespace parlab::test
