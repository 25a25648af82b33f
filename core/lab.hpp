// The race-and-determinism lab and the scheduling-overhead probes.
//
// These are NOT canonical kernels: the racy ones give timing-dependent results on purpose and
// are never used for figures of speed. They live here, apart from core/kernels.hpp, under
// their own names (docs/design.md, "Deterministic reduction": a non-deterministic form is a
// separate kernel with its own name, never a flag on the canonical one).
//
// The races are written with relaxed atomic loads and stores, not plain variables: a separate
// load and store is not an atomic read-modify-write, so concurrent increments are lost exactly
// as with `++x` on a plain int, but the program has no undefined behaviour, the compiler cannot
// fold the loop into one add, and ThreadSanitizer stays quiet about code that is racy by
// design (its positive controls, tests/sanitizer/, use real data races instead).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "executor.hpp"
#include "pi.hpp"

namespace parlab::lab {

// ---- Lost updates -------------------------------------------------------------------------

// n increments of one shared counter as load + store: updates are lost when threads interleave.
inline std::uint64_t count_racy(Executor& ex, Index n) {
  std::atomic<std::uint64_t> counter{0};
  ex.parallel_for(n, 256, [&](Index b, Index e) {
    for (Index i = b; i < e; ++i) {
      const std::uint64_t v = counter.load(std::memory_order_relaxed);
      counter.store(v + 1, std::memory_order_relaxed);  // RACY BY DESIGN: not a read-modify-write
    }
  });
  return counter.load();
}

// The same increments as atomic read-modify-writes: always exactly n (and contended).
inline std::uint64_t count_atomic(Executor& ex, Index n) {
  std::atomic<std::uint64_t> counter{0};
  ex.parallel_for(n, 256, [&](Index b, Index e) {
    for (Index i = b; i < e; ++i) counter.fetch_add(1, std::memory_order_relaxed);
  });
  return counter.load();
}

// Per-chunk local counters combined once by the executor: always exactly n, no contention.
inline std::uint64_t count_local(Executor& ex, Index n) {
  return ex.parallel_sum(n, 256, [](Index b, Index e) {
    std::uint64_t local = 0;
    for (Index i = b; i < e; ++i) ++local;
    return local;
  });
}

// ---- A shared stateful generator vs the counter-based stream -------------------------------

// xorshift64*: a small stateful generator, advanced by whoever draws next.
inline std::uint64_t xorshift64_next(std::uint64_t s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s;
}

// pi hits from one generator state shared by all threads (load, advance, store): threads that
// read the same state draw the same point, so the points drawn, and the count, depend on timing.
inline std::uint64_t pi_hits_rng_shared(Executor& ex, std::uint64_t seed, Index samples) {
  std::atomic<std::uint64_t> state{seed | 1u};
  return ex.parallel_sum(samples, 256, [&](Index b, Index e) {
    std::uint64_t hits = 0;
    for (Index i = b; i < e; ++i) {
      const std::uint64_t s = xorshift64_next(state.load(std::memory_order_relaxed));
      state.store(s, std::memory_order_relaxed);  // RACY BY DESIGN
      const std::uint64_t r = s * 0x2545F4914F6CDD1Dull;
      hits += pi_hit(static_cast<std::uint32_t>(r >> 32), static_cast<std::uint32_t>(r));
    }
    return hits;
  });
}

// ---- Summation order -----------------------------------------------------------------------

// A float sum the naive parallel way: each chunk sums left to right, and partials are added to
// one accumulator in the order chunks finish. The value depends on the thread count, the
// chunking and the schedule. (The canonical `dot` is the deterministic counterpart.)
inline double sum_completion_order(Executor& ex, const double* x, Index n) {
  double total = 0.0;
  std::mutex m;
  ex.parallel_for(n, 4096, [&](Index b, Index e) {
    double partial = 0.0;
    for (Index i = b; i < e; ++i) partial += x[i];
    std::lock_guard<std::mutex> lock(m);
    total += partial;  // completion order: whoever finishes first adds first
  });
  return total;
}

// ---- Scheduling overhead probes (EPCC style) ----------------------------------------------

// `regions` empty fork-joins: one index per thread, an empty body.
inline void overhead_empty_regions(Executor& ex, Index regions) {
  const Index t = static_cast<Index>(ex.threads());
  for (Index r = 0; r < regions; ++r) ex.parallel_for(t, 1, [](Index, Index) {});
}

// `regions` parallel fors over `iters_per_thread` trivial iterations per thread.
inline std::uint64_t overhead_parallel_for(Executor& ex, Index regions, Index iters_per_thread) {
  const Index n = iters_per_thread * static_cast<Index>(ex.threads());
  std::atomic<std::uint64_t> sink{0};
  for (Index r = 0; r < regions; ++r) {
    ex.parallel_for(n, 1, [&](Index b, Index e) {
      std::uint64_t local = 0;
      for (Index i = b; i < e; ++i) local += i;  // trivial work the compiler cannot drop
      sink.fetch_add(local, std::memory_order_relaxed);
    });
  }
  return sink.load();
}

// `regions` reductions over one index per thread.
inline std::uint64_t overhead_reduction(Executor& ex, Index regions) {
  const Index t = static_cast<Index>(ex.threads());
  std::uint64_t total = 0;
  for (Index r = 0; r < regions; ++r) total += ex.parallel_sum(t, 1, [](Index b, Index e) { return e - b; });
  return total;
}

}  // namespace parlab::lab
