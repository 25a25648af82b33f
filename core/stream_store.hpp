// The STREAM array kernels with non-temporal ("streaming") stores, for arrays far larger than
// the caches (docs/design.md, "Kernels and their work model").
//
// Why. An ordinary store to a line that is not in the cache first reads the line from memory
// (a read for ownership), so copy moves three words per element through the memory bus where
// BabelStream's byte count, which parlab uses, counts two; add and triad move four for three. A
// non-temporal store writes the whole line without reading it, so the memory traffic is the
// counted traffic. It pays only when the arrays do not fit in the caches (the stores bypass them,
// so the next kernel reads from memory what it could have found in a cache): stream_stores_for()
// decides from the kernel's footprint. The values stored are the same IEEE operations on the same
// operands as stream_range's (vector lanes are elementwise; fp contraction is off project-wide),
// so results are bit-identical to the ordinary path; tests/test_stream.cpp checks this for every
// kernel, precision, alignment and length.
//
// Host only (x86-64's SSE2, which every x86-64 CPU has); elsewhere streaming falls back to
// stream_range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "stream.hpp"

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>  // SSE2: _mm_stream_pd, _mm_stream_ps, _mm_sfence
#define PARLAB_STREAMING_STORES 1
#else
#define PARLAB_STREAMING_STORES 0
#endif

#if defined(__linux__)
#include <unistd.h>
#endif

namespace parlab {

enum class StreamStores { cached, streaming };

// The cache size that a kernel's arrays must exceed before streaming stores pay: the last-level
// cache as the C library reports it (glibc reads CPUID), and 32 MiB where it reports none.
inline std::uint64_t last_level_cache_bytes() {
  static const std::uint64_t bytes = [] {
    long l3 = -1;
#if defined(__linux__) && defined(_SC_LEVEL3_CACHE_SIZE)
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return l3 > 0 ? static_cast<std::uint64_t>(l3) : std::uint64_t{32} << 20;
  }();
  return bytes;
}

// Streaming when the kernel's arrays (words per element x n x element size) are larger than the
// last-level cache: a kernel sweeping them in order then evicts each line before it comes round
// again, so an ordinary store finds nothing cached to keep. Below that, the cached path (a kernel
// repeated over arrays that fit is the cache's figure, and streaming stores would throw it away).
template <class T>
inline StreamStores stream_stores_for(StreamKernel k, std::uint64_t n) {
  const std::uint64_t footprint = static_cast<std::uint64_t>(info(k).words) * sizeof(T) * n;
  return PARLAB_STREAMING_STORES && footprint > last_level_cache_bytes() ? StreamStores::streaming
                                                                             : StreamStores::cached;
}

#if PARLAB_STREAMING_STORES
namespace stream_detail {

// 16-byte vectors of T (two doubles, four floats). GCC's and Clang's vector types: + and * are
// elementwise IEEE operations, the same as the scalar ones.
template <class T>
struct VecOf;
template <>
struct VecOf<double> {
  using type = __m128d;
  static type load(const double* p) { return _mm_loadu_pd(p); }  // sources may be unaligned
  static type splat(double s) { return _mm_set1_pd(s); }
  static void store_nt(double* p, type v) { _mm_stream_pd(p, v); }  // PRECONDITION: p 16-byte aligned
};
template <>
struct VecOf<float> {
  using type = __m128;
  static type load(const float* p) { return _mm_loadu_ps(p); }
  static type splat(float s) { return _mm_set1_ps(s); }
  static void store_nt(float* p, type v) { _mm_stream_ps(p, v); }
};

}  // namespace stream_detail
#endif

// Kernel k over [begin, end) with streaming stores to its destination array: the elements before
// the first 16-byte boundary of the destination and after the last whole vector take ordinary
// stores. Ends with a store fence: streaming stores are weakly ordered, and the fork-join that
// follows (a release on x86) does not order them for the threads that read the arrays next.
template <class T>
inline void stream_range_streaming(StreamKernel k, T* a, T* b, T* c, T s, std::uint64_t begin, std::uint64_t end) {
#if PARLAB_STREAMING_STORES
  using Ops = stream_detail::VecOf<T>;
  using V = typename Ops::type;
  constexpr std::uint64_t kLanes = sizeof(V) / sizeof(T);
  const auto load = Ops::load;
  const auto store_nt = Ops::store_nt;
  const StreamKernelInfo& row = info(k);
  if (row.writes == 0) return;  // dot: a reduction, nothing stored
  T* dst = row.writes == kStreamA ? a : row.writes == kStreamB ? b : c;
  std::uint64_t i = begin;
  for (; i < end && reinterpret_cast<std::uintptr_t>(dst + i) % sizeof(V) != 0; ++i) stream_element(k, a, b, c, s, i);
  const std::uint64_t vec_end = i + (end - i) / kLanes * kLanes;
  const V sv = Ops::splat(s);
  // The element body on vectors: elementwise IEEE operations, so the stored values are the
  // scalar path's bits.
  with_stream_kernel(k, [&](auto kernel) {
    constexpr StreamKernelInfo r = kStreamKernels[static_cast<std::size_t>(decltype(kernel)::value)];
    for (; i < vec_end; i += kLanes) {
      V va{}, vb{}, vc{};
      if constexpr ((r.reads & kStreamA) != 0) va = load(a + i);
      if constexpr ((r.reads & kStreamB) != 0) vb = load(b + i);
      if constexpr ((r.reads & kStreamC) != 0) vc = load(c + i);
      stream_element<V>(kernel(), &va, &vb, &vc, sv, 0);
      store_nt(dst + i, r.writes == kStreamA ? va : r.writes == kStreamB ? vb : vc);
    }
  });
  for (; i < end; ++i) stream_element(k, a, b, c, s, i);
  _mm_sfence();
#else
  stream_range(k, a, b, c, s, begin, end);
#endif
}

}  // namespace parlab
