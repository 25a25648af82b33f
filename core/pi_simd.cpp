#include "core/pi_simd.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/pi.hpp"

#include "core/x86_simd.hpp"
#if PARLAB_X86_SIMD
#define PARLAB_PI_X86 1
#endif

namespace parlab {
namespace {

// The ten round keys of `seed`, zero-extended to 64 bits (lane layout of the SIMD paths).
struct RoundKeys {
  std::uint64_t k0[10], k1[10];
};

RoundKeys round_keys(std::uint64_t seed) {
  RoundKeys rk{};
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    rk.k0[r] = k0;
    rk.k1[r] = k1;
    k0 += philox_detail::kWeyl0;
    k1 += philox_detail::kWeyl1;
  }
  return rk;
}

// Pairs that do not fill a vector, on the scalar loop.
std::uint64_t tail_pairs(std::uint64_t seed, std::uint64_t b, std::uint64_t e) {
  std::uint64_t hits = 0;
  for (std::uint64_t j = b; j < e; ++j) hits += pi_pair_hits(seed, j);
  return hits;
}

#if defined(PARLAB_PI_X86)
// Lane layout: each 64-bit lane carries one pair's 32-bit word in its low half. vpmuludq reads
// only the low halves, so the high halves may hold leftovers (a product's high word) and are
// never masked: every word is only ever multiplied (low half read) or xored into a word that
// is. The round is Philox's: x0' = hi(M1*x2) ^ x1 ^ k0, x1' = lo(M1*x2), x2' = hi(M0*x0) ^ x3
// ^ k1, x3' = lo(M0*x0). The hit test x^2 + y^2 < 2^64 is "the 64-bit sum did not wrap".

// pairs_avx512 and pairs_avx2 below have the same shape on purpose, and stay two sets of
// functions: each is compiled for its own target (target("avx512f") / target("avx2")) with that
// ISA's intrinsics, which no template or macro can share without giving up the per-function
// target attribute; and AVX2 lacks the unsigned 64-bit compare AVX-512 has, so their compare
// steps differ. Each trip body is a template on the vectors it keeps in flight (kPiVectors512 /
// kPiVectors256, core/pi_simd.hpp), always inlined: the main loop takes that many, a second loop
// (out of line: pairs_avx512_one) one vector at a time, so a chunk's last pairs short of a whole
// trip stay vectorised, and the scalar loop only what does not fill one vector.
// Each path has a symbol name of its own (an asm label): `parlab ceilings` disassembles it from
// the built binary by that name to count what its hottest loop issues and bound it in-core
// (experiments/machine/incore.cpp), and a rename here must not silently lose that. noinline:
// clang inlined the loops into pi_hits_pairs_isa and emitted no such symbol (the TSan build), and
// one call per chunk costs nothing.
__attribute__((noinline)) std::uint64_t pairs_avx512(std::uint64_t seed, std::uint64_t b, std::uint64_t e)
    __asm__("parlab_pi_pairs_avx512");
__attribute__((noinline)) std::uint64_t pairs_avx2(std::uint64_t seed, std::uint64_t b, std::uint64_t e)
    __asm__("parlab_pi_pairs_avx2");

// What every AVX-512 trip reads: the round keys, multipliers and lane constants.
struct Consts512 {
  __m512i k0[10], k1[10], m0, m1, lanes, one;
};

// Hits of pairs [j, j + 8 * U) added into `hits`.
template <int U>
__attribute__((target("avx512f"), always_inline)) inline __m512i trip512(const Consts512& c, std::uint64_t j,
                                                                         __m512i hits) {
  __m512i x0[U], x1[U], x2[U], x3[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    const __m512i ctr = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(j + 8 * u)), c.lanes);
    x0[u] = ctr;
    x1[u] = _mm512_srli_epi64(ctr, 32);
    x2[u] = _mm512_setzero_si512();
    x3[u] = _mm512_setzero_si512();
  }
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      const __m512i p0 = _mm512_mul_epu32(x0[u], c.m0);
      const __m512i p1 = _mm512_mul_epu32(x2[u], c.m1);
      x0[u] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), x1[u], c.k0[r], 0x96);  // a^b^c
      x1[u] = p1;
      x2[u] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), x3[u], c.k1[r], 0x96);
      x3[u] = p0;
    }
  }
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    const __m512i a = _mm512_mul_epu32(x0[u], x0[u]);
    const __m512i sa = _mm512_add_epi64(a, _mm512_mul_epu32(x1[u], x1[u]));
    const __m512i cc = _mm512_mul_epu32(x2[u], x2[u]);
    const __m512i sc = _mm512_add_epi64(cc, _mm512_mul_epu32(x3[u], x3[u]));
    hits = _mm512_mask_add_epi64(hits, _mm512_cmpge_epu64_mask(sa, a), hits, c.one);
    hits = _mm512_mask_add_epi64(hits, _mm512_cmpge_epu64_mask(sc, cc), hits, c.one);
  }
  return hits;
}

// Pairs short of a whole trip: one vector at a time, then the scalar loop. Out of line, so the
// labelled symbol holds the main loop alone: clang with ASan laid the two loops out as one region,
// and the disassembler counted 161 vpmuludq per trip (138 and the one-vector loop's 23).
__attribute__((noinline)) std::uint64_t pairs_avx512_one(std::uint64_t seed, std::uint64_t b, std::uint64_t e);

// Hits of pairs [b, e): trips of V vectors, then (V > 1) pairs_avx512_one for the rest, or (V == 1)
// the scalar loop.
template <int V>
__attribute__((target("avx512f"), always_inline)) inline std::uint64_t pairs512(std::uint64_t seed, std::uint64_t b,
                                                                                std::uint64_t e) {
  constexpr std::uint64_t kStep = 8 * V;
  const RoundKeys rk = round_keys(seed);
  Consts512 c;
  for (int r = 0; r < 10; ++r) {
    c.k0[r] = _mm512_set1_epi64(static_cast<long long>(rk.k0[r]));
    c.k1[r] = _mm512_set1_epi64(static_cast<long long>(rk.k1[r]));
  }
  c.m0 = _mm512_set1_epi64(philox_detail::kMul0);
  c.m1 = _mm512_set1_epi64(philox_detail::kMul1);
  c.lanes = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  c.one = _mm512_set1_epi64(1);
  __m512i hits = _mm512_setzero_si512();
  std::uint64_t j = b;
  for (; e - j >= kStep; j += kStep) hits = trip512<V>(c, j, hits);
  std::uint64_t rest = 0;
  if constexpr (V == 1) {
    rest = tail_pairs(seed, j, e);
  } else {
    if (j < e) rest = pairs_avx512_one(seed, j, e);
  }
  return static_cast<std::uint64_t>(_mm512_reduce_add_epi64(hits)) + rest;
}

__attribute__((target("avx512f"))) std::uint64_t pairs_avx512_one(std::uint64_t seed, std::uint64_t b, std::uint64_t e) {
  return pairs512<1>(seed, b, e);
}

__attribute__((target("avx512f"))) std::uint64_t pairs_avx512(std::uint64_t seed, std::uint64_t b,
                                                             std::uint64_t e) {
  return pairs512<kPiVectors512>(seed, b, e);
}

// The same loop with other vector counts, for pi_hits_pairs_avx512_vectors. Never instantiated at
// kPiVectors512: a copy identical to pairs_avx512 is folded with it (GCC's identical code folding),
// and g++ 13 then left parlab_pi_pairs_avx512 a bare jump to the copy, with no loop to read.
template <int V>
__attribute__((noinline, target("avx512f"))) std::uint64_t pairs_avx512_v(std::uint64_t seed, std::uint64_t b,
                                                                          std::uint64_t e) {
  static_assert(V != kPiVectors512, "call pairs_avx512 itself");
  return pairs512<V>(seed, b, e);
}

template <int V>
std::uint64_t pairs_avx512_at(std::uint64_t seed, std::uint64_t b, std::uint64_t e) {
  if constexpr (V == kPiVectors512) {
    return pairs_avx512(seed, b, e);
  } else {
    return pairs_avx512_v<V>(seed, b, e);
  }
}

// What every AVX2 trip reads (pairs_avx512's Consts512, on 4 lanes, with the sign bits AVX2's
// signed compare needs: it has no unsigned 64-bit compare, and flipping the sign bits turns an
// unsigned compare into a signed one).
struct Consts256 {
  __m256i k0[10], k1[10], m0, m1, lanes, sign;
};

// Misses of pairs [j, j + 4 * U) added into `misses` (cmpgt gives -1 per miss, subtracted).
template <int U>
__attribute__((target("avx2"), always_inline)) inline __m256i trip256(const Consts256& c, std::uint64_t j,
                                                                      __m256i misses) {
  __m256i x0[U], x1[U], x2[U], x3[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    const __m256i ctr = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(j + 4 * u)), c.lanes);
    x0[u] = ctr;
    x1[u] = _mm256_srli_epi64(ctr, 32);
    x2[u] = _mm256_setzero_si256();
    x3[u] = _mm256_setzero_si256();
  }
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      const __m256i p0 = _mm256_mul_epu32(x0[u], c.m0);
      const __m256i p1 = _mm256_mul_epu32(x2[u], c.m1);
      x0[u] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), x1[u]), c.k0[r]);
      x1[u] = p1;
      x2[u] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), x3[u]), c.k1[r]);
      x3[u] = p0;
    }
  }
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    const __m256i a = _mm256_mul_epu32(x0[u], x0[u]);
    const __m256i sa = _mm256_add_epi64(a, _mm256_mul_epu32(x1[u], x1[u]));
    const __m256i cc = _mm256_mul_epu32(x2[u], x2[u]);
    const __m256i sc = _mm256_add_epi64(cc, _mm256_mul_epu32(x3[u], x3[u]));
    // a miss: the sum wrapped, i.e. a > sum (unsigned)
    misses = _mm256_sub_epi64(misses, _mm256_cmpgt_epi64(_mm256_xor_si256(a, c.sign), _mm256_xor_si256(sa, c.sign)));
    misses = _mm256_sub_epi64(misses, _mm256_cmpgt_epi64(_mm256_xor_si256(cc, c.sign), _mm256_xor_si256(sc, c.sign)));
  }
  return misses;
}

// pairs_avx512_one's twin: the pairs short of a whole AVX2 trip, out of line for the same reason.
__attribute__((noinline)) std::uint64_t pairs_avx2_one(std::uint64_t seed, std::uint64_t b, std::uint64_t e);

// pairs512's twin: hits of pairs [b, e), trips of V vectors, then the rest.
template <int V>
__attribute__((target("avx2"), always_inline)) inline std::uint64_t pairs256(std::uint64_t seed, std::uint64_t b,
                                                                             std::uint64_t e) {
  constexpr std::uint64_t kStep = 4 * V;
  const RoundKeys rk = round_keys(seed);
  Consts256 c;
  for (int r = 0; r < 10; ++r) {
    c.k0[r] = _mm256_set1_epi64x(static_cast<long long>(rk.k0[r]));
    c.k1[r] = _mm256_set1_epi64x(static_cast<long long>(rk.k1[r]));
  }
  c.m0 = _mm256_set1_epi64x(philox_detail::kMul0);
  c.m1 = _mm256_set1_epi64x(philox_detail::kMul1);
  c.lanes = _mm256_setr_epi64x(0, 1, 2, 3);
  c.sign = _mm256_set1_epi64x(static_cast<long long>(std::uint64_t{1} << 63));
  __m256i misses = _mm256_setzero_si256();
  std::uint64_t j = b;
  for (; e - j >= kStep; j += kStep) misses = trip256<V>(c, j, misses);
  std::uint64_t rest = 0;
  if constexpr (V == 1) {
    rest = tail_pairs(seed, j, e);
  } else {
    if (j < e) rest = pairs_avx2_one(seed, j, e);
  }
  alignas(32) std::uint64_t m[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(m), misses);
  return 2 * (j - b) - (m[0] + m[1] + m[2] + m[3]) + rest;
}

__attribute__((target("avx2"))) std::uint64_t pairs_avx2_one(std::uint64_t seed, std::uint64_t b, std::uint64_t e) {
  return pairs256<1>(seed, b, e);
}

__attribute__((target("avx2"))) std::uint64_t pairs_avx2(std::uint64_t seed, std::uint64_t b, std::uint64_t e) {
  return pairs256<kPiVectors256>(seed, b, e);
}
#endif  // PARLAB_PI_X86

PiIsa widest_supported() noexcept {
  if (pi_isa_supported(PiIsa::avx512)) return PiIsa::avx512;
  if (pi_isa_supported(PiIsa::avx2)) return PiIsa::avx2;
  return PiIsa::scalar;
}

PiIsa isa_from_environment() {
  const char* v = std::getenv("PARLAB_PI_ISA");
  if (v == nullptr || *v == '\0') return widest_supported();
  const std::string s(v);
  PiIsa isa;
  if (s == "scalar") {
    isa = PiIsa::scalar;
  } else if (s == "avx2") {
    isa = PiIsa::avx2;
  } else if (s == "avx512") {
    isa = PiIsa::avx512;
  } else {
    throw UsageError("PARLAB_PI_ISA='" + s + "' is not one of scalar, avx2, avx512");
  }
  if (!pi_isa_supported(isa)) {
    throw UsageError("PARLAB_PI_ISA=" + s + " but this CPU cannot run it (widest supported: " +
                     std::string(to_string(widest_supported())) + ")");
  }
  return isa;
}

}  // namespace

std::optional<PiLoop> pi_loop(PiIsa isa) noexcept {
#if defined(PARLAB_PI_X86)
  if (isa == PiIsa::avx512) return PiLoop{"parlab_pi_pairs_avx512", 8, 8 * kPiVectors512, 2 * kPiVectors512};
  if (isa == PiIsa::avx2) return PiLoop{"parlab_pi_pairs_avx2", 4, 4 * kPiVectors256, 2 * kPiVectors256};
#endif
  (void)isa;
  return std::nullopt;
}

std::string_view to_string(PiIsa isa) noexcept {
  switch (isa) {
    case PiIsa::avx2: return "avx2";
    case PiIsa::avx512: return "avx512";
    case PiIsa::scalar: break;
  }
  return "scalar";
}

bool pi_isa_supported(PiIsa isa) noexcept {
  switch (isa) {
    case PiIsa::scalar: return true;
#if defined(PARLAB_PI_X86)
    // __builtin_cpu_supports also checks that the OS saves the vector state (XCR0).
    case PiIsa::avx2: return __builtin_cpu_supports("avx2");
    case PiIsa::avx512: return __builtin_cpu_supports("avx512f");
#else
    case PiIsa::avx2:
    case PiIsa::avx512: return false;
#endif
  }
  return false;
}

PiIsa pi_active_isa() {
  // Decided once; a bad PARLAB_PI_ISA throws on every call rather than being half-applied.
  static const PiIsa isa = isa_from_environment();
  return isa;
}

std::uint64_t pi_hits_pairs_isa(PiIsa isa, std::uint64_t seed, std::uint64_t pair_begin,
                                std::uint64_t pair_end) {
  if (pair_begin >= pair_end) return 0;
  switch (isa) {
#if defined(PARLAB_PI_X86)
    case PiIsa::avx512: return pairs_avx512(seed, pair_begin, pair_end);
    case PiIsa::avx2: return pairs_avx2(seed, pair_begin, pair_end);
#else
    case PiIsa::avx512:
    case PiIsa::avx2: break;
#endif
    case PiIsa::scalar: break;
  }
  return pi_hits_pairs(seed, pair_begin, pair_end);
}

std::uint64_t pi_hits_pairs_avx512_vectors(int vectors, std::uint64_t seed, std::uint64_t pair_begin,
                                           std::uint64_t pair_end) {
  if (vectors != 4 && vectors != 6 && vectors != 8) {
    throw UsageError("pi's AVX-512 loop comes with 4, 6 or 8 vectors in flight, not " + std::to_string(vectors));
  }
  if (pair_begin >= pair_end) return 0;
#if defined(PARLAB_PI_X86)
  if (vectors == 4) return pairs_avx512_at<4>(seed, pair_begin, pair_end);
  if (vectors == 6) return pairs_avx512_at<6>(seed, pair_begin, pair_end);
  return pairs_avx512_at<8>(seed, pair_begin, pair_end);
#else
  return pi_hits_pairs(seed, pair_begin, pair_end);
#endif
}

std::uint64_t pi_hits_pairs_fast(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end) {
  return pi_hits_pairs_isa(pi_active_isa(), seed, pair_begin, pair_end);
}

std::uint64_t pi_hits_points_fast(std::uint64_t seed, std::uint64_t begin, std::uint64_t end) {
  if (begin >= end) return 0;
  std::uint64_t hits = 0;
  if (begin & 1u) {  // the second point of a pair cut by the range's start
    hits += pi_hits_points(seed, begin, begin + 1);
    ++begin;
  }
  if (begin >= end) return hits;
  if (end & 1u) {  // the first point of a pair cut by the range's end
    hits += pi_hits_points(seed, end - 1, end);
    --end;
  }
  return hits + pi_hits_pairs_fast(seed, begin >> 1, end >> 1);
}

}  // namespace parlab
