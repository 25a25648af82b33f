// Helpers shared by the embedded-CPython suites: the shared interpreter, and running snippets.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/workload.hpp"
#include "embed/interpreter.hpp"
#include "embed/backends.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace parlab::test {

// A fresh namespace with builtins, for exec/eval.
// PRECONDITION: the GIL is held.
inline embed::PyRef new_namespace() {
  embed::PyRef ns = embed::PyRef::steal_or_throw(PyDict_New(), "namespace");
  if (PyDict_SetItemString(ns.get(), "__builtins__", PyEval_GetBuiltins()) != 0) {
    embed::throw_python_error("namespace");
  }
  return ns;
}

// Executes statements in `ns`; a Python error becomes PythonError.
// PRECONDITION: the GIL is held.
inline void exec(const std::string& code, PyObject* ns) {
  embed::PyRef r = embed::PyRef::steal_or_throw(PyRun_String(code.c_str(), Py_file_input, ns, ns), "exec");
}

// Evaluates one expression in `ns`. PRECONDITION: the GIL is held.
inline embed::PyRef eval(const std::string& expr, PyObject* ns) {
  return embed::PyRef::steal_or_throw(PyRun_String(expr.c_str(), Py_eval_input, ns, ns), "eval");
}

// PRECONDITION: the GIL is held.
inline std::uint64_t eval_u64(const std::string& expr, PyObject* ns) {
  embed::PyRef r = eval(expr, ns);
  const unsigned long long v = PyLong_AsUnsignedLongLong(r.get());
  if (PyErr_Occurred()) embed::throw_python_error("eval_u64(" + expr + ")");
  return v;
}

// Whether the running interpreter has a GIL (false on a free-threaded build running without it,
// where tests of what the GIL does have nothing to test). Takes the GIL when there is one.
inline bool gil_at_run_time() {
  return !embed::python_info().free_threaded_build || embed::gil_reenabled_at_run_time();
}
#define PARLAB_SKIP_WITHOUT_GIL()                                                                  \
  if (!::parlab::test::gil_at_run_time())                                                          \
  GTEST_SKIP() << "no GIL at run time (free-threaded CPython, GIL disabled): a GIL property has " \
                  "nothing to test here; tests/embed/test_free_threaded.cpp covers this build"

// The registry every backend test looks entries up in, made once per test binary.
inline const Registry& registry() {
  static const Registry r = make_registry();
  return r;
}

// A pi problem of `samples` points on `threads` threads.
inline Problem pi_problem(std::uint64_t samples, int threads, std::uint64_t seed = 0xC0FFEE) {
  return parlab::pi_problem(samples, threads, seed);
}

// Suites that use the interpreter every Python backend shares (started on first use and kept
// for the rest of the process, as in the CLI).
class SharedPython : public ::testing::Test {
 protected:
  void SetUp() override { shared_python_interpreter(); }
};

}  // namespace parlab::test
