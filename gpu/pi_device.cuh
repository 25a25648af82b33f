// Device-side pieces of the canonical pi stream (docs/design.md, "The pi stream"), written for the
// SASS they become. Included by pi_kernel.cu only; nvcc-only (CUDA device code).
//
// Equal by construction to core/pi.hpp's philox4x32_10_inplace + pi_hit (the GPU tests hold the
// counts equal to the CPU's), but shaped for sm_90:
//  - each Philox product is __umulhi + a low multiply, which ptxas fuses into ONE
//    IMAD.WIDE.U32 with the multiplier as an immediate;
//  - the counter's high word is a parameter the caller keeps loop-invariant, so the compiler
//    folds round 1 (x2 = x3 = 0: one product is zero) and the first product of round 2
//    (M0 * (hi ^ k0)) out of the loop: 18 multiplies and 19 three-input xors per pair instead
//    of 20 and 20;
//  - the round keys depend on the seed only: computed once on the host, read by the xors from
//    the constant bank, they cost no register and no instruction per pair;
//  - the hit test counts MISSES as the carry out of x^2 + y^2 (mad.lo.cc / madc.hi.cc / addc):
//    a hit is exactly a sum that does not carry out, so hits = 2 * pairs - misses, with no
//    compare or select per point.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/philox.hpp"

namespace parlab::cuda::pi_device {

using philox_detail::kMul0;
using philox_detail::kMul1;
using philox_detail::kWeyl0;
using philox_detail::kWeyl1;

// One Philox round; identical in value to philox_detail::round.
__device__ __forceinline__ void philox_round(std::uint32_t& x0, std::uint32_t& x1, std::uint32_t& x2,
                                             std::uint32_t& x3, std::uint32_t k0, std::uint32_t k1) {
  const std::uint32_t hi0 = __umulhi(kMul0, x0), lo0 = kMul0 * x0;
  const std::uint32_t hi1 = __umulhi(kMul1, x2), lo1 = kMul1 * x2;
  x0 = hi1 ^ x1 ^ k0;
  x1 = lo1;
  x2 = hi0 ^ x3 ^ k1;
  x3 = lo0;
}

// The ten round keys of a seed: {k0, k1} bumped by the Weyl constants before every round but
// the first. Computed on the host and passed by value as a kernel parameter, so the xors read
// them straight from the constant bank (LOP3's c[][] operand): no register, no instruction per
// pair. (Computed in the kernel, they took 20 registers and were rematerialised in the loop.)
struct PhiloxRoundKeys {
  std::uint32_t k0[10];
  std::uint32_t k1[10];
};

inline PhiloxRoundKeys round_keys(std::uint64_t seed) {
  PhiloxRoundKeys keys{};
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r, k0 += kWeyl0, k1 += kWeyl1) {
    keys.k0[r] = k0;
    keys.k1[r] = k1;
  }
  return keys;
}

// M0 * lo + addend as one 64-bit multiply-add (one IMAD.WIDE.U32). Inline PTX on purpose: seen
// through, the compiler strength-reduces the low half of M0 * lo over the loop into an
// induction variable and then needs a separate IMAD.HI for the high half (two instructions and
// a register per stream instead of one instruction).
__device__ __forceinline__ std::uint64_t mul0_wide_add(std::uint32_t lo, std::uint64_t addend) {
  std::uint64_t r;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(lo), "r"(kMul0), "l"(addend));
  return r;
}

// Philox4x32-10 of the counter {lo, hi, 0, 0} given p0 = M0 * lo (64-bit): the four words of
// pair (hi << 32 | lo) of the pi stream under the seed whose round keys are `keys`. Round 1 is
// written out because its second product is M1 * 0: x0 = hi ^ k0, x1 = 0, x2 = hi(p0) ^ k1,
// x3 = lo(p0). With hi loop-invariant, the compiler also hoists round 2's M0 * (hi ^ k0).
__device__ __forceinline__ void philox_pair_from_product(std::uint64_t p0, std::uint32_t hi,
                                                         const PhiloxRoundKeys& keys, std::uint32_t& r0,
                                                         std::uint32_t& r1, std::uint32_t& r2,
                                                         std::uint32_t& r3) {
  r0 = hi ^ keys.k0[0];
  r1 = 0;
  r2 = static_cast<std::uint32_t>(p0 >> 32) ^ keys.k1[0];
  r3 = static_cast<std::uint32_t>(p0);
#pragma unroll
  for (int r = 1; r < 10; ++r) philox_round(r0, r1, r2, r3, keys.k0[r], keys.k1[r]);
}

// Philox4x32-10 of the counter {lo, hi, 0, 0} (see philox_pair_from_product).
__device__ __forceinline__ void philox_pair(std::uint32_t lo, std::uint32_t hi, const PhiloxRoundKeys& keys,
                                            std::uint32_t& r0, std::uint32_t& r1, std::uint32_t& r2,
                                            std::uint32_t& r3) {
  philox_pair_from_product(mul0_wide_add(lo, 0), hi, keys, r0, r1, r2, r3);
}

// Adds to `misses` the carry out of x^2 + y^2 (64-bit): 1 exactly when the point (x, y) is NOT a
// hit (core/pi.hpp's pi_hit is 0). PRECONDITION: misses + 1 does not wrap (callers bound their
// per-thread run lengths).
__device__ __forceinline__ void add_miss(std::uint32_t x, std::uint32_t y, std::uint32_t& misses) {
  asm("{\n\t"
      ".reg .u32 xl, xh, sl, sh;\n\t"
      "mul.lo.u32 xl, %1, %1;\n\t"
      "mul.hi.u32 xh, %1, %1;\n\t"
      "mad.lo.cc.u32 sl, %2, %2, xl;\n\t"   // low words of x^2 + y^2, carry out
      "madc.hi.cc.u32 sh, %2, %2, xh;\n\t"  // high words + carry, carry out = bit 64 of the sum
      "addc.u32 %0, %0, 0;\n\t"
      "}"
      : "+r"(misses)
      : "r"(x), "r"(y));
}

// Misses of both points of the pair whose counter is {lo, hi, 0, 0}, given p0 = M0 * lo,
// added to `misses`.
__device__ __forceinline__ void add_pair_misses(std::uint64_t p0, std::uint32_t hi, const PhiloxRoundKeys& keys,
                                                std::uint32_t& misses) {
  std::uint32_t r0, r1, r2, r3;
  philox_pair_from_product(p0, hi, keys, r0, r1, r2, r3);
  add_miss(r0, r1, misses);
  add_miss(r2, r3, misses);
}

}  // namespace parlab::cuda::pi_device
