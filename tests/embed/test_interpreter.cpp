// The Interpreter owner: start/stop, one per process, the environment it honours (PYTHONPATH,
// VIRTUAL_ENV, an isolated start), the context line; and Python errors as one C++ exception.
//
// The lifecycle cases own their interpreter, so they need a process where the shared one has
// not started; ctest runs every case in its own process, and they skip (saying why) otherwise.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "core/pi.hpp"
#include "embed_test_support.hpp"

namespace parlab {
namespace {

namespace fs = std::filesystem;
using embed::GilAcquire;
using embed::Interpreter;
using embed::InterpreterOptions;
using embed::PythonError;

#define SKIP_IF_PYTHON_RUNNING()                                                         \
  if (Interpreter::active()) {                                                           \
    GTEST_SKIP() << "an interpreter is already running in this process; this case owns " \
                    "one, so run it on its own (ctest does)";                            \
  }

// The environment cases check what CPython derives at start-up, which it computes only at a
// process's first start (see Interpreter::starts()).
#define SKIP_UNLESS_FIRST_START()                                                    \
  SKIP_IF_PYTHON_RUNNING();                                                          \
  if (Interpreter::starts() > 0) {                                                   \
    GTEST_SKIP() << "CPython was started before in this process and keeps its path " \
                    "configuration; run this case on its own (ctest does)";          \
  }

// A scratch directory removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("parlab-embed-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// Sets an environment variable for the scope of a test.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old) {
      setenv(name.c_str(), old->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
};

std::string sys_attr(const char* name) {
  GilAcquire gil;
  auto ns = test::new_namespace();
  test::exec("import sys", ns.get());
  auto v = test::eval(std::string("str(sys.") + name + ")", ns.get());
  return PyUnicode_AsUTF8(v.get());
}

bool importable(const char* module) {
  GilAcquire gil;
  auto ns = test::new_namespace();
  auto v = test::eval(
      std::string("__import__('importlib.util').util.find_spec('") + module + "') is not None", ns.get());
  return v.get() == Py_True;
}

TEST(InterpreterLifecycle, StartsRunsPythonAndStopsTwice) {
  SKIP_IF_PYTHON_RUNNING();
  for (int round = 0; round < 2; ++round) {  // CPython itself can be started again after a stop
    {
      Interpreter interpreter;
      EXPECT_TRUE(Interpreter::active());
      EXPECT_TRUE(Py_IsInitialized());
      EXPECT_EQ(embed::current_thread_state(), nullptr) << "the Interpreter returns with the GIL released";
      GilAcquire gil;
      auto ns = test::new_namespace();
      EXPECT_EQ(test::eval_u64("sum(range(10))", ns.get()), 45u);
      EXPECT_EQ(test::eval_u64("__import__('parlab').pi(1000, 7)", ns.get()), pi_hits_points(7, 0, 1000))
          << "the built-in module is registered at every start";
    }
    EXPECT_FALSE(Interpreter::active());
    EXPECT_FALSE(Py_IsInitialized());
  }
}

TEST(InterpreterLifecycle, OnlyOnePerProcess) {
  SKIP_IF_PYTHON_RUNNING();
  Interpreter first;
  try {
    Interpreter second;
    FAIL() << "a second Interpreter must be refused";
  } catch (const FailureError& e) {
    EXPECT_NE(std::string(e.what()).find("already running"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(Interpreter::active()) << "the refused one must not have stopped the first";
}

TEST(InterpreterLifecycle, GilAcquireWithoutInterpreterThrows) {
  SKIP_IF_PYTHON_RUNNING();
  EXPECT_THROW({ GilAcquire gil; }, FailureError);
}

TEST(InterpreterEnvironment, HonoursPythonpath) {
  SKIP_UNLESS_FIRST_START();
  TempDir dir;
  write_file(dir.path / "parlab_pythonpath_probe.py", "ANSWER = 42\n");
  ScopedEnv env("PYTHONPATH", dir.path.string());
  {
    Interpreter interpreter;
    EXPECT_TRUE(importable("parlab_pythonpath_probe"));
  }
  {
    InterpreterOptions isolated;
    isolated.use_environment = false;
    Interpreter interpreter(isolated);
    EXPECT_FALSE(importable("parlab_pythonpath_probe")) << "an isolated start ignores PYTHONPATH";
  }
}

TEST(InterpreterEnvironment, ExtraPathsComeFirst) {
  SKIP_UNLESS_FIRST_START();
  TempDir dir;
  write_file(dir.path / "parlab_extra_probe.py", "X = 1\n");
  InterpreterOptions o;
  o.extra_paths = {dir.path.string()};
  Interpreter interpreter(o);
  EXPECT_TRUE(importable("parlab_extra_probe"));
}

// A virtual environment as `python -m venv` lays it out: pyvenv.cfg, bin/python and a
// site-packages directory, here with a probe module only it provides.
fs::path make_venv(const fs::path& root, const std::string& version) {
  const fs::path venv = root / "venv";
  // A free-threaded build's site-packages is lib/python3.13t (its ABI suffix), as venv lays it out.
  const std::string xy = version.substr(0, version.find('.', version.find('.') + 1)) +
                         (embed::python_info().free_threaded_build ? "t" : "");
  write_file(venv / "pyvenv.cfg", "home = " + fs::path(PARLAB_TEST_PYTHON).parent_path().string() +
                                      "\ninclude-system-site-packages = false\nversion = " + version + "\n");
  fs::create_directories(venv / "bin");
  fs::create_symlink(PARLAB_TEST_PYTHON, venv / "bin" / "python");
  write_file(venv / "lib" / ("python" + xy) / "site-packages" / "parlab_venv_probe.py", "X = 1\n");
  return venv;
}

TEST(InterpreterEnvironment, HonoursVirtualEnv) {
  SKIP_UNLESS_FIRST_START();
  TempDir dir;
  const fs::path venv = make_venv(dir.path, embed::python_info().version);
  ScopedEnv env("VIRTUAL_ENV", venv.string());
  Interpreter interpreter;
  EXPECT_EQ(interpreter.virtual_env(), venv.string());
  EXPECT_TRUE(interpreter.virtual_env_warning().empty()) << interpreter.virtual_env_warning();
  EXPECT_EQ(fs::path(sys_attr("prefix")), venv);
  EXPECT_TRUE(importable("parlab_venv_probe")) << "the venv's site-packages must be on sys.path";
}

TEST(InterpreterEnvironment, IgnoresVirtualEnvOfAnotherVersion) {
  SKIP_UNLESS_FIRST_START();
  TempDir dir;
  const fs::path venv = make_venv(dir.path, "2.7.18");
  ScopedEnv env("VIRTUAL_ENV", venv.string());
  Interpreter interpreter;
  EXPECT_TRUE(interpreter.virtual_env().empty());
  EXPECT_NE(interpreter.virtual_env_warning().find("2.7"), std::string::npos)
      << interpreter.virtual_env_warning();
  EXPECT_FALSE(importable("parlab_venv_probe"));
}

TEST(InterpreterContext, RecordsVersionAndGilMode) {
  const embed::PythonInfo info = embed::python_info();
  EXPECT_EQ(info.compiled_version, PY_VERSION);
  EXPECT_EQ(info.version.substr(0, info.version.rfind('.')),
            std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION));
#if defined(Py_GIL_DISABLED)
  EXPECT_TRUE(info.free_threaded_build);
#else
  EXPECT_FALSE(info.free_threaded_build);
  EXPECT_EQ(info.gil_mode, "gil");
#endif
#if PY_VERSION_HEX >= 0x030C0000
  EXPECT_TRUE(info.per_interpreter_gil);
#else
  EXPECT_FALSE(info.per_interpreter_gil);
  EXPECT_EQ(info.per_interpreter_gil_reason, "per-interpreter GIL needs Python >= 3.12, this build has " +
                                                 std::to_string(PY_MAJOR_VERSION) + "." +
                                                 std::to_string(PY_MINOR_VERSION));
#endif
  const std::string line = python_context();
  EXPECT_NE(line.find(info.version), std::string::npos) << line;
  EXPECT_NE(line.find(info.gil_mode), std::string::npos) << line;
}

// ---------------------------------------------------------------- Python errors
class PythonErrors : public test::SharedPython {};

TEST_F(PythonErrors, BecomeOneExceptionWithTheTraceback) {
  GilAcquire gil;
  auto ns = test::new_namespace();
  test::exec(
      "def inner(x):\n"
      "    raise ValueError(f'bad value {x}')\n"
      "def outer():\n"
      "    inner(42)\n",
      ns.get());
  try {
    test::eval("outer()", ns.get());
    FAIL() << "expected a PythonError";
  } catch (const PythonError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::failure);
    EXPECT_EQ(e.type_name(), "ValueError");
    EXPECT_EQ(e.message(), "bad value 42");
    EXPECT_NE(e.traceback().find("Traceback (most recent call last)"), std::string::npos) << e.traceback();
    EXPECT_LT(e.traceback().find("outer"), e.traceback().find("inner")) << e.traceback();
    EXPECT_NE(e.traceback().find("ValueError: bad value 42"), std::string::npos) << e.traceback();
    EXPECT_NE(std::string(e.what()).find(e.traceback()), std::string::npos) << "what() carries it";
  }
  EXPECT_FALSE(PyErr_Occurred()) << "the error is taken, not left pending";
}

TEST_F(PythonErrors, AreCaughtAsParlabFailures) {
  GilAcquire gil;
  auto ns = test::new_namespace();
  try {
    test::exec("import json\njson.loads('{')", ns.get());
    FAIL();
  } catch (const FailureError& e) {  // the category the CLI maps to exit 1
    EXPECT_NE(std::string(e.what()).find("JSONDecodeError"), std::string::npos) << e.what();
  }
}

TEST_F(PythonErrors, TracebacksOfEmbeddedWorkloadsShowTheirSource) {
  GilAcquire gil;
  auto ns = test::new_namespace();
  try {
    test::exec("import parlab_philox\nparlab_philox.split(10, 0, 1)", ns.get());  // division by zero
    FAIL();
  } catch (const PythonError& e) {
    EXPECT_EQ(e.type_name(), "ZeroDivisionError");
    EXPECT_NE(e.traceback().find("parlab_philox.py"), std::string::npos) << e.traceback();
    EXPECT_NE(e.traceback().find("divmod(n, parts)"), std::string::npos)
        << "the source line comes from the embedded text: " << e.traceback();
  }
}

}  // namespace
}  // namespace parlab
