// A wing's kernel table: which catalogue kernels the wing's backends implement (they share one
// implementation), and how it makes each one's workload.
//
// Rows are keyed by the catalogue (a row per kernel_specs() entry, indexed by kernel_id), so a
// wing keeps no list of names of its own: a family row covers every kernel of the family (a STREAM
// kernel added to kStreamKernels is in every table that implements STREAM), and an empty row means
// the wing does not implement the kernel. make() on such a kernel is "not implemented by
// <backend>" (UnavailableError), never another kernel's workload. tests/test_kernel_coverage.cpp
// checks every backend x catalogue kernel against the tables.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workload.hpp"

namespace parlab {

// The one verdict on a catalogue kernel a backend does not implement, whichever wing's make path
// finds it (KernelTable::at, Registry::add's guard): UnavailableError "not implemented by
// <backend>", so the record is `unavailable`, never another kernel's workload. Thrown by the caller
// (`throw not_implemented(name)`), so the compiler sees the path end.
inline UnavailableError not_implemented(std::string_view backend) {
  return UnavailableError("not implemented by " + std::string(backend));
}

template <class Row>
class KernelTable {
 public:
  // Every catalogue kernel of `family` gets `row`.
  KernelTable& family(KernelFamily f, Row row) {
    const auto& specs = kernel_specs();
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].family == f) rows_[i] = row;
    }
    return *this;
  }
  // One kernel's row, replacing a family row. PRECONDITION: `kernel` is in the catalogue; a name
  // that is not (a typo) throws FailureError when the table is built, which every run and the
  // coverage test do at start-up.
  KernelTable& kernel(std::string_view kernel, Row row) {
    rows_[id(kernel)] = std::move(row);
    return *this;
  }
  // Leaves out a kernel a family row covered that this wing does not implement.
  KernelTable& without(std::string_view kernel) {
    rows_[id(kernel)].reset();
    return *this;
  }

  // The row of `kernel`; nullptr when the wing does not implement it or it is not in the catalogue.
  const Row* find(std::string_view kernel) const {
    const auto i = kernel_id(kernel);
    return i && rows_[*i] ? &*rows_[*i] : nullptr;
  }
  // The row of a catalogue kernel, or UnavailableError "not implemented by <backend>".
  const Row& at(std::string_view kernel, std::string_view backend) const {
    if (const Row* r = find(kernel)) return *r;
    throw not_implemented(backend);
  }
  // The row of a catalogue kernel whose `part` (one form of the kernel a row may lack: the GPU's
  // single-device maker, the MPI wing's GPU-rank maker) is set, or "not implemented by <backend>".
  // `part` is a pointer to a member of Row (&GpuRow::single).
  template <class Part>
  const Row& at(std::string_view kernel, std::string_view backend, Part part) const {
    const Row& r = at(kernel, backend);
    if (!(r.*part)) throw not_implemented(backend);
    return r;
  }
  // The kernels whose row satisfies `keep` (all implemented ones by default), in catalogue order:
  // a backend entry's `kernels`.
  template <class Keep>
  std::vector<std::string> names(Keep keep) const {
    std::vector<std::string> out;
    const auto& specs = kernel_specs();
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (rows_[i] && keep(*rows_[i])) out.emplace_back(specs[i].name);
    }
    return out;
  }
  std::vector<std::string> names() const {
    return names([](const Row&) { return true; });
  }

 private:
  static std::size_t id(std::string_view kernel) {
    const auto i = kernel_id(kernel);
    if (!i) throw FailureError("kernel table: '" + std::string(kernel) + "' is not in the catalogue");
    return *i;
  }
  std::vector<std::optional<Row>> rows_ = std::vector<std::optional<Row>>(kernel_specs().size());
};

// The CPU wing's table (core/cpu_workloads.cpp): what every CPU executor backend runs.
using CpuMaker = std::unique_ptr<Workload> (*)(std::unique_ptr<Executor>, const Problem&);
const KernelTable<CpuMaker>& cpu_kernel_table();

}  // namespace parlab
