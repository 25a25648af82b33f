// The handlers of parlab's commands: run_cli (cli.cpp) parses the command line into these
// arguments and calls one. Two print a lower layer's facts and live beside them: cmd_ceilings in
// machine/ceilings.hpp, cmd_interpreter_info in machine/interpreters.hpp.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/plan/suite.hpp"
#include "core/workload.hpp"

namespace parlab {

// The exit codes every command keeps (docs/design.md, "Failure semantics").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// `parlab run`: every measurement ended as exit 0 would say, but the report after it failed. Its
// own code, since 1 says a measurement failed and a CI gate must tell the two apart.
inline constexpr int kExitReport = 4;
// `parlab compare --fail-if-slower`: the gate judged no record (too few repetitions, or none
// compared), so it neither passes nor fails; a gate that cannot fail must not read as passed.
inline constexpr int kExitNothingJudged = 5;

// `parlab list`: the registry, the interpreters, the kernel catalogue and the suites; `what` one
// of them only. The backends are probed first (Registry::probe), so that "available" is what a
// run would find. `name` (with `what` "suites" only): that suite's whole description; a name
// that is no suite is a UsageError with the closest one.
int cmd_list(Registry& registry, const std::string& what, const std::string& name, std::ostream& out);

// ---------------------------------------------------------------- pi
struct PiArgs {
  std::string backend = "serial";
  std::string threads = "1";
  std::string samples = "2^24";
  std::string seed = std::to_string(kDefaultSeed);
  std::string device = "0";
  bool json = false;
};

int cmd_pi(const Registry& registry, const PiArgs& a, std::ostream& out);

// ---------------------------------------------------------------- run
struct RunArgs {
  std::string suite;
  std::string kernel, backend, threads, size, precision, reps, rounds, seed, device;
  std::string out;  // empty: "results"
  std::string format = "json,csv";
  std::string resume;
  std::string ranks;  // MPI job sizes for the mpi backends
  std::string hostfile;  // the hosts those MPI jobs run on (empty: this one)
  std::string timeout;  // seconds per measurement in another process
  std::string peer_dir;  // where BabelStream's binaries are (overrides PARLAB_BABELSTREAM_DIR)
  bool quick = false;
  bool quiet = false;
  bool no_report = false;
  // The results on stdout at the end (analysis/table.py): table, markdown, csv, json,
  // none or pop (pop_text.py); empty: a table, after --no-report only when stdout is a terminal.
  std::string summary;
  bool yes = false;      // run even when the plan's estimate is over an hour
  bool dry_run = false;  // plan, print, write nothing
  bool no_ceilings = false;  // no roofs in the context, no `limit` in the records
};

// `parlab run`: a new run of a suite or of the filters given, or --resume of an interrupted one,
// then its report unless --no-report. argv is recorded as the run's invocation.
// The plan's backends are probed (Registry::probe) before anything says or measures them.
int cmd_run(Registry& registry, const RunArgs& a, std::ostream& out, std::ostream& err, int argc,
            const char* const* argv);

// ---------------------------------------------------------------- report / compare
// The plots and report.html of a run directory (analysis/plot.py), and its results
// on stdout in the form `summary` names (empty: a table). summary_only: the results, no plots.
struct ReportOptions {
  bool quiet = false;
  std::string summary;
  bool summary_only = false;
};
int cmd_report(const std::string& run_dir, std::ostream& err, const ReportOptions& options);

// `parlab compare BASE NEW [options]` (analysis/compare.py).
int cmd_compare(const std::vector<std::string>& passed, std::ostream& err);

// ---------------------------------------------------------------- migrate
// `parlab migrate RUN...` (cmd_migrate.cpp): each run to the current schema, in place.
int cmd_migrate(const Registry& registry, const std::vector<std::string>& runs, bool dry_run,
                std::ostream& out, std::ostream& err);

// ---------------------------------------------------------------- measure-spec
// `parlab measure-spec JSON` (cmd_measure_spec.cpp): measures one plan entry in this process and
// prints its record (or null when interrupted by SIGINT/SIGTERM) as one JSON line on `out`.
int cmd_measure_spec(const Registry& registry, const std::string& spec_json, std::ostream& out);

}  // namespace parlab
