// The race lab's Python half (embed/workloads/parlab_races.py), as workloads of the backend
// `py-threads-race`: Python threads that lose updates to a shared object or a shared NumPy
// array, and the locked counterpart that never does. Reported like core/lab.hpp's kernels:
// trials, deviating trials, largest deviation; the racy kernels pass regardless (observing them
// is the point), the locked one fails on any deviation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/workload.hpp"

namespace parlab::embed {

// The kernels of `py-threads-race`.
const std::vector<std::string>& python_race_kernels();

// PRECONDITION: an Interpreter is running and outlives the workload. Throws UsageError for an
// unknown kernel, UnavailableError when NumPy is missing (py_numpy_add_racy).
std::unique_ptr<Workload> make_python_race_workload(const Problem& p);

}  // namespace parlab::embed
