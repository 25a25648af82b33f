// The runtime registry of backends (each wing's register_* adds its entries).
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workload.hpp"

namespace parlab {

void Registry::add(BackendEntry entry) {
  if (find(entry.name) != nullptr) throw FailureError("backend '" + entry.name + "' registered twice");
  // Every record it makes says where it ran; a wing that forgets is a programming error.
  if (entry.available && entry.processor != "cpu" && entry.processor != "gpu") {
    throw FailureError("backend '" + entry.name + "' registered without its processor (\"cpu\" or \"gpu\"): '" +
                       entry.processor + "'");
  }
  // A catalogue kernel the entry does not list (its wing's kernel table leaves it out) is "not
  // implemented by <backend>", whatever the wing's factory would make of it: one rule for every
  // wing, which tests/test_kernel_coverage.cpp checks over every backend x catalogue kernel.
  if (entry.available && entry.make) {
    entry.make = [name = entry.name, kernels = entry.kernels, make = std::move(entry.make)](const Problem& p) {
      if (find_kernel(p.kernel) != nullptr && std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) {
        throw UnavailableError("not implemented by " + name);
      }
      return make(p);
    };
  }
  entries_.push_back(std::move(entry));
}

void Registry::add_unavailable(std::string name, std::string kind, std::string reason) {
  BackendEntry e;
  e.name = std::move(name);
  e.kind = std::move(kind);
  e.available = false;
  e.reason = std::move(reason);
  // Making one says why it cannot run (never an empty std::function call).
  e.make = [what = e.name + ": " + e.reason](const Problem&) -> std::unique_ptr<Workload> {
    throw UnavailableError(what);
  };
  add(std::move(e));
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
