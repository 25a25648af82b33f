// The JSON form of a spread (core/spread.hpp), as a record's time_s and a roof's measurements
// write it: every field by name, the median's interval as a pair.
#pragma once

#include <nlohmann/json.hpp>

#include "core/spread.hpp"

namespace parlab {

inline nlohmann::json spread_json(const Spread& s) {
  return {{"n", s.n},           {"min", s.min},       {"q1", s.q1},
          {"median", s.median}, {"q3", s.q3},         {"max", s.max},
          {"mean", s.mean},     {"stddev", s.stddev}, {"cv", s.cv},
          {"median_ci", {s.median_ci[0], s.median_ci[1]}},
          {"ci_level", s.ci_level}};
}

}  // namespace parlab
