// How long a plan takes at the least, before it starts: a user who asks for 2^63 samples learns
// it would take centuries instead of finding out by waiting.
//
// The figure is a lower bound: every kernel is assumed to run at a rate above anything measured
// on the machines parlab has seen (see estimate.cpp), so a plan estimated over an hour takes
// over an hour. It is not a prediction of a run's length; results.json records that.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "core/workload.hpp"
#include "experiments/plan/suite.hpp"

namespace parlab {

// Seconds one measurement takes at the least: warm-up and timed repetitions, each at least one
// run of the kernel at an optimistic rate, and at least min_rep_seconds per timed repetition.
double min_seconds(const MeasurementSpec& m, const BackendEntry& backend);

// The sum of min_seconds over the plan's measurements (entries the registry lacks count 0).
double min_seconds(const Plan& plan, const Registry& registry);

// An estimate from this machine's earlier runs (the results folders under `host_dir`, the run's
// --out/<host>): each planned measurement that an earlier record matches on every field of its
// spec but the repetitions takes that record's elapsed_s (the median over matches, scaled by
// warm-up plus repetitions); the others count their lower bound. Drawing takes the median of the
// earlier runs' report_s. The first run on a machine has no history, and the roofs' measurement
// (parlab ceilings) is left out: the caller says so.
struct HistoryEstimate {
  double measure_s = 0;       // matched measurements' estimate plus the others' lower bounds
  double draw_s = 0;          // 0 when no earlier run recorded its report's time
  std::size_t matched = 0;    // planned measurements an earlier record matched
  std::size_t planned = 0;    // planned measurements whose backend is available
  std::size_t runs_seen = 0;  // earlier runs read
};
HistoryEstimate estimate_from_history(const Plan& plan, const Registry& registry,
                                      const std::filesystem::path& host_dir);

// "3.2 s", "4.1 min", "2.5 h", "3.1 days", "2.9e+04 years".
std::string format_duration(double seconds);

}  // namespace parlab
