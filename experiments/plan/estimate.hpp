// How long a plan takes at the least, before it starts: a user who asks for 2^63 samples learns
// it would take centuries instead of finding out by waiting.
//
// The figure is a lower bound: every kernel is assumed to run at a rate above anything measured
// on the machines parlab has seen (see estimate.cpp), so a plan estimated over an hour takes
// over an hour. It is not a prediction of a run's length; results.json records that.
#pragma once

#include <string>

#include "core/workload.hpp"
#include "experiments/plan/suite.hpp"

namespace parlab {

// Seconds one measurement takes at the least: warm-up and timed repetitions, each at least one
// run of the kernel at an optimistic rate, and at least min_rep_seconds per timed repetition.
double min_seconds(const MeasurementSpec& m, const BackendEntry& backend);

// The sum of min_seconds over the plan's measurements (entries the registry lacks count 0).
double min_seconds(const Plan& plan, const Registry& registry);

// "3.2 s", "4.1 min", "2.5 h", "3.1 days", "2.9e+04 years".
std::string format_duration(double seconds);

}  // namespace parlab
