// Host-only fast path of the canonical pi count: pi_hits_pairs' arithmetic (pi.hpp), eight
// (AVX-512F) or four (AVX2) pairs at a time in 64-bit lanes with vpmuludq, picked once at run
// time from what the CPU supports.
//
// Why intrinsics here and nowhere else: g++ 12/13 vectorises pi.hpp's scalar loop with a
// 64x64-bit multiply (vpmullq) plus permutes instead of the 32x32->64 vpmuludq the algorithm
// needs, and runs it 3.6x slower than clang does (8.1e8 against 2.96e9 samples/s on one core
// of the 2-core AMD EPYC; `parlab_bench --benchmark_filter=pi_kernel/` shows each path). The scalar loop in
// pi.hpp stays the oracle: host and device share it, and tests compare every path to it.
//
// PARLAB_PI_ISA=scalar|avx2|avx512 in the environment forces a path (studies, tests); naming
// one this CPU lacks is a UsageError.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace parlab {

enum class PiIsa { scalar, avx2, avx512 };

std::string_view to_string(PiIsa isa) noexcept;

// Whether this CPU (and OS) can run `isa`.
bool pi_isa_supported(PiIsa isa) noexcept;

// The path pi_hits_pairs_fast takes: PARLAB_PI_ISA if set, else the widest supported.
PiIsa pi_active_isa();

// Hits of the pairs [pair_begin, pair_end) on `isa`. PRECONDITION: pi_isa_supported(isa).
std::uint64_t pi_hits_pairs_isa(PiIsa isa, std::uint64_t seed, std::uint64_t pair_begin,
                                std::uint64_t pair_end);

// The compiled loop of a SIMD path, for `parlab ceilings` to find in the built binary and read
// (experiments/machine/incore.hpp): its symbol, the 64-bit lanes of its vectors (one pair per
// lane), the pairs one trip of its main loop takes, and the dependency chains a trip keeps in
// flight (each vector's round swaps two words: x0 feeds the next x2 and x2 the next x0, two
// chains of multiply, shift and logic per vector). nullopt for the scalar path (no loop of
// parlab's own shape: the compiler's).
//
// Vectors a trip keeps in flight, per path: one vector's ten rounds are a dependency chain of
// ~60 cycles, so the trip must hold enough of them to keep the vector ports busy. AVX-512 takes 6
// (12 chains): its 32 registers hold 6 vectors' four words each beside the multipliers, and on
// one core of the 2-core EPYC (Zen 5) 6 ran 15% faster than 4 (2.56 against 2.22e9 samples/s);
// 8 need 32 registers for the words alone, and spilled them (265 moves in the loop) and ran 20%
// slower than 4 (pi_hits_pairs_avx512_vectors runs each, for the benchmark). AVX2 has 16
// registers: 4 vectors already fill them.
inline constexpr int kPiVectors512 = 6;
inline constexpr int kPiVectors256 = 4;

struct PiLoop {
  std::string_view symbol;
  int lanes;
  int pairs_per_iteration;
  int chains;
};
std::optional<PiLoop> pi_loop(PiIsa isa) noexcept;

// Hits of the pairs [pair_begin, pair_end) on the AVX-512 path with `vectors` (4, 6 or 8) in
// flight per trip instead of kPiVectors512: what the choice of 6 is worth on this CPU
// (`parlab_bench --benchmark_filter=pi_kernel_vectors/`), and its test. UsageError for another
// count. PRECONDITION: pi_isa_supported(PiIsa::avx512).
std::uint64_t pi_hits_pairs_avx512_vectors(int vectors, std::uint64_t seed, std::uint64_t pair_begin,
                                           std::uint64_t pair_end);

// Equal to pi_hits_pairs / pi_hits_points for every argument, on the active path.
std::uint64_t pi_hits_pairs_fast(std::uint64_t seed, std::uint64_t pair_begin, std::uint64_t pair_end);
std::uint64_t pi_hits_points_fast(std::uint64_t seed, std::uint64_t begin, std::uint64_t end);

}  // namespace parlab
