// Strict parsing of command-line values. Every function throws UsageError naming the argument
// (`what`) and what it accepts; nothing is silently truncated or wrapped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parlab {

// An unsigned 64-bit integer: decimal ("268435456"), hexadecimal ("0x10000000"), a power of
// two ("2^28") or an exact decimal exponent ("1e9"). Leading/trailing spaces, signs, fractions
// and trailing garbage are rejected, as is anything above 2^64-1.
std::uint64_t parse_u64(std::string_view text, std::string_view what);

// A duration in seconds, from 0 to `max_s`: a plain decimal ("30", "0.5", "1e3"); signs other than
// an exponent's, hex floats, "inf" and "nan" are refused. Linear in the text's length.
double parse_seconds(std::string_view text, std::string_view what, double max_s);

// As parse_u64, and at least `min`.
std::uint64_t parse_count(std::string_view text, std::string_view what, std::uint64_t min = 1);

// A thread count (or, as `unit` says, a rank count): a positive integer no larger than kMaxThreads.
int parse_threads(std::string_view text, std::string_view what, std::string_view unit = "thread count");
inline constexpr int kMaxThreads = 4096;

// A thread list: "1,2,4", "1..16" (every count), "max" (the machine's hardware threads),
// "pow2" (1, 2, 4, ... up to max, plus max), or a comma list mixing these. Sorted, unique.
// `unit` names the counts in messages: "thread count", or "rank count" for a list of MPI job sizes.
std::vector<int> parse_thread_list(std::string_view text, std::string_view what, int max_threads,
                                   std::string_view unit = "thread count");

// Splits "a,b,c" into its non-empty items (an empty item is a usage error).
std::vector<std::string> split_list(std::string_view text, std::string_view what);

}  // namespace parlab
