// The MPI side of a parlab process: the one MPI session a process may have, the job's layout,
// and the leader/follower protocol through which rank 0 drives the other ranks.
//
// Under an MPI launcher every rank runs the parlab executable. Rank 0 runs the command (the
// runner, its timing loop, the result files); every other rank only serves: it waits for
// rank 0's commands (make a workload, run it, validate it, destroy it, stop) and runs its share
// of each. So the runner's decisions (calibration, Ctrl-C, resume) are taken once, and only
// rank 0 writes files.
//
// Threading: MPI_THREAD_FUNNELED. Only the thread that started MPI calls it; executors' worker
// threads run kernel bodies and never touch MPI.
#pragma once

#include <mpi.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/worker_ledger.hpp"
#include "core/workload.hpp"

namespace parlab::mpi {

// True when an MPI launcher started this process (Open MPI's mpirun, or a PMI/PMIx launcher
// such as MPICH's hydra or Slurm's srun).
bool launched_by_launcher();

// "Open MPI v4.1.4, ..." (MPI_Get_library_version, callable before MPI_Init), first line only.
std::string library_version();

// The job as this rank sees it.
struct Layout {
  int rank = 0, ranks = 1;
  int node_rank = 0;       // rank among the ranks on this host (MPI_COMM_TYPE_SHARED): picks the GPU
  int ranks_per_node = 1;  // the most ranks on one host
  int hosts = 1;
  std::string binding;     // each rank's CPU affinity as rank 0 gathered it: "r0:0-1 r1:0-1"
  // Each host's processor name and its count of ranks, as rank 0 gathered them (aligned).
  std::vector<std::string> host_names;
  std::vector<int> ranks_per_host;
  std::vector<int> host_of_rank;  // each rank's index in host_names (rank 0 only)
  double link_latency_s = 0;      // ProcessLayout::link_latency_s (rank 0 only)
  ProcessLayout process() const {
    return {ranks, ranks_per_node, hosts, host_names, ranks_per_host, binding, link_latency_s};
  }
};

// Owner of a communicator this process created; frees it on destruction.
class Communicator {
 public:
  explicit Communicator(MPI_Comm c = MPI_COMM_NULL) noexcept : comm_(c) {}
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  MPI_Comm get() const noexcept { return comm_; }

 private:
  MPI_Comm comm_;
};

// One rank's share of a distributed workload. Every method but work() is collective: every rank
// calls it, in the same order (the protocol guarantees it).
class RankWorkload {
 public:
  virtual ~RankWorkload() = default;
  virtual void run() = 0;
  virtual Validation validate() = 0;  // the verdict on the whole job; the same on every rank
  virtual WorkCount work() const = 0;  // the whole job's work, for aggregate rates
  // This rank's executor's accounting (mpi/job_ledger.hpp); null where its loops are not accounted.
  // The same on every rank: the builders are.
  virtual WorkerLedger* ledger() { return nullptr; }
};

// Builds this rank's share of `problem` (whole-job sizes) for one backend. Collective.
using RankBuilder = std::function<std::unique_ptr<RankWorkload>(const Problem& problem, const Layout& layout)>;

// Prints "parlab: rank R of N: what; aborting the MPI job" to stderr and calls MPI_Abort, so a
// rank that fails inside a collective ends every rank instead of leaving them waiting.
[[noreturn]] void abort_job(const std::string& what) noexcept;

class Runtime {
 public:
  static Runtime& instance();

  // Starts MPI once (MPI_Init_thread, FUNNELED) and computes the layout; later calls do nothing.
  // A process not started by a launcher becomes a singleton job of one rank. Throws
  // FailureError when MPI cannot start or was already finalized.
  void start();
  bool started() const noexcept { return started_; }
  // PRECONDITION: started().
  const Layout& layout() const noexcept { return layout_; }

  // Ends the job: rank 0 tells the followers to stop, then MPI_Finalize. Idempotent, noexcept.
  void finish() noexcept;

  // The backends' builders, added by add_mpi_backends on every rank.
  void add_builder(const std::string& backend, RankBuilder builder);

  // Rank 0: a Workload driving `backend`'s share on every rank. Validates what it can before any
  // rank is involved (throws UsageError then); a failure after that aborts the job.
  std::unique_ptr<Workload> make_leader(const std::string& backend, const Problem& problem);

  // Ranks other than 0: serve rank 0's commands until it stops the job. Returns the exit code.
  int serve();

 private:
  Runtime() = default;
  friend class LeaderWorkload;
  const RankBuilder& builder(const std::string& backend) const;

  bool started_ = false, finished_ = false;
  bool leader_live_ = false;  // rank 0 holds a leader: one distributed workload at a time
  Layout layout_;
  std::map<std::string, RankBuilder> builders_;
};

}  // namespace parlab::mpi
