// The embedded part on a free-threaded CPython (3.13t, Py_GIL_DISABLED): parlab's module keeps
// the GIL off when imported (it declares Py_MOD_GIL_NOT_USED), many Python threads call it at
// once with no GIL (the case the tsan-ft configuration checks for races), and the records say
// what "GIL held/released" mean there. On a GIL build the no-GIL cases skip, saying why, except
// in a configuration that promises a free-threaded CPython (PARLAB_PYTHON_FREE_THREADED=ON: the
// release-ft and tsan-ft presets), where they fail instead: a GIL there means the configuration
// did not test what it exists for. The private-module and interpreter-field cases run everywhere.
#include <cstdio>
#include <string>

#include "core/pi.hpp"
#include "embed/kernel_workloads.hpp"
#include "embed_test_support.hpp"
#include "experiments/wiring/python_part.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace parlab {
namespace {

using test::eval;
using test::eval_u64;
using test::exec;
using test::new_namespace;

using test::registry;
// This suite's seed, kept as it was when the helper was local.
Problem pi_problem(std::uint64_t samples, int threads) { return test::pi_problem(samples, threads, 0xFEED); }

class FreeThreaded : public test::SharedPython {
 protected:
  void SetUp() override {
    test::SharedPython::SetUp();
    const embed::PythonInfo info = embed::python_info();
#if defined(PARLAB_PROMISE_FREE_THREADED)
    if (!info.free_threaded_build) GTEST_FAIL() << "this configuration promises a free-threaded CPython, but " << info.version << " is a GIL build";
    if (embed::gil_reenabled_at_run_time()) {
      GTEST_FAIL() << "this configuration promises a run without the GIL, but the GIL is enabled at run time "
                      "(PYTHON_GIL=1, or an extension module that re-enabled it)";
    }
#else
    if (!info.free_threaded_build) GTEST_SKIP() << "CPython " << info.version << " is a GIL build";
    if (embed::gil_reenabled_at_run_time()) GTEST_SKIP() << "the GIL is enabled at run time (PYTHON_GIL=1)";
#endif
  }
};

#if defined(PARLAB_PROMISE_FREE_THREADED)
// The promise itself, asked of the library this binary runs on rather than of the helpers above:
// compiled against a free-threaded CPython's headers (Py_GIL_DISABLED), linked to one (the running
// library's sysconfig), and running without the GIL (sys._is_gil_enabled(), PYTHON_GIL unset).
TEST(FreeThreadedPromise, EmbeddedInterpreterIsFreeThreadedAndRunsWithoutTheGil) {
#if !defined(Py_GIL_DISABLED)
  ADD_FAILURE() << "compiled against CPython " << PY_VERSION << " headers without Py_GIL_DISABLED";
#endif
  shared_python_interpreter();
  embed::GilAcquire gil;
  embed::PyRef ns = new_namespace();
  exec("import sys, sysconfig", ns.get());
  EXPECT_EQ(eval_u64("int(sysconfig.get_config_var('Py_GIL_DISABLED') or 0)", ns.get()), 1u)
      << "the running libpython is not a free-threaded build";
  EXPECT_EQ(eval_u64("int(hasattr(sys, '_is_gil_enabled'))", ns.get()), 1u) << "sys._is_gil_enabled() is 3.13+";
  EXPECT_EQ(eval_u64("int(getattr(sys, '_is_gil_enabled', lambda: True)())", ns.get()), 0u)
      << "the GIL is enabled at run time";
  EXPECT_TRUE(embed::python_info().free_threaded_build);
  EXPECT_EQ(embed::python_info().gil_mode, "free-threaded");
}
#endif

TEST_F(FreeThreaded, ImportingParlabKeepsTheGilDisabled) {
  embed::GilAcquire gil;
  embed::PyRef ns = new_namespace();
  exec("import sys, parlab", ns.get());
  EXPECT_FALSE(PyObject_IsTrue(eval("sys._is_gil_enabled()", ns.get()).get()))
      << "an extension module without Py_mod_gil = Py_MOD_GIL_NOT_USED re-enables the GIL on import";
}

// 16 Python threads call parlab.pi at once, with "held" and "released" calls mixed: without a
// GIL both run in parallel, so this is where a race in the module's C++ would show (tsan-ft).
TEST_F(FreeThreaded, ModuleFromSixteenThreadsWithoutTheGilIsCanonical) {
  constexpr std::uint64_t kSamples = 1 << 20;
  embed::GilAcquire gil;
  embed::PyRef ns = new_namespace();
  exec(R"(
import sys, threading, parlab
def count(samples, seed, threads):
    bounds = [samples * t // threads for t in range(threads + 1)]
    hits = [0] * threads
    start = threading.Barrier(threads)
    def part(t):
        start.wait()
        for k, b in enumerate(range(bounds[t], bounds[t + 1], 4096)):
            e = min(b + 4096, bounds[t + 1])
            hits[t] += parlab.pi(e - b, seed, b, k % 2 == 0)
    workers = [threading.Thread(target=part, args=(t,)) for t in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()
    return sum(hits)
)",
       ns.get());
  EXPECT_EQ(eval_u64("count(" + std::to_string(kSamples) + ", 0xFEED, 16)", ns.get()),
            pi_hits_points(0xFEED, 0, kSamples));
  EXPECT_FALSE(PyObject_IsTrue(eval("sys._is_gil_enabled()", ns.get()).get()));
}

// Without a GIL the contention figures are still measured (each thread's wall and CPU clocks),
// but the off-CPU share is reported as what it is (preemption, locks) and not as GIL wait: the
// record must say the run had no GIL, carry the shares computed from the measured clocks, and
// keep the GIL-wait figure apart from them.
TEST_F(FreeThreaded, HeldAndReleasedRecordsSayThereIsNoGil) {
  for (const char* name : {"py-parlab-gil-held", "py-parlab-gil-released"}) {
    auto w = registry().find(name)->make(pi_problem(std::uint64_t{1} << 22, 2));
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << v.detail;
    EXPECT_NE(v.detail.find("no GIL at run time"), std::string::npos) << name << ": " << v.detail;
    EXPECT_EQ(v.detail.find("GIL wait"), std::string::npos) << name << ": off-CPU time is not GIL wait here: " << v.detail;

    auto* py = dynamic_cast<embed::PythonPiWorkload*>(w.get());
    ASSERT_NE(py, nullptr) << name;
    const embed::GilContention g = py->gil_contention();
    EXPECT_TRUE(g.measured) << name << ": two Python threads, so their clocks are read";
    EXPECT_FALSE(g.gil_enabled) << name << ": the contention record says there was a GIL";
    EXPECT_EQ(g.threads, 2) << name;
    EXPECT_GT(g.wall_s, 0.0) << name << ": no wall time measured";
    EXPECT_GT(g.cpu_s, 0.0) << name << ": no CPU time measured";

    for (const char* metric : {"gil_wait_share", "off_cpu_share", "gil_reacquire_share", "python_threads"}) {
      ASSERT_TRUE(v.metric(metric).has_value()) << name << ": no metric " << metric;
    }
    // The shares come from those clocks, as the record's detail says.
    EXPECT_DOUBLE_EQ(*v.metric("off_cpu_share"), g.wait_share()) << name;
    EXPECT_DOUBLE_EQ(*v.metric("gil_reacquire_share"), g.reacquire_share()) << name;
    EXPECT_EQ(*v.metric("python_threads"), 2.0) << name;
    char off_cpu[48];
    std::snprintf(off_cpu, sizeof off_cpu, "off-CPU %.1f%%", 100.0 * g.wait_share());
    EXPECT_NE(v.detail.find(off_cpu), std::string::npos) << name << ": '" << off_cpu << "' in " << v.detail;
    // ... and with nothing to wait for, none of the off-CPU share is GIL wait.
    EXPECT_EQ(*v.metric("gil_wait_share"), 0.0) << name;
  }
}

TEST_F(FreeThreaded, RecordFieldsNameTheFreeThreadedInterpreter) {
  const auto f = python_interpreter_fields();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->python_build, "free-threaded");
  EXPECT_NE(f->interpreter.find("free-threaded"), std::string::npos) << f->interpreter;
  EXPECT_FALSE(f->gil_enabled);
}

// Private state: each thread's copy of the pure-Python module shares no function, code or
// constant object with another's (what lets pure Python scale without a GIL), and counts the same.
TEST(PrivateModule, CopiesShareNoCodeAndCountTheSame) {
  shared_python_interpreter();
  embed::GilAcquire gil;
  embed::PyRef ns = new_namespace();
  exec(R"(
import parlab_philox, parlab_threads
a = parlab_threads.private_module("parlab_philox")
b = parlab_threads.private_module("parlab_philox")
)",
       ns.get());
  for (const char* shared :
       {"a.hits_pairs is b.hits_pairs", "a.hits_pairs.__code__ is b.hits_pairs.__code__",
        "a.hits_pairs is parlab_philox.hits_pairs", "a.__dict__ is b.__dict__", "a.MUL0 is b.MUL0",
        "a.TWO64 is b.TWO64"}) {
    EXPECT_FALSE(PyObject_IsTrue(eval(shared, ns.get()).get())) << shared;
  }
  EXPECT_EQ(eval_u64("a.hits_points(7, 3, 10001)", ns.get()), pi_hits_points(7, 3, 10001));
}

TEST(PythonRecordFields, NameTheInterpreterAndItsGilState) {
  shared_python_interpreter();
  const auto f = python_interpreter_fields();
  ASSERT_TRUE(f.has_value());
  const embed::PythonInfo info = embed::python_info();
  EXPECT_EQ(f->python_build, info.gil_mode);
  EXPECT_EQ(f->interpreter.rfind(info.version, 0), 0u) << f->interpreter;
  if (!info.free_threaded_build) {
    EXPECT_TRUE(f->gil_enabled);
  }
}

}  // namespace
}  // namespace parlab
