// The MPI wing's contracts at this job's rank count (ctest runs this binary under mpirun with
// 1, 2, 3 and 4 ranks): every rank runs every test, in the same order, since each is collective.
//
// The CPU executors are those of the registry's mpi+<executor> backends (mpi/backends.cpp), each
// at threads {1, 2} (serial: 1):
// - pi: the canonical count (an independent point-by-point oracle) for N in {0, 1, 2, 3, odd,
//   larger}, on every executor;
// - dot: the bits of the single-process CPU backends, float and double, at sizes that cut the
//   fixed blocks unevenly over the ranks, on every executor;
// - STREAM and plus_one: BabelStream's gold values on every rank, on every executor; the
//   probes (MPI calls, the executor idle) complete;
// - mpi+cuda: pi's canonical count and STREAM/plus_one's gold values over one rank per GPU,
//   skipped only where this host has fewer GPUs than ranks (none on a CPU-only machine); in a
//   build without CUDA it must say why it is unavailable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernels.hpp"
#include "core/pi.hpp"
#include "experiments/wiring/make_registry.hpp"
#include "mpi/runtime.hpp"
#include "mpi/workloads.hpp"
#include "mpi_test_support.hpp"
#if defined(PARLAB_TEST_HAVE_CUDA)
#include "gpu/device.hpp"
#endif

namespace parlab::mpi {
namespace {


// Every mpi+<executor> backend runs on the CPU backend of that name: available exactly when that
// backend is, and then with its executor factory. (Were an executor lost from the registry or
// left unregistered here, the tests below would quietly run on fewer executors.)
TEST(MpiRegistry, EveryCpuRankBackendRunsOnTheExecutorOfItsName) {
  std::vector<std::string> mpi_cpu;
  for (const auto& e : registry().entries()) {
    if (e.kind != BackendKind::mpi || e.name == "mpi+cuda") continue;
    ASSERT_EQ(e.name.rfind("mpi+", 0), 0u) << e.name;
    const std::string executor = e.name.substr(4);
    mpi_cpu.push_back(executor);
    const BackendEntry* cpu = registry().find(executor);
    ASSERT_NE(cpu, nullptr) << e.name << ": no CPU backend '" << executor << "'";
    EXPECT_EQ(cpu->kind, BackendKind::cpu) << e.name;
    EXPECT_EQ(e.available, cpu->available && static_cast<bool>(cpu->make_executor))
        << e.name << ": " << (e.available ? "available" : e.reason) << "; " << executor << ": "
        << (cpu->available ? "available" : cpu->reason);
    if (!e.available) {
      EXPECT_NE(e.reason.find("the " + executor + " executor is unavailable"), std::string::npos) << e.name << ": " << e.reason;
    }
  }
  // serial and pool are always built, so their rank backends must always run.
  for (const char* always : {"serial", "pool"}) {
    EXPECT_NE(std::find(mpi_cpu.begin(), mpi_cpu.end(), always), mpi_cpu.end()) << "no mpi+" << always;
    const BackendEntry* e = registry().find(std::string("mpi+") + always);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->available) << e->name << ": " << e->reason;
  }
  EXPECT_NE(registry().find("mpi+cuda"), nullptr) << "mpi+cuda is registered (available or not) in every MPI build";
}

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
    for (int threads : thread_counts(name)) {
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
    // The single-process oracle, through the CPU workload the serial backend makes.
    Problem pr = problem("dot", n, 1, p);
    auto single = registry().find("serial")->make(pr);
    single->run();
    const double want = single->validate().checksum;
    for (const auto& name : executors()) {
      for (int threads : thread_counts(name)) {
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

TEST(MpiStream, EveryKernelMatchesGoldOnEveryRankForEveryExecutor) {
  for (const auto& name : executors()) {
    const ExecutorFactory make = registry().find(name)->make_executor;
    for (int threads : thread_counts(name)) {
      for (const auto& k : kStreamKernels) {
        for (Precision p : {Precision::f64, Precision::f32}) {
          for (std::uint64_t n : {3ull, 8193ull, 70001ull}) {
            auto w = make_cpu_rank_workload(make, problem(std::string(k.name), n, threads, p), layout());
            for (int i = 0; i < 3; ++i) w->run();
            const Validation v = w->validate();
            EXPECT_TRUE(v.pass) << name << " threads=" << threads << " " << k.name << " " << to_string(p) << " n=" << n
                                << " ranks=" << layout().ranks << ": " << v.detail;
          }
        }
      }
    }
  }
}

TEST(MpiSeed, PlusOneOnEveryExecutor) {
  for (const auto& name : executors()) {
    const ExecutorFactory make = registry().find(name)->make_executor;
    for (int threads : thread_counts(name)) {
      for (std::uint64_t n : {1ull, 10007ull}) {
        auto w = make_cpu_rank_workload(make, problem("plus_one", n, threads), layout());
        w->run();
        w->run();
        const Validation v = w->validate();
        EXPECT_TRUE(v.pass) << name << " threads=" << threads << " n=" << n << " ranks=" << layout().ranks << ": "
                            << v.detail;
      }
    }
  }
}

// The probes measure MPI itself (barrier, 8-byte allreduce and broadcast: the executor idles) and
// the reduction over ranks of the executor's per-thread partials: all of them many times on pool,
// the reduction a few times on every executor (each is an MPI collective, slow on 2 shared cores).
TEST(MpiSeed, ProbesComplete) {
  for (const char* kernel : {"overhead_reduce", "mpi_barrier", "mpi_allreduce", "mpi_bcast"}) {
    auto w = make_cpu_rank_workload(registry().find("pool")->make_executor, problem(kernel, 10007, 2), layout());
    w->run();
    const Validation v = w->validate();
    EXPECT_TRUE(v.pass) << kernel << ": " << v.detail;
  }
  for (const auto& name : executors()) {
    for (int threads : thread_counts(name)) {
      auto w = make_cpu_rank_workload(registry().find(name)->make_executor, problem("overhead_reduce", 11, threads),
                                      layout());
      w->run();
      const Validation v = w->validate();
      EXPECT_TRUE(v.pass) << "overhead_reduce on " << name << " threads=" << threads << ": " << v.detail;
    }
  }
}

#if defined(PARLAB_TEST_HAVE_CUDA)
// Whether cuda's reason is the want of a GPU on this machine: no device, or no driver at all.
bool wants_a_gpu(const std::string& reason) {
  return reason.rfind("no CUDA device", 0) == 0 || reason.rfind("no CUDA driver", 0) == 0;
}
#endif

// mpi+cuda is registered in every MPI build, available exactly when the cuda backend is, and
// otherwise says why with cuda's own reason; where CUDA is compiled in, that reason can only be
// the want of a GPU (anything else is a broken build or driver, not a CPU-only machine).
TEST(MpiCuda, UnavailableExactlyWhenCudaIsAndSaysWhy) {
  const BackendEntry* mc = registry().find("mpi+cuda");
  const BackendEntry* cuda = registry().find("cuda");
  ASSERT_NE(mc, nullptr);
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(mc->kind, BackendKind::mpi);
  EXPECT_EQ(mc->available, cuda->available);
  if (!mc->available) {
    EXPECT_EQ(mc->reason, "the cuda backend is unavailable: " + cuda->reason);
  }
#if defined(PARLAB_TEST_HAVE_CUDA)
  if (!cuda->available) {
    EXPECT_TRUE(wants_a_gpu(cuda->reason) && !cuda->broken)
        << "CUDA is compiled in, so only a missing GPU may make cuda unavailable; it says: " << cuda->reason;
  }
#else
  EXPECT_FALSE(cuda->available);
#endif
}

#if defined(PARLAB_TEST_HAVE_CUDA)
// One rank per GPU of its host (device = the rank's number on the host), each rank's share run by
// the registry's cuda workload: pi's canonical count and STREAM's and plus_one's gold values. The
// only skip is the want of a GPU: no device at all (a CPU-only machine), or fewer devices on a
// host than ranks placed there; the ranks decide together, as every case is collective. A driver
// error is no reason to skip: it fails.
TEST(MpiCuda, OneRankPerGpuGivesTheCanonicalCountAndGoldValues) {
  const cuda::DeviceCount devices = cuda::device_count();
  int error_here = devices.count == 0 && !wants_a_gpu(devices.reason) ? 1 : 0, errors = 0;
  MPI_Allreduce(&error_here, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ASSERT_EQ(errors, 0) << "CUDA failed on " << errors << " rank(s) for a reason other than a missing GPU"
                       << (error_here ? ": " + devices.reason : std::string());
  int enough = devices.count > layout().node_rank ? 1 : 0, everywhere = 0;
  MPI_Allreduce(&enough, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (everywhere == 0) {
    GTEST_SKIP() << "want of a GPU: " << layout().ranks_per_node << " rank(s) on a host with " << devices.count
                 << " GPU(s)" << (devices.reason.empty() ? "" : " (" + devices.reason + ")")
                 << "; mpi+cuda runs one rank per GPU";
  }
  const BackendEntry* cuda = registry().find("cuda");
  ASSERT_TRUE(cuda != nullptr && cuda->available) << (cuda ? cuda->reason : "no cuda backend");
  ASSERT_TRUE(registry().find("mpi+cuda")->available) << registry().find("mpi+cuda")->reason;
  const WorkloadFactory make = cuda->make;
  for (std::uint64_t n : {1ull, 1000003ull, (1ull << 26) + 5}) {
    auto w = make_gpu_rank_workload(make, problem("pi", n, 1), layout());
    w->run();
    w->run();
    const Validation v = w->validate();
    ASSERT_TRUE(v.hits.has_value()) << v.detail;
    EXPECT_EQ(*v.hits, pi_hits_points(0x5eed, 0, n)) << "N=" << n << " ranks=" << layout().ranks;
    EXPECT_TRUE(v.pass) << v.detail;
  }
  for (const std::string& kernel : rank_kernel_table().names([](const RankRow& r) { return r.gpu != nullptr; })) {
    if (kernel == "pi") continue;
    const KernelSpec* spec = find_kernel(kernel);
    ASSERT_NE(spec, nullptr) << kernel;
    for (Precision p : spec->precisions) {
      for (std::uint64_t n : {3ull, 70001ull, (1ull << 22) + 1}) {
        auto w = make_gpu_rank_workload(make, problem(kernel, n, 1, p), layout());
        for (int i = 0; i < 3; ++i) w->run();
        const Validation v = w->validate();
        EXPECT_TRUE(v.pass) << kernel << " " << to_string(p) << " n=" << n << " ranks=" << layout().ranks << ": "
                            << v.detail;
      }
    }
  }
}
#endif

// How far apart the ranks are, as the job measured it at its start: rank 0 holds a latency for
// any job of 2 ranks or more (half a round trip of one byte: above 0, far below a second), none
// for one rank; the other ranks hold none. Across simulated hosts, tests/multihost/check.py holds
// it to the delay put on the link.
TEST(MpiLayout, RankZeroMeasuredItsFarthestLink) {
  const double lat = layout().link_latency_s;
  if (layout().rank != 0 || layout().ranks < 2) {
    EXPECT_EQ(lat, 0.0) << "rank " << layout().rank << " of " << layout().ranks;
  } else {
    EXPECT_GT(lat, 0.0);
    EXPECT_LT(lat, 1.0);
  }
  EXPECT_EQ(layout().process().link_latency_s, lat);
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
