// libFuzzer target of the suite parser: the bytes are a suite file's text, read as load_suite reads
// it (parse_suite_text) and expanded into a plan by make_plan, which reads and checks every key.
// Contract: a plan, or a UsageError (exit 2). Anything else is a finding (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "experiments/plan/suite.hpp"
#include "experiments/wiring/make_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const parlab::Registry registry = parlab::make_registry();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json suite = parlab::parse_suite_text(text, "fuzz.json");
    (void)parlab::make_plan(&suite, parlab::PlanOverrides{}, registry, 4);
  } catch (const parlab::UsageError&) {
  }
  return 0;
}
