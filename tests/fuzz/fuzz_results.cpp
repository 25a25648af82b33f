// libFuzzer target of the results and record reader: the bytes are a results.json, read as
// `parlab migrate` reads it (migrate_results) and as `parlab run --resume` does (check_resume_input);
// the records of a document that resuming accepts are then written as the run writes them
// (records_to_csv). Contract: a result, or a UsageError (exit 2). Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/run/migrate.hpp"
#include "experiments/run/runner.hpp"
#include "experiments/wiring/make_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const parlab::Registry registry = parlab::make_registry();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json doc;
  try {
    doc = parlab::parse_json_text(text, "results file 'fuzz/results.json'");
  } catch (const parlab::UsageError&) {
    return 0;
  }
  try {
    (void)parlab::migrate_results(doc, registry, "fuzz/results.json", {"/work/results", "/home/user"});
  } catch (const parlab::UsageError&) {
  }
  try {
    parlab::check_resume_input(doc, "fuzz", registry);
    (void)parlab::records_to_csv(doc["records"]);
  } catch (const parlab::UsageError&) {
  }
  return 0;
}
