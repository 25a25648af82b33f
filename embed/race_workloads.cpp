#include "embed/race_workloads.hpp"

#include <algorithm>

#include "embed/interpreter.hpp"
#include "embed/sources.hpp"

namespace parlab::embed {

const std::vector<std::string>& python_race_kernels() {
  static const std::vector<std::string> k = {"py_count_racy", "py_count_racy_call", "py_count_locked",
                                             "py_numpy_add_racy"};
  return k;
}

namespace {

class PythonRaceWorkload final : public Workload {
 public:
  explicit PythonRaceWorkload(const Problem& p) : kernel_(p.kernel), n_(p.size) {
    const auto& kernels = python_race_kernels();
    if (std::find(kernels.begin(), kernels.end(), kernel_) == kernels.end()) {
      throw UsageError("backend 'py-threads-race' does not run kernel '" + kernel_ + "'");
    }
    racy_ = kernel_ != "py_count_locked";
    GilAcquire gil;
    PyRef driver = PyRef::steal_or_throw(import_workload_module("parlab_driver"), kernel_);
    PyRef unavailable = PyRef::steal_or_throw(PyObject_GetAttrString(driver.get(), "Unavailable"), kernel_);
    PyObject* runner = PyObject_CallMethod(driver.get(), "make_race", "sKi", kernel_.c_str(),
                                           static_cast<unsigned long long>(n_), p.threads);
    if (runner == nullptr) {
      if (PyErr_ExceptionMatches(unavailable.get()) || PyErr_ExceptionMatches(PyExc_ImportError)) {
        throw UnavailableError(fetch_python_error(kernel_).message());
      }
      throw_python_error(kernel_ + ": making the Python runner");
    }
    runner_ = PyRef::steal(runner);
    PyRef exact = PyRef::steal_or_throw(PyObject_CallMethod(runner_.get(), "exact", nullptr), kernel_);
    const double exact_value = PyLong_AsDouble(exact.get());
    if (PyErr_Occurred()) throw_python_error(kernel_ + ": exact() must return an integer");
    trials_.set_exact(exact_value);
  }

  ~PythonRaceWorkload() override {
    // Joins the runner's threads; never throws (see DriverPiWorkload).
    try {
      GilAcquire gil;
      PyObject* r = PyObject_CallMethod(runner_.get(), "close", nullptr);
      if (r == nullptr) PyErr_Clear();
      Py_XDECREF(r);
      runner_.reset();
    } catch (...) {
      (void)runner_.release();
    }
  }

  void run() override {
    GilAcquire gil;
    PyRef r = PyRef::steal_or_throw(PyObject_CallMethod(runner_.get(), "run", nullptr), kernel_ + ": run()");
    const double v = PyLong_AsDouble(r.get());
    if (PyErr_Occurred()) throw_python_error(kernel_ + ": run() must return an integer");
    trials_.record(v);
  }

  Validation validate() override { return trials_.validate(racy_); }

  WorkCount work() const override {
    WorkCount w;
    w.samples = static_cast<double>(n_);
    return w;
  }

 private:
  std::string kernel_;
  std::uint64_t n_;
  bool racy_ = true;
  PyRef runner_;
  RaceTrials trials_;
};

}  // namespace

std::unique_ptr<Workload> make_python_race_workload(const Problem& p) {
  return std::make_unique<PythonRaceWorkload>(p);
}

}  // namespace parlab::embed
