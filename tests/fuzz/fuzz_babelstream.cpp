// libFuzzer target of the BabelStream output parser: the bytes are BabelStream's --csv stdout
// (parse_csv). Contract: its rows, or a FailureError (the peer's record fails, naming what is
// wrong). Anything else is a finding (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "peers/babelstream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)parlab::babelstream::parse_csv(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const parlab::FailureError&) {
  }
  return 0;
}
