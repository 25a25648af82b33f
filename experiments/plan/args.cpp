#include "experiments/plan/args.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace parlab {
namespace {

[[noreturn]] void bad(std::string_view what, std::string_view text, std::string_view expected) {
  throw UsageError("invalid value '" + std::string(text) + "' for " + std::string(what) + ": " +
                   std::string(expected));
}

constexpr std::string_view kU64Forms =
    "expected a non-negative integer below 2^64: decimal, 0x hex, 2^K, an exact NeK, or a suffix k, M, G, T "
    "(powers of 1000) or Ki, Mi, Gi, Ti (powers of 1024), as in 16M or 2Mi";

// "16M" = 16 * 1000^2, "2Mi" = 2 * 1024^2: the suffix's multiplier, and the number before it.
bool split_suffix(std::string_view text, std::string_view& number, std::uint64_t& multiplier) {
  static constexpr std::pair<std::string_view, std::uint64_t> kSuffixes[] = {
      {"Ki", std::uint64_t{1} << 10}, {"Mi", std::uint64_t{1} << 20}, {"Gi", std::uint64_t{1} << 30},
      {"Ti", std::uint64_t{1} << 40}, {"k", 1000},  {"M", 1000000}, {"G", 1000000000}, {"T", 1000000000000}};
  for (const auto& [suffix, mult] : kSuffixes) {
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      number = text.substr(0, text.size() - suffix.size());
      multiplier = mult;
      return true;
    }
  }
  return false;
}

bool parse_plain(std::string_view text, int base, std::uint64_t& out) {
  if (text.empty()) return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, out, base);
  return ec == std::errc() && ptr == last;
}

// "%g" as a person writes it: 1e7, not 1e+07.
std::string fixed_or_exp(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  std::string out(buf);
  if (const auto e = out.find("e+"); e != std::string::npos) {
    std::size_t digits = e + 2;
    while (digits + 1 < out.size() && out[digits] == '0') ++digits;
    out = out.substr(0, e + 1) + out.substr(digits);
  }
  return out;
}

}  // namespace

std::uint64_t parse_u64(std::string_view text, std::string_view what) {
  std::uint64_t v = 0;
  std::string_view number;
  std::uint64_t multiplier = 1;
  if (split_suffix(text, number, multiplier)) {
    if (!parse_plain(number, 10, v)) bad(what, text, kU64Forms);
    if (v > std::numeric_limits<std::uint64_t>::max() / multiplier) bad(what, text, "value is 2^64 or more");
    return v * multiplier;
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    if (!parse_plain(text.substr(2), 16, v)) bad(what, text, kU64Forms);
    return v;
  }
  if (const auto caret = text.find('^'); caret != std::string_view::npos) {
    std::uint64_t base = 0, exp = 0;
    if (!parse_plain(text.substr(0, caret), 10, base) || base != 2 ||
        !parse_plain(text.substr(caret + 1), 10, exp)) {
      bad(what, text, kU64Forms);
    }
    if (exp > 63) bad(what, text, "2^K needs K <= 63 (the value must be below 2^64)");
    return std::uint64_t{1} << exp;
  }
  if (const auto e = text.find_first_of("eE"); e != std::string_view::npos) {
    std::uint64_t mant = 0, exp = 0;
    if (!parse_plain(text.substr(0, e), 10, mant) || !parse_plain(text.substr(e + 1), 10, exp)) {
      bad(what, text, kU64Forms);
    }
    // 0eK is 0 for every K, and a nonzero mantissa passes 2^64 within 20 steps: the loop below
    // runs at most 19 times whatever K the text holds (a loop over K once spun on 0e99999999999).
    if (mant == 0) return 0;
    if (exp > 19) bad(what, text, "value is 2^64 or more");
    v = mant;
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (v > std::numeric_limits<std::uint64_t>::max() / 10) bad(what, text, "value is 2^64 or more");
      v *= 10;
    }
    return v;
  }
  if (!parse_plain(text, 10, v)) {
    // Distinguish an out-of-range number from garbage, so the message says which.
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      bad(what, text, "value is 2^64 or more");
    }
    bad(what, text, kU64Forms);
  }
  return v;
}

double parse_seconds(std::string_view text, std::string_view what, double max_s) {
  // strtod over a bounded copy: linear in the text, whatever it holds. Hex floats, "inf" and
  // "nan" are refused before it sees them; a number past max_s (1e400 included) is out of range.
  const std::string copy(text);
  const bool plain = !copy.empty() && std::all_of(copy.begin(), copy.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  });
  char* end = nullptr;
  const double t = plain ? std::strtod(copy.c_str(), &end) : -1;
  if (!plain || end != copy.c_str() + copy.size() || !(t >= 0) || t > max_s) {
    bad(what, text, "expected seconds from 0 to " + fixed_or_exp(max_s) + " (0: no limit)");
  }
  return t;
}

std::uint64_t parse_count(std::string_view text, std::string_view what, std::uint64_t min) {
  // A negative number is out of range, not malformed: say the minimum ("non-negative" would
  // suggest 0 is accepted where the minimum is 1).
  if (!text.empty() && text.front() == '-') bad(what, text, "expected an integer >= " + std::to_string(min));
  const std::uint64_t v = parse_u64(text, what);
  if (v < min) bad(what, text, "expected an integer >= " + std::to_string(min));
  return v;
}

int parse_threads(std::string_view text, std::string_view what, std::string_view unit) {
  std::uint64_t v = 0;
  if (!parse_plain(text, 10, v) || v < 1 || v > static_cast<std::uint64_t>(kMaxThreads)) {
    bad(what, text, "expected a positive integer " + std::string(unit) + " <= " + std::to_string(kMaxThreads));
  }
  return static_cast<int>(v);
}

std::vector<std::string> split_list(std::string_view text, std::string_view what) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (item.empty()) bad(what, text, "expected a comma-separated list without empty items");
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<int> parse_thread_list(std::string_view text, std::string_view what, int max_threads,
                                   std::string_view unit) {
  std::set<int> out;
  for (const std::string& item : split_list(text, what)) {
    if (item == "max") {
      out.insert(max_threads);
    } else if (item == "pow2") {
      for (int t = 1; t < max_threads; t *= 2) out.insert(t);
      out.insert(max_threads);
    } else if (const auto dots = item.find(".."); dots != std::string::npos) {
      const std::string lo_text = item.substr(0, dots), hi_text = item.substr(dots + 2);
      const int lo = parse_threads(lo_text, what, unit);
      const int hi = hi_text == "max" ? max_threads : parse_threads(hi_text, what, unit);
      if (lo > hi) bad(what, item, "a range LO..HI needs LO <= HI");
      for (int t = lo; t <= hi; ++t) out.insert(t);
    } else if (const auto dash = item.find('-'); dash != std::string::npos && dash > 0) {
      // "1-2": a range is written LO..HI (a '-' would read as a negative count).
      bad(what, item, "a range is written LO..HI: did you mean '" + item.substr(0, dash) + ".." + item.substr(dash + 1) + "'?");
    } else {
      out.insert(parse_threads(item, what, unit));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace parlab
