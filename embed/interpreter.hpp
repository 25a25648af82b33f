// The embedded CPython: the Interpreter owner, the GIL types, Python errors as one C++ exception,
// and what the results' context block records about the interpreter.
//
// GIL ownership is expressed in types, as pybind11 does (docs/design.md, "Embedded Python and the
// GIL"):
//   Interpreter  starts CPython from a PyConfig and, once started, holds no GIL: every thread,
//                the starting one included, enters Python through a GilAcquire;
//   GilAcquire   PyGILState_Ensure/Release, for any thread of the main interpreter;
//   GilRelease   PyEval_SaveThread/RestoreThread around C++ work that touches no Python object.
// On a free-threaded build (Py_GIL_DISABLED) the same calls attach and detach the thread state;
// "holds the GIL" below then reads "has an attached thread state".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "embed/python.hpp"

namespace parlab::embed {

struct InterpreterOptions {
  // Overrides PYTHONHOME and the prefix CPython derives from program_name (the CLI's
  // --python-home): the directory holding lib/pythonX.Y of the interpreter to use.
  std::optional<std::string> python_home;
  // The program name CPython derives sys.prefix from. Empty: $VIRTUAL_ENV/bin/python when a
  // virtual environment of the same X.Y is active, else the interpreter found at configure time.
  std::string program_name;
  // Honour PYTHONPATH, PYTHONHOME, PYTHONMALLOC, ... (CPython's "Python configuration"). Off gives
  // an isolated interpreter, which tests use to check that the environment is what matters.
  bool use_environment = true;
  // Prepended to sys.path after start-up.
  std::vector<std::string> extra_paths;
};

// Owns the process's CPython. Non-copyable, non-movable; at most one alive at a time (CPython has
// one runtime per process, and extension modules such as NumPy do not survive re-initialisation,
// so parlab never starts a second one once a Python workload has been made: see backends.hpp).
class Interpreter {
 public:
  // Registers the built-in `parlab` module, then starts CPython from a PyConfig honouring
  // VIRTUAL_ENV and PYTHONPATH. Returns with the GIL released (see the file comment).
  // Throws FailureError when another Interpreter is alive or CPython cannot start.
  explicit Interpreter(const InterpreterOptions& options = {});
  // Finalises CPython (Py_FinalizeEx) when called on the thread that started it; on any other
  // thread CPython's shutdown (threading._shutdown, atexit) cannot run correctly, so the
  // interpreter is left running until the process exits.
  // PRECONDITION: no thread is inside a GilAcquire; every Python thread has been joined.
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Whether an Interpreter object is alive in this process.
  static bool active() noexcept;
  // How many Interpreters this process has started. CPython keeps its computed path
  // configuration (sys.prefix, the module search path) across a stop and a new start, so the
  // environment and options only take full effect at a process's first start.
  static int starts() noexcept;

  // What sys.* said at start-up: the effective configuration, for the context block.
  const std::string& executable() const noexcept { return executable_; }
  const std::string& prefix() const noexcept { return prefix_; }
  const std::string& virtual_env() const noexcept { return virtual_env_; }  // empty: none used
  // Why an active VIRTUAL_ENV was not used (a different X.Y); empty when it was, or none is set.
  const std::string& virtual_env_warning() const noexcept { return virtual_env_warning_; }

 private:
  PyThreadState* main_thread_state_ = nullptr;  // saved by PyEval_SaveThread after start-up
  std::thread::id starter_;
  std::string executable_, prefix_, virtual_env_, virtual_env_warning_;
};

// Enters Python on the calling thread: PyGILState_Ensure on construction, PyGILState_Release on
// destruction. Re-entrant (nesting is counted by CPython), so a thread already holding the GIL
// may take one too.
class GilAcquire {
 public:
  // PRECONDITION: CPython is initialised (checked: throws FailureError otherwise), and the calling
  // thread is not running a sub-interpreter (the PyGILState API serves the main interpreter only).
  GilAcquire();
  ~GilAcquire();
  GilAcquire(const GilAcquire&) = delete;
  GilAcquire& operator=(const GilAcquire&) = delete;

 private:
  PyGILState_STATE state_;
};

// Lets other threads run Python while this one does C++ work: PyEval_SaveThread on construction,
// PyEval_RestoreThread on destruction.
class GilRelease {
 public:
  // PRECONDITION: the calling thread holds the GIL of its interpreter (checked: throws
  // FailureError otherwise). The check is PyGILState_Check() and a current thread state: once a
  // sub-interpreter exists, CPython makes PyGILState_Check() answer 1 on every thread. Until the
  // destructor runs, the thread must not touch any Python object or call the C API.
  // wait_ns, when given, accumulates the nanoseconds the destructor spent re-acquiring the GIL:
  // time this thread waited for others (the GIL-contention figure of the parlab.pi workloads).
  explicit GilRelease(std::uint64_t* wait_ns = nullptr);
  ~GilRelease();
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* saved_;
  std::uint64_t* wait_ns_;
};

// The one C++ exception a Python error becomes: a failure carrying the exception's type, message
// and the traceback as the `traceback` module formats it.
class PythonError : public FailureError {
 public:
  PythonError(const std::string& context, std::string type_name, std::string message, std::string traceback);
  const std::string& type_name() const noexcept { return type_name_; }  // "ValueError"
  const std::string& message() const noexcept { return message_; }      // str(exception)
  const std::string& traceback() const noexcept { return traceback_; }  // "Traceback (most ..."

 private:
  std::string type_name_, message_, traceback_;
};

// Takes the pending Python exception (clearing it) and throws it as a PythonError whose what()
// starts with `context`.
// PRECONDITION: the GIL is held and PyErr_Occurred() is true.
[[noreturn]] void throw_python_error(std::string_view context);

// The pending Python exception as a PythonError, cleared; for callers that must not throw.
// PRECONDITION: the GIL is held and PyErr_Occurred() is true.
PythonError fetch_python_error(std::string_view context);

// An owned (strong) reference. Null is a valid, empty value.
class PyRef {
 public:
  PyRef() = default;
  // Takes ownership of a new reference; throws the pending Python error when `p` is null.
  // PRECONDITION: the GIL is held.
  static PyRef steal_or_throw(PyObject* p, std::string_view context);
  static PyRef steal(PyObject* p) noexcept { return PyRef(p); }
  PyRef(PyRef&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  PyRef& operator=(PyRef&& o) noexcept;
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  // PRECONDITION: the GIL is held whenever the reference is non-null.
  ~PyRef() { Py_XDECREF(p_); }
  // Drops the reference now. PRECONDITION: the GIL is held.
  void reset() noexcept;
  // Gives up ownership without a decref (the object is leaked): for teardown paths where the
  // GIL cannot be taken, so decref-ing would touch an interpreter that may be gone.
  PyObject* release() noexcept {
    PyObject* p = p_;
    p_ = nullptr;
    return p;
  }
  PyObject* get() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }

 private:
  explicit PyRef(PyObject* p) noexcept : p_(p) {}
  PyObject* p_ = nullptr;
};

// What the results' context block records about Python. Needs no running interpreter: the
// versions come from the headers and from libpython's Py_Version.
struct PythonInfo {
  std::string version;                     // the running libpython, "3.12.3"
  std::string compiled_version;            // the headers parlab was compiled against (PY_VERSION)
  std::string gil_mode;                    // "gil" or "free-threaded": the build's mode
  bool free_threaded_build = false;        // Py_GIL_DISABLED
  bool per_interpreter_gil = false;        // sub-interpreters with their own GIL can be made
  std::string per_interpreter_gil_reason;  // why not, when they cannot
};
PythonInfo python_info();
// Free-threaded builds re-enable the GIL at run time for PYTHON_GIL=1, or when an extension module
// that does not declare Py_mod_gil is imported: true when the running interpreter has done so.
// False on a GIL build (nothing to re-enable) and while no Interpreter is running. Takes the GIL.
bool gil_reenabled_at_run_time();
// Whether the running interpreter has a GIL: always on a GIL build, on a free-threaded one only
// where it was re-enabled (sys._is_gil_enabled()). Takes the GIL.
bool gil_enabled_now();
// One line for the context block: "CPython 3.11.2, GIL mode gil, per-interpreter GIL: no
// (per-interpreter GIL needs Python >= 3.12, this build has 3.11)".
std::string python_context_line();

// The thread state current on the calling thread, or null; never fails (unlike PyThreadState_Get).
PyThreadState* current_thread_state() noexcept;

}  // namespace parlab::embed
