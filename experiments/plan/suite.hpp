// Suites are data: JSON files in experiments/suites/ that expand into a plan of measurements.
//
// A suite file:
//   {
//     "name": "quick", "description": "...",
//     "reps": 5, "warmup": 1, "seed": 42, "min_rep_seconds": 0.01, "rounds": 1, (optional defaults)
//     "experiments": [
//       {"kernel": "pi", "backends": "all", "threads": "1,2", "sizes": ["2^25"],
//        "scaling": "strong", "precision": ["double"], "size_y": 0, "reps": 5, "study": "...",
//        "interpreters": "all"}
//     ]
//   }
// "kernel" may be a name or a list, a name being a Python kernel file ("k.py", "k.py:name") in a
// suite given by path, found beside it (resolve_suite_kernel_files); "backends" is "all" (every
// backend in the default set that runs the kernel), a kind ("cpu", "gpu", "python") or a list of
// names; "threads" takes the CLI's thread-list syntax; "scaling": "weak" multiplies each size by
// the thread count; "interpreters": "all" measures Python backends in every interpreter mode
// found (experiments/machine/interpreters.hpp),
// "others" in every one but this process's own (none when none is found), "this" (the default)
// in this process's own only; "ranks" (the thread-list syntax) measures each mpi backend in an
// MPI job of each of those sizes ("weak" then also multiplies by the ranks). "rounds": R measures
// the whole plan R times over, round after round, each measurement with its own repetitions in
// every round and a record per round (field "round"). Unknown keys are
// errors, so a typo never silently changes an experiment.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workload.hpp"
#include "experiments/record/spec.hpp"

namespace parlab {


// Command-line overrides and filters applied on top of a suite (or alone: an ad-hoc suite).
struct PlanOverrides {
  std::vector<std::string> kernels;   // filter (suite) or the kernels to run (ad hoc)
  std::vector<std::string> backends;  // filter / selection; "all" allowed
  std::optional<std::vector<int>> threads;
  std::optional<std::vector<int>> ranks;  // MPI job sizes for the mpi backends (--ranks)
  std::optional<std::vector<std::uint64_t>> sizes;
  std::vector<Precision> precisions;
  std::optional<int> reps;
  std::optional<int> rounds;
  std::optional<std::uint64_t> seed;
  std::optional<int> device;
  bool quick = false;  // at most 3 repetitions, no minimum repetition time
};

struct Plan {
  std::string suite;  // name, or "ad-hoc"
  std::vector<MeasurementSpec> specs;
  // What a user should know before the run starts (a command-line size below a backend's work
  // unit, a named backend that does not run a named kernel, an MPI launcher and
  // oversubscription); printed, and kept in the run's context.
  std::vector<std::string> warnings;
};

// The directory holding the suite files: $PARLAB_SUITES_DIR, else data_dir()/suites.
std::filesystem::path suites_dir();
std::vector<std::string> suite_names();

// Loads `name_or_path` (a suite name in suites_dir(), or a path to a .json file). Throws
// UsageError naming the file and the problem.
nlohmann::json load_suite(const std::string& name_or_path);

// Whether load_suite reads `name_or_path` as a path (it holds a '/', or names an existing .json
// file), not as a suite's name in suites_dir().
bool suite_given_by_path(const std::string& name_or_path);

// A Python kernel file an experiment of a suite file names, as the run plans it.
struct SuiteKernelFile {
  std::string where;  // "suite file 'dir/my.json' experiment 2 kernel 'k.py'", for messages
  std::string name;   // the plan's kernel name: the path resolved against the suite's directory [":" function]
};

// Each Python kernel file (parse_file_kernel) among the experiments' "kernel" of `suite`, loaded
// from `name_or_path`, renamed in place to its path resolved against the suite file's directory:
// a suite is data a person moves with their kernels, so "kernel": "k.py" is the k.py beside it,
// whatever the working directory. The new name is what `-k` would be given for that file (an
// absolute path stays absolute), so the plan, records, --resume and compare treat it as they
// treat -k's. A malformed experiment is left to make_plan's messages. Throws UsageError where a
// suite given by name (parlab's own, or $PARLAB_SUITES_DIR's) names a kernel file: only a suite
// given by path may.
std::vector<SuiteKernelFile> resolve_suite_kernel_files(nlohmann::json& suite, const std::string& name_or_path);

// The text of a suite file (`path` names it in a message) as load_suite reads it: JSON of bounded
// nesting, an object. Throws UsageError. Apart from load_suite so that the suite parser's fuzz
// target (tests/fuzz/fuzz_suite.cpp) feeds it bytes without a file.
nlohmann::json parse_suite_text(std::string_view text, const std::string& path);

// Expands a suite (may be null for ad hoc) with overrides into a plan, validating everything:
// kernels, backends, precisions, sizes (including whether they fit in memory). No filter is
// dropped in silence: a --kernel or --backend name that selects nothing is a UsageError, and each
// (kernel, backend) pair of a --backend name that does not run a planned kernel is one warning.
// In a suite, a (size, threads) point at which some threads of a backend with a work unit would
// get no work is left out with one warning per backend (on the command line it is measured, and
// warned about). Throws UsageError.
Plan make_plan(const nlohmann::json* suite, const PlanOverrides& overrides, const Registry& registry,
               int max_threads);

// "2^25" for powers of two, else the decimal number.
std::string format_size(std::uint64_t n);

}  // namespace parlab
