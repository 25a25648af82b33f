// Numbers as the text of a message, a listing or a record's explanation: one formatting, so the
// same figure reads the same in the ceilings' listing and warnings, the in-core blocks, a record's
// limit, `parlab pi` and the plan's refusals. The rates and sizes follow the same rules as the
// analysis's labels (analysis/labels.py: fmt_rate, fmt_bytes); the cases in
// tests/number-formats.json hold both to them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <string_view>

namespace parlab {

// The largest repetitions per measurement and rounds of a plan parlab accepts, from the command
// line (--reps, --rounds) and from a suite file ("reps", "rounds") alike: one limit for both, so a
// suite cannot ask for what the flags refuse.
inline constexpr std::uint64_t kMaxReps = 100000;
inline constexpr std::uint64_t kMaxRounds = 1000;

// `v` with exactly `digits` digits after the point ("0.38", "12").
inline std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

// Three significant digits, trailing zeros kept and no exponent, for a value from 1 to 999.5
// (the rest of the range is the prefix's): "1.26", "20.0", "512".
inline std::string three_digits(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
  return fixed(v, decimals);
}

// A rate with its decimal prefix and unit, as the tables write it: "1.26 Gsamples/s",
// "20.0 GB/s", "903 Gflop/s", "512 samples/s". `unit` is the unit after the prefix ("B/s").
inline std::string format_rate(double v, std::string_view unit) {
  static constexpr struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& p : kPrefixes) {
    // A value that rounds to 1000 of one prefix is 1.00 of the next.
    if (std::fabs(v) >= p.scale * 0.9995) return three_digits(v / p.scale) + " " + p.prefix + std::string(unit);
  }
  return three_digits(v) + " " + std::string(unit);
}

// A size in bytes with a binary prefix, "48.0 KiB", "1.50 MiB", "16.0 TiB", "512 B".
inline std::string format_bytes(double n) {
  static constexpr struct {
    double scale;
    const char* unit;
  } kUnits[] = {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}};
  for (const auto& u : kUnits) {
    if (std::fabs(n) >= u.scale * 0.9995) return three_digits(n / u.scale) + " " + u.unit;
  }
  return three_digits(n) + " B";
}

}  // namespace parlab
