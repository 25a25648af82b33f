// Sub-interpreters with their own GIL (3.12+), one per C++ thread; where this build has none,
// the reason is checked and the rest skips with it.
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/executor.hpp"
#include "core/pi.hpp"
#include "embed/sources.hpp"
#include "embed/subinterpreter.hpp"
#include "embed_test_support.hpp"

namespace parlab {
namespace {

using embed::PyRef;
using embed::SubInterpreter;

class SubInterpreters : public test::SharedPython {
 protected:
  void SetUp() override {
    SharedPython::SetUp();
    const embed::PythonInfo info = embed::python_info();
    if (!info.per_interpreter_gil) GTEST_SKIP() << info.per_interpreter_gil_reason;
  }
};

// Runs body() on `threads` C++ threads, each inside its own sub-interpreter; returns the first
// error any of them reported.
template <class Body>
std::string on_subinterpreters(int threads, Body body) {
  std::mutex m;
  std::string error;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        SubInterpreter interpreter;
        body(t);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(m);
        if (error.empty()) error = e.what();
      }
    });
  }
  for (auto& w : workers) w.join();
  return error;
}

TEST(SubInterpreterSupport, UnavailableWithTheReasonWhereUnsupported) {
  const embed::PythonInfo info = embed::python_info();
  if (info.per_interpreter_gil) GTEST_SKIP() << "this build supports them (CPython " << info.version << ")";
#if PY_VERSION_HEX < 0x030C0000
  EXPECT_EQ(info.per_interpreter_gil_reason, "per-interpreter GIL needs Python >= 3.12, this build has " +
                                                 std::to_string(PY_MAJOR_VERSION) + "." +
                                                 std::to_string(PY_MINOR_VERSION));
#endif
  parlab::shared_python_interpreter();
  std::thread t([&] {
    try {
      SubInterpreter s;
      ADD_FAILURE() << "must not be constructible here";
    } catch (const UnavailableError& e) {
      EXPECT_EQ(std::string(e.what()), info.per_interpreter_gil_reason);
    }
  });
  t.join();
}

TEST_F(SubInterpreters, SplitStreamCountIsCanonical) {
  constexpr int kThreads = 4;
  const std::uint64_t samples = 30011, seed = 77;
  std::atomic<std::uint64_t> total{0};
  const std::string error = on_subinterpreters(kThreads, [&](int t) {
    PyRef module = PyRef::steal(embed::import_workload_module("parlab_philox"));
    const std::uint64_t b = static_split(samples, kThreads, static_cast<std::uint64_t>(t));
    const std::uint64_t e = static_split(samples, kThreads, static_cast<std::uint64_t>(t) + 1);
    PyRef r = PyRef::steal_or_throw(
        PyObject_CallMethod(module.get(), "hits_points", "KKK", static_cast<unsigned long long>(seed),
                            static_cast<unsigned long long>(b), static_cast<unsigned long long>(e)),
        "hits_points");
    total += PyLong_AsUnsignedLongLong(r.get());
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(total.load(), pi_hits_points(seed, 0, samples));
}

TEST_F(SubInterpreters, ImportTheBuiltinModule) {
  // Multi-phase init with per-interpreter-GIL support declared: an isolated interpreter (which
  // refuses single-phase modules) can import it, and gets its own module object.
  std::atomic<std::uint64_t> total{0};
  const std::string error = on_subinterpreters(3, [&](int t) {
    auto ns = test::new_namespace();
    test::exec("import parlab", ns.get());
    total += test::eval_u64("parlab.pi(5000, 3, start=" + std::to_string(5000 * t) + ")", ns.get());
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(total.load(), pi_hits_points(3, 0, 15000));
}

TEST_F(SubInterpreters, AreIsolatedFromEachOther) {
  std::atomic<int> mismatches{0};
  const std::string error = on_subinterpreters(4, [&](int t) {
    auto ns = test::new_namespace();
    test::exec("import sys\nsys.parlab_marker = " + std::to_string(t), ns.get());
    // Each has its own sys module: a value set by another interpreter is never seen here.
    for (int i = 0; i < 100; ++i) {
      if (test::eval_u64("sys.parlab_marker", ns.get()) != static_cast<std::uint64_t>(t)) ++mismatches;
    }
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(SubInterpreters, ErrorsCarryTheirTraceback) {
  const std::string error = on_subinterpreters(1, [&](int) {
    auto ns = test::new_namespace();
    test::exec("def f():\n    raise KeyError('sub')\nf()", ns.get());
  });
  EXPECT_NE(error.find("KeyError"), std::string::npos) << error;
  EXPECT_NE(error.find("Traceback"), std::string::npos) << error;
}

TEST_F(SubInterpreters, CreationOnAThreadInPythonIsRefused) {
  embed::GilAcquire gil;  // this thread now has a main-interpreter thread state
  EXPECT_THROW({ SubInterpreter s; }, FailureError);
}

}  // namespace
}  // namespace parlab
