// The runtime registry of backends (each wing's register_* adds its entries).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "enum_names.hpp"
#include "kernel_table.hpp"
#include "workload.hpp"

namespace parlab {

const char* to_string(BackendKind k) {
  switch (k) {
    case BackendKind::cpu: return "cpu";
    case BackendKind::gpu: return "gpu";
    case BackendKind::python: return "python";
    case BackendKind::peer: return "peer";
    case BackendKind::mpi: return "mpi";
  }
  return "";  // past the last kind: enum_from_name's scan ends here
}

std::optional<BackendKind> backend_kind_from_name(std::string_view name) { return enum_from_name<BackendKind>(name); }

bool runs_in_this_process(BackendKind k) {
  switch (k) {
    case BackendKind::cpu:
    case BackendKind::gpu:
    case BackendKind::python: return true;
    case BackendKind::peer:
    case BackendKind::mpi: return false;
  }
  return true;
}

const char* to_string(Processor p) {
  switch (p) {
    case Processor::cpu: return "cpu";
    case Processor::gpu: return "gpu";
  }
  return "";  // past the last: enum_from_name's scan ends here
}

std::optional<Processor> processor_from_name(std::string_view name) { return enum_from_name<Processor>(name); }

void Registry::add(BackendEntry entry) {
  if (find(entry.name) != nullptr) throw FailureError("backend '" + entry.name + "' registered twice");
  // Every record it makes says where it ran; a wing that forgets is a programming error.
  if (entry.available && !entry.processor) {
    throw FailureError("backend '" + entry.name + "' registered without its processor (\"cpu\" or \"gpu\")");
  }
  // A catalogue kernel the entry does not list (its wing's kernel table leaves it out) is "not
  // implemented by <backend>", whatever the wing's factory would make of it: one rule for every
  // wing, which tests/test_kernel_coverage.cpp checks over every backend x catalogue kernel.
  if (entry.available && entry.make) {
    entry.make = [name = entry.name, kernels = entry.kernels, make = std::move(entry.make)](const Problem& p) {
      if (find_kernel(p.kernel) != nullptr && std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) {
        throw not_implemented(name);
      }
      return make(p);
    };
  }
  entries_.push_back(std::move(entry));
}

void Registry::add_unavailable(std::string name, BackendKind kind, std::string reason) {
  BackendEntry e;
  e.name = std::move(name);
  e.kind = kind;
  e.available = false;
  e.reason = std::move(reason);
  // Making one says why it cannot run (never an empty std::function call).
  e.make = [what = e.name + ": " + e.reason](const Problem&) -> std::unique_ptr<Workload> {
    throw UnavailableError(what);
  };
  add(std::move(e));
}

void Registry::probe(const std::vector<std::string>& names) {
  for (BackendEntry& e : entries_) {
    if (!e.available || !e.probe) continue;
    if (!names.empty() && std::find(names.begin(), names.end(), e.name) == names.end()) continue;
    std::string why = e.probe();
    e.probe = nullptr;  // made once: its answer stands for the process
    if (why.empty()) continue;
    e.available = false;
    e.reason = std::move(why);
    e.make = [what = e.name + ": " + e.reason](const Problem&) -> std::unique_ptr<Workload> {
      throw UnavailableError(what);
    };
  }
}

std::string no_gpu_reason(const Registry& registry) {
  const BackendEntry* cuda = registry.find("cuda");
  if (cuda == nullptr || cuda->available || cuda->broken) return {};
  const auto starts = [&](std::string_view p) { return cuda->reason.compare(0, p.size(), p) == 0; };
  return starts("no CUDA device") || starts("no CUDA driver") ? cuda->reason : std::string();
}

const BackendEntry* Registry::find(std::string_view name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> n;
  for (const auto& e : entries_) n.push_back(e.name);
  return n;
}

const BackendEntry& Registry::get(std::string_view name) const {
  const BackendEntry* e = find(name);
  if (e == nullptr) {
    std::string accepted;
    for (const auto& n : names()) accepted += (accepted.empty() ? "" : ", ") + n;
    throw UsageError("unknown backend '" + std::string(name) + "' (accepted: " + accepted + ")");
  }
  if (!e->available && e->broken) throw FailureError("backend '" + e->name + "' failed: " + e->reason);
  if (!e->available) throw UnavailableError("backend '" + e->name + "' is unavailable: " + e->reason);
  return *e;
}

}  // namespace parlab
