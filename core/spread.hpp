// The spread of a set of repetitions, in the one shape records and roofs share (docs/records.md,
// "Spread"). A record's time_s and a roof's measurements are this; everything downstream (the
// results table, figures' error bars, compare, the unstable mark) reads it from the record rather
// than recomputing it. analysis/spread.py mirrors it for spreads made after a run
// (pooled rounds, records of schema /2), and a test holds the two equal.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace parlab {

struct Spread {
  std::size_t n = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
  double mean = 0, stddev = 0;  // stddev with n - 1; 0 for one value
  double cv = 0;                // stddev / mean; 0 where the mean is not positive
  // A distribution-free interval for the median: the order statistics x_(j), x_(n+1-j) with the
  // largest j whose coverage reaches kSpreadCiLevel (any j = 1 below 6 values), and that coverage.
  std::array<double, 2> median_ci{0, 0};
  double ci_level = 0;
};

// Over this coefficient of variation a record is unstable (pyperf warns at a standard deviation
// of 10% of the mean too); the same fraction bounds how far the rounds of one measurement, or a
// roof's measurements, may differ.
inline constexpr double kUnstableCv = 0.10;
inline constexpr double kSpreadCiLevel = 0.95;

// The spread of `values` (seconds, or rates); nullopt for none. Quartiles interpolate linearly
// between the closest ranks (NumPy's default).
std::optional<Spread> spread_of(std::vector<double> values);

// "CV 78% over 10%" when s's CV is over kUnstableCv; empty when it is not.
std::string unstable_reason(const Spread& s);

}  // namespace parlab
