#include "embed/interpreter.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "embed/module.hpp"
#include "embed/sources.hpp"

#ifndef PARLAB_PYTHON_EXECUTABLE
#define PARLAB_PYTHON_EXECUTABLE ""
#endif

namespace parlab::embed {
namespace {

// True while an Interpreter object is alive (or was left running by a destructor on another
// thread): CPython has one runtime per process.
std::atomic<bool> g_active{false};
std::atomic<int> g_starts{0};

int runtime_major() {
  return static_cast<int>((Py_Version >> 24) & 0xFF);
}
int runtime_minor() {
  return static_cast<int>((Py_Version >> 16) & 0xFF);
}

void check_status(const PyStatus& status, const char* step) {
  if (!PyStatus_Exception(status)) return;
  std::string what = std::string("cannot start CPython (") + step + ")";
  if (PyStatus_IsExit(status)) what += ": it asked to exit with code " + std::to_string(status.exitcode);
  if (status.func != nullptr) what += std::string(": ") + status.func;
  if (status.err_msg != nullptr) what += std::string(": ") + status.err_msg;
  throw FailureError(what);
}

// "3.11" from a pyvenv.cfg's `version = 3.11.2` (or `version_info = 3.12.1.final.0`).
std::string venv_major_minor(const std::filesystem::path& cfg) {
  std::ifstream in(cfg);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    auto trim = [](std::string& s) {
      const auto b = s.find_first_not_of(" \t\r");
      const auto e = s.find_last_not_of(" \t\r");
      s = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    trim(key);
    trim(value);
    if (key != "version" && key != "version_info") continue;
    const auto dot1 = value.find('.');
    if (dot1 == std::string::npos) continue;
    const auto dot2 = value.find('.', dot1 + 1);
    return value.substr(0, dot2);
  }
  return {};
}

struct ProgramChoice {
  std::string program, venv, warning;
};

// CPython derives sys.prefix (and so the standard library and site-packages) from the program
// name. An embedding program's default, a bare "python3", is looked up on PATH, where a pyenv shim
// or another installation may sit first and hand this libpython a foreign standard library. So:
//   1. an explicit program name wins;
//   2. an active virtual environment of the same X.Y: its bin/python, so CPython reads its
//      pyvenv.cfg and sets up sys.prefix and site-packages exactly as `venv/bin/python` would;
//   3. the interpreter CMake found at configure time, which matches the linked libpython.
// A virtual environment of another X.Y would load a standard library compiled for a different
// ABI into this runtime, so it is ignored with a warning instead.
ProgramChoice choose_program(const InterpreterOptions& o) {
  ProgramChoice c;
  if (!o.program_name.empty()) {
    c.program = o.program_name;
    return c;
  }
  c.program = PARLAB_PYTHON_EXECUTABLE;
  if (!o.use_environment || o.python_home) return c;
  const char* env = std::getenv("VIRTUAL_ENV");
  if (env == nullptr || *env == '\0') return c;
  const std::filesystem::path venv(env);
  std::error_code ec;
  if (!std::filesystem::exists(venv / "pyvenv.cfg", ec)) {
    c.warning = "VIRTUAL_ENV=" + venv.string() + " has no pyvenv.cfg; ignored";
    return c;
  }
  const std::string want = std::to_string(runtime_major()) + "." + std::to_string(runtime_minor());
  const std::string have = venv_major_minor(venv / "pyvenv.cfg");
  if (have != want) {
    c.warning = "VIRTUAL_ENV=" + venv.string() + " is for Python " + (have.empty() ? "?" : have) +
                " but the embedded interpreter is " + want + "; ignored";
    return c;
  }
  for (const char* name : {"python", "python3"}) {
    if (std::filesystem::exists(venv / "bin" / name, ec)) {
      c.program = (venv / "bin" / name).string();
      c.venv = venv.string();
      return c;
    }
  }
  c.warning = "VIRTUAL_ENV=" + venv.string() + " has no bin/python; ignored";
  return c;
}

// str(sys.<name>), or empty. PRECONDITION: the GIL is held.
std::string sys_string(const char* name) {
  PyObject* o = PySys_GetObject(name);  // borrowed
  if (o == nullptr || !PyUnicode_Check(o)) return {};
  const char* s = PyUnicode_AsUTF8(o);
  if (s == nullptr) {
    PyErr_Clear();
    return {};
  }
  return s;
}

// PRECONDITION: the GIL is held.
void prepend_sys_path(const std::vector<std::string>& paths) {
  PyObject* path = PySys_GetObject("path");  // borrowed
  if (path == nullptr || !PyList_Check(path)) throw FailureError("sys.path is not a list");
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) {
    PyRef item = PyRef::steal_or_throw(PyUnicode_DecodeFSDefault(it->c_str()), "sys.path entry");
    if (PyList_Insert(path, 0, item.get()) != 0) throw_python_error("cannot extend sys.path");
  }
}

std::string text_of(PyObject* o) {
  if (o == nullptr) return {};
  PyObject* s = PyObject_Str(o);
  if (s == nullptr) {
    PyErr_Clear();
    return "<unprintable>";
  }
  const char* c = PyUnicode_AsUTF8(s);
  std::string out = c != nullptr ? c : "<unprintable>";
  if (c == nullptr) PyErr_Clear();
  Py_DECREF(s);
  return out;
}

// The exception's traceback as traceback.format_exception() writes it, or empty when the
// traceback module itself fails (the message is still kept).
std::string format_traceback(PyObject* exc) {
  PyObject* tb_module = PyImport_ImportModule("traceback");
  if (tb_module == nullptr) {
    PyErr_Clear();
    return {};
  }
  PyObject* lines = PyObject_CallMethod(tb_module, "format_exception", "O", exc);
  Py_DECREF(tb_module);
  if (lines == nullptr) {
    PyErr_Clear();
    return {};
  }
  std::string out;
  PyObject* it = PyObject_GetIter(lines);
  if (it != nullptr) {
    while (PyObject* line = PyIter_Next(it)) {
      if (const char* c = PyUnicode_AsUTF8(line)) out += c;
      Py_DECREF(line);
    }
    Py_DECREF(it);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  Py_DECREF(lines);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- Interpreter
Interpreter::Interpreter(const InterpreterOptions& options) {
  bool expected = false;
  if (!g_active.compare_exchange_strong(expected, true)) {
    throw FailureError(
        "an embedded CPython interpreter is already running in this process "
        "(CPython has one runtime per process)");
  }
  bool started = false;
  try {
    if (Py_IsInitialized()) {
      throw FailureError("CPython was already initialised by another part of this process");
    }
    // Must precede start-up: the table of built-in modules is copied when CPython starts, and
    // reset when it is finalised, so each start registers the module again.
    if (PyImport_AppendInittab("parlab", &parlab_module_init) != 0) {
      throw FailureError("cannot register the built-in module 'parlab'");
    }

    PyPreConfig pre;
    if (options.use_environment) {
      PyPreConfig_InitPythonConfig(&pre);
    } else {
      PyPreConfig_InitIsolatedConfig(&pre);
    }
    // The host program owns its locale: CPython must not call setlocale() or coerce LC_CTYPE
    // (which would change how the rest of parlab formats and converts text). UTF-8 mode makes
    // file names and streams UTF-8 regardless of the locale instead.
    pre.configure_locale = 0;
    pre.coerce_c_locale = 0;
    pre.utf8_mode = 1;
#if defined(PARLAB_EMBED_ASAN)
    // CPython's advice for memory checkers (PYTHONMALLOC=malloc): with pymalloc, objects live in
    // mmap'ed arenas that LeakSanitizer does not scan, so every malloc'ed buffer they point to
    // would be reported as leaked, and ASan could not see a use of a freed object. On malloc,
    // each object is a block ASan checks and LSan can follow.
    pre.allocator = PYMEM_ALLOCATOR_MALLOC;
#endif
    check_status(Py_PreInitialize(&pre), "pre-initialisation");

    PyConfig config;
    if (options.use_environment) {
      PyConfig_InitPythonConfig(&config);  // reads PYTHONPATH, PYTHONHOME, ... at start-up
    } else {
      PyConfig_InitIsolatedConfig(&config);
    }
    struct ConfigClear {
      PyConfig* c;
      ~ConfigClear() { PyConfig_Clear(c); }
    } clear{&config};
    // SIGINT stays the host's: Ctrl-C stops parlab rather than raising KeyboardInterrupt in
    // whichever Python thread happens to run.
    config.install_signal_handlers = 0;
    config.parse_argv = 0;
    const ProgramChoice program = choose_program(options);
    if (!program.program.empty()) {
      check_status(PyConfig_SetBytesString(&config, &config.program_name, program.program.c_str()),
                   "program name");
    }
    if (options.python_home) {
      check_status(PyConfig_SetBytesString(&config, &config.home, options.python_home->c_str()),
                   "python home");
    }
    check_status(Py_InitializeFromConfig(&config), "initialisation");
    started = true;
    ++g_starts;

    if (!options.extra_paths.empty()) prepend_sys_path(options.extra_paths);
    // parlab's workload modules are importable by name from any code in this interpreter.
    install_workload_sources();
    executable_ = sys_string("executable");
    prefix_ = sys_string("prefix");
    virtual_env_ = program.venv;
    virtual_env_warning_ = program.warning;
    starter_ = std::this_thread::get_id();
    // From here on no thread holds the GIL between GilAcquire scopes (see the header).
    main_thread_state_ = PyEval_SaveThread();
  } catch (...) {
    if (started) Py_FinalizeEx();
    g_active = false;
    throw;
  }
}

Interpreter::~Interpreter() {
  if (std::this_thread::get_id() != starter_) return;  // left running: see the header
  PyEval_RestoreThread(main_thread_state_);
  // A non-zero result means flushing sys.stdout/stderr failed; nothing is left to report it to.
  (void)Py_FinalizeEx();
  g_active = false;
}

bool Interpreter::active() noexcept {
  return g_active.load();
}

int Interpreter::starts() noexcept {
  return g_starts.load();
}

// ---------------------------------------------------------------- GIL types
GilAcquire::GilAcquire() {
  if (!Py_IsInitialized()) {
    throw FailureError("GilAcquire: CPython is not initialised (no embed::Interpreter is running)");
  }
  state_ = PyGILState_Ensure();
}

GilAcquire::~GilAcquire() {
  PyGILState_Release(state_);
}

GilRelease::GilRelease(std::uint64_t* wait_ns) : saved_(nullptr), wait_ns_(wait_ns) {
  if (current_thread_state() == nullptr || !PyGILState_Check()) {
    throw FailureError("GilRelease: the calling thread does not hold the GIL");
  }
  saved_ = PyEval_SaveThread();
}

GilRelease::~GilRelease() {
  if (wait_ns_ == nullptr) {
    PyEval_RestoreThread(saved_);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  PyEval_RestoreThread(saved_);
  const auto waited = std::chrono::steady_clock::now() - t0;
  *wait_ns_ +=
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count());
}

PyThreadState* current_thread_state() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return PyThreadState_GetUnchecked();
#else
  return _PyThreadState_UncheckedGet();
#endif
}

// ---------------------------------------------------------------- errors
PythonError::PythonError(const std::string& context, std::string type_name, std::string message,
                         std::string traceback)
    : FailureError(context + ": " + type_name + (message.empty() ? "" : ": " + message) +
                   (traceback.empty() ? "" : "\n" + traceback)),
      type_name_(std::move(type_name)),
      message_(std::move(message)),
      traceback_(std::move(traceback)) {}

PythonError fetch_python_error(std::string_view context) {
  PyObject* exc = nullptr;
#if PY_VERSION_HEX >= 0x030C0000
  exc = PyErr_GetRaisedException();
#else
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value != nullptr && tb != nullptr) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  exc = value;
#endif
  if (exc == nullptr) {
    return PythonError(std::string(context), "SystemError", "no Python exception was set", "");
  }
  std::string type_name = Py_TYPE(exc)->tp_name;
  std::string message = text_of(exc);
  std::string traceback = format_traceback(exc);
  Py_DECREF(exc);
  return PythonError(std::string(context), std::move(type_name), std::move(message), std::move(traceback));
}

void throw_python_error(std::string_view context) {
  throw fetch_python_error(context);
}

// ---------------------------------------------------------------- PyRef
PyRef PyRef::steal_or_throw(PyObject* p, std::string_view context) {
  if (p == nullptr) throw_python_error(context);
  return PyRef(p);
}

PyRef& PyRef::operator=(PyRef&& o) noexcept {
  if (this != &o) {
    Py_XDECREF(p_);
    p_ = o.p_;
    o.p_ = nullptr;
  }
  return *this;
}

void PyRef::reset() noexcept {
  Py_CLEAR(p_);
}

// ---------------------------------------------------------------- context
PythonInfo python_info() {
  PythonInfo info;
  std::ostringstream v;
  v << runtime_major() << "." << runtime_minor() << "." << ((Py_Version >> 8) & 0xFF);
  const unsigned long level = (Py_Version >> 4) & 0xF;
  if (level != 0xF) {  // alpha, beta or release candidate
    v << (level == 0xA ? "a" : level == 0xB ? "b" : "rc") << (Py_Version & 0xF);
  }
  info.version = v.str();
  info.compiled_version = PY_VERSION;
#if defined(Py_GIL_DISABLED)
  info.free_threaded_build = true;
  info.gil_mode = "free-threaded";
#else
  info.gil_mode = "gil";
#endif
#if PY_VERSION_HEX >= 0x030C0000
  // Compiled with the API; the running libpython must be new enough too.
  info.per_interpreter_gil = Py_Version >= 0x030C0000;
  if (!info.per_interpreter_gil) {
    info.per_interpreter_gil_reason =
        "per-interpreter GIL needs Python >= 3.12, the running "
        "libpython is " +
        info.version;
  }
#else
  info.per_interpreter_gil_reason = "per-interpreter GIL needs Python >= 3.12, this build has " +
                                    std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);
#endif
  return info;
}

bool gil_reenabled_at_run_time() {
#if defined(Py_GIL_DISABLED)
  if (!Interpreter::active() || !Py_IsInitialized()) return false;
  GilAcquire gil;
  PyObject* sys = PyImport_ImportModule("sys");
  PyObject* r = sys != nullptr ? PyObject_CallMethod(sys, "_is_gil_enabled", nullptr) : nullptr;
  const bool enabled = r != nullptr && PyObject_IsTrue(r) == 1;
  Py_XDECREF(r);
  Py_XDECREF(sys);
  PyErr_Clear();
  return enabled;
#else
  return false;
#endif
}

bool gil_enabled_now() { return !python_info().free_threaded_build || gil_reenabled_at_run_time(); }

std::string python_context_line() {
  const PythonInfo i = python_info();
  std::string s = "CPython " + i.version;
  if (i.compiled_version != i.version) s += " (compiled against " + i.compiled_version + ")";
  s += ", GIL mode " + i.gil_mode;
  if (gil_reenabled_at_run_time()) s += " (GIL re-enabled at run time)";
  s += ", per-interpreter GIL: ";
  s += i.per_interpreter_gil ? "yes" : "no (" + i.per_interpreter_gil_reason + ")";
  return s;
}

}  // namespace parlab::embed
