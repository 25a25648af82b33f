#include "embed/model_workloads.hpp"

#include <sstream>
#include <string_view>
#include <utility>

#include "core/executor.hpp"
#include "core/file_kernel.hpp"
#include "core/pi.hpp"
#include "core/worker_ledger.hpp"
#include "embed/driver_runner.hpp"
#include "embed/interpreter.hpp"
#include "embed/module.hpp"
#include "embed/python.hpp"
#include "embed/backends.hpp"
#include "embed/own_kernel_workloads.hpp"

namespace parlab::embed {
namespace {

// Usage errors, before any interpreter or worker starts.
void check_model_problem(const PyModelSpec& spec, const Problem& p) {
  if (p.kernel != "pi") {
    throw UsageError(std::string("backend '") + spec.name + "' runs kernel 'pi' only, got '" + p.kernel + "'");
  }
  Executor::check_threads(p.threads);
}

// A runner made by parlab_driver.make_model(): run() -> hits,
// stats() -> {name: number}, close() shuts its pool or cluster down. The thread pools account
// their workers (python_model_accounts_workers) as the Python thread teams do
// (embed/kernel_workloads.cpp): a ledger of one worker per pool thread, installed for each run.
class ModelPiWorkload final : public Workload {
 public:
  ModelPiWorkload(const PyModelSpec& spec, const Problem& p)
      : name_(spec.name),
        seed_(p.seed),
        samples_(p.size),
        ledger_(python_model_accounts_workers(spec) ? std::make_unique<WorkerLedger>(p.threads) : nullptr),
        runner_(make_pi_runner(spec.name, "make_model", spec.kind, p)) {}

  void run() override {
    const AccountingLedger installed(ledger_.get());
    hits_.record(runner_->run_for_hits());
  }

  WorkerLedger* worker_ledger() override { return ledger_.get(); }

  Validation validate() override {
    if (!hits_.ran()) return Validation::never_ran();
    Validation v = hits_.validate(samples_, "", canonical_pi_hits(seed_, samples_));
    GilAcquire gil;
    PyRef stats = runner_->call("stats");
    if (!PyDict_Check(stats.get())) throw FailureError(name_ + ": stats() must return a dict");
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(stats.get(), &pos, &key, &value)) {  // borrowed references
      const char* k = PyUnicode_AsUTF8(key);
      const double x = PyFloat_AsDouble(value);
      if (k == nullptr || PyErr_Occurred()) throw_python_error(name_ + ": stats() must map names to numbers");
      v.metrics.emplace_back(k, x);
    }
    return v;
  }

  WorkCount work() const override { return kernel_work("pi", Precision::i32, samples_); }

 private:
  std::string name_;
  std::uint64_t seed_, samples_;
  PiHitsTracker hits_;
  std::unique_ptr<WorkerLedger> ledger_;  // null for the models whose workers are not our threads
  // Its destructor takes the GIL and calls close(): never destroyed while this thread holds it.
  std::unique_ptr<DriverRunner> runner_;
};

}  // namespace

const std::vector<PyModelSpec>& python_model_specs() {
  static const std::vector<PyModelSpec> specs = {
      {"py-thread-pool", "thread-pool",
       "pure-Python pi in tasks on a ThreadPoolExecutor (the split Dask gets; GIL-bound)"},
      {"py-processes", "processes",
       "pure-Python pi in tasks on a ProcessPoolExecutor of spawned workers (a GIL each)"},
      {"py-dask-delayed", "dask-delayed", "pure-Python pi in dask.delayed tasks, threaded scheduler (GIL-bound)"},
      {"py-thread-pool-parlab", "thread-pool-parlab",
       "parlab.pi (GIL released) in tasks of 2^21 points on a ThreadPoolExecutor"},
      {"py-dask-delayed-parlab", "dask-delayed-parlab",
       "parlab.pi (GIL released) in dask.delayed tasks of 2^21 points, threaded scheduler"},
      {"py-dask-distributed", "dask-distributed",
       "pure-Python pi in tasks on a dask.distributed LocalCluster of worker processes, or the "
       "scheduler at $PARLAB_DASK_SCHEDULER"},
  };
  return specs;
}

bool python_model_accounts_workers(const PyModelSpec& spec) noexcept {
  const std::string_view kind = spec.kind;
  return kind == "thread-pool" || kind == "thread-pool-parlab";
}

std::string python_model_unavailable_reason(const PyModelSpec& spec) {
#if defined(PARLAB_EMBED_ASAN)
  if (std::string_view(spec.kind).rfind("dask", 0) == 0) {
    return "not run under AddressSanitizer: LeakSanitizer reports the objects that Dask's Cython "
           "dependencies (PyYAML's _yaml, msgpack's _cmsgpack) create at import and that "
           "dask.distributed's background threads still hold at exit, and no suppression tells "
           "them from a reference parlab forgets without suppressing CPython itself (the thread "
           "pool and the processes run here, and the Dask models in the release and TSan builds)";
  }
#else
  (void)spec;
#endif
  return {};
}

std::unique_ptr<Workload> make_python_model_workload(const PyModelSpec& spec, const Problem& p) {
  check_model_problem(spec, p);
  if (const std::string why = python_model_unavailable_reason(spec); !why.empty()) {
    throw UnavailableError(std::string(spec.name) + ": " + why);
  }
  if (!Interpreter::active()) {
    throw FailureError(std::string(spec.name) + ": no embedded Python interpreter is running");
  }
  return std::make_unique<ModelPiWorkload>(spec, p);
}

void add_python_models_backends(Registry& registry, const std::string& runtime) {
  for (const PyModelSpec& spec : python_model_specs()) {
    if (const std::string why = python_model_unavailable_reason(spec); !why.empty()) {
      registry.add_unavailable(spec.name, BackendKind::python, why);
      continue;
    }
    BackendEntry e = python_entry(spec.name, spec.detail, runtime, Processor::cpu);  // pure Python and parlab.pi on host threads
    e.in_default_set = false;
    e.kernels = {"pi"};
    // Dask is a library that may be missing; the pools and processes are the standard library's.
    if (std::string_view(spec.kind).rfind("dask", 0) == 0) e.probe = python_library_probe(spec.kind);
    // A person's kernel files (`-k path/to/file.py`) on the models whose task body is Python: not
    // the "-parlab" ones, whose body is parlab.pi.
    const std::string own_kind = own_kernel_runner(spec.name);
    if (!own_kind.empty()) {
      for (const OwnKernel& k : own_kernels()) e.kernels.push_back(k.name);
    }
    e.make = [&spec, own_kind](const Problem& p) -> std::unique_ptr<Workload> {
      if (!own_kind.empty() && is_file_kernel(p.kernel)) {
        if (const std::string why = python_model_unavailable_reason(spec); !why.empty()) {
          throw UnavailableError(std::string(spec.name) + ": " + why);
        }
        shared_python_interpreter();
        return make_own_kernel_workload(spec.name, own_kind, p);
      }
      check_model_problem(spec, p);
      shared_python_interpreter();
      return make_python_model_workload(spec, p);
    };
    registry.add(std::move(e));
  }
}

}  // namespace parlab::embed
