// The MPI wing's contracts at this job's rank count (ctest runs this binary under mpirun with
// 1, 2, 3 and 4 ranks): every rank runs every test, in the same order, since each is collective.
//
// - pi: the canonical count (an independent point-by-point reference) for threads {1, 2} and
//   N in {0, 1, 2, 3, odd, larger}, on every CPU executor;
// - dot: the bits of the single-process CPU backends, float and double, at sizes that cut the
//   fixed blocks unevenly over the ranks;
// - STREAM and plus_one: BabelStream's gold values on every rank; the probes complete.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels.hpp"
#include "core/pi.hpp"
#include "experiments/backends.hpp"
#include "mpi/runtime.hpp"
#include "mpi/workloads.hpp"

namespace parlab::mpi {
namespace {

const Registry& registry() {
  static const Registry r = make_registry();
  return r;
}

// The CPU executors an MPI rank may run its share with, in this build.
std::vector<std::string> executors() {
  std::vector<std::string> out;
  for (const char* n : {"serial", "pool", "tbb", "openmp"}) {
    const BackendEntry* e = registry().find(n);
    if (e != nullptr && e->available) out.emplace_back(n);
  }
  return out;
}

Problem problem(const std::string& kernel, std::uint64_t n, int threads, Precision p = Precision::i32) {
  Problem pr;
  pr.kernel = kernel;
  pr.size = n;
  pr.threads = threads;
  pr.precision = p;
  pr.seed = 0x5eed;
  return pr;
}

const Layout& layout() { return Runtime::instance().layout(); }

TEST(MpiShares, CoverTheRangeExactlyOnce) {
  for (std::uint64_t n : {0ull, 1ull, 2ull, 3ull, 8191ull, 8193ull, 100003ull}) {
    for (int ranks = 1; ranks <= 5; ++ranks) {
      std::uint64_t pi_next = 0, block_next = 0;
      for (int r = 0; r < ranks; ++r) {
        const Share p = pi_share(n, ranks, r), b = block_share(n, ranks, r);
        EXPECT_EQ(p.begin, pi_next);
        EXPECT_EQ(b.begin, block_next);
        EXPECT_EQ(p.begin % 2, 0u);
        EXPECT_TRUE(b.begin % kDotBlock == 0 || b.begin == n);
        pi_next = p.end;
        block_next = b.end;
      }
      EXPECT_EQ(pi_next, n);
      EXPECT_EQ(block_next, n);
    }
  }
}

TEST(MpiPi, CanonicalCountForEveryExecutorThreadsAndSize) {
  const std::vector<std::uint64_t> sizes = {0, 1, 2, 3, 1000003, (1u << 22) + 5};
  for (const auto& name : executors()) {
    const ExecutorFactory make = registry().find(name)->make_executor;
    for (int threads : {1, 2}) {
      if (name == "serial" && threads != 1) continue;
      for (std::uint64_t n : sizes) {
        auto w = make_cpu_rank_workload(make, problem("pi", n, threads), layout());
        w->run();
        w->run();
        const Validation v = w->validate();
        ASSERT_TRUE(v.hits.has_value());
        EXPECT_EQ(*v.hits, pi_hits_points(0x5eed, 0, n))
            << name << " threads=" << threads << " N=" << n << " ranks=" << layout().ranks;
        EXPECT_TRUE(v.pass) << v.detail;
        // Every chunk was counted by exactly one rank in each run (they are handed out once).
        const auto chunks = v.metric("chunks"), mean = v.metric("rank_chunks_mean");
        ASSERT_TRUE(chunks && mean) << v.detail;
        EXPECT_DOUBLE_EQ(*mean * layout().ranks, *chunks) << name << " N=" << n;
      }
    }
  }
}

TEST(MpiPi, ChunksAreWholePairsAndEnoughToBalance) {
  for (std::uint64_t n : {0ull, 1ull, 1000003ull, 1ull << 30, 1ull << 40}) {
    for (int ranks : {1, 3, 16}) {
      for (int threads : {1, 8}) {
        const std::uint64_t c = pi_rank_chunk(n, ranks, threads);
        EXPECT_GE(c, 4096u);
        EXPECT_EQ(c & (c - 1), 0u) << c;  // a power of two: chunks start on whole pairs
        EXPECT_LE(c, (std::uint64_t{1} << 22) * static_cast<std::uint64_t>(2 * threads));
        if (n >= 4096ull * 16 * static_cast<std::uint64_t>(ranks)) {
          EXPECT_GE(n / c, 16u * static_cast<std::uint64_t>(ranks) / 2) << n << " " << ranks;
        }
      }
    }
  }
}

template <class T>
void expect_dot_bits_of_single_process(Precision p) {
  for (std::uint64_t n : {1ull, 8191ull, 8193ull, 3 * 8192ull + 5, 100003ull, 5 * 8192ull}) {
    // The single-process reference, through the CPU workload the serial backend makes.
    Problem pr = problem("dot", n, 1, p);
    auto single = registry().find("serial")->make(pr);
    single->run();
    const double want = single->validate().checksum;
    for (const auto& name : executors()) {
      for (int threads : {1, 2}) {
        if (name == "serial" && threads != 1) continue;
        pr.threads = threads;
        auto w = make_cpu_rank_workload(registry().find(name)->make_executor, pr, layout());
        w->run();
        const Validation v = w->validate();
        EXPECT_EQ(std::memcmp(&v.checksum, &want, sizeof want), 0)
            << name << " threads=" << threads << " n=" << n << " ranks=" << layout().ranks << ": " << v.checksum
            << " vs " << want;
        EXPECT_TRUE(v.pass) << v.detail;
      }
    }
  }
}

TEST(MpiDot, BitsOfTheSingleProcessBackendsDouble) { expect_dot_bits_of_single_process<double>(Precision::f64); }
TEST(MpiDot, BitsOfTheSingleProcessBackendsFloat) { expect_dot_bits_of_single_process<float>(Precision::f32); }

TEST(MpiStream, EveryKernelMatchesGoldOnEveryRank) {
  for (const auto& k : kStreamKernels) {
    for (Precision p : {Precision::f64, Precision::f32}) {
      for (std::uint64_t n : {3ull, 8193ull, 70001ull}) {
        auto w = make_cpu_rank_workload(registry().find("pool")->make_executor, problem(std::string(k.name), n, 2, p), layout());
        for (int i = 0; i < 3; ++i) w->run();
        const Validation v = w->validate();
        EXPECT_TRUE(v.pass) << k.name << " " << to_string(p) << " n=" << n << ": " << v.detail;
      }
    }
  }
}

TEST(MpiSeed, PlusOneAndProbesComplete) {
  for (const char* kernel : {"plus_one", "overhead_reduce", "mpi_barrier", "mpi_allreduce", "mpi_bcast"}) {
    auto w = make_cpu_rank_workload(registry().find("pool")->make_executor, problem(kernel, 10007, 2), layout());
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << kernel << ": " << v.detail;
  }
}

}  // namespace
}  // namespace parlab::mpi

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  parlab::mpi::Runtime::instance().start();
  // Only rank 0 reports; the others' failures still fail the job through their exit code.
  if (parlab::mpi::Runtime::instance().layout().rank != 0) {
    delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  // Every rank's verdict decides the exit code (a failure on rank 2 fails the test).
  int any = rc != 0 ? 1 : 0, all = 0;
  MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  parlab::mpi::Runtime::instance().finish();
  return all;
}
