// MPI job sizes as a dimension of a run (`parlab run --ranks 1,2,4`, a suite's "ranks").
//
// A plan entry with `ranks` R > 0 is measured by an MPI job of R ranks that the runner launches
// for it: `<launcher> -np R <this parlab> measure-spec <entry>`. Rank 0 of the job prints the
// record, the other ranks serve its distributed workload, and the runner merges the record into
// the run's results.json, so one command draws a curve over rank counts.
//
// The launcher: $PARLAB_MPIRUN, else mpirun, else mpiexec on PATH. Open MPI's gets
// --oversubscribe (more ranks x threads than cores is allowed, and warned about in the
// context), --bind-to none (a rank's threads may use every core; Open MPI binds a rank to one
// core by default for two ranks or fewer) and, run as root, --allow-run-as-root. Words in
// $PARLAB_MPIRUN_ARGS follow them (for several hosts: "--hostfile hosts --map-by node").
//
// Across hosts (`parlab run --hostfile FILE`, or a --hostfile in $PARLAB_MPIRUN_ARGS) the
// launcher also gets, unless they are given, Open MPI's daemon keepalive settings short enough
// that a host lost mid-job (its link down, its daemon gone) ends the job within seconds naming
// the host, rather than after TCP's minutes; a failed record of such a job names the hosts the
// launcher's messages name (docs/multihost.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/record/record.hpp"

namespace parlab {

struct MpiLauncher {
  std::vector<std::string> command;  // up to, not including, "-np R"
  bool open_mpi = false;
  std::string hostfile;              // empty: one host
  std::vector<std::string> hosts;    // the hostfile's hosts, in its order
  std::string describe() const;      // the command as one line
};

// This process's SIGINT or SIGTERM arrived while the launcher was being asked what it is.
struct LauncherProbeInterrupted {};

// Throws UsageError naming --ranks when no launcher is found or it does not answer `--version`
// in time, and naming --hostfile when the hostfile cannot be read, names no host, or is given both
// ways; LauncherProbeInterrupted when this process was interrupted meanwhile. The launcher is
// asked once per process (the answer, or its failure, is kept), within `timeout_s` (the run's
// --timeout; 0: none) and at most kLauncherProbeSeconds, in a process group of its own that is
// killed whole when it runs past that.
MpiLauncher find_mpi_launcher(double timeout_s = 0);
inline constexpr double kLauncherProbeSeconds = 15;

// `parlab run --hostfile FILE`: the MPI jobs of this process run on FILE's hosts. Set once,
// before the run starts; throws UsageError when FILE cannot be read.
void set_mpi_hostfile(const std::string& path);

// The host names of an Open MPI / MPICH hostfile: each line's first word, comments and blank
// lines skipped. Throws UsageError naming `path` when it cannot be read or names no host.
std::vector<std::string> hostfile_hosts(const std::string& path);

// hostfile_hosts of the file's text: `path` only names it in a message. Apart from the reading so
// that the hostfile reader's fuzz target (tests/fuzz/fuzz_hostfile.cpp) feeds it bytes without a file.
std::vector<std::string> parse_hostfile(const std::string& text, const std::string& path);

// The hosts of `hosts` that the launcher's messages `all` (its stderr) name as the place of a
// fault, in the order of `hosts`. Declared here for the same fuzz target, which feeds it bytes.
std::vector<std::string> hosts_named(const std::vector<std::string>& hosts, const std::string& all);

// Measures `spec` in an MPI job of `ranks` ranks through measure_in_child_process
// (child_record.hpp): rank 0's record, a failed record naming the fault (no launcher, the job
// failing, its output unusable, its timeout passed), or nullopt when this process was interrupted.
std::optional<Record> measure_in_mpi_job(const MeasurementSpec& spec, int ranks, std::size_t index, double timeout_s);

}  // namespace parlab
