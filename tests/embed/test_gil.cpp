// The GIL types, in pybind11's standard pattern: the main thread releases the GIL, worker
// threads acquire it; and their preconditions are checked, not assumed.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "embed_test_support.hpp"

namespace parlab {
namespace {

using embed::GilAcquire;
using embed::GilRelease;

// Whether this thread holds the GIL. PyGILState_Check() alone is not enough: once a
// sub-interpreter exists in the process CPython makes it answer 1 for every thread (the GIL-state
// API serves one interpreter only), so the current thread state is checked as well, as
// GilRelease's own precondition check does.
bool holds_gil() {
  return embed::current_thread_state() != nullptr && PyGILState_Check();
}

class GilTypes : public test::SharedPython {};

TEST_F(GilTypes, ReleaseOnMainAcquireOnWorkers) {
  constexpr int kWorkers = 4;
  constexpr int kAppends = 200;
  GilAcquire gil;
  ASSERT_TRUE(holds_gil());
  auto ns = test::new_namespace();
  test::exec("shared = []", ns.get());
  PyObject* globals = ns.get();
  {
    GilRelease release;
    EXPECT_FALSE(holds_gil()) << "released on the main thread";
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int w = 0; w < kWorkers; ++w) {
      workers.emplace_back([&, w] {
        try {
          GilAcquire worker_gil;  // a foreign thread entering Python
          if (!holds_gil()) ++failures;
          for (int i = 0; i < kAppends; ++i) {
            test::exec("shared.append(" + std::to_string(w) + ")", globals);
          }
        } catch (...) {
          ++failures;
        }
      });
    }
    for (auto& t : workers) t.join();
    EXPECT_EQ(failures.load(), 0);
  }
  EXPECT_TRUE(holds_gil()) << "GilRelease's destructor re-took the GIL";
  EXPECT_EQ(test::eval_u64("len(shared)", globals), static_cast<std::uint64_t>(kWorkers * kAppends));
  for (int w = 0; w < kWorkers; ++w) {
    EXPECT_EQ(test::eval_u64("shared.count(" + std::to_string(w) + ")", globals),
              static_cast<std::uint64_t>(kAppends));
  }
}

TEST_F(GilTypes, AcquireIsReentrant) {
  GilAcquire outer;
  {
    GilAcquire inner;
    EXPECT_TRUE(holds_gil());
  }
  EXPECT_TRUE(holds_gil()) << "the inner release must not drop the outer hold";
}

TEST_F(GilTypes, ReleaseChecksItsPrecondition) {
  // This thread does not hold the GIL (the shared interpreter runs with it released).
  ASSERT_FALSE(holds_gil());
  EXPECT_THROW({ GilRelease release; }, FailureError);
  std::thread t([] { EXPECT_THROW({ GilRelease release; }, FailureError); });
  t.join();
}

TEST_F(GilTypes, ReleaseCountsTheWaitToReacquire) {
  PARLAB_SKIP_WITHOUT_GIL();
  std::uint64_t waited_ns = 0;
  GilAcquire gil;
  std::atomic<bool> holding{false};
  std::thread other;
  {
    GilRelease release(&waited_ns);
    // Another thread takes the GIL and keeps it while it spins in C++ (no eval loop, so no
    // drop request is honoured): re-acquiring at the end of this scope must wait for it.
    other = std::thread([&] {
      GilAcquire g;
      holding = true;
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      while (std::chrono::steady_clock::now() < until) {
      }
    });
    while (!holding) std::this_thread::yield();
  }
  other.join();  // it released the GIL before we got it back
  EXPECT_GE(waited_ns, 20'000'000u) << "the wait for the other thread's 200 ms hold is counted";
}

TEST_F(GilTypes, WorkersRunWhileMainHoldsNothing) {
  // Many threads entering and leaving Python concurrently, with the main thread out of Python:
  // the pattern every Python workload's run() relies on.
  std::atomic<std::uint64_t> total{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 8; ++w) {
    workers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        GilAcquire gil;
        auto ns = test::new_namespace();
        total += test::eval_u64("sum(range(100))", ns.get());
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_EQ(total.load(), 8u * 50u * 4950u);
}

}  // namespace
}  // namespace parlab
