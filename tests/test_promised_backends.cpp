// What this configuration promises (tests that fail when coverage shrinks). CMake writes
// the promise into parlab/promise.hpp (tests/CMakeLists.txt) from the parts configured ON
// (PARLAB_ENABLE_<PART>=ON, as CI's presets set them) and the exemptions, each with its reason:
// those the linked interpreter and the sanitizers rule out (py-subinterp before 3.12,
// py-free-threaded unless PARLAB_PYTHON_FREE_THREADED, Numba and Dask under ASan) and any in
// PARLAB_UNPROMISED_BACKENDS. This test compares it with the registry this build makes:
//   - every backend of a promised part (the always-built CPU backends included) is available;
//   - CUDA's backends (and mpi+cuda) are promised *compiled*: available, or unavailable only for
//     want of a GPU ("no CUDA device", or "no CUDA driver" on a machine without one), never "not
//     found at configure time", a driver error or broken;
//   - every exemption names a registered backend, with a reason.
// A backend that would be missing is named with its reason, so a CI machine that lost a package
// fails here instead of passing with fewer tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/wiring/make_registry.hpp"
#include "parlab/promise.hpp"

namespace parlab {
namespace {

const Registry& registry() {
  static const Registry r = make_registry();
  return r;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The optional parts a backend needs (none: serial, threads, pool), from its kind and name.
// mpi+<executor> needs MPI and whatever its executor needs. A new kind does not compile until this
// switch (no default) says which part builds it.
std::vector<std::string> parts_of(const BackendEntry& e) {
  switch (e.kind) {
    case BackendKind::cpu:
      if (e.name == "tbb" || starts_with(e.name, "tbb-")) return {"TBB"};
      if (e.name == "openmp" || starts_with(e.name, "openmp-")) return {"OPENMP"};
      return {};
    case BackendKind::gpu: return {"CUDA"};
    // External programs found at run time (BabelStream's binaries in PARLAB_BABELSTREAM_DIR, built
    // by scripts/build-babelstream.sh), not a part CMake configures: no configuration promises them.
    case BackendKind::peer: return {"PEERS"};
    case BackendKind::python: return {"PYTHON"};
    case BackendKind::mpi: {
      std::vector<std::string> parts = {"MPI"};
      const BackendEntry* executor = starts_with(e.name, "mpi+") ? registry().find(e.name.substr(4)) : nullptr;
      if (executor == nullptr) {
        ADD_FAILURE() << e.name << ": an MPI backend not named mpi+<backend of this registry>";
        return parts;
      }
      for (auto& p : parts_of(*executor)) parts.push_back(std::move(p));
      return parts;
    }
  }
  ADD_FAILURE() << e.name << ": kind " << static_cast<int>(e.kind) << " is none of BackendKind's";
  return {"?"};
}

bool part_promised(const std::string& part) {
  if (part == "TBB") return promise::kTbb;
  if (part == "OPENMP") return promise::kOpenMp;
  if (part == "CUDA") return promise::kCuda;
  if (part == "PYTHON") return promise::kPython;
  if (part == "MPI") return promise::kMpi;
  return false;
}

const promise::Unpromised* exemption(std::string_view name) {
  for (const auto& u : promise::kUnpromised) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

// A backend unavailable for want of a GPU on this machine (and nothing else): gpu/ says "no CUDA
// device (...)" or "no CUDA driver (...)"; mpi+cuda repeats cuda's reason after its prefix, and the
// GPU library backends (py-cupy, py-torch) after theirs (no_gpu_reason, core/registry.cpp).
constexpr std::string_view kNeedsGpuPrefix = "needs a GPU: ";
bool wants_a_gpu(const BackendEntry& e) {
  std::string_view r = e.reason;
  constexpr std::string_view kMpiPrefix = "the cuda backend is unavailable: ";
  if (e.kind == BackendKind::mpi && starts_with(r, kMpiPrefix)) r.remove_prefix(kMpiPrefix.size());
  if (e.kind == BackendKind::python && starts_with(r, kNeedsGpuPrefix)) r.remove_prefix(kNeedsGpuPrefix.size());
  return !e.broken && (starts_with(r, "no CUDA device") || starts_with(r, "no CUDA driver"));
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "+") + x;
  return s.empty() ? "always built" : s;
}

TEST(Promise, EveryPromisedBackendIsAvailableAndCudaIsCompiled) {
  std::vector<std::string> missing, available, compiled, not_promised;
  for (const auto& e : registry().entries()) {
    const std::vector<std::string> parts = parts_of(e);
    const bool promised = std::all_of(parts.begin(), parts.end(), part_promised);
    if (!promised) {
      not_promised.push_back(e.name);
      continue;
    }
    if (const promise::Unpromised* u = exemption(e.name)) {
      not_promised.push_back(e.name + " (exempt: " + std::string(u->why) + ")");
      continue;
    }
    // Compiled, and waiting for a GPU: CUDA's own backends, and the Python ones that need a GPU.
    const bool compiled_only = std::find(parts.begin(), parts.end(), "CUDA") != parts.end() ||
                               starts_with(e.reason, kNeedsGpuPrefix);
    if (e.available) {
      available.push_back(e.name);
    } else if (compiled_only && wants_a_gpu(e)) {
      compiled.push_back(e.name);
    } else {
      missing.push_back(e.name + " [" + joined(parts) + "]: " + (e.broken ? "FAILED: " : "") + e.reason);
    }
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += "\n    " + x;
    return s.empty() ? std::string("\n    (none)") : s;
  };
  std::cout << "configuration promises: " << promise::kParts << "\n  available:" << list(available)
            << "\n  compiled, no GPU on this machine:" << list(compiled) << "\n  not promised:" << list(not_promised)
            << "\n";
  EXPECT_TRUE(missing.empty()) << "promised by this configuration (" << promise::kParts
                               << ") but not available:" << list(missing);
  // The promise is not empty: the always-built CPU backends at least.
  EXPECT_FALSE(available.empty());
}

TEST(Promise, ExemptionsNameRegisteredBackendsWithAReason) {
  for (const auto& u : promise::kUnpromised) {
    const BackendEntry* e = registry().find(u.name);
    EXPECT_NE(e, nullptr) << "the exemption names '" << u.name << "', which is not a backend";
    EXPECT_FALSE(u.why.empty()) << u.name << ": an exemption needs its reason (NAME=REASON)";
  }
}

#if defined(PARLAB_PROMISE_FREE_THREADED)
// The free-threaded configurations: the backend that exists only there must be available.
TEST(Promise, FreeThreadedBackendIsAvailable) {
  const BackendEntry* e = registry().find("py-free-threaded");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->available) << e->reason;
}
#endif

}  // namespace
}  // namespace parlab
