// Random123's pi_check: hits ~ Binomial(N, pi/4), more than 3 sigma from N*pi/4 fails.
#include <gtest/gtest.h>

#include <cmath>

#include "core/pi.hpp"

namespace parlab {
namespace {

constexpr double kQuarterPi = 0.78539816339744830962;

std::uint64_t hits_at_sigma(std::uint64_t n, double sigmas) {
  const double sd = std::sqrt(static_cast<double>(n) * kQuarterPi * (1 - kQuarterPi));
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * kQuarterPi + sigmas * sd));
}

TEST(PiCheck, FailsBeyondThreeSigmaAndPassesWithin) {
  const std::uint64_t n = 10'000'000;
  EXPECT_TRUE(pi_check(hits_at_sigma(n, 0.0), n).pass);
  EXPECT_TRUE(pi_check(hits_at_sigma(n, 2.9), n).pass);
  EXPECT_TRUE(pi_check(hits_at_sigma(n, -2.9), n).pass);
  EXPECT_FALSE(pi_check(hits_at_sigma(n, 3.1), n).pass);
  EXPECT_FALSE(pi_check(hits_at_sigma(n, -3.1), n).pass);
  EXPECT_FALSE(pi_check(0, n).pass);  // a kernel that counts nothing
  EXPECT_FALSE(pi_check(n, n).pass);  // a kernel that counts everything
}

TEST(PiCheck, CanonicalStreamPassesForSeveralSeeds) {
  const std::uint64_t n = 1 << 20;
  for (std::uint64_t seed : {0ull, 1ull, 42ull, 0xdeadbeefcafef00dull}) {
    const std::uint64_t hits = pi_hits_points(seed, 0, n);
    const PiCheck c = pi_check(hits, n);
    EXPECT_TRUE(c.pass) << "seed " << seed << ": " << c.sigmas << " sigma";
    EXPECT_NEAR(c.estimate, 3.14159265, 0.01);
  }
}

TEST(PiCheck, ZeroSamplesIsVacuous) {
  const PiCheck c = pi_check(0, 0);
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(c.estimate, 0.0);
}

}  // namespace
}  // namespace parlab
