#include "embed/own_kernel_workloads.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <utility>

#include "core/error.hpp"
#include "core/executor.hpp"
#include "core/file_kernel.hpp"
#include "core/worker_ledger.hpp"
#include "embed/backends.hpp"
#include "embed/driver_runner.hpp"
#include "embed/interpreter.hpp"
#include "embed/kernel_workloads.hpp"
#include "embed/module.hpp"
#include "embed/sources.hpp"
#include "embed/subinterpreter_team.hpp"

namespace parlab::embed {
namespace {

std::vector<OwnKernel>& registered() {
  static std::vector<OwnKernel>* k = new std::vector<OwnKernel>;  // leaked: read from any thread until exit
  return *k;
}

std::string number(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string floats(const std::vector<double>& v) {
  if (v.size() == 1) return number(v[0]);
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number(v[i]);
  return s + ")";
}

// A tuple or list of floats from Python. PRECONDITION: the GIL is held.
std::vector<double> float_list(PyObject* seq, const std::string& context) {
  PyRef fast = PyRef::steal_or_throw(PySequence_Fast(seq, "expected a sequence of floats"), context);
  std::vector<double> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    out.push_back(PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast.get(), i)));
    if (PyErr_Occurred()) throw_python_error(context);
  }
  return out;
}

double dict_number(PyObject* dict, const char* key) {
  PyObject* v = PyDict_GetItemString(dict, key);  // borrowed
  if (v == nullptr) return 0;
  const double x = PyFloat_AsDouble(v);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return 0;
  }
  return x;
}

// The kernel's own fault (parlab_ownkernel.KernelError) says what and where without a
// traceback of parlab's runner around it; any other Python error keeps its traceback.
[[noreturn]] void rethrow_kernel_error(const PythonError& e, const std::string& context) {
  if (e.type_name() == "KernelError") throw FailureError(context + ": " + e.message());
  throw e;
}

struct ChunkRange {
  std::uint64_t lo, hi;
};

// Kernel.ranges(n) as C++ values: the list of (lo, hi). PRECONDITION: the GIL is held.
std::vector<ChunkRange> chunk_ranges(PyObject* list, const std::string& context) {
  PyRef fast = PyRef::steal_or_throw(PySequence_Fast(list, "chunk_ranges() must return a list"), context);
  std::vector<ChunkRange> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    unsigned long long lo = 0, hi = 0;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast.get(), i), "KK", &lo, &hi)) throw_python_error(context);
    out.push_back({lo, hi});
  }
  return out;
}

// An error in a sub-interpreter as the run's: the kernel's own fault (KernelError) with its
// message and line, a C extension the interpreter refuses (NotInSubinterpreters) as the reason
// the backend cannot run the file; anything else keeps its traceback.
[[noreturn]] void throw_subinterp_error(const PythonError& e) {
  if (e.type_name() == "KernelError") throw FailureError(e.message());
  if (e.type_name() == "NotInSubinterpreters") throw UnavailableError(e.message());
  throw e;
}

// A file kernel's chunks in sub-interpreters: each worker of the team loads the file in its own
// interpreter (parlab_ownkernel.sub_kernel, refused when it is no longer the checked file) and
// takes chunk indices from one atomic counter; each chunk is one accounted chunk of its worker,
// and its checked partial comes back as pickle bytes at its index (no object crosses
// interpreters).
class SubinterpFileChunks {
 public:
  SubinterpFileChunks(const std::string& backend, const OwnKernel& k, std::uint64_t seed,
                const std::vector<ChunkRange>& ranges, WorkerLedger& ledger, int workers)
      : kernel_(k),
        seed_(seed),
        ranges_(ranges),
        ledger_(ledger),
        partials_(ranges.size()),
        team_(backend, static_cast<std::size_t>(workers), [this](std::size_t) { return setup(); }) {}

  // One run: every chunk's partial, in index order. Throws the first chunk's failure.
  std::vector<std::string> run() {
    next_.store(0, std::memory_order_relaxed);  // published to the workers by the team's run()
    team_.run();
    return partials_;  // each written by one worker before team_.run() returned
  }

  double wall_s() const { return team_.wall_s(); }
  double cpu_s() const { return team_.cpu_s(); }

 private:
  // In the worker's interpreter: the kernel loaded there and sub_chunk, held by the job.
  SubinterpreterTeam::Job setup() {
    try {
      PyRef module = PyRef::steal_or_throw(import_workload_module("parlab_ownkernel"), kernel_.path);
      PyRef kernel = PyRef::steal_or_throw(PyObject_CallMethod(module.get(), "sub_kernel", "sss", kernel_.path.c_str(),
                                                               kernel_.function.c_str(), kernel_.sha256.c_str()),
                                           kernel_.path);
      PyRef chunk = PyRef::steal_or_throw(PyObject_GetAttrString(module.get(), "sub_chunk"), kernel_.path);
      // std::function is copyable, PyRef is not: the job shares them.
      auto held = std::make_shared<std::pair<PyRef, PyRef>>(std::move(kernel), std::move(chunk));
      return [this, held] { take_chunks(held->first.get(), held->second.get()); };
    } catch (const PythonError& e) {
      throw_subinterp_error(e);
    }
  }

  void take_chunks(PyObject* kernel, PyObject* chunk) {
    for (;;) {
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= ranges_.size()) return;
      const ChunkRange r = ranges_[i];
      const WorkerLedger::Chunk accounted = ledger_.begin_chunk();
      PyObject* p =
          PyObject_CallFunction(chunk, "OKKK", kernel, static_cast<unsigned long long>(r.lo),
                                static_cast<unsigned long long>(r.hi), static_cast<unsigned long long>(seed_));
      ledger_.end_chunk(accounted, r.hi - r.lo);
      if (p == nullptr || !PyBytes_Check(p)) {
        Py_XDECREF(p);
        next_.store(ranges_.size(), std::memory_order_relaxed);  // the others stop taking chunks
        if (!PyErr_Occurred()) throw FailureError(kernel_.path + ": sub_chunk returned no bytes");
        throw_subinterp_error(fetch_python_error(kernel_.path));
      }
      partials_[i].assign(PyBytes_AS_STRING(p), static_cast<std::size_t>(PyBytes_GET_SIZE(p)));
      Py_DECREF(p);
    }
  }

  const OwnKernel kernel_;
  const std::uint64_t seed_;
  const std::vector<ChunkRange>& ranges_;  // the workload's, which outlives this team
  WorkerLedger& ledger_;
  std::vector<std::string> partials_;
  alignas(64) std::atomic<std::size_t> next_{0};  // the next chunk's index
  SubinterpreterTeam team_;  // last: its threads stop before the members they use go
};

// One backend's runs of a file kernel: parlab_driver.make_own() builds the runner (loading the
// module); run() is one combined result; validate() compares every run's result with the
// one-worker result (computed after the timed runs) and says how they spread.
class OwnKernelWorkload final : public Workload {
 public:
  OwnKernelWorkload(const std::string& backend, const std::string& kind, const OwnKernel& k, const Problem& p)
      : name_(backend + " " + k.path),
        kind_(kind),
        size_(p.size),
        threads_(p.threads),
        ledger_(kind == "threads" || kind == "thread-pool" || kind == "subinterp"
                    ? std::make_unique<WorkerLedger>(p.threads)
                    : nullptr) {
    make_runner(backend, k, p);
    // The team is made with no GIL held: making an interpreter stops the world on a
    // free-threaded build, which a thread attached to the main interpreter would block.
    if (kind_ == "subinterp") {
      team_ = std::make_unique<SubinterpFileChunks>(backend, k, p.seed, ranges_, *ledger_, p.threads);
    }
  }

  void run() override {
    const AccountingLedger installed(ledger_.get());
    if (team_) {
      const std::vector<std::string> partials = team_->run();  // no GIL held: the workers' own run
      GilAcquire gil;
      finish(partials);
      return;
    }
    GilAcquire gil;
    try {
      PyRef r = runner_->call("run");
      last_ = float_list(r.get(), name_ + ": run()");
    } catch (const PythonError& e) {
      rethrow_kernel_error(e, runner_->context());
    }
  }

  WorkerLedger* worker_ledger() override { return ledger_.get(); }

  Validation validate() override {
    if (last_.empty() && size_ > 0) return Validation::never_ran();
    GilAcquire gil;
    PyRef verdict;
    PyRef stats;
    try {
      verdict = runner_->call("verdict");
      stats = runner_->call("stats");
    } catch (const PythonError& e) {
      rethrow_kernel_error(e, runner_->context());
    }
    PyObject* v = verdict.get();
    const double runs = dict_number(v, "runs"), differing = dict_number(v, "differing");
    const double distinct = dict_number(v, "distinct"), lo = dict_number(v, "min"), hi = dict_number(v, "max");
    const double tolerance = dict_number(v, "tolerance");
    const std::vector<double> reference = float_list(PyDict_GetItemString(v, "reference"), name_ + ": verdict");
    const std::vector<double> odd = float_list(PyDict_GetItemString(v, "differs"), name_ + ": verdict");
    Validation out;
    out.checksum = last_.empty() ? 0.0 : last_.front();
    // A result that is not finite (the kernel's NaN) stays in the detail: JSON has no NaN.
    if (!std::isfinite(out.checksum)) out.checksum = 0;
    const auto add = [&out](const char* key, double x) {
      if (std::isfinite(x)) out.metrics.emplace_back(key, x);
    };
    if (!last_.empty()) add("result", last_.front());
    add("result_runs", runs);
    add("result_runs_differing", differing);
    add("result_distinct", distinct);
    add("result_min", lo);
    add("result_max", hi);
    const std::string against = tolerance > 0 ? "within the kernel's TOLERANCE " + number(tolerance) + " (relative)"
                                              : "bit for bit";
    if (differing == 0) {
      out.pass = true;
      out.detail = "every run's result " + floats(reference) + " equals the one-worker result " + against + " (" +
                   number(runs) + " runs)";
    } else {
      out.pass = false;
      out.detail = "the result is not the one-worker result " + floats(reference) + " " + against + ": " +
                   number(differing) + " of " + number(runs) + " runs differ (" + floats(odd) + ", ...); " +
                   number(distinct) + " distinct results, the first value spread over [" + number(lo) + ", " +
                   number(hi) + "]" +
                   (distinct > 1 ? ": the kernel races (shared state written by concurrent chunks?)"
                                 : ": the result depends on the executor (state shared between chunks, or a "
                                   "combine that depends on the schedule)");
    }
    add_stats(stats.get(), out);
    return out;
  }

  WorkCount work() const override {
    WorkCount w = samples_work(size_);
    if (declared_) {
      w.bytes = bytes_per_item_ * static_cast<double>(size_);
      w.flops = flops_per_item_ * static_cast<double>(size_);
    }
    return w;
  }

 private:
  // parlab_driver.make_own() builds the runner, loading the module in this interpreter; for the
  // sub-interpreters, the chunks' ranges are taken from it as C++ values.
  void make_runner(const std::string& backend, const OwnKernel& k, const Problem& p) {
    GilAcquire gil;
    PyRef args = PyRef::steal_or_throw(
        Py_BuildValue("(ssssKKi)", kind_.c_str(), k.path.c_str(), k.function.c_str(), k.sha256.c_str(),
                      static_cast<unsigned long long>(p.seed), static_cast<unsigned long long>(p.size), p.threads),
        name_);
    try {
      runner_ = std::make_unique<DriverRunner>(backend, "make_own", std::move(args));
      PyRef declared = runner_->call("declared");
      if (declared.get() != Py_None) {
        const std::vector<double> w = float_list(declared.get(), name_ + ": WORK");
        if (w.size() == 2) {
          declared_ = true;
          bytes_per_item_ = w[0];
          flops_per_item_ = w[1];
        }
      }
      if (kind_ == "subinterp") ranges_ = chunk_ranges(runner_->call("chunk_ranges").get(), name_);
    } catch (const PythonError& e) {
      rethrow_kernel_error(e, backend);
    }
  }

  // The sub-interpreters' partials (pickle bytes, in index order) loaded back and combined here,
  // in the main interpreter, as every other runner combines. PRECONDITION: the GIL is held.
  void finish(const std::vector<std::string>& partials) {
    try {
      PyRef blobs = PyRef::steal_or_throw(PyList_New(static_cast<Py_ssize_t>(partials.size())), name_);
      for (std::size_t i = 0; i < partials.size(); ++i) {
        PyObject* b = PyBytes_FromStringAndSize(partials[i].data(), static_cast<Py_ssize_t>(partials[i].size()));
        if (b == nullptr) throw_python_error(name_);
        PyList_SET_ITEM(blobs.get(), static_cast<Py_ssize_t>(i), b);  // steals b
      }
      PyRef r = runner_->call("finish", blobs.get());
      last_ = float_list(r.get(), name_ + ": finish()");
    } catch (const PythonError& e) {
      rethrow_kernel_error(e, runner_->context());
    }
  }

  // What the executor measured besides time: the threads' GIL wait (the share of their wall time
  // off the CPU, as parlab's own Python teams report it), or the task models' overhead.
  void add_stats(PyObject* stats, Validation& out) const {
    if (stats == nullptr || !PyDict_Check(stats)) return;
    if (kind_ == "threads" || team_) {
      GilContention g;
      g.threads = threads_;
      g.gil_enabled = gil_enabled_now();
      g.own_gil = team_ != nullptr;
      // The sub-interpreters' time is the C++ team's; the Python threads' their team's stats.
      g.wall_s = team_ ? team_->wall_s() : dict_number(stats, "wall_ns") * 1e-9;
      g.cpu_s = team_ ? team_->cpu_s() : dict_number(stats, "cpu_ns") * 1e-9;
      g.measured = g.wall_s > 0;
      if (!g.measured) return;
      out.detail += "; " + g.describe();
      out.metrics.emplace_back("gil_wait_share", g.gil_wait_share());
      out.metrics.emplace_back("off_cpu_share", g.wait_share());
      out.metrics.emplace_back("python_threads", static_cast<double>(g.threads));
      return;
    }
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(stats, &pos, &key, &value)) {  // borrowed references
      const char* k = PyUnicode_AsUTF8(key);
      const double x = PyFloat_AsDouble(value);
      if (k == nullptr || PyErr_Occurred()) {
        PyErr_Clear();
        continue;
      }
      if (std::isfinite(x)) out.metrics.emplace_back(k, x);
    }
  }

  std::string name_, kind_;
  std::uint64_t size_;
  int threads_;
  std::unique_ptr<WorkerLedger> ledger_;  // the threads and the thread pool: workers of this process
  // Its destructor takes the GIL: never destroyed while this thread holds it.
  std::unique_ptr<DriverRunner> runner_;
  bool declared_ = false;
  double bytes_per_item_ = 0, flops_per_item_ = 0;
  std::vector<double> last_;
  std::vector<ChunkRange> ranges_;  // the sub-interpreters' chunks (Kernel.ranges)
  // Last: its threads end (their interpreters with them) before the ledger and ranges go.
  std::unique_ptr<SubinterpFileChunks> team_;
};

}  // namespace

OwnKernel check_own_kernel(std::string_view kernel, const std::string& expected_sha256, const std::string& file) {
  const std::optional<FileKernelName> parsed = parse_file_kernel(kernel);
  if (!parsed) throw UsageError("'" + std::string(kernel) + "' names no Python kernel file (path/to/file.py[:name])");
  OwnKernel k;
  std::error_code ec;
  const std::string where = file.empty() ? parsed->path : file;
  k.path = std::filesystem::absolute(where, ec).lexically_normal().string();
  if (ec) k.path = where;
  k.function = parsed->function;
  k.name = std::string(kernel);
  shared_python_interpreter();
  GilAcquire gil;
  PyRef driver = PyRef::steal_or_throw(import_workload_module("parlab_driver"), "checking " + k.path);
  PyRef result = PyRef::steal_or_throw(
      PyObject_CallMethod(driver.get(), "check_own", "ss", k.path.c_str(), k.function.c_str()), "checking " + k.path);
  const char* why = nullptr;
  const char* sha = nullptr;
  if (!PyArg_ParseTuple(result.get(), "ss", &why, &sha)) throw_python_error("checking " + k.path);
  if (why[0] != '\0') throw UsageError(why);
  k.sha256 = sha;
  if (!expected_sha256.empty() && expected_sha256 != k.sha256) {
    throw UsageError("kernel file '" + k.path + "' was edited since the run checked it (sha256 " +
                     expected_sha256.substr(0, 12) + "... then, " + k.sha256.substr(0, 12) +
                     "... now): start a new run for the edited kernel");
  }
  return k;
}

void set_own_kernels(std::vector<OwnKernel> kernels) { registered() = std::move(kernels); }

const std::vector<OwnKernel>& own_kernels() { return registered(); }

const OwnKernel* find_own_kernel(std::string_view name) {
  for (const OwnKernel& k : registered()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string own_kernel_runner(std::string_view backend) {
  if (backend == "py-pure-threads" || backend == "py-free-threaded") return "threads";
  if (backend == "py-thread-pool") return "thread-pool";
  if (backend == "py-processes") return "processes";
  if (backend == "py-dask-delayed") return "dask-delayed";
  if (backend == "py-dask-distributed") return "dask-distributed";
  if (backend == "py-subinterp") return "subinterp";
  return {};
}

std::unique_ptr<Workload> make_own_kernel_workload(const std::string& backend, const std::string& kind,
                                                   const Problem& p) {
  const OwnKernel* k = find_own_kernel(p.kernel);
  if (k == nullptr) throw UsageError("kernel '" + p.kernel + "' is not a checked Python kernel file of this run");
  Executor::check_threads(p.threads);
  if (!Interpreter::active()) throw FailureError(backend + ": no embedded Python interpreter is running");
  return std::make_unique<OwnKernelWorkload>(backend, kind, *k, p);
}

}  // namespace parlab::embed
