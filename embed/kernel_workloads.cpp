#include "embed/kernel_workloads.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/executor.hpp"
#include "core/pi.hpp"
#include "core/stream_validation.hpp"
#include "core/stream.hpp"
#include "core/worker_ledger.hpp"
#include "embed/driver_runner.hpp"
#include "embed/interpreter.hpp"
#include "embed/module.hpp"
#include "embed/sources.hpp"
#include "embed/subinterpreter_team.hpp"

namespace parlab::embed {
namespace {

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

// A pi workload's validation: the hit tracker's (repeatable, the canonical count, 3 sigma) with
// what the GIL cost beside it, in the detail and as the record's metrics.
Validation validate_with_gil(const PiHitsTracker& hits, std::uint64_t seed, std::uint64_t samples,
                             const GilContention& gil) {
  if (!hits.ran()) return Validation::never_ran();
  Validation v = hits.validate(samples, "", canonical_pi_hits(seed, samples));
  v.detail += "; " + gil.describe();
  if (gil.measured) {  // into the record's "metrics", beside the time
    // Without a shared GIL there is nothing to wait for: the off-CPU share is preemption, not GIL wait.
    v.metrics.emplace_back("gil_wait_share", gil.gil_wait_share());
    v.metrics.emplace_back("off_cpu_share", gil.wait_share());
    v.metrics.emplace_back("gil_reacquire_share", gil.reacquire_share());
    v.metrics.emplace_back("python_threads", static_cast<double>(gil.threads));
  }
  return v;
}

// ---------------------------------------------------------------- driver runners
// A runner made by parlab_driver.make(): Python threads (or a library backend) inside the main
// interpreter. run() enters Python through GilAcquire on the runner's thread; the Python side
// then waits for its worker threads with the GIL released.
//
// Where its work runs on Python threads of this process (python_backend_accounts_workers), the
// workload owns a WorkerLedger of one worker per thread and installs it in the parlab module for
// each run: the team's threads declared their worker index when the team was made
// (parlab_team.py), and every parlab.pi call or pure-Python block they run is a chunk.
class DriverPiWorkload final : public PythonPiWorkload {
 public:
  DriverPiWorkload(const PyBackendSpec& spec, const Problem& p)
      : name_(spec.name),
        seed_(p.seed),
        samples_(p.size),
        threads_(p.threads),
        ledger_(python_backend_accounts_workers(spec) ? std::make_unique<WorkerLedger>(p.threads) : nullptr),
        runner_(make_pi_runner(spec.name, "make", spec.driver_kind, p)) {}

  void run() override {
    const AccountingLedger installed(ledger_.get());
    record_.record(runner_->run_for_hits());
  }

  WorkerLedger* worker_ledger() override { return ledger_.get(); }

  Validation validate() override { return validate_with_gil(record_, seed_, samples_, gil_contention()); }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

  GilContention gil_contention() override {
    GilContention g;
    g.threads = threads_;
    g.gil_enabled = gil_enabled_now();
    GilAcquire gil;
    PyRef stats = runner_->call("stats");
    if (!PyDict_Check(stats.get()) || PyDict_Size(stats.get()) == 0) return g;  // not measured
    auto ns = [&](const char* key) {
      PyObject* v = PyDict_GetItemString(stats.get(), key);  // borrowed
      const double x = v != nullptr ? PyLong_AsDouble(v) : 0.0;
      if (PyErr_Occurred()) PyErr_Clear();
      return x * 1e-9;
    };
    g.measured = true;
    g.wall_s = ns("wall_ns");
    g.cpu_s = ns("cpu_ns");
    g.reacquire_s = ns("gil_wait_ns");
    return g;
  }

 private:
  std::string name_;
  std::uint64_t seed_, samples_;
  int threads_;
  std::unique_ptr<WorkerLedger> ledger_;  // null where the backend's work is not on Python threads
  // Its destructor takes the GIL: never destroyed while this thread holds it.
  std::unique_ptr<DriverRunner> runner_;
  PiHitsTracker record_;
};

// ---------------------------------------------------------------- sub-interpreters
// One C++ thread per sub-interpreter, each with its own GIL, counting blocks of the stream with
// parlab_philox.hits_points. The threads and interpreters are made with the workload (a
// SubinterpreterTeam), outside the timed region; run() starts them and waits. Blocks are taken
// from one atomic counter, not split statically: on a shared 16-core VM a static split lost a
// good part of the 16-thread speedup to whichever core the host slowed down (the C++ `threads`
// backend showed the same).
// Each C++ thread is worker i of the workload's WorkerLedger, and each hits_points call a chunk
// of its block's points: the same accounting as the Python teams', with no module in between.
class SubinterpreterPiWorkload final : public PythonPiWorkload {
 public:
  // Points per hits_points call: about 3 ms of pure Python (3.5e5 points/s on one core), so the
  // call and the counter cost nothing next to it, and 2^18 points make 256 blocks to balance.
  static constexpr std::uint64_t kBlock = 1024;

  SubinterpreterPiWorkload(const PyBackendSpec& spec, const Problem& p)
      : name_(spec.name),
        seed_(p.seed),
        samples_(checked_samples(spec, p.size)),
        hits_(static_cast<std::size_t>(p.threads)),
        ledger_(p.threads),
        team_(name_, static_cast<std::size_t>(p.threads), [this](std::size_t i) { return setup(i); }) {}

  void run() override {
    next_.store(0, std::memory_order_relaxed);  // published to the workers by the team's run()
    team_.run();
    std::uint64_t hits = 0;
    for (const std::uint64_t h : hits_) hits += h;  // each written by its worker before run() returned
    record_.record(hits);
  }

  Validation validate() override { return validate_with_gil(record_, seed_, samples_, gil_contention()); }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

  WorkerLedger* worker_ledger() override { return &ledger_; }

  GilContention gil_contention() override {
    GilContention g;
    g.measured = true;
    g.gil_enabled = gil_enabled_now();
    g.own_gil = true;
    g.threads = static_cast<int>(team_.size());
    g.wall_s = team_.wall_s();
    g.cpu_s = team_.cpu_s();
    return g;
  }

 private:
  // The block counter runs up to samples + threads * kBlock: keep that from wrapping.
  static std::uint64_t checked_samples(const PyBackendSpec& spec, std::uint64_t samples) {
    if (samples > (std::uint64_t{1} << 62)) {
      throw UsageError(std::string(spec.name) + ": at most 2^62 samples (pure-Python pi would take centuries anyway)");
    }
    return samples;
  }

  // Worker i's job, made in its interpreter: count blocks taken from the counter until none is
  // left. A Python error stops the others taking blocks and is the run's failure.
  SubinterpreterTeam::Job setup(std::size_t i) {
    PyRef module = PyRef::steal_or_throw(import_workload_module("parlab_philox"), name_);
    auto fn = std::make_shared<PyRef>(
        PyRef::steal_or_throw(PyObject_GetAttrString(module.get(), "hits_points"), name_));
    return [this, i, fn] {
      std::uint64_t hits = 0;
      for (;;) {
        const std::uint64_t b = next_.fetch_add(kBlock, std::memory_order_relaxed);
        if (b >= samples_) break;
        const std::uint64_t e = samples_ - b > kBlock ? b + kBlock : samples_;
        const WorkerLedger::Chunk chunk = ledger_.begin_chunk();
        PyObject* r = PyObject_CallFunction(fn->get(), "KKK", static_cast<unsigned long long>(seed_),
                                            static_cast<unsigned long long>(b), static_cast<unsigned long long>(e));
        ledger_.end_chunk(chunk, e - b);
        if (r != nullptr) {
          hits += PyLong_AsUnsignedLongLong(r);
          Py_DECREF(r);
        }
        if (PyErr_Occurred()) {
          next_.store(samples_, std::memory_order_relaxed);  // the others stop taking blocks
          throw fetch_python_error("sub-interpreter " + std::to_string(i));
        }
      }
      hits_[i] = hits;
    };
  }

  std::string name_;
  std::uint64_t seed_, samples_;
  std::vector<std::uint64_t> hits_;  // worker i's count of the last run
  // The next block's first point; reset by run(), then taken by the workers.
  alignas(64) std::atomic<std::uint64_t> next_{0};
  PiHitsTracker record_;
  WorkerLedger ledger_;  // made before the team starts, outlives its threads
  SubinterpreterTeam team_;  // last: its threads stop before the members they use go
};

}  // namespace

std::string GilContention::describe() const {
  if (!measured) return "GIL contention: not measured (one host thread, nothing to contend with)";
  std::string s;
  if (!gil_enabled) {
    // parlab.pi's held/released variants run the same on such a build: say so, not "GIL held".
    s = "no GIL at run time (free-threaded build, GIL disabled): nothing is held or released, the "
        "threads run Python in parallel; off-CPU " + percent(wait_share()) + " of " + std::to_string(threads) +
        " thread(s)' time (preemption, locks)";
  } else if (own_gil) {
    s = "a GIL per sub-interpreter, one interpreter per thread: no thread waits for another's GIL; off-CPU " +
        percent(wait_share()) + " of " + std::to_string(threads) + " thread(s)' time (preemption, locks)";
  } else {
    s = "GIL wait " + percent(wait_share()) + " of " + std::to_string(threads) +
        " thread(s)' time (off-CPU share of their wall time)";
  }
  if (wall_s > 0 && cpu_s > wall_s) {
    s += "; CPU time exceeded wall time by " + percent(cpu_s / wall_s - 1.0) +
         " (clock accounting on parts this short), the share clamped to 0";
  }
  if (reacquire_s > 0) s += "; inside parlab's GIL re-acquisition " + percent(reacquire_share());
  return s;
}

namespace {

// ---------------------------------------------------------------- library triads
// A Python library backend's STREAM triad: parlab_driver.make_triad() owns the NumPy arrays; run() is one
// triad; validate() reads the arrays through the buffer protocol and checks them with
// validate_stream, as every backend's triad is checked.
template <class T>
class DriverTriadWorkload final : public Workload {
 public:
  DriverTriadWorkload(const PyBackendSpec& spec, const Problem& p) : name_(spec.name), n_(p.size) {
    GilAcquire gil;
    PyRef args = PyRef::steal_or_throw(
        Py_BuildValue("(sKisi)", spec.driver_kind, static_cast<unsigned long long>(p.size), p.threads,
                      std::is_same_v<T, double> ? "double" : "float", p.device),
        name_);
    runner_ = std::make_unique<DriverRunner>(name_, "make_triad", std::move(args));
  }

  void run() override {
    GilAcquire gil;
    runner_->call("run");
    ++runs_;
  }

  Validation validate() override {
    GilAcquire gil;
    PyRef arrays = runner_->call("arrays");
    if (!PyTuple_Check(arrays.get()) || PyTuple_Size(arrays.get()) != 3) {
      throw FailureError(name_ + ": arrays() must return the tuple (a, b, c)");
    }
    Py_buffer views[3];
    int held = 0;
    struct Release {  // every view obtained is released, on every path
      Py_buffer* v;
      int* n;
      ~Release() {
        for (int i = 0; i < *n; ++i) PyBuffer_Release(&v[i]);
      }
    } release{views, &held};
    const char want = std::is_same_v<T, double> ? 'd' : 'f';
    for (int i = 0; i < 3; ++i) {
      if (PyObject_GetBuffer(PyTuple_GET_ITEM(arrays.get(), i), &views[i], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        throw_python_error(name_ + ": arrays() must support the buffer protocol");
      }
      ++held;
      const bool format_ok = views[i].format != nullptr && views[i].format[0] == want && views[i].format[1] == '\0';
      if (!format_ok || views[i].itemsize != static_cast<Py_ssize_t>(sizeof(T)) ||
          views[i].len != static_cast<Py_ssize_t>(n_ * sizeof(T))) {
        throw FailureError(name_ + ": array " + std::to_string(i) + " is not " + std::to_string(n_) + " contiguous " +
                           (std::is_same_v<T, double> ? "float64" : "float32") + " elements");
      }
    }
    StreamGold<T> gold;
    for (std::uint64_t r = 0; r < runs_; ++r) gold.apply(StreamKernel::triad);
    return validate_stream<T>(StreamKernel::triad, static_cast<const T*>(views[0].buf),
                              static_cast<const T*>(views[1].buf), static_cast<const T*>(views[2].buf), n_, gold,
                              runs_, DotRuns<T>{});
  }

  WorkCount work() const override { return stream_work<T>(StreamKernel::triad, n_); }

 private:
  std::string name_;
  std::uint64_t n_;
  std::uint64_t runs_ = 0;
  // Its destructor takes the GIL: never destroyed while this thread holds it.
  std::unique_ptr<DriverRunner> runner_;
};

}  // namespace

std::unique_ptr<Workload> make_python_triad_workload(const PyBackendSpec& spec, const Problem& p) {
  check_python_problem(spec, p);
  if (!python_backend_runs_triad(spec) || p.kernel != "triad") {
    throw UsageError(std::string("backend '") + spec.name + "' has no triad");
  }
  if (const std::string why = python_backend_unavailable_reason(spec); !why.empty()) {
    throw UnavailableError(std::string(spec.name) + ": " + why);
  }
  if (!Interpreter::active()) {
    throw FailureError(std::string(spec.name) + ": no embedded Python interpreter is running");
  }
  if (p.precision == Precision::f32) return std::make_unique<DriverTriadWorkload<float>>(spec, p);
  return std::make_unique<DriverTriadWorkload<double>>(spec, p);
}

const std::vector<PyBackendSpec>& python_backend_specs() {
  static const std::vector<PyBackendSpec> specs = {
      {PyRunner::pure_threads, "py-pure-threads", "pure",
       "pure-Python Philox pi in a ThreadPoolExecutor, every thread calling one module's functions "
       "(GIL-bound where there is a GIL)", false, true},
      {PyRunner::pure_private, "py-pure-private", "pure-private",
       "pure-Python Philox pi in a ThreadPoolExecutor, each thread with its own copy of the module "
       "(functions, code, constants: no object shared between threads)", false, true},
      {PyRunner::parlab_gil_held, "py-parlab-gil-held", "parlab-gil-held",
       "parlab.pi from Python threads, GIL held during each call", false, true},
      {PyRunner::parlab_gil_released, "py-parlab-gil-released", "parlab-gil-released",
       "parlab.pi from Python threads, GIL released around the C++ loop", false, true},
      {PyRunner::parlab_call_overhead, "py-parlab-call-overhead", "parlab-call-overhead",
       "parlab.pi(2, ...) per call from Python threads: seconds per call = 2 / rate", false, false},
      {PyRunner::subinterpreters, "py-subinterp", "",
       "pure-Python pi in sub-interpreters with their own GIL, one C++ thread each", false, true},
      {PyRunner::free_threaded, "py-free-threaded", "pure",
       "pure-Python pi in Python threads on a free-threaded CPython", false, true},
      {PyRunner::numpy, "py-numpy", "numpy", "NumPy vectorised Philox pi, one thread", true, true},
      {PyRunner::numpy_threads, "py-numpy-threads", "numpy-threads",
       "NumPy vectorised pi split over a ThreadPoolExecutor", false, true},
      {PyRunner::numba_prange, "py-numba-prange", "numba-prange",
       "Numba @njit(parallel=True) prange over the pairs", false, true},
      {PyRunner::numba_nogil, "py-numba-nogil", "numba-nogil",
       "Numba @njit(nogil=True) in a ThreadPoolExecutor", false, true},
      {PyRunner::cupy, "py-cupy", "cupy", "CuPy vectorised pi and ElementwiseKernel triad on a GPU (--device)", true, true, Processor::gpu},
      {PyRunner::torch, "py-torch", "torch", "PyTorch int64 pi on a GPU (--device)", true, true, Processor::gpu},
  };
  return specs;
}

std::string python_backend_unavailable_reason(const PyBackendSpec& spec) {
#if defined(PARLAB_EMBED_ASAN)
  if (std::string_view(spec.name).rfind("py-numba", 0) == 0) {
    return "not run under AddressSanitizer: with the slow unwinder the sanitizer tests use "
           "(fast_unwind_on_malloc=0), ASan's malloc re-enters libgcc's frame-table lock while "
           "Numba's LLVM JIT registers its EH frames, and the process deadlocks";
  }
#endif
  const PythonInfo info = python_info();
  if (spec.runner == PyRunner::subinterpreters && !info.per_interpreter_gil) {
    return info.per_interpreter_gil_reason;
  }
  if (spec.runner == PyRunner::free_threaded && !info.free_threaded_build) {
    return "needs a free-threaded CPython (3.13t+, Py_GIL_DISABLED); this build links CPython " +
           info.compiled_version + " with the GIL";
  }
  return {};
}

bool python_backend_imports_library(const PyBackendSpec& spec) noexcept {
  switch (spec.runner) {
    case PyRunner::numpy:
    case PyRunner::numpy_threads:
    case PyRunner::numba_prange:
    case PyRunner::numba_nogil:
    case PyRunner::cupy:
    case PyRunner::torch: return true;
    default: return false;
  }
}

bool python_backend_accounts_workers(const PyBackendSpec& spec) noexcept {
  switch (spec.runner) {
    case PyRunner::pure_threads:
    case PyRunner::pure_private:
    case PyRunner::parlab_gil_held:
    case PyRunner::parlab_gil_released:
    case PyRunner::parlab_call_overhead:
    case PyRunner::subinterpreters:
    case PyRunner::free_threaded:
    case PyRunner::numpy_threads:
    case PyRunner::numba_nogil: return true;
    // One host thread (NumPy, CuPy, PyTorch), or threads of the library's own pool (Numba's
    // prange): no Python thread of this process runs the work.
    default: return false;
  }
}

bool python_backend_runs_triad(const PyBackendSpec& spec) noexcept {
  return spec.runner == PyRunner::numpy || spec.runner == PyRunner::numba_prange || spec.runner == PyRunner::cupy;
}

std::uint64_t python_backend_work_unit(const PyBackendSpec& spec) noexcept {
  switch (spec.runner) {
    case PyRunner::parlab_gil_held:
    case PyRunner::parlab_gil_released: return std::uint64_t{1} << 21;  // parlab_threads.CALL_SAMPLES
    case PyRunner::pure_threads:
    case PyRunner::pure_private:
    case PyRunner::free_threaded: return std::uint64_t{1} << 8;  // parlab_threads.PURE_BLOCK
    case PyRunner::subinterpreters: return SubinterpreterPiWorkload::kBlock;
    default: return 0;
  }
}

void check_python_problem(const PyBackendSpec& spec, const Problem& p) {
  const bool triad = python_backend_runs_triad(spec);
  if (p.kernel != "pi" && !(triad && p.kernel == "triad")) {
    throw UsageError(std::string("backend '") + spec.name + "' runs kernel " +
                     (triad ? "'pi' or 'triad'" : "'pi' only") + ", got '" + p.kernel + "'");
  }
  if (p.kernel == "triad" && p.precision != Precision::f64 && p.precision != Precision::f32) {
    throw UsageError(std::string("backend '") + spec.name + "' runs triad in float or double");
  }
  Executor::check_threads(p.threads);
  if (spec.one_thread && p.threads != 1) {
    throw UsageError(std::string("backend '") + spec.name + "' runs on exactly 1 thread, got " +
                     std::to_string(p.threads));
  }
}

std::unique_ptr<PythonPiWorkload> make_python_pi_workload(const PyBackendSpec& spec, const Problem& p) {
  check_python_problem(spec, p);
  if (const std::string why = python_backend_unavailable_reason(spec); !why.empty()) {
    throw UnavailableError(std::string(spec.name) + ": " + why);
  }
  if (!Interpreter::active()) {
    throw FailureError(std::string(spec.name) + ": no embedded Python interpreter is running");
  }
  if (spec.runner == PyRunner::free_threaded && gil_reenabled_at_run_time()) {
    throw UnavailableError(std::string(spec.name) +
                           ": the GIL was re-enabled at run time (PYTHON_GIL=1, or an extension "
                           "module without Py_mod_gil was imported)");
  }
  if (spec.runner == PyRunner::subinterpreters) {
    return std::make_unique<SubinterpreterPiWorkload>(spec, p);
  }
  return std::make_unique<DriverPiWorkload>(spec, p);
}

}  // namespace parlab::embed
