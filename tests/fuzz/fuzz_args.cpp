// libFuzzer target of the command-line number grammar (experiments/plan/args.hpp): sizes, seeds
// and counts (parse_u64, parse_count), thread and rank lists (parse_thread_list) and durations
// (parse_seconds, --timeout's). The first byte picks the parser; the rest is the argument's text.
// Contract: a value, or a UsageError (exit 2), in time linear in the text. Anything else, a hang
// past libFuzzer's -timeout included (0e99999999999 once spun), is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "experiments/plan/args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0: (void)parlab::parse_u64(text, "--size"); break;
      case 1: (void)parlab::parse_count(text, "--reps", 1); break;
      case 2: (void)parlab::parse_thread_list(text, "--threads", 16); break;
      default: (void)parlab::parse_seconds(text, "--timeout", 1e7); break;
    }
  } catch (const parlab::UsageError&) {
  }
  return 0;
}
