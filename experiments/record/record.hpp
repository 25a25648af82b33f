// The record (docs/records.md): one measurement of one plan entry as typed values, and its one
// serializer and reader. The runner (experiments/run/runner.cpp) makes a Record where the run is
// made and derives every per-record figure on it; `to_json` is the only writer of a results.json
// record, and `read_record` the reader of every record that comes back: a child process's, a
// run's resumed or migrated. Python reads the file and derives nothing that is one record's.
//
// Two blocks keep the JSON form their one writer gives them, since nothing in C++ reads them
// typed: `limit` (machine/limit.cpp's record_limit, which derives it from the typed record) and
// `machine` (run/worker_accounting.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/spread.hpp"
#include "core/workload.hpp"
#include "experiments/record/spec.hpp"
#include "experiments/record/workers.hpp"

namespace parlab {

// ok: measured and its answer checked; failed-validation: measured, the answer wrong; error: the
// measurement broke (a child's fault included); unavailable: this build or machine cannot run it.
enum class RecordStatus { ok, failed_validation, error, unavailable };
const char* to_string(RecordStatus s);
std::optional<RecordStatus> record_status_from_name(std::string_view name);

// The timed repetitions (docs/records.md, "Spread"): `inner` runs each, seconds per run.
struct RecordTimes {
  long inner = 1;
  std::vector<double> reps_s;
  Spread time_s;
  std::string unstable;  // why the median is not quoted alone; empty where it may be
  // A backend that times itself: compute and transfers apart (medians), their sum the repetition's.
  std::optional<double> kernel_s, transfer_s;
};

// Rates from the median time; unset where the work has no such count.
struct RecordRates {
  std::optional<double> samples_per_s, bytes_per_s, flops_per_s;
};
// The rates of `work` done in `median_s` seconds: each count that is finite and positive over the
// time; none where the time is not positive. The runner's rule, and pooled rounds' (pool_rounds).
RecordRates rates_of(const WorkCount& work, double median_s);
nlohmann::json to_json(const RecordRates& r);

struct RecordVerdict {
  bool pass = false;
  std::string detail;
};

struct Record {
  // The plan entry it measures. Its `interpreter` is the one that ran a Python record, as that
  // process names itself, and its `ranks` an MPI record's ranks, as planned or as the job had.
  MeasurementSpec spec;
  std::size_t id = 0;  // the plan entry's index
  std::string kind;    // the backend's kind ("cpu", "python", ...)
  std::string family;  // the kernel's family; empty where the catalogue names none
  std::string processor;  // "cpu" or "gpu", as the backend's wing says; empty where it says neither
  bool own_kernels = false;  // its backend runs parlab's own compiled loops
  RecordStatus status = RecordStatus::error;
  std::string reason;  // why it is unavailable or broke

  std::optional<RecordTimes> times;
  std::optional<RecordRates> rate;
  std::optional<WorkCount> work;
  std::optional<double> footprint_bytes;  // what the workload's arrays occupy on the host
  std::optional<RecordVerdict> validation;
  std::optional<double> checksum;  // NaN where the answer was no number (written as null)
  std::optional<std::uint64_t> hits;
  std::map<std::string, double> metrics;  // the workload's own figures and the energy's
  std::string energy;  // why the record has no energy figures where the counter was there but failed
  std::optional<ProcessLayout> layout;  // an MPI job's
  std::string python_build;             // a Python record's interpreter build
  std::optional<bool> gil_enabled;      // whether its interpreter ran with a GIL
  std::string kernel_file, kernel_sha256;  // a Python kernel file's, relative to the run's directory
  std::optional<double> elapsed_s;
  nlohmann::json limit;    // null: none
  nlohmann::json machine;  // null: none
  std::optional<Workers> workers;

  bool measured() const { return times.has_value(); }
};

// The one writer of a results.json record.
nlohmann::json to_json(const Record& r);

// Why `rec` cannot be read as a record: a field of the wrong type, out of its range, or a
// per-worker array whose length is not the workers it counts, naming the field
// ("time_s.median: expected a positive number, got \"fast\""); empty when none is wrong.
std::string record_field_fault(const nlohmann::json& rec);

// The record `rec` holds, read as untrusted input: record_field_fault's checks, a known status,
// the plan entry's fields, an ok record's times and verdict, and every other field's type.
// Throws UsageError naming the field. to_json(read_record(r)) == r for every record to_json writes.
Record read_record(const nlohmann::json& rec);

// A record of `base` (its plan entry, id and what its caller knows) whose measurement broke:
// status error, `why` its reason and its verdict's detail.
Record failed_record(Record base, const std::string& why);

}  // namespace parlab
