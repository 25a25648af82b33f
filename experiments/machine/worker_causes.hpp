// Why a parallel record fell short, from what its own workers measured (the record's `workers`
// block, experiments/run/worker_accounting.hpp): the POP factors that need no reference (load
// balance, communication efficiency) and the disturbance beside them. record_limit names these
// before any cause inferred from the ceilings' probes (docs/ceilings.md, "In-core bound").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlab {

// A factor below this explains a shortfall; a record whose every factor reaches it has "no cause
// measured" among them.
inline constexpr double kFactorExplains = 0.9;

// The measured cause of a record's shortfall, naming the smallest factor below kFactorExplains
// with its figure and where it came from (e.g. "load balance 0.52: worker 7 computed 1.9x the
// mean, on CPU 7; it did 1.9x the mean work"); empty where the record has no
// accounted workers or every factor reaches kFactorExplains. Untrusted input: wrong types read as
// absent.
std::string worker_shortfall(const nlohmann::json& record);

// Where every worker factor reaches kFactorExplains but the record is still below its in-core
// bound at `share`: the loss is in the computation itself, each CPU-second of the workers doing
// share / parallel efficiency of what the bound allows a core (POP's computation scaling against
// the bound rather than a record), with IPC and clock where counters were read. Empty where the
// record has fewer than 2 accounted workers or that efficiency reaches kFactorExplains.
std::string computation_shortfall(const nlohmann::json& record, double share);

// The CPUs the record's workers ran on (workers.cpus, merged), ascending; empty where not recorded.
std::vector<int> worker_cpus(const nlohmann::json& record);

}  // namespace parlab
