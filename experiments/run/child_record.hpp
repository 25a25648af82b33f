// A measurement made in another process: the one path by which a plan entry measured by another
// parlab (a child of another interpreter, experiments/machine/interpreters.hpp) or by an MPI job
// (experiments/run/rank_sweep.hpp) becomes a record of this run (docs/design.md, "Failure semantics").
//
// The child prints the record as its last non-empty line of stdout. Every way that can go wrong
// — it cannot start, exits non-zero, is killed by a signal, prints nothing, prints something
// that is not JSON, prints a record of the wrong shape or for another plan entry, runs past its
// timeout, or reports an interruption this process did not receive — gives a record with
// status "error" whose reason names the fault and ends with the tail of the child's stderr.
// Only this process's own SIGINT/SIGTERM (g_interrupted) gives null: "interrupted".
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlab {

struct ChildJob {
  std::vector<std::string> argv;                                // the command; the spec is appended
  std::vector<std::pair<std::string, std::string>> set_env;     // environment it runs with
  std::string what;         // names it in a failure: "the child parlab (3.13.5t, PYTHON_GIL=0)"
  nlohmann::json fields;    // added to a failed record (kind, interpreter, ...): what the plan knows
  double timeout_s = 0;     // 0: none
  // Optional: more of the fault, from the tail of the child's stderr (an MPI job across hosts
  // names the host at fault), appended to a failed record's reason before that tail.
  std::function<std::string(const std::string& stderr_tail)> explain;
  // true: the child leads a process group of its own, a timeout or an interruption ends the whole
  // group, and what is left of it once the child exits is killed (SpawnOptions). For launchers
  // (an MPI job's), whose daemons and ranks would otherwise outlive a stopped job.
  bool own_process_group = false;
};

// What a child's stdout may hold: a record is a few KiB (a trace and per-worker arrays of 4096
// workers stay far below a MiB); past this the child is stopped and its record fails saying so.
inline constexpr std::size_t kMaxChildStdoutBytes = std::size_t{64} << 20;

// Why the record `rec` a child printed cannot be stored as it is — a field of the wrong type,
// out of its range, or a per-worker array whose length is not the workers it counts — naming the
// field ("time_s.median: expected a positive number, got \"fast\""); empty when none is wrong.
// Readers of a run (report, compare, resume) refuse a file holding such a record, so one bad
// child would otherwise cost every later look at the run.
std::string record_field_fault(const nlohmann::json& rec);

// Runs `job` with the plan entry `spec` (its "id" set to `index`) as its last argument and returns
// the child's record with "id" = index, a failed record, or null when this process was interrupted.
nlohmann::json measure_in_child_process(const ChildJob& job, const nlohmann::json& spec, std::size_t index);

// The record of a measurement that failed before or outside any run of its workload: the plan
// entry, `fields`, status "error" and `why` as its reason and validation detail.
nlohmann::json failed_record(const nlohmann::json& spec, std::size_t index, const nlohmann::json& fields,
                             const std::string& why);

}  // namespace parlab
