// Philox4x32-10 against Random123's known-answer vectors (docs/design.md, "The pi stream").
#include <gtest/gtest.h>

#include "core/philox.hpp"

namespace parlab {
namespace {

struct Kat {
  Philox4x32Counter ctr;
  Philox4x32Key key;
  Philox4x32Counter expect;
};

TEST(Philox, KnownAnswerVectors) {
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       {{0xffffffff, 0xffffffff}},
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       {{0xa4093822, 0x299f31d0}},
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Kat& k : kats) {
    const Philox4x32Counter got = philox4x32_10(k.ctr, k.key);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(got.v[i], k.expect.v[i]) << "word " << i << " of counter " << std::hex << k.ctr.v[0];
    }
  }
}

TEST(Philox, InPlaceFormMatchesStructForm) {
  for (std::uint32_t j = 0; j < 1000; ++j) {
    const Philox4x32Counter a = philox4x32_10({{j, j * 7u, 3u, 0u}}, {{j ^ 0x5555u, 99u}});
    std::uint32_t x0 = j, x1 = j * 7u, x2 = 3u, x3 = 0u;
    philox4x32_10_inplace(x0, x1, x2, x3, j ^ 0x5555u, 99u);
    EXPECT_EQ(a.v[0], x0);
    EXPECT_EQ(a.v[1], x1);
    EXPECT_EQ(a.v[2], x2);
    EXPECT_EQ(a.v[3], x3);
  }
}

TEST(Philox, DifferentCountersGiveDifferentOutputs) {
  // Not a randomness test: a guard against a refactor that drops the counter from a round.
  const auto a = philox4x32_10({{1, 0, 0, 0}}, {{0, 0}});
  const auto b = philox4x32_10({{2, 0, 0, 0}}, {{0, 0}});
  EXPECT_NE(a.v[0], b.v[0]);
}

}  // namespace
}  // namespace parlab
