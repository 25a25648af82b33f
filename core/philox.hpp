// Philox4x32-10, the counter-based generator of Random123 (Salmon et al., SC'11).
//
// Written once for host and device: nvcc sees __host__ __device__, every other compiler
// sees plain inline functions. Only 32x32->64 multiplies, xors and adds, so the result is a
// pure function of (counter, key) on every platform.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PARLAB_HD __host__ __device__
#else
#define PARLAB_HD
#endif

#if defined(__CUDACC__) || defined(__GNUC__) || defined(__clang__)
#define PARLAB_FORCE_INLINE inline __attribute__((always_inline))
#else
#define PARLAB_FORCE_INLINE inline
#endif

namespace parlab {

struct Philox4x32Counter {
  std::uint32_t v[4];
};

struct Philox4x32Key {
  std::uint32_t v[2];
};

namespace philox_detail {

inline constexpr std::uint32_t kMul0 = 0xD2511F53u;
inline constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
inline constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

PARLAB_HD PARLAB_FORCE_INLINE void round(std::uint32_t& x0, std::uint32_t& x1, std::uint32_t& x2,
                                         std::uint32_t& x3, std::uint32_t k0, std::uint32_t k1) {
  const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * x0;
  const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * x2;
  const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32);
  const std::uint32_t lo0 = static_cast<std::uint32_t>(p0);
  const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32);
  const std::uint32_t lo1 = static_cast<std::uint32_t>(p1);
  x0 = hi1 ^ x1 ^ k0;
  x1 = lo1;
  x2 = hi0 ^ x3 ^ k1;
  x3 = lo0;
}

}  // namespace philox_detail

// The 10-round generator on four words in registers. Split out from philox4x32_10 so that
// hot loops keep everything in scalars the compiler can vectorise across iterations.
PARLAB_HD PARLAB_FORCE_INLINE void philox4x32_10_inplace(std::uint32_t& x0, std::uint32_t& x1,
                                                         std::uint32_t& x2, std::uint32_t& x3,
                                                         std::uint32_t k0, std::uint32_t k1) {
  using namespace philox_detail;
  // Unrolled by hand: ten rounds, the key bumped between rounds (not after the last). Written
  // out rather than looped so nvcc and g++ keep it straight-line in registers (the repeated lines
  // are deliberate).
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
  k0 += kWeyl0; k1 += kWeyl1;
  round(x0, x1, x2, x3, k0, k1);
}

PARLAB_HD inline Philox4x32Counter philox4x32_10(Philox4x32Counter ctr, Philox4x32Key key) {
  philox4x32_10_inplace(ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3], key.v[0], key.v[1]);
  return ctr;
}

}  // namespace parlab
