// The SIMD paths of the pi count (core/pi_simd.hpp) against the scalar loop pi_hits_pairs,
// parametrised over every path: ranges shorter than one vector, than one unrolled step (32
// pairs for AVX-512, 16 for AVX2), not a multiple of either, and counters whose high 32 bits
// change inside a vector (the lane layout keeps them in the upper halves). A path this CPU
// cannot run is skipped with the reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <string>

#include "core/error.hpp"
#include "core/pi.hpp"
#include "core/pi_simd.hpp"

namespace parlab {

// What gtest and ctest print for the parameter (found by argument-dependent lookup in parlab).
void PrintTo(PiIsa isa, std::ostream* os) { *os << to_string(isa); }

namespace {

class PiSimd : public ::testing::TestWithParam<PiIsa> {
 protected:
  void SetUp() override {
    if (!pi_isa_supported(GetParam())) {
      GTEST_SKIP() << "this CPU cannot run the " << to_string(GetParam()) << " path";
    }
  }
};

TEST_P(PiSimd, EveryRangeEqualsTheScalarLoop) {
  const std::uint64_t seeds[] = {0, 42, 0x243F6A8885A308D3ull, ~0ull};
  const std::uint64_t begins[] = {0, 1, 3, 7, 31, 33, (1ull << 32) - 13, (1ull << 62) + 5, ~0ull - 200};
  // Around a vector (4 or 8 pairs), a main-loop trip (16 pairs for AVX2, 48 for AVX-512) and
  // two: each of the three loops (whole trips, one vector at a time, the scalar rest) alone and
  // together.
  const std::uint64_t lengths[] = {0,  1,  2,  3,  4,  5,  7,  8,  9,  15, 16, 17, 31, 32,  33,   40,
                                   47, 48, 49, 55, 56, 57, 63, 64, 65, 95, 96, 97, 100, 1000, 4099};
  for (std::uint64_t seed : seeds) {
    for (std::uint64_t b : begins) {
      for (std::uint64_t n : lengths) {
        if (b + n < b) continue;  // past 2^64 pairs: no such range
        ASSERT_EQ(pi_hits_pairs_isa(GetParam(), seed, b, b + n), pi_hits_pairs(seed, b, b + n))
            << "seed " << seed << ", pairs [" << b << ", " << b + n << ")";
      }
    }
  }
}

TEST_P(PiSimd, EmptyAndReversedRangesCountNothing) {
  EXPECT_EQ(pi_hits_pairs_isa(GetParam(), 1, 10, 10), 0u);
  EXPECT_EQ(pi_hits_pairs_isa(GetParam(), 1, 10, 3), 0u);
}

TEST_P(PiSimd, LargeRangeEqualsTheScalarLoop) {
  // 2^20 + 11 pairs: many full steps and a tail, a count a lane-order bug would change.
  const std::uint64_t n = (1ull << 20) + 11;
  EXPECT_EQ(pi_hits_pairs_isa(GetParam(), 7, 5, 5 + n), pi_hits_pairs(7, 5, 5 + n));
}

INSTANTIATE_TEST_SUITE_P(Paths, PiSimd, ::testing::Values(PiIsa::scalar, PiIsa::avx2, PiIsa::avx512),
                         [](const ::testing::TestParamInfo<PiIsa>& i) { return std::string(to_string(i.param)); });

// The AVX-512 loop at each vector count the benchmark compares: the same count, and a count it
// does not build is refused.
TEST(PiSimdVectors, EveryWidthEqualsTheScalarLoop) {
  EXPECT_THROW(pi_hits_pairs_avx512_vectors(5, 1, 0, 100), UsageError);
  if (!pi_isa_supported(PiIsa::avx512)) GTEST_SKIP() << "this CPU cannot run the avx512 path";
  for (int v : {4, 6, 8}) {
    for (std::uint64_t n : {0, 1, 7, 8, 9, 31, 32, 33, 47, 48, 63, 64, 65, 4099}) {
      ASSERT_EQ(pi_hits_pairs_avx512_vectors(v, 3, 11, 11 + n), pi_hits_pairs(3, 11, 11 + n))
          << v << " vectors, " << n << " pairs";
    }
  }
}

TEST(PiSimdPoints, FastPointsEqualTheScalarLoopForEveryCut) {
  // Odd and even starts and ends: the cut pairs go to the scalar code, the rest to the SIMD path.
  for (std::uint64_t b = 0; b < 70; ++b) {
    for (std::uint64_t e = b; e < b + 150; e += 7) {
      ASSERT_EQ(pi_hits_points_fast(11, b, e), pi_hits_points(11, b, e)) << "points [" << b << ", " << e << ")";
    }
  }
}

TEST(PiSimdPoints, ActivePathIsSupported) {
  // The widest path unless PARLAB_PI_ISA names one; either way one this CPU runs.
  EXPECT_TRUE(pi_isa_supported(pi_active_isa())) << to_string(pi_active_isa());
  if (std::getenv("PARLAB_PI_ISA") == nullptr) {
    const PiIsa widest = pi_isa_supported(PiIsa::avx512) ? PiIsa::avx512
                         : pi_isa_supported(PiIsa::avx2) ? PiIsa::avx2
                                                         : PiIsa::scalar;
    EXPECT_EQ(pi_active_isa(), widest);
  }
}

}  // namespace
}  // namespace parlab
