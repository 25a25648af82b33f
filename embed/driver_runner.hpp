// A runner object made by embed/workloads/parlab_driver.py (pi runners, race runners): owned,
// and closed (its Python threads joined) when destroyed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/workload.hpp"
#include "embed/interpreter.hpp"

namespace parlab::embed {

class DriverRunner {
 public:
  // Calls parlab_driver.<factory>(*args). A runner the driver cannot make here (its
  // Unavailable, or an ImportError: a missing library or GPU) becomes UnavailableError; any other
  // Python error, PythonError. `context` names the workload in messages.
  // PRECONDITION: the GIL is held; `args` is a tuple.
  DriverRunner(std::string context, const char* factory, PyRef args);
  // Calls the runner's close() to join its threads. Never throws: the runs are over, and a
  // failing close() has nowhere to be reported.
  // PRECONDITION: the GIL is NOT held by this thread (it is taken here).
  ~DriverRunner();
  DriverRunner(const DriverRunner&) = delete;
  DriverRunner& operator=(const DriverRunner&) = delete;

  // runner.<method>() as a new reference. PRECONDITION: the GIL is held.
  PyRef call(const char* method) const;
  // runner.<method>(arg) as a new reference. PRECONDITION: the GIL is held.
  PyRef call(const char* method, PyObject* arg) const;
  // runner.run() as a pi runner's hit count (a PythonError unless it returns a non-negative
  // int). Takes the GIL. PRECONDITION: this thread does not hold it.
  std::uint64_t run_for_hits() const;
  const std::string& context() const noexcept { return context_; }

 private:
  std::string context_;
  PyRef runner_;
};

// A pi runner for problem p: parlab_driver.<factory>(kind, seed, samples, threads, device)
// (make: the Python threads and library backends; make_model: the task-based models). Takes the GIL.
// PRECONDITION: this thread does not hold it.
std::unique_ptr<DriverRunner> make_pi_runner(const std::string& context, const char* factory, const char* kind,
                                             const Problem& p);

}  // namespace parlab::embed
