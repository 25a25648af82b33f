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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/record/record.hpp"

namespace parlab {

struct ChildJob {
  std::vector<std::string> argv;                                // the command; the spec is appended
  std::vector<std::pair<std::string, std::string>> set_env;     // environment it runs with
  std::string what;         // names it in a failure: "the child parlab (3.13.5t, PYTHON_GIL=0)"
  // The record a failure gives, less its fault: the plan entry it measures, its id, and what the
  // caller knows of it (kind, interpreter, ...). The child is given base.spec with base.id.
  Record base;
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

// Runs `job` with its plan entry (base.spec, "id" base.id) as its last argument and returns the
// child's record, read through read_record with its id set, or a failed record of job.base;
// nullopt when this process was interrupted.
std::optional<Record> measure_in_child_process(const ChildJob& job);

}  // namespace parlab
