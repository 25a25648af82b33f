// The registration functions of the CPU backends, one per backend file. Each adds its entry
// (name, availability, kernels, factories) to the runtime registry. Only those whose
// dependencies were found at configure time are compiled; experiments/registry.cpp calls them.
#pragma once

#include "core/workload.hpp"

namespace parlab {

void register_serial(Registry& registry);
void register_threads(Registry& registry);
void register_pool(Registry& registry);
void register_tbb(Registry& registry);     // built when oneTBB is found
void register_openmp(Registry& registry);  // built when OpenMP is found

// A CPU entry: every kernel, make() wraps make_executor() in a CPU workload.
BackendEntry cpu_entry(std::string name, std::string detail,
                       std::function<std::unique_ptr<Executor>(int)> make_executor);

}  // namespace parlab
