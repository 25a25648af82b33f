// Files parlab reads, read one guarded way: suites, results, the ceilings cache, hostfiles,
// reference runs, peers' outputs and counters. A hostile or broken file — a FIFO, a device, a
// symlink loop, gigabytes, JSON nested 200,000 deep — gives a UsageError (exit 2) that names the
// file and says what is wrong, never a hang, a crash or a library's raw text.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace parlab {

struct ReadLimits {
  std::size_t max_bytes = std::size_t{256} << 20;  // results of the longest runs are tens of MB
  int max_depth = 64;                              // parlab's deepest document nests about 6
  // true: an integer (no '.', no exponent) outside a 64-bit integer's range is refused, naming
  // its field, instead of becoming the nearest double (2^70+1 would be 1.1805916207174113e+21).
  bool exact_integers = false;
};

// The whole of the regular file `path`. Opened without blocking and checked with fstat before a
// byte is read, so a FIFO, a socket or a device is refused rather than waited on. Throws
// UsageError naming `what` and the path when the file is missing, not a regular file, over
// `max_bytes`, or unreadable.
std::string read_regular_file(const std::filesystem::path& path, const std::string& what,
                              std::size_t max_bytes = ReadLimits{}.max_bytes);

// `text` parsed as JSON, its nesting checked against `max_depth` before parsing (a recursive
// reader of it would otherwise overflow the stack). Throws UsageError naming `where` with the
// line and column of a syntax error; never a nlohmann exception.
nlohmann::json parse_json_text(std::string_view text, const std::string& where, int max_depth = ReadLimits{}.max_depth);

// The first integer of the JSON `text` that does not fit a 64-bit integer (signed or unsigned),
// as "FIELD: the integer '...' does not fit ...", FIELD its path ("records[3].hits"); empty when
// none. `text` is valid JSON (parse_json_text has read it).
std::string inexact_integer(std::string_view text);

// read_regular_file, then parse_json_text (and inexact_integer where `limits` asks).
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& what, const ReadLimits& limits = {});

// A value of a file quoted in a message: its JSON text, valid UTF-8, at most about `max_bytes`.
std::string quoted_json(const nlohmann::json& value, std::size_t max_bytes = 200);

}  // namespace parlab
