// The spread shape (core/spread.hpp) at the edges: none, one value, an even and an odd count, the
// median's interval below and above 6 values, the unstable mark. tests/python/test_spread.py holds
// the Python mirror equal to it on every committed record.
#include "core/spread.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace parlab {
namespace {

TEST(Spread, NoValuesHaveNone) { EXPECT_FALSE(spread_of({}).has_value()); }

TEST(Spread, OneValueHasNoSpreadAndNoCoverage) {
  const auto s = spread_of({2.0});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 1u);
  EXPECT_EQ(s->stddev, 0.0);
  EXPECT_EQ(s->cv, 0.0);
  EXPECT_EQ(s->median_ci[0], 2.0);
  EXPECT_EQ(s->median_ci[1], 2.0);
  EXPECT_NEAR(s->ci_level, 0.0, 1e-15);
  EXPECT_TRUE(unstable_reason(*s).empty());
}

TEST(Spread, OddCountQuartilesAndIntervalOfFive) {
  const auto s = spread_of({4.0, 1.0, 3.0, 2.0, 5.0});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->min, 1.0);
  EXPECT_EQ(s->q1, 2.0);
  EXPECT_EQ(s->median, 3.0);
  EXPECT_EQ(s->q3, 4.0);
  EXPECT_EQ(s->max, 5.0);
  EXPECT_DOUBLE_EQ(s->cv, std::sqrt(2.5) / 3);
  // Below 6 values no pair reaches 95%: [min, max], with its coverage 1 - 2/32.
  EXPECT_EQ(s->median_ci[0], 1.0);
  EXPECT_EQ(s->median_ci[1], 5.0);
  EXPECT_NEAR(s->ci_level, 0.9375, 1e-12);
  EXPECT_EQ(unstable_reason(*s), "CV 53% over 10%");
}

TEST(Spread, EvenCountInterpolatesAndTwentyValuesNarrowTheInterval) {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  const auto s = spread_of(v);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->median, 10.5);
  EXPECT_DOUBLE_EQ(s->q1, 5.75);
  EXPECT_DOUBLE_EQ(s->q3, 15.25);
  EXPECT_EQ(s->median_ci[0], 6.0);  // x_(6) .. x_(15): 95.9%
  EXPECT_EQ(s->median_ci[1], 15.0);
  EXPECT_NEAR(s->ci_level, 0.9586105346679688, 1e-12);
}

// Against the definition summed afresh for each rank: the interval's rank and coverage for every n
// up to 300, where the level is crossed at many different ranks.
TEST(Spread, IntervalMatchesTheFreshSumAtEveryCount) {
  const auto cdf = [](std::size_t n, std::size_t k) {
    double sum = 0;
    for (std::size_t i = 0; i <= k && i <= n; ++i)
      sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
    return sum;
  };
  for (std::size_t n = 1; n <= 300; ++n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i + 1);
    std::size_t j = 1;
    while (j + 1 <= (n + 1) / 2 && 1 - 2 * cdf(n, j) >= kSpreadCiLevel) ++j;
    const auto s = spread_of(v);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->median_ci[0], static_cast<double>(j)) << "n=" << n;
    EXPECT_EQ(s->median_ci[1], static_cast<double>(n + 1 - j)) << "n=" << n;
    EXPECT_EQ(s->ci_level, 1 - 2 * cdf(n, j - 1)) << "n=" << n;
  }
}

// A million repetitions (parlab migrate and pooled rounds meet such records): the interval stays
// where the normal approximation puts it, n/2 -+ 0.98 sqrt(n), and its coverage just above 95%.
TEST(Spread, AMillionRepetitionsKeepTheIntervalByTheNormalApproximation) {
  const std::size_t n = 1000000;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(n - i);  // reversed: the sort matters
  const auto s = spread_of(std::move(v));
  ASSERT_TRUE(s);
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  EXPECT_NEAR(s->median_ci[0], n / 2.0 - half, 3.0);
  EXPECT_NEAR(s->median_ci[1], n / 2.0 + half, 3.0);
  EXPECT_GE(s->ci_level, kSpreadCiLevel);
  EXPECT_LT(s->ci_level, 0.9505);
}

TEST(Spread, StableAtTheThreshold) {
  Spread s;
  s.cv = kUnstableCv;
  EXPECT_TRUE(unstable_reason(s).empty());
  s.cv = 0.78;
  EXPECT_EQ(unstable_reason(s), "CV 78% over 10%");
}

}  // namespace
}  // namespace parlab
