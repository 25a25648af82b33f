#include "core/matmul_tile.hpp"

#include <cstring>

#include "core/kernels.hpp"

namespace parlab {
namespace {

// 16 floats, the compiler's vector extension (GCC and clang): split into whatever registers the
// target has (one zmm, two ymm, four xmm). Element-wise arithmetic, so each lane's sum is the scalar
// loop's (built with -ffp-contract=off: a multiply, then an add).
using Floats16 = float __attribute__((vector_size(64)));
constexpr Index kVectorsPerRow = kTile2D / 16;
static_assert(kTile2D % 16 == 0, "a tile row is whole vectors");

// kMatmulRowBlock rows over a whole tile's width: the rows' sums held in named vectors across k
// (the compiler keeps them in registers), each B vector loaded once for every row of the block.
// The general loop below reloads and stores each row's sums and sets its column loop up again
// for every k: at 64 columns one row ran at 52 Gflop/s on the 2-core EPYC, half of that setup.
template <Index R>
__attribute__((always_inline)) inline void rows_whole_width(float* C, Index ldc, const float* A, Index lda,
                                                            const float* B, Index ldb, Index kb, Index ke) {
  Floats16 acc[R][kVectorsPerRow];
#pragma GCC unroll 16
  for (Index r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (Index v = 0; v < kVectorsPerRow; ++v) std::memcpy(&acc[r][v], C + r * ldc + 16 * v, sizeof(Floats16));
  }
  for (Index k = kb; k < ke; ++k) {
    Floats16 b[kVectorsPerRow];
#pragma GCC unroll 16
    for (Index v = 0; v < kVectorsPerRow; ++v) std::memcpy(&b[v], B + k * ldb + 16 * v, sizeof(Floats16));
#pragma GCC unroll 16
    for (Index r = 0; r < R; ++r) {
      const float aik = A[r * lda + k];
#pragma GCC unroll 16
      for (Index v = 0; v < kVectorsPerRow; ++v) acc[r][v] += aik * b[v];
    }
  }
#pragma GCC unroll 16
  for (Index r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (Index v = 0; v < kVectorsPerRow; ++v) std::memcpy(C + r * ldc + 16 * v, &acc[r][v], sizeof(Floats16));
  }
}

}  // namespace

// noinline: one copy of the loop, the one the kernel runs and the probe times (clang inlined pi's
// loops into their caller and emitted no symbol to read).
__attribute__((noinline)) void matmul_tile_update(float* C, Index ldc, const float* A, Index lda, const float* B,
                                                  Index ldb, Index rows, Index kb, Index ke, Index j0,
                                                  Index j1) noexcept {
  Index r = 0;
  if (j1 - j0 == kTile2D) {
    for (; r + kMatmulRowBlock <= rows; r += kMatmulRowBlock) {
      rows_whole_width<kMatmulRowBlock>(C + r * ldc + j0, ldc, A + r * lda, lda, B + j0, ldb, kb, ke);
    }
  }
  for (; r < rows; ++r) {  // a narrow tile's rows, and those short of a block
    float* __restrict crow = C + r * ldc;
    const float* __restrict arow = A + r * lda;
    for (Index k = kb; k < ke; ++k) {
      const float aik = arow[k];
      const float* __restrict brow = B + k * ldb;
      for (Index j = j0; j < j1; ++j) crow[j] += aik * brow[j];
    }
  }
}

}  // namespace parlab
