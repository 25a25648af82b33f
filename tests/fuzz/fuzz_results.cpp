// libFuzzer target of the results and record reader: the bytes are a results.json, read as
// `parlab migrate` reads it (migrate_results) and as `parlab run --resume` does (check_resume_input);
// the records of a document that resuming accepts are then written as the run writes them
// (records_to_csv); each record's `workers` block is read as the views read it (workers_of) and
// written back; each record parlab can read (read_record) is given to every cause rule and
// written back; and the records read are pooled as the runner and migrate pool a run's rounds
// (pool_rounds). Contract: a result, or a UsageError (exit 2); the workers reader and the rules
// never throw. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "experiments/io/read.hpp"
#include "experiments/machine/worker_causes.hpp"
#include "experiments/record/record.hpp"
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
    std::vector<parlab::Record> records;
    for (const nlohmann::json& r : doc["records"]) {
      if (const auto w = parlab::workers_of(r)) (void)parlab::to_json(*w).dump();
      try {
        records.push_back(parlab::read_record(r));
      } catch (const parlab::UsageError&) {
        continue;
      }
      const parlab::Record& rec = records.back();
      (void)parlab::worker_shortfall(rec);
      if (rec.workers) {
        (void)parlab::computation_shortfall(*rec.workers, 0.5);
        (void)parlab::disturbance_text(*rec.workers);
        (void)parlab::worker_cpus(*rec.workers);
      }
      (void)parlab::to_json(rec).dump();
    }
    // The records read, pooled as the runner and migrate pool a run's rounds.
    try {
      const auto context = doc.find("context");
      (void)parlab::pool_rounds(records, context == doc.end() ? nlohmann::json::object() : *context);
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
