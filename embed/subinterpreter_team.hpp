// A team of C++ threads, each inside a sub-interpreter of its own (own GIL, PEP 684), run job
// after job: what the sub-interpreter backends (pure-Python pi, a person's kernel file) share.
// The threads and interpreters are made by the constructor, outside any timed region; run()
// starts one job on every thread and waits for all of them.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace parlab::embed {

class SubinterpreterTeam {
 public:
  // What worker i runs for each job: called on its thread, in its interpreter, its GIL held.
  // It may throw; the first error of a job is rethrown by run(), its message after the team's
  // name (an UnavailableError stays one, anything else becomes a FailureError).
  using Job = std::function<void()>;
  // Called once on worker i's thread, right after its interpreter is made (GIL held): loads what
  // the jobs need and returns the job. Python objects the job holds are released on that thread,
  // in that interpreter, when the team shuts down. An exception fails the constructor.
  using Setup = std::function<Job(std::size_t i)>;

  // Starts `workers` threads. Each is worker i of the calling workload's WorkerLedger
  // (WorkerScope) while it serves jobs. Throws the first error of making an interpreter or of a
  // setup, named as run() names a job's; a thread that cannot start is a FailureError naming `name`.
  // PRECONDITION: an Interpreter is running and this thread does not hold a GIL (creating an
  // interpreter stops the world on a free-threaded build).
  SubinterpreterTeam(std::string name, std::size_t workers, Setup setup);
  ~SubinterpreterTeam();  // shut_down()
  SubinterpreterTeam(const SubinterpreterTeam&) = delete;
  SubinterpreterTeam& operator=(const SubinterpreterTeam&) = delete;

  // One job on every worker; returns when all have finished, rethrowing the first error.
  // What the caller wrote before calling is published to the workers (by the team's mutex).
  void run();

  std::size_t size() const noexcept { return threads_.size(); }
  // The workers' summed wall and CPU time inside jobs, over all runs so far.
  double wall_s() const;
  double cpu_s() const;

 private:
  void worker(std::size_t i, const Setup& setup);
  void serve(std::size_t i, const Job& job);
  void report_ready(std::exception_ptr error);
  void shut_down();

  std::string name_;
  std::vector<std::thread> threads_;
  mutable std::mutex m_;
  std::condition_variable work_, done_;
  std::uint64_t generation_ = 0;
  std::size_t pending_ = 0, ready_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  double wall_s_ = 0, cpu_s_ = 0;
};

}  // namespace parlab::embed
