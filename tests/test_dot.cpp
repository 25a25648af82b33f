// The deterministic dot: the same bits on every backend and thread count, and equal to a
// serial evaluation of the documented order (blocks of 8192, eight lanes, pairwise).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/kernels.hpp"
#include "core/stream_validation.hpp"
#include "mixed_vectors.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

using test::mixed_magnitude_vector;

// The documented order written out directly, with no executor and no helpers from stream.hpp.
template <class T>
T documented_dot(const std::vector<T>& a, const std::vector<T>& b) {
  const std::uint64_t n = a.size();
  std::vector<T> partial;
  for (std::uint64_t begin = 0; begin < n; begin += 8192) {
    T lane[8] = {};
    for (std::uint64_t i = begin; i < std::min<std::uint64_t>(n, begin + 8192); ++i) {
      lane[(i - begin) % 8] += a[i] * b[i];
    }
    partial.push_back(((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])));
  }
  if (partial.empty()) return T(0);
  while (partial.size() > 1) {
    std::vector<T> next;
    for (std::size_t i = 0; i + 1 < partial.size(); i += 2) next.push_back(partial[i] + partial[i + 1]);
    if (partial.size() % 2) next.push_back(partial.back());
    partial.swap(next);
  }
  return partial[0];
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

const std::uint64_t kSizes[] = {0, 1, 7, 8, 9, 8191, 8192, 8193, 5 * 8192 + 3, 37 * 8192 + 1001};

class DotDeterminism : public ::testing::TestWithParam<test::BackendThreads> {};

TEST_P(DotDeterminism, BitIdenticalToTheDocumentedOrderDouble) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (std::uint64_t n : kSizes) {
    const auto a = mixed_magnitude_vector<double>(n, 1), b = mixed_magnitude_vector<double>(n, 2);
    std::vector<double> scratch(dot_block_count(n) + 1);
    const double got = stream_dot(*ex, a.data(), b.data(), n, scratch.data());
    EXPECT_TRUE(same_bits(got, documented_dot(a, b))) << "n=" << n << " got " << got;
  }
}

TEST_P(DotDeterminism, BitIdenticalToTheDocumentedOrderFloat) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (std::uint64_t n : kSizes) {
    const auto a = mixed_magnitude_vector<float>(n, 3), b = mixed_magnitude_vector<float>(n, 4);
    std::vector<float> scratch(dot_block_count(n) + 1);
    const float got = stream_dot(*ex, a.data(), b.data(), n, scratch.data());
    EXPECT_TRUE(same_bits(got, documented_dot(a, b))) << "n=" << n << " got " << got;
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, DotDeterminism, ::testing::ValuesIn(test::backend_thread_params()),
                         [](const auto& tp) { return test::name_of(tp.param); });

TEST(DotOrder, ANaiveSequentialSumGivesDifferentBits) {
  // Shows the test data is order-sensitive, so bit equality above means the order was kept.
  const std::uint64_t n = 37 * 8192 + 1001;
  const auto a = mixed_magnitude_vector<double>(n, 1), b = mixed_magnitude_vector<double>(n, 2);
  double naive = 0;
  for (std::uint64_t i = 0; i < n; ++i) naive += a[i] * b[i];
  EXPECT_FALSE(same_bits(naive, documented_dot(a, b)));
}

// What every dot workload (CPU, GPU, MPI) reports through DotRuns.
TEST(DotRuns, NeverRanGoldAndAChangeBetweenRunsAreEachAFailure) {
  const std::uint64_t n = 1000;
  StreamGold<double> gold;
  const double exact = gold.dot(n);
  DotRuns<double> none;
  EXPECT_EQ(none.failures(gold, n), std::vector<std::string>{"never ran"});

  DotRuns<double> steady;
  steady.record(exact);
  steady.record(exact);
  EXPECT_TRUE(steady.failures(gold, n).empty());
  EXPECT_EQ(steady.last(), exact);

  DotRuns<double> moved;  // the next representable value: within tolerance, but not the same bits
  moved.record(exact);
  moved.record(std::nextafter(exact, 2 * exact));
  EXPECT_EQ(moved.failures(gold, n), std::vector<std::string>{"dot changed between repetitions"});

  DotRuns<double> off;
  off.record(exact * 1.01);
  const auto why = off.failures(gold, n);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("differs from gold"), std::string::npos) << why[0];

  // validate_stream puts them after the arrays' verdict; the arrays at gold pass.
  std::vector<double> a(n, gold.a), b(n, gold.b), c(n, gold.c);
  const Validation v = validate_stream(StreamKernel::dot, a.data(), b.data(), c.data(), n, gold, 2, moved);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.detail, "dot changed between repetitions");
  EXPECT_TRUE(validate_stream(StreamKernel::dot, a.data(), b.data(), c.data(), n, gold, 2, steady).pass);
}

}  // namespace
}  // namespace parlab
