// Runs a plan and keeps its result files valid at every moment.
//
// The run directory holds results.json (the state: context, plan, records, status) and
// results.csv (one row per record). Both are rewritten after every record through a temporary
// file and rename(), so a crash or Ctrl-C leaves the completed records readable; the status
// stays "incomplete" until the last measurement, and `parlab run --resume DIR` runs whatever
// the plan still lacks.
//
// Timing engine: parlab's own, not Google Benchmark (which parlab uses for micro-benchmarks in
// bench/). A study needs a fixed number of repetitions of a long kernel with every repetition
// kept, backends that time themselves (CUDA events, transfer apart from compute), a record
// written the moment it is measured so an interrupted run resumes, and validation of the very
// data that was timed; Google Benchmark's adaptive iteration counts and process-level
// Initialize/Run model fit none of these. The method is the same: warm-up, then repetitions
// of `inner` back-to-back runs (inner calibrated so one repetition lasts min_rep_seconds), the
// median reported.
#pragma once

#include <atomic>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workload.hpp"
#include "experiments/io/run_lock.hpp"
#include "experiments/plan/suite.hpp"
#include "experiments/record/record.hpp"
#include "experiments/run/child_record.hpp"
#include "experiments/wiring/python_part.hpp"

namespace parlab {

struct RunOptions {
  bool write_csv = true;
  bool quiet = false;
  // The timeout of one measurement made in another process (an interpreter child, an MPI
  // job): past it the child is stopped and its record fails. 0: none.
  double child_timeout_s = kDefaultChildTimeoutSeconds;
  // The roofs a new run's context holds as `ceilings` (docs/ceilings.md); null: none, and no
  // record gets a `limit`.
  nlohmann::json ceilings;
  // The 1-minute load average the command read once before the plan's warnings: the context
  // records and quotes this one, so a run's text cites one figure. Unset: the context reads it.
  std::optional<double> load_1min;
  // This process is the child measuring one point (`parlab measure-spec`): a Python kernel file's
  // point is measured here rather than in a child of its own.
  bool in_child = false;
  static constexpr double kDefaultChildTimeoutSeconds = 1800;
};

class Runner {
 public:
  Runner(const Registry& registry, std::ostream& log, RunOptions options);

  // Starts a new run in a fresh directory under `out_root`/<host>/<UTC timestamp>. Returns the
  // exit code: 0 all valid, 1 a validation failed or a measurement errored, 130 interrupted.
  // PRECONDITION: `plan` was produced by make_plan (everything validated).
  int run_new(const Plan& plan, const std::filesystem::path& out_root, const nlohmann::json& invocation);

  // Completes the run in `dir`. Throws UsageError when `dir` holds no readable parlab run.
  int resume(const std::filesystem::path& dir);

  const std::filesystem::path& run_dir() const { return dir_; }

  // One plan entry measured in this process, whatever interpreter it names (the child side of
  // experiments/machine/interpreters.hpp): the record, or nullopt when interrupted.
  std::optional<Record> measure_one(const MeasurementSpec& spec, std::size_t index) { return measure(spec, index); }

 private:
  int execute();
  std::optional<Record> measure(const MeasurementSpec& spec, std::size_t index);
  std::optional<Record> measure_here(const MeasurementSpec& spec, std::size_t index);  // in this process
  // A child process's job for `s`: its base record, timeout, and for a kernel file what the child
  // needs to load it.
  ChildJob child_job(const MeasurementSpec& s, std::size_t index, const PythonFileKernel* file) const;
  std::optional<Record> measure_file_kernel_in_child(const MeasurementSpec& spec, const PythonFileKernel& file,
                                                     std::size_t index);
  void check_consistency();
  // The bandwidth roofs measured again, and every record's limit graded against them.
  void grade_with_end_probe();
  nlohmann::json records_json() const;
  void save();

  const Registry& registry_;
  std::ostream& log_;
  RunOptions options_;
  std::filesystem::path dir_;
  // The file's document; its records are records_ as to_json writes them, each written once when
  // it is made or changed (a save does not serialize every record again).
  nlohmann::json doc_;
  std::vector<Record> records_;  // typed, as made here or read once from the file resumed
  // The plan as typed specs: a new run's from make_plan, a resumed one's read once from its file.
  // doc_["plan"] is only the plan as the file keeps it, never read back within one process.
  std::vector<MeasurementSpec> specs_;
  std::optional<RunLock> lock_;  // held from the run directory's creation (or resume) to the end
};

// The results.json schema this parlab writes (Runner::run_new), the only one it resumes
// (resume.cpp), and the one `parlab migrate` brings older runs to (migrate.cpp).
inline constexpr const char* kResultsSchema = "parlab-results/5";

// Writes `doc` to `file`, a run's results.json, as every writer of one does (the runner, the
// report's time, `parlab migrate`): its paths made portable (io/portable_paths.hpp, with the run's
// results root and $HOME: a run is committed and read on other machines), then atomically, in the
// runner's format. Returns the document as written, which results.csv is made from.
nlohmann::json write_results_file(const std::filesystem::path& file, nlohmann::json doc);

// What `parlab run --resume DIR` checks of DIR's results.json (`doc`) before resuming it: a run of
// this schema, every key resuming reads of the right type, each plan entry's backend and kernel
// known to `registry`. Throws UsageError naming the file and the key. Declared here rather than
// kept in resume.cpp so that the results reader's fuzz target (tests/fuzz/fuzz_results.cpp) runs it.
void check_resume_input(const nlohmann::json& doc, const std::filesystem::path& dir, const Registry& registry);

// Adds `report_s`, the seconds its report took to draw, to the finished run in `run_dir` (the
// next plan's estimate reads it). A run it cannot rewrite is left as it is, with a warning on
// `log`: the report is drawn, and an estimate is not worth failing for.
void record_report_seconds(const std::filesystem::path& run_dir, double seconds, std::ostream& log);

// One CSV row per record, header first.
std::string records_to_csv(const nlohmann::json& records);

}  // namespace parlab
