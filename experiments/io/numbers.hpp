// Numbers as the text of a message or a record's explanation: one formatting, so the same figure
// reads the same in the ceilings' warnings, the in-core blocks and a record's limit.
#pragma once

#include <iomanip>
#include <sstream>
#include <string>

namespace parlab {

// `v` with exactly `digits` digits after the point ("0.38", "12").
inline std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

}  // namespace parlab
