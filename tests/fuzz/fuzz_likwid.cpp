// libFuzzer target of the likwid-bench output parser: the bytes are likwid-bench's stdout
// (parse_report). Contract: a report, or a FailureError (the peer's record fails, naming what is
// wrong). Anything else is a finding (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "peers/likwid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)parlab::likwid::parse_report(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const parlab::FailureError&) {
  }
  return 0;
}
