#include "embed/kernel_workloads.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>
#include <type_traits>

#include "core/executor.hpp"
#include "core/pi.hpp"
#include "core/stream_validation.hpp"
#include "core/stream.hpp"
#include "core/worker_ledger.hpp"
#include "embed/driver_runner.hpp"
#include "embed/interpreter.hpp"
#include "embed/module.hpp"
#include "embed/sources.hpp"
#include "embed/subinterpreter.hpp"

namespace parlab::embed {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// sys._is_gil_enabled() of the running interpreter (always true on a GIL build). Takes the GIL.
bool gil_enabled_now() { return !python_info().free_threaded_build || gil_reenabled_at_run_time(); }

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
    // Without a GIL there is nothing to wait for: the off-CPU share is preemption, not GIL wait.
    v.metrics.emplace_back("gil_wait_share", gil.gil_enabled ? gil.wait_share() : 0.0);
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
// parlab_philox.hits_points. The threads and interpreters are made here, outside the timed
// region; run() starts them and waits. Blocks are taken from one atomic counter, not split
// statically: on a shared 16-core VM a static split lost a good part of the 16-thread speedup to
// whichever core the host slowed down (the C++ `threads` backend showed the same).
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
        samples_(p.size),
        workers_(static_cast<std::size_t>(p.threads)),
        ledger_(p.threads) {
    // The block counter runs up to samples_ + threads * kBlock: keep that from wrapping.
    if (samples_ > (std::uint64_t{1} << 62)) {
      throw UsageError(name_ + ": at most 2^62 samples (pure-Python pi would take centuries anyway)");
    }
    try {
      for (std::size_t i = 0; i < workers_.size(); ++i) {
        workers_[i].thread = std::thread([this, i] { worker(i); });
      }
    } catch (const std::system_error&) {
      shut_down();
      throw FailureError(name_ + ": could not start " + std::to_string(p.threads) + " threads");
    }
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return ready_ == workers_.size(); });
    if (!error_.empty()) {
      const std::string e = error_;
      lock.unlock();
      shut_down();
      throw FailureError(name_ + ": " + e);
    }
  }

  ~SubinterpreterPiWorkload() override { shut_down(); }

  void run() override {
    {
      std::lock_guard<std::mutex> lock(m_);
      pending_ = workers_.size();
      next_.store(0, std::memory_order_relaxed);  // published to the workers by m_
      ++generation_;
    }
    work_.notify_all();
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
    if (!error_.empty()) throw FailureError(name_ + ": " + error_);
    std::uint64_t hits = 0;
    for (const auto& w : workers_) hits += w.hits;
    record_.record(hits);
  }

  Validation validate() override { return validate_with_gil(record_, seed_, samples_, gil_contention()); }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

  WorkerLedger* worker_ledger() override { return &ledger_; }

  GilContention gil_contention() override {
    std::lock_guard<std::mutex> lock(m_);
    GilContention g;
    g.measured = true;
    g.gil_enabled = gil_enabled_now();
    g.threads = static_cast<int>(workers_.size());
    g.wall_s = wall_s_;
    g.cpu_s = cpu_s_;
    return g;
  }

 private:
  struct Worker {
    std::thread thread;
    std::uint64_t hits = 0;  // written by the worker, read by run() after `done_` (under m_)
  };

  void worker(std::size_t i) {
    bool started = false;
    try {
      SubInterpreter interpreter;  // this thread now holds the new interpreter's own GIL
      PyRef fn;
      {
        PyRef module = PyRef::steal(import_workload_module("parlab_philox"));
        fn = PyRef::steal_or_throw(PyObject_GetAttrString(module.get(), "hits_points"), name_);
      }
      report_ready("");
      started = true;
      serve(i, fn.get());
      // serve() returns holding this interpreter's GIL: fn and the interpreter are released with
      // it held, as their preconditions require.
    } catch (const std::exception& e) {
      if (!started) {
        report_ready(e.what());
      } else {
        std::lock_guard<std::mutex> lock(m_);
        if (error_.empty()) error_ = e.what();
      }
    }
  }

  // Runs jobs until shut_down(). Errors in a job are recorded for run() to throw, never thrown
  // here, so every job decrements `pending_` and run() cannot wait forever.
  void serve(std::size_t i, PyObject* fn) {
    const WorkerScope worker(static_cast<int>(i));
    std::uint64_t seen = 0;
    for (;;) {
      {
        // Waiting for work holds no GIL: this interpreter's GIL is free while idle.
        GilRelease idle;
        std::unique_lock<std::mutex> lock(m_);
        work_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      std::string error;
      std::uint64_t hits = 0;
      double wall = 0, cpu = 0;
      try {
        const auto w0 = std::chrono::steady_clock::now();
        const double c0 = thread_cpu_seconds();
        for (;;) {
          const std::uint64_t b = next_.fetch_add(kBlock, std::memory_order_relaxed);
          if (b >= samples_) break;
          const std::uint64_t e = samples_ - b > kBlock ? b + kBlock : samples_;
          const WorkerLedger::Chunk chunk = ledger_.begin_chunk();
          PyObject* r = PyObject_CallFunction(fn, "KKK", static_cast<unsigned long long>(seed_),
                                              static_cast<unsigned long long>(b), static_cast<unsigned long long>(e));
          ledger_.end_chunk(chunk, e - b);
          if (r != nullptr) {
            hits += PyLong_AsUnsignedLongLong(r);
            Py_DECREF(r);
          }
          if (PyErr_Occurred()) {
            error = fetch_python_error("sub-interpreter " + std::to_string(i)).what();
            next_.store(samples_, std::memory_order_relaxed);  // the others stop taking blocks
            break;
          }
        }
        cpu = thread_cpu_seconds() - c0;
        wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      } catch (const std::exception& e) {
        error = e.what();
      }
      std::lock_guard<std::mutex> lock(m_);
      workers_[i].hits = hits;
      wall_s_ += wall;
      cpu_s_ += cpu;
      if (!error.empty() && error_.empty()) error_ = error;
      if (--pending_ == 0) done_.notify_all();
    }
  }

  // Counts a worker as started, or as failed to start.
  void report_ready(const std::string& error) {
    std::lock_guard<std::mutex> lock(m_);
    if (!error.empty() && error_.empty()) error_ = error;
    ++ready_;
    done_.notify_all();
  }

  void shut_down() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    work_.notify_all();
    for (auto& w : workers_) {
      if (w.thread.joinable()) w.thread.join();
    }
  }

  std::string name_;
  std::uint64_t seed_, samples_;
  std::vector<Worker> workers_;
  // The next block's first point; reset by run() under m_, then taken by the workers.
  alignas(64) std::atomic<std::uint64_t> next_{0};
  std::mutex m_;
  std::condition_variable work_, done_;
  std::uint64_t generation_ = 0;
  std::size_t pending_ = 0, ready_ = 0;
  bool stop_ = false;
  std::string error_;
  double wall_s_ = 0, cpu_s_ = 0;
  PiHitsTracker record_;
  WorkerLedger ledger_;  // made before the threads start (constructor), outlives them (shut_down)
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
