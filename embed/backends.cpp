#include "embed/backends.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "core/file_kernel.hpp"
#include "core/kernel_table.hpp"
#include "embed/model_workloads.hpp"
#include "embed/race_workloads.hpp"
#include "embed/kernel_workloads.hpp"
#include "embed/sources.hpp"
#include "embed/own_kernel_workloads.hpp"

namespace parlab {
namespace {

struct SharedInterpreter {
  std::mutex mutex;
  embed::InterpreterOptions options;
  embed::Interpreter* interpreter = nullptr;  // never deleted: see backends.hpp
};

SharedInterpreter& shared() {
  // Leaked on purpose (no static destructor), like the interpreter it holds.
  static SharedInterpreter* s = new SharedInterpreter;
  return *s;
}

}  // namespace

void set_python_options(embed::InterpreterOptions options) {
  SharedInterpreter& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.interpreter != nullptr) {
    throw FailureError(
        "the embedded Python interpreter has already started; its options can "
        "only be set before the first Python workload is made");
  }
  s.options = std::move(options);
}

embed::Interpreter& shared_python_interpreter() {
  SharedInterpreter& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.interpreter == nullptr) s.interpreter = new embed::Interpreter(s.options);
  return *s.interpreter;
}

std::string python_context() {
  std::string c = embed::python_context_line();
  SharedInterpreter& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.interpreter != nullptr) {
    c += "; sys.executable " + s.interpreter->executable() + ", sys.prefix " + s.interpreter->prefix();
    if (!s.interpreter->virtual_env().empty()) c += ", virtual environment " + s.interpreter->virtual_env();
    if (!s.interpreter->virtual_env_warning().empty())
      c += "; warning: " + s.interpreter->virtual_env_warning();
  }
  return c;
}

PythonRecordFields python_record_fields() {
  const embed::PythonInfo info = embed::python_info();
  PythonRecordFields f;
  f.interpreter = info.version + (info.free_threaded_build ? " free-threaded" : "");
  f.python_build = info.gil_mode;
  f.gil_enabled = embed::gil_enabled_now();
  return f;
}

namespace {

// A catalogue kernel's embedded-Python maker, and which Python backends implement it.
struct PythonRow {
  std::unique_ptr<Workload> (*make)(const embed::PyBackendSpec&, const Problem&);
  bool (*runs)(const embed::PyBackendSpec&) noexcept;
};

// The embedded-Python wing's table: pi on every Python backend, triad on the CPU library backends whose spec
// says so (NumPy, Numba prange). The wing's own kernels (the race lab's py_count_*) are not in
// the catalogue and live in race_workloads.cpp.
const KernelTable<PythonRow>& python_kernel_table() {
  static const KernelTable<PythonRow> table = [] {
    KernelTable<PythonRow> t;
    t.kernel("pi", {[](const embed::PyBackendSpec& spec, const Problem& p) -> std::unique_ptr<Workload> {
                      return embed::make_python_pi_workload(spec, p);
                    },
                    [](const embed::PyBackendSpec&) noexcept { return true; }})
        .kernel("triad", {embed::make_python_triad_workload, embed::python_backend_runs_triad});
    return t;
  }();
  return table;
}

}  // namespace

std::function<std::string()> python_library_probe(const char* kind) {
  return [kind]() -> std::string {
    try {
      shared_python_interpreter();
      embed::GilAcquire gil;
      const std::string context = std::string("probing the Python runner '") + kind + "'";
      embed::PyRef driver = embed::PyRef::steal_or_throw(embed::import_workload_module("parlab_driver"), context);
      embed::PyRef why = embed::PyRef::steal_or_throw(PyObject_CallMethod(driver.get(), "probe", "s", kind), context);
      const char* text = PyUnicode_AsUTF8(why.get());
      if (text == nullptr) embed::throw_python_error(context + ": probe() must return text");
      return text;
    } catch (const Error&) {
      // An interpreter that cannot start, or a probe that fails, is the run's failure to report
      // (an error record, exit 1), not a reason to call the backend absent.
      return {};
    }
  };
}

embed::OwnKernel register_own_kernel(std::string_view name, const std::string& expected_sha256,
                                     const std::string& file) {
  if (const embed::OwnKernel* known = embed::find_own_kernel(name)) return *known;
  embed::OwnKernel checked = embed::check_own_kernel(name, expected_sha256, file);
  std::vector<embed::OwnKernel> all = embed::own_kernels();
  all.push_back(checked);
  embed::set_own_kernels(std::move(all));
  return checked;
}

const embed::OwnKernel* registered_own_kernel(std::string_view name) { return embed::find_own_kernel(name); }

BackendEntry python_entry(const char* name, const char* detail, const std::string& runtime, Processor processor) {
  BackendEntry e;
  e.name = name;
  e.kind = BackendKind::python;
  e.processor = processor;
  e.available = true;
  e.detail = std::string(detail) + " (" + runtime + ")";
  return e;
}

void add_python_backends(Registry& registry) {
  const embed::PythonInfo info = embed::python_info();
  const std::string runtime = "CPython " + info.version + ", " + info.gil_mode;
  // The GPU library backends (CuPy, PyTorch) need the GPU the cuda backend found none of: said
  // here, once, so `parlab list`, `--dry-run` and the run agree (they were listed available and
  // then recorded unavailable). Only where parlab's own CUDA wing was built and looked: without it,
  // nothing here knows, and the run's import says.
  const std::string none = no_gpu_reason(registry);
  const std::string no_gpu = none.empty() ? std::string() : "needs a GPU: " + none;
  for (const embed::PyBackendSpec& spec : embed::python_backend_specs()) {
    std::string why = embed::python_backend_unavailable_reason(spec);
    if (why.empty() && spec.processor == Processor::gpu) why = no_gpu;
    if (!why.empty()) {
      registry.add_unavailable(spec.name, BackendKind::python, why);
      continue;
    }
    BackendEntry e = python_entry(spec.name, spec.detail, runtime, spec.processor);
    e.in_default_set = spec.in_default_set;
    e.sweeps_threads = !spec.one_thread;
    e.work_unit = embed::python_backend_work_unit(spec);
    e.kernels = python_kernel_table().names([&spec](const PythonRow& r) { return r.runs(spec); });
    if (embed::python_backend_imports_library(spec)) e.probe = python_library_probe(spec.driver_kind);
    // A person's kernel files (`-k path/to/file.py`) on the backends that run them: threads, with
    // the GIL or without it, the thread pool, processes, Dask and sub-interpreters.
    const std::string own_kind = embed::own_kernel_runner(spec.name);
    const bool own = !own_kind.empty();
    if (own) {
      for (const embed::OwnKernel& k : embed::own_kernels()) e.kernels.push_back(k.name);
    }
    e.make = [&spec, own, own_kind](const Problem& p) -> std::unique_ptr<Workload> {
      if (own && is_file_kernel(p.kernel)) {
        shared_python_interpreter();
        if (spec.runner == embed::PyRunner::free_threaded && embed::gil_reenabled_at_run_time()) {
          throw UnavailableError(std::string(spec.name) +
                                 ": the GIL was re-enabled at run time (PYTHON_GIL=1, or an extension module "
                                 "without Py_mod_gil was imported)");
        }
        return embed::make_own_kernel_workload(spec.name, own_kind, p);
      }
      embed::check_python_problem(spec, p);  // usage errors before the interpreter starts
      shared_python_interpreter();
      return python_kernel_table().at(p.kernel, spec.name).make(spec, p);
    };
    registry.add(std::move(e));
  }
  // The race lab's Python half: lost updates from Python threads (embed/race_workloads.hpp).
  BackendEntry race;
  race.name = "py-threads-race";
  race.kind = BackendKind::python;
  race.processor = Processor::cpu;
  race.available = true;
  race.detail = "Python threads racing on a shared object / NumPy array (race lab) (" + runtime + ")";
  race.in_default_set = false;  // only suites that name it: its kernels are not canonical
  race.kernels = embed::python_race_kernels();
  race.own_family = "race";  // the Python race lab (py_count_*): not in the catalogue
  race.make = [](const Problem& p) -> std::unique_ptr<Workload> {
    shared_python_interpreter();
    return embed::make_python_race_workload(p);
  };
  registry.add(std::move(race));
  // Processes and Dask: the task-based ways around the GIL (embed/model_workloads.hpp).
  embed::add_python_models_backends(registry, runtime);
}

}  // namespace parlab
