#include "backends.hpp"

#include "core/kernel_table.hpp"

namespace parlab {

// Fills the fields as gpu_entry (gpu/backends.cpp) does, and stays apart from it on purpose: each
// wing decides what its entries say (kind, processor, kernel table) and wings never include each
// other (docs/design.md, "The wings and what each may include").
BackendEntry cpu_entry(std::string name, std::string detail,
                       std::function<std::unique_ptr<Executor>(int)> make_executor) {
  BackendEntry e;
  e.name = std::move(name);
  e.kind = BackendKind::cpu;
  e.processor = Processor::cpu;
  e.own_kernels = true;
  e.available = true;
  e.detail = std::move(detail);
  e.kernels = cpu_kernel_table().names();
  e.make_executor = make_executor;
  e.make = [make_executor, name = e.name](const Problem& p) {
    return make_cpu_workload(make_executor(p.threads), p, name);
  };
  return e;
}

}  // namespace parlab
