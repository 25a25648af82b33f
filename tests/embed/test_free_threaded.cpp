// The embedded part on a free-threaded CPython (3.13t, Py_GIL_DISABLED): parlab's module keeps
// the GIL off when imported (it declares Py_MOD_GIL_NOT_USED), many Python threads call it at
// once with no GIL (the case the tsan-ft configuration checks for races), and the records say
// what "GIL held/released" mean there. On a GIL build the no-GIL cases skip, saying why; the
// private-module and interpreter-field cases run everywhere.
#include <string>

#include "core/pi.hpp"
#include "embed/workloads.hpp"
#include "embed_test_support.hpp"
#include "experiments/backends.hpp"

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
    if (!info.free_threaded_build) GTEST_SKIP() << "CPython " << info.version << " is a GIL build";
    if (embed::gil_reenabled_at_run_time()) GTEST_SKIP() << "the GIL is enabled at run time (PYTHON_GIL=1)";
  }
};

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

TEST_F(FreeThreaded, HeldAndReleasedRecordsSayThereIsNoGil) {
  for (const char* name : {"py-parlab-gil-held", "py-parlab-gil-released"}) {
    auto w = registry().find(name)->make(pi_problem(std::uint64_t{1} << 22, 2));
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << v.detail;
    EXPECT_NE(v.detail.find("no GIL at run time"), std::string::npos) << name << ": " << v.detail;
    ASSERT_TRUE(v.metric("gil_wait_share").has_value());
    EXPECT_EQ(*v.metric("gil_wait_share"), 0.0) << "no GIL, no GIL wait";
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
