// A record a test writes as the few JSON fields it is about: those fields over a bare measured
// record of the current schema, read as parlab reads a file's record (read_record), so that what
// the test grades is a record parlab could have written, and a field the test gets wrong is
// refused by name rather than read as absent.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/spread.hpp"
#include "experiments/machine/limit.hpp"
#include "experiments/machine/worker_causes.hpp"
#include "experiments/record/record.hpp"

namespace parlab::test {

// An ok record of triad on `pool` at 1 thread, measured once in one second, its answer checked:
// what a test's fields are laid over. Its time is a whole second, so that no test meets the
// start-up cause ("one call takes ...") unless it sets a shorter time itself.
inline nlohmann::json bare_record() {
  Record r;
  r.spec.problem.kernel = "triad";
  r.spec.backend = "pool";
  r.spec.study = "test";
  r.spec.scaling = "none";
  r.kind = "cpu";
  r.status = RecordStatus::ok;
  RecordTimes t;
  t.reps_s = {1.0};
  t.time_s = *spread_of(t.reps_s);
  r.times = t;
  r.validation = RecordVerdict{true, "checked"};
  return to_json(r);
}

// `fields` (an object) over bare_record(), read back: throws UsageError for a field parlab would
// refuse in a file.
inline Record record_from(const nlohmann::json& fields) {
  nlohmann::json j = bare_record();
  j.update(fields);
  return read_record(j);
}

// record_limit of the record `fields` make (record_from) against `ceilings`.
inline nlohmann::json limit_of(const nlohmann::json& fields, const nlohmann::json& ceilings) {
  return record_limit(record_from(fields), ceilings);
}

// The causes' rules (machine/worker_causes.hpp) on a record's JSON as a test gives it, often a
// `workers` block alone: the block read as a file's is (workers_of: a field of the wrong type
// read as absent), with the record's kind and its metric gil_wait_share.
inline Record causes_record(const nlohmann::json& r) {
  Record rec;
  if (!r.is_object()) return rec;
  rec.kind = r.value("kind", "");
  rec.workers = workers_of(r);
  if (const auto m = r.find("metrics"); m != r.end() && m->is_object() && m->contains("gil_wait_share") &&
                                        (*m)["gil_wait_share"].is_number()) {
    rec.metrics["gil_wait_share"] = (*m)["gil_wait_share"].get<double>();
  }
  return rec;
}
inline std::string shortfall_of(const nlohmann::json& r) { return worker_shortfall(causes_record(r)); }
inline bool disturbed_of(const nlohmann::json& r) {
  const Record rec = causes_record(r);
  return rec.workers && disturbed(*rec.workers, rec.kind == "python");
}
inline std::string disturbance_of(const nlohmann::json& r) {
  const Record rec = causes_record(r);
  return rec.workers ? disturbance_text(*rec.workers) : std::string();
}
inline std::string computation_of(const nlohmann::json& r, double share) {
  const Record rec = causes_record(r);
  return rec.workers ? computation_shortfall(*rec.workers, share) : std::string();
}
inline std::vector<int> cpus_of(const nlohmann::json& r) {
  const Record rec = causes_record(r);
  return rec.workers ? worker_cpus(*rec.workers) : std::vector<int>();
}

}  // namespace parlab::test
