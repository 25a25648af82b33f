// The canonical Monte Carlo pi stream (docs/design.md, "The pi stream").
//
// Point p of the stream for `seed` comes from pair j = p / 2: Philox4x32-10 with counter
// {lo32(j), hi32(j), 0, 0} and key {lo32(seed), hi32(seed)}; (r0, r1) is point 2j and
// (r2, r3) is point 2j+1. A point (x, y) hits when x^2 + y^2 < 2^64, decided in 64-bit
// unsigned arithmetic (a hit is a sum that does not carry out). No floating point, so the hit
// count of any set of points is a pure function of the seed and the point indices: every
// backend that counts each point of [0, N) exactly once gets the same integer.
#pragma once

#include <cmath>
#include <cstdint>

#include "philox.hpp"

namespace parlab {

PARLAB_HD PARLAB_FORCE_INLINE std::uint32_t pi_hit(std::uint32_t x, std::uint32_t y) {
  const std::uint64_t xx = static_cast<std::uint64_t>(x) * x;
  const std::uint64_t yy = static_cast<std::uint64_t>(y) * y;
  const std::uint64_t sum = xx + yy;
  // The sum wrapped (x^2 + y^2 >= 2^64) exactly when it is smaller than one of its terms.
  return sum >= xx ? 1u : 0u;
}

// Hits of both points of pair j.
PARLAB_HD PARLAB_FORCE_INLINE std::uint32_t pi_pair_hits(std::uint64_t seed, std::uint64_t j) {
  std::uint32_t x0 = static_cast<std::uint32_t>(j), x1 = static_cast<std::uint32_t>(j >> 32);
  std::uint32_t x2 = 0, x3 = 0;
  philox4x32_10_inplace(x0, x1, x2, x3, static_cast<std::uint32_t>(seed),
                        static_cast<std::uint32_t>(seed >> 32));
  return pi_hit(x0, x1) + pi_hit(x2, x3);
}

// Hits of the pairs [pair_begin, pair_end), both points of each: the scalar loop, shared by
// host and device. Straight-line integer code with a 32-bit per-block counter; clang vectorises
// it well (vpmuludq), g++ 12/13 do not (vpmullq), so the CPU backends run pi_simd.hpp's
// explicit SIMD paths, which the tests hold equal to this loop.
PARLAB_HD inline std::uint64_t pi_hits_pairs(std::uint64_t seed, std::uint64_t pair_begin,
                                             std::uint64_t pair_end) {
  const std::uint32_t k0 = static_cast<std::uint32_t>(seed);
  const std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
  std::uint64_t total = 0;
  // Blocks of at most 2^30 pairs keep the 32-bit counter from overflowing (2 hits per pair).
  constexpr std::uint64_t kBlock = std::uint64_t{1} << 30;
  for (std::uint64_t b = pair_begin; b < pair_end;) {
    const std::uint64_t e = (pair_end - b > kBlock) ? b + kBlock : pair_end;
    std::uint32_t count = 0;
    for (std::uint64_t j = b; j < e; ++j) {
      std::uint32_t x0 = static_cast<std::uint32_t>(j), x1 = static_cast<std::uint32_t>(j >> 32);
      std::uint32_t x2 = 0, x3 = 0;
      philox4x32_10_inplace(x0, x1, x2, x3, k0, k1);
      count += pi_hit(x0, x1) + pi_hit(x2, x3);
    }
    total += count;
    b = e;
  }
  return total;
}

// Hits of the points [begin, end) of the stream. Any split of [0, N) into such ranges sums to
// the canonical count, whatever the boundaries (odd or even).
PARLAB_HD inline std::uint64_t pi_hits_points(std::uint64_t seed, std::uint64_t begin,
                                              std::uint64_t end) {
  if (begin >= end) return 0;
  std::uint64_t hits = 0;
  const std::uint32_t k0 = static_cast<std::uint32_t>(seed);
  const std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
  if (begin & 1u) {  // the second point of a pair whose first point lies outside the range
    const std::uint64_t j = begin >> 1;
    std::uint32_t x0 = static_cast<std::uint32_t>(j), x1 = static_cast<std::uint32_t>(j >> 32);
    std::uint32_t x2 = 0, x3 = 0;
    philox4x32_10_inplace(x0, x1, x2, x3, k0, k1);
    hits += pi_hit(x2, x3);
    ++begin;
  }
  hits += pi_hits_pairs(seed, begin >> 1, end >> 1);
  if ((end & 1u) && end - 1 >= begin) {  // the first point of a pair cut by the range's end
    const std::uint64_t j = end >> 1;
    std::uint32_t x0 = static_cast<std::uint32_t>(j), x1 = static_cast<std::uint32_t>(j >> 32);
    std::uint32_t x2 = 0, x3 = 0;
    philox4x32_10_inplace(x0, x1, x2, x3, k0, k1);
    hits += pi_hit(x0, x1);
  }
  return hits;
}

// Random123's pi_check: hits ~ Binomial(N, pi/4); more than 3 sigma from N*pi/4 fails.
struct PiCheck {
  double estimate = 0.0;  // 4 * hits / N (0 when N == 0)
  double sigmas = 0.0;    // (hits - N*pi/4) / sigma
  bool pass = true;       // |sigmas| <= 3; N == 0 passes vacuously
};

inline PiCheck pi_check(std::uint64_t hits, std::uint64_t samples, double max_sigmas = 3.0) {
  PiCheck c;
  if (samples == 0) return c;
  constexpr double kQuarterPi = 0.78539816339744830962;
  const double n = static_cast<double>(samples);
  const double mean = n * kQuarterPi;
  const double sigma = std::sqrt(n * kQuarterPi * (1.0 - kQuarterPi));
  c.estimate = 4.0 * static_cast<double>(hits) / n;
  c.sigmas = (static_cast<double>(hits) - mean) / sigma;
  c.pass = std::fabs(c.sigmas) <= max_sigmas;
  return c;
}

}  // namespace parlab
