// The innermost work of the blocked matmul (kernels.hpp, matmul_blocked), one function with a
// name of its own: a tile's rows, over its columns, updated over one k-block. It lives out of line
// so that `parlab ceilings` can find its compiled loop in the built binary and read it, as it reads
// pi's (experiments/machine/incore.hpp), and so that the in-core probe runs the very code the
// kernel runs (core/incore_probe.hpp). One call per tile and k-block costs nothing beside the
// 64 x 256 x 64 multiply-adds it does.
#pragma once

#include <string_view>

#include "executor.hpp"

namespace parlab {

// For each of `rows` rows r: C[r * ldc + j] += A[r * lda + k] * B[k * ldb + j], for k in [kb, ke)
// ascending, j in [j0, j1). Every C element is the same k-ascending sum as the naive loop's
// (matmul_blocked says why that matters), whichever rows are done together.
// PRECONDITION: C overlaps neither A nor B, and its rows do not overlap (ldc >= j1); `ldb` may be
// 0 (every k reads one row of B: the probe's L1-resident case).
void matmul_tile_update(float* C, Index ldc, const float* A, Index lda, const float* B, Index ldb, Index rows, Index kb,
                        Index ke, Index j0, Index j1) noexcept __asm__("parlab_matmul_tile");

// The symbol matmul_tile_update is compiled under (the asm label above: a fixed name whatever the
// compiler mangles), for the disassembler.
inline constexpr std::string_view kMatmulTileSymbol = "parlab_matmul_tile";

// Rows a whole-width tile updates together: each loaded B vector feeds that many rows' sums, and
// each row's kTile2D sums stay in registers across k, so the sums form that many times more
// independent add chains (a row alone has kTile2D / lanes chains of dependent adds, and latency
// bound it: 7.4 cycles per trip of 8 multiplies and 8 adds on the 2-core EPYC). Four rows of 64
// floats are 16 of AVX-512's 32 registers; AVX2's 16 registers hold one row's 8.
#if defined(__AVX512F__)
inline constexpr Index kMatmulRowBlock = 4;
#else
inline constexpr Index kMatmulRowBlock = 1;
#endif

}  // namespace parlab
