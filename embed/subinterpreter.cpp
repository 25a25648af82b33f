#include "embed/subinterpreter.hpp"

namespace parlab::embed {

std::mutex& SubInterpreter::lifecycle_mutex() {
  static std::mutex m;
  return m;
}

SubInterpreter::SubInterpreter() {
  const PythonInfo info = python_info();
  if (!info.per_interpreter_gil) throw UnavailableError(info.per_interpreter_gil_reason);
  if (!Py_IsInitialized()) {
    throw FailureError("SubInterpreter: CPython is not initialised (no embed::Interpreter is running)");
  }
  if (current_thread_state() != nullptr) {
    throw FailureError(
        "SubInterpreter: the calling thread already has a Python thread state; "
        "create sub-interpreters on threads that are not in Python");
  }
#if PY_VERSION_HEX >= 0x030C0000
  // CPython's isolated configuration (_PyInterpreterConfig_INIT): what a per-interpreter GIL
  // requires (own obmalloc, multi-phase extension modules only), plus no fork/exec from inside.
  PyInterpreterConfig config{};
  config.use_main_obmalloc = 0;
  config.allow_fork = 0;
  config.allow_exec = 0;
  config.allow_threads = 1;
  config.allow_daemon_threads = 0;
  config.check_multi_interp_extensions = 1;
  config.gil = PyInterpreterConfig_OWN_GIL;
  std::lock_guard<std::mutex> lock(lifecycle_mutex());
  // With no current thread state CPython copies the main interpreter's PyConfig, creates the
  // new GIL and returns holding it, with the new thread state current.
  const PyStatus status = Py_NewInterpreterFromConfig(&tstate_, &config);
  if (PyStatus_Exception(status) || tstate_ == nullptr) {
    std::string what = "cannot create a sub-interpreter";
    if (status.func != nullptr) what += std::string(": ") + status.func;
    if (status.err_msg != nullptr) what += std::string(": ") + status.err_msg;
    throw FailureError(what);
  }
#endif
}

SubInterpreter::~SubInterpreter() {
#if PY_VERSION_HEX >= 0x030C0000
  if (tstate_ == nullptr) return;
  // Wait for the lock detached from Python: on a free-threaded build, creating or ending an
  // interpreter stops the world (every attached thread state of every interpreter must detach
  // first), so a thread waiting here attached would deadlock whichever thread holds the lock.
  PyThreadState* self = PyEval_SaveThread();  // tstate_, current by the precondition
  std::lock_guard<std::mutex> lock(lifecycle_mutex());
  PyEval_RestoreThread(self);
  Py_EndInterpreter(tstate_);
#endif
}

}  // namespace parlab::embed
