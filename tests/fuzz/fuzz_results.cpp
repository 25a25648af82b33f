// libFuzzer target of the results and record reader: the bytes are a results.json, read as
// `parlab migrate` reads it (migrate_results) and as `parlab run --resume` does (check_resume_input);
// the records of a document that resuming accepts are then written as the run writes them
// (records_to_csv); and each record's `workers` block is read as the views read it (workers_of),
// written back, and given to every cause rule; and a run's rounds are pooled as the runner and
// migrate pool them (pool_rounds). Contract: a result, or a UsageError (exit 2); the workers
// reader and the rules never throw. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/machine/worker_causes.hpp"
#include "experiments/record/workers.hpp"
#include "experiments/run/migrate.hpp"
#include "experiments/run/pool_rounds.hpp"
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
  if (doc.is_object() && doc.contains("records") && doc["records"].is_array()) {
    for (const nlohmann::json& r : doc["records"]) {
      if (const auto w = parlab::workers_of(r)) (void)parlab::to_json(*w).dump();
      (void)parlab::worker_shortfall(r);
      (void)parlab::computation_shortfall(r, 0.5);
      (void)parlab::disturbance_text(r);
      (void)parlab::worker_cpus(r);
    }
  }
  if (doc.is_object() && doc.contains("records")) {
    try {
      const auto context = doc.find("context");
      (void)parlab::pool_rounds(doc["records"], context == doc.end() ? nlohmann::json::object() : *context);
    } catch (const parlab::UsageError&) {
    }
  }
  try {
    parlab::check_resume_input(doc, "fuzz", registry);
    (void)parlab::records_to_csv(doc["records"]);
  } catch (const parlab::UsageError&) {
  }
  return 0;
}
