// A folder a test makes afresh (mkdtemp under the temp directory) and removes when it ends: only
// what it made. std::filesystem::remove_all removes a link inside it, never what the link names,
// and nothing beside or above the folder (tests/test_run_dirs.cpp plants a person's file to show it).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace parlab::test {

class FreshDir {
 public:
  explicit FreshDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp " + tmpl + " failed");
    path_ = tmpl;
  }
  ~FreshDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  FreshDir(const FreshDir&) = delete;
  FreshDir& operator=(const FreshDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace parlab::test
