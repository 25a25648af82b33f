// The registration functions of the CPU backends, one per backend file. Each adds its entry
// (name, availability, kernels, factories) to the runtime registry. Only those whose
// dependencies were found at configure time are compiled; experiments/wiring/make_registry.cpp calls them.
#pragma once

#include "core/workload.hpp"

namespace parlab {

void add_serial_backends(Registry& registry);
void add_threads_backends(Registry& registry);
void add_pool_backends(Registry& registry);
void add_tbb_backends(Registry& registry);     // built when oneTBB is found
void add_openmp_backends(Registry& registry);  // built when OpenMP is found

// A CPU entry: every kernel, make() wraps make_executor() in a CPU workload.
BackendEntry cpu_entry(std::string name, std::string detail,
                       std::function<std::unique_ptr<Executor>(int)> make_executor);

}  // namespace parlab
