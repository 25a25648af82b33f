// The Python workloads, driven from C++ and timed by the same runner as every other backend
// (core/workload.hpp): run() is the timed region, validate() checks the hit count.
//
// Every variant computes parlab's canonical pi stream - parlab.pi in C++, or the same Philox in
// pure Python, NumPy, Numba, CuPy or PyTorch (embed/workloads/*.py) - so validate() demands the
// canonical count pi_hits_points(seed, 0, N) exactly, besides Random123's 3-sigma pi_check.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/workload.hpp"

namespace parlab::embed {

enum class PyRunner {
  pure_threads,          // pure-Python pi in a ThreadPoolExecutor, every thread calling one module
  pure_private,          // the same, each thread with its own copy of the module (code, constants)
  parlab_gil_held,       // parlab.pi from Python threads, GIL held during each call
  parlab_gil_released,   // parlab.pi from Python threads, GIL released around the C++ loop
  parlab_call_overhead,  // parlab.pi(2, ...) per call: the per-call cost
  subinterpreters,       // pure-Python pi, one sub-interpreter with its own GIL per C++ thread
  free_threaded,         // pure-Python pi in threads on a free-threaded CPython
  numpy,
  numpy_threads,
  numba_prange,
  numba_nogil,
  cupy,
  torch,
};

struct PyBackendSpec {
  PyRunner runner;
  const char* name;         // the registry name, "py-parlab-gil-released"
  const char* driver_kind;  // parlab_driver.make()'s kind; empty for sub-interpreters
  const char* detail;       // what it measures, for `parlab list`
  bool one_thread;          // exactly one host thread (vectorised or GPU library backends)
  bool in_default_set;
  // Where its kernels run: the GPU for CuPy and PyTorch (parlab_torch.py refuses to run without a
  // CUDA device, so it never falls back to the CPU), the CPU for every other.
  Processor processor = Processor::cpu;
};

// Every Python backend, in display order.
const std::vector<PyBackendSpec>& python_backend_specs();

// Why `spec` can never run in this build (compile-time and libpython facts only; nothing is
// imported), or empty. Library backends' importability is only known once the interpreter runs, so a
// missing NumPy shows up as UnavailableError from make_python_pi_workload instead.
std::string python_backend_unavailable_reason(const PyBackendSpec& spec);

// Whether its runner imports a library (NumPy, Numba, CuPy, PyTorch) that may be missing: only
// the interpreter can tell, so its registry entry carries a probe (python_library_probe).
bool python_backend_imports_library(const PyBackendSpec& spec) noexcept;

// How much of the threads' time went to waiting for the GIL, summed over every run so far.
struct GilContention {
  bool measured = false;  // false for one-thread library backends: nothing to contend with
  int threads = 0;
  double wall_s = 0;       // sum over threads of the wall time of their part of each run
  double cpu_s = 0;        // CPU time the same threads used meanwhile
  double reacquire_s = 0;  // time spent inside PyEval_RestoreThread after parlab released it
  // The GIL at run time (sys._is_gil_enabled()): false on a free-threaded build running without
  // it, where off-CPU time is no GIL wait and parlab's "release" releases nothing.
  bool gil_enabled = true;
  // Each thread runs in a sub-interpreter with a GIL of its own (PEP 684): no thread waits for
  // another's GIL, so off-CPU time is preemption or locks, as without a GIL.
  bool own_gil = false;
  // The GIL-contention figure: the share of the threads' wall time they spent off the CPU.
  // These loops never block on anything but the GIL, so off-CPU time is GIL waiting (plus any
  // time the OS preempted them: more threads than free cores inflates it).
  // Each thread reads its CPU clock inside its wall-clock interval (parlab_team.py), so CPU time
  // exceeds wall time only by the two clocks' accounting (a few microseconds per part, which
  // counts when parts are that short); the share is clamped to [0, 1] then, and describe() says so.
  double wait_share() const { return wall_s > 0 ? std::clamp(1.0 - cpu_s / wall_s, 0.0, 1.0) : 0.0; }
  // The record's metrics.gil_wait_share: the off-CPU share where the threads share one GIL, 0
  // where there is none to wait for (no GIL at run time, or one GIL per thread).
  double gil_wait_share() const { return gil_enabled && !own_gil ? wait_share() : 0.0; }

  // Measured directly on the C++ side for the parlab.pi variants: the share of the threads' wall
  // time spent inside PyEval_RestoreThread after parlab released the GIL. It includes the call's
  // own cost (on the CPU), so with tiny calls it can exceed wait_share(); with the GIL held it is
  // zero, since parlab never releases it then.
  double reacquire_share() const { return wall_s > 0 ? std::clamp(reacquire_s / wall_s, 0.0, 1.0) : 0.0; }
  std::string describe() const;
};

class PythonPiWorkload : public Workload {
 public:
  virtual GilContention gil_contention() = 0;
};

// Whether `spec`'s pi workload accounts its workers (core/worker_ledger.hpp; docs/records.md,
// "Workers"): the backends whose work runs on threads of this process that it starts itself, one
// worker per thread. Python teams (parlab_team.py) declare each thread's index with
// parlab.set_worker; a chunk is a parlab.pi call (the kernel only, the GIL's wait outside it), a
// pure-Python block (parlab.accounted) or a NumPy or Numba thread's part; the sub-interpreters'
// C++ threads account each block themselves. Not the one-thread library backends, nor Numba's
// prange, whose threads are Numba's.
bool python_backend_accounts_workers(const PyBackendSpec& spec) noexcept;

// Whether `spec` also runs STREAM triad (the CPU library backends NumPy and Numba prange, for
// the libraries table beside parlab's own triad).
bool python_backend_runs_triad(const PyBackendSpec& spec) noexcept;

// Points a thread of `spec` takes at a time (parlab.pi calls, pure-Python and sub-interpreter
// blocks), or 0 when the points are split evenly over the threads. It must equal what the Python
// side uses (parlab_threads.CALL_SAMPLES and PURE_BLOCK), which test_python_backends.cpp checks.
std::uint64_t python_backend_work_unit(const PyBackendSpec& spec) noexcept;

// Throws UsageError unless the problem suits the backend (kernel "pi", or "triad" in float or
// double where python_backend_runs_triad; one thread for one-thread library backends).
void check_python_problem(const PyBackendSpec& spec, const Problem& p);

// Makes the workload in the running interpreter (the runners and their threads are set up here,
// outside the timed region). Throws UsageError (see above), UnavailableError (a library not
// importable, no GPU, no per-interpreter GIL) or FailureError/PythonError.
// PRECONDITION: an Interpreter is running, and outlives the workload.
std::unique_ptr<PythonPiWorkload> make_python_pi_workload(const PyBackendSpec& spec, const Problem& p);

// STREAM triad by a Python library backend (parlab_driver.make_triad): the arrays live in NumPy, and
// validate() checks them against BabelStream's gold values with the same code as every other
// backend's triad. Same preconditions and errors as make_python_pi_workload.
std::unique_ptr<Workload> make_python_triad_workload(const PyBackendSpec& spec, const Problem& p);

}  // namespace parlab::embed
