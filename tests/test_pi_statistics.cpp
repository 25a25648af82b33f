// Random123's pi_check: hits ~ Binomial(N, pi/4), more than 3 sigma from N*pi/4 fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/pi.hpp"
#include "core/workload.hpp"

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

// The hit tracker every pi workload keeps: repeatable, within 3 sigma, and where it is asked to,
// the canonical count (canonical_pi_hits, counted on raw threads).
TEST(PiHitsTracker, HoldsACountToTheCanonicalOneWhenGiven) {
  const std::uint64_t seed = 42, n = (std::uint64_t{1} << 22) + 5;  // past the threaded recount's cut
  const std::uint64_t canonical = canonical_pi_hits(seed, n);
  EXPECT_EQ(canonical, pi_hits_points(seed, 0, n));
  PiHitsTracker right, wrong, moved, none;
  EXPECT_FALSE(none.ran());
  EXPECT_EQ(none.validate(n).detail, "never ran");
  right.record(canonical);
  wrong.record(canonical + 1);  // within 3 sigma, but not the stream's count
  moved.record(canonical);
  moved.record(canonical + 1);
  EXPECT_TRUE(right.validate(n, "", canonical).pass);
  EXPECT_NE(right.validate(n, "", canonical).detail.find("(the canonical count)"), std::string::npos);
  EXPECT_TRUE(wrong.validate(n).pass);  // without the canonical count only 3 sigma is checked
  const Validation w = wrong.validate(n, "", canonical);
  EXPECT_FALSE(w.pass);
  EXPECT_NE(w.detail.find("differ from the canonical count " + std::to_string(canonical)), std::string::npos)
      << w.detail;
  EXPECT_FALSE(moved.validate(n).pass);
  EXPECT_NE(moved.validate(n).detail.find("hit count changed between repetitions"), std::string::npos);
}

}  // namespace
}  // namespace parlab
