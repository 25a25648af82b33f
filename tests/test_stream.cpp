// STREAM gold validation (BabelStream's method) for every backend, thread count and precision,
// through the same workloads the runner uses.
#include <gtest/gtest.h>

#include <ostream>

#include "core/stream.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

struct StreamParam {
  test::BackendThreads bt;
  Precision precision;
};

// What ctest and gtest print for the parameter (else "48-byte object <...>").
void PrintTo(const StreamParam& p, std::ostream* os) {
  *os << p.bt.backend << " threads=" << p.bt.threads << " " << to_string(p.precision);
}

std::vector<StreamParam> stream_params() {
  std::vector<StreamParam> out;
  for (const auto& bt : test::backend_thread_params()) {
    for (Precision p : {Precision::f64, Precision::f32}) out.push_back({bt, p});
  }
  return out;
}

class StreamGoldTest : public ::testing::TestWithParam<StreamParam> {};

// 0, 1, odd, one grain (1024), not a multiple of any grain, more than one dot block (8192).
const std::uint64_t kSizes[] = {0, 1, 7, 1024, 1025, 3 * 8192 + 77};

TEST_P(StreamGoldTest, EveryKernelMatchesGold) {
  const auto& backend = test::registry().get(GetParam().bt.backend);
  for (const auto& k : kStreamKernels) {
    for (std::uint64_t n : kSizes) {
      Problem p;
      p.kernel = std::string(k.name);
      p.precision = GetParam().precision;
      p.size = n;
      p.threads = GetParam().bt.threads;
      auto w = backend.make(p);
      for (int rep = 0; rep < 3; ++rep) w->run();  // nstream grows: gold must follow the count
      const Validation v = w->validate();
      EXPECT_TRUE(v.pass) << k.name << " n=" << n << ": " << v.detail;
    }
  }
}

TEST_P(StreamGoldTest, ValidationCatchesACorruptedArray) {
  // A validation that cannot fail proves nothing: run triad, then check the gold of a kernel
  // sequence that did not happen (an extra nstream) and expect a failure.
  const std::uint64_t n = 4097;
  std::vector<double> a(n, 0.1), b(n, 0.2), c(n, 0.0);
  StreamGold<double> gold;
  stream_range(StreamKernel::triad, a.data(), b.data(), c.data(), StreamInit<double>::scalar, 0, n);
  gold.apply(StreamKernel::triad);
  EXPECT_TRUE(check_stream_arrays(a.data(), b.data(), c.data(), n, gold).pass);
  gold.apply(StreamKernel::nstream);
  EXPECT_FALSE(check_stream_arrays(a.data(), b.data(), c.data(), n, gold).pass);
  a[n / 2] = 1e6;  // and one bad element among thousands of good ones
  StreamGold<double> g2;
  g2.apply(StreamKernel::triad);
  EXPECT_FALSE(check_stream_arrays(a.data(), b.data(), c.data(), n, g2).pass);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, StreamGoldTest, ::testing::ValuesIn(stream_params()),
                         [](const auto& tp) {
                           return test::name_of(tp.param.bt) + "_" + to_string(tp.param.precision);
                         });

TEST(StreamKernelTable, BytesAndFlopsAreBabelStreams) {
  EXPECT_EQ(info(StreamKernel::copy).words, 2);
  EXPECT_EQ(info(StreamKernel::mul).words, 2);
  EXPECT_EQ(info(StreamKernel::add).words, 3);
  EXPECT_EQ(info(StreamKernel::triad).words, 3);
  EXPECT_EQ(info(StreamKernel::dot).words, 2);
  EXPECT_EQ(info(StreamKernel::nstream).words, 4);
  for (const auto& k : kStreamKernels) EXPECT_EQ(stream_kernel_from_name(k.name), k.kernel);
  EXPECT_FALSE(stream_kernel_from_name("triads").has_value());
}

}  // namespace
}  // namespace parlab
