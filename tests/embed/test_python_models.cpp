// The task-based Python models (embed/model_workloads.hpp): a thread pool, spawned processes,
// dask.delayed and dask.distributed each give the canonical pi count for odd sizes and several
// worker counts; their workers are gone once the workload is destroyed, also after a failing
// task; a missing Dask is "unavailable", not an error. (Ctrl-C and a killed worker during a
// `parlab run` are tested from outside, in tests/python/test_python_models.py.)
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/pi.hpp"
#include "embed/model_workloads.hpp"
#include "embed_test_support.hpp"
#include "experiments/wiring/make_registry.hpp"

namespace parlab {
namespace {

using test::pi_problem;
using test::registry;


struct Child {
  int pid;
  std::string cmdline;
};

// The whole of a /proc file, or "" where it cannot be read: a process that exits between the
// listing and the read makes read() fail with ESRCH, which libstdc++'s filebuf throws through an
// istreambuf_iterator (no istream catches it). Another test's process ending at that moment made
// this scan throw in a CI run under ASan, so a vanished process reads as gone.
std::string read_proc_file(const std::filesystem::path& file) {
  try {
    std::ifstream in(file);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return {};
  }
}

// The live child processes of this process, from /proc (zombies are reaped ones' leftovers and
// not counted: they run nothing).
std::vector<Child> live_children() {
  std::vector<Child> out;
  const int self = static_cast<int>(getpid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const std::string text = read_proc_file(entry.path() / "stat");
    const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid != self || state == 'Z') continue;
    std::string c = read_proc_file(entry.path() / "cmdline");
    std::replace(c.begin(), c.end(), '\0', ' ');
    out.push_back({std::stoi(name), c});
  }
  return out;
}

// Children other than multiprocessing's resource tracker: that one process is started once per
// interpreter on the first use of a multiprocessing lock and ends with the interpreter's process,
// by design (it unlinks what crashed workers leave behind); every worker must be gone.
std::vector<Child> stray_workers() {
  std::vector<Child> out;
  for (Child& c : live_children()) {
    if (c.cmdline.find("resource_tracker") == std::string::npos) out.push_back(std::move(c));
  }
  return out;
}

std::string describe(const std::vector<Child>& children) {
  std::string s;
  for (const auto& c : children) s += std::to_string(c.pid) + ": " + c.cmdline + "\n";
  return s;
}

// Python threads the in-process models start (parlab_tasks, parlab_dask) that are still alive.
std::uint64_t live_model_threads() {
  embed::GilAcquire gil;
  embed::PyRef ns = test::new_namespace();
  test::exec("import threading", ns.get());
  return test::eval_u64(
      "sum(t.name.startswith(('parlab-tasks', 'parlab-dask')) for t in threading.enumerate())", ns.get());
}

const embed::PyModelSpec& model(const std::string& name) {
  for (const auto& s : embed::python_model_specs()) {
    if (name == s.name) return s;
  }
  throw std::runtime_error("no model " + name);
}

TEST(PythonModelsRegistry, EveryModelIsAPythonPiBackendOutsideTheDefaultSet) {
  for (const char* name : {"py-thread-pool", "py-processes", "py-dask-delayed", "py-dask-distributed",
                           "py-thread-pool-parlab", "py-dask-delayed-parlab"}) {
    const BackendEntry* e = registry().find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->kind, BackendKind::python);
#if defined(PARLAB_EMBED_ASAN)
    if (std::string(name).find("dask") != std::string::npos) {
      EXPECT_FALSE(e->available);
      EXPECT_NE(e->reason.find("AddressSanitizer"), std::string::npos) << e->reason;
      continue;
    }
#endif
    ASSERT_TRUE(e->available) << e->reason;
    EXPECT_EQ(e->kernels, std::vector<std::string>{"pi"});
    EXPECT_FALSE(e->in_default_set) << name << " starts processes or clusters: only runs where named";
  }
}

TEST(PythonModelsRegistry, UsageErrorsBeforeAnyInterpreterStarts) {
  Problem triad = pi_problem(100, 1);
  triad.kernel = "triad";
  // A catalogue kernel the backend does not implement is unavailable there, not a usage error.
  EXPECT_THROW(registry().get("py-processes").make(triad), UnavailableError);
  EXPECT_THROW(registry().get("py-thread-pool").make(pi_problem(100, 0)), UsageError);
  EXPECT_FALSE(embed::Interpreter::active());
}

struct Case {
  std::string backend;
  int workers;
  std::uint64_t samples;
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.backend << " workers=" << c.workers << " N=" << c.samples;
}

class PythonModelCanonical : public test::SharedPython, public ::testing::WithParamInterface<Case> {};

TEST_P(PythonModelCanonical, CountsTheCanonicalStreamAndLeavesNoWorkerBehind) {
  const Case& c = GetParam();
  const Problem p = pi_problem(c.samples, c.workers);
  const std::uint64_t expect = pi_hits_points(p.seed, 0, p.size);
  {
    std::unique_ptr<Workload> w;
    try {
      w = registry().get(c.backend).make(p);
    } catch (const UnavailableError& e) {
      GTEST_SKIP() << e.what();  // Dask not installed for this interpreter, or an ASan build
    }
    w->run();
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << v.detail;
    ASSERT_TRUE(v.hits.has_value());
    EXPECT_EQ(*v.hits, expect);
    // Where the time went besides the task bodies, recorded for the figures.
    for (const char* m : {"tasks", "per_task_overhead_s", "busy_share", "startup_s", "roundtrip_s"}) {
      EXPECT_TRUE(v.metric(m).has_value()) << m;
    }
    EXPECT_GE(*v.metric("tasks"), c.workers > static_cast<int>(c.samples) ? 1.0 : c.workers);
    EXPECT_EQ(*v.metric("workers"), c.workers);
    // The scan below sees worker processes: while the workload lives, they are there.
    if (c.backend == "py-processes" || c.backend == "py-dask-distributed") {
      EXPECT_GE(stray_workers().size(), static_cast<std::size_t>(c.workers)) << describe(stray_workers());
    }
  }
  EXPECT_EQ(stray_workers().size(), 0u) << describe(stray_workers());
  EXPECT_EQ(live_model_threads(), 0u);
}

std::vector<Case> canonical_cases() {
  std::vector<Case> cases;
  for (const char* b : {"py-thread-pool", "py-processes", "py-dask-delayed"}) {
    for (int w : {1, 2, 3}) {
      for (std::uint64_t n : {1ull, 4097ull, 20011ull}) cases.push_back({b, w, n});
    }
  }
  // parlab.pi bodies take 2^21 points a task: sizes of several tasks per worker, odd.
  for (const char* b : {"py-thread-pool-parlab", "py-dask-delayed-parlab"}) {
    for (int w : {1, 2, 3}) {
      for (std::uint64_t n : {4097ull, 3 * (1ull << 21) + 7}) cases.push_back({b, w, n});
    }
  }
  // A cluster takes a second or two to start: fewer cases, still odd sizes and three worker counts.
  cases.push_back({"py-dask-distributed", 1, 4097});
  cases.push_back({"py-dask-distributed", 2, 20011});
  cases.push_back({"py-dask-distributed", 3, 3});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Models, PythonModelCanonical, ::testing::ValuesIn(canonical_cases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string s = param_info.param.backend.substr(3) + "_w" + std::to_string(param_info.param.workers) +
                                           "_n" + std::to_string(param_info.param.samples);
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// A task that raises in a worker: run() fails with the worker's error, and closing the runner
// still ends every worker process and thread. Driven through parlab_tasks directly, since the
// canonical tasks cannot fail; a task range that is not a number makes the body raise.
class PythonModelFailingTask : public test::SharedPython, public ::testing::WithParamInterface<std::string> {};

TEST_P(PythonModelFailingTask, ShutsDownAfterAFailingTask) {
  for (const auto& spec : embed::python_model_specs()) {
    if (GetParam() == spec.kind) {
      if (const std::string why = embed::python_model_unavailable_reason(spec); !why.empty()) GTEST_SKIP() << why;
    }
  }
  {
    embed::GilAcquire gil;
    embed::PyRef ns = test::new_namespace();
    test::exec("import parlab_driver, parlab_tasks", ns.get());
    try {
      test::exec("r = parlab_driver.make_model('" + GetParam() + "', 7, 20011, 2)", ns.get());
    } catch (const embed::PythonError& e) {
      if (e.type_name() == "Unavailable") GTEST_SKIP() << e.what();
      throw;
    }
    test::exec(
        "r.ranges = [(0, 10), ('not a number', 20)]\n"
        "try:\n"
        "    r.run()\n"
        "    raised = ''\n"
        "except Exception as e:\n"
        "    raised = type(e).__name__\n"
        "finally:\n"
        "    r.close()\n"
        "r.close()  # idempotent\n",
        ns.get());
    embed::PyRef raised = test::eval("raised", ns.get());
    EXPECT_STREQ(PyUnicode_AsUTF8(raised.get()), "TypeError");
  }
  EXPECT_EQ(stray_workers().size(), 0u) << describe(stray_workers());
  EXPECT_EQ(live_model_threads(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, PythonModelFailingTask,
                         ::testing::Values("thread-pool", "processes", "dask-delayed", "dask-distributed",
                                           "thread-pool-parlab", "dask-delayed-parlab"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string s = param_info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// Without Dask the Dask models are unavailable with the reason, not errors: an import of dask
// that fails (as where python3-dask is not installed) is what the runner records.
class PythonModelsNoDask : public test::SharedPython {};

TEST_F(PythonModelsNoDask, DaskModelsAreUnavailableWithTheReason) {
  if (const std::string why = embed::python_model_unavailable_reason(model("py-dask-delayed")); !why.empty()) {
    GTEST_SKIP() << "the Dask models are unavailable in this build whatever is installed: " << why;
  }
  embed::PyRef ns;
  {
    embed::GilAcquire gil;
    ns = test::new_namespace();
    test::exec(
        "import sys\n"
        "saved = {k: sys.modules.get(k) for k in ('dask', 'distributed')}\n"
        "sys.modules['dask'] = None  # `import dask` now raises ImportError\n"
        "sys.modules['distributed'] = None\n",
        ns.get());
  }
  for (const char* name : {"py-dask-delayed", "py-dask-distributed"}) {
    try {
      embed::make_python_model_workload(model(name), pi_problem(1001, 2));
      ADD_FAILURE() << name << " ran without Dask";
    } catch (const UnavailableError& e) {
      EXPECT_NE(std::string(e.what()).find("not importable"), std::string::npos) << e.what();
    }
  }
  embed::GilAcquire gil;
  test::exec(
      "for k, m in saved.items():\n"
      "    if m is None:\n"
      "        del sys.modules[k]\n"
      "    else:\n"
      "        sys.modules[k] = m\n",
      ns.get());
  ns.reset();
}

}  // namespace
}  // namespace parlab
