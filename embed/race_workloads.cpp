#include "embed/race_workloads.hpp"

#include <algorithm>
#include <memory>

#include "embed/driver_runner.hpp"
#include "embed/interpreter.hpp"

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
    PyRef args = PyRef::steal_or_throw(
        Py_BuildValue("(sKi)", kernel_.c_str(), static_cast<unsigned long long>(n_), p.threads), kernel_);
    runner_ = std::make_unique<DriverRunner>(kernel_, "make_race", std::move(args));
    PyRef exact = runner_->call("exact");
    const double exact_value = PyLong_AsDouble(exact.get());
    if (PyErr_Occurred()) throw_python_error(kernel_ + ": exact() must return an integer");
    trials_.set_exact(exact_value);
  }

  void run() override {
    GilAcquire gil;
    PyRef r = runner_->call("run");
    const double v = PyLong_AsDouble(r.get());
    if (PyErr_Occurred()) throw_python_error(kernel_ + ": run() must return an integer");
    trials_.record(v);
  }

  Validation validate() override { return trials_.validate(racy_); }

  WorkCount work() const override { return samples_work(n_); }

 private:
  std::string kernel_;
  std::uint64_t n_;
  bool racy_ = true;
  std::unique_ptr<DriverRunner> runner_;  // its destructor takes the GIL: never destroy it holding one
  RaceTrials trials_;
};

}  // namespace

std::unique_ptr<Workload> make_python_race_workload(const Problem& p) {
  return std::make_unique<PythonRaceWorkload>(p);
}

}  // namespace parlab::embed
