// A person's kernel file on py-subinterp: each worker thread loads the file in a sub-interpreter
// of its own and returns its partials as bytes; the main interpreter combines them. The result
// must be the one-worker result bit for bit, and the kernel's faults read as on the other
// Python backends. Where this build has no per-interpreter GIL, the suite skips with the reason
// (the backend is then listed unavailable with it: test_python_backends.cpp).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "embed/own_kernel_workloads.hpp"
#include "embed_test_support.hpp"
#include "fresh_dir.hpp"

namespace parlab {
namespace {

namespace fs = std::filesystem;

class SubinterpFiles : public test::SharedPython {
 protected:
  void SetUp() override {
    SharedPython::SetUp();
    const embed::PythonInfo info = embed::python_info();
    if (!info.per_interpreter_gil) GTEST_SKIP() << info.per_interpreter_gil_reason;
    dir_.emplace("parlab-subinterp-files");  // removed, and only it, when the test ends
  }
  void TearDown() override { dir_.reset(); }

  // Writes `text` as kernel file `name` and registers it as the run's only file kernel.
  std::string kernel(const std::string& name, const std::string& text) {
    const fs::path path = dir_->path() / name;
    std::ofstream(path) << text;
    const embed::OwnKernel k = embed::check_own_kernel(path.string());
    embed::set_own_kernels({k});
    return k.name;
  }

  static Problem problem(const std::string& kernel, std::uint64_t size, int workers) {
    Problem p;
    p.kernel = kernel;
    p.size = size;
    p.seed = 7;
    p.threads = workers;
    return p;
  }

  static std::unique_ptr<Workload> workload(const Problem& p) {
    return embed::make_own_kernel_workload("py-subinterp", "subinterp", p);
  }

  std::optional<test::FreshDir> dir_;
};

// A float sum whose value depends on the order of its additions: only the fixed chunks combined
// in index order give the one-worker result bit for bit.
constexpr const char* kSum = R"(import math

def chunk(lo, hi, seed):
    s = 0.0
    for i in range(lo, hi):
        s += math.sin(i + seed) * 1e-3 + 1.0 / (i + 1)
    return s
)";

std::uint64_t bits(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double metric_of(const Validation& v, const std::string& name) {
  for (const auto& [key, value] : v.metrics) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no " << name << " metric: " << v.detail;
  return 0;
}

double result_of(const Validation& v) { return metric_of(v, "result"); }

TEST_F(SubinterpFiles, SumIsTheOneWorkerResultBitForBit) {
  const std::string name = kernel("sum.py", kSum);
  for (const std::uint64_t size : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{20011}}) {
    double one = 0;
    for (const int workers : {1, 2, 3}) {
      std::unique_ptr<Workload> w = workload(problem(name, size, workers));
      w->run();
      w->run();  // a second run on the same team: the counter starts over
      const Validation v = w->validate();
      EXPECT_TRUE(v.pass) << "size " << size << ", " << workers << " workers: " << v.detail;
      const double r = result_of(v);
      if (workers == 1) one = r;
      EXPECT_EQ(bits(r), bits(one)) << "size " << size << ", " << workers << " workers: " << r << " vs " << one;
      ASSERT_NE(w->worker_ledger(), nullptr);
      // Each worker's interpreter has a GIL of its own (or none, free-threaded): its time off
      // the CPU is no GIL wait.
      if (size > 0) {
        EXPECT_EQ(metric_of(v, "gil_wait_share"), 0.0) << v.detail;
        EXPECT_EQ(v.detail.find("GIL wait"), std::string::npos) << v.detail;
      }
    }
    if (size == 0) {
      EXPECT_EQ(one, 0.0);
    }
  }
}

TEST_F(SubinterpFiles, AChunkThatRaisesFailsWithTheKernelsLine) {
  const std::string name = kernel("raises.py", R"(CHUNK = 10

def chunk(lo, hi, seed):
    if lo == 20:
        raise ValueError("the third chunk")
    return float(hi - lo)
)");
  std::unique_ptr<Workload> w = workload(problem(name, 100, 2));
  try {
    w->run();
    FAIL() << "the third chunk raises";
  } catch (const FailureError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("py-subinterp: "), std::string::npos) << what;
    EXPECT_NE(what.find("chunk(20, 30, seed) raised ValueError: the third chunk"), std::string::npos) << what;
    EXPECT_NE(what.find("raises.py, line 5, in chunk"), std::string::npos) << what;
  }
}

TEST_F(SubinterpFiles, AChunkThatReturnsNoNumberFails) {
  const std::string name = kernel("text.py", "def chunk(lo, hi, seed):\n    return 'no'\n");
  std::unique_ptr<Workload> w = workload(problem(name, 10, 2));
  EXPECT_THROW(w->run(), FailureError);
}

TEST_F(SubinterpFiles, AFileThatDoesNotImportFails) {
  const std::string name =
      kernel("broken.py", "def chunk(lo, hi, seed):\n    return 1.0\n\nraise RuntimeError('no')\n");
  try {
    workload(problem(name, 10, 2));
    FAIL() << "the file raises on import";
  } catch (const FailureError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("importing the kernel failed: RuntimeError: no"), std::string::npos) << what;
    EXPECT_NE(what.find("broken.py, line 4"), std::string::npos) << what;
  }
}

// The file imports in the main interpreter (where parlab checks it and combines) and fails in the
// workers' sub-interpreters: the worker's import error is the record's, with its line.
TEST_F(SubinterpFiles, AFileThatDoesNotImportInASubinterpreterFails) {
  const std::string name = kernel("main-only.py", R"(import _interpreters

def chunk(lo, hi, seed):
    return 1.0

if _interpreters.get_current() != _interpreters.get_main():
    raise RuntimeError("only in the main interpreter")
)");
  try {
    workload(problem(name, 10, 2));
    FAIL() << "the file raises on import in a sub-interpreter";
  } catch (const FailureError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("py-subinterp: importing the kernel failed: RuntimeError: only in the main interpreter"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("main-only.py, line 7"), std::string::npos) << what;
  }
}

// A C extension of single-phase initialisation imports in the main interpreter and is refused
// by an isolated sub-interpreter: the backend cannot run the file, which is no failure of it.
TEST_F(SubinterpFiles, ASinglePhaseExtensionIsUnavailableWithTheReason) {
  // _testsinglephase where CPython's test modules are built; _curses (single-phase in 3.12 and
  // 3.13) otherwise. The module must import in the main interpreter for the case to mean anything.
  std::string module;
  {
    embed::GilAcquire gil;
    for (const char* m : {"_testsinglephase", "_curses"}) {
      PyObject* mod = PyImport_ImportModule(m);
      if (mod != nullptr) {
        Py_DECREF(mod);
        module = m;
        break;
      }
      PyErr_Clear();
    }
  }
  if (module.empty()) GTEST_SKIP() << "neither _testsinglephase nor _curses is built in this CPython";
  const std::string name = kernel("single.py", "import " + module + "\n\ndef chunk(lo, hi, seed):\n    return 1.0\n");
  try {
    workload(problem(name, 10, 2));
    FAIL() << module << " must be refused in a sub-interpreter";
  } catch (const UnavailableError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("py-subinterp: "), std::string::npos) << what;
    EXPECT_NE(what.find("single.py imports " + module + ", a C extension that does not support sub-interpreters"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace parlab
