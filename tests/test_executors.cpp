// The executor contract, for every CPU backend: each index exactly once, exact thread count,
// exceptions reach the caller, bad thread counts are rejected.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace parlab {
namespace {

class ExecutorContract : public ::testing::TestWithParam<test::BackendThreads> {};

TEST_P(ExecutorContract, EveryIndexExactlyOnce) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (Index n : {Index{0}, Index{1}, Index{2}, Index{3}, Index{1000}, Index{4097}, Index{65537}}) {
    for (Index grain : {Index{1}, Index{7}, Index{1024}}) {
      std::vector<std::atomic<int>> seen(n);
      ex->parallel_for(n, grain, [&](Index b, Index e) {
        ASSERT_LT(b, e);
        for (Index i = b; i < e; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
      });
      for (Index i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n=" << n << " grain=" << grain << " i=" << i;
      const std::uint64_t sum = ex->parallel_sum(n, grain, [](Index b, Index e) { return e - b; });
      EXPECT_EQ(sum, n);
    }
  }
}

TEST_P(ExecutorContract, TilesOfOneGridCoverItExactlyOnce) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (auto shape : {std::pair<Index, Index>{0, 3}, {1, 1}, {67, 129}, {200, 3}, {3, 200}}) {
    const Index nx = shape.first, ny = shape.second;  // not a structured binding: lambdas capture it
    std::vector<std::atomic<int>> seen(nx * ny);
    ex->parallel_for_2d(nx, ny, 16, 8, [&](const Tile2D& t) {
      // The one tile grid (executor.hpp): each tile starts on it and is whole but at the edge.
      ASSERT_EQ(t.x0 % 16, 0u) << t.x0;
      ASSERT_EQ(t.y0 % 8, 0u) << t.y0;
      ASSERT_EQ(t.x1, std::min<Index>(t.x0 + 16, nx));
      ASSERT_EQ(t.y1, std::min<Index>(t.y0 + 8, ny));
      for (Index y = t.y0; y < t.y1; ++y) {
        for (Index x = t.x0; x < t.x1; ++x) seen[y * nx + x].fetch_add(1, std::memory_order_relaxed);
      }
    });
    for (Index i = 0; i < nx * ny; ++i) ASSERT_EQ(seen[i].load(), 1) << nx << "x" << ny << " i=" << i;
  }
}

TEST_P(ExecutorContract, AllThreadsRunAtOnce) {
  // n chunks, each blocking until n bodies are running at the same time: only an executor that
  // really has n threads can finish before the deadline.
  const int n = GetParam().threads;
  auto ex = test::make_executor(GetParam().backend, n);
  std::atomic<int> arrived{0};
  std::atomic<bool> all_met{true};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  ex->parallel_for(static_cast<Index>(n), 1, [&](Index b, Index e) {
    for (Index i = b; i < e; ++i) {
      arrived.fetch_add(1);
      while (arrived.load() < n) {
        if (std::chrono::steady_clock::now() > deadline) {
          all_met = false;
          return;
        }
        std::this_thread::yield();
      }
    }
  });
  EXPECT_TRUE(all_met.load()) << "only " << arrived.load() << " of " << n << " threads ran concurrently";
}

TEST_P(ExecutorContract, ExceptionInABodyReachesTheCaller) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  EXPECT_THROW(ex->parallel_for(100000, 64,
                                [](Index b, Index e) {
                                  for (Index i = b; i < e; ++i) {
                                    if (i == 77777) throw std::runtime_error("boom");
                                  }
                                }),
               std::runtime_error);
  EXPECT_THROW(ex->parallel_sum(100000, 64,
                                [](Index b, Index e) -> std::uint64_t {
                                  if (b <= 5 && 5 < e) throw std::out_of_range("sum boom");
                                  return e - b;
                                }),
               std::out_of_range);
  // Still usable afterwards.
  EXPECT_EQ(ex->parallel_sum(1000, 10, [](Index b, Index e) { return e - b; }), 1000u);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ExecutorContract, ::testing::ValuesIn(test::backend_thread_params()),
                         [](const auto& tp) { return test::name_of(tp.param); });

class ThreadCountValidation : public ::testing::TestWithParam<std::string> {};

TEST_P(ThreadCountValidation, RejectsZeroAndNegative) {
  const auto& e = test::registry().get(GetParam());
  for (int bad : {0, -1, -16}) {
    try {
      e.make_executor(bad);
      ADD_FAILURE() << GetParam() << " accepted " << bad << " threads";
    } catch (const UsageError& err) {
      EXPECT_NE(std::string(err.what()).find("thread"), std::string::npos) << err.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ThreadCountValidation, ::testing::ValuesIn(test::cpu_backend_names()),
                         [](const auto& tp) { return test::sanitize(tp.param); });

TEST(Registry, UnknownBackendIsAUsageErrorNamingTheAccepted) {
  try {
    test::registry().get("cilk");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("serial"), std::string::npos) << e.what();
  }
}

TEST(Registry, EveryCpuBackendOfThisBuildIsThere) {
  for (const char* name : {"serial", "threads", "pool"}) {
    ASSERT_NE(test::registry().find(name), nullptr) << name;
    EXPECT_TRUE(test::registry().find(name)->available);
  }
  for (const char* name : {"tbb", "openmp"}) {
    const auto* e = test::registry().find(name);
    ASSERT_NE(e, nullptr) << name << " must be listed, available or not";
    if (!e->available) {
      EXPECT_FALSE(e->reason.empty());
    }
  }
}

// Every available entry says where its kernels run, as its wing knows it: the records' `processor`.
TEST(Registry, EveryAvailableEntrySaysItsProcessor) {
  for (const auto& e : test::registry().entries()) {
    if (!e.available) continue;
    EXPECT_TRUE(e.processor.has_value()) << e.name;
    if (e.kind == BackendKind::cpu) {
      EXPECT_EQ(e.processor, Processor::cpu) << e.name;
    }
    if (e.kind == BackendKind::gpu) {
      EXPECT_EQ(e.processor, Processor::gpu) << e.name;
    }
  }
  for (const char* name : {"py-cupy", "py-torch", "mpi+cuda", "babelstream-cuda", "cuda-multi-seq"}) {
    if (const auto* e = test::registry().find(name); e != nullptr && e->available) {
      EXPECT_EQ(e->processor, Processor::gpu) << name;
    }
  }
  for (const char* name : {"py-numpy", "mpi+pool", "babelstream-omp", "serial"}) {
    if (const auto* e = test::registry().find(name); e != nullptr && e->available) {
      EXPECT_EQ(e->processor, Processor::cpu) << name;
    }
  }
}

TEST(Registry, AnAvailableEntryWithoutItsProcessorIsRefused) {
  Registry r;
  BackendEntry e;
  e.name = "nowhere";
  e.kind = BackendKind::cpu;
  e.available = true;
  EXPECT_THROW(r.add(e), FailureError);
  e.processor = Processor::cpu;
  EXPECT_NO_THROW(r.add(e));
}

// openmp hands out grabs of max(1, chunks / (64 n)) chunks as threads ask (cpu/openmp.hpp), so a
// thread held up inside its first grab leaves every other grab to the rest of the team; a static
// split (openmp-static) gives each thread one contiguous block whatever happens. Shown on two
// threads over 1280 one-index chunks (grabs of 10): the thread that takes chunk 0 waits until the
// other has run every chunk outside chunk 0's grab, which only a dynamic hand-out can do.
TEST(OpenMpSchedule, DynamicHandsTheGrabsOfAHeldThreadToTheOthers) {
  const auto* e = test::registry().find("openmp");
  ASSERT_NE(e, nullptr);
  if (!e->available) GTEST_SKIP() << "openmp not built: " << e->reason;
  auto ex = e->make_executor(2);
  constexpr Index kChunks = 1280, kGrab = 10;
  std::vector<std::thread::id> ran(kChunks);
  std::atomic<Index> done_elsewhere{0};
  bool held_released = false;
  ex->parallel_for(kChunks, 1, [&](Index b, Index end) {
    for (Index i = b; i < end; ++i) {
      ran[i] = std::this_thread::get_id();
      if (i == 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (done_elsewhere.load() < kChunks - kGrab && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
        held_released = done_elsewhere.load() == kChunks - kGrab;
      } else if (i >= kGrab) {
        done_elsewhere.fetch_add(1);
      }
    }
  });
  EXPECT_TRUE(held_released) << "the other thread ran " << done_elsewhere.load() << " of " << kChunks - kGrab
                             << " chunks while chunk 0's thread was held";
  for (Index g = 0; g < kChunks; g += kGrab) {
    for (Index i = g; i < g + kGrab; ++i) EXPECT_EQ(ran[i], ran[g]) << "chunk " << i << " left its grab";
  }
}

TEST(OpenMpSchedule, StaticGivesEachThreadOneContiguousBlock) {
  const auto* e = test::registry().find("openmp-static");
  ASSERT_NE(e, nullptr) << "openmp-static must be listed, available or not";
  if (!e->available) GTEST_SKIP() << "openmp not built: " << e->reason;
  auto ex = e->make_executor(2);
  constexpr Index kChunks = 1281;
  std::vector<std::thread::id> ran(kChunks);
  ex->parallel_for(kChunks, 1, [&](Index b, Index end) {
    for (Index i = b; i < end; ++i) ran[i] = std::this_thread::get_id();
  });
  Index switches = 0;
  for (Index i = 1; i < kChunks; ++i) switches += ran[i] != ran[i - 1];
  EXPECT_EQ(switches, 1u);
  EXPECT_NE(ran.front(), ran.back());
}

}  // namespace
}  // namespace parlab
