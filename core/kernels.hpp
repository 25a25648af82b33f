// Every CPU kernel written once, against the Executor interface. A backend only supplies the
// executor; what runs on each index is identical, so results are too.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "aligned_buffer.hpp"
#include "executor.hpp"
#include "matmul_tile.hpp"
#include "pi.hpp"
#include "pi_simd.hpp"
#include "stream.hpp"
#include "stream_store.hpp"

namespace parlab {

// Grains: the smallest range a body is given. They bound scheduling overhead per chunk; they do
// not affect results (integer sums, per-element writes, fixed dot blocks).
inline constexpr Index kPiGrainPairs = Index{1} << 12;
inline constexpr Index kArrayGrain = 1024;
inline constexpr Index kTile2D = 64;      // add2d and matmul output tiles
inline constexpr Index kMatmulKBlock = 256;

// The canonical hit count of points [0, samples) for `seed`. Each range runs on the widest SIMD
// path the CPU has (pi_simd.hpp), the path is the same on every thread, and every path equals
// the scalar loop for every range.
inline std::uint64_t pi_hits(Executor& ex, std::uint64_t seed, std::uint64_t samples) {
  const Index pairs = samples / 2;
  const PiIsa isa = pi_active_isa();  // outside the bodies: a bad PARLAB_PI_ISA throws here
  std::uint64_t hits = ex.parallel_sum(
      pairs, kPiGrainPairs, [seed, isa](Index b, Index e) { return pi_hits_pairs_isa(isa, seed, b, e); });
  if (samples & 1u) hits += pi_hits_points(seed, samples - 1, samples);
  return hits;
}

// The canonical hit count of points [begin, end) of the stream for `seed`: one part of it (an
// MPI rank's share). Whole pairs run on the executor as pi_hits does; a pair cut by either end
// contributes only its points inside the range, so any split of [0, N) sums to the count of N.
inline std::uint64_t pi_hits_range(Executor& ex, std::uint64_t seed, std::uint64_t begin, std::uint64_t end) {
  if (begin >= end) return 0;
  const Index pair_begin = (begin + 1) / 2, pair_end = end / 2;  // pairs wholly inside
  if (pair_begin >= pair_end) return pi_hits_points(seed, begin, end);
  const PiIsa isa = pi_active_isa();
  std::uint64_t hits = ex.parallel_sum(pair_end - pair_begin, kPiGrainPairs, [seed, isa, pair_begin](Index b, Index e) {
    return pi_hits_pairs_isa(isa, seed, pair_begin + b, pair_begin + e);
  });
  hits += pi_hits_points(seed, begin, 2 * pair_begin) + pi_hits_points(seed, 2 * pair_end, end);
  return hits;
}

// One STREAM array kernel over a, b, c of n elements (not dot), with streaming stores where the
// arrays are far larger than the caches (stream_store.hpp); `stores` overrides that choice (the
// tests run both paths at every size).
template <class T>
inline void stream_run(Executor& ex, StreamKernel k, T* a, T* b, T* c, Index n, StreamStores stores) {
  const T s = StreamInit<T>::scalar;
  if (stores == StreamStores::streaming) {
    const StreamStoreIsa isa = stream_store_isa();  // outside the bodies: a bad PARLAB_STREAM_ISA throws here
    ex.parallel_for(n, kArrayGrain,
                    [=](Index lo, Index hi) { stream_range_streaming(k, a, b, c, s, lo, hi, isa); });
  } else {
    ex.parallel_for(n, kArrayGrain, [=](Index lo, Index hi) { stream_range(k, a, b, c, s, lo, hi); });
  }
}

template <class T>
inline void stream_run(Executor& ex, StreamKernel k, T* a, T* b, T* c, Index n) {
  stream_run(ex, k, a, b, c, n, stream_stores_for<T>(k, n));
}

// The deterministic dot. `partials` is scratch of at least dot_block_count(n) elements, so the
// timed region allocates nothing.
template <class T>
inline T stream_dot(Executor& ex, const T* a, const T* b, Index n, T* partials) {
  const Index blocks = dot_block_count(n);
  ex.parallel_for(blocks, 1, [=](Index lo, Index hi) {
    for (Index blk = lo; blk < hi; ++blk) partials[blk] = dot_block(a, b, n, blk);
  });
  return dot_pairwise_inplace(partials, blocks);
}

// plus_one: y[i] = x[i] + 1 over int32.
// PRECONDITION: no x[i] is INT32_MAX (signed overflow); see plus_one_init.
inline void plus_one(Executor& ex, const std::int32_t* x, std::int32_t* y, Index n) {
  ex.parallel_for(n, kArrayGrain, [=](Index lo, Index hi) {
    for (Index i = lo; i < hi; ++i) y[i] = x[i] + 1;
  });
}

inline std::int32_t plus_one_init(Index i) { return static_cast<std::int32_t>(i & 0x3fffffffu); }

// add2d: res[y*nx + x] = a[..] + b[..] over an nx-by-ny float grid, cut into 2-D tiles.
inline void add2d(Executor& ex, const float* a, const float* b, float* res, Index nx, Index ny) {
  ex.parallel_for_2d(nx, ny, kTile2D, kTile2D, [=](const Tile2D& t) {
    for (Index y = t.y0; y < t.y1; ++y) {
      const Index row = y * nx;
      for (Index x = t.x0; x < t.x1; ++x) res[row + x] = a[row + x] + b[row + x];
    }
  });
}

// The floats matmul_blocked's packed copy of B takes: each whole column band of kTile2D columns,
// all n rows of it, stored band after band (n / kTile2D bands of n x kTile2D).
inline Index matmul_packed_floats(Index n) { return (n / kTile2D) * kTile2D * n; }

// Blocked matmul, C = A * B, all n-by-n row-major float. Each output tile accumulates over k
// in ascending order, so every C element is the same sum, in the same order, as the naive
// i-j-k loop: results are bit-identical across tilings and thread counts. The tile update is out
// of line (matmul_tile.hpp) so that its compiled loop can be read and bounded.
//
// B is first copied into `packed` (matmul_packed_floats(n) floats, 64-byte aligned), one whole
// column band after another, so that each tile's k-block of B is one contiguous, aligned slab of
// kMatmulKBlock x kTile2D floats. Read in place, the slab's rows lie n floats apart: at n = 2048
// (8 KiB apart) they fall on the same few cache sets, and at n = 1000 or 2000 every vector load
// straddles two lines; on one core of the H200 node, pinned, n = 1024 ran at 54 Gflop/s, 2000 at
// 49 and 2048 at 30. The copy reads and writes n^2 floats once, against 2 n^3 flops. A narrow last
// band (n not a multiple of kTile2D) is read in place.
// PRECONDITION: C overlaps none of A, B and packed.
inline void matmul_blocked(Executor& ex, const float* A, const float* B, float* C, Index n, float* packed) {
  const Index bands = n / kTile2D;
  ex.parallel_for(bands, 1, [=](Index lo, Index hi) {
    for (Index band = lo; band < hi; ++band) {
      for (Index k = 0; k < n; ++k) {
        std::memcpy(packed + (band * n + k) * kTile2D, B + k * n + band * kTile2D, kTile2D * sizeof(float));
      }
    }
  });
  ex.parallel_for_2d(n, n, kTile2D, kTile2D, [=](const Tile2D& t) {
    for (Index i = t.y0; i < t.y1; ++i) {
      for (Index j = t.x0; j < t.x1; ++j) C[i * n + j] = 0.0f;
    }
    const bool whole = t.x1 - t.x0 == kTile2D && t.x0 % kTile2D == 0;
    for (Index kb = 0; kb < n; kb += kMatmulKBlock) {
      const Index ke = kb + kMatmulKBlock < n ? kb + kMatmulKBlock : n;
      if (whole) {
        matmul_tile_update(C + t.y0 * n + t.x0, n, A + t.y0 * n, n, packed + (t.x0 / kTile2D) * n * kTile2D, kTile2D,
                           t.y1 - t.y0, kb, ke, 0, kTile2D);
      } else {
        matmul_tile_update(C + t.y0 * n, n, A + t.y0 * n, n, B, n, t.y1 - t.y0, kb, ke, t.x0, t.x1);
      }
    }
  });
}

// The same, with its packed copy of B allocated here (tests; a workload keeps one, so that its
// timed region allocates nothing).
inline void matmul_blocked(Executor& ex, const float* A, const float* B, float* C, Index n) {
  AlignedBuffer<float> packed(matmul_packed_floats(n));
  matmul_blocked(ex, A, B, C, n, packed.data());
}

// The oracle the blocked kernel is tested against: the textbook triple loop.
inline void matmul_naive(const float* A, const float* B, float* C, Index n) {
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (Index k = 0; k < n; ++k) sum += A[i * n + k] * B[k * n + j];
      C[i * n + j] = sum;
    }
  }
}

// Inputs for add2d and matmul: small exactly representable values, a pure function of the index.
inline float basic_input(Index i, int which) {
  return static_cast<float>(static_cast<int>((i * (2 * which + 3) + which) % 17) - 8) * 0.125f;
}

}  // namespace parlab
