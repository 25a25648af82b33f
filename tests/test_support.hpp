// Parameters shared by the test suites: which CPU backends this build has, and the thread
// counts and sizes every backend is checked at; and a scoped environment variable.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "core/workload.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace parlab::test {

// Thread counts from the issue: 1, small, odd, prime and oversubscribed on any CI machine.
inline const std::vector<int> kThreadCounts = {1, 2, 3, 4, 7, 16};

inline const Registry& registry() {
  static const Registry r = make_registry();
  return r;
}

// Every available CPU backend with every thread count it accepts (serial: 1 only).
struct BackendThreads {
  std::string backend;
  int threads;
};

inline std::vector<BackendThreads> backend_thread_params() {
  std::vector<BackendThreads> out;
  for (const auto& e : registry().entries()) {
    if (e.kind != BackendKind::cpu || !e.available) continue;
    for (int t : kThreadCounts) {
      if (e.name == "serial" && t != 1) continue;
      out.push_back({e.name, t});
    }
  }
  return out;
}

inline std::vector<std::string> cpu_backend_names() {
  std::vector<std::string> out;
  for (const auto& e : registry().entries()) {
    if (e.kind == BackendKind::cpu && e.available) out.push_back(e.name);
  }
  return out;
}

inline std::unique_ptr<Executor> make_executor(const std::string& backend, int threads) {
  return registry().get(backend).make_executor(threads);
}

inline std::string sanitize(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

inline std::string name_of(const BackendThreads& p) {
  return sanitize(p.backend) + "_t" + std::to_string(p.threads);
}

// Sets an environment variable for one test and restores it (test_ceilings.cpp, test_energy.cpp).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// What gtest and ctest print for the parameter (else "40-byte object <...>").
inline void PrintTo(const BackendThreads& p, std::ostream* os) { *os << p.backend << " threads=" << p.threads; }

}  // namespace parlab::test
