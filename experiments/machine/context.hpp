// The context block of a result file: the machine, the build and the libraries that produced
// the numbers, plus warnings about anything that makes them less trustworthy.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "core/workload.hpp"

namespace parlab {

struct ContextOptions {
  int max_threads_requested = 1;  // oversubscription warning when above the hardware threads
  // The run's one reading of the 1-minute load average (RunOptions::load_1min), recorded and
  // quoted as it is; unset: read here.
  std::optional<double> load_1min;
};

// Reads /proc, /sys and the registry. Never throws: unreadable facts are recorded as null.
nlohmann::json collect_context(const Registry& registry, const ContextOptions& options);

// Hardware threads the OS reports (at least 1).
int hardware_threads();

// Cores: distinct (physical id, core id) pairs in /proc/cpuinfo; hardware_threads() where it
// names none. Threads of one core share its ports, so an in-core bound scales with these.
int physical_cores();

// The machine's host name, made safe for a path component.
std::string host_name();

// Which commit the numbers come from. `from_git` is the commit the binary was built from
// (build_info::kBuildCommit, from git at build time; empty when the source was no checkout of its
// own: a copy of the files on an offline node); `declared` is
// PARLAB_SOURCE_COMMIT (may be null). A declared commit wins and is recorded as declared, with
// git's differing answer beside it; otherwise git's.
struct SourceCommit {
  std::string commit;  // empty: unknown
  std::string source;  // "git", "declared by PARLAB_SOURCE_COMMIT ...", or empty
};
SourceCommit source_commit(const std::string& from_git, const char* declared);

}  // namespace parlab
