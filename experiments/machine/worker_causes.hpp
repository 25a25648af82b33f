// Why a parallel record fell short, from what its own workers measured (the record's `workers`
// block, experiments/record/workers.hpp): the POP factors that need no reference (load
// balance, communication efficiency) and the disturbance beside them. record_limit names these
// before any cause inferred from the ceilings' probes (docs/ceilings.md, "In-core bound").
//
// Each rule reads typed values: the runner's, before the record is written, and a file's record
// read through read_record (record/record.hpp).
#pragma once

#include <string>
#include <vector>

#include "experiments/record/record.hpp"
#include "experiments/record/workers.hpp"

namespace parlab {

// A factor below this explains a shortfall; a record whose every factor reaches it has "no cause
// measured" among them.
inline constexpr double kFactorExplains = 0.9;

// A record's own measurement says the machine was not quiet where other processes used at least
// half a CPU's worth of time over its window, or its workers were runnable but not running at
// least 5% of their busy time (the kernel's run-queue delay).
inline constexpr double kOthersDisturb = 0.5;
inline constexpr double kRunnableDisturb = 0.05;

// Whether the record's accounted workers measured a disturbance by those two figures (for a
// Python backend, by other processes' time alone: see python_threads).
// `python`: the workers are Python threads (python_threads).
// A Python thread's time in a chunk off a CPU includes the wait for the GIL, not only the run
// queue's delay.
bool disturbed(const Workers& workers, bool python);

// The record's own disturbance figures in words ("other processes used 1.90 CPUs' worth of time
// while it ran; its workers were runnable but not running 9.8% of their busy time"); empty
// without accounted workers.
std::string disturbance_text(const Workers& workers);

// The measured cause of a record's shortfall, the first whose evidence holds, with its figure:
// disturbance (disturbed()), for a Python backend the GIL's wait (metrics.gil_wait_share, at
// least 5%), load balance and communication efficiency below kFactorExplains (the smaller first;
// e.g. "load balance 0.52: worker 7 computed 1.9x the mean, on CPU 7; it did 1.9x the mean
// work"); empty where the record has no accounted workers or none holds. `gil_wait_share`: the
// record's metric of that name (0 where it has none).
std::string worker_shortfall(const Workers& workers, bool python, double gil_wait_share);
// The same of a record: its workers, whether they are Python threads (kind "python") and its
// metric gil_wait_share.
std::string worker_shortfall(const Record& record);

// Where every worker factor reaches kFactorExplains but the record is still below its in-core
// bound at `share`: the loss is in the computation itself, each CPU-second of the workers doing
// share / parallel efficiency of what the bound allows a core (POP's computation scaling against
// the bound rather than a record), with IPC and clock where counters were read. Empty where the
// record has fewer than 2 accounted workers or that efficiency reaches kFactorExplains.
std::string computation_shortfall(const Workers& workers, double share);

// The CPUs the record's workers ran on (workers.cpus, merged), ascending; empty where not recorded.
std::vector<int> worker_cpus(const Workers& workers);

}  // namespace parlab
