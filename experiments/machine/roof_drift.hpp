// The CPU bandwidth roofs measured again at a run's end, their drift, and each record's share of
// its roof as an interval (docs/ceilings.md, "The end probe"). The roofs of context.ceilings were
// measured minutes before the run (or taken from the cache); a node's DRAM bandwidth moves by 20%
// over minutes, so a record may beat a roof that the machine itself beats an hour later.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/record/record.hpp"

namespace parlab {

// A roof whose end probe differs from its start by more than this share says to remeasure.
inline constexpr double kRoofDriftRemeasure = 0.20;

// The CPU bandwidth roofs (cpu_bw_*) that `records` are held against: each ok record's
// `limit.roof`, and for a roof scaled between one thread and all of them (`limit.basis`) both
// scopes it is made from. Only roofs `ceilings.roofs` holds as measured; sorted, each once.
std::vector<std::string> binding_bandwidth_roofs(const std::vector<Record>& records, const nlohmann::json& ceilings);

// Measures the roofs `names` again with the probe and plan `parlab ceilings` measured them with
// (ceilings.hpp, bandwidth_probe_plan; quick where the start measurement was), each at the threads
// it was measured at, and returns the `context.ceilings_end` block: {measured_utc, seconds,
// quick?, roofs: {name: the roof as context.ceilings holds one, plus `start` (its value in
// context.ceilings) and `drift` (end / start - 1)}, unavailable: {name: why}}. A probe that fails
// (pinning refused, memory refused) puts its roofs under `unavailable`: the run keeps the start's.
nlohmann::json measure_roofs_again(const nlohmann::json& ceilings, const std::vector<std::string>& names,
                                   std::ostream& log);

// Which of a roof's two measurements (start and end) to grade with.
enum class RoofEnd { highest, lowest };

// context.ceilings with every roof of `ceilings_end` replaced by the higher (or lower) of its two
// measurements, the whole roof entry (value and spread) of the measurement chosen.
nlohmann::json ceilings_at(const nlohmann::json& ceilings, const nlohmann::json& ceilings_end, RoofEnd which);

// A record's `limit` where the run's context holds `ceilings`: record_limit (limit.hpp) against the
// highest measurement of each roof. Where the binding roof was measured again (context.ceilings_end)
// and the record has its time's quartiles, `limit.interval` = {low, high, roof_low}:
//   low  = the rate at the record's slower quartile time (q3) / the highest roof (`value`),
//   high = the rate at its faster quartile time (q1) / the lowest roof (`roof_low`),
// each roof at the record's threads as record_limit forms it. `above_roof` is kept only where the
// whole interval is above 1 (low > 1), and then says so. Null for a record that is not ok, as
// record_limit, and where the context holds no ceilings; without context.ceilings_end, exactly
// record_limit's.
nlohmann::json graded_limit(const Record& record, const nlohmann::json& context);

// A run's end (runner.cpp, after its last record): where its `context` holds ceilings and its
// `records` are held against CPU bandwidth roofs, measures those again (saying so on `log` unless
// `quiet`), writes context.ceilings_end and grades every record again with graded_limit.
// Returns whether it changed them; the caller writes the file.
bool grade_with_end_probe(std::vector<Record>& records, nlohmann::json& context, std::ostream& log, bool quiet);

}  // namespace parlab
