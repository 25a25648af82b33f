// The hand-written pool: lifecycle, nesting, exceptions.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "cpu/pool.hpp"

namespace parlab {
namespace {

TEST(ThreadPool, ManyConsecutiveRegions) {
  ThreadPool pool(4);
  std::uint64_t total = 0;
  for (int region = 0; region < 5000; ++region) {
    total += pool.parallel_sum(100 + region % 7, 1, [](Index b, Index e) { return e - b; });
  }
  std::uint64_t expect = 0;
  for (int region = 0; region < 5000; ++region) expect += 100 + region % 7;
  EXPECT_EQ(total, expect);
}

TEST(ThreadPool, RunOnAllRunsEachThreadIndexOnce) {
  for (int n : {1, 2, 3, 7}) {
    ThreadPool pool(n);
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    pool.run_on_all([&](int i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
    for (int i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPool, NestedParallelForRunsInlineWithoutDeadlock) {
  ThreadPool pool(4);
  // Run on another thread so a deadlock fails the test instead of hanging it.
  auto done = std::async(std::launch::async, [&] {
    std::atomic<std::uint64_t> inner_total{0};
    pool.parallel_for(64, 1, [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) {
        EXPECT_TRUE(pool.in_worker());
        const std::uint64_t s = pool.parallel_sum(1000, 10, [](Index x, Index y) { return y - x; });
        inner_total.fetch_add(s);
      }
    });
    return inner_total.load();
  });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "nested call deadlocked";
  EXPECT_EQ(done.get(), 64u * 1000u);
}

TEST(ThreadPool, NestedRunOnAllIsAClearError) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.run_on_all([&](int) { pool.run_on_all([](int) {}); }), UsageError);
  // And the pool still works.
  EXPECT_EQ(pool.parallel_sum(10, 1, [](Index b, Index e) { return e - b; }), 10u);
}

TEST(ThreadPool, ExceptionPropagatesAndPoolStaysUsable) {
  ThreadPool pool(4);
  for (int round = 0; round < 20; ++round) {
    EXPECT_THROW(pool.parallel_for(10000, 16,
                                   [&](Index b, Index e) {
                                     for (Index i = b; i < e; ++i) {
                                       if (i == static_cast<Index>(round * 37)) throw std::logic_error("body failed");
                                     }
                                   }),
                 std::logic_error);
    EXPECT_EQ(pool.parallel_sum(1000, 1, [](Index b, Index e) { return e - b; }), 1000u);
  }
}

TEST(ThreadPool, EveryThreadThrowingStillJoinsCleanly) {
  ThreadPool pool(8);
  EXPECT_THROW(pool.run_on_all([](int i) { throw std::runtime_error("thread " + std::to_string(i)); }),
               std::runtime_error);
}

TEST(ThreadPool, DestructionWhileIdle) {
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(1 + i % 8);  // destroyed right after start: workers may still be starting
  }
  ThreadPool sleeper(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // workers are blocked in wait()
}

TEST(ThreadPool, DestructionAfterHeavyUse) {
  std::atomic<std::uint64_t> sum{0};
  {
    ThreadPool pool(6);
    for (int i = 0; i < 200; ++i) {
      pool.parallel_for(50000, 64, [&](Index b, Index e) { sum.fetch_add(e - b, std::memory_order_relaxed); });
    }
  }
  EXPECT_EQ(sum.load(), 200u * 50000u);
}

TEST(ThreadPool, CallsFromSeveralOutsideThreadsAreSerialised) {
  ThreadPool pool(3);
  std::vector<std::thread> callers;
  std::atomic<std::uint64_t> total{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int r = 0; r < 100; ++r) total.fetch_add(pool.parallel_sum(999, 7, [](Index b, Index e) { return e - b; }));
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4u * 100u * 999u);
}

TEST(ThreadPool, OversubscribedPoolWorks) {
  ThreadPool pool(32);
  EXPECT_EQ(pool.threads(), 32);
  EXPECT_EQ(pool.parallel_sum(1u << 20, 1, [](Index b, Index e) { return e - b; }), 1u << 20);
}

TEST(ThreadPool, RejectsNonPositiveThreadCounts) {
  EXPECT_THROW(ThreadPool(0), UsageError);
  EXPECT_THROW(ThreadPool(-3), UsageError);
}

}  // namespace
}  // namespace parlab
