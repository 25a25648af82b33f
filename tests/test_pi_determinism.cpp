// The pi count is a pure function of (seed, N): every backend, thread count and chunking must
// give exactly the count of an independent, point-by-point oracle.
#include <gtest/gtest.h>

#include "core/kernels.hpp"
#include "test_support.hpp"

namespace parlab {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension; fine in a test

// An independent oracle: one Philox call per point, the hit test in 128-bit arithmetic
// (not the carry trick of pi_hit), so a bug in the fast path cannot hide in both.
std::uint64_t independent_hits(std::uint64_t seed, std::uint64_t n) {
  std::uint64_t hits = 0;
  for (std::uint64_t p = 0; p < n; ++p) {
    const std::uint64_t j = p / 2;
    const auto r = philox4x32_10({{static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(j >> 32), 0, 0}},
                                 {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}});
    const u128 x = (p % 2 == 0) ? r.v[0] : r.v[2];
    const u128 y = (p % 2 == 0) ? r.v[1] : r.v[3];
    if (x * x + y * y < (static_cast<u128>(1) << 64)) ++hits;
  }
  return hits;
}

constexpr std::uint64_t kSeed = 0x243F6A8885A308D3ull;
// 0..3 and odd sizes; 8192 samples is one chunk (kPiGrainPairs pairs); the larger sizes are
// not a multiple of any chunk, grain or thread count used here.
const std::uint64_t kSizes[] = {0, 1, 2, 3, 5, 17, 1023, 8191, 8193, 3 * 8192 + 5, 100003};

class PiDeterminism : public ::testing::TestWithParam<test::BackendThreads> {};

TEST_P(PiDeterminism, EqualsTheIndependentCountAtEverySize) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  for (std::uint64_t n : kSizes) {
    EXPECT_EQ(pi_hits(*ex, kSeed, n), independent_hits(kSeed, n)) << "N = " << n;
  }
}

TEST_P(PiDeterminism, TwentyRepetitionsNeverChange) {
  auto ex = test::make_executor(GetParam().backend, GetParam().threads);
  const std::uint64_t n = 2 * 8192 * 3 + 7;
  const std::uint64_t expect = independent_hits(kSeed, n);
  for (int rep = 0; rep < 20; ++rep) ASSERT_EQ(pi_hits(*ex, kSeed, n), expect) << "repetition " << rep;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, PiDeterminism, ::testing::ValuesIn(test::backend_thread_params()),
                         [](const auto& tp) { return test::name_of(tp.param); });

TEST(PiStream, AnySplitOfTheRangeSumsToTheCount) {
  // Python threads split one stream by (start, samples); every boundary, odd or even, must work.
  const std::uint64_t n = 1001;
  const std::uint64_t whole = independent_hits(7, n);
  for (std::uint64_t cut = 0; cut <= n; ++cut) {
    ASSERT_EQ(pi_hits_points(7, 0, cut) + pi_hits_points(7, cut, n), whole) << "cut " << cut;
  }
  std::uint64_t sum = 0;
  for (std::uint64_t b = 0; b < n; b += 3) sum += pi_hits_points(7, b, b + 3 < n ? b + 3 : n);
  EXPECT_EQ(sum, whole);
}

TEST(PiStream, CountsAboveTwoToThe32PairsUseTheHighCounterWord) {
  // Pair j = 2^32 has counter {0, 1, 0, 0}: a different stream position from pair 0.
  const std::uint64_t j = std::uint64_t{1} << 32;
  EXPECT_EQ(pi_hits_points(5, 2 * j, 2 * j + 2), pi_pair_hits(5, j));
  const auto r0 = philox4x32_10({{0, 0, 0, 0}}, {{5, 0}});
  const auto r1 = philox4x32_10({{0, 1, 0, 0}}, {{5, 0}});
  EXPECT_NE(r0.v[0], r1.v[0]);
}

TEST(PiHit, BoundaryOfTheCircle) {
  EXPECT_EQ(pi_hit(0, 0), 1u);
  EXPECT_EQ(pi_hit(0xffffffffu, 0), 1u);            // (2^32-1)^2 < 2^64
  EXPECT_EQ(pi_hit(0xffffffffu, 0xffffffffu), 0u);  // 2 (2^32-1)^2 >= 2^64
  // 3037000499^2 * 2 < 2^64 <= 3037000500^2 * 2
  EXPECT_EQ(pi_hit(3037000499u, 3037000499u), 1u);
  EXPECT_EQ(pi_hit(3037000500u, 3037000500u), 0u);
}

}  // namespace
}  // namespace parlab
