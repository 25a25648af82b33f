// likwid-bench's report as the likwid-bench peers parse it (peers/likwid.hpp): a real report of
// likwid-bench 5.2.2 (Debian 12), and the ways a report can be wrong, each a FailureError naming
// what is wrong, never a number made up. The peer end to end (a stand-in binary, parlab run):
// tests/python/test_likwid_peer.py.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "peers/likwid.hpp"

namespace parlab {
namespace {

// `likwid-bench -t stream_mem_avx512 -W N:402653184B:2` on this project's 2-core VM, stdout.
const std::string kReal =
    "Allocate: Process running on hwthread 0 (Domain N) - Vector length 16777216/134217728 Offset 0 "
    "Alignment 512\n"
    "Allocate: Process running on hwthread 0 (Domain N) - Vector length 16777216/134217728 Offset 0 "
    "Alignment 512\n"
    "Allocate: Process running on hwthread 0 (Domain N) - Vector length 16777216/134217728 Offset 0 "
    "Alignment 512\n"
    "Initialization: Each thread in domain initializes its own stream chunks\n"
    "--------------------------------------------------------------------------------\n"
    "LIKWID MICRO BENCHMARK\n"
    "Test: stream_mem_avx512\n"
    "--------------------------------------------------------------------------------\n"
    "Using 1 work groups\n"
    "Using 2 threads\n"
    "--------------------------------------------------------------------------------\n"
    "--------------------------------------------------------------------------------\n"
    "Group: 0 Thread 0 Global Thread 0 running on hwthread 0 - Vector length 8388608 Offset 0\n"
    "Group: 0 Thread 1 Global Thread 1 running on hwthread 1 - Vector length 8388608 Offset 8388608\n"
    "--------------------------------------------------------------------------------\n"
    "Cycles:\t\t\t5524646659\n"
    "CPU Clock:\t\t2596108943\n"
    "Cycle Clock:\t\t2596108943\n"
    "Time:\t\t\t2.128049e+00 sec\n"
    "Iterations:\t\t128\n"
    "Iterations per thread:\t64\n"
    "Inner loop executions:\t262144\n"
    "Size (Byte):\t\t402653184\n"
    "Size per thread:\t201326592\n"
    "Number of Flops:\t2147483648\n"
    "MFlops/s:\t\t1009.13\n"
    "Data volume (Byte):\t25769803776\n"
    "MByte/s:\t\t12109.59\n"
    "Cycles per update:\t5.145228\n"
    "Cycles per cacheline:\t41.161825\n"
    "Loads per update:\t2\n"
    "Stores per update:\t1\n"
    "Load bytes per element:\t16\n"
    "Store bytes per elem.:\t8\n"
    "Load/store ratio:\t2.00\n"
    "Instructions:\t\t637534225\n"
    "UOPs:\t\t\t872415232\n"
    "--------------------------------------------------------------------------------\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

void expect_failure(const std::string& out, const std::string& words) {
  try {
    likwid::parse_report(out);
    ADD_FAILURE() << "parsed; expected a failure saying '" << words << "'";
  } catch (const FailureError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(LikwidReport, RealReportParses) {
  const likwid::Report r = likwid::parse_report(kReal);
  EXPECT_EQ(r.test, "stream_mem_avx512");
  EXPECT_EQ(r.threads, 2);
  EXPECT_DOUBLE_EQ(r.time_s, 2.128049);
  EXPECT_EQ(r.iterations, 128u);
  EXPECT_EQ(r.iterations_per_thread, 64u);
  EXPECT_EQ(r.size_bytes, 402653184u);
  EXPECT_DOUBLE_EQ(r.flops, 2147483648.0);
  EXPECT_DOUBLE_EQ(r.data_volume_bytes, 25769803776.0);
  EXPECT_DOUBLE_EQ(r.mbytes_per_s, 12109.59);
  // Its bytes per iteration are parlab's triad count: 24 bytes an element of 2^24.
  EXPECT_DOUBLE_EQ(r.data_volume_bytes / static_cast<double>(r.iterations_per_thread), 24.0 * (1 << 24));
}

TEST(LikwidReport, WrongReportsAreFailuresNamingTheFault) {
  expect_failure("", "printed nothing");
  expect_failure("segmentation of the LIKWID\n", "no 'Test:' line");
  expect_failure(replaced(kReal, "MByte/s:\t\t12109.59\n", ""), "no 'MByte/s:' line");
  expect_failure(replaced(kReal, "Using 2 threads\n", ""), "no 'Using N threads' line");
  expect_failure(replaced(kReal, "12109.59", "18164.39"), "MByte/s 18164.39 is not its total / Time");
  expect_failure(replaced(kReal, "1009.13", "2009.13"), "MFlops/s");
  expect_failure(replaced(kReal, "2.128049e+00 sec", "-1 sec"), "Time '-1 sec' is not a positive");
  expect_failure(replaced(kReal, "Iterations per thread:\t64", "Iterations per thread:\tmany"),
                 "Iterations per thread 'many'");
}

TEST(LikwidReport, TestsAndCommandLine) {
  EXPECT_EQ(likwid::test_name("copy", likwid::Isa::avx512), "copy_mem_avx512");
  EXPECT_EQ(likwid::test_name("triad", likwid::Isa::sse), "stream_mem");
  EXPECT_EQ(likwid::test_name("peakflops", likwid::Isa::avx), "peakflops_avx_fma");
  EXPECT_THROW(likwid::test_name("mul", likwid::Isa::avx), UsageError);
  likwid::Invocation inv;
  inv.binary = "/usr/bin/likwid-bench";
  inv.kernel = "triad";
  inv.test = "stream_mem_avx512";
  inv.size = 1 << 24;
  inv.threads = 2;
  EXPECT_EQ(
      likwid::command_line(inv),
      (std::vector<std::string>{"/usr/bin/likwid-bench", "-t", "stream_mem_avx512", "-W", "N:402653184B:2"}));
  EXPECT_EQ(likwid::access_daemon_dir("/usr/bin/likwid-bench"), "/usr/sbin");
}

}  // namespace
}  // namespace parlab
