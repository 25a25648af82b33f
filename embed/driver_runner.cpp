#include "embed/driver_runner.hpp"

#include "embed/sources.hpp"

namespace parlab::embed {

DriverRunner::DriverRunner(std::string context, const char* factory, PyRef args) : context_(std::move(context)) {
  PyRef driver = PyRef::steal_or_throw(import_workload_module("parlab_driver"), context_);
  PyRef unavailable = PyRef::steal_or_throw(PyObject_GetAttrString(driver.get(), "Unavailable"), context_);
  PyRef make = PyRef::steal_or_throw(PyObject_GetAttrString(driver.get(), factory), context_);
  PyObject* runner = PyObject_CallObject(make.get(), args.get());
  if (runner == nullptr) {
    // A missing library or GPU is "unavailable" (skipped, reason recorded), not a failure.
    if (PyErr_ExceptionMatches(unavailable.get()) || PyErr_ExceptionMatches(PyExc_ImportError)) {
      throw UnavailableError(fetch_python_error(context_).message());
    }
    throw_python_error(context_ + ": making the Python runner");
  }
  runner_ = PyRef::steal(runner);
}

DriverRunner::~DriverRunner() {
  try {
    GilAcquire gil;
    if (runner_) {
      PyObject* r = PyObject_CallMethod(runner_.get(), "close", nullptr);
      if (r == nullptr) PyErr_Clear();
      Py_XDECREF(r);
      runner_.reset();
    }
  } catch (...) {
    // No GIL could be taken (CPython is gone): leak the runner rather than decref it blind.
    (void)runner_.release();
  }
}

PyRef DriverRunner::call(const char* method) const {
  return PyRef::steal_or_throw(PyObject_CallMethod(runner_.get(), method, nullptr),
                               context_ + ": " + method + "()");
}

PyRef DriverRunner::call(const char* method, PyObject* arg) const {
  PyRef name = PyRef::steal_or_throw(PyUnicode_FromString(method), context_);
  return PyRef::steal_or_throw(PyObject_CallMethodOneArg(runner_.get(), name.get(), arg),
                               context_ + ": " + method + "()");
}

std::uint64_t DriverRunner::run_for_hits() const {
  GilAcquire gil;
  PyRef r = call("run");
  const unsigned long long hits = PyLong_AsUnsignedLongLong(r.get());
  if (PyErr_Occurred()) throw_python_error(context_ + ": run() must return the hit count");
  return hits;
}

std::unique_ptr<DriverRunner> make_pi_runner(const std::string& context, const char* factory, const char* kind,
                                             const Problem& p) {
  GilAcquire gil;
  PyRef args = PyRef::steal_or_throw(Py_BuildValue("(sKKii)", kind, static_cast<unsigned long long>(p.seed),
                                                   static_cast<unsigned long long>(p.size), p.threads, p.device),
                                     context);
  return std::make_unique<DriverRunner>(context, factory, std::move(args));
}

}  // namespace parlab::embed
