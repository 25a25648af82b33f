// Python's other ways around the GIL, beside threads: pure-Python pi cut into the same tasks
// (embed/workloads/parlab_tasks.py) and run on a ThreadPoolExecutor, a pool of spawned processes,
// dask.delayed's threaded scheduler, or a dask.distributed cluster of worker processes; and
// parlab.pi (GIL released) as the task body of a thread pool and of dask.delayed, where launching
// the tasks is all the model adds.
//
// Each is a backend of kind "python" and kernel "pi" counting the canonical stream, so validate()
// demands the canonical count pi_hits_points(seed, 0, N) exactly (and Random123's 3-sigma check).
// Its record's metrics say where the workers' time went besides the task bodies: tasks per run,
// the per-task overhead, the share of worker time spent in task bodies, and, measured apart from
// the timed runs, the start-up of the pool or cluster and the round trip of an empty task.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/workload.hpp"

namespace parlab::embed {

struct PyModelSpec {
  const char* name;    // the registry name, "py-processes"
  const char* kind;    // parlab_driver.make_model()'s kind, "processes"
  const char* detail;  // what it measures, for `parlab list`
};

// The task-based models, in display order.
const std::vector<PyModelSpec>& python_model_specs();

// Whether the model's pi workload accounts its workers (docs/records.md, "Workers"): the thread
// pools, whose threads (parlab_tasks.ThreadPoolTasks) declare their worker index when the pool is
// made, each task a chunk of its points. Not the processes nor Dask, whose workers are other
// processes or threads of Dask's own.
bool python_model_accounts_workers(const PyModelSpec& spec) noexcept;

// Why `spec` cannot run in this build, or empty (compile-time facts only; a missing Dask is
// only known once the interpreter runs, and becomes UnavailableError when the workload is made).
std::string python_model_unavailable_reason(const PyModelSpec& spec);

// Makes the workload: the pool or cluster starts here, outside the timed region, and shuts down
// (every thread joined, every worker process ended) when the workload is destroyed, also after
// a failed run. Throws UsageError (not kernel "pi"), UnavailableError (Dask not importable) or
// FailureError/PythonError (a worker that cannot start).
// PRECONDITION: an Interpreter is running and outlives the workload; the calling thread does not
// hold the GIL.
std::unique_ptr<Workload> make_python_model_workload(const PyModelSpec& spec, const Problem& p);

// Adds every model to the registry (not in the default set: they start processes and clusters,
// so only suites and command lines that name them run them). `runtime` describes the
// interpreter for `parlab list`.
void add_python_models_backends(Registry& registry, const std::string& runtime);

}  // namespace parlab::embed
