// The runtime registry of backends (each wing's register_* adds its entries).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workload.hpp"

namespace parlab {

void Registry::add(BackendEntry entry) {
  if (find(entry.name) != nullptr) throw FailureError("backend '" + entry.name + "' registered twice");
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
